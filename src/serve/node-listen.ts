/**
 * Serving an app on node:http (Node, and Deno through its node:http): the connection limits and the graceful
 * stop of node-connections.ts. The main thread and each serving thread of `--workers` listen this way.
 */
import { createServer } from 'node:http';
import { nodeHandler } from './node-adapter.ts';
import { applyNodeLimits, NODE_SERVER_OPTIONS, trackConnections } from './node-connections.ts';
import { maxConnections } from './limits.ts';
import type { Listen } from './serving-threads.ts';

/**
 * Listens on the config's port and host; with `reusePort`, on a socket that other threads' listeners share
 * (SO_REUSEPORT). The connection cap is the process's, shared out evenly between the `workers` threads.
 */
export const listenNode: Listen = (app, config, logger, reusePort) => new Promise((resolve, reject) => {
  const server = createServer(NODE_SERVER_OPTIONS, nodeHandler(app));
  applyNodeLimits(server, config.limits, Math.max(1, Math.floor(maxConnections(config.limits) / config.workers)));
  const connections = trackConnections(server);
  server.on('drop', () => logger.log('debug', 'connection refused: max-connections reached'));
  server.once('error', reject);
  server.listen({ port: config.port, host: config.host, reusePort }, () => {
    server.off('error', reject);
    const address = server.address();
    resolve({ port: typeof address === 'object' && address ? address.port : config.port, stop: (deadline) => connections.drain(deadline),
      open: connections.open });
  });
});
