/**
 * Change tracking: each time a version is made current (a publish, a rollback), every record of it is compared
 * with the state before, in the store's own SQL (TRACKING in src/db/schema.ts, run by SqlStore in the transaction that
 * makes the version current, so PGlite and PostgreSQL keep the same history). A record keeps the change in which it
 * last changed (`updated_at` is that change's time), a record gone leaves a tombstone, and each map's change token
 * names the latest change of its records, its publisher or an icon, so it moves only when something of that map
 * changed. Changes are numbered by the store in the order they happen and never reused, so a rollback, which makes
 * an old version current again, is a change like any other: the records it changes get a new number, and no token
 * a client holds is handed out again. The store keeps the history (what each change added, changed and removed)
 * for HISTORY_DAYS.
 *
 * This module holds the vocabulary and the tokens; the brute-force account the tests check the store against is
 * tests/helpers/change-reference.ts.
 */

/** The kinds of record whose changes are tracked. */
export const RECORD_TYPES = ['publisher', 'map', 'content_block', 'icon', 'category', 'poi', 'event', 'list', 'association'] as const;

/** A kind of record. */
export type RecordType = typeof RECORD_TYPES[number];

/** What made a change: a publish, a rollback, or the store's first tracking of the version it already served. */
export type ChangeKind = 'publish' | 'rollback' | 'tracking began';

/**
 * How long the store keeps changes and their history (and tombstones), in days, unless set (`--history-days`,
 * `HISTORY_DAYS`); the newest change is always kept. A client's change token older than that answers 410.
 */
export const HISTORY_DAYS = 90;

/** A number of days of history to keep, as a setting gives it; else what is wrong with it. */
export function parseHistoryDays(text: string): number | string {
  const days = Number(text);
  return /^\d{1,5}$/.test(text) && days >= 1 && days <= 36500 ? days : `must be a whole number of days from 1 to 36500, not "${text}"`;
}

/**
 * A record's state: the change in which it last changed, and when (kept with the record, so it outlives the change's
 * own row; null only for a change dropped before records kept their time). `hash` null is a tombstone: the record was
 * removed in `change`.
 */
export interface RecordState {
  type: RecordType;
  id: string;
  mapId: string | null;
  hash: string | null;
  change: number;
  madeAt: string | null;
}

/** A change as the history keeps it: a record added or changed (`upsert`) or removed (`delete`) in `change`. */
export interface RecordChange {
  change: number;
  type: RecordType;
  id: string;
  mapId: string | null;
  op: 'upsert' | 'delete';
}

/** A change kept: its number, the version it made current, what made it, and when. */
export interface ChangeInfo {
  change: number;
  version: number;
  kind: ChangeKind;
  madeAt: string;
}

/** When the records of one kind last changed: the change most of them share, and every other record by id with its own. */
export interface KindChanges {
  /** The change most records of the kind share; null when there is none. */
  base: number | null;
  others: { ids: string[]; changes: number[] };
}

/**
 * When the events and POIs of the current state last changed, as the store hands it to the threads that serve the
 * version it made current (src/content/model/record-changes.ts): the latest change (the one that made that version
 * current), and per kind the change most records share and every other record by id with its own (a series is an
 * event record: series ids are among the events'). Small whatever the number of records, since a publish usually
 * changes few of them; plain data, so it crosses threads and is kept with a store closed cleanly as it is.
 */
export interface ChangeSummary extends KindChanges {
  storeId: string;
  latest: { change: number; version: number; madeAt: string };
  /**
   * The POIs' (the events' are `base` and `others`). Absent from a summary a store closed cleanly kept before POIs
   * were summarised: their changes are then not known (see RecordChanges).
   */
  pois?: KindChanges;
  /** When each change named above was made; null for one dropped before records kept their own time (migration 4). */
  madeAt: Record<number, string | null>;
  /**
   * The oldest change whose history is kept: a change token before the change just before it cannot be followed.
   * Absent, with `maps`, from a summary a store closed cleanly kept before the change feed: no feed is then served.
   */
  oldest?: number;
  /** Each map of the current version (enabled or not) with its last change (its change token's), by id. */
  maps?: Record<string, number>;
  /** Maps removed from the content whose tombstones are kept, with the change that removed them, by id. */
  removedMaps?: Record<string, number>;
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
  const parts = changeTokenParts(token);
  return parts && parts.store === storeId.replace(/-/g, '').slice(0, 12) ? parts.change : null;
}

/** What a change token holds (the store it names, shortened, and the change), or null when it is not one at all. */
export function changeTokenParts(token: string): { store: string; change: number } | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(token)) return null;
  let text: string;
  try {
    text = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return null;
  }
  const m = /^([0-9a-f]{12})\.([0-9a-z]{1,10})$/.exec(text);
  // Only the token as this service writes it: base64 decoders pass over stray trailing bits.
  if (!m || base64url(text) !== token) return null;
  const change = parseInt(m[2], 36);
  return Number.isSafeInteger(change) ? { store: m[1], change } : null;
}

/** Text as base64url without padding. */
function base64url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
