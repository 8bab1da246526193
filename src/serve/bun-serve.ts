/**
 * Serving on Bun.serve: shared by the Bun entry (src/serve/bun.ts) and the single binary (src/serve/binary.ts).
 */
import { bunIdleTimeout, logLimits } from './limits.ts';
import { DRAIN_GRACE_MS, shutdownOnSignal, sleep, until } from './shutdown.ts';
import { logListening, start, type StartOptions } from './start.ts';

declare const Bun: {
  serve(options: { port: number; hostname: string; idleTimeout: number; fetch(req: Request): Promise<Response> }):
    { port: number; stop(closeActiveConnections?: boolean): Promise<void> };
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
  const server = Bun.serve({ port: config.port, hostname: config.host, idleTimeout: bunIdleTimeout(config.limits), fetch });
  logListening(logger, runtime, config, server.port);
  logLimits(logger, config.limits, 'Bun.serve');
  // Answer with Connection: close for a grace period, then stop accepting and let the requests in flight finish
  // (closing what is left at the shutdown timeout), close the store, exit 0.
  const stopServer = async (deadline: number) => {
    await sleep(Math.min(DRAIN_GRACE_MS, deadline - performance.now()));
    if (!(await until(server.stop(), deadline))) await server.stop(true);
  };
  const stop = shutdownOnSignal({ app, logger, close, stopServer, exit: (code) => process.exit(code) }, config.limits.shutdownTimeoutS);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
  // SIGHUP publishes the bundle again; the current version serves until the new one is ready.
  process.on('SIGHUP', () => void reload('SIGHUP'));
  if (!(await load())) process.exit(1);
}
