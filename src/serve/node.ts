/**
 * Node entry: node:http in front of the app.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { App } from '../app.ts';
import { listeningMessage, start } from './start.ts';

/**
 * Serves node:http requests through `app.serve`, without building a Fetch Request or Response: on Node
 * those objects cost more CPU than answering a cached request does.
 */
export function nodeHandler(app: App) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const answer = await app.serve({
        method: req.method ?? 'GET',
        target: req.url ?? '/',
        header: (name) => {
          const value = req.headers[name];
          return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
        },
      });
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? undefined);
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
