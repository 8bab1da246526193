// The map explorer and the kiosk (src/pages/pages.ts renders their HTML). Plain JavaScript served as it is: it
// reads its settings from the page's JSON block, draws with Leaflet (the global L) the map's POIs from the service's
// own vector tiles (decoded by protomaps-leaflet, the global protomapsL: clusters, markers coloured and iconed by
// top-level category with Maki icons, paths and polygons), over the operator's basemap (--basemap) or an offline
// base of land, water and borders from world-atlas (topojson-client, the global topojson), and asks the public API
// for everything else, under the same base path as the page. Text from the API is only ever set as text, never as HTML.

const config = JSON.parse(document.getElementById('explorer-config').textContent);
const kiosk = config.kiosk;
const $ = (id) => document.getElementById(id);

/**
 * The page's own words, by language, from its config (src/pages/kiosk-words.ts): the kiosk's for each of its map's
 * languages it speaks, so a visitor who switches to Portuguese reads the rail, the dates and the detail card in
 * Portuguese; English only in the explorer, a tool for staff. Names, descriptions and the rest of the content come
 * from the API in the language chosen.
 */
const WORDS = config.words;

/** The language the kiosk's content is in: the one chosen, else the one the map's record was answered in. */
function shownLang() {
  return state.lang ?? state.shown ?? null;
}

/** A language tag's language alone (`pt-BR`: `pt`), as the page's words and a basemap's names are kept. */
function primary(tag) {
  return tag.toLowerCase().split('-')[0];
}

/** The language of the page's own words: the kiosk's content's, when it has words for it; else English. */
function wordsLang() {
  const tag = kiosk && shownLang() ? primary(shownLang()) : 'en';
  return Object.hasOwn(WORDS, tag) ? tag : 'en';
}

/** One of the page's own words, its `{0}`, `{1}` filled in with `values`. */
function t(key, ...values) {
  const word = WORDS[wordsLang()][key] ?? key;
  return word.replace(/\{(\d)\}/g, (_, i) => String(values[Number(i)]));
}

/** The locale dates are written in: the words' language (English as written in Britain: 30 June, 18:00). */
function locale() {
  return wordsLang() === 'en' ? 'en-GB' : shownLang();
}

/** Builds an element; children are nodes or strings (set as text). */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'onclick') node.addEventListener('click', value);
    else if (key === 'className') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

/** GET of the API under the base path; parameters left empty are not sent. */
async function api(path, params = {}) {
  return (await apiAnswer(path, params)).body;
}

/** The same GET, with the language the answer is in (its Content-Language, or null). */
async function apiAnswer(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  if (state.lang && !query.has('lang')) query.set('lang', state.lang);
  const text = query.toString();
  const res = await fetch(`${config.base}${path}${text ? `?${text}` : ''}`, { headers: { accept: 'application/json' } });
  const body = await res.json();
  if (!res.ok) throw new Error(body.detail || body.title || `HTTP ${res.status}`);
  return { body, lang: res.headers.get('content-language') };
}

function setStatus(text, ...extra) {
  $('status').replaceChildren(text, ...extra);
}

const state = {
  mapId: null, versionId: null, record: null, categories: [], counts: new Map(), selected: null, near: null, startView: null,
  /** The language asked for (the kiosk's language switch), or null for the browser's. */
  lang: null,
  /** POI id -> when it closes (null: not within a year), for the POIs open now (current version only); null before it is known. */
  openNow: null,
  /** Only the places open now are drawn. */
  openOnly: false,
};

/** How often what is open now is asked again. */
const OPEN_NOW_REFRESH_MS = 60_000;

/** The closest zoom the world-atlas borders (1:50m) and land (1:10m) are drawn at. */
const BORDERS_MAX_ZOOM = 10;
const LAND_MAX_ZOOM = config.land_max_zoom;

const map = L.map('map', { zoomSnap: 0.5, attributionControl: true, maxZoom: 19 });
map.attributionControl.setPrefix(false);
// The base in a pane of its own, under the content's (overlayPane, z-index 400), whenever it is shown again.
map.createPane('base').style.zIndex = '350';
// The POIs' tiles above the paths and areas of the overlay pane, under the highlight and the popups.
map.createPane('pois').style.zIndex = '450';
map.createPane('highlight').style.zIndex = '460';
const baseLayer = L.layerGroup().addTo(map);
const landLayer = L.layerGroup().addTo(map);
/** The places open now, drawn from their records while only those are shown (the tiles hold every place). */
const markerLayer = L.layerGroup().addTo(map);
const highlightLayer = L.layerGroup().addTo(map);
let nearCircle = null;
let hereMarker = null;
// A handle for tests and the console.
window.explorer = { map, state, hitShape: (latlng) => hitShape(latlng), loading: () => Boolean(poiLayer?.isLoading()) };

/**
 * The base: the operator's basemap (a PMTiles archive the service serves under /basemap: vector tiles drawn by
 * protomaps-leaflet, or raster tiles), else the operator's raster tiles (--tiles), else the offline base: land and
 * water from Natural Earth's 1:10m land and borders from its 1:50m countries (world-atlas).
 */
async function drawBase() {
  const basemap = config.basemap;
  if (basemap) {
    // Natural Earth's land under the archive, on the sea's colour: beyond the region the archive covers the coast
    // still shows. The archive's tiles are asked for within its bounds only.
    map.createPane('under').style.zIndex = '150';
    landLayer.addLayer(new LandTiles({ pane: 'under', tileSize: 256, maxNativeZoom: config.land_max_zoom, maxZoom: 19 }));
    map.attributionControl.addAttribution('Land: Natural Earth');
    drawBasemap();
    document.body.dataset.basemap = basemap.kind;
    return;
  }
  if (config.tiles) {
    L.tileLayer(config.tiles, { maxZoom: 20 }).addTo(map);
    return;
  }
  // Land from the service's land tiles (Natural Earth 1:10m), water being the map's own ground; borders from 1:50m.
  landLayer.addLayer(new LandTiles({ pane: 'base', tileSize: 256, maxNativeZoom: config.land_max_zoom, maxZoom: 19 }));
  map.attributionControl.addAttribution('Land, coastlines and borders: Natural Earth');
  map.on('zoomend', showWorldAtScale);
  showWorldAtScale();
  const world = await fetch(config.world).then((r) => r.json());
  const borders = topojson.mesh(world, world.objects.countries, (a, b) => a !== b);
  L.geoJSON(borders, { pane: 'base', interactive: false, style: { color: '#a58fb5', weight: 1, dashArray: '4 3', fill: false } }).addTo(baseLayer);
}

/** The operator's basemap layer drawn now, and the language of its names (a vector one is drawn again in another). */
let basemapLayer = null;
let basemapLang = null;

/** Draws the basemap: vector tiles with their place names in the page's language (as the map SDK has them), or raster. */
function drawBasemap() {
  const basemap = config.basemap;
  const [west, south, east, north] = basemap.bounds;
  const bounds = L.latLngBounds([south, west], [north, east]);
  const lang = kiosk && shownLang() ? primary(shownLang()) : 'en';
  if (basemapLayer && (basemap.kind !== 'vector' || lang === basemapLang)) return;
  basemapLang = lang;
  basemapLayer?.remove();
  basemapLayer = basemap.kind === 'vector'
    ? protomapsL.leafletLayer({ url: basemap.tiles, flavor: 'light', lang, maxDataZoom: basemap.max_zoom, attribution: basemap.attribution, pane: 'tilePane', bounds })
    : L.tileLayer(basemap.tiles, { maxNativeZoom: basemap.max_zoom, maxZoom: 19, attribution: basemap.attribution, bounds });
  basemapLayer.addTo(map);
}

/** Land tiles drawn on a canvas each: land in the ground's colour, water the map's own. */
const LandTiles = L.GridLayer.extend({
  createTile(coords, done) {
    const size = this.getTileSize().x;
    const ratio = window.devicePixelRatio || 1;
    const canvas = L.DomUtil.create('canvas', 'land-tile');
    canvas.width = canvas.height = size * ratio;
    const source = new protomapsL.ZxySource(config.land, false);
    source.get(coords, size).then((layers) => {
      const ctx = canvas.getContext('2d');
      ctx.scale(ratio, ratio);
      ctx.beginPath();
      for (const f of layers.get('land') ?? []) for (const ring of f.geom) ring.forEach((p, i) => (i === 0 ? ctx.moveTo(p.x, p.y) : ctx.lineTo(p.x, p.y)));
      ctx.fillStyle = '#f3f1e7';
      ctx.fill('evenodd');
      document.body.dataset.landTiles = String(Number(document.body.dataset.landTiles ?? 0) + 1);
      done(null, canvas);
    }, (err) => done(err, canvas));
    return canvas;
  },
});

/**
 * Natural Earth's borders are off by a kilometre or more and its land is good to about a city's scale: the borders
 * are drawn up to zoom 10, the land and water up to zoom 14; closer in, the map's own areas and paths are the base, on
 * a plain ground.
 */
function showWorldAtScale() {
  const zoom = map.getZoom();
  const far = zoom <= BORDERS_MAX_ZOOM;
  if (far !== map.hasLayer(baseLayer)) far ? baseLayer.addTo(map) : baseLayer.remove();
  const landShown = zoom <= LAND_MAX_ZOOM;
  if (landShown !== map.hasLayer(landLayer)) landShown ? landLayer.addTo(map) : landLayer.remove();
  map.getContainer().classList.toggle('near', !landShown);
}

/** A date and time in the map's time zone. */
function when(iso) {
  const zone = state.record?.time_zone;
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short', ...(zone ? { timeZone: zone } : {}) }).format(new Date(iso));
}

/** When an event is: "On now, until …" for one under way, its days for an all-day one, else its start on the map's clock. */
function eventWhen(e) {
  const now = config.now ? Date.parse(config.now) : Date.now();
  const zone = state.record?.time_zone;
  const dateOnly = (ms) => new Intl.DateTimeFormat(locale(), { day: 'numeric', month: 'long', ...(zone ? { timeZone: zone } : {}) }).format(new Date(ms));
  if (e.all_day) {
    const today = mapDate(now);
    if (e.start_date < today && e.end_date >= today) return t('onNowDate', dateOnly(Date.parse(`${e.end_date}T12:00:00Z`)));
  } else if (e.ends_at && Date.parse(e.starts_at) < now && Date.parse(e.ends_at) > now) {
    return Date.parse(e.ends_at) - now < 86_400_000
      ? t('onNowTime', new Intl.DateTimeFormat(locale(), { timeStyle: 'short', ...(zone ? { timeZone: zone } : {}) }).format(new Date(e.ends_at)))
      : t('onNowDate', dateOnly(Date.parse(e.ends_at)));
  }
  if (!e.all_day) return when(e.starts_at);
  const day = (date) => new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
  return e.start_date === e.end_date ? day(e.start_date) : `${day(e.start_date)} – ${day(e.end_date)}`;
}

/** An event's status in words, for one that is not simply on (null when scheduled). */
function statusText(e) {
  if (e.status === 'cancelled') return t('cancelled');
  if (e.status === 'postponed') return t('postponed');
  if (e.status === 'moved_online') return t('movedOnline');
  if (e.status === 'rescheduled') return e.previous_start ? t('rescheduledFrom', when(e.previous_start)) : t('rescheduled');
  return null;
}

/** An event's button in a list: its title, when it is, and its status when it is not simply on. */
function eventButton(e, detail) {
  const status = statusText(e);
  return el('li', {}, el('button', { type: 'button', className: `event status-${e.status}`, dataset: { id: e.id }, onclick: () => openEvent(e.id) },
    el('strong', {}, e.title), el('span', { className: 'muted' }, [eventWhen(e), detail, status].filter(Boolean).join(' · '))));
}

/** Every category id at or below `id`: a category stands for its descendants, as in the API. */
function subtree(id) {
  const ids = new Set([id]);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of state.categories) if (c.parent_id && ids.has(c.parent_id) && !ids.has(c.id)) { ids.add(c.id); grew = true; }
  }
  return ids;
}

function fillPickers() {
  if (kiosk) return;
  const mapSelect = $('map-select');
  mapSelect.replaceChildren(...config.maps.map((m) => el('option', { value: m.id }, `${m.name} (${m.publisher})`)));
  mapSelect.value = state.mapId;
  const entry = config.maps.find((m) => m.id === state.mapId);
  $('version-select').replaceChildren(...entry.versions.map((v) => el('option', { value: v.id }, v.id === entry.current_version_id ? `${v.name} (current)` : v.name)));
  $('version-select').value = state.versionId;
}

/** Loads a map version through /maps/:id and draws it. */
async function loadMap(mapId, versionId, { keepView = false } = {}) {
  const entry = config.maps.find((m) => m.id === mapId) ?? config.maps[0];
  if (!entry) { setStatus('No enabled map is published.'); return; }
  state.mapId = entry.id;
  state.versionId = versionId && entry.versions.some((v) => v.id === versionId) ? versionId : entry.current_version_id;
  fillPickers();
  if (!kiosk) history.replaceState(null, '', `?map=${state.mapId}${state.versionId === entry.current_version_id ? '' : `&version=${state.versionId}`}`);
  setStatus(t('loading'));
  const loading = ++mapLoads;
  const { body: record, lang: answeredIn } = await apiAnswer(`/maps/${state.mapId}`, { version_id: state.versionId, info: true, map_data: true, all_categories: true, tag_counts: true });
  // A later load (another language chosen, or a reset) has been asked for since: its answer is the one shown.
  if (loading !== mapLoads) return;
  state.record = record;
  state.shown = answeredIn;
  showWords();
  state.categories = record.all_categories;
  state.counts = new Map(record.tag_counts.map((c) => [c.id, c.count]));
  state.selected = null;
  state.startView = startView(record);
  // Another language of the same map keeps the view the visitor is looking at.
  if (!keepView) map.setView(state.startView.center, state.startView.zoom, { animate: false });
  if (record.map_data?.min_zoom !== undefined) map.setMinZoom(Math.min(record.map_data.min_zoom, 3));
  state.openNow = null;
  const drawn = drawPois();
  drawCategories(record.tag_counts);
  drawLanguages(entry);
  closeDetail();
  // Ready once the places of the start view are drawn from their tiles and the events are listed. What is open now is
  // asked for beside them on a map of a few thousand places (a place's detail says it), and on a larger one only when
  // the "Open now" button asks (its places would be tens of thousands of records).
  if (!largeMap()) state.openNowLoading = loadOpenNow().catch(() => {}).finally(() => { state.openNowLoading = null; });
  await Promise.all([drawn, listEvents(), reportOutside()]);
  document.body.dataset.map = state.mapId;
  document.body.dataset.version = state.versionId;
}

/** Loads of the map asked for so far: an answer to an earlier one than the last is dropped. */
let mapLoads = 0;

/** The map's start view: its centre and zoom (map_data), or the world. */
function startView(record) {
  const data = record.map_data;
  if (data?.center) return { center: [data.center.lat, data.center.lng], zoom: data.zoom ?? 13 };
  return { center: [20, 0], zoom: 2 };
}

/** The query of the places shown: the version (when not the current one), the category chosen and the language asked for. */
function shownQuery() {
  const query = new URLSearchParams();
  const entry = config.maps.find((m) => m.id === state.mapId);
  if (state.versionId !== entry?.current_version_id) query.set('version_id', state.versionId);
  if (state.selected) query.set('tags', state.selected);
  if (state.lang) query.set('lang', state.lang);
  const search = query.toString();
  return search ? `?${search}` : '';
}

/** The URL of one of the map's vector tiles, for the version, category and language shown. */
function tileUrl(z, x, y) {
  return `${config.base}/maps/${state.mapId}/tiles/${z}/${x}/${y}.mvt${shownQuery()}`;
}

/** A link that downloads a file of the API in the page's language, saved as `name`. */
function downloadLink(id, path, name, label) {
  const lang = state.lang ? `?lang=${encodeURIComponent(state.lang)}` : '';
  return el('a', { id, href: `${config.base}${path}${lang}`, download: name }, label);
}

/** Points the explorer's download links at the places shown, as GPX and KML (the kiosk has none). */
function linkDownloads() {
  if (kiosk) return;
  const category = state.selected ? state.categories.find((c) => c.id === state.selected)?.name : null;
  for (const format of ['gpx', 'kml']) {
    const link = $(`pois-${format}`);
    link.href = `${config.base}/maps/${state.mapId}/pois.${format}${shownQuery()}`;
    link.download = `${[state.record.name, category].filter(Boolean).join(' - ')}.${format}`;
  }
}

/** Maki icons (CC0, served by the service) as white images for the markers, by name, made when first drawn. */
const icons = new Map();
let maki = null;
/** Loaded beside the map's record: markers are drawn once both are there. */
const makiReady = import(config.maki).then((module) => { maki = module; }, () => {});
function iconUrl(name) {
  if (!maki) return null;
  if (!icons.has(name)) {
    const at = maki.layouts.indexOf(name);
    const svg = at < 0 ? null : maki.svgArray[at].replace('<svg ', '<svg fill="#fff" ');
    icons.set(name, svg ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` : null);
  }
  return icons.get(name);
}

/** Decoded tiles by `z/x/y` (the features of the POIs' layers, in pixels of a 256-pixel tile), for finding shapes under a click. */
const loadedTiles = new Map();
/** Markers drawn by tile (a cluster counts its markers), each feature drawn by the one tile it lies inside. */
const drawnCounts = new Map();

/**
 * The map's POIs from its vector tiles: per tile, a canvas with its polygons and paths, and a button per cluster
 * (its count; a click zooms in) and per marker (its category's colour and icon; a click opens it).
 */
const PoiTiles = L.GridLayer.extend({
  createTile(coords, done) {
    const tile = L.DomUtil.create('div', 'poi-tile');
    const size = this.getTileSize().x;
    const key = `${coords.z}/${coords.x}/${coords.y}`;
    const source = new protomapsL.ZxySource(tileUrl('{z}', '{x}', '{y}'), false);
    Promise.all([source.get(coords, size), makiReady]).then(([layers]) => {
      loadedTiles.set(key, layers);
      drawShapes(tile, layers, size);
      drawnCounts.set(key, drawPoints(tile, layers.get('markers') ?? [], size, coords));
      done(null, tile);
    }, (err) => done(err, tile));
    return tile;
  },
});
let poiLayer = null;

function drawShapes(tile, layers, size) {
  const polygons = layers.get('polygons') ?? [];
  const paths = layers.get('paths') ?? [];
  if (polygons.length === 0 && paths.length === 0) return;
  const ratio = window.devicePixelRatio || 1;
  const canvas = L.DomUtil.create('canvas', 'poi-shapes', tile);
  canvas.width = canvas.height = size * ratio;
  canvas.style.width = canvas.style.height = `${size}px`;
  const ctx = canvas.getContext('2d');
  ctx.scale(ratio, ratio);
  const trace = (geom, close) => {
    ctx.beginPath();
    for (const ring of geom) {
      ring.forEach((p, i) => (i === 0 ? ctx.moveTo(p.x, p.y) : ctx.lineTo(p.x, p.y)));
      if (close) ctx.closePath();
    }
  };
  for (const f of polygons) {
    trace(f.geom, true);
    ctx.fillStyle = `${f.props.color}26`;
    ctx.fill('evenodd');
    ctx.strokeStyle = f.props.color;
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }
  ctx.lineCap = ctx.lineJoin = 'round';
  for (const f of paths) {
    trace(f.geom, false);
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = kiosk ? 7 : 5;
    ctx.stroke();
    ctx.strokeStyle = f.props.color;
    ctx.lineWidth = kiosk ? 4 : 3;
    ctx.stroke();
  }
}

/** Draws the tile's clusters and markers that lie inside it (a neighbour draws those in its buffer); answers how many markers. */
function drawPoints(tile, features, size, coords) {
  let count = 0;
  for (const f of features) {
    const [[p]] = f.geom;
    if (p.x < 0 || p.y < 0 || p.x >= size || p.y >= size) continue;
    const at = map.unproject(L.point(coords.x * size + p.x, coords.y * size + p.y), coords.z);
    let button;
    if (f.props.cluster) {
      const n = Number(f.props.point_count);
      count += n;
      const diameter = Math.round((kiosk ? 48 : 30) + Math.min(24, 5 * Math.log10(n) * 2));
      button = L.DomUtil.create('button', 'poi-cluster leaflet-interactive', tile);
      button.textContent = f.props.label;
      button.style.setProperty('--size', `${diameter}px`);
      button.setAttribute('aria-label', t('zoomIn', n));
      button.dataset.count = String(n);
      button.addEventListener('click', () => map.setView(at, Math.min(map.getZoom() + 2, config.cluster_max_zoom + 1)));
    } else {
      count += 1;
      button = L.DomUtil.create('button', 'poi-dot leaflet-interactive', tile);
      const icon = iconUrl(f.props.icon);
      if (icon) button.append(el('img', { src: icon, alt: '' }));
      button.title = f.props.name;
      button.setAttribute('aria-label', f.props.name);
      button.dataset.id = f.props.id;
      // Places at the same spot are drawn over each other, at every zoom: a click lists them all to choose from.
      button.addEventListener('click', () => {
        const here = placesAt(features, p);
        if (here.length > 1) openPlacesHere(here);
        else void openPoiById(f.props.id);
      });
    }
    button.type = 'button';
    button.style.left = `${p.x}px`;
    button.style.top = `${p.y}px`;
    button.style.setProperty('--color', f.props.color);
    L.DomEvent.disableClickPropagation(button);
  }
  return count;
}

/** The single markers of a tile's features within 4 pixels of point `p` (those drawn under one another), each once. */
function placesAt(features, p) {
  const seen = new Map();
  for (const g of features) {
    const [[q]] = g.geom;
    if (!g.props.cluster && Math.abs(q.x - p.x) <= 4 && Math.abs(q.y - p.y) <= 4) seen.set(g.props.id, g.props.name);
  }
  return [...seen].map(([id, name]) => ({ id, name }));
}

/** The places at one spot of the map, to choose one from. */
function openPlacesHere(places) {
  openDetail(el('p', { className: 'kind' }, t('placesHere', places.length)),
    el('ol', { className: 'poi-list', id: 'places-here' }, ...places.map(({ id, name }) =>
      el('li', {}, el('button', { type: 'button', className: 'poi', onclick: () => void openPoiById(id) }, name)))));
}

/** The path or polygon under a point of the map (a path within a few pixels), from the tiles drawn, or null. */
function hitShape(latlng) {
  if (!poiLayer || !map.hasLayer(poiLayer)) return null;
  const size = poiLayer.getTileSize().x;
  const z = Math.round(map.getZoom());
  const p = map.project(latlng, z);
  const x = Math.floor(p.x / size);
  const y = Math.floor(p.y / size);
  const layers = loadedTiles.get(`${z}/${x}/${y}`);
  if (!layers) return null;
  const local = { x: p.x - x * size, y: p.y - y * size };
  const path = (layers.get('paths') ?? []).find((f) => protomapsL.pointMinDistToLines(local, f.geom) <= 6);
  if (path) return path.props.id;
  const polygon = (layers.get('polygons') ?? []).find((f) => protomapsL.pointInPolygon(local, f.geom));
  return polygon ? polygon.props.id : null;
}

/**
 * Draws the map's POIs: from its tiles (the category chosen), or the places open now from their records. Answers a
 * promise of the tiles in view drawn.
 */
function drawPois() {
  markerLayer.clearLayers();
  highlightLayer.clearLayers();
  linkDownloads();
  if (poiLayer) poiLayer.remove();
  loadedTiles.clear();
  drawnCounts.clear();
  const label = state.selected ? state.categories.find((c) => c.id === state.selected)?.name : null;
  if (state.openOnly) {
    const open = [...(state.openNowRecords ?? new Map()).values()].filter((poi) => !state.selected || poi.category_ids.some((id) => subtree(state.selected).has(id)));
    for (const poi of open) {
      const color = state.record?.branding?.primary_color ?? '#1f5fa8';
      const layer = poi.type === 'marker'
        ? L.circleMarker([poi.lat, poi.lng], { radius: kiosk ? 10 : 7, color: '#fff', weight: 2, fillColor: color, fillOpacity: 0.95, className: 'poi-marker open-marker', bubblingMouseEvents: false })
        : L.geoJSON(poi.geometry, { style: { color, weight: 3, fillOpacity: 0.2, className: 'poi-area open-marker' }, bubblingMouseEvents: false });
      layer.bindTooltip(poi.name);
      layer.on('click', () => openPoi(poi));
      layer.addTo(markerLayer);
    }
    document.body.dataset.markers = String(open.filter((poi) => poi.type === 'marker').length);
    setStatus(label ? t('openPlacesIn', open.length, label) : t('openPlaces', open.length));
    return Promise.resolve();
  }
  poiLayer = new PoiTiles({ pane: 'pois', tileSize: 256, maxNativeZoom: 19, updateWhenZooming: false, keepBuffer: 1 });
  poiLayer.on('tileunload', (e) => { const key = `${e.coords.z}/${e.coords.x}/${e.coords.y}`; loadedTiles.delete(key); drawnCounts.delete(key); });
  poiLayer.on('load', () => {
    const z = Math.round(map.getZoom());
    let shown = 0;
    for (const [key, n] of drawnCounts) if (key.startsWith(`${z}/`)) shown += n;
    document.body.dataset.markers = String(shown);
    document.body.dataset.tilesLoaded = String(Number(document.body.dataset.tilesLoaded ?? 0) + 1);
  });
  const layer = poiLayer;
  const drawn = new Promise((resolve) => layer.once('load', resolve));
  poiLayer.addTo(map);
  const count = state.selected ? state.counts.get(state.selected) ?? 0 : null;
  setStatus(label ? t('placesIn', count, label) : state.categories.length ? t('placesOf', state.record.name) : t('noPlacesOf', state.record.name));
  return drawn;
}

/** Fetches a POI's record (a marker, path or polygon) and opens it. */
async function openPoiById(id) {
  try {
    const { record } = await api(`/places-of-interest/id/${id}`);
    await openPoi(record);
  } catch (err) {
    setStatus(`Could not open the place: ${err.message}`);
  }
}

/**
 * Asks which POIs of the map are open now (`open_now=true` over every top-level category, page by page): the current
 * version only, as the route answers. Kept in state.openNow; the markers are drawn again when only open ones are shown.
 */
async function loadOpenNow() {
  const entry = config.maps.find((m) => m.id === state.mapId);
  if (!entry || state.versionId !== entry.current_version_id) { state.openNow = null; return; }
  // Every top-level item, a hundred at a time (the most `tags` takes).
  const tops = state.categories.filter((c) => !c.parent_id).map((c) => c.id);
  const open = new Map();
  const records = new Map();
  try {
    for (let t = 0; t < tops.length; t += 100) {
      const tags = tops.slice(t, t + 100).join(',');
      for (let start = 0; ;) {
        const page = await api(`/maps/${state.mapId}/pois`, { tags, open_now: true, start, end: start + 500 });
        for (const poi of page.items) { open.set(poi.id, poi.closes_at); records.set(poi.id, poi); }
        if (page.end >= page.total || page.items.length === 0) break;
        start = page.end;
      }
    }
  } catch (err) {
    $('open-now').title = `Could not ask what is open now: ${err.message}`;
    return;
  }
  state.openNow = open;
  state.openNowRecords = records;
  document.body.dataset.openNow = String(open.size);
  if (state.openOnly) drawPois();
}

/** "Open now · until 18:00" or "Closed now" for a POI with hours, from what is open now; null when that says nothing. */
function openText(poi) {
  if (!poi.hours || !state.openNow) return null;
  if (!state.openNow.has(poi.id)) return t('closedNow');
  const closes = state.openNow.get(poi.id);
  return closes ? t('openUntil', when(closes)) : t('openNow');
}

async function toggleOpenOnly() {
  state.openOnly = !state.openOnly;
  if (state.openOnly && state.openNow === null) {
    setStatus(t('askingOpen'));
    await (state.openNowLoading ?? loadOpenNow());
  }
  drawPois();
  $('open-now').setAttribute('aria-pressed', String(state.openOnly));
}

/** A map of more places than the explorer asks what is open now for without being asked (see loadMap). */
const OPEN_NOW_EAGER_LIMIT = 5_000;
function largeMap() {
  const tops = new Set(state.categories.filter((c) => !c.parent_id).map((c) => c.id));
  let places = 0;
  for (const [id, count] of state.counts) if (tops.has(id)) places += count;
  return places > OPEN_NOW_EAGER_LIMIT;
}

/**
 * The category chips: top-level categories shown, the categories below them and the tags folded under "More" (a map
 * with many would push the events off screen), each with its count; the kiosk shows top-level categories only.
 */
function drawCategories(counts) {
  const count = new Map(counts.map((c) => [c.id, c.count]));
  const rank = (c) => (c.kind === 'tag' ? 2 : c.parent_id ? 1 : 0);
  const shown = state.categories.filter((c) => count.get(c.id) > 0 && (!kiosk || rank(c) === 0));
  const chip = (c) => el('button', {
    type: 'button', className: `chip ${c.kind}${rank(c) === 0 ? ' top' : ''}`, 'aria-pressed': 'false', dataset: { id: c.id, kind: c.kind },
    onclick: () => selectCategory(state.selected === c.id ? null : c.id),
  }, c.name, el('span', { className: 'count' }, String(count.get(c.id))));
  const sorted = shown.sort((a, b) => rank(a) - rank(b));
  const tops = sorted.filter((c) => rank(c) === 0).map(chip);
  const more = sorted.filter((c) => rank(c) > 0).map(chip);
  $('categories').replaceChildren(...tops, ...(more.length ? [el('details', { className: 'more-chips' }, el('summary', {}, `More categories and tags (${more.length})`), el('div', { className: 'chips' }, ...more))] : []));
}

/** The kiosk's language switch: a button per language the map offers (none for a map in one language). */
function drawLanguages(entry) {
  const box = $('languages');
  if (!box) return;
  const offered = entry.languages ?? [];
  const current = shownLang() ?? offered[0];
  box.replaceChildren(...(offered.length > 1 ? offered.map((tag) => el('button', {
    type: 'button', className: 'chip lang', lang: tag, 'aria-pressed': String(tag === current),
    onclick: () => { state.lang = tag; showWords(); void loadMap(state.mapId, undefined, { keepView: true }); },
  }, new Intl.DisplayNames([tag], { type: 'language' }).of(tag) ?? tag)) : []));
}

/** The kiosk's "you are here" point (a setting), drawn over everything else. */
function drawHere() {
  if (!config.here || hereMarker) return;
  hereMarker = L.circleMarker([config.here.lat, config.here.lng], { radius: 11, color: '#fff', weight: 4, fillColor: '#d0021b', fillOpacity: 1, pane: 'highlight', className: 'you-are-here', interactive: false })
    .bindTooltip(t('here'), { permanent: true, direction: 'top', className: 'here-label' }).addTo(map);
}

function selectCategory(id) {
  state.selected = id;
  for (const chip of $('categories').querySelectorAll('button.chip')) chip.setAttribute('aria-pressed', String(chip.dataset.id === id));
  drawPois();
}

/** Lists events of the map: the date window and the point clicked, if any (the kiosk: its rail, below). */
async function listEvents() {
  if (kiosk) return listRail();
  const params = { map_id: state.mapId, limit: 25, from: $('event-from').value, to: $('event-to').value };
  if (state.near) Object.assign(params, { near: `${state.near.lat.toFixed(5)},${state.near.lng.toFixed(5)}`, radius_m: $('event-radius').value });
  const list = $('event-list');
  // The same filter as a feed a calendar app subscribes to (webcal: under the service's public URL).
  const { limit: _, ...filter } = params;
  const query = new URLSearchParams(Object.entries(filter).filter(([, value]) => value !== '' && value !== undefined));
  $('event-subscribe').href = `${config.public_url.replace(/^https?:/, 'webcal:')}/events.ics?${query}`;
  try {
    const page = await api('/events', params);
    list.replaceChildren(...page.events.map((e) => eventButton(e, e.event_type)));
    const where = state.near ? ` within ${$('event-radius').selectedOptions[0].text} of the point` : '';
    $('events-title').textContent = `Events: ${page.total}${where}`;
    list.dataset.total = String(page.total);
    if (page.events.length === 0) list.append(el('li', { className: 'muted' }, 'No events in this window.'));
  } catch (err) {
    list.replaceChildren(el('li', { className: 'error' }, err.message));
  }
}

/** The days the kiosk's rail covers: today and the six after it, on the map's clock. */
const RAIL_DAYS = 7;
/** How often the rail is asked again. */
const RAIL_REFRESH_MS = 5 * 60_000;
/** The most events the rail lists (it scrolls); beyond them it says how many more there are. */
const RAIL_LIMIT = 60;

/** The date (YYYY-MM-DD) of an instant on the map's clock. */
function mapDate(ms) {
  return new Intl.DateTimeFormat('en-CA', { timeZone: state.record?.time_zone ?? 'UTC' }).format(new Date(ms));
}

/** The map's offset from UTC at an instant, in minutes. */
function offsetAt(ms) {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: state.record?.time_zone ?? 'UTC', timeZoneName: 'longOffset' }).formatToParts(new Date(ms))
    .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const [, sign, hours, minutes] = /^GMT(?:([+-])(\d\d):(\d\d))?$/.exec(name) ?? [];
  return sign ? (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes)) : 0;
}

/**
 * The map's offset from UTC at a time of day on a date (its wall clock), as RFC 3339 writes it (`+01:00`): the wall
 * time is read as UTC, moved by the offset there, and the offset at that instant taken, so the day's own offset on
 * either side of a daylight-saving change, east of Greenwich as west of it.
 */
function mapOffset(date, time) {
  const wall = Date.parse(`${date}T${time}Z`);
  const offset = offsetAt(wall - offsetAt(wall) * 60_000);
  const abs = Math.abs(offset);
  return `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The date `days` after a date (YYYY-MM-DD), by the calendar. */
function addDays(date, days) {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/**
 * The kiosk's rail: what is on today and this week on the map's clock, under "Today" (under way, or starting today)
 * and "Later this week"; events already over are left out. The window is whole days, so the rail's question is the
 * same all day (the response cache answers it) and it is asked again at each reset and every few minutes.
 */
async function listRail() {
  const now = config.now ? Date.parse(config.now) : Date.now();
  const today = mapDate(now);
  const last = addDays(today, RAIL_DAYS - 1);
  const list = $('event-list');
  $('events-title').textContent = t('rail');
  try {
    const page = await api('/events', { map_id: state.mapId, from: `${today}T00:00:00${mapOffset(today, '00:00:00')}`, to: `${last}T23:59:59${mapOffset(last, '23:59:59')}`, limit: RAIL_LIMIT });
    const over = (e) => (e.all_day ? e.end_date < today : e.ends_at !== null && e.ends_at !== undefined && Date.parse(e.ends_at) <= now);
    const isToday = (e) => (e.all_day ? e.start_date <= today : mapDate(Date.parse(e.starts_at)) <= today);
    const on = page.events.filter((e) => !over(e));
    const day = (title, events, id) => (events.length ? [el('li', { className: 'day', id }, el('h3', {}, title)), ...events.map((e) => eventButton(e, e.event_type))] : []);
    list.replaceChildren(...day(t('today'), on.filter(isToday), 'rail-today'), ...day(t('later'), on.filter((e) => !isToday(e)), 'rail-later'));
    list.dataset.total = String(page.total);
    if (page.total > page.events.length) list.append(el('li', { className: 'muted', id: 'rail-more' }, t('more', page.total - page.events.length)));
    if (on.length === 0) list.append(el('li', { className: 'muted' }, t('nothing')));
  } catch (err) {
    list.replaceChildren(el('li', { className: 'error' }, err.message));
  }
}

/** The kiosk's own words in the language chosen: what the page's HTML and the map's controls say. */
function showWords() {
  if (!kiosk) return;
  document.documentElement.lang = shownLang() ?? 'en';
  $('open-now').textContent = t('openNow');
  $('explore-title').textContent = t('explore');
  $('events-title').textContent = t('rail');
  $('detail-close').setAttribute('aria-label', t('close'));
  hereMarker?.setTooltipContent(t('here'));
  if (config.basemap && basemapLayer) drawBasemap();
}

function openDetail(...children) {
  // Parts left out are null (replaceChildren would write them as the text "null").
  $('detail-body').replaceChildren(...children.filter((child) => child !== null && child !== undefined));
  $('detail').hidden = false;
}

function closeDetail() {
  $('detail').hidden = true;
  $('detail-body').replaceChildren();
  highlightLayer.clearLayers();
}

/** A definition list of the fields that are set. */
function facts(pairs) {
  return el('dl', {}, ...pairs.filter(([, value]) => value !== null && value !== undefined && value !== '').flatMap(([key, value]) => [el('dt', {}, key), el('dd', {}, String(value))]));
}

async function openPoi(poi) {
  const names = poi.category_ids.map((id) => state.categories.find((c) => c.id === id)?.name).filter(Boolean);
  const upcoming = el('ol', { className: 'event-list' }, el('li', { className: 'muted' }, t('loadingEvents')));
  openDetail(el('p', { className: 'kind' }, t(poi.type)), el('h2', {}, poi.name), poi.description ? el('p', {}, poi.description) : null,
    facts([[t('categories'), names.join(', ')], [t('address'), poi.address], [t('openNow'), openText(poi)], [t('hours'), poi.opening_hours],
      [t('osmHours'), poi.hours], [t('telephone'), poi.phone],
      [t('website'), poi.website], [t('difficulty'), poi.difficulty], [t('duration'), poi.duration_min ? `${poi.duration_min} min` : null],
      [t('where'), poi.type === 'marker' ? `${poi.lat}, ${poi.lng}` : null]]),
    // A link away from the kiosk would leave it on a page with no way back: its visitors take a QR code instead.
    kiosk ? null : el('p', {}, el('a', { id: 'poi-page', href: `${config.base}/${poi.type}s/${poi.id}.html` }, t('pageToShare'))),
    // A route to take along: a GPS device or hiking app reads GPX, Google Earth KML.
    poi.type === 'path' && !kiosk ? el('p', {}, 'Take it along: ', downloadLink('path-gpx', `/paths/${poi.id}.gpx`, `${poi.name}.gpx`, 'GPX'),
      ' · ', downloadLink('path-kml', `/paths/${poi.id}.kml`, `${poi.name}.kml`, 'KML'), ' (with its stops)') : null,
    phoneCode(poi.website || (config.share_url ? `${config.share_url}/${poi.type}s/${poi.id}.html` : '')),
    el('h3', {}, t('upcomingHere')), upcoming);
  highlight([poi]);
  try {
    const answer = await api('/events/upcoming-by-poi', { poi_ids: poi.id, limit_per_poi: 5 });
    const events = answer[poi.id] ?? [];
    upcoming.replaceChildren(...(events.length ? events.map((e) => eventButton(e)) : [el('li', { className: 'muted' }, t('none'))]));
  } catch (err) {
    upcoming.replaceChildren(el('li', { className: 'error' }, err.message));
  }
}

async function openEvent(id) {
  const event = await api(`/events/${id}`);
  // An occurrence of a series says how it repeats: the series' rule in words.
  const series = event.series_id ? await api(`/events/${event.series_id}`).catch(() => null) : null;
  const anchors = event.pois.map((poi) => el('li', {}, el('button', { type: 'button', className: 'poi', onclick: () => openPoi(poi) }, poi.name, el('span', { className: 'muted' }, ` · ${t(poi.type)}`))));
  const status = statusText(event);
  const offers = event.offers;
  const price = offers?.free ? t('free') : offers?.price != null ? `${offers.price} ${offers.currency ?? ''}`.trim() : event.price;
  openDetail(el('p', { className: 'kind' }, `${t('event')} · ${event.event_type}`), el('h2', { id: 'event-title' }, event.title),
    status ? el('p', { id: 'event-status', className: `event-status status-${event.status}` }, status) : null,
    event.description ? el('p', {}, event.description) : null,
    facts(event.all_day ? [[t('when'), eventWhen(event)]] : [[t('starts'), when(event.starts_at)], [t('ends'), event.ends_at ? when(event.ends_at) : null]]),
    facts([[t('repeats'), series?.recurrence?.text], [t('tags'), event.tags.join(', ')], [t('price'), price], [t('booking'), offers?.booking_url],
      [t('organizer'), event.organizer?.name], [t('online'), event.online_url], [t('accessibility'), event.accessibility.map((f) => f.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)).join(', ')],
      [t('moreInfo'), event.url]]),
    // A calendar file or a page would leave the kiosk with no way back: its visitors take a QR code instead.
    kiosk ? null : el('p', {}, el('a', { id: 'event-calendar', href: `${config.base}/events/${event.id}.ics`, download: `${event.id}.ics` }, t('addToCalendar')),
      series ? el('span', {}, ' · ', el('a', { id: 'series-calendar', href: `${config.base}/events/${series.id}.ics`, download: `${series.id}.ics` }, t('wholeSeries'))) : null,
      ' · ', el('a', { id: 'event-page', href: `${config.base}/events/${event.id}.html` }, t('pageToShare'))),
    phoneCode(event.url || (config.share_url ? `${config.share_url}/events/${event.id}.html` : '')),
    el('h3', {}, t('whereList', event.pois.length)), el('ol', { className: 'poi-list', id: 'event-pois' }, ...anchors));
  highlight(event.pois);
}

/**
 * The kiosk's QR code of where a place or event goes on a phone: its own site, else its page under the service's public
 * URL when one is set (`--public-url`: without it the page's address is this machine's, which no phone reaches); none
 * in the explorer.
 */
function phoneCode(url) {
  if (!kiosk || !/^https?:\/\//i.test(url)) return null;
  return el('figure', { className: 'qr' }, el('img', { src: `${config.base}/assets/qr.svg?text=${encodeURIComponent(url)}`, alt: t('qrOf', url), width: '160', height: '160' }),
    el('figcaption', {}, t('phone')));
}

/** Outlines some POIs over the others and brings them into view. */
function highlight(pois) {
  highlightLayer.clearLayers();
  const bounds = L.latLngBounds([]);
  for (const poi of pois) {
    const layer = poi.geometry
      ? L.geoJSON(poi.geometry, { style: { color: '#f2a900', weight: 4, fillOpacity: 0.2, className: 'poi-highlight' }, interactive: false })
      : L.circleMarker([poi.lat, poi.lng], { radius: 14, color: '#f2a900', weight: 4, fill: false, className: 'poi-highlight', interactive: false });
    layer.addTo(highlightLayer);
    bounds.extend(layer.getBounds ? layer.getBounds() : layer.getLatLng());
  }
  // Into view beside the detail card, which covers the right of the map.
  const card = $('detail').hidden ? 0 : $('detail').offsetWidth + 24;
  if (bounds.isValid()) map.fitBounds(bounds, { paddingTopLeft: [24, 24], paddingBottomRight: [card, 24], maxZoom: Math.max(map.getZoom(), 15) });
}

/**
 * Names the places that lie outside the map's own bounds (a swapped [lng, lat] lands far away), with a way to see
 * them: from the map's z0 tile, where a place far from the others is a marker of its own (a cluster is counted whole).
 */
async function reportOutside() {
  // Said to the staff who check a map in the explorer, not to a kiosk's visitors.
  const box = state.record.map_data?.bounds;
  if (!box || kiosk) return;
  const [west, south, east, north] = box;
  const size = 256;
  const layers = await new protomapsL.ZxySource(tileUrl('{z}', '{x}', '{y}'), false).get({ z: 0, x: 0, y: 0 }, size);
  const points = (layers.get('markers') ?? []).map((f) => ({ f, at: map.unproject(L.point(f.geom[0][0].x, f.geom[0][0].y), 0) }))
    .filter(({ f }) => f.geom[0][0].x >= 0 && f.geom[0][0].x < size);
  const count = (f) => (f.props.cluster ? Number(f.props.point_count) : 1);
  const total = points.reduce((sum, { f }) => sum + count(f), 0);
  // A z0 tile places a marker to 0.7 degrees (360 / 512): two degrees beyond the box, or a tenth of it, is outside.
  const padLng = Math.max((east - west) * 0.1, 2);
  const padLat = Math.max((north - south) * 0.1, 2);
  const outside = points.filter(({ at }) => at.lng < west - padLng || at.lng > east + padLng || at.lat < south - padLat || at.lat > north + padLat);
  if (outside.length === 0) return;
  const n = outside.reduce((sum, { f }) => sum + count(f), 0);
  const names = outside.filter(({ f }) => !f.props.cluster).slice(0, 5).map(({ f }) => f.props.name);
  const show = el('button', { type: 'button', onclick: () => map.fitBounds(L.latLngBounds([...outside.map(({ at }) => at), state.startView.center]).pad(0.1)) }, 'Show them');
  setStatus(`${n} of ${total} markers lie outside the map's bounds: ${names.join(', ')}. `, show);
}

map.on('click', (e) => {
  // A path or polygon under the click opens; elsewhere the explorer lists the events near the point.
  const shape = hitShape(e.latlng);
  if (shape) { void openPoiById(shape); return; }
  if (kiosk) return;
  state.near = e.latlng;
  nearCircle?.remove();
  nearCircle = L.circle(e.latlng, { radius: Number($('event-radius').value), color: '#333', weight: 1, dashArray: '3 3', fillOpacity: 0.05, interactive: false, className: 'near-circle' }).addTo(map);
  void listEvents();
});

$('detail-close').addEventListener('click', closeDetail);
$('open-now').addEventListener('click', toggleOpenOnly);
// What is open changes with the clock: asked again every minute (a kiosk runs all day).
setInterval(() => { if (!largeMap() || state.openOnly) void loadOpenNow().catch(() => {}); }, OPEN_NOW_REFRESH_MS);

if (!kiosk) {
  $('map-select').addEventListener('change', (e) => void loadMap(e.target.value));
  $('version-select').addEventListener('change', (e) => void loadMap(state.mapId, e.target.value));
  $('event-form').addEventListener('submit', (e) => {
    e.preventDefault();
    nearCircle?.setRadius(Number($('event-radius').value));
    void listEvents();
  });
} else {
  // The kiosk goes back to its start view after a minute with no touch.
  let idle = null;
  let resets = 0;
  const reset = () => {
    closeDetail();
    // The map again in the language it comes in unasked (loadMap puts the kiosk's words in it too).
    if (state.lang) {
      state.lang = null;
      void loadMap(state.mapId);
    }
    if (state.openOnly) toggleOpenOnly();
    selectCategory(null);
    map.setView(state.startView.center, state.startView.zoom, { animate: false });
    $('event-list').scrollTop = 0;
    document.body.dataset.resets = String(++resets);
    void listEvents();
  };
  const touched = () => {
    clearTimeout(idle);
    idle = setTimeout(reset, config.idle_ms);
  };
  for (const type of ['pointerdown', 'keydown', 'wheel', 'touchstart']) document.addEventListener(type, touched, { passive: true, capture: true });
  touched();
  // The rail follows the clock: what is over leaves it, and at midnight the week moves on.
  setInterval(() => void listEvents(), RAIL_REFRESH_MS);
}

const began = performance.now();
const params = new URLSearchParams(location.search);
try {
  drawHere();
  await Promise.all([drawBase(), loadMap(params.get('map') ?? config.maps[0]?.id, params.get('version'))]);
  document.body.dataset.ready = 'true';
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.loadMs = String(Math.round(performance.now() - began));
} catch (err) {
  setStatus(`Could not load: ${err.message}`);
  document.body.dataset.ready = 'error';
}
