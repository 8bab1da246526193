/**
 * The files the pages load, every one served by the service itself under `<base path>/assets/<name>`: Leaflet,
 * protomaps-leaflet (vector tiles in Leaflet), the Maki icons, topojson-client and the world-atlas land, coastlines
 * and borders, the Redoc bundle, and the pages' own scripts and
 * style sheet (src/pages/client/). In a checkout they are read from node_modules and src/; the single binary
 * embeds them (scripts/build-binary.ts stages them as one file, src/serve/binary.ts hands it over).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** JavaScript, CSS and JSON content types. */
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const JSON_DATA = 'application/json; charset=utf-8';

/** Every asset: the name it is served as, the file it comes from (relative to the repository root) and its type. */
export const PAGE_ASSETS = {
  'leaflet.js': { file: 'node_modules/leaflet/dist/leaflet.js', type: JS },
  'leaflet.css': { file: 'node_modules/leaflet/dist/leaflet.css', type: CSS },
  'topojson-client.js': { file: 'node_modules/topojson-client/dist/topojson-client.min.js', type: JS },
  'countries-50m.json': { file: 'node_modules/world-atlas/countries-50m.json', type: JSON_DATA },
  'land-10m.json': { file: 'node_modules/world-atlas/land-10m.json', type: JSON_DATA },
  'land-110m.json': { file: 'node_modules/world-atlas/land-110m.json', type: JSON_DATA },
  'protomaps-leaflet.js': { file: 'node_modules/protomaps-leaflet/dist/protomaps-leaflet.js', type: JS },
  'maki.js': { file: 'node_modules/@mapbox/maki/browser.esm.js', type: JS },
  'redoc.js': { file: 'node_modules/redoc/bundles/redoc.standalone.js', type: JS },
  'explore.js': { file: 'src/pages/client/explore.js', type: JS },
  'docs.js': { file: 'src/pages/client/docs.js', type: JS },
  'site.css': { file: 'src/pages/client/site.css', type: CSS },
} as const;

/** The name of an asset. */
export type AssetName = keyof typeof PAGE_ASSETS;

/** The text of every asset by name. */
export type AssetTexts = Record<AssetName, string>;

/** Loads every asset's text: from the checkout's files by default, from the binary's embedded copy there. */
export type AssetLoader = () => Promise<AssetTexts>;

/**
 * The one change made to a served library: Redoc's sidebar always shows the Redocly logo from its CDN, which would be
 * the only request a page makes beyond this service (and which the CSP refuses). It gets an empty image instead, which
 * Redoc's own error handler hides. A Redoc upgrade that moves the URL shows in the browser test, which records every
 * request the docs page makes.
 */
export function patchAssets(texts: AssetTexts): AssetTexts {
  return { ...texts, 'redoc.js': texts['redoc.js'].replaceAll('https://cdn.redoc.ly/redoc/logo-mini.svg', 'data:,') };
}

/** The repository root of this checkout. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Reads every asset from the checkout (node_modules and src/pages/client/). */
export const readAssetFiles: AssetLoader = async () => {
  const names = Object.keys(PAGE_ASSETS) as AssetName[];
  const texts = await Promise.all(names.map((name) => readFile(ROOT + PAGE_ASSETS[name].file, 'utf8')));
  return Object.fromEntries(names.map((name, i) => [name, texts[i]])) as AssetTexts;
};
