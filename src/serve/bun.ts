/**
 * Bun entry: Bun.serve in front of the Fetch handler.
 */
import { listeningMessage, start } from './start.ts';

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch(req: Request): Promise<Response> }): { port: number; stop(): Promise<void> };
};

const started = await start(process.argv.slice(2), process.env);
if ('exitCode' in started) {
  (started.exitCode === 0 ? console.log : console.error)(started.message);
  process.exit(started.exitCode);
}
const { app, config, store } = started;
const server = Bun.serve({ port: config.port, hostname: config.host, fetch: app.fetch });
console.log(listeningMessage('bun', config, server.port));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await server.stop();
    await store.close();
    process.exit(0);
  });
}
