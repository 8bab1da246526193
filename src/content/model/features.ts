/**
 * A map's content as OGC API Features collections (src/routes/ogc.ts): per enabled map its markers, paths and polygons
 * (of the current version) and its events (every row of its event table: single events and the occurrences of series,
 * every status), each a feature with flat properties (strings, numbers, booleans: what a Shapefile column and a CQL2
 * filter can hold) and a spatial index of the features' boxes for `bbox`, made the first time the collection is asked
 * for and kept with the version.
 *
 * Order: POIs by id, events by start then id (their table's order), so a page's cursor is the last feature's place
 * in that order, and a page after a publish goes on from there (docs/api-conventions.md, OGC API Features).
 */
import Flatbush from 'flatbush';
import type { Geometry } from '../../geo/geojson.ts';
import { geometryMeetsBoxes, pointInBox, type Box } from '../../geo/box-intersects.ts';
import type { RecordChanges } from './record-changes.ts';
import { topCategoryOf, type CategoryRecord, type MapView, type PoiType, type ReadModel, type VersionContent } from './read-model.ts';

/** The collections of a map, by the suffix of their ids (`{map_id}-markers`). */
export const COLLECTION_KINDS = ['markers', 'paths', 'polygons', 'events'] as const;
export type CollectionKind = typeof COLLECTION_KINDS[number];

const POI_TYPE: Record<Exclude<CollectionKind, 'events'>, PoiType> = { markers: 'marker', paths: 'path', polygons: 'polygon' };

/** A collection id's map and kind, or null when it names no collection this service could have. */
export function readCollectionId(id: string): { mapId: string; kind: CollectionKind } | null {
  // The map id in any letter case, as every UUID the service reads.
  const m = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-(markers|paths|polygons|events)$/.exec(id.toLowerCase());
  return m ? { mapId: m[1], kind: m[2] as CollectionKind } : null;
}

/** The type of a flat property, as JSON Schema (and a CQL2 queryable) names it. */
export type PropertyType = 'string' | 'integer' | 'boolean' | 'date-time';

/** A flat property of a collection's features: its type (as a queryable and in JSON Schema) and what it holds. */
export interface PropertyInfo { type: PropertyType; description: string }

const text = (description: string): PropertyInfo => ({ type: 'string', description });
const JOINED = '; ';

/** The properties every POI feature has. */
const POI_COMMON: Record<string, PropertyInfo> = {
  id: text('The POI id (the feature id too)'),
  map_id: text('The map id'),
  type: text('marker, path or polygon'),
  name: text('The name, in the answer\'s language'),
  category: text('The top-level category above the first of its categories (its id), or null'),
  category_name: text('That top-level category\'s name, or null'),
  category_ids: text(`The ids of its categories and tags, joined with "${JOINED}"`),
  category_names: text(`Their names in the answer's language, joined with "${JOINED}"`),
  website: text('Its website, or null'),
  image_url: text('Its image, or null'),
  updated_at: { type: 'date-time', description: 'When the POI last changed (a publish or a rollback that changed it)' },
};

/** The properties of each collection's features, in the order a feature lists them. */
export const COLLECTION_PROPERTIES: Record<CollectionKind, Record<string, PropertyInfo>> = {
  markers: { ...POI_COMMON, address: text('Its address, or null'), phone: text('Its phone number, or null') },
  paths: {
    ...POI_COMMON, difficulty: text('easy, moderate or hard, or null'),
    duration_min: { type: 'integer', description: 'How long it takes, in minutes, or null' },
  },
  polygons: POI_COMMON,
  events: {
    id: text('The event id (the feature id too): a single event or one occurrence of a series'),
    map_id: text('The map id'),
    title: text('The title, in the answer\'s language'),
    event_type: text('Its type'),
    status: text('scheduled, cancelled, postponed, rescheduled or moved_online'),
    starts_at: { type: 'date-time', description: 'When it starts' },
    ends_at: { type: 'date-time', description: 'When it ends' },
    all_day: { type: 'boolean', description: 'True for an event of whole days' },
    time_zone: text('The map\'s time zone (IANA)'),
    tags: text(`Its tags, joined with "${JOINED}"`),
    url: text('Its page, or null'),
    price: text('Its price as people read it, or null'),
    series_id: text('The series it is an occurrence of, or null'),
    poi_ids: text(`The POIs it takes place at (its anchors), joined with "${JOINED}"`),
    updated_at: { type: 'date-time', description: 'When the event last changed (a publish or a rollback that changed it)' },
  },
};

/** The queryables of a collection: its properties and their types. */
export function queryablesOf(kind: CollectionKind): Record<string, PropertyType> {
  return Object.fromEntries(Object.entries(COLLECTION_PROPERTIES[kind]).map(([name, info]) => [name, info.type]));
}

/** An event's geometry: the points the spatial filters of /events use (its anchored POIs' vertices), or none. */
export type FeatureGeometry = Geometry | { type: 'MultiPoint'; coordinates: [number, number][] } | null;

/** Flat properties, date-times as RFC 3339 text. */
export type FeatureProperties = Record<string, string | number | boolean | null>;

/** The place of a feature in its collection's order: its start (events; 0 for POIs) and its id. */
export interface OrderKey { s: number; i: string }

/** One collection of one map: its features in order (0 .. size - 1), their boxes indexed. */
export interface FeatureCollectionView {
  readonly kind: CollectionKind;
  readonly size: number;
  /** The box around every feature, or null when none has a place. */
  readonly extent: Box | null;
  /** The first start and the last end (events), or null. */
  readonly interval: [number, number] | null;
  /** The features (numbers in order, ascending) whose geometry intersects one of the boxes. */
  inBoxes(boxes: readonly Box[]): number[];
  /** Whether feature k's window overlaps [from, to] (a POI has none: never called for one). */
  overlaps(k: number, from: number, to: number): boolean;
  key(k: number): OrderKey;
  /** The first feature after `key` in the order (`size` when none). */
  after(key: OrderKey): number;
  /** The feature with this id, or -1. */
  find(id: string): number;
  id(k: number): string;
  geometry(k: number): FeatureGeometry;
  /**
   * Feature k's properties in `lang`, its `updated_at` from `changes` (the serving model's: a model served again after a
   * rollback has another account of its changes than the one this view was made with).
   */
  properties(k: number, lang: string, changes: RecordChanges): FeatureProperties;
}

const collections = new WeakMap<object, Map<CollectionKind, FeatureCollectionView>>();

/** A map's collection of this kind (its current version's POIs, or its events), made once and kept with them. */
export function featureCollection(model: ReadModel, map: MapView, kind: CollectionKind): FeatureCollectionView {
  const version = map.versions.get(map.currentVersionId)!;
  const owner = kind === 'events' ? map.events : version;
  let kept = collections.get(owner);
  if (!kept) collections.set(owner, (kept = new Map()));
  let view = kept.get(kind);
  if (!view) kept.set(kind, (view = kind === 'events' ? new EventFeatures(model, map) : new PoiFeatures(model, version, POI_TYPE[kind], kind)));
  return view;
}

/** Boxes of items indexed: each item's box, for a first pass before the exact test. */
class BoxIndex {
  private readonly index: Flatbush | null;
  /** The items' boxes, four numbers each, by item. */
  private readonly own: Float64Array;
  readonly extent: Box | null;

  constructor(boxes: readonly Box[]) {
    this.own = Float64Array.from(boxes.flat());
    if (boxes.length === 0) {
      this.index = null;
      this.extent = null;
      return;
    }
    const index = new Flatbush(boxes.length);
    for (const [w, s, e, n] of boxes) index.add(w, s, e, n);
    index.finish();
    this.index = index;
    this.extent = [index.minX, index.minY, index.maxX, index.maxY];
  }

  /** Item k's box. */
  box(k: number): Box {
    const b = this.own;
    return [b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]];
  }

  /** The items whose box meets one of the boxes and that pass `exact`, ascending, each once. */
  search(boxes: readonly Box[], exact: (item: number) => boolean): number[] {
    if (!this.index) return [];
    const found = new Set<number>();
    for (const [w, s, e, n] of boxes) for (const item of this.index.search(w, s, e, n)) found.add(item);
    return [...found].sort((a, b) => a - b).filter(exact);
  }
}

/** The box around lng, lat pairs. */
function boxAround(xy: ArrayLike<number>): Box {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let k = 0; k < xy.length; k += 2) {
    w = Math.min(w, xy[k]); e = Math.max(e, xy[k]);
    s = Math.min(s, xy[k + 1]); n = Math.max(n, xy[k + 1]);
  }
  return [w, s, e, n];
}

const orNull = (value: unknown): string | number | null => (typeof value === 'string' || typeof value === 'number' ? value : null);

/** A version's POIs of one type, in id order. */
class PoiFeatures implements FeatureCollectionView {
  readonly kind: CollectionKind;
  readonly size: number;
  readonly interval = null;
  private readonly order: Int32Array; // store numbers, by id
  private readonly boxes: BoxIndex;
  private readonly categories: Map<string, CategoryRecord>;
  private readonly model: ReadModel;

  constructor(model: ReadModel, version: VersionContent, type: PoiType, kind: CollectionKind) {
    this.model = model;
    this.kind = kind;
    const { pois } = model;
    const ids = Array.from(version.pois.filter((i) => pois.type(i) === type), (i) => ({ i, id: pois.id(i) }));
    ids.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.order = Int32Array.from(ids, (x) => x.i);
    this.size = this.order.length;
    this.boxes = new BoxIndex(Array.from(this.order, (i) => boxAround(pois.verticesOf(i))));
    this.categories = new Map(version.categories.map((c) => [c.id, c]));
  }

  get extent() {
    return this.boxes.extent;
  }

  inBoxes(boxes: readonly Box[]): number[] {
    // A marker's box is its point, which the index tested exactly; a shape whose box lies inside a query box meets it.
    // Only the others' geometry is read (from its row: the costly part).
    if (this.kind === 'markers') return this.boxes.search(boxes, () => true);
    return this.boxes.search(boxes, (k) => {
      const own = this.boxes.box(k);
      if (boxes.some(([w, s, e, n]) => own[0] >= w && own[1] >= s && own[2] <= e && own[3] <= n)) return true;
      return geometryMeetsBoxes(this.model.pois.listed(this.order[k]).geometry, boxes);
    });
  }

  overlaps(): boolean {
    return true;
  }

  key(k: number): OrderKey {
    return { s: 0, i: this.id(k) };
  }

  after({ i }: OrderKey): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.id(mid) <= i) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  find(id: string): number {
    const k = this.after({ s: 0, i: id }) - 1;
    return k >= 0 && this.id(k) === id ? k : -1;
  }

  id(k: number): string {
    return this.model.pois.id(this.order[k]);
  }

  geometry(k: number): FeatureGeometry {
    return this.model.pois.listed(this.order[k]).geometry;
  }

  properties(k: number, lang: string, changes: RecordChanges): FeatureProperties {
    const { record, categoryIds } = this.model.pois.listed(this.order[k]);
    const top = topCategoryOf(this.categories, categoryIds);
    const known = categoryIds.filter((id) => this.categories.has(id));
    const props: FeatureProperties = {
      id: record.id, map_id: record.map_id, type: record.type, name: record.name.in(lang),
      category: top?.id ?? null, category_name: top?.name.in(lang) ?? null,
      category_ids: known.join(JOINED), category_names: known.map((id) => this.categories.get(id)!.name.in(lang)).join(JOINED),
      website: orNull(record.website), image_url: orNull(record.image_url),
      updated_at: changes.ofPoi(record.id).madeAt,
    };
    if (record.type === 'marker') Object.assign(props, { address: orNull(record.address), phone: orNull(record.phone) });
    if (record.type === 'path') Object.assign(props, { difficulty: orNull(record.difficulty), duration_min: orNull(record.duration_min) });
    return props;
  }
}

/** A map's events, in their table's order (start, then id). */
class EventFeatures implements FeatureCollectionView {
  readonly kind = 'events' as const;
  readonly size: number;
  readonly interval: [number, number] | null;
  /** The events with a place (table positions), and the index of their anchor points' boxes, item k being with[k]. */
  private readonly withPlace: Int32Array;
  private readonly boxes: BoxIndex;
  private readonly model: ReadModel;
  private readonly map: MapView;

  constructor(model: ReadModel, map: MapView) {
    this.model = model;
    this.map = map;
    const table = map.events;
    this.size = table.length;
    const withPlace: number[] = [];
    const boxes: Box[] = [];
    let [first, last] = [Infinity, -Infinity];
    for (let i = 0; i < table.length; i++) {
      first = Math.min(first, table.startMs[i]);
      last = Math.max(last, table.endMs[i]);
      const points = this.points(i);
      if (points.length === 0) continue;
      withPlace.push(i);
      boxes.push(boxAround(points.flat()));
    }
    this.interval = table.length > 0 ? [first, last] : null;
    this.withPlace = Int32Array.from(withPlace);
    this.boxes = new BoxIndex(boxes);
  }

  get extent() {
    return this.boxes.extent;
  }

  /** Event i's anchor points: every vertex of each POI it is anchored to. */
  private points(i: number): [number, number][] {
    const { pois } = this.model;
    const points: [number, number][] = [];
    for (const code of this.map.events.anchorCodes(i)) {
      const poi = pois.indexOf(this.map.events.anchorPoiId(code));
      if (poi < 0) continue;
      const xy = pois.verticesOf(poi);
      for (let v = 0; v < xy.length; v += 2) points.push([xy[v], xy[v + 1]]);
    }
    return points;
  }

  inBoxes(boxes: readonly Box[]): number[] {
    return this.boxes.search(boxes, (item) => this.points(this.withPlace[item]).some(([x, y]) => boxes.some((box) => pointInBox(x, y, box))))
      .map((item) => this.withPlace[item]);
  }

  overlaps(k: number, from: number, to: number): boolean {
    return this.map.events.startMs[k] <= to && this.map.events.endMs[k] >= from;
  }

  key(k: number): OrderKey {
    return { s: this.map.events.startMs[k], i: this.id(k) };
  }

  after({ s, i }: OrderKey): number {
    const table = this.map.events;
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = table.startMs[mid];
      if (start < s || (start === s && table.id(mid) <= i)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  find(id: string): number {
    return this.map.events.positionOf(id);
  }

  id(k: number): string {
    return this.map.events.id(k);
  }

  geometry(k: number): FeatureGeometry {
    const points = this.points(k);
    return points.length > 0 ? { type: 'MultiPoint', coordinates: points } : null;
  }

  properties(k: number, lang: string, changes: RecordChanges): FeatureProperties {
    const r = this.map.events.summary(k, this.map.events.languageIndex(lang)) as Record<string, unknown>;
    return {
      id: r.id as string, map_id: r.map_id as string, title: r.title as string, event_type: r.event_type as string, status: r.status as string,
      starts_at: r.starts_at as string, ends_at: r.ends_at as string, all_day: r.all_day === true, time_zone: r.time_zone as string,
      tags: (r.tags as string[]).join(JOINED), url: orNull(r.url), price: orNull(r.price), series_id: orNull(r.series_id),
      poi_ids: (r.anchors as { id: string }[]).map((a) => a.id).join(JOINED),
      updated_at: changes.ofEvent(this.map, k).madeAt,
    };
  }
}
