/**
 * A map's vector tiles: GET /maps/:map_id/tiles.json (TileJSON 3.0.0), /maps/:map_id/tiles/{z}/{x}/{y}.mvt (Mapbox
 * Vector Tiles, three layers: markers clustered, paths, polygons) and /maps/:map_id/style.json (a MapLibre style over
 * them, and over the operator's basemap when one is served). Tiles are made from the version's read model
 * (src/content/model/map-tiles.ts), never from SQL.
 */
import * as v from 'valibot';
import { CLUSTER_MAX_ZOOM, NO_CATEGORY_COLOR, versionTiles } from '../content/model/map-tiles.ts';
import { MVT_TYPE } from '../geo/vector-tiles.ts';
import { LocalText } from '../content/model/local-text.ts';
import { escapeHtml } from '../utils/html.ts';
import type { MapView, ReadModel, VersionContent } from '../content/model/read-model.ts';
import { defineRoute, MediaReply } from '../http/route.ts';
import { StyleLayerSchema, StyleSourceSchema } from './schemas.ts';
import { basemapStyle } from './basemap.ts';
import { findMapVersion, mapIdPath, oneLanguage, optionalTagsParam, tileGridErrors, tilePathParams, versionIdParam } from './shared.ts';

/** The zoom TileJSON and the style give as the tiles' deepest: closer in, a map SDK draws these tiles larger. */
export const TILEJSON_MAX_ZOOM = 16;

const tileQuery = {
  version_id: versionIdParam,
  tags: optionalTagsParam,
};

/** The query the tile URLs carry: the version and tags asked for, and the language answered. */
function tileSearch(query: { version_id?: string; tags?: readonly string[] }, lang: string): string {
  const search = new URLSearchParams();
  if (query.version_id) search.set('version_id', query.version_id);
  if (query.tags) search.set('tags', [...new Set(query.tags)].join(','));
  search.set('lang', lang);
  return search.toString();
}

/**
 * The tiles' box: the one around both the map's `map_data.bounds` and its version's POIs (a POI may lie outside the
 * bounds a map declares, and a map SDK asks for no tile outside its source's bounds), else the world. TileJSON bounds
 * must not wrap, so bounds declared across the antimeridian (west > east) give the world's whole width.
 */
function boundsOf(model: ReadModel, map: MapView, version: VersionContent): [number, number, number, number] {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  const given = map.doc.map_data.bounds;
  if (given) {
    [w, s, e, n] = given;
    if (w > e) [w, e] = [-180, 180];
  }
  for (const i of version.pois) {
    const xy = model.pois.verticesOf(i);
    for (let k = 0; k < xy.length; k += 2) {
      w = Math.min(w, xy[k]); e = Math.max(e, xy[k]);
      s = Math.min(s, xy[k + 1]); n = Math.max(n, xy[k + 1]);
    }
  }
  return w <= e ? [w, s, e, n] : [-180, -85.0511, 180, 85.0511];
}

/** The map's start zoom as TileJSON's `center` gives it: a whole zoom from 0 to TILEJSON_MAX_ZOOM. */
function tileJsonZoom(zoom: number): number {
  return Math.min(TILEJSON_MAX_ZOOM, Math.max(0, Math.round(zoom)));
}

/**
 * The tiles' attribution, as TileJSON means it (HTML a map SDK shows: MapLibre writes it into the page): the map's
 * publisher's name in the answer's language (else the map's), escaped as text.
 */
function publisherName(model: ReadModel, map: MapView, lang: string): string {
  const name = model.publishers.get(map.publisherId)?.name;
  return name instanceof LocalText ? name.in(lang) : map.doc.name.in(lang);
}

const VectorLayer = v.strictObject({ id: v.string(), description: v.string(), minzoom: v.number(), maxzoom: v.number(), fields: v.record(v.string(), v.string()) });

/** The layers of a tile and their fields, as TileJSON describes them. */
const VECTOR_LAYERS = [
  { id: 'markers', description: `Markers: clusters up to zoom ${CLUSTER_MAX_ZOOM}, every marker on its own from zoom ${CLUSTER_MAX_ZOOM + 1}`, fields: {
    id: 'String: the marker id (single markers)', name: 'String: its name, in the answer\'s language (single markers)',
    icon: 'String: its Maki icon name (single markers)', category: 'String: the top-level category id (a cluster\'s: the one most of its markers have)',
    color: 'String: the colour of that category, #rrggbb', cluster: 'Boolean: true for a cluster', cluster_id: 'Number: the cluster id',
    point_count: 'Number: markers in the cluster', label: 'String: that count as people read it (7, 1.2k, 15k)',
  } },
  { id: 'paths', description: 'Paths, simplified per zoom', fields: { id: 'String: the path id', name: 'String: its name', category: 'String: its top-level category id', color: 'String: that category\'s colour' } },
  { id: 'polygons', description: 'Polygons, simplified per zoom', fields: { id: 'String: the polygon id', name: 'String: its name', category: 'String: its top-level category id', color: 'String: that category\'s colour' } },
].map((layer) => ({ ...layer, minzoom: 0, maxzoom: TILEJSON_MAX_ZOOM }));

/** GET /maps/:map_id/tiles.json */
export const mapTileJson = defineRoute({
  path: '/maps/:map_id/tiles.json',
  oneLanguage: true,
  operationId: 'getMapTileJson',
  summary: 'The map\'s vector tiles described as TileJSON 3.0.0',
  description: 'The tile URL template (absolute, under the public URL) carries the `version_id` and `tags` asked for and the language ' +
    'answered, so every tile of one TileJSON is of the same content and language. `bounds` is the box around the map\'s `map_data.bounds` ' +
    'and its POIs together (the world\'s width for bounds across the antimeridian, which TileJSON bounds cannot wrap); `center` is ' +
    'the map\'s centre and its zoom rounded to a whole zoom from 0 to 16. `attribution` is the publisher\'s name in the answer\'s language, escaped as HTML.',
  tag: 'Maps',
  pathParams: mapIdPath,
  query: tileQuery,
  response: v.strictObject({
    tilejson: v.literal('3.0.0'), name: v.string(), description: v.nullable(v.string()), scheme: v.literal('xyz'),
    tiles: v.array(v.string()), minzoom: v.number(), maxzoom: v.number(), bounds: v.array(v.number()), center: v.array(v.number()),
    attribution: v.string(), vector_layers: v.array(VectorLayer),
  }),
  errors: [404],
  handle({ params, query, model, language, publicUrl }) {
    const { map, version } = findMapVersion(model, params.map_id, query.version_id);
    const lang = oneLanguage(language, map.id);
    const data = map.doc.map_data;
    return {
      tilejson: '3.0.0' as const,
      name: map.doc.name.in(lang),
      description: map.doc.description?.in(lang) ?? null,
      scheme: 'xyz' as const,
      tiles: [`${publicUrl}/maps/${map.id}/tiles/{z}/{x}/{y}.mvt?${tileSearch(query, lang)}`],
      minzoom: 0,
      maxzoom: TILEJSON_MAX_ZOOM,
      bounds: boundsOf(model, map, version),
      center: [data.center.lng, data.center.lat, tileJsonZoom(data.zoom)],
      attribution: escapeHtml(publisherName(model, map, lang)),
      vector_layers: VECTOR_LAYERS,
    };
  },
});

/** GET /maps/:map_id/tiles/:z/:x/:y.mvt */
export const mapTile = defineRoute({
  path: '/maps/:map_id/tiles/:z/:x/:y.mvt',
  oneLanguage: true,
  operationId: 'getMapTile',
  summary: 'One vector tile of the map (Mapbox Vector Tile 2.1)',
  description: `Layers \`markers\` (clustered up to zoom ${CLUSTER_MAX_ZOOM}; from zoom ${CLUSTER_MAX_ZOOM + 1} each marker on its own), \`paths\` and ` +
    '`polygons` (simplified per zoom); names in the negotiated language. A tile holds the markers within 60/512 of its width beyond its ' +
    'edges (across the antimeridian too), so a map draws a marker on an edge whole. A tile with nothing in it is 200 with an empty body.',
  tag: 'Maps',
  pathParams: { ...mapIdPath, ...tilePathParams },
  pathCheck: tileGridErrors,
  query: tileQuery,
  contentType: MVT_TYPE,
  response: v.instance(Uint8Array),
  errors: [404],
  handle({ params, query, model, language }) {
    const { map, version } = findMapVersion(model, params.map_id, query.version_id);
    const lang = oneLanguage(language, map.id);
    return new MediaReply(versionTiles(model, version).tile(params.z, params.x, params.y, lang, query.tags));
  },
});

/** A MapLibre style layer. */
type StyleLayer = Record<string, unknown>;

/** The layers drawing the map's tiles: polygons, paths, clusters sized by count, markers. */
function poiLayers(): StyleLayer[] {
  const color = ['coalesce', ['get', 'color'], NO_CATEGORY_COLOR];
  return [
    { id: 'polygons-fill', type: 'fill', source: 'pois', 'source-layer': 'polygons', paint: { 'fill-color': color, 'fill-opacity': 0.15 } },
    { id: 'polygons-line', type: 'line', source: 'pois', 'source-layer': 'polygons', paint: { 'line-color': color, 'line-width': 1.5 } },
    { id: 'paths', type: 'line', source: 'pois', 'source-layer': 'paths', layout: { 'line-cap': 'round', 'line-join': 'round' },
      paint: { 'line-color': color, 'line-width': 3, 'line-opacity': 0.8 } },
    { id: 'clusters', type: 'circle', source: 'pois', 'source-layer': 'markers', filter: ['==', ['get', 'cluster'], true],
      paint: { 'circle-color': color, 'circle-opacity': 0.85, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2,
        'circle-radius': ['interpolate', ['linear'], ['get', 'point_count'], 2, 12, 100, 20, 1000, 28] } },
    { id: 'markers', type: 'circle', source: 'pois', 'source-layer': 'markers', filter: ['!=', ['get', 'cluster'], true],
      paint: { 'circle-color': color, 'circle-radius': 7, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 } },
  ];
}

/** GET /maps/:map_id/style.json */
export const mapStyle = defineRoute({
  path: '/maps/:map_id/style.json',
  oneLanguage: true,
  operationId: 'getMapStyle',
  summary: 'A MapLibre style over the map\'s vector tiles (and the served basemap, when there is one)',
  description: 'MapLibre style specification version 8: one URL for a MapLibre app. The POI source is this map\'s TileJSON (with the same ' +
    '`version_id`, `tags` and language); polygons, paths, clusters (circles sized by count) and markers are coloured by top-level category. ' +
    'With a basemap served (`--basemap`) its land, water, roads and buildings are drawn under them. The style names no glyphs or sprite, ' +
    'so it draws no text or icons: add your own to label them.',
  tag: 'Maps',
  pathParams: mapIdPath,
  query: tileQuery,
  response: v.strictObject({
    version: v.literal(8), name: v.string(), center: v.array(v.number()), zoom: v.number(),
    sources: v.record(v.string(), StyleSourceSchema), layers: v.array(StyleLayerSchema),
  }),
  errors: [404],
  async handle({ params, query, model, language, publicUrl, basemap }) {
    const { map } = findMapVersion(model, params.map_id, query.version_id);
    const lang = oneLanguage(language, map.id);
    const data = map.doc.map_data;
    const base = basemap ? basemapStyle(await basemap.info(), publicUrl) : { sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#f3f1e7' } }] };
    return {
      version: 8 as const,
      name: map.doc.name.in(lang),
      center: [data.center.lng, data.center.lat],
      zoom: data.zoom,
      sources: { ...base.sources, pois: { type: 'vector', url: `${publicUrl}/maps/${map.id}/tiles.json?${tileSearch(query, lang)}` } },
      layers: [...base.layers, ...poiLayers()],
    };
  },
});

/** The tile routes. */
export const tileRoutes = [mapTileJson, mapTile, mapStyle];
