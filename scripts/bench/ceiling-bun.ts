/**
 * The Bun ceiling: a bare Bun.serve answering prebuilt bodies, keyed by path and query exactly as the
 * service answered them (same status, content-type and bytes). What the service is measured against.
 *
 *   bun scripts/bench/ceiling-bun.ts --manifest DIR/manifest.json --port N [--host 127.0.0.1]
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch(req: Request): Response }): { port: number };
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

const args = process.argv.slice(2);
const manifest = flag(args, 'manifest');
const entries = (JSON.parse(readFileSync(manifest, 'utf8')) as { entries: Entry[] }).entries;
// Status, content-type and body bytes are built once; each request only wraps them in a Response.
const answers = new Map(entries.map((e) => [e.key, {
  body: new Uint8Array(readFileSync(join(dirname(manifest), e.file))),
  init: { status: e.status, headers: { 'content-type': e.contentType } },
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
