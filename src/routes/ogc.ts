/**
 * OGC API – Features (Part 1 Core with GeoJSON, Part 3 Queryables and Filter with CQL2 text) under /ogc: what QGIS,
 * ArcGIS and GDAL open. Each enabled map has four collections, `{map_id}-markers`, `-paths`, `-polygons` and `-events`
 * (src/content/model/features.ts); items are paged with keyset cursors in `next` links. Two rules differ from the rest
 * of the API because the standard says so: a `limit` above the largest is taken as the largest, and a query parameter
 * a route does not take is a 400 (docs/api-conventions.md, OGC API Features).
 */
import * as v from 'valibot';
import {
  COLLECTION_KINDS, COLLECTION_PROPERTIES, featureCollection, queryablesOf, readCollectionId,
  type CollectionKind, type FeatureCollectionView, type FeatureProperties, type PropertyType,
} from '../content/model/features.ts';
import type { MapView, ReadModel } from '../content/model/read-model.ts';
import { boxesOf } from '../geo/box-intersects.ts';
import { Cql2Error, matchesCql2, parseCql2, type Cql2Filter, type PropertyValue } from '../http/cql2.ts';
import { decodeFeatureCursor, encodeFeatureCursor } from '../http/cursor.ts';
import { checkFieldNames, FieldMask } from '../http/fields.ts';
import { invalidParams, notFound } from '../http/errors.ts';
import { datetimeInterval, ogcBbox, oneOf, splitList } from '../http/params.ts';
import { Lru } from '../utils/lru.ts';
import { GEOJSON_TYPE } from '../http/respond.ts';
import { defineRoute, type RouteSpec } from '../http/route.ts';
import { toUtc } from '../content/rfc3339.ts';
import { LineGeometry, MultiPointGeometry, PointGeometry, PolygonGeometry } from './schemas.ts';
import { oneLanguage } from './shared.ts';
import { ONE_LANGUAGE_ONLY, type LanguageChoice } from '../http/language.ts';

/** Features a page holds when `limit` is not given, and the most it holds (a larger `limit` is taken as this). */
export const OGC_DEFAULT_LIMIT = 100;
export const OGC_MAX_LIMIT = 10_000;

/** The conformance classes this service passes (not `oas30`: its service description is OpenAPI 3.1; not `html`). */
export const CONFORMANCE = [
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter',
  'http://www.opengis.net/spec/cql2/1.0/conf/cql2-text',
  'http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2',
  'http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators',
];

const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
const GREGORIAN = 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian';
const JSON_MEDIA = 'application/json';
const GEOJSON_MEDIA = 'application/geo+json';
const SCHEMA_TYPE = 'application/schema+json; charset=utf-8';

const Link = v.strictObject({ href: v.string(), rel: v.string(), type: v.optional(v.string()), title: v.optional(v.string()) });
type LinkT = v.InferOutput<typeof Link>;
const link = (href: string, rel: string, type?: string, title?: string): LinkT => ({ href, rel, ...(type && { type }), ...(title && { title }) });

/** `f`: the one format served. */
const formatParam = { f: oneOf(['json'], 'The format: json (GeoJSON for features), the only one served') };

/** A map's collection named by `id`, or 404 (an unknown or disabled map, or a kind there is not). */
function findCollection(model: ReadModel, id: string): { map: MapView; kind: CollectionKind } {
  const named = readCollectionId(id);
  const map = named && model.maps.get(named.mapId);
  if (!named || !map) throw notFound(`Collection ${id}`);
  return { map, kind: named.kind };
}

/** The language of an answer about every map: one they all offer (`langs=all` has no place in these answers). */
function languageOfMaps(language: LanguageChoice, model: ReadModel): string {
  const served = language.forMaps(model.maps.keys());
  if (served === null) throw invalidParams([{ ...ONE_LANGUAGE_ONLY }]);
  return served;
}

const Extent = v.strictObject({
  spatial: v.optional(v.strictObject({ bbox: v.array(v.array(v.number())), crs: v.literal(CRS84) })),
  temporal: v.optional(v.strictObject({ interval: v.array(v.array(v.nullable(v.string()))), trs: v.literal(GREGORIAN) })),
});
const CollectionSchema = v.strictObject({
  id: v.string(), title: v.string(), description: v.string(), itemType: v.literal('feature'), crs: v.array(v.string()),
  extent: Extent, links: v.array(Link),
});

/** A collection as /ogc/collections describes it. */
function describeCollection(model: ReadModel, map: MapView, kind: CollectionKind, lang: string, publicUrl: string) {
  const view = featureCollection(model, map, kind);
  const id = `${map.id}-${kind}`;
  const base = `${publicUrl}/ogc/collections/${id}`;
  const title = `${map.doc.name.in(lang)} — ${kind}`;
  const extent: v.InferOutput<typeof Extent> = {};
  if (view.extent) extent.spatial = { bbox: [[...view.extent]], crs: CRS84 };
  if (view.interval) extent.temporal = { interval: [view.interval.map(toUtc)], trs: GREGORIAN };
  return {
    id, title,
    description: kind === 'events'
      ? 'Every event of the map, single events and each occurrence of a series, every status: a MultiPoint of the places it is anchored to (no geometry when none), its window as its time'
      : `The ${kind} of the map's current version, in id order`,
    itemType: 'feature' as const,
    crs: [CRS84],
    extent,
    links: [
      link(base, 'self', JSON_MEDIA, title),
      link(`${base}/items?lang=${lang}`, 'items', GEOJSON_MEDIA, `${title} as GeoJSON`),
      link(`${base}/queryables`, 'http://www.opengis.net/def/rel/ogc/1.0/queryables', 'application/schema+json', 'What a filter can name'),
    ],
  };
}

/** GET /ogc */
export const ogcLanding = defineRoute({
  path: '/ogc',
  operationId: 'getOgcLandingPage',
  summary: 'OGC API – Features: the landing page',
  description: 'Links to the service description, the conformance classes and the collections, absolute under the public URL.',
  tag: 'OGC API Features',
  pathParams: {},
  query: formatParam,
  strictQuery: true,
  texts: false,
  response: v.strictObject({ title: v.string(), description: v.string(), links: v.array(Link) }),
  errors: [],
  handle({ publicUrl }) {
    return {
      title: 'Destination map content',
      description: 'Every enabled map\'s markers, paths, polygons and events as OGC API – Features collections.',
      links: [
        link(`${publicUrl}/ogc`, 'self', JSON_MEDIA, 'This page'),
        link(`${publicUrl}/openapi.json`, 'service-desc', JSON_MEDIA, 'The service description (OpenAPI 3.1)'),
        link(`${publicUrl}/docs`, 'service-doc', 'text/html', 'The service documentation'),
        link(`${publicUrl}/ogc/conformance`, 'conformance', JSON_MEDIA, 'The conformance classes this service passes'),
        link(`${publicUrl}/ogc/collections`, 'data', JSON_MEDIA, 'The collections'),
      ],
    };
  },
});

/** GET /ogc/conformance */
export const ogcConformance = defineRoute({
  path: '/ogc/conformance',
  operationId: 'getOgcConformance',
  summary: 'OGC API – Features: the conformance classes this service passes',
  tag: 'OGC API Features',
  pathParams: {},
  query: formatParam,
  strictQuery: true,
  texts: false,
  response: v.strictObject({ conformsTo: v.array(v.string()) }),
  errors: [],
  handle() {
    return { conformsTo: CONFORMANCE };
  },
});

/** GET /ogc/collections */
export const ogcCollections = defineRoute({
  path: '/ogc/collections',
  oneLanguage: true,
  operationId: 'listOgcCollections',
  summary: 'OGC API – Features: the collections, four per enabled map',
  description: '`{map_id}-markers`, `{map_id}-paths`, `{map_id}-polygons` and `{map_id}-events`, each with its extent from the data. ' +
    'Titles in a language every map offers (negotiated as for a publisher\'s maps).',
  tag: 'OGC API Features',
  pathParams: {},
  query: formatParam,
  strictQuery: true,
  response: v.strictObject({ links: v.array(Link), collections: v.array(CollectionSchema) }),
  errors: [],
  handle({ model, language, publicUrl }) {
    const lang = languageOfMaps(language, model);
    return {
      links: [link(`${publicUrl}/ogc/collections`, 'self', JSON_MEDIA, 'The collections')],
      collections: [...model.maps.values()].flatMap((map) => COLLECTION_KINDS.map((kind) => describeCollection(model, map, kind, lang, publicUrl))),
    };
  },
});

const collectionPath = { collectionId: v.pipe(v.string(), v.description('`{map_id}-markers`, `-paths`, `-polygons` or `-events`')) };

/** GET /ogc/collections/:collectionId */
export const ogcCollection = defineRoute({
  path: '/ogc/collections/:collectionId',
  oneLanguage: true,
  operationId: 'getOgcCollection',
  summary: 'OGC API – Features: one collection',
  tag: 'OGC API Features',
  pathParams: collectionPath,
  query: formatParam,
  strictQuery: true,
  response: CollectionSchema,
  errors: [404],
  handle({ params, model, language, publicUrl }) {
    const { map, kind } = findCollection(model, params.collectionId);
    return describeCollection(model, map, kind, oneLanguage(language, map.id), publicUrl);
  },
});

/** GET /ogc/collections/:collectionId/queryables */
export const ogcQueryables = defineRoute({
  path: '/ogc/collections/:collectionId/queryables',
  oneLanguage: true,
  operationId: 'getOgcQueryables',
  summary: 'OGC API – Features: what a filter on a collection can name (JSON Schema)',
  description: 'Every property of the collection\'s features, with its type: a CQL2 filter compares them (`filter`).',
  tag: 'OGC API Features',
  pathParams: collectionPath,
  query: formatParam,
  strictQuery: true,
  contentType: SCHEMA_TYPE,
  response: v.strictObject({
    $schema: v.string(), $id: v.string(), type: v.literal('object'), title: v.string(),
    properties: v.record(v.string(), v.strictObject({ description: v.string(), type: v.string(), format: v.optional(v.string()) })),
    additionalProperties: v.boolean(),
  }),
  errors: [404],
  handle({ params, model, language, publicUrl }) {
    const { map, kind } = findCollection(model, params.collectionId);
    const lang = oneLanguage(language, map.id);
    const properties = Object.fromEntries(Object.entries(COLLECTION_PROPERTIES[kind]).map(([name, { type, description }]) => [name,
      type === 'date-time' ? { description, type: 'string', format: type } : { description, type }]));
    return {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `${publicUrl}/ogc/collections/${map.id}-${kind}/queryables`,
      type: 'object' as const,
      title: `${map.doc.name.in(lang)} — ${kind}`,
      properties,
      additionalProperties: false,
    };
  },
});

const Feature = v.strictObject({
  type: v.literal('Feature'), id: v.string(),
  geometry: v.nullable(v.variant('type', [PointGeometry, LineGeometry, PolygonGeometry, MultiPointGeometry])),
  properties: v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null()])),
  links: v.optional(v.array(Link)),
});

/** Feature k of a collection with the properties `mask` keeps (all when null), in the feature's own order. */
function featureOf(view: FeatureCollectionView, k: number, properties: FeatureProperties, mask: FieldMask | null) {
  return {
    type: 'Feature' as const,
    id: view.id(k),
    geometry: view.geometry(k),
    properties: mask ? mask.pick(properties) : properties,
  };
}

/**
 * The `properties` asked for on a collection, as the field selection of every other route (src/http/fields.ts) over
 * a feature's properties, or a 400 naming those it has not.
 */
function chosenProperties(kind: CollectionKind, names: readonly string[] | undefined): FieldMask | null {
  // `properties=` with no name is the parameter left out, as an empty list is everywhere in this API.
  if (!names || names.length === 0) return null;
  checkFieldNames('properties', names, Object.keys(COLLECTION_PROPERTIES[kind]), 'this collection\'s features');
  return FieldMask.keeping(names);
}

/** A property's value as a CQL2 filter compares it: date-times as epoch milliseconds. */
function filterValue(properties: FeatureProperties, name: string, type: PropertyType): PropertyValue {
  const value = properties[name];
  return type === 'date-time' && typeof value === 'string' ? Date.parse(value) : value;
}

/** A filter parsed against the collection's queryables, or a 400 saying where it went wrong. */
function readFilter(kind: CollectionKind, text: string | undefined): Cql2Filter | null {
  if (text === undefined) return null;
  try {
    return parseCql2(text, queryablesOf(kind));
  } catch (err) {
    if (err instanceof Cql2Error) throw invalidParams([{ name: 'filter', in: 'query', reason: `is not a CQL2 text filter on this collection's queryables: ${err.message}` }]);
    throw err;
  }
}

/** GET /ogc/collections/:collectionId/items */
export const ogcItems = defineRoute({
  path: '/ogc/collections/:collectionId/items',
  oneLanguage: true,
  operationId: 'getOgcItems',
  summary: 'OGC API – Features: a page of a collection\'s features',
  description: `GeoJSON. \`bbox\` keeps the features whose geometry intersects the box (exactly: a path across it with no vertex in it ` +
    'does); `datetime` keeps the events whose window overlaps the instant or interval (a POI has no time: none is kept); ' +
    '`filter` is CQL2 text on the collection\'s queryables. Features in a stable order (POIs by id; events by start, then id), ' +
    `${OGC_DEFAULT_LIMIT} a page by default; a \`limit\` above ${OGC_MAX_LIMIT.toLocaleString('en')} is taken as ${OGC_MAX_LIMIT.toLocaleString('en')}. ` +
    'The `next` link goes on after the last feature of the page. `numberMatched` is exact.',
  tag: 'OGC API Features',
  pathParams: collectionPath,
  query: {
    ...formatParam,
    limit: v.optional(v.pipe(
      v.string(),
      v.metadata({ openapi: { type: 'integer', minimum: 1, maximum: OGC_MAX_LIMIT, default: OGC_DEFAULT_LIMIT } }),
      v.regex(/^\d+$/, 'must be a whole number of at least 1'),
      v.transform(Number),
      v.minValue(1, 'must be a whole number of at least 1'),
      // The standard: a larger limit is not an error, the largest is used.
      v.transform((n) => Math.min(n, OGC_MAX_LIMIT)),
      v.description(`Features a page holds, from 1; default ${OGC_DEFAULT_LIMIT}; above ${OGC_MAX_LIMIT}, ${OGC_MAX_LIMIT}`),
    ), String(OGC_DEFAULT_LIMIT)),
    bbox: ogcBbox('west,south,east,north in degrees (CRS84), or six numbers with heights (left aside); west > east crosses the antimeridian. Features whose geometry intersects it'),
    datetime: datetimeInterval('Events whose window overlaps this instant, date or interval (2026-06-01/2026-06-30, 2026-06-01T10:00:00Z/.., ../2026-06-30)'),
    properties: v.optional(v.pipe(v.string(), v.transform(splitList), v.description('Comma-separated names of the properties each feature keeps (see queryables)'))),
    filter: v.optional(v.pipe(v.string(), v.description('A CQL2 text filter on the collection\'s queryables: name = \'Alfama Walk\' AND duration_min < 120'))),
    'filter-lang': oneOf(['cql2-text'], 'The filter\'s language: cql2-text, the only one read'),
    'filter-crs': oneOf([CRS84], 'The coordinate reference system of the filter\'s geometries: CRS84, the only one (the filters read here name none)'),
    cursor: v.optional(v.pipe(v.string(), v.description('Where a page goes on: given by the `next` link, not made by hand'))),
  },
  strictQuery: true,
  contentType: GEOJSON_TYPE,
  response: v.strictObject({
    type: v.literal('FeatureCollection'), features: v.array(Feature), numberMatched: v.number(), numberReturned: v.number(), links: v.array(Link),
  }),
  errors: [404],
  handle({ params, query, model, language, publicUrl }) {
    const { map, kind } = findCollection(model, params.collectionId);
    const lang = oneLanguage(language, map.id);
    const names = chosenProperties(kind, query.properties);
    const filter = readFilter(kind, query.filter);
    const queryKey = [params.collectionId, query.bbox && Object.values(query.bbox).join(','), query.datetime?.text, query.filter].join('|');
    const after = query.cursor === undefined ? null : decodeFeatureCursor(query.cursor, queryKey);
    if (query.cursor !== undefined && !after) {
      throw invalidParams([{ name: 'cursor', in: 'query', reason: 'is not one this service gave for this query: follow the next link as it is' }]);
    }
    const view = featureCollection(model, map, kind);
    // Each feature's properties made once: for the filter, then for the page.
    const made = new Map<number, FeatureProperties>();
    const propertiesOf = (k: number) => {
      let props = made.get(k);
      if (!props) made.set(k, (props = view.properties(k, lang, model.changes)));
      return props;
    };
    // Kept per language (names compare in it) and per account of the changes (`updated_at` compares with it).
    const matches = matchesOf(view, `${lang}|${model.changes.latest}|${queryKey}`, () => {
      let found = query.bbox ? view.inBoxes(boxesOf(query.bbox)) : Array.from({ length: view.size }, (_, k) => k);
      if (query.datetime) {
        const { from, to } = query.datetime;
        // A POI has no time: no instant or interval intersects it (Part 1, /req/core/fc-time-response).
        found = kind === 'events' ? found.filter((k) => view.overlaps(k, from, to)) : [];
      }
      if (filter) {
        const types = queryablesOf(kind);
        found = found.filter((k) => matchesCql2(filter, (name) => filterValue(propertiesOf(k), name, types[name])));
      }
      return found;
    }, filter !== null);
    const first = after ? lowerBound(matches, view.after(after)) : 0;
    const page = matches.slice(first, first + query.limit);
    const base = `${publicUrl}/ogc/collections/${params.collectionId}/items`;
    const search = new URLSearchParams();
    if (query.f) search.set('f', query.f);
    if (query.bbox) search.set('bbox', Object.values(query.bbox).join(','));
    if (query.datetime) search.set('datetime', query.datetime.text);
    if (query.properties) search.set('properties', query.properties.join(','));
    if (query.filter !== undefined) search.set('filter', query.filter);
    if (query['filter-lang']) search.set('filter-lang', query['filter-lang']);
    if (query['filter-crs']) search.set('filter-crs', query['filter-crs']);
    search.set('limit', String(query.limit));
    search.set('lang', lang);
    const here = new URLSearchParams(search);
    if (query.cursor) here.set('cursor', query.cursor);
    const links = [
      link(`${base}?${here}`, 'self', GEOJSON_MEDIA, 'This page'),
      link(`${publicUrl}/ogc/collections/${params.collectionId}?lang=${lang}`, 'collection', JSON_MEDIA, 'The collection'),
    ];
    if (first + page.length < matches.length) {
      const last = view.key(page[page.length - 1]);
      search.set('cursor', encodeFeatureCursor(queryKey, last.s, last.i));
      links.push(link(`${base}?${search}`, 'next', GEOJSON_MEDIA, 'The next page'));
    }
    return {
      type: 'FeatureCollection' as const,
      features: page.map((k) => featureOf(view, k, propertiesOf(k), names)),
      numberMatched: matches.length,
      numberReturned: page.length,
      links,
    };
  },
});

/** Queries whose matches are kept per collection, so the next pages of a filtered query do not read every feature again. */
const KEPT_MATCHES = 16;
const keptMatches = new WeakMap<FeatureCollectionView, Lru<string, number[]>>();

/**
 * The features (ascending) a query matches: made by `find`, and kept when `keep` (a filter, which reads every
 * candidate's properties; a box or a time alone costs little to find again).
 */
function matchesOf(view: FeatureCollectionView, key: string, find: () => number[], keep: boolean): number[] {
  if (!keep) return find();
  let kept = keptMatches.get(view);
  if (!kept) keptMatches.set(view, (kept = new Lru(KEPT_MATCHES)));
  return kept.get(key, find);
}

/** The first index of ascending `list` whose value is at least `value`. */
function lowerBound(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** GET /ogc/collections/:collectionId/items/:featureId */
export const ogcItem = defineRoute({
  path: '/ogc/collections/:collectionId/items/:featureId',
  oneLanguage: true,
  operationId: 'getOgcItem',
  summary: 'OGC API – Features: one feature',
  tag: 'OGC API Features',
  pathParams: { ...collectionPath, featureId: v.pipe(v.string(), v.description('The feature\'s id: the POI\'s or the event\'s')) },
  query: { ...formatParam, properties: v.optional(v.pipe(v.string(), v.transform(splitList), v.description('Comma-separated names of the properties kept'))) },
  strictQuery: true,
  contentType: GEOJSON_TYPE,
  response: Feature,
  errors: [404],
  handle({ params, query, model, language, publicUrl }) {
    const { map, kind } = findCollection(model, params.collectionId);
    const lang = oneLanguage(language, map.id);
    const names = chosenProperties(kind, query.properties);
    const view = featureCollection(model, map, kind);
    const k = view.find(params.featureId.toLowerCase());
    if (k < 0) throw notFound(`Feature ${params.featureId} in collection ${params.collectionId}`);
    const collection = `${publicUrl}/ogc/collections/${params.collectionId}`;
    return {
      ...featureOf(view, k, view.properties(k, lang, model.changes), names),
      links: [
        link(`${collection}/items/${view.id(k)}?lang=${lang}`, 'self', GEOJSON_MEDIA, 'This feature'),
        link(`${collection}?lang=${lang}`, 'collection', JSON_MEDIA, 'The collection'),
      ],
    };
  },
});

/** The OGC API – Features routes. */
export const ogcRoutes = [ogcLanding, ogcConformance, ogcCollections, ogcCollection, ogcQueryables, ogcItems, ogcItem] as unknown as RouteSpec[];
