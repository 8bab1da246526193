/**
 * The Node server: node:http in front of the app (started by node.ts).
 */
import { createServer } from 'node:http';
import { nodeHandler } from './node-adapter.ts';
import { logListening, start } from './start.ts';

const started = await start(process.argv.slice(2), process.env);
if ('exitCode' in started) {
  (started.exitCode === 0 ? console.log : console.error)(started.message);
  process.exit(started.exitCode);
}
const { app, config, logger, load, reload, close } = started;
const server = createServer(nodeHandler(app));
server.listen(config.port, config.host, () => {
  const address = server.address();
  logListening(logger, 'node', config, typeof address === 'object' && address ? address.port : config.port);
});
// Stop accepting connections, let the requests in flight finish, close PGlite, exit 0.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.log('info', 'shutting down', { signal });
    server.close(async () => {
      await close();
      logger.log('info', 'stopped');
      logger.flush();
      process.exit(0);
    });
    server.closeIdleConnections();
  });
}
// SIGHUP publishes the bundle again; the current version serves until the new one is ready.
process.on('SIGHUP', () => void reload('SIGHUP'));
if (!(await load())) process.exit(1);
