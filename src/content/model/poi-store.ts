/**
 * The public POIs of a content version, held compactly: per POI its id (packed bytes behind a hash table), its
 * type, its map, its vertices and where its row is, and no object. A POI's entry (the record the routes serve, its
 * summary and geometry) is made when asked for, from its row: in a serving thread the row is JSON in the version's
 * payload, which every thread views in shared memory, so a thread holds no copy of the POIs' records of its own.
 *
 * Why: a version's POIs as objects (records, summaries, geometries, a Map by id) were held in every serving
 * thread's heap, most of what one more thread cost. Now a thread holds little per POI, and a record is made again
 * when asked for (parse its JSON, round its coordinates: docs/decisions.md, What a thread costs). The entries made
 * lately are kept.
 */
import type { MarkerT, PathT, PolygonT } from '../bundle/bundle-schema.ts';
import type { Geometry } from '../../geo/geojson.ts';
import type { LocalText } from './local-text.ts';
import { Lru } from '../../utils/lru.ts';
import { findString, slotsSteps, StringColumn } from './string-column.ts';
import { STRIDE, type Steps } from '../../utils/steps.ts';

/** The three kinds of POI. */
export type PoiType = 'marker' | 'path' | 'polygon';

/** A POI record as served (ids lowercase, geometry RFC 7946, draft versions removed). */
export interface PoiRecord {
  id: string;
  map_id: string;
  type: PoiType;
  name: LocalText;
  [field: string]: unknown;
}

/** The small form of a POI used inside events, lists and associations. */
export interface PoiSummary { id: string; type: PoiType; name: LocalText; lat: number; lng: number }

/** A POI with what the model needs to filter and serve it. */
export interface PoiEntry {
  record: PoiRecord;
  summary: PoiSummary;
  geometry: Geometry;
  versionIds: readonly string[]; // published versions only (the record's version_ids: one or two, an array is lighter than a Set)
  categoryIds: readonly string[];
}

/** A POI as the store's source holds it: the bundle's document and its kind. */
export interface PoiRow { poi_type: PoiType; doc: MarkerT | PathT | PolygonT }

/** POI rows by number: parsed already (a bundle being published, tests), or each parsed when asked for. */
export interface PoiRows {
  readonly length: number;
  row(i: number): PoiRow;
}

/** Rows that are parsed already. */
export function parsedRows(rows: readonly PoiRow[]): PoiRows {
  return { length: rows.length, row: (i) => rows[i] };
}

const utf8 = new TextDecoder();

/** Rows as JSON in `bytes`: row i is bytes[starts[i], ends[i]), parsed each time it is asked for. */
export function jsonRows(bytes: Uint8Array, starts: Uint32Array, ends: Uint32Array): PoiRows {
  return { length: starts.length, row: (i) => JSON.parse(utf8.decode(bytes.subarray(starts[i], ends[i]))) as PoiRow };
}

/** Entries made lately kept per thread: a POI asked for again (a hot marker, an event's anchors) is not made again. */
export const KEPT_ENTRIES = 1024;

/** The kinds of POI, by their code (the store's and the event tables' type columns). */
export const POI_TYPES: readonly PoiType[] = ['marker', 'path', 'polygon'];

/** What the store keeps of one POI while it is built. */
export interface PoiFacts {
  /** The row it is made from. */
  row: number;
  id: string;
  type: PoiType;
  mapId: string;
  /** Its vertices as [lng, lat] positions (rounded, as served). */
  vertices: readonly (readonly number[])[];
  /** Its `hours` rule (OSM `opening_hours` syntax), or null. */
  hours: string | null;
}

export class PoiStore {
  /** Public POIs. */
  readonly size: number;
  private readonly rows: PoiRows;
  /** Per POI (in the order they were added): its row, type code, map code. */
  private readonly rowOf: Int32Array;
  private readonly types: Uint8Array;
  private readonly mapCodes: Uint32Array;
  private readonly mapIds: readonly string[];
  private readonly ids: StringColumn;
  private readonly slots: Int32Array;
  /** POI i's vertices: lng, lat pairs in vertices[vertexStart[i] .. vertexStart[i + 1]). */
  private readonly vertexStart: Uint32Array;
  private readonly vertices: Float64Array;
  /** POI i's `hours` is hoursRules[hoursCodes[i]], or none when the code is -1 (the rules are few: POIs share them). */
  private readonly hoursCodes: Int32Array;
  private readonly hoursRules: readonly string[];
  /** Makes POI i's entry from its row. */
  private readonly make: (row: PoiRow, i: number) => PoiEntry;
  /** Entries made lately (see KEPT_ENTRIES). */
  private readonly kept: Lru<number, PoiEntry>;

  private constructor(parts: {
    rows: PoiRows; rowOf: Int32Array; types: Uint8Array; mapCodes: Uint32Array; mapIds: readonly string[]; ids: StringColumn;
    slots: Int32Array; vertexStart: Uint32Array; vertices: Float64Array; hoursCodes: Int32Array; hoursRules: readonly string[];
    make: (row: PoiRow, i: number) => PoiEntry; keep: number;
  }) {
    ({ rows: this.rows, rowOf: this.rowOf, types: this.types, mapCodes: this.mapCodes, mapIds: this.mapIds, ids: this.ids,
      slots: this.slots, vertexStart: this.vertexStart, vertices: this.vertices, hoursCodes: this.hoursCodes, hoursRules: this.hoursRules,
      make: this.make } = parts);
    this.kept = new Lru(parts.keep);
    this.size = this.rowOf.length;
  }

  /**
   * A store of the POIs described by `facts` (ids distinct), whose entries `make` makes from their rows in `rows`,
   * keeping the `keep` made last. `made`, the entries the build made (by number), are kept when there are no more
   * POIs than that: a version of a few hundred POIs (most destinations') then never makes a record again.
   * Yields as it goes.
   */
  static *buildSteps(rows: PoiRows, facts: readonly PoiFacts[], make: (row: PoiRow, i: number) => PoiEntry,
    keep = KEPT_ENTRIES, made: readonly PoiEntry[] = []): Steps<PoiStore> {
    const n = facts.length;
    const rowOf = new Int32Array(n);
    const types = new Uint8Array(n);
    const mapCodes = new Uint32Array(n);
    const mapIds: string[] = [];
    const codeOfMap = new Map<string, number>();
    const vertexStart = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) vertexStart[i + 1] = vertexStart[i] + 2 * facts[i].vertices.length;
    const vertices = new Float64Array(vertexStart[n]);
    const hoursCodes = new Int32Array(n).fill(-1);
    const hoursRules: string[] = [];
    const codeOfRule = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const f = facts[i];
      if (f.hours !== null) {
        let rule = codeOfRule.get(f.hours);
        if (rule === undefined) codeOfRule.set(f.hours, (rule = hoursRules.push(f.hours) - 1));
        hoursCodes[i] = rule;
      }
      rowOf[i] = f.row;
      types[i] = POI_TYPES.indexOf(f.type);
      let code = codeOfMap.get(f.mapId);
      if (code === undefined) codeOfMap.set(f.mapId, (code = mapIds.push(f.mapId) - 1));
      mapCodes[i] = code;
      let at = vertexStart[i];
      for (const [lng, lat] of f.vertices) {
        vertices[at++] = lng;
        vertices[at++] = lat;
      }
      if ((i & (STRIDE - 1)) === 0) yield;
    }
    const ids = yield* StringColumn.ofSteps(facts.map((f) => f.id));
    const slots = yield* slotsSteps(ids, n);
    const store = new PoiStore({ rows, rowOf, types, mapCodes, mapIds, ids, slots, vertexStart, vertices, hoursCodes, hoursRules, make, keep });
    if (n <= keep && made.length === n) for (let i = 0; i < n; i++) store.kept.set(i, made[i]);
    return store;
  }

  /** The number of the POI with this (lowercase) id, or -1 when it is not public. */
  indexOf(id: string): number {
    return findString(this.slots, this.ids, id);
  }

  has(id: string): boolean {
    return this.indexOf(id) >= 0;
  }

  /** The entry of the POI with this id, or undefined when it is not public. */
  get(id: string): PoiEntry | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.entry(i);
  }

  /** POI i's entry, kept for the next time it is asked for (see KEPT_ENTRIES). */
  entry(i: number): PoiEntry {
    return this.kept.get(i, (k) => this.fresh(k));
  }

  /** Entries kept now (see `entry`). */
  get keptEntries(): number {
    return this.kept.size;
  }

  /** POI i's entry for a listing of a whole map: the one kept, else one made afresh and not kept (a listing asks for each once). */
  listed(i: number): PoiEntry {
    return this.kept.peek(i) ?? this.fresh(i);
  }

  /** POI i's entry made afresh and not kept. */
  fresh(i: number): PoiEntry {
    return this.make(this.rows.row(this.rowOf[i]), i);
  }

  id(i: number): string {
    return this.ids.get(i);
  }

  type(i: number): PoiType {
    return POI_TYPES[this.types[i]];
  }

  mapId(i: number): string {
    return this.mapIds[this.mapCodes[i]];
  }

  /** The map of the POI with this id, or undefined when it is not public (its record is not made). */
  mapOf(id: string): string | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.mapId(i);
  }

  /** The number of POI i's `hours` rule among the store's distinct rules (`hoursRule`), or -1 when it has none. */
  hoursCode(i: number): number {
    return this.hoursCodes[i];
  }

  /** The `hours` rule numbered `code` (see `hoursCode`). */
  hoursRule(code: number): string {
    return this.hoursRules[code];
  }

  /** POI i's vertices as lng, lat pairs (a view: do not change it). */
  verticesOf(i: number): Float64Array {
    return this.vertices.subarray(this.vertexStart[i], this.vertexStart[i + 1]);
  }
}
