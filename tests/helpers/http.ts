/**
 * Raw HTTP for tests: node:http requests that see the bytes on the wire (fetch would decompress them),
 * and an in-process node:http server over any app.
 */
import { createServer, request } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { App } from '../../src/app.ts';
import { nodeHandler } from '../../src/serve/node-adapter.ts';

/** A response as received. */
export interface RawResponse { status: number; headers: Record<string, string>; body: Buffer }

/** Sends one request and reads the raw answer (no decompression). */
export async function rawRequest(url: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, agent: false });
  req.end();
  const [res] = await once(req, 'response');
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return { status: res.statusCode!, headers, body: Buffer.concat(chunks) };
}

/** Serves an app over node:http on an ephemeral port of 127.0.0.1 (the production adapter). */
export async function listen(app: App): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer(nodeHandler(app));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
