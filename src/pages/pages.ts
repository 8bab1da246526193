/**
 * The pages for people, beside the API: `/` (what this service serves), `/explore` (a map explorer that needs no
 * internet), `/docs` (the API reference, rendered from /openapi.json) and the files they load, `/assets/<name>`.
 * With a kiosk map set, `/` is the explorer in kiosk mode on that map. All of them live under the base path,
 * like the API, and their scripts call the API under it.
 *
 * Pages are not API endpoints: they are not in /openapi.json. The HTML is rendered from the content version
 * (the maps and their published versions, which no API endpoint lists), kept until the content changes, and sent
 * with `Cache-Control: no-cache`; an asset asked for with its `?v=` fingerprint is immutable. Every page answer
 * carries a Content-Security-Policy that lets it load only from the service's own origin (and the operator's
 * tile server, when one is set).
 */
import type { ReadModel } from '../content/model/read-model.ts';
import { declareArea, FAR_KM } from '../content/bundle/check.ts';
import { hash53 } from '../utils/hash.ts';
import { PreparedBody } from '../http/response-cache.ts';
import { pageCsp } from '../http/page-policy.ts';
import { documentHead, escapeHtml, jsonBlock } from '../utils/html.ts';
import { kioskWordsFor } from './kiosk-words.ts';
import type { PmtilesArchive } from '../geo/pmtiles-archive.ts';
import { CLUSTER_MAX_ZOOM } from '../content/model/map-tiles.ts';
import { LAND_MAX_ZOOM, LandTiles, mergeRegions, regionOf } from '../geo/land-tiles.ts';
import { beyondGrid, MAX_TILE_ZOOM, MVT_TYPE } from '../geo/vector-tiles.ts';
import { Lru } from '../utils/lru.ts';
import { PAGE_ASSETS, patchAssets, readAssetFiles, type AssetLoader, type AssetName, type AssetTexts } from './assets.ts';

/** What the pages are configured with. */
export interface PageOptions {
  /** A map id: `/` is then the kiosk on that map. */
  kiosk?: string;
  /** A raster tile URL template (`{z}/{x}/{y}`) the explorer draws under the content; default none (the offline base). */
  tiles?: string;
  /** Where the assets come from; default the checkout's files. */
  assets?: AssetLoader;
  /** The service's public URL (links a visitor takes elsewhere: a calendar subscription); default from the base path. */
  publicUrl?: string;
  /**
   * The public URL the operator set (`--public-url`), under which the kiosk's QR codes of the service's own pages
   * point; without one the kiosk shows none of those (`publicUrl` would then be this machine's, which no phone reaches).
   */
  shareUrl?: string;
  /** The operator's basemap (`--basemap`), drawn under the maps instead of `tiles` or the offline base. */
  basemap?: PmtilesArchive;
  /** The kiosk's "you are here" point (`--kiosk-here`). */
  here?: { lat: number; lng: number };
  /** The server's fixed clock (`--fixed-time`), which the pages then read "now" from too. */
  now?: string;
}

/** The page paths, below the base path. */
export const PAGE_PATHS = ['/', '/explore', '/docs'] as const;

/** The service's name on its pages. */
const TITLE = 'Destination map content service';

/** Land tiles kept answered (each a few kilobytes at most). */
const KEPT_LAND_TILES = 2048;

/** QR codes kept made, and the longest link one is made for. */
const KEPT_QR_CODES = 256;
const MAX_QR_TEXT = 1000;

/**
 * What the content does not bear out of the kiosk's settings, said to the operator when content is loaded: a kiosk
 * map that is not an enabled map of it (`/` is then the home page), a "you are here" more than FAR_KM from the kiosk
 * map's area (its bounds, else its centre, as `check` measures POIs), and, when the point with its two numbers swapped
 * lies in that area, that they look swapped (`--kiosk-here` is lat,lng).
 */
export function kioskWarnings(kiosk: string | undefined, here: { lat: number; lng: number } | undefined, model: ReadModel): string[] {
  if (!kiosk) return [];
  const map = model.maps.get(kiosk);
  if (!map) return [`kiosk ${kiosk} is not an enabled map of this content: / shows the home page instead`];
  const declared = here ? declareArea(map.doc as unknown as Record<string, unknown>) : null;
  if (!here || !declared) return [];
  const km = declared.area.distanceKm(here.lat, here.lng);
  if (km <= FAR_KM) return [];
  const swapped = declared.swapped.distanceKm(here.lat, here.lng) <= FAR_KM;
  return [`kiosk-here ${here.lat},${here.lng} is ${Math.round(km).toLocaleString('en')} km from the kiosk map's area (its ${declared.field})` +
    (swapped ? ': its latitude and longitude look swapped (it is lat,lng)' : '')];
}

/** A kiosk goes back to its start view after this long with no touch. */
export const KIOSK_IDLE_MS = 60_000;

/** The pages of one app. */
export interface Pages {
  /** True when `path` (below the base path) is a page or an asset's path. */
  has(path: string): boolean;
  /** The answer for a page or asset path, or null when it is neither (a 404 for the caller); only pages read the model. */
  answer(path: string, query: URLSearchParams, model: () => ReadModel): Promise<PreparedBody | null>;
}

/** Builds the pages served under `basePath`. */
export function createPages(basePath: string, options: PageOptions = {}): Pages {
  const load = options.assets ?? readAssetFiles;
  let assets: Promise<{ texts: AssetTexts; versions: Record<string, string> }> | null = null;
  const assetAnswers = new Map<string, PreparedBody>();
  let pagesModel: ReadModel | null = null;
  const pageAnswers = new Map<string, PreparedBody>();

  function loadAssets() {
    assets ??= load().then(patchAssets).then((texts) => ({
      texts,
      versions: Object.fromEntries(Object.entries(texts).map(([name, text]) => [name, hash53(text).toString(36)])),
    }));
    return assets;
  }

  /** The URL of an asset with its fingerprint. */
  const assetUrl = (name: AssetName, versions: Record<string, string>) => `${basePath}/assets/${name}?v=${versions[name]}`;

  /**
   * Land tiles (`land/{z}/{x}/{y}.mvt`), cut from the land assets for the regions of the enabled maps when first asked
   * for (and again when those regions change), and the answers made lately.
   */
  let land: { key: string; tiles: LandTiles } | null = null;
  const landAnswers = new Lru<string, PreparedBody>(KEPT_LAND_TILES);

  async function landTiles(model: ReadModel): Promise<LandTiles> {
    const regions = mergeRegions([...model.maps.values()].map((m) => regionOf(m.doc.map_data.center, m.doc.map_data.bounds)));
    const key = JSON.stringify(regions);
    if (land?.key !== key) {
      const { texts } = await loadAssets();
      land = { key, tiles: new LandTiles({ world: texts['land-110m.json'], detailed: texts['land-10m.json'] }, regions) };
      landAnswers.clear();
    }
    return land.tiles;
  }

  async function landTile(name: string, model: ReadModel): Promise<PreparedBody | null> {
    const m = /^land\/(\d{1,2})\/(\d{1,7})\/(\d{1,7})\.mvt$/.exec(name);
    if (!m) return null;
    const [z, x, y] = m.slice(1).map(Number);
    if (z > MAX_TILE_ZOOM || beyondGrid({ z, x, y }).length > 0) return null;
    const tiles = await landTiles(model);
    return landAnswers.get(name, () => new PreparedBody(tiles.tile(z, x, y), MVT_TYPE, 'page', {}));
  }

  /** QR codes (`qr.svg?text=<an http(s) URL>`) the kiosk shows, made here (the `qrcode` package, loaded when first needed). */
  const qrAnswers = new Lru<string, Promise<PreparedBody>>(KEPT_QR_CODES);
  function qrCode(query: URLSearchParams): Promise<PreparedBody> | null {
    const text = query.get('text') ?? '';
    if (text.length > MAX_QR_TEXT || !/^https?:\/\/[^\s]+$/i.test(text)) return null;
    return qrAnswers.get(text, async () => {
      const { default: QRCode } = await import('qrcode');
      const svg = await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
      return new PreparedBody(svg, 'image/svg+xml; charset=utf-8', 'page', {});
    });
  }

  async function asset(name: string, query: URLSearchParams): Promise<PreparedBody | null> {
    if (!Object.hasOwn(PAGE_ASSETS, name)) return null;
    const { texts, versions } = await loadAssets();
    const immutable = query.get('v') === versions[name];
    const key = `${name}:${immutable}`;
    let answer = assetAnswers.get(key);
    if (!answer) {
      const { type } = PAGE_ASSETS[name as AssetName];
      answer = new PreparedBody(texts[name as AssetName], type, immutable ? 'asset' : 'page', {});
      assetAnswers.set(key, answer);
    }
    return answer;
  }

  async function page(path: string, model: ReadModel): Promise<PreparedBody> {
    if (model !== pagesModel) {
      pagesModel = model;
      pageAnswers.clear();
    }
    let answer = pageAnswers.get(path);
    if (!answer) {
      const { versions } = await loadAssets();
      const url = (name: AssetName) => assetUrl(name, versions);
      const kioskMap = options.kiosk ? model.maps.get(options.kiosk) : undefined;
      const html = path === '/docs' ? docsPage(url)
        : path === '/explore' ? explorePage(model, url, false, await basemapConfig())
        : kioskMap ? explorePage(model, url, true, await basemapConfig())
        : landingPage(model, url, options.kiosk);
      const csp = pageCsp({ inlineStyles: path === '/docs', tiles: options.tiles });
      answer = new PreparedBody(html, 'text/html; charset=utf-8', 'page', { 'content-security-policy': csp });
      pageAnswers.set(path, answer);
    }
    return answer;
  }

  /** What the pages draw of the basemap: its kind, its tiles under the base path, its deepest zoom, attribution and bounds. */
  async function basemapConfig() {
    if (!options.basemap) return null;
    const info = await options.basemap.info();
    return { kind: info.kind, tiles: `${basePath}/basemap/{z}/{x}/{y}.${info.suffix}`, max_zoom: info.maxZoom, attribution: info.attribution, bounds: info.bounds };
  }

  /** The enabled maps, by name, with their publisher and published versions (oldest first). */
  function catalogue(model: ReadModel) {
    return [...model.maps.values()].sort((a, b) => String(a.doc.name).localeCompare(String(b.doc.name), 'en')).map((m) => ({
      id: m.id,
      name: String(m.doc.name),
      description: m.doc.description === undefined ? null : String(m.doc.description),
      publisher: String(model.publishers.get(m.publisherId)?.name ?? ''),
      current_version_id: m.currentVersionId,
      languages: m.languages.offered,
      versions: [...m.versionDocs.values()].sort((a, b) => (a.published_at ?? '').localeCompare(b.published_at ?? ''))
        .map((v) => ({ id: v.id, name: v.name })),
    }));
  }

  function head(title: string, styles: string[], scripts: string[]): string {
    return documentHead('en', title, [...styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`), ...scripts]);
  }

  function nav(current: string): string {
    const link = (href: string, label: string) =>
      `<a href="${escapeHtml(`${basePath}${href}`)}"${href === current ? ' aria-current="page"' : ''}>${label}</a>`;
    return `<nav class="links">${link('/', 'Home')}${link('/explore', 'Explorer')}${link('/docs', 'API reference')}` +
      `<a href="${escapeHtml(`${basePath}/openapi.json`)}">openapi.json</a></nav>`;
  }

  function landingPage(model: ReadModel, url: (name: AssetName) => string, kiosk: string | undefined): string {
    const maps = catalogue(model);
    const items = maps.map((m) => `<li class="map-card">
<h3><a href="${escapeHtml(`${basePath}/explore?map=${m.id}`)}">${escapeHtml(m.name)}</a></h3>
<p class="muted">${escapeHtml(m.publisher)}</p>
${m.description ? `<p>${escapeHtml(m.description)}</p>` : ''}
<p class="muted">Versions: ${m.versions.map((v) => escapeHtml(v.name) + (v.id === m.current_version_id ? ' (current)' : '')).join(', ')}</p>
</li>`).join('\n');
    const published = model.publishedAt ? `, published ${escapeHtml(model.publishedAt)}` : '';
    return `${head(TITLE, [url('site.css')], [])}
<body class="landing">
<header class="bar"><strong>${TITLE}</strong>${nav('/')}</header>
<main class="prose">
${kiosk ? `<p class="notice" role="alert">The kiosk map ${escapeHtml(kiosk)} is not an enabled map of this content; this is the home page instead.</p>` : ''}
<h1>${TITLE}</h1>
<p>A read-only HTTP JSON API for published destination maps: points of interest, categories and tags, events, lists.</p>
<p id="content-version">Content version <strong>${model.version}</strong> (<code>${escapeHtml(model.checksum.slice(0, 12))}</code>${published}).</p>
<h2>Maps</h2>
<ul class="maps">
${items}
</ul>
<h2>Look closer</h2>
<ul>
<li><a href="${escapeHtml(`${basePath}/explore`)}">Explorer</a>: the maps, their places and events, drawn with no internet.</li>
<li><a href="${escapeHtml(`${basePath}/docs`)}">API reference</a>: every endpoint, its parameters and answers.</li>
<li><a href="${escapeHtml(`${basePath}/openapi.json`)}">openapi.json</a>: the OpenAPI 3.1 document.</li>
<li><a href="${escapeHtml(`${basePath}/ogc`)}">OGC API – Features</a>: the maps as collections for QGIS, ArcGIS and GDAL (<code>OAPIF:</code> this address and <code>/ogc</code>).</li>
</ul>
</main>
</body>
</html>
`;
  }

  function explorePage(model: ReadModel, url: (name: AssetName) => string, kiosk: boolean, basemap: Awaited<ReturnType<typeof basemapConfig>>): string {
    const maps = catalogue(model).filter((m) => !kiosk || m.id === options.kiosk);
    const config = { base: basePath, public_url: options.publicUrl ?? `http://localhost${basePath}`, share_url: options.shareUrl ?? null, maps, world: url('countries-50m.json'),
      land: `${basePath}/assets/land/{z}/{x}/{y}.mvt`, land_max_zoom: LAND_MAX_ZOOM, maki: url('maki.js'), basemap, tiles: basemap ? null : options.tiles ?? null, kiosk, idle_ms: KIOSK_IDLE_MS,
      cluster_max_zoom: CLUSTER_MAX_ZOOM, here: kiosk ? options.here ?? null : null, now: options.now ?? null,
      // The page's own words: English, and in the kiosk those of each of its map's languages the kiosk speaks.
      words: kioskWordsFor(kiosk ? maps[0].languages : []) };
    const scripts = [
      `<script type="application/json" id="explorer-config">${jsonBlock(config)}</script>`,
      `<script defer src="${escapeHtml(url('leaflet.js'))}"></script>`,
      `<script defer src="${escapeHtml(url('protomaps-leaflet.js'))}"></script>`,
      `<script defer src="${escapeHtml(url('topojson-client.js'))}"></script>`,
      `<script type="module" src="${escapeHtml(url('explore.js'))}"></script>`,
    ];
    const title = kiosk ? maps[0].name : `Explorer · ${TITLE}`;
    const pickers = kiosk ? `<strong class="kiosk-title">${escapeHtml(maps[0].name)}</strong><div id="languages" class="languages" role="group" aria-label="Language"></div>` : `<strong>Explorer</strong>
<label>Map <select id="map-select"></select></label>
<label>Version <select id="version-select"></select></label>${nav('/explore')}`;
    const eventForm = kiosk ? '' : `<form id="event-form" class="event-form">
<label>From <input type="date" id="event-from"></label>
<label>To <input type="date" id="event-to"></label>
<label>Within <select id="event-radius"><option value="500">500 m</option><option value="1000">1 km</option><option value="2000" selected>2 km</option><option value="5000">5 km</option></select></label>
<button type="submit">List events</button>
</form>
<p class="muted"><a id="event-subscribe" href="#">Subscribe in a calendar app</a> to the events listed (this window and point).</p>
<p class="muted" id="event-hint">Click the map to list events near that point.</p>`;
    // The kiosk shows what is on today and this week first (a rail that scrolls on its own), and its top-level categories
    // below it, always in view; the explorer every category and tag, then the events.
    const categories = `<section class="choose"><h2 id="explore-title">${kiosk ? 'Explore' : 'Categories and tags'}</h2>
<p><button type="button" id="open-now" class="chip open-now" aria-pressed="false">Open now</button>${kiosk ? '' : `
<span class="muted" id="downloads" title="The places of the category chosen (every place without one), for a GPS device or Google Earth">Download places: <a id="pois-gpx" href="#">GPX</a> · <a id="pois-kml" href="#">KML</a></span>`}</p>
<div id="categories" class="chips" role="group" aria-label="Categories and tags"></div></section>\n`;
    const events = `<section class="rail"><h2 id="events-title">${kiosk ? 'Today and this week' : 'Events'}</h2>${eventForm}
<ol id="event-list" class="event-list" aria-live="polite"></ol></section>\n`;
    return `${head(title, [url('leaflet.css'), url('site.css')], scripts)}
<body class="${kiosk ? 'kiosk' : 'explore'}">
<header class="bar">${pickers}</header>
<main class="explorer">
<aside class="side" id="side">
${kiosk ? events + categories : categories + events}
</aside>
<div id="map" class="map"></div>
<article id="detail" class="detail" hidden aria-live="polite"><button type="button" id="detail-close" class="close" aria-label="Close">×</button><div id="detail-body"></div></article>
</main>
<p id="status" class="status" role="status"></p>
</body>
</html>
`;
  }

  function docsPage(url: (name: AssetName) => string): string {
    const scripts = [`<script defer src="${escapeHtml(url('redoc.js'))}"></script>`, `<script defer src="${escapeHtml(url('docs.js'))}"></script>`];
    return `${head(`API reference · ${TITLE}`, [url('site.css')], scripts)}
<body class="docs">
<header class="bar"><strong>API reference</strong>${nav('/docs')}</header>
<div id="redoc" data-spec="${escapeHtml(`${basePath}/openapi.json`)}"><p class="prose">Loading the API reference…</p></div>
</body>
</html>
`;
  }

  return {
    has: (path) => (PAGE_PATHS as readonly string[]).includes(path) || path.startsWith('/assets/'),
    async answer(path, query, model) {
      if (path.startsWith('/assets/land/')) return landTile(path.slice('/assets/'.length), model());
      if (path === '/assets/qr.svg') return qrCode(query);
      if (path.startsWith('/assets/')) return asset(path.slice('/assets/'.length), query);
      if (!(PAGE_PATHS as readonly string[]).includes(path)) return null;
      return page(path, model());
    },
  };
}
