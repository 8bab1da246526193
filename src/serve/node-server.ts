/**
 * The Node server: node:http in front of the app (started by node.ts, and by deno.ts on Deno's node:http), with
 * the connection limits and the graceful shutdown of node-connections.ts, and with `--workers N` the serving
 * threads of serving-threads.ts beside the main thread.
 */
import { listenNode } from './node-listen.ts';
import { runServer } from './run-server.ts';
import { start } from './start.ts';

/** Deno runs this file too (deno.ts). */
const RUNTIME = 'Deno' in globalThis ? 'deno' : 'node';

const started = await start(process.argv.slice(2), process.env);
if ('exitCode' in started) {
  (started.exitCode === 0 || started.report ? console.log : console.error)(started.message);
  process.exit(started.exitCode);
}
await runServer(started, { runtime: RUNTIME, server: 'node:http', listen: listenNode, threadFile: new URL('./node-thread.ts', import.meta.url) });
