/**
 * The operator's basemap (`--basemap FILE.pmtiles`): GET /basemap.json (TileJSON 3.0.0 of the archive) and
 * /basemap/{z}/{x}/{y}.{mvt|png|jpg|webp|avif} (its tiles, read from the archive and served uncompressed, under this
 * service's origin, so the pages, a kiosk and a MapLibre style need nothing else). Without a basemap they are 404.
 */
import * as v from 'valibot';
import { layers as protomapsLayers, namedFlavor } from '@protomaps/basemaps';
import type { ArchiveInfo, PmtilesArchive } from '../geo/pmtiles-archive.ts';
import { HttpError, notFound } from '../http/errors.ts';
import { defineRoute, MediaReply, type RouteSpec } from '../http/route.ts';
import { MVT_TYPE } from '../geo/vector-tiles.ts';
import { tileGridErrors, tilePathParams } from './shared.ts';

/** The archive, or 404 when none is served. */
function served(basemap: PmtilesArchive | null): PmtilesArchive {
  if (!basemap) throw notFound('A basemap (this service serves one when started with --basemap FILE.pmtiles)');
  return basemap;
}

/**
 * The Protomaps basemap layers the pages draw a vector archive from: those protomaps-leaflet's "light" flavour has paint
 * or label rules for (its `dataLayer`s; tests/basemap.test.ts reads them from the package). `earth` is the land: an
 * archive without it has its land drawn as the background.
 */
export const PAGES_BASEMAP_LAYERS = ['earth', 'landcover', 'landuse', 'water', 'roads', 'buildings', 'boundaries', 'places'] as const;

/**
 * A warning for the operator, or null: a vector archive whose metadata lists its layers, `earth` not among them, is
 * not in the Protomaps basemap's layers (an OpenMapTiles or Shortbread extract, say), so the pages draw its land as
 * their background and little or nothing else of it. It is still served under /basemap, for clients with a style of
 * their own. An archive that lists no layers is taken as it is: what it holds cannot be told.
 */
export function basemapLayersWarning(info: ArchiveInfo): string | null {
  const ids = info.layers.map((layer) => layer.id);
  if (info.kind !== 'vector' || ids.length === 0 || ids.includes('earth')) return null;
  const drawn = ids.filter((id) => (PAGES_BASEMAP_LAYERS as readonly string[]).includes(id));
  return `the basemap's vector layers (${ids.join(', ')}) are not the Protomaps basemap's, which the explorer and the kiosk draw ` +
    `(${PAGES_BASEMAP_LAYERS.join(', ')}): with no earth layer they will show only a background under the content` +
    `${drawn.length > 0 ? `, and of this archive at most its ${drawn.join(', ')}` : ''}. It is still served under /basemap, for clients with a ` +
    'style of their own; for the pages, cut the region from a Protomaps build (docs/operating.md)';
}

/** The tile URL template of the archive under the public URL. */
export function basemapTiles(info: ArchiveInfo, publicUrl: string): string {
  return `${publicUrl}/basemap/{z}/{x}/{y}.${info.suffix}`;
}

/**
 * The basemap's sources and layers in a MapLibre style: a vector archive drawn with the Protomaps basemap's "light"
 * layers (land, water, landuse, roads, buildings, boundaries: its label layers need glyphs, which the style does not
 * name), a raster archive as it is.
 */
export function basemapStyle(info: ArchiveInfo, publicUrl: string): { sources: Record<string, unknown>; layers: Record<string, unknown>[] } {
  const source = { type: info.kind, tiles: [basemapTiles(info, publicUrl)], minzoom: info.minZoom, maxzoom: info.maxZoom, attribution: info.attribution,
    ...(info.kind === 'raster' ? { tileSize: 256 } : {}) };
  const layers = info.kind === 'raster'
    ? [{ id: 'basemap', type: 'raster', source: 'basemap' }]
    : (protomapsLayers('basemap', namedFlavor('light')) as unknown as Record<string, unknown>[]).filter((layer) => layer.type !== 'symbol');
  return { sources: { basemap: source }, layers };
}

/** GET /basemap.json */
export const basemapTileJson = defineRoute({
  path: '/basemap.json',
  operationId: 'getBasemapTileJson',
  summary: 'The served basemap described as TileJSON 3.0.0',
  description: 'The operator\'s PMTiles archive (`--basemap`): its tile URL template under the public URL, zooms, bounds and attribution, ' +
    'and the vector layers its metadata lists, each with the fields it names (`{}` when it names none). ' +
    '404 when no basemap is served.',
  tag: 'Maps',
  pathParams: {},
  query: {},
  texts: false,
  response: v.strictObject({
    tilejson: v.literal('3.0.0'), name: v.string(), scheme: v.literal('xyz'), tiles: v.array(v.string()), minzoom: v.number(), maxzoom: v.number(),
    bounds: v.array(v.number()), center: v.array(v.number()), attribution: v.string(), format: v.string(),
    vector_layers: v.array(v.strictObject({ id: v.string(), fields: v.record(v.string(), v.string()) })),
  }),
  errors: [404],
  async handle({ basemap, publicUrl }) {
    const info = await served(basemap).info();
    return {
      tilejson: '3.0.0' as const, name: info.name, scheme: 'xyz' as const, tiles: [basemapTiles(info, publicUrl)],
      minzoom: info.minZoom, maxzoom: info.maxZoom, bounds: info.bounds, center: info.center, attribution: info.attribution, format: info.suffix,
      vector_layers: info.layers,
    };
  },
});

const SUFFIXES = {
  mvt: MVT_TYPE, png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp', avif: 'image/avif',
} as const;

/** GET /basemap/{z}/{x}/{y}.{suffix}: one route per tile format, so each declares its media type. */
function basemapTileRoute(suffix: keyof typeof SUFFIXES): RouteSpec {
  return defineRoute({
    path: `/basemap/:z/:x/:y.${suffix}`,
    operationId: `getBasemapTile${suffix[0].toUpperCase()}${suffix.slice(1)}`,
    summary: `One tile of the served basemap, when its tiles are ${suffix === 'mvt' ? 'vector tiles' : suffix.toUpperCase()}`,
    description: 'Read from the archive and sent uncompressed (a vector tile is compressed like every answer). A vector tile the archive has ' +
      'not got is 200 with an empty body, as map SDKs expect; a raster one is 404. The suffix must be the archive\'s (`format` in /basemap.json).',
    tag: 'Maps',
    pathParams: tilePathParams,
    pathCheck: tileGridErrors,
    query: {},
    texts: false,
    contentType: SUFFIXES[suffix],
    response: v.instance(Uint8Array),
    errors: [404],
    async handle({ params, basemap }) {
      const archive = served(basemap);
      const info = await archive.info();
      if (info.suffix !== suffix) throw notFound(`A .${suffix} basemap (the basemap served has .${info.suffix} tiles)`);
      const { z, x, y } = params;
      const tile = await archive.tile(z, x, y);
      if (tile) return new MediaReply(tile);
      if (info.kind === 'vector') return new MediaReply(new Uint8Array(0));
      throw new HttpError(404, `The basemap has no tile ${z}/${x}/${y}.`);
    },
  }) as unknown as RouteSpec;
}

/** The basemap routes. */
export const basemapRoutes: RouteSpec[] = [basemapTileJson as unknown as RouteSpec, ...(Object.keys(SUFFIXES) as (keyof typeof SUFFIXES)[]).map(basemapTileRoute)];
