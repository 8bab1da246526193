/**
 * Linear-scan reference implementations over a raw bundle, written independently of src/ (no KDBush,
 * no geokdbush, no read model), so the service's indexed answers can be checked against them.
 */
import type { BundleT, StoredEvent } from '../../src/content/bundle/bundle-schema.ts';
import { storedEvents } from '../../src/content/series.ts';
import { textsOf } from './texts.ts';

/** Earth radius used for great-circle distances, in metres. */
export const EARTH_RADIUS_M = 6_371_000;

/** A `west,south,east,north` box; `west > east` crosses the antimeridian. */
export interface RefBbox { west: number; south: number; east: number; north: number }
/** A point and a radius in metres. */
export interface RefNear { lat: number; lng: number; radiusM: number }

/** A public POI as the reference sees it. */
export interface RefPoi {
  id: string;
  mapId: string;
  type: 'marker' | 'path' | 'polygon';
  /** Every anchor point as [lng, lat], rounded to 7 decimals like every served coordinate. */
  points: [number, number][];
}

/** A visible event as the reference sees it. */
export interface RefEvent {
  id: string;
  mapId: string;
  timeZone: string;
  startMs: number;
  endMs: number;
  title: string;
  /** The title in every language it has. */
  titles: string[];
  type: string; // lowercase
  tags: string[]; // lowercase
  /** Public anchored POIs: deduplicated, in bundle order. */
  anchors: RefPoi[];
  /** Every anchor point of every public anchored POI, [lng, lat]. */
  points: [number, number][];
  /** The bundle's status, `scheduled` when it gives none. */
  status: string;
}

/** What the reference knows about a bundle. */
export interface Reference {
  pois: Map<string, RefPoi>;
  /** Visible events in keyset order (starts_at, then id). */
  events: RefEvent[];
  eventsById: Map<string, RefEvent>;
}

/** An event query as the reference takes it: the window resolved, lists lowercase or null. */
export interface RefEventQuery {
  mapId: string;
  fromMs: number;
  toMs: number;
  types?: string[] | null;
  tags?: string[] | null;
  /** `all`: every tag; default any. */
  tagsMatch?: 'any' | 'all';
  /** Search by title: every word must begin a word of the title, ignoring case and accents (a list: its words). */
  q?: string | readonly string[] | null;
  bbox?: RefBbox | null;
  near?: RefNear | null;
  /** The statuses kept: absent, the lists' default (every one but cancelled); null, every one. */
  statuses?: readonly string[] | null;
}

/** The statuses GET /events keeps when it is not told: every one but cancelled (docs/api-conventions.md). */
export const refKeepsStatus = (status: string, statuses?: readonly string[] | null) =>
  statuses === null || (statuses === undefined ? status !== 'cancelled' : statuses.includes(status));

const lc = (s: string) => s.toLowerCase();
const round7 = (x: number) => Math.round(x * 1e7) / 1e7;

/** Keyset order of events: starts_at ascending, then id. */
export function compareKeyset(a: { startMs: number; id: string }, b: { startMs: number; id: string }): number {
  return a.startMs - b.startMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Great-circle (haversine) distance in metres between two points. */
export function haversineM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** True when the point lies in the box, edges included; `west > east` wraps across the antimeridian. */
export function inBbox(b: RefBbox, lat: number, lng: number): boolean {
  if (lat < b.south || lat > b.north) return false;
  return b.west <= b.east ? lng >= b.west && lng <= b.east : lng >= b.west || lng <= b.east;
}

/** Ids of the published versions of every enabled map, and the version ids of each map. */
function versionInfo(bundle: BundleT) {
  const published = new Set<string>();
  const versionsOfMap = new Map<string, string[]>();
  const enabledMaps = new Set<string>();
  for (const m of bundle.maps) {
    versionsOfMap.set(lc(m.id), m.versions.map((v) => lc(v.id)));
    if (!m.enabled) continue;
    enabledMaps.add(lc(m.id));
    for (const v of m.versions) if (v.status === 'published') published.add(lc(v.id));
  }
  return { published, versionsOfMap, enabledMaps };
}

/** Every public POI: its map enabled, and in at least one published version (omitted version_ids = all versions). */
export function publicPois(bundle: BundleT): Map<string, RefPoi> {
  const { published, versionsOfMap, enabledMaps } = versionInfo(bundle);
  const out = new Map<string, RefPoi>();
  const consider = (type: RefPoi['type'], doc: { id: string; map_id: string; version_ids?: string[] }, raw: number[][]) => {
    const mapId = lc(doc.map_id);
    if (!enabledMaps.has(mapId)) return;
    const versions = (doc.version_ids ?? versionsOfMap.get(mapId) ?? []).map(lc);
    if (!versions.some((v) => published.has(v))) return;
    out.set(lc(doc.id), { id: lc(doc.id), mapId, type, points: raw.map(([lng, lat]) => [round7(lng), round7(lat)]) });
  };
  for (const m of bundle.markers) consider('marker', m, [[m.lng, m.lat]]);
  for (const p of bundle.paths) consider('path', p, p.geometry.coordinates);
  for (const p of bundle.polygons) consider('polygon', p, p.geometry.coordinates.flat());
  return out;
}

/**
 * Builds the reference: public POIs and visible events (map enabled), events in keyset order. A recurring series is
 * its occurrences and an all-day event its days (src/content/series.ts, checked on its own in tests/series.test.ts), a series without an
 * end expanded from `anchors` (by series id; default now: what a first publish does).
 */
export function buildReference(bundle: BundleT, anchors: ReadonlyMap<string, number> = new Map()): Reference {
  const pois = publicPois(bundle);
  const { enabledMaps } = versionInfo(bundle);
  const zones = new Map(bundle.maps.map((m) => [lc(m.id), m.time_zone]));
  const events: RefEvent[] = [];
  // As stored: a series' occurrences, an all-day event's days as instants.
  const stored: StoredEvent[] = bundle.events.flatMap((e) => storedEvents(e, zones.get(lc(e.map_id)) ?? 'UTC', anchors.get(lc(e.id)) ?? Date.now()));
  for (const e of stored) {
    const mapId = lc(e.map_id);
    if (!enabledMaps.has(mapId)) continue;
    const anchorIds = [...new Set(e.poi_ids.map(lc))].filter((id) => pois.has(id));
    const anchors = anchorIds.map((id) => pois.get(id)!);
    events.push({
      id: lc(e.id), mapId, timeZone: zones.get(mapId)!, startMs: Date.parse(e.starts_at), endMs: Date.parse(e.ends_at),
      title: textsOf(e.title)[0], titles: textsOf(e.title), type: lc(e.event_type), tags: e.tags.map(lc), anchors, points: anchors.flatMap((p) => p.points),
      status: e.status ?? 'scheduled',
    });
  }
  events.sort(compareKeyset);
  return { pois, events, eventsById: new Map(events.map((e) => [e.id, e])) };
}

/** True when any anchor point of the event lies in the box. */
export function eventInBbox(e: RefEvent, b: RefBbox): boolean {
  return e.points.some(([lng, lat]) => inBbox(b, lat, lng));
}

/** Smallest great-circle distance (metres) from the point to any anchor point; Infinity with no anchors. */
export function eventDistanceM(e: RefEvent, lat: number, lng: number): number {
  let best = Infinity;
  for (const [plng, plat] of e.points) best = Math.min(best, haversineM(lat, lng, plat, plng));
  return best;
}

/** True when any anchor point lies within the radius. */
export function eventNear(e: RefEvent, n: RefNear): boolean {
  return eventDistanceM(e, n.lat, n.lng) <= n.radiusM;
}

/** Words of a text with case and accents dropped, written apart from the service's text-search.ts. */
function plainWords(text: string): string[] {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
}

/** True when every word of the query begins a word of the name. */
export function nameMatches(name: string, query: string): boolean {
  const words = plainWords(name);
  return plainWords(query).every((q) => words.some((w) => w.startsWith(q)));
}

/** Every visible event of the map matching the query, in keyset order. */
export function filterEvents(ref: Reference, q: RefEventQuery): RefEvent[] {
  const types = q.types ? q.types.map(lc) : null;
  const tags = q.tags ? q.tags.map(lc) : null;
  return ref.events.filter((e) => e.mapId === lc(q.mapId) &&
    e.startMs <= q.toMs && e.endMs >= q.fromMs &&
    (!types || types.includes(e.type)) &&
    (!tags || (q.tagsMatch === 'all' ? tags.every((t) => e.tags.includes(t)) : e.tags.some((t) => tags.includes(t)))) &&
    (!q.q || e.titles.some((title) => nameMatches(title, typeof q.q === 'string' ? q.q : q.q!.join(' ')))) &&
    (!q.bbox || eventInBbox(e, q.bbox)) &&
    (!q.near || eventNear(e, q.near)) && refKeepsStatus(e.status, q.statuses));
}

/**
 * Upcoming events of one POI: anchored to it (public POI only), not ended by `fromMs`, started by `toMs`
 * when given; keyset order, at most `limit`.
 */
export function upcomingForPoi(ref: Reference, poiId: string, fromMs: number, toMs: number | null, limit: number,
  statuses?: readonly string[] | null): RefEvent[] {
  const id = lc(poiId);
  if (!ref.pois.has(id)) return [];
  return ref.events.filter((e) => e.anchors.some((a) => a.id === id) && e.endMs >= fromMs && (toMs === null || e.startMs <= toMs) &&
    refKeepsStatus(e.status, statuses))
    .slice(0, limit);
}

// Geometry against a box (OGC API Features' bbox), written apart from the service's: segments crossing the box's
// edges, and a corner of the box inside a polygon's rings.

/** A position, [lng, lat]. */
export type Position = [number, number];
/** The geometries of features. */
export type Geometry = { type: 'Point'; coordinates: Position } | { type: 'LineString'; coordinates: Position[] }
  | { type: 'Polygon'; coordinates: Position[][] } | { type: 'MultiPoint'; coordinates: Position[] };
/** [west, south, east, north], west <= east. */
export type Box = [number, number, number, number];
export const inBox = ([x, y]: Position, [w, s, e, n]: Box) => x >= w && x <= e && y >= s && y <= n;
const orient = (a: Position, b: Position, c: Position) => Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
const onSegment = (a: Position, b: Position, p: Position) =>
  Math.min(a[0], b[0]) <= p[0] && p[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= p[1] && p[1] <= Math.max(a[1], b[1]);
function segmentsCross(a: Position, b: Position, c: Position, d: Position): boolean {
  const [o1, o2, o3, o4] = [orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)];
  if (o1 !== o2 && o3 !== o4) return true;
  return (o1 === 0 && onSegment(a, b, c)) || (o2 === 0 && onSegment(a, b, d)) || (o3 === 0 && onSegment(c, d, a)) || (o4 === 0 && onSegment(c, d, b));
}
function segmentMeets(a: Position, b: Position, box: Box): boolean {
  if (inBox(a, box) || inBox(b, box)) return true;
  const [w, s, e, n] = box;
  const corners: Position[] = [[w, s], [e, s], [e, n], [w, n]];
  return corners.some((c, k) => segmentsCross(a, b, c, corners[(k + 1) % 4]));
}
function insideRings(p: Position, rings: Position[][]): boolean {
  let crossings = 0;
  for (const ring of rings) {
    for (let k = 0; k + 1 < ring.length; k++) {
      const [a, b] = [ring[k], ring[k + 1]];
      if ((a[1] <= p[1] && b[1] > p[1]) || (b[1] <= p[1] && a[1] > p[1])) {
        const x = a[0] + ((p[1] - a[1]) / (b[1] - a[1])) * (b[0] - a[0]);
        if (x > p[0]) crossings++;
      }
    }
  }
  return crossings % 2 === 1;
}
export function meets(g: Geometry | null, box: Box): boolean {
  if (!g) return false;
  switch (g.type) {
    case 'Point': return inBox(g.coordinates, box);
    case 'MultiPoint': return g.coordinates.some((p) => inBox(p, box));
    case 'LineString': return g.coordinates.some((p, k) => k > 0 && segmentMeets(g.coordinates[k - 1], p, box));
    case 'Polygon': return g.coordinates.some((ring) => ring.some((p, k) => k > 0 && segmentMeets(ring[k - 1], p, box)))
      || insideRings([box[0], box[1]], g.coordinates);
  }
}
/** A bbox parameter's boxes: itself, or its halves either side of the antimeridian. */
export const boxesOf = ([w, s, e, n]: Box): Box[] => (w <= e ? [[w, s, e, n]] : [[w, s, 180, n], [-180, s, e, n]]);

/** Every position of a geometry. */
export function flat(g: Geometry): Position[] {
  switch (g.type) {
    case 'Point': return [g.coordinates];
    case 'LineString': case 'MultiPoint': return g.coordinates;
    case 'Polygon': return g.coordinates.flat();
  }
}
