/**
 * Deno entry: Deno.serve in front of the Fetch handler.
 */
import { logListening, start } from './start.ts';

declare const Deno: {
  args: string[];
  env: { toObject(): Record<string, string> };
  exit(code: number): never;
  addSignalListener(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP', handler: () => void): void;
  serve(options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (req: Request) => Promise<Response>): { shutdown(): Promise<void> };
};

const started = await start(Deno.args, Deno.env.toObject());
if ('exitCode' in started) {
  (started.exitCode === 0 ? console.log : console.error)(started.message);
  Deno.exit(started.exitCode);
}
const { app, config, logger, load, reload, close } = started;
const server = Deno.serve({ port: config.port, hostname: config.host, onListen: ({ port }) => logListening(logger, 'deno', config, port) }, app.fetch);
// Stop accepting connections, let the requests in flight finish, close PGlite, exit 0.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(signal, async () => {
    if (stopping) return;
    stopping = true;
    logger.log('info', 'shutting down', { signal });
    await server.shutdown();
    await close();
    logger.log('info', 'stopped');
    logger.flush();
    Deno.exit(0);
  });
}
// SIGHUP publishes the bundle again; the current version serves until the new one is ready.
Deno.addSignalListener('SIGHUP', () => void reload('SIGHUP'));
if (!(await load())) Deno.exit(1);
