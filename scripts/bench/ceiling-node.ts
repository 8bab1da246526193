/**
 * The Node ceiling: a bare node:http server answering prebuilt bodies, keyed by path and query exactly as
 * the service answered them (same status, content-type and bytes). What the service is measured against.
 *
 *   node scripts/bench/ceiling-node.ts --manifest DIR/manifest.json --port N [--host 127.0.0.1]
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';

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
// Everything the handler needs is built once: status, headers and the body bytes.
const answers = new Map(entries.map((e) => {
  const body = readFileSync(join(dirname(manifest), e.file));
  return [e.key, { status: e.status, body, headers: { 'content-type': e.contentType, 'content-length': String(body.length) } }];
}));

const server = createServer((req, res) => {
  const answer = answers.get(req.url ?? '');
  if (!answer) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not a prebuilt request');
    return;
  }
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
});
server.listen(Number(flag(args, 'port')), flag(args, 'host', '127.0.0.1'), () => {
  const address = server.address();
  console.log(JSON.stringify({ msg: 'listening', runtime: 'node', port: typeof address === 'object' && address ? address.port : 0 }));
});
process.once('SIGTERM', () => process.exit(0));
