/**
 * The Deno ceiling: a bare Deno.serve answering prebuilt bodies, keyed by path and query exactly as the
 * service answered them (same status, content-type and bytes). What the service is measured against.
 *
 *   deno run --allow-net --allow-read scripts/bench/ceiling-deno.ts --manifest DIR/manifest.json --port N
 */
import { flag, readPrebuilt } from './prebuilt.ts';

declare const Deno: {
  args: string[];
  exit(code: number): never;
  addSignalListener(signal: 'SIGTERM', handler: () => void): void;
  serve(options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (req: Request) => Response): unknown;
};

// Status, content-type and body bytes are built once; each request only wraps them in a Response.
const answers = new Map([...readPrebuilt(Deno.args)].map(([key, p]) => [key, {
  body: p.body, init: { status: p.status, headers: { 'content-type': p.contentType } },
}]));

Deno.serve({
  port: Number(flag(Deno.args, 'port')),
  hostname: flag(Deno.args, 'host', '127.0.0.1'),
  onListen: ({ port }) => console.log(JSON.stringify({ msg: 'listening', runtime: 'deno', port })),
}, (req) => {
  // req.url is absolute; the key is its path and query.
  const answer = answers.get(req.url.slice(req.url.indexOf('/', 8)));
  return answer ? new Response(answer.body, answer.init) : new Response('not a prebuilt request', { status: 404 });
});
Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
