/**
 * The Bun ceiling: a bare Bun.serve answering prebuilt bodies, keyed by path and query exactly as the
 * service answered them (same status, content-type and bytes). What the service is measured against.
 *
 *   bun scripts/bench/ceiling-bun.ts --manifest DIR/manifest.json --port N [--host 127.0.0.1]
 */
import { flag, readPrebuilt } from './prebuilt.ts';

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch(req: Request): Response }): { port: number };
};

const args = process.argv.slice(2);
// Status, content-type and body bytes are built once; each request only wraps them in a Response.
const answers = new Map([...readPrebuilt(args)].map(([key, p]) => [key, {
  body: p.body, init: { status: p.status, headers: { 'content-type': p.contentType } },
}]));

const server = Bun.serve({
  port: Number(flag(args, 'port')),
  hostname: flag(args, 'host', '127.0.0.1'),
  fetch(req) {
    // req.url is absolute; the key is its path and query.
    const answer = answers.get(req.url.slice(req.url.indexOf('/', 8)));
    return answer ? new Response(answer.body, answer.init) : new Response('not a prebuilt request', { status: 404 });
  },
});
console.log(JSON.stringify({ msg: 'listening', runtime: 'bun', port: server.port }));
process.once('SIGTERM', () => process.exit(0));
