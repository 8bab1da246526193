/**
 * Graceful shutdown, the same sequence on every runtime: on the first SIGTERM or SIGINT the app starts
 * draining (every answer carries `Connection: close` and /readyz answers 503 `stopping`, see App.drain), the
 * runtime's server stops the way that loses no request on it (node-connections.ts on Node and Deno, whose
 * node:http it uses; answers held at a gate while Bun.serve's listener closes, bun-serve.ts), the store closes,
 * and the process exits 0.
 * A second signal while that runs is logged and otherwise ignored: stopping is already under way and ends by
 * the shutdown timeout.
 */
import type { Logger } from '../utils/log.ts';
import type { App } from '../app.ts';

/** What a runtime entry hands over to be stopped. */
export interface Stoppable {
  app: App;
  logger: Logger;
  /** Closes the store (and the database pool of a replica). */
  close(): Promise<void>;
  /** Stops the runtime's server, letting requests in flight finish; gives up at `deadline` (performance.now()). */
  stopServer(deadline: number): Promise<void>;
  /** Open connections now, where the runtime can tell. */
  openConnections?(): number;
  exit(code: number): void;
}

/** The handler for the stop signals: drains, stops, closes and exits, once. */
export function shutdownOnSignal(s: Stoppable, shutdownTimeoutS: number): (signal: string) => Promise<void> {
  let stopping = false;
  return async (signal) => {
    if (stopping) {
      s.logger.log('info', 'already shutting down', { signal });
      return;
    }
    stopping = true;
    s.logger.log('info', 'shutting down', { signal, ...(s.openConnections ? { connections: s.openConnections() } : {}) });
    s.app.drain();
    try {
      await s.stopServer(performance.now() + shutdownTimeoutS * 1000);
    } catch (err) {
      // Stopping goes on: the store is closed and the process exits all the same.
      s.logger.log('error', 'stopping the server failed', { error: String((err as Error).message ?? err) });
    }
    await s.close();
    s.logger.log('info', 'stopped');
    s.logger.flush();
    s.exit(0);
  };
}

/** How often a wait while stopping looks at the clock, and the most one look counts (see `ranFor`). */
export const TICK_MS = 25;
export const MAX_TICK_MS = 2 * TICK_MS;

/**
 * Calls `tick(step)` every TICK_MS, `step` the time since the last call but at most MAX_TICK_MS, while `more()`
 * says so. Waits that give clients time to send are counted this way, in turns of the event loop: a process that
 * did not run for a while (a busy machine, a pause in the collector) has not read what arrived meanwhile, and a
 * wall-clock timer that fires first would take a request waiting unread for a client that sent none.
 */
export async function ticks(more: () => boolean, tick: (step: number) => void): Promise<void> {
  let last = performance.now();
  while (more()) {
    await sleep(TICK_MS);
    const now = performance.now();
    tick(Math.min(now - last, MAX_TICK_MS));
    last = now;
  }
}

/** Resolves once the process has run for `ms` counted as `ticks` counts it, or at `deadline` (performance.now()). */
export async function ranFor(ms: number, deadline: number): Promise<void> {
  let ran = 0;
  await ticks(() => ran < ms && performance.now() < deadline, (step) => (ran += step));
}

/** Resolves after `ms`, or at once for ms ≤ 0. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Waits for `stopping` until `deadline`; true when it finished in time. */
export async function until(stopping: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()))));
  try {
    return await Promise.race([stopping.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
