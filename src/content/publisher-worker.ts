/**
 * The publisher's worker thread: opens the store with the options it was given, then runs each operation
 * the serving thread asks for, one at a time, and answers with plain data (payload bytes transferred, not
 * copied). A refused bundle crosses as its problems; any other error as its message and code.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { BundleError } from './bundle/validate-bundle.ts';
import { collectGarbage } from './collect-garbage.ts';
import { inSharedMemory, type ModelPayload } from './model/model-cache.ts';
import { ownBytes } from '../utils/bytes.ts';
import { Publisher, PUBLISHER_NICENESS, type PublishProgress, type PublisherOptions, type PublisherPort } from './publisher.ts';

/**
 * A request from the serving thread. `shared`: a payload in the answer is wanted in shared memory (serving
 * threads view its bytes), copied here, off the serving thread, so that thread never holds a second copy.
 */
export interface WorkerRequest { id: number; method: keyof PublisherPort; args: unknown[]; shared?: boolean }

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
      // A payload's bytes (records, tables and spatial indexes) move to the serving thread instead of being copied;
      // or, wanted shared, are copied into shared memory here and the thread views them.
      const holder = (result as { payload?: Partial<ModelPayload> } | null)?.payload ?? (result as Partial<ModelPayload> | null);
      const moved: ArrayBuffer[] = [];
      for (const key of ['docs', 'tables', 'places'] as const) {
        const bytes = holder?.[key];
        if (!holder || !bytes) continue;
        if (req.shared) {
          holder[key] = inSharedMemory(bytes);
          continue;
        }
        holder[key] = ownBytes(bytes);
        moved.push(holder[key].buffer as ArrayBuffer);
      }
      if (req.method === 'stage' || req.method === 'prepare' || req.method === 'serveCurrent') collectGarbage();
      port.postMessage({ id: req.id, result } satisfies WorkerAnswer, moved);
      if (req.method === 'close') port.close();
    } catch (err) {
      const e = err as { message?: string; code?: string };
      port.postMessage({ id: req.id, error: { message: typeof e?.message === 'string' ? e.message : JSON.stringify(err), ...(e?.code ? { code: String(e.code) } : {}),
        ...(err instanceof BundleError ? { problems: err.problems } : {}) } } satisfies WorkerAnswer);
    }
  });
});
