/**
 * A full garbage collection of this thread that gives the memory it frees back to the system, where the runtime
 * allows one (Node and Deno through V8's `--expose-gc`, Bun through `Bun.gc`), else nothing. Called where a
 * thread has just let go of a lot:
 * - the publisher's thread after a publish, which leaves its records and pages behind:
 *   collected before the payload is handed over, they are not still held while the serving thread builds the
 *   new model, which is when the process's memory peaks;
 * - the publisher's thread once a large version's event tables are built (`buildPayload`), before they are copied
 *   into its payload: the buffers they grew in and were sorted from are garbage, and copying beside them was the
 *   peak of a large first load;
 * - a serving thread (`--workers`) once it has built a version's model: the records it parsed to build it are
 *   garbage, and a thread that then only answers requests may not collect them for a long time.
 * `startCollection` is the one that does not stop the thread, for a thread that serves meanwhile.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * True for a payload (docs, tables and places together) over 16 MB: building its model leaves enough garbage that
 * how it is collected matters (see content-store.ts and serving-threads.ts).
 */
export function isLargePayload(p: { docs: { byteLength: number }; tables: { byteLength: number }; places: { byteLength: number } }): boolean {
  return p.docs.byteLength + p.tables.byteLength + p.places.byteLength > 16 * 2 ** 20;
}

/** V8's `gc` (Node and Deno), or null. */
const v8Gc: ((options: object) => unknown) | null = (() => {
  if ((globalThis as { Bun?: unknown }).Bun) return null;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? gc as (options: object) => unknown : null;
  } catch {
    return null; // not offered here
  }
})();

export const collectGarbage: () => void = (() => {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void; shrink?(): void } }).Bun;
  // Bun.shrink asks the engine to give back what the collection freed (docs/decisions.md, What a thread costs).
  if (bun) return () => { bun.gc(true); bun.shrink?.(); };
  // `last-resort` is V8's collection for memory pressure: it compacts and gives freed pages back to the
  // system, where a plain one keeps them committed, and takes no longer (docs/decisions.md, What a thread costs).
  if (v8Gc) return () => void v8Gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return () => {};
})();

/**
 * Starts a major collection that marks alongside the thread's work (V8's incremental and concurrent marking) and
 * returns at once; on Bun, asks for one without waiting. For a thread that has just built a large version's model
 * while serving. On the main thread, the build's garbage left alone was collected a few seconds later by V8's
 * memory reducer, a compacting collection that held the thread longer (the slowest /healthz of a publish) than
 * the collections started at once; on a `--workers` thread, `collectGarbage` held it longer than this does
 * (docs/decisions.md, The first large version is collected before it serves).
 */
export const startCollection: () => void = (() => {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  // Bun.gc(false) asks for a collection without waiting for it.
  if (bun) return () => bun.gc(false);
  if (v8Gc) return () => void v8Gc({ type: 'major', execution: 'async' });
  return () => {};
})();
