/**
 * Node entry: node:http in front of the Fetch handler.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { App } from '../app.ts';
import { listeningMessage, start } from './start.ts';

/** Methods the Fetch Request constructor refuses; answered 405 here, before a Request is built. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** Turns a node:http request into a Fetch Request, and the Response back. */
export function nodeHandler(app: App) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const method = req.method ?? 'GET';
      if (FORBIDDEN_METHODS.has(method)) {
        res.writeHead(405, { allow: 'GET, HEAD, OPTIONS', 'content-type': 'application/problem+json; charset=utf-8', 'access-control-allow-origin': '*' });
        res.end(JSON.stringify({ type: 'about:blank', title: 'Method Not Allowed', status: 405, detail: `${method} is not allowed; this API is read-only.`, instance: '/' }));
        return;
      }
      const headers = new Headers();
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      // The URL is built from the request target alone: routing needs no Host, and a hostile Host must not reshape it.
      const request = new Request(new URL(req.url ?? '/', 'http://localhost'), { method, headers });
      const response = await app.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
    } catch (err) {
      console.error(JSON.stringify({ level: 'error', msg: 'adapter failure', error: String(err) }));
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/problem+json; charset=utf-8', 'access-control-allow-origin': '*' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'An unexpected error occurred.', instance: '/' }));
    }
  };
}

const started = await start(process.argv.slice(2), process.env);
if ('exitCode' in started) {
  (started.exitCode === 0 ? console.log : console.error)(started.message);
  process.exit(started.exitCode);
}
const { app, config, store } = started;
const server = createServer(nodeHandler(app));
server.listen(config.port, config.host, () => {
  const address = server.address();
  console.log(listeningMessage('node', config, typeof address === 'object' && address ? address.port : config.port));
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(async () => {
      await store.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  });
}
