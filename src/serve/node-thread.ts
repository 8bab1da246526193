/** A serving thread of `--workers` on node:http (Node and Deno); started by node-server.ts. */
import { listenNode } from './node-listen.ts';
import { serveInThread } from './serving-threads.ts';

await serveInThread(listenNode);
