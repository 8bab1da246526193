/**
 * What every runtime entry does once `start` has staged the content: listen (the main thread, and with
 * `--workers N` the serving threads of serving-threads.ts), stop gracefully on SIGTERM and SIGINT, publish again
 * on SIGHUP (its pid in `server.pid` of the data directory it owns, for `reload`), and load the content.
 */
import { writePidFile } from '../content/store/data-dir.ts';
import type { Started } from './start.ts';
import { logListening } from './start.ts';
import { logLimits, type LimitsServer } from './limits.ts';
import { ServingThreads, type Listen } from './serving-threads.ts';
import { shutdownOnSignal } from './shutdown.ts';

/** A runtime's way to serve: its name for the logs, its server, how it listens, and its serving-thread file. */
export interface RuntimeServer { runtime: string; server: LimitsServer; listen: Listen; threadFile: URL }

/** Serves a started app until a stop signal; exits 1 when the content fails to load. */
export async function runServer(started: Exclude<Started, { exitCode: number }>, how: RuntimeServer): Promise<void> {
  const { app, config, store, logger, load, reload, close } = started;
  const threads = config.workers > 1;
  // Each version's payload goes into shared memory, which every serving thread's model then views.
  store.sharePayloads = threads;
  const listener = await how.listen(app, config, logger, threads);
  logListening(logger, how.runtime, config, listener.port);
  logLimits(logger, config.limits, how.server);
  const workers = threads ? ServingThreads.start(config.workers - 1, how.threadFile, store, config, listener.port, logger) : null;
  void workers?.listening.then(() => logger.log('info', 'serving threads', { workers: config.workers }));
  // Answer with Connection: close, stop accepting, let requests in flight finish, close the store, exit 0.
  let pidFile: Awaited<ReturnType<typeof writePidFile>> = null;
  const stop = shutdownOnSignal({ app, logger, ...(listener.open ? { openConnections: listener.open } : {}),
    close: async () => {
      await pidFile?.remove();
      await close();
    },
    stopServer: async (deadline) => { await Promise.all([listener.stop(deadline), workers?.stop(deadline)]); },
    exit: (code) => process.exit(code) }, config.limits.shutdownTimeoutS);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
  // SIGHUP publishes the bundle again; the current version serves until the new one is ready.
  process.on('SIGHUP', () => void reload('SIGHUP'));
  // Only now, with SIGHUP handled: before, the signal `reload` sends would end the process.
  try {
    pidFile = await writePidFile(config.dataDir);
  } catch (err) {
    logger.log('warn', `cannot write the pid file in ${config.dataDir} (${(err as Error).message}): reload cannot find this server; send SIGHUP to pid ${process.pid}`);
  }
  if (!(await load())) {
    await pidFile?.remove();
    process.exit(1);
  }
}
