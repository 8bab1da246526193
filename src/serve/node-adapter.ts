/**
 * The node:http adapter: answers node:http requests through `app.serve`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.ts';

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
      // Once the response has finished, its bytes were handed to the socket: the bytes the answer was written
      // into may be written over (AppResponse.release). Node documents that `end`'s callback means so; Deno's
      // node:http does not, and tests/body-release.test.ts checks that it behaves so on the version installed.
      const release = answer.release;
      if (release) res.end(answer.body ?? undefined, (err?: Error | null) => { if (!err) release(); });
      else res.end(answer.body ?? undefined);
    } catch (err) {
      console.error(JSON.stringify({ level: 'error', msg: 'adapter failure', error: String(err) }));
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/problem+json; charset=utf-8', 'access-control-allow-origin': '*' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'An unexpected error occurred.', instance: '/' }));
    }
  };
}
