/**
 * The publisher's worker thread: opens the store with the options it was given, then runs each operation
 * the serving thread asks for, one at a time, and answers with plain data (payload bytes transferred, not
 * copied). A refused bundle crosses as its problems; any other error as its message and code.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { BundleError } from './bundle/validate-bundle.ts';
import type { ModelPayload } from './model/model-cache.ts';
import { Publisher, PUBLISHER_NICENESS, type PublishProgress, type PublisherOptions, type PublisherPort } from './publisher.ts';

/** A request from the serving thread. */
export interface WorkerRequest { id: number; method: keyof PublisherPort; args: unknown[] }

/** The answer to one request, or the progress of the one running. */
export type WorkerAnswer =
  | { id: number; result: unknown }
  | { id: number; error: { message: string; code?: string; problems?: BundleError['problems'] } }
  | { progress: PublishProgress };

const port = parentPort!;

/**
 * Lowers this thread's priority (Linux: a thread has an id of its own, which `setpriority` takes, so only the
 * publisher is niced, never the serving thread). A publish is CPU-bound for seconds; on a machine (or a
 * container's CPU quota) where it shares a core with the serving thread, the scheduler would otherwise split
 * the core evenly and every request would wait. Where thread ids cannot be found, nothing changes.
 */
function lowerPriority(): void {
  // Deno grants /proc only with --allow-all (and would ask at a terminal): there the thread keeps its priority.
  if ('Deno' in globalThis) return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, PUBLISHER_NICENESS);
  } catch {
    // not Linux, or not allowed: the thread keeps the process's priority
  }
}
lowerPriority();

/**
 * A full garbage collection of this thread, where the runtime allows one (Node and Deno through V8's
 * `--expose-gc`, Bun through `Bun.gc`), else nothing. A publish leaves hundreds of megabytes of records and
 * pages behind; collected before the payload is handed over, they are not still held while the serving thread
 * builds the new model, which is when the process's memory peaks.
 */
const collectGarbage: () => void = (() => {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun) return () => bun.gc(true);
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc === 'function') return gc as () => void;
  } catch {
    // not offered here
  }
  return () => {};
})();
let publisher: Publisher | null = null;
const opening = Publisher.open(workerData as PublisherOptions).then((p) => {
  p.onProgress = (progress) => port.postMessage({ progress } satisfies WorkerAnswer);
  return (publisher = p);
});
let queue: Promise<unknown> = opening.catch(() => {});

port.on('message', (req: WorkerRequest) => {
  queue = queue.then(async () => {
    try {
      await opening;
      const result = await (publisher![req.method] as (...args: unknown[]) => Promise<unknown>).apply(publisher, req.args);
      if (req.method === 'stage' || req.method === 'commit' || req.method === 'serveCurrent') collectGarbage();
      // A payload's bytes (records, tables and spatial indexes) move to the serving thread instead of being copied.
      const holder = (result as { payload?: Partial<ModelPayload> } | null)?.payload ?? (result as Partial<ModelPayload> | null);
      const moved: ArrayBuffer[] = [];
      for (const key of ['docs', 'tables', 'places'] as const) {
        let bytes = holder?.[key];
        if (!holder || !bytes) continue;
        if (bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) holder[key] = bytes = bytes.slice();
        moved.push(bytes.buffer as ArrayBuffer);
      }
      port.postMessage({ id: req.id, result } satisfies WorkerAnswer, moved);
      if (req.method === 'close') port.close();
    } catch (err) {
      const e = err as { message?: string; code?: string };
      port.postMessage({ id: req.id, error: { message: typeof e?.message === 'string' ? e.message : JSON.stringify(err), ...(e?.code ? { code: String(e.code) } : {}),
        ...(err instanceof BundleError ? { problems: err.problems } : {}) } } satisfies WorkerAnswer);
    }
  });
});
