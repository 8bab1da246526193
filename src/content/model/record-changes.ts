/**
 * When each event and POI of the version served last changed, from the store's change tracking (src/content/changes.ts):
 * what a calendar's SEQUENCE, LAST-MODIFIED and DTSTAMP are made of, so they move only when that event changed and
 * the bytes of a feed stay the same until then, and a feature's `updated_at` (OGC API Features). Built from the store's summary (ChangeSummary) when the version
 * is made current, after its model was built: the payload of a version is the same whenever it is served, its
 * changes are not (a rollback is a change). Each map's column of changes, one per event in the table's order, is made
 * the first time the map is asked (the events that do not share the base change are looked up by id).
 *
 * Without the store's tracking (the binary's built-in demo, a data directory another process owns), every record is
 * taken as changed when its version was published: change 0 at `publishedAt` (`RecordChanges.unknown`).
 */
import { changeToken, readChangeToken, type ChangeSummary } from '../changes.ts';

/** A map as far as its changes need it: its id and its event table's ids (a MapView is one). */
interface MapEvents {
  id: string;
  events: { length: number; positionOf(id: string): number };
}

/** When one record last changed: the change's number and when it was made (null when that is no longer known). */
export interface RecordChanged {
  change: number;
  madeAt: string | null;
}

/** A map as the change feed sees it (RecordChanges.feedOf). */
export interface MapFeedState {
  /** The map's last change: its change token's. */
  change: number;
  /** True when the map is no longer in the content (its tombstone is kept). */
  removed: boolean;
  /** The oldest change whose history is kept. */
  oldest: number;
  /** The latest change of the store (the version served). */
  latest: number;
  token(change: number): string;
  /** The change a token names; null when it is not one of this store's. */
  read(token: string): number | null;
}

export class RecordChanges {
  /** The latest change, the one that made the version served current (0 when not known). */
  readonly latest: number;
  private readonly summary: ChangeSummary | null;
  private readonly publishedAt: string;
  private readonly columns = new Map<string, Uint32Array>();
  /** The others' changes by id, made once a record outside the tables (a series) is asked for. */
  private byId: Map<string, number> | null = null;
  /** The POIs' others by id, made once a POI is asked for. */
  private poisById: Map<string, number> | null = null;

  private constructor(summary: ChangeSummary | null, publishedAt: string) {
    this.summary = summary;
    this.publishedAt = publishedAt;
    this.latest = summary?.latest.change ?? 0;
  }

  /** The changes a store's summary gives. */
  static of(summary: ChangeSummary, publishedAt: string): RecordChanges {
    return new RecordChanges(summary, publishedAt);
  }

  /** No tracking: every record changed when its version was published. */
  static unknown(publishedAt: string): RecordChanges {
    return new RecordChanges(null, publishedAt);
  }

  /** Whether the store's tracking stands behind these (else see `unknown`). */
  get tracked(): boolean {
    return this.summary !== null;
  }

  /**
   * What the change feed needs of a map: its last change, whether it was removed, the oldest change whose history is
   * kept, and how to read and write tokens. Null without tracking, or from a summary kept before the feed existed.
   */
  feedOf(mapId: string): MapFeedState | null {
    const s = this.summary;
    if (!s || s.oldest === undefined || !s.maps) return null;
    const current = s.maps[mapId];
    const removed = s.removedMaps?.[mapId];
    const change = current ?? removed;
    if (change === undefined) return null;
    const storeId = s.storeId;
    return { change, removed: current === undefined, oldest: s.oldest, latest: s.latest.change,
      token: (c) => changeToken(storeId, c), read: (token) => readChangeToken(storeId, token) };
  }

  /** A map's change token (the `X-Change-Token` of every answer about it); null without the store's tracking. */
  tokenOf(mapId: string): string | null {
    const change = this.summary?.maps?.[mapId];
    return change === undefined ? null : changeToken(this.summary!.storeId, change);
  }

  /** When event `i` of `map`'s table last changed. */
  ofEvent(map: MapEvents, i: number): RecordChanged {
    if (!this.summary) return { change: 0, madeAt: this.publishedAt };
    return this.changed(this.columnOf(map)[i]);
  }

  /** When the record with this (lowercase) id last changed: a series, say. */
  ofRecord(id: string): RecordChanged {
    const s = this.summary;
    if (!s) return { change: 0, madeAt: this.publishedAt };
    if (!this.byId) this.byId = new Map(s.others.ids.map((other, k) => [other, s.others.changes[k]]));
    return this.changed(this.byId.get(id) ?? s.base ?? s.latest.change);
  }

  /**
   * When the POI with this (lowercase) id last changed. A summary kept before POIs were summarised (a store closed
   * cleanly by an older release) does not know: the version's publication, as without tracking.
   */
  ofPoi(id: string): RecordChanged {
    const s = this.summary;
    if (!s?.pois) return { change: 0, madeAt: this.publishedAt };
    const { base, others } = s.pois;
    if (!this.poisById) this.poisById = new Map(others.ids.map((other, k) => [other, others.changes[k]]));
    return this.changed(this.poisById.get(id) ?? base ?? s.latest.change);
  }

  /**
   * Whether a change was made at or after `ms` (epoch milliseconds), by its number; for `updated_since`. A change whose
   * time is no longer known was dropped long ago: not since any instant a client holds.
   */
  private changedSince(ms: number): (change: number) => boolean {
    const s = this.summary!;
    const since = new Set<number>();
    for (const [change, at] of Object.entries(s.madeAt)) if (at !== null && Date.parse(at) >= ms) since.add(Number(change));
    return (change) => since.has(change);
  }

  /** A test of event i of `map` (its table's position): whether it changed at or after `ms` (`updated_since`). */
  eventsChangedSince(map: MapEvents, ms: number): (i: number) => boolean {
    if (!this.summary) return this.publishedSince(ms);
    const column = this.columnOf(map);
    const since = this.changedSince(ms);
    return (i) => since(column[i]);
  }

  /** A test of a POI by (lowercase) id: whether it changed at or after `ms` (`updated_since`). */
  poisChangedSince(ms: number): (id: string) => boolean {
    if (!this.summary?.pois) return this.publishedSince(ms);
    const since = this.changedSince(ms);
    return (id) => since(this.ofPoi(id).change);
  }

  /** Without an account of the changes, every record changed when its version was published. */
  private publishedSince(ms: number): () => boolean {
    const yes = Date.parse(this.publishedAt) >= ms;
    return () => yes;
  }

  private changed(change: number): RecordChanged {
    return { change, madeAt: this.summary!.madeAt[change] ?? null };
  }

  /** `map`'s column: the base change, and the others' where they are events of its table. */
  private columnOf(map: MapEvents): Uint32Array {
    let column = this.columns.get(map.id);
    if (column) return column;
    const s = this.summary!;
    const table = map.events;
    column = new Uint32Array(table.length).fill(s.base ?? s.latest.change);
    for (let k = 0; k < s.others.ids.length; k++) {
      const i = table.positionOf(s.others.ids[k]);
      if (i >= 0) column[i] = s.others.changes[k];
    }
    this.columns.set(map.id, column);
    return column;
  }
}
