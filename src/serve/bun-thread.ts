/** A serving thread of `--workers` on Bun.serve; started by bun-serve.ts. */
import { listenBun } from './bun-serve.ts';
import { serveInThread } from './serving-threads.ts';

await serveInThread(listenBun);
