/**
 * The Deno ceiling: a bare Deno.serve answering prebuilt bodies, keyed by path and query exactly as the
 * service answered them (same status, content-type and bytes). What the service is measured against.
 *
 *   deno run --allow-net --allow-read scripts/bench/ceiling-deno.ts --manifest DIR/manifest.json --port N
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

declare const Deno: {
  args: string[];
  exit(code: number): never;
  addSignalListener(signal: 'SIGTERM', handler: () => void): void;
  serve(options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (req: Request) => Response): unknown;
};

/** One prebuilt answer as the manifest lists it. */
interface Entry { key: string; status: number; contentType: string; file: string }

/** Reads a `--name value` flag. */
function flag(args: string[], name: string, fallback?: string): string {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? args[at + 1] : fallback;
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
}

const manifest = flag(Deno.args, 'manifest');
const entries = (JSON.parse(readFileSync(manifest, 'utf8')) as { entries: Entry[] }).entries;
// Status, content-type and body bytes are built once; each request only wraps them in a Response.
const answers = new Map(entries.map((e) => [e.key, {
  body: new Uint8Array(readFileSync(join(dirname(manifest), e.file))),
  init: { status: e.status, headers: { 'content-type': e.contentType } },
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
