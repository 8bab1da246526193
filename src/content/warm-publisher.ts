/**
 * The publisher's thread, started before the service's own modules load. The Node entry (src/serve/node.ts) starts
 * it first thing when it runs the server, so the thread's start-up (its modules, the database's) overlaps the main
 * thread's loading of the app instead of following it: on a first load that is most of the main thread's 140 ms
 * (docs/decisions.md, The publisher's thread starts first). The store takes it when it opens one
 * (content-store.ts) and gives it its options with `open`; a start that opens no store ends it.
 *
 * This module imports nothing of the service: loading it must cost nothing.
 */
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The publisher thread's script. */
export const PUBLISHER_WORKER = new URL('./publisher-worker.ts', import.meta.url);

/** The call that gives a thread started early its options (the first call it answers). */
export const OPEN_METHOD = 'open';

let warm: Worker | null = null;

/**
 * Starts the publisher's thread without its options. The thread does not keep the process alive until taken, and
 * one that fails to start is forgotten: the store then starts its own.
 */
export async function warmPublisher(): Promise<void> {
  // Threads inherit the priority of the thread that starts them, and the publisher's lowers its own: Node's
  // file-system thread pool is started here first, so that it serves at full priority (as content-store.ts does).
  await stat(fileURLToPath(import.meta.url)).catch(() => {});
  const worker = new Worker(PUBLISHER_WORKER, { workerData: null });
  worker.unref();
  const forget = () => {
    if (warm === worker) warm = null;
  };
  worker.once('error', forget);
  worker.once('exit', forget);
  warm = worker;
}

/** The thread started early, once (then it keeps the process alive like any), or null when there is none. */
export function takeWarmPublisher(): Worker | null {
  const worker = warm;
  warm = null;
  worker?.ref();
  return worker;
}

/** Ends a thread started early that no store took (a start that serves without opening a store). */
export function endWarmPublisher(): void {
  const worker = warm;
  warm = null;
  void worker?.terminate();
}
