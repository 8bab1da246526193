/**
 * The Node ceiling: a bare node:http server answering prebuilt bodies, keyed by path and query exactly as
 * the service answered them (same status, content-type and bytes). What the service is measured against.
 *
 *   node scripts/bench/ceiling-node.ts --manifest DIR/manifest.json --port N [--host 127.0.0.1]
 */
import { createServer } from 'node:http';
import { flag, readPrebuilt } from './prebuilt.ts';

const args = process.argv.slice(2);
// Everything the handler needs is built once: status, headers and the body bytes.
const answers = new Map([...readPrebuilt(args)].map(([key, p]) => [key, {
  status: p.status, body: p.body, headers: { 'content-type': p.contentType, 'content-length': String(p.body.length) },
}]));

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
