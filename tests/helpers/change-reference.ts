/**
 * The brute-force account of change tracking the tests check the store's SQL against (src/content/changes.ts says
 * what it is): pure functions over records compared by a hash, with no database.
 */
import { hash53 } from '../../src/utils/hash.ts';
import type { RecordChange, RecordState as StoreRecordState, RecordType } from '../../src/content/changes.ts';

/** A record's state in the account: the store's, without when its change was made (the account keeps no clock). */
export type RecordState = Omit<StoreRecordState, 'madeAt'>;

/** A record as compared: its kind, id, map (null for publishers and icons, which belong to no one map) and hash. */
export type RecordFacts = Omit<RecordState, 'hash' | 'change'> & { hash: string };

/** The hash two versions compare a record by: of its JSON text. */
export function recordHash(json: string): string {
  return hash53(json).toString(36);
}

/** The key of a record in a state. */
export function recordKey(type: RecordType, id: string): string {
  return `${type}:${id}`;
}

/**
 * Compares the records of the version being made current with the state of the one current before, as change
 * `change`: `add` each record of the new version (in any order), then `finish`. A record whose hash is unchanged
 * keeps its change; a new or changed one gets `change`; one of the previous state missing from the new version
 * becomes a tombstone of `change`. With no previous state (the store's first tracked version), every record is
 * new.
 */
export class ChangeSet {
  readonly change: number;
  private readonly previous: ReadonlyMap<string, RecordState>;
  private readonly next = new Map<string, RecordState>();
  private readonly changes: RecordChange[] = [];

  constructor(previous: Iterable<RecordState>, change: number) {
    this.change = change;
    this.previous = new Map([...previous].map((r) => [recordKey(r.type, r.id), r]));
  }

  /** Takes one record of the new version; answers the change it carries (its last change). */
  add(record: RecordFacts): number {
    const key = recordKey(record.type, record.id);
    const before = this.previous.get(key);
    const change = before && before.hash === record.hash ? before.change : this.change;
    if (change === this.change) this.changes.push({ change, type: record.type, id: record.id, mapId: record.mapId, op: 'upsert' });
    this.next.set(key, { ...record, change });
    return change;
  }

  /**
   * The new version's state (its records, then tombstones: those of the previous state and the records removed
   * now; tombstones of changes before `keepFrom` are dropped), and what changed in this change.
   */
  finish(keepFrom = 0): { state: RecordState[]; changes: RecordChange[] } {
    const state = [...this.next.values()];
    const changes = [...this.changes];
    for (const [key, before] of this.previous) {
      if (this.next.has(key)) continue;
      if (before.hash === null) {
        if (before.change >= keepFrom) state.push(before);
        continue;
      }
      state.push({ ...before, hash: null, change: this.change });
      changes.push({ change: this.change, type: before.type, id: before.id, mapId: before.mapId, op: 'delete' });
    }
    return { state, changes };
  }
}

/**
 * Each map's last change, which its token names: the latest change of its records and tombstones, of its
 * publisher (whose record its answers hold) and of any icon (the vocabulary every map's categories use).
 */
export function mapChanges(state: Iterable<RecordState>, publisherOf: ReadonlyMap<string, string>): Map<string, number> {
  const byMap = new Map<string, number>();
  const byPublisher = new Map<string, number>();
  let icons = 0;
  for (const r of state) {
    if (r.type === 'icon') icons = Math.max(icons, r.change);
    else if (r.type === 'publisher') byPublisher.set(r.id, Math.max(byPublisher.get(r.id) ?? 0, r.change));
    else if (r.mapId !== null) byMap.set(r.mapId, Math.max(byMap.get(r.mapId) ?? 0, r.change));
  }
  const out = new Map<string, number>();
  for (const [mapId, publisherId] of publisherOf) {
    out.set(mapId, Math.max(byMap.get(mapId) ?? 0, byPublisher.get(publisherId) ?? 0, icons));
  }
  return out;
}

