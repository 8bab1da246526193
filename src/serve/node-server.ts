/**
 * The Node server: node:http in front of the app (started by node.ts, and by deno.ts on Deno's node:http), with
 * the connection limits and the graceful shutdown of node-connections.ts.
 */
import { createServer } from 'node:http';
import { nodeHandler } from './node-adapter.ts';
import { applyNodeLimits, NODE_SERVER_OPTIONS, trackConnections } from './node-connections.ts';
import { logLimits, maxConnections } from './limits.ts';
import { shutdownOnSignal } from './shutdown.ts';
import { logListening, start } from './start.ts';

/** Deno runs this file too (deno.ts). */
const RUNTIME = 'Deno' in globalThis ? 'deno' : 'node';

const started = await start(process.argv.slice(2), process.env);
if ('exitCode' in started) {
  (started.exitCode === 0 ? console.log : console.error)(started.message);
  process.exit(started.exitCode);
}
const { app, config, logger, load, reload, close } = started;
const server = createServer(NODE_SERVER_OPTIONS, nodeHandler(app));
applyNodeLimits(server, config.limits, maxConnections(config.limits));
const connections = trackConnections(server);
server.on('drop', () => logger.log('debug', 'connection refused: max-connections reached'));
server.listen(config.port, config.host, () => {
  const address = server.address();
  logListening(logger, RUNTIME, config, typeof address === 'object' && address ? address.port : config.port);
  logLimits(logger, config.limits, 'node:http');
});
// Answer with Connection: close, stop accepting, let requests in flight finish, close the store, exit 0.
const stop = shutdownOnSignal({ app, logger, close, stopServer: (deadline) => connections.drain(deadline), openConnections: connections.open,
  exit: (code) => process.exit(code) }, config.limits.shutdownTimeoutS);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
// SIGHUP publishes the bundle again; the current version serves until the new one is ready.
process.on('SIGHUP', () => void reload('SIGHUP'));
if (!(await load())) process.exit(1);
