/**
 * A node:http server that tells whether `res.end(body, callback)` may be trusted to mean "these bytes are no
 * longer read" (what AppResponse.release relies on, src/serve/node-adapter.ts): each answer is a body of 32 MB
 * of `a`, written over with `z` the moment end's callback runs. A client that reads slowly and gets only `a`
 * shows the runtime had taken the bytes (sent or copied) before it called back. Prints `PORT <n>` once listening,
 * and `CALLBACK <ms>` (ms since the answer began) when a callback runs. Run by tests/body-release.test.ts on
 * each runtime whose server is node:http.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const PROBE_BODY_BYTES = 32 << 20;

const server = createServer((_req, res) => {
  const began = performance.now();
  const body = new Uint8Array(PROBE_BODY_BYTES).fill(0x61);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) });
  res.end(body, () => {
    body.fill(0x7a);
    console.log(`CALLBACK ${Math.round(performance.now() - began)}`);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`PORT ${(server.address() as AddressInfo).port}`));
