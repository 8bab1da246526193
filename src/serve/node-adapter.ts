/**
 * The node:http adapter: answers node:http requests through `app.serve`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.ts';

/**
 * Only Node's own node:http says when a response's bytes are no longer read: its `end` callback waits for the
 * socket's write to complete. Deno's node:http may call it once a body is queued on a stream that Deno's server
 * reads later, so there an answer's bytes are never handed back (AppResponse.release).
 */
const RELEASES_BODIES = !('Deno' in globalThis);

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
      // into may be written over (AppResponse.release).
      const release = RELEASES_BODIES ? answer.release : undefined;
      if (release) res.end(answer.body ?? undefined, (err?: Error | null) => { if (!err) release(); });
      else res.end(answer.body ?? undefined);
    } catch (err) {
      console.error(JSON.stringify({ level: 'error', msg: 'adapter failure', error: String(err) }));
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/problem+json; charset=utf-8', 'access-control-allow-origin': '*' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'An unexpected error occurred.', instance: '/' }));
    }
  };
}
