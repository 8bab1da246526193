/**
 * Serving on Bun.serve: shared by the Bun entry (src/serve/bun.ts) and the single binary (src/serve/binary.ts).
 */
import { logListening, start, type StartOptions } from './start.ts';

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch(req: Request): Promise<Response> }): { port: number; stop(): Promise<void> };
};

/** Starts the service on Bun.serve: stage, listen, load; stops gracefully on SIGTERM and SIGINT. */
export async function serveOnBun(runtime: string, args: readonly string[], options: StartOptions = {}): Promise<void> {
  const started = await start(args, process.env, options);
  if ('exitCode' in started) {
    (started.exitCode === 0 ? console.log : console.error)(started.message);
    process.exit(started.exitCode);
  }
  const { app, config, logger, load, reload, close } = started;
  // Bun sends Date on every answer but those to HEAD; RFC 9110 asks for it on all of them.
  const fetch = async (req: Request) => {
    const res = await app.fetch(req);
    if (req.method === 'HEAD' && !res.headers.has('date')) res.headers.set('date', new Date().toUTCString());
    return res;
  };
  const server = Bun.serve({ port: config.port, hostname: config.host, fetch });
  logListening(logger, runtime, config, server.port);
  // Stop accepting connections, let the requests in flight finish, close PGlite, exit 0.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      logger.log('info', 'shutting down', { signal });
      await server.stop();
      await close();
      logger.log('info', 'stopped');
      logger.flush();
      process.exit(0);
    });
  }
  // SIGHUP publishes the bundle again; the current version serves until the new one is ready.
  process.on('SIGHUP', () => void reload('SIGHUP'));
  if (!(await load())) process.exit(1);
}
