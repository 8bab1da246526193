/**
 * The read model: everything the routes serve, built once per content version from PGlite rows.
 *
 * Visibility is decided here, once, so no route can leak what the model never indexed:
 * - a disabled map keeps only its identity and branding (`disabledMaps`); none of its content is indexed;
 * - only verified lists are indexed, and list-scoped associations only through a verified list;
 * - only published versions are indexed; an item that lives only in drafts is invisible everywhere,
 *   and draft version ids never appear in any record.
 */
import { type Geometry, rewindPolygon, roundPosition, round7, representativePoint, geometryVertices } from '../geo/geojson.ts';
import { PointIndex } from '../geo/point-index.ts';
import type {
  AssociationT, CategoryT, EventT, IconT, ListT, MapT, MarkerT, PathT, PolygonT, PublisherT,
} from './bundle-schema.ts';

/** The three kinds of POI. */
export type PoiType = 'marker' | 'path' | 'polygon';

/** A POI record as served (ids lowercase, geometry RFC 7946, draft versions removed). */
export interface PoiRecord {
  id: string;
  map_id: string;
  type: PoiType;
  name: string;
  [field: string]: unknown;
}

/** The small form of a POI used inside events, lists and associations. */
export interface PoiSummary { id: string; type: PoiType; name: string; lat: number; lng: number }

/** A POI with what the model needs to filter and serve it. */
export interface PoiEntry {
  record: PoiRecord;
  summary: PoiSummary;
  geometry: Geometry;
  versions: Set<string>; // published versions only
  categoryIds: string[];
}

/** A category or tag record as served. */
export interface CategoryRecord {
  id: string;
  map_id: string;
  parent_id: string | null;
  kind: 'category' | 'tag';
  name: string;
  icon_id: string | null;
  color: string | null;
  sort_order: number;
  version_ids: string[];
}

/** What one published version of a map contains. */
export interface VersionContent {
  id: string;
  markers: PoiRecord[];
  paths: PoiRecord[];
  polygons: PoiRecord[];
  pois: PoiEntry[]; // every POI of the version, in `comparePoi` order
  categories: CategoryRecord[]; // flat, in custom order (sort_order, then name)
  categoryIds: Set<string>;
  children: Map<string | null, CategoryRecord[]>; // parent id (null = top level) -> children, custom order
  subtreePois: Map<string, Set<string>>; // category id -> POIs assigned to it or any descendant
}

/**
 * An event as indexed and served. Only what filtering needs is extracted when the model is built; the
 * served record (`summary`) is made from the bundle's record on first use and then kept, so start-up
 * stays fast for a million events.
 */
export class EventEntry {
  readonly id: string;
  readonly mapId: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly type: string;
  readonly tags: readonly string[]; // lowercase
  readonly poiIds: readonly string[]; // public anchored POIs, in bundle order
  private doc: EventT | null;
  private readonly context: { timeZone: string; pois: Map<string, PoiEntry> };
  private record: Record<string, unknown> | null = null;

  constructor(doc: EventT, poiIds: string[], context: { timeZone: string; pois: Map<string, PoiEntry> }) {
    this.id = doc.id;
    this.mapId = doc.map_id;
    this.startMs = Date.parse(doc.starts_at);
    this.endMs = Date.parse(doc.ends_at);
    this.type = doc.event_type;
    this.tags = doc.tags.map((t) => t.toLowerCase());
    this.poiIds = poiIds;
    this.doc = doc;
    this.context = context;
  }

  /** The event as served. */
  get summary(): Record<string, unknown> {
    if (this.record) return this.record;
    const e = this.doc!;
    this.record = {
      id: e.id, map_id: e.map_id, title: e.title, description: orNull(e.description), event_type: e.event_type,
      tags: e.tags, starts_at: toUtc(this.startMs), ends_at: toUtc(this.endMs), time_zone: this.context.timeZone,
      url: orNull(e.url), image_url: orNull(e.image_url), price: orNull(e.price),
      created_at: toUtc(Date.parse(e.created_at)),
      anchors: this.poiIds.map((id) => ({ id, type: this.context.pois.get(id)!.record.type })),
    };
    this.doc = null;
    return this.record;
  }
}

/** Everything served for one enabled map. */
export interface MapView {
  id: string;
  doc: MapT;
  publisherId: string;
  currentVersionId: string;
  versionDocs: Map<string, MapT['versions'][number]>; // published versions
  versions: Map<string, VersionContent>;
  contentBlocks: Record<string, unknown>[]; // in sort order, unset fields null
  sponsors: Record<string, unknown>[];
  lists: ListEntry[]; // verified, in name order
  categoryPoiOrder: Map<string, string[]>; // category id -> its curated POI order
  events: EventEntry[]; // by starts_at, then id
  eventIndex: PointIndex; // anchor points -> position in `events`
  matchCache: Map<string, Int32Array>; // filter key -> matching positions in `events`
  longestEventMs: number; // the longest event's duration, so a window scan can start by binary search
}

/** A verified list. */
export interface ListEntry { summary: Record<string, unknown>; items: Record<string, unknown>[] }

/** An association as served. */
export interface AssociationRecord {
  id: string;
  poi_id: string;
  associated_poi_id: string;
  associated_poi: PoiSummary;
  mutual: boolean;
  list_id: string | null;
  label: string | null;
  sort_order: number;
  created_at: string;
  direction: 'forward' | 'reverse';
}

/** The limited identity and branding a disabled map still shows. */
export interface DisabledMap { id: string; publisher_id: string; name: string; slug: string; branding: MapT['branding'] }

/** The whole read model of one content version. */
export interface ReadModel {
  checksum: string;
  publishers: Map<string, Record<string, unknown>>;
  maps: Map<string, MapView>;
  disabledMaps: Map<string, DisabledMap>;
  pois: Map<string, PoiEntry>;
  events: Map<string, EventEntry>;
  eventsByPoi: Map<string, EventEntry[]>; // POI id -> events anchored to it, in keyset order
  icons: Record<string, unknown>[];
  lists: Map<string, { mapId: string; entry: ListEntry }>;
  associationsFrom: Map<string, AssociationRecord[]>; // POI id -> associations where it is the source
  associationsTo: Map<string, AssociationRecord[]>; // POI id -> mutual associations where it is the target (seen from it)
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** Orders by name (case- and accent-insensitive), then id: the documented order of POI and list windows. */
export function compareByName(a: { name: string; id: string }, b: { name: string; id: string }): number {
  return collator.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Custom order: sort_order, then name, then id. */
export function compareCustom(a: CategoryRecord, b: CategoryRecord): number {
  return a.sort_order - b.sort_order || compareByName(a, b);
}

/** Formats a timestamp as RFC 3339 UTC with `Z`, dropping zero milliseconds. */
export function toUtc(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

const orNull = <T>(x: T | undefined | null): T | null => (x === undefined ? null : x);

/** The records a read model is built from: a validated bundle's, with each item's versions resolved. */
export interface ContentDocs {
  checksum: string;
  publishers: PublisherT[];
  maps: MapT[];
  icons: IconT[];
  categories: CategoryT[];
  pois: { poi_type: PoiType; doc: MarkerT | PathT | PolygonT }[];
  itemVersions: { item_id: string; version_id: string }[];
  events: EventT[];
  lists: ListT[];
  associations: AssociationT[];
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Events in keyset order (start in ms, then id), sorting only when they are not in it already. */
function sortedByStart(events: EventT[]): EventT[] {
  const ms = events.map((e) => Date.parse(e.starts_at));
  let sorted = true;
  for (let i = 1; i < events.length && sorted; i++) sorted = ms[i - 1] < ms[i] || (ms[i - 1] === ms[i] && events[i - 1].id < events[i].id);
  if (sorted) return events;
  const order = Array.from(events.keys()).sort((a, b) => ms[a] - ms[b] || byId(events[a], events[b]));
  return order.map((i) => events[i]);
}

/** Builds the read model of one content version from its records (the same ones loaded into PGlite). */
export function buildReadModel(docs: ContentDocs): ReadModel {
  const publisherDocs = [...docs.publishers].sort(byId);
  const mapDocs = [...docs.maps].sort(byId);
  const iconDocs = [...docs.icons].sort(byId);
  const categoryDocs = [...docs.categories].sort(byId);
  const poiRows = [...docs.pois].sort((a, b) => byId(a.doc, b.doc));
  const itemVersionRows = docs.itemVersions;
  // Keyset order is (starts_at in ms, id); bundles often list events in that order already.
  const eventDocs = sortedByStart(docs.events);
  const listDocs = [...docs.lists].sort(byId);
  const associationDocs = [...docs.associations].sort(byId);

  const publishers = new Map(publisherDocs.map((p) => [p.id, {
    id: p.id, name: p.name, slug: p.slug, description: orNull(p.description), website: orNull(p.website),
    logo_url: orNull(p.logo_url), email: orNull(p.email), phone: orNull(p.phone), address: orNull(p.address),
    location: orNull(p.location),
  } as Record<string, unknown>]));

  // Published versions of enabled maps: the only versions anything can be seen through.
  const publishedVersions = new Set<string>();
  const disabledMaps = new Map<string, DisabledMap>();
  const enabledDocs: MapT[] = [];
  for (const m of mapDocs) {
    if (!m.enabled) {
      disabledMaps.set(m.id, { id: m.id, publisher_id: m.publisher_id, name: m.name, slug: m.slug, branding: m.branding });
      continue;
    }
    enabledDocs.push(m);
    for (const ver of m.versions) if (ver.status === 'published') publishedVersions.add(ver.id);
  }
  const versionsOfItem = new Map<string, Set<string>>();
  for (const { item_id, version_id } of itemVersionRows) {
    if (!publishedVersions.has(version_id)) continue;
    let set = versionsOfItem.get(item_id);
    if (!set) versionsOfItem.set(item_id, (set = new Set()));
    set.add(version_id);
  }
  const publicVersionIds = (id: string) => [...(versionsOfItem.get(id) ?? [])].sort();

  // Categories and POIs: public when they belong to at least one published version of an enabled map.
  // A reference to a category that is not public (draft-only) is dropped, so no record names it.
  const isPublic = (id: string) => (versionsOfItem.get(id)?.size ?? 0) > 0;
  const categories = new Map<string, CategoryRecord>();
  for (const c of categoryDocs) {
    if (!isPublic(c.id)) continue;
    categories.set(c.id, {
      id: c.id, map_id: c.map_id, parent_id: c.parent_id && isPublic(c.parent_id) ? c.parent_id : null, kind: c.kind,
      name: c.name, icon_id: orNull(c.icon_id), color: orNull(c.color), sort_order: c.sort_order, version_ids: publicVersionIds(c.id),
    });
  }
  const pois = new Map<string, PoiEntry>();
  for (const { poi_type, doc } of poiRows) {
    if (!isPublic(doc.id)) continue;
    pois.set(doc.id, buildPoi(poi_type, doc, publicVersionIds(doc.id), doc.category_ids.filter((id) => categories.has(id))));
  }

  const maps = new Map<string, MapView>();
  for (const m of enabledDocs) {
    const versionDocs = new Map(m.versions.filter((ver) => ver.status === 'published').map((ver) => [ver.id, ver]));
    const versions = new Map<string, VersionContent>();
    for (const versionId of versionDocs.keys()) versions.set(versionId, buildVersion(versionId, m.id, pois, categories));
    maps.set(m.id, {
      id: m.id, doc: m, publisherId: m.publisher_id, currentVersionId: m.current_version_id, versionDocs, versions,
      contentBlocks: [...m.content_blocks].sort((a, b) => a.sort_order - b.sort_order || (a.id < b.id ? -1 : 1))
        .map((c) => ({ id: c.id, kind: c.kind, title: c.title, body: orNull(c.body), url: orNull(c.url),
          image_url: orNull(c.image_url), sort_order: c.sort_order })),
      sponsors: m.sponsors.map((sp) => ({ name: sp.name, url: orNull(sp.url), logo_url: orNull(sp.logo_url), tier: orNull(sp.tier) })),
      lists: [], events: [], eventIndex: new PointIndex([], [], [], 0), matchCache: new Map(), longestEventMs: 0, categoryPoiOrder: new Map(),
    });
  }
  for (const c of categoryDocs) if (c.poi_order) maps.get(c.map_id)?.categoryPoiOrder.set(c.id, [...new Set(c.poi_order)]);

  // Lists: verified lists of enabled maps, items limited to public POIs.
  const lists = new Map<string, { mapId: string; entry: ListEntry }>();
  for (const l of listDocs) {
    const map = maps.get(l.map_id);
    if (!map || !l.verified) continue;
    const items = l.items.filter((it) => pois.has(it.poi_id))
      .map((it) => ({ ...pois.get(it.poi_id)!.summary, note: orNull(it.note) }));
    const summary = {
      id: l.id, map_id: l.map_id, name: l.name, description: orNull(l.description), verified: true,
      cover_image_url: orNull(l.cover_image_url), created_at: toUtc(Date.parse(l.created_at)), item_count: items.length,
    };
    const entry = { summary, items };
    map.lists.push(entry);
    lists.set(l.id, { mapId: l.map_id, entry });
  }
  for (const map of maps.values()) {
    map.lists.sort((a, b) => compareByName(a.summary as { name: string; id: string }, b.summary as { name: string; id: string }));
  }

  // Events: in keyset order (starts_at, then id), the order of every page and of eventsByPoi.
  const events = new Map<string, EventEntry>();
  const eventsByPoi = new Map<string, EventEntry[]>();
  const anchorPoints = new Map<string, { lngs: number[]; lats: number[]; owners: number[] }>();
  const contexts = new Map([...maps.values()].map((m) => [m.id, { timeZone: m.doc.time_zone, pois }]));
  const vertices = new Map<string, number[][]>();
  const verticesOf = (id: string) => {
    let v = vertices.get(id);
    if (!v) vertices.set(id, (v = geometryVertices(pois.get(id)!.geometry)));
    return v;
  };
  for (const e of eventDocs) {
    const map = maps.get(e.map_id);
    if (!map) continue;
    const poiIds = (e.poi_ids.length === 1 ? e.poi_ids : [...new Set(e.poi_ids)]).filter((id) => pois.has(id));
    const entry = new EventEntry(e, poiIds, contexts.get(map.id)!);
    const position = map.events.length;
    map.events.push(entry);
    map.longestEventMs = Math.max(map.longestEventMs, entry.endMs - entry.startMs);
    events.set(e.id, entry);
    let points = anchorPoints.get(map.id);
    if (!points) anchorPoints.set(map.id, (points = { lngs: [], lats: [], owners: [] }));
    for (const id of poiIds) {
      const list = eventsByPoi.get(id);
      if (list) list.push(entry); else eventsByPoi.set(id, [entry]);
      for (const [lng, lat] of verticesOf(id)) {
        points.lngs.push(lng);
        points.lats.push(lat);
        points.owners.push(position);
      }
    }
  }
  for (const map of maps.values()) {
    const points = anchorPoints.get(map.id) ?? { lngs: [], lats: [], owners: [] };
    map.eventIndex = new PointIndex(points.lngs, points.lats, points.owners, map.events.length);
  }

  // Associations: both POIs public, and a list-scoped one only through a verified list.
  const associationsFrom = new Map<string, AssociationRecord[]>();
  const associationsTo = new Map<string, AssociationRecord[]>();
  const push = (index: Map<string, AssociationRecord[]>, key: string, rec: AssociationRecord) => {
    const list = index.get(key);
    if (list) list.push(rec); else index.set(key, [rec]);
  };
  for (const a of associationDocs) {
    const from = pois.get(a.poi_id);
    const to = pois.get(a.associated_poi_id);
    if (!from || !to || (a.list_id && !lists.has(a.list_id))) continue;
    const base = { id: a.id, mutual: a.mutual, list_id: a.list_id, label: orNull(a.label), sort_order: a.sort_order,
      created_at: toUtc(Date.parse(a.created_at)) };
    push(associationsFrom, a.poi_id, { ...base, poi_id: a.poi_id, associated_poi_id: to.summary.id,
      associated_poi: to.summary, direction: 'forward' });
    if (a.mutual) {
      push(associationsTo, a.associated_poi_id, { ...base, poi_id: a.associated_poi_id, associated_poi_id: from.summary.id,
        associated_poi: from.summary, direction: 'reverse' });
    }
  }
  for (const index of [associationsFrom, associationsTo]) for (const list of index.values()) list.sort(compareAssociations);

  const icons = iconDocs.map((ic) => ({ id: ic.id, name: ic.name, url: ic.url, color: orNull(ic.color) }))
    .sort(compareByName);

  return {
    checksum: docs.checksum, publishers, maps, disabledMaps, pois, events, eventsByPoi, icons, lists,
    associationsFrom, associationsTo,
  };
}

/** Association order: configured sort order, then creation time, then id. */
export function compareAssociations(a: AssociationRecord, b: AssociationRecord): number {
  // Compare times, not strings: "10:00:00Z" sorts after "10:00:00.500Z" as text.
  return a.sort_order - b.sort_order || Date.parse(a.created_at) - Date.parse(b.created_at) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function buildPoi(type: PoiType, doc: MarkerT | PathT | PolygonT, versionIds: string[], categoryIds: string[]): PoiEntry {
  const common = {
    id: doc.id, map_id: doc.map_id, type, name: doc.name, description: orNull(doc.description),
    category_ids: [...new Set(categoryIds)], icon_id: orNull(doc.icon_id), image_url: orNull(doc.image_url),
    website: orNull(doc.website), version_ids: versionIds, created_at: toUtc(Date.parse(doc.created_at)),
  };
  let record: PoiRecord;
  let geometry: Geometry;
  if (type === 'marker') {
    const m = doc as MarkerT;
    geometry = { type: 'Point', coordinates: roundPosition([m.lng, m.lat]) };
    record = { ...common, lat: round7(m.lat), lng: round7(m.lng), external_id: orNull(m.external_id),
      address: orNull(m.address), phone: orNull(m.phone), opening_hours: orNull(m.opening_hours) };
  } else if (type === 'path') {
    const p = doc as PathT;
    geometry = { type: 'LineString', coordinates: p.geometry.coordinates.map(roundPosition) };
    record = { ...common, geometry, difficulty: orNull(p.difficulty), duration_min: orNull(p.duration_min) };
  } else {
    geometry = { type: 'Polygon', coordinates: rewindPolygon((doc as PolygonT).geometry.coordinates) };
    record = { ...common, geometry };
  }
  const at = representativePoint(geometry);
  return { record, geometry, versions: new Set(versionIds), categoryIds: common.category_ids,
    summary: { id: doc.id, type, name: doc.name, lat: at.lat, lng: at.lng } };
}

function buildVersion(versionId: string, mapId: string, pois: Map<string, PoiEntry>,
  categories: Map<string, CategoryRecord>): VersionContent {
  const inVersion = [...pois.values()].filter((p) => p.record.map_id === mapId && p.versions.has(versionId))
    .sort((a, b) => compareByName(a.record, b.record));
  const cats = [...categories.values()].filter((c) => c.map_id === mapId && c.version_ids.includes(versionId))
    .sort(compareCustom);
  const categoryIds = new Set(cats.map((c) => c.id));
  const children = new Map<string | null, CategoryRecord[]>();
  for (const c of cats) {
    // An item whose parent is missing from this version is shown at the top level rather than lost.
    const parent = c.parent_id && categoryIds.has(c.parent_id) ? c.parent_id : null;
    const list = children.get(parent);
    if (list) list.push(c); else children.set(parent, [c]);
  }
  const subtreePois = new Map<string, Set<string>>(cats.map((c) => [c.id, new Set<string>()]));
  const parentOf = new Map(cats.map((c) => [c.id, c.parent_id && categoryIds.has(c.parent_id) ? c.parent_id : null]));
  for (const p of inVersion) {
    for (const cid of p.categoryIds) {
      // Credit the POI to its category and every ancestor (a Set absorbs repeats).
      for (let cur: string | null | undefined = cid; cur && categoryIds.has(cur); cur = parentOf.get(cur)) {
        subtreePois.get(cur)!.add(p.record.id);
      }
    }
  }
  return {
    id: versionId,
    pois: inVersion,
    markers: inVersion.filter((p) => p.record.type === 'marker').map((p) => p.record),
    paths: inVersion.filter((p) => p.record.type === 'path').map((p) => p.record),
    polygons: inVersion.filter((p) => p.record.type === 'polygon').map((p) => p.record),
    categories: cats, categoryIds, children, subtreePois,
  };
}
