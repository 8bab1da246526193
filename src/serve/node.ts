/**
 * Node entry: node:http in front of the app.
 */
import { createServer } from 'node:http';
import { nodeHandler } from './node-adapter.ts';
import { listeningMessage, start } from './start.ts';

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
