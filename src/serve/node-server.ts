/**
 * The Node server: node:http in front of the app (started by node.ts, and by deno.ts on Deno's node:http), with
 * the connection limits and the graceful shutdown of node-connections.ts, and with `--workers N` the serving
 * threads of serving-threads.ts beside the main thread.
 */
import { logLimits } from './limits.ts';
import { listenNode } from './node-listen.ts';
import { ServingThreads } from './serving-threads.ts';
import { shutdownOnSignal } from './shutdown.ts';
import { logListening, start } from './start.ts';

/** Deno runs this file too (deno.ts). */
const RUNTIME = 'Deno' in globalThis ? 'deno' : 'node';

const started = await start(process.argv.slice(2), process.env);
if ('exitCode' in started) {
  (started.exitCode === 0 ? console.log : console.error)(started.message);
  process.exit(started.exitCode);
}
const { app, config, store, logger, load, reload, close } = started;
const threads = config.workers > 1;
// Each version's payload goes into shared memory, which every serving thread's model then views.
store.sharePayloads = threads;
const listener = await listenNode(app, config, logger, threads);
logListening(logger, RUNTIME, config, listener.port);
logLimits(logger, config.limits, 'node:http');
const workers = threads ? ServingThreads.start(config.workers - 1, new URL('./node-thread.ts', import.meta.url), store, config, listener.port, logger) : null;
void workers?.listening.then(() => logger.log('info', 'serving threads', { workers: config.workers }));
// Answer with Connection: close, stop accepting, let requests in flight finish, close the store, exit 0.
const stop = shutdownOnSignal({ app, logger, close, openConnections: listener.open,
  stopServer: async (deadline) => { await Promise.all([listener.stop(deadline), workers?.stop(deadline)]); },
  exit: (code) => process.exit(code) }, config.limits.shutdownTimeoutS);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
// SIGHUP publishes the bundle again; the current version serves until the new one is ready.
process.on('SIGHUP', () => void reload('SIGHUP'));
if (!(await load())) process.exit(1);
