/**
 * POIs: map POIs by tag, the markers/paths/polygons routes (map-scoped list, map-scoped single, id-only),
 * the GeoJSON collections of a map and the POI resolver.
 */
import * as v from 'valibot';
import { poiEntries, poiRecords, type MapView, type PoiEntry, type PoiRecord, type PoiType, type ReadModel, type VersionContent } from '../content/model/read-model.ts';
import type { PoiStore } from '../content/model/poi-store.ts';
import { matchesQuery, searchable } from '../content/model/text-search.ts';
import { notFound } from '../http/errors.ts';
import { GEOJSON_TYPE } from '../http/respond.ts';
import { flag, instant, optionalInt, searchQuery, uuid, uuidList } from '../http/params.ts';
import { DEFAULT_RADIUS_M, MAX_RADIUS_M, NEAR_POI, nearPoiShape } from './events.ts';
import type { ParamError } from '../http/errors.ts';
import { hoursOfMap, type MapHours } from '../content/model/open-hours.ts';
import { toUtc } from '../content/rfc3339.ts';
import { defineRoute, type RouteSpec } from '../http/route.ts';
import {
  MarkerRecord, PathRecord, PoiOpenRecordSchema, PoiRecordSchema, PoiTypeSchema, PolygonRecord,
  Uuid, featureCollection, windowOf,
} from './schemas.ts';
import { checkWindow, findMap, findMapVersion, UPDATED_SINCE, mapIdPath, sliceWindow, versionIdParam, windowQuery } from './shared.ts';

/** A public POI of the given type, or 404. */
export function findPoi(model: ReadModel, id: string, type?: PoiType): PoiEntry {
  const poi = model.pois.get(id);
  if (!poi || (type && poi.record.type !== type)) throw notFound(`${type ? capitalise(type) : 'POI'} ${id}`);
  return poi;
}

const capitalise = (s: string) => s[0].toUpperCase() + s.slice(1);

/**
 * Names made searchable, one text per distinct name in the map's languages, per POI of a store, made the first time
 * a search tests the POI (records are made when asked for, so the texts are kept by POI, not by record).
 */
const searchableNames = new WeakMap<PoiStore, (readonly string[] | undefined)[]>();
function nameMatches(model: ReadModel, i: number, languages: readonly string[], q: readonly string[]): boolean {
  let names = searchableNames.get(model.pois);
  if (names === undefined) searchableNames.set(model.pois, (names = []));
  let texts = names[i];
  if (texts === undefined) {
    const { name } = model.pois.listed(i).record;
    names[i] = texts = [...new Set(languages.map((lang) => searchable(name.in(lang))))];
  }
  for (const text of texts) if (matchesQuery(text, q)) return true;
  return false;
}

/** GET /maps/:map_id/pois */
export const listPoisByTag = defineRoute({
  path: '/maps/:map_id/pois',
  records: 'items',
  operationId: 'listMapPoisByTag',
  summary: 'POIs of a map that have any of the requested tags',
  description: 'A tag id matches POIs assigned to that item or to any item below it in the hierarchy. Items are ordered ' +
    'by name (case- and accent-insensitive), then id; unknown tag ids match nothing. Current version only. With `open_at` ' +
    'or `open_now` only the POIs open then are listed (POIs without `hours` never are), each with `open_now`, `opens_at` ' +
    'and `closes_at`; `total` and the window count those.',
  tag: 'POIs',
  pathParams: mapIdPath,
  query: {
    tags: uuidList('Comma-separated category/tag ids from GET /places-of-interest/items/:map_id; spaces are ignored'),
    q: searchQuery('Search by name among the tagged POIs: every word must begin a word of the name in one of the map\'s languages, case- and accent-insensitive'),
    open_at: instant('Only POIs open at this instant (their `hours` on the map\'s clock), each with when that next changes'),
    open_now: flag('true: only POIs open now, each with when that next changes (a live answer)'),
    updated_since: UPDATED_SINCE,
    near_poi: NEAR_POI,
    radius_m: optionalInt(1, MAX_RADIUS_M, `Radius in metres for near_poi, from 1 to ${MAX_RADIUS_M}. Default ${DEFAULT_RADIUS_M}`),
    ...windowQuery,
  },
  crossCheck: (q, bad) => [...checkWindow(q, bad), ...checkOpenAt(q),
    ...(q.radius_m !== undefined && q.near_poi === undefined && !bad.has('near_poi') ? [{ name: 'radius_m', in: 'query' as const, reason: 'requires near_poi' }] : [])],
  cacheClass: (q) => (q.open_now ? 'live' : 'content'),
  response: v.union([windowOf(PoiRecordSchema), windowOf(PoiOpenRecordSchema)]),
  errors: [404],
  async handle({ params, query, model, now }) {
    const { map, version } = findMapVersion(model, params.map_id);
    // In name order; only the window's records are made.
    let matching = changedSince(model, matchingPois(model, map, version, query.tags, query.q), query.updated_since);
    if (query.near_poi !== undefined) {
      // A POI is near when one of its vertices is (a marker's point; a path's or a polygon's vertices), as an event's anchors are.
      const { test } = nearPoiShape(model, query.near_poi, query.radius_m);
      matching = matching.filter((i) => {
        const xy = model.pois.verticesOf(i);
        for (let k = 0; k < xy.length; k += 2) if (test(xy[k], xy[k + 1])) return true;
        return false;
      });
    }
    const at = query.open_now ? now.getTime() : query.open_at;
    if (at === undefined) {
      const { items, ...window } = sliceWindow(matching, query.start, query.end);
      return { items: poiRecords(model, items), ...window };
    }
    // The hours (and the library that reads them) are loaded only when some POI asked about has any.
    matching = matching.filter((i) => model.pois.hoursCode(i) >= 0);
    const hours = matching.length > 0 ? await hoursOfMap(model, map) : null;
    if (hours) matching = openAmong(hours, model, matching, at);
    const { items, ...window } = sliceWindow(matching, query.start, query.end);
    // Each distinct rule's state once (the POIs of a window share few rules).
    const states = new Map<number, ReturnType<typeof openState>>();
    const stateOf = (i: number) => {
      const code = model.pois.hoursCode(i);
      let state = states.get(code);
      if (!state) states.set(code, (state = openState(hours!, i, at)));
      return state;
    };
    return { items: poiRecords(model, items).map((record, k) => ({ ...record, ...stateOf(items[k]) })), ...window };
  },
});

/**
 * The POIs of a map's version under any of `tags` (every POI of the version without them) whose names match the words
 * of `q` when given, in name order: what /maps/:map_id/pois lists and the downloads of a map hold.
 */
export function matchingPois(model: ReadModel, map: MapView, version: VersionContent, tags: readonly string[] | undefined,
  q: readonly string[] | undefined): number[] {
  const pois = tags ? taggedPois(model, version, tags) : Array.from(version.pois);
  return q ? pois.filter((i) => nameMatches(model, i, map.languages.offered, q)) : pois;
}

/** The POIs of `pois` (store numbers, order kept) that changed at or after `since` (`updated_since`); all when it is absent. */
function changedSince(model: ReadModel, pois: ArrayLike<number>, since: number | undefined): number[] {
  const all = Array.from(pois);
  if (since === undefined) return all;
  const changed = model.changes.poisChangedSince(since);
  return all.filter((i) => changed(model.pois.id(i)));
}

/**
 * The POIs of a version under any of `tags` (each with its descendants), in name order: one tag's list as the version
 * keeps it (already in that order), or the version's POIs marked by several.
 */
function taggedPois(model: ReadModel, version: VersionContent, tags: readonly string[]): number[] {
  const known = [...new Set(tags)].filter((tag) => version.subtreePois.has(tag));
  if (known.length === 1) return Array.from(version.subtreePois.get(known[0])!);
  const wanted = new Uint8Array(model.pois.size);
  for (const tag of known) for (const i of version.subtreePois.get(tag)!) wanted[i] = 1;
  return Array.from(version.pois.filter((i) => wanted[i] === 1));
}

/** `open_at` and `open_now` ask the same of different instants: one at a time. */
function checkOpenAt(q: { open_at?: number; open_now?: boolean }): ParamError[] {
  return q.open_at !== undefined && q.open_now ? [{ name: 'open_now', in: 'query', reason: 'cannot be given with open_at: ask about now or about one instant' }] : [];
}

/** The POIs among `pois` (each with hours) open at instant `ms`: each distinct rule judged once. */
function openAmong(hours: MapHours, model: ReadModel, pois: readonly number[], ms: number): number[] {
  const wall = hours.wallAt(ms);
  const judged = new Map<number, boolean>();
  return pois.filter((i) => {
    const code = model.pois.hoursCode(i);
    let open = judged.get(code);
    if (open === undefined) judged.set(code, (open = hours.openAtWall(code, wall)));
    return open;
  });
}

/** A POI's `open_now`, `opens_at` and `closes_at` at instant `ms`. */
function openState(hours: MapHours, i: number, ms: number) {
  const state = hours.stateAt(i, ms)!;
  const time = (at: number | null) => (at === null ? null : toUtc(at));
  return { open_now: state.open, opens_at: time(state.opensAt), closes_at: time(state.closesAt) };
}

const KINDS = {
  marker: { plural: 'markers', record: MarkerRecord },
  path: { plural: 'paths', record: PathRecord },
  polygon: { plural: 'polygons', record: PolygonRecord },
} as const;

/** The three routes of one POI kind: map-scoped list, map-scoped single, id-only single. */
function kindRoutes(type: PoiType): RouteSpec[] {
  const { plural, record } = KINDS[type];
  const idParam = `${type}_id`;
  const Name = capitalise(type);
  const list = defineRoute({
    path: `/maps/:map_id/${plural}`,
  records: plural,
    operationId: `listMap${capitalise(plural)}`,
    summary: `${capitalise(plural)} of a map, optionally from one version`,
    description: 'Ordered by name, then id.',
    tag: 'POIs',
    pathParams: mapIdPath,
    query: { version_id: versionIdParam, updated_since: UPDATED_SINCE },
    response: v.strictObject({ map_id: Uuid, version_id: Uuid, [plural]: v.array(record) }),
    errors: [404],
    handle({ params, query, model }) {
      const { map, version } = findMapVersion(model, params.map_id, query.version_id);
      return { map_id: map.id, version_id: version.id, [plural]: poiRecords(model, changedSince(model, version.pois, query.updated_since), type) };
    },
  });
  const scoped = defineRoute({
    path: `/maps/:map_id/${plural}/:${idParam}`,
  records: 'body',
    operationId: `getMap${Name}`,
    summary: `One ${type}, checked to belong to the map`,
    tag: 'POIs',
    pathParams: { ...mapIdPath, [idParam]: uuid(`${Name} UUID`) },
    query: {},
    response: record,
    errors: [404],
    handle({ params, model }) {
      const map = findMap(model, params.map_id);
      const poi = findPoi(model, (params as Record<string, string>)[idParam], type);
      if (poi.record.map_id !== map.id) throw notFound(`${Name} ${poi.record.id} in map ${map.id}`);
      return poi.record;
    },
  });
  const single = defineRoute({
    path: `/${plural}/:${idParam}`,
  records: 'body',
    operationId: `get${Name}`,
    summary: `One ${type}, without a map id`,
    tag: 'POIs',
    pathParams: { [idParam]: uuid(`${Name} UUID`) },
    query: {},
    response: record,
    errors: [404],
    handle({ params, model, language }) {
      const poi = findPoi(model, params[idParam] as string, type);
      language.forMap(poi.record.map_id);
      return poi.record;
    },
  });
  return [list, scoped, single] as unknown as RouteSpec[];
}

/** The markers, paths and polygons routes (9). */
export const poiKindRoutes = (['marker', 'path', 'polygon'] as const).flatMap(kindRoutes);

/** A POI as a GeoJSON Feature: its geometry, and every other field as properties. */
function toFeature(p: PoiEntry) {
  const { geometry: _g, lat: _lat, lng: _lng, ...properties } = p.record as PoiRecord & { geometry?: unknown; lat?: unknown; lng?: unknown };
  return { type: 'Feature' as const, id: p.record.id, geometry: p.geometry, properties };
}

/** GET /places-of-interest/map/:mapId */
export const poiCollections = defineRoute({
  path: '/places-of-interest/map/:mapId',
  operationId: 'getMapPoiCollections',
  summary: 'Markers, paths and polygons of a map as three GeoJSON FeatureCollections',
  description: 'Served as application/geo+json. Geometries follow RFC 7946: [lng, lat], outer rings counter-clockwise, ' +
    'holes clockwise, 7 decimals.',
  tag: 'POIs',
  pathParams: { mapId: uuid('Map UUID') },
  query: { version_id: versionIdParam },
  response: v.strictObject({
    map_id: Uuid, version_id: Uuid,
    markers: featureCollection(MarkerRecord), paths: featureCollection(PathRecord), polygons: featureCollection(PolygonRecord),
  }),
  contentType: GEOJSON_TYPE,
  errors: [404],
  handle({ params, query, model }) {
    const { map, version } = findMapVersion(model, params.mapId, query.version_id);
    const collection = (type: PoiType) => ({
      type: 'FeatureCollection' as const,
      features: poiEntries(model, version.pois, type).map(toFeature),
    });
    return { map_id: map.id, version_id: version.id, markers: collection('marker'), paths: collection('path'), polygons: collection('polygon') };
  },
});

/** GET /places-of-interest/id/:poiId */
export const resolvePoi = defineRoute({
  path: '/places-of-interest/id/:poiId',
  records: 'record',
  operationId: 'resolvePoi',
  summary: 'Resolves a marker, path or polygon id to its type and record',
  tag: 'POIs',
  pathParams: { poiId: uuid('Marker, path or polygon UUID') },
  query: {},
  response: v.strictObject({ type: PoiTypeSchema, record: PoiRecordSchema }),
  errors: [404],
  handle({ params, model, language }) {
    const poi = findPoi(model, params.poiId);
    language.forMap(poi.record.map_id);
    return { type: poi.record.type, record: poi.record };
  },
});
