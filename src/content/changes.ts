/**
 * Change tracking: at each publish (and each rollback), every record of the version made current is compared with
 * the version before. A record keeps the change in which it last changed (`updated_at` is that change's time),
 * a record gone leaves a tombstone, and each map gets a change token that moves only when something of that map
 * changed. Changes are numbered by the store in the order they happen and never reused, so a rollback, which makes
 * an old version current again, is a change like any other: the records it changes get a new number, and no
 * token a client holds is handed out again.
 *
 * Records are compared by a hash of their JSON as stored: the same content, the same hash, whatever version it
 * came from. Pure functions and one class; the store keeps the states (src/content/store/sql-store.ts).
 */
import { hash53 } from '../utils/hash.ts';

/** The kinds of record whose changes are tracked. */
export const RECORD_TYPES = ['publisher', 'map', 'content_block', 'icon', 'category', 'poi', 'event', 'list', 'association'] as const;

/** A kind of record. */
export type RecordType = typeof RECORD_TYPES[number];

/** A record as compared: its kind, id, map (null for publishers and icons, which belong to no one map) and hash. */
export interface RecordFacts {
  type: RecordType;
  id: string;
  mapId: string | null;
  hash: string;
}

/**
 * A record's state in a version: its facts and the change in which it last changed. `hash` null is a tombstone:
 * the record was removed in `change` (kept so that clients and tokens learn of the removal).
 */
export interface RecordState {
  type: RecordType;
  id: string;
  mapId: string | null;
  hash: string | null;
  change: number;
}

/** A change as the history keeps it: a record added or changed (`upsert`) or removed (`delete`) in `change`. */
export interface RecordChange {
  change: number;
  type: RecordType;
  id: string;
  mapId: string | null;
  op: 'upsert' | 'delete';
}

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

/**
 * A map's change token: opaque to clients (documented as such). It names the store (`storeId`: a token of another
 * store, or of a store made anew, never matches) and the change, and moves only when that map's change moves.
 */
export function changeToken(storeId: string, change: number): string {
  return base64url(`${storeId.replace(/-/g, '').slice(0, 12)}.${change.toString(36)}`);
}

/** The change a token names, or null when it is not one of this store's. */
export function readChangeToken(storeId: string, token: string): number | null {
  let text: string;
  try {
    text = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return null;
  }
  const m = /^([0-9a-f]{12})\.([0-9a-z]+)$/.exec(text);
  if (!m || m[1] !== storeId.replace(/-/g, '').slice(0, 12)) return null;
  const change = parseInt(m[2], 36);
  return Number.isSafeInteger(change) ? change : null;
}

/** Text as base64url without padding. */
function base64url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
