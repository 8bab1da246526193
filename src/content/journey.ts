/**
 * The journey of a content version, from a bundle to every thread that serves it, and what each step is:
 *
 * 1. **Staged**: the publisher validates the bundle and writes it as a version no one sees yet
 *    (`Publisher.stage`, src/content/publisher.ts; SqlStore.stageVersion).
 * 2. **Model**: the publisher builds the version's payload (its records as JSON lines, event tables and spatial
 *    indexes: src/content/model/model-cache.ts) and hands it over as bytes (`Publisher.prepare`). From a publisher in a
 *    worker thread it crosses by RpcPeer (src/utils/rpc.ts), its bytes moved, or put in shared memory there
 *    (`payloadParts`, below).
 * 3. **Committed**: only once the serving thread has built the model does the store make the version current
 *    (`Publisher.commit`; change tracking records the change: src/content/changes.ts). A version that cannot be built
 *    is abandoned, and the one served stays. The model is then given the store's account of when its events last
 *    changed (`changesFor`): a payload is the same whenever its version is served, that account is not (a rollback
 *    is a change), so it travels beside the payload, never in it.
 * 4. **Shared**: with `--workers`, the payload's bytes are in SharedArrayBuffers (`sharePayload`), sent to every
 *    serving thread as they are (`toWire`, `fromWire`), so the event tables, most of a large version, are one set of
 *    bytes every thread views (src/serve/serving-threads.ts).
 * 5. **Served**: each thread builds its model in slices while it answers from the version it has, then swaps it in
 *    with one assignment (`ServedVersion`); a version already served is never built again (`isSameVersion`).
 * 6. **Retired**: the version before is let go when nothing holds it; the garbage a large build leaves is collected
 *    by one rule on every thread (`ServedVersion.swapIn`), and the store drops versions past those it keeps.
 */
import { collectGarbage, isLargePayload, startCollection } from './collect-garbage.ts';
import type { ChangeSummary } from './changes.ts';
import { RecordChanges } from './model/record-changes.ts';
import { loadModel, type ModelPayload } from './model/model-cache.ts';
import type { ReadModel } from './model/read-model.ts';
import { setTimeout as later } from 'node:timers';
import { WARM_HOURS_DELAY_MS, warmHours } from './model/open-hours.ts';
import { warmLargeTiles, warmTiles } from './model/map-tiles.ts';

/** Whether `a` and `b` are the same version of the same content (a version number alone may come back after a store is made anew). */
export function isSameVersion(a: { version: number; checksum: string } | null | undefined,
  b: { version: number; checksum: string } | null | undefined): boolean {
  return !!a && !!b && a.version === b.version && a.checksum === b.checksum;
}

/** The byte parts of a payload. */
export const PAYLOAD_PARTS = ['docs', 'tables', 'places'] as const;

/** The bytes in a SharedArrayBuffer of their own (copied there unless they already are). */
export function inSharedMemory(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const copy = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  copy.set(bytes);
  return copy;
}

/** The payload with every byte part in a SharedArrayBuffer of its own, which every thread it is posted to shares. */
export function sharePayload(payload: ModelPayload): ModelPayload {
  return { ...payload, docs: inSharedMemory(payload.docs), tables: inSharedMemory(payload.tables), places: inSharedMemory(payload.places) };
}

/**
 * A payload as sent to serving threads: its bytes as the SharedArrayBuffers themselves, which every runtime shares
 * (Deno's worker_threads walks the typed arrays of a message element by element, and a large one fails:
 * docs/decisions.md).
 */
export type WirePayload = Omit<ModelPayload, 'docs' | 'tables' | 'places'> & { docs: SharedArrayBuffer; tables: SharedArrayBuffer; places: SharedArrayBuffer };

/** A shared payload (`sharePayload`) as sent; throws for one whose bytes are not in shared memory of their own. */
export function toWire(payload: ModelPayload): WirePayload {
  const buffer = (bytes: Uint8Array) => {
    if (!(bytes.buffer instanceof SharedArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) {
      throw new Error('a payload sent to serving threads must be in shared memory of its own (sharePayload)');
    }
    return bytes.buffer;
  };
  return { ...payload, docs: buffer(payload.docs), tables: buffer(payload.tables), places: buffer(payload.places) };
}

/** A payload as received by a serving thread: views of the shared bytes. */
export function fromWire(wire: WirePayload): ModelPayload {
  return { ...wire, docs: new Uint8Array(wire.docs), tables: new Uint8Array(wire.tables), places: new Uint8Array(wire.places) };
}

/**
 * The account of when `model`'s events last changed that `summary` gives: the store's, when it is about the version
 * the model is; else none (every event changed when the version was published), until the store's catches up.
 */
export function changesFor(model: ReadModel, summary: ChangeSummary | null): RecordChanges {
  return summary && summary.latest.version === model.version ? RecordChanges.of(summary, model.publishedAt) : RecordChanges.unknown(model.publishedAt);
}

/** A model built and the payload it was built from (its bytes are what the model's event tables view). */
export interface BuiltModel { model: ReadModel; payload: ModelPayload }

/**
 * The version a thread serves (the main thread's ContentStore, and each serving thread's): built off to the side, then
 * swapped in with one assignment. Requests in flight keep the model they started with.
 */
export class ServedVersion {
  private current: BuiltModel | null = null;

  /** The read model served; throws before any. */
  get model(): ReadModel {
    if (!this.current) throw new Error('no content loaded');
    return this.current.model;
  }

  /** True once a version is served. */
  get ready(): boolean {
    return this.current !== null;
  }

  /** The payload of the version served, or null. */
  get payload(): ModelPayload | null {
    return this.current?.payload ?? null;
  }

  /** Whether `v` is the version served. */
  serves(v: { version: number; checksum: string } | null | undefined): boolean {
    return isSameVersion(this.current?.model, v);
  }

  /** Builds a payload's read model in slices, without serving it yet; its bytes put in shared memory first with `share`. */
  async build(payload: ModelPayload, share: boolean): Promise<BuiltModel> {
    const served = share ? sharePayload(payload) : payload;
    return { model: await loadModel(served), payload: served };
  }

  /**
   * Serves a built model from the next request on, and collects what building it left, by one rule on every thread:
   * a thread's first version is collected at once (nothing is served yet, so a full collection holds no answer, and
   * the build's garbage is not kept for the life of a thread that then only answers); a later large version's garbage
   * is collected alongside the answers (`startCollection`), not in one full collection while they wait; a later small
   * one's is left to the runtime (docs/decisions.md, The first large version is collected before it serves).
   */
  swapIn(built: BuiltModel): void {
    const first = this.current === null;
    this.current = built;
    if (first) collectGarbage();
    else if (isLargePayload(built.payload)) startCollection();
    // Its POIs' hours are read, and what its maps' vector tiles are cut from is built, in the background once a start's
    // first requests are answered (open-hours.ts, map-tiles.ts; a large map's in a quiet moment), unless another version
    // is served by then; the timers keep no process alive.
    const { model } = built;
    later(() => {
      if (this.current?.model.pois !== model.pois) return;
      const wanted = () => this.current?.model.pois === model.pois;
      void warmHours(model).catch(() => {}).then(async () => {
        if (!wanted()) return;
        warmTiles(model);
        await warmLargeTiles(model, wanted);
      }).catch(() => {});
    }, WARM_HOURS_DELAY_MS).unref();
  }

  /**
   * Serves the same version with the account of its changes `summary` gives, when that is another than the one served
   * (a rollback to the version served made a change): as a new model object, so the answers cached for the old one
   * are not served again. Answers whether it changed.
   */
  restamp(summary: ChangeSummary | null): boolean {
    const current = this.current;
    if (!current) return false;
    const changes = changesFor(current.model, summary);
    if (changes.latest === current.model.changes.latest && changes.tracked === current.model.changes.tracked) return false;
    this.current = { ...current, model: { ...current.model, changes } };
    return true;
  }
}
