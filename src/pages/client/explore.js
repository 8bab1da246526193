// The map explorer and the kiosk (src/pages/pages.ts renders their HTML). Plain JavaScript served as it is: it
// reads its settings from the page's JSON block, draws with Leaflet (the global L) over an offline base drawn
// from world-atlas (topojson-client, the global topojson), and asks the public API for everything else, under
// the same base path as the page. Text from the API is only ever set as text, never as HTML.

const config = JSON.parse(document.getElementById('explorer-config').textContent);
const kiosk = config.kiosk;
const $ = (id) => document.getElementById(id);

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
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  const text = query.toString();
  const res = await fetch(`${config.base}${path}${text ? `?${text}` : ''}`, { headers: { accept: 'application/json' } });
  const body = await res.json();
  if (!res.ok) throw new Error(body.detail || body.title || `HTTP ${res.status}`);
  return body;
}

function setStatus(text, ...extra) {
  $('status').replaceChildren(text, ...extra);
}

const state = {
  mapId: null, versionId: null, record: null, pois: [], categories: [], selected: null, near: null, startView: null,
  /** POI id -> its Leaflet layer. */
  layers: new Map(),
  /** POI id -> when it closes (null: not within a year), for the POIs open now (current version only); null before it is known. */
  openNow: null,
  /** Only the places open now are drawn. */
  openOnly: false,
};

/** How often what is open now is asked again. */
const OPEN_NOW_REFRESH_MS = 60_000;

/** The closest zoom the world-atlas coastlines are drawn at. */
const WORLD_MAX_ZOOM = 10;

const map = L.map('map', { zoomSnap: 0.5, attributionControl: true });
map.attributionControl.setPrefix(false);
// The base in a pane of its own, under the content's (overlayPane, z-index 400), whenever it is shown again.
map.createPane('base').style.zIndex = '350';
const baseLayer = L.layerGroup().addTo(map);
const areaLayer = L.layerGroup().addTo(map);
const markerLayer = L.layerGroup().addTo(map);
const highlightLayer = L.layerGroup().addTo(map);
let nearCircle = null;
// A handle for tests and the console.
window.explorer = { map, state };

/** The offline base: land and borders from world-atlas, or the operator's own tiles. */
async function drawBase() {
  if (config.tiles) {
    L.tileLayer(config.tiles, { maxZoom: 20 }).addTo(map);
    return;
  }
  const topo = await (await fetch(config.world)).json();
  const land = topojson.feature(topo, topo.objects.land);
  const borders = topojson.mesh(topo, topo.objects.countries, (a, b) => a !== b);
  L.geoJSON(land, { pane: 'base', interactive: false, style: { color: '#8fa596', weight: 1, fillColor: '#f3f1e7', fillOpacity: 1 } }).addTo(baseLayer);
  L.geoJSON(borders, { pane: 'base', interactive: false, style: { color: '#a58fb5', weight: 1, dashArray: '4 3', fill: false } }).addTo(baseLayer);
  map.attributionControl.addAttribution('Coastlines and borders: Natural Earth');
  map.on('zoomend', showWorldAtScale);
  showWorldAtScale();
}

/**
 * The coastlines are Natural Earth's 1:50m: off by a kilometre or more, so they are drawn only up to zoom 10 (a
 * region); closer in, the map's own areas and paths are the base, on a plain ground.
 */
function showWorldAtScale() {
  const far = map.getZoom() <= WORLD_MAX_ZOOM;
  if (far !== map.hasLayer(baseLayer)) far ? baseLayer.addTo(map) : baseLayer.remove();
  map.getContainer().classList.toggle('near', !far);
}

/** A date and time in the map's time zone. */
function when(iso) {
  const zone = state.record?.time_zone;
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', ...(zone ? { timeZone: zone } : {}) }).format(new Date(iso));
}

/** When an event is: its days for an all-day one (dates, in no time zone), else its start on the map's clock. */
function eventWhen(e) {
  if (!e.all_day) return when(e.starts_at);
  const day = (date) => new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
  return e.start_date === e.end_date ? day(e.start_date) : `${day(e.start_date)} – ${day(e.end_date)}`;
}

/** An event's status in words, for one that is not simply on (null when scheduled). */
function statusText(e) {
  if (e.status === 'cancelled') return 'Cancelled';
  if (e.status === 'postponed') return 'Postponed';
  if (e.status === 'moved_online') return 'Moved online';
  if (e.status === 'rescheduled') return e.previous_start ? `Rescheduled (was ${when(e.previous_start)})` : 'Rescheduled';
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
async function loadMap(mapId, versionId) {
  const entry = config.maps.find((m) => m.id === mapId) ?? config.maps[0];
  if (!entry) { setStatus('No enabled map is published.'); return; }
  state.mapId = entry.id;
  state.versionId = versionId && entry.versions.some((v) => v.id === versionId) ? versionId : entry.current_version_id;
  fillPickers();
  if (!kiosk) history.replaceState(null, '', `?map=${state.mapId}${state.versionId === entry.current_version_id ? '' : `&version=${state.versionId}`}`);
  setStatus('Loading…');
  const record = await api(`/maps/${state.mapId}`, { version_id: state.versionId, info: true, map_data: true, all_categories: true, tag_counts: true,
    markers: true, paths: true, polygons: true });
  state.record = record;
  state.categories = record.all_categories;
  state.pois = [...record.polygons, ...record.paths, ...record.markers];
  state.selected = null;
  state.startView = startView(record);
  map.setView(state.startView.center, state.startView.zoom, { animate: false });
  if (record.map_data?.min_zoom !== undefined) map.setMinZoom(Math.min(record.map_data.min_zoom, 3));
  state.openNow = null;
  drawPois();
  drawCategories(record.tag_counts);
  closeDetail();
  await Promise.all([listEvents(), loadOpenNow()]);
  reportOutside();
  document.body.dataset.map = state.mapId;
  document.body.dataset.version = state.versionId;
}

/** The map's start view: its centre and zoom (map_data), or the box around its places. */
function startView(record) {
  const data = record.map_data;
  if (data?.center) return { center: [data.center.lat, data.center.lng], zoom: data.zoom ?? 13 };
  const points = record.markers.map((m) => [m.lat, m.lng]);
  const bounds = points.length ? L.latLngBounds(points) : L.latLngBounds([[-60, -170], [75, 170]]);
  return { center: bounds.getCenter(), zoom: Math.min(map.getBoundsZoom(bounds), 15) };
}

function poiStyle(poi, active) {
  const color = state.record?.branding?.primary_color ?? '#1f5fa8';
  if (poi.type === 'polygon') return { color, weight: 1.5, fillOpacity: active ? 0.25 : 0.08, opacity: active ? 0.9 : 0.35, className: 'poi-area' };
  if (poi.type === 'path') return { color, weight: active ? 4 : 2, opacity: active ? 0.9 : 0.35, className: 'poi-path' };
  return { radius: kiosk ? 10 : 7, color: '#fff', weight: 2, fillColor: color, fillOpacity: 0.95, className: 'poi-marker' };
}

/** Draws the version's polygons and paths (part of the base: always shown) and its markers (filtered). */
function drawPois() {
  areaLayer.clearLayers();
  markerLayer.clearLayers();
  highlightLayer.clearLayers();
  state.layers.clear();
  const chosen = state.selected ? subtree(state.selected) : null;
  const open = state.openOnly ? state.openNow ?? new Map() : null;
  let shown = 0;
  for (const poi of state.pois) {
    const active = (!chosen || poi.category_ids.some((id) => chosen.has(id))) && (!open || open.has(poi.id));
    let layer;
    if (poi.type === 'marker') {
      if (!active) continue;
      layer = L.circleMarker([poi.lat, poi.lng], { ...poiStyle(poi, true), bubblingMouseEvents: false }).addTo(markerLayer);
      shown++;
    } else {
      layer = L.geoJSON(poi.geometry, { style: poiStyle(poi, active && Boolean(chosen)), bubblingMouseEvents: false }).addTo(areaLayer);
      if (active && chosen) shown++;
    }
    layer.bindTooltip(poi.name);
    layer.on('click', () => openPoi(poi));
    state.layers.set(poi.id, layer);
  }
  document.body.dataset.markers = String(markerLayer.getLayers().length);
  const label = state.selected ? state.categories.find((c) => c.id === state.selected)?.name : null;
  const openWord = state.openOnly ? ' open now' : '';
  setStatus(label ? `${shown} places${openWord} in ${label}` : state.openOnly ? `${shown} places open now` : `${state.pois.length} places`);
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
  try {
    for (let t = 0; t < tops.length; t += 100) {
      const tags = tops.slice(t, t + 100).join(',');
      for (let start = 0; ;) {
        const page = await api(`/maps/${state.mapId}/pois`, { tags, open_now: true, start, end: start + 500 });
        for (const poi of page.items) open.set(poi.id, poi.closes_at);
        if (page.end >= page.total || page.items.length === 0) break;
        start = page.end;
      }
    }
  } catch (err) {
    $('open-now').title = `Could not ask what is open now: ${err.message}`;
    return;
  }
  state.openNow = open;
  document.body.dataset.openNow = String(open.size);
  if (state.openOnly) drawPois();
}

/** "Open now · until 18:00" or "Closed now" for a POI with hours, from what is open now; null when that says nothing. */
function openText(poi) {
  if (!poi.hours || !state.openNow) return null;
  if (!state.openNow.has(poi.id)) return 'Closed now';
  const closes = state.openNow.get(poi.id);
  return closes ? `Open now · until ${when(closes)}` : 'Open now';
}

function toggleOpenOnly() {
  state.openOnly = !state.openOnly;
  $('open-now').setAttribute('aria-pressed', String(state.openOnly));
  drawPois();
}

function drawCategories(counts) {
  const count = new Map(counts.map((c) => [c.id, c.count]));
  // Top-level categories first, then the categories below them, then tags (the kiosk: top-level categories only).
  const rank = (c) => (c.kind === 'tag' ? 2 : c.parent_id ? 1 : 0);
  const shown = state.categories.filter((c) => count.get(c.id) > 0 && (!kiosk || rank(c) === 0));
  const chips = shown.sort((a, b) => rank(a) - rank(b)).map((c) => el('button', {
    type: 'button', className: `chip ${c.kind}${rank(c) === 0 ? ' top' : ''}`, 'aria-pressed': 'false', dataset: { id: c.id, kind: c.kind },
    onclick: () => selectCategory(state.selected === c.id ? null : c.id),
  }, c.name, el('span', { className: 'count' }, String(count.get(c.id)))));
  $('categories').replaceChildren(...chips);
}

function selectCategory(id) {
  state.selected = id;
  for (const chip of $('categories').children) chip.setAttribute('aria-pressed', String(chip.dataset.id === id));
  drawPois();
}

/** Lists events of the map: the date window and the point clicked, if any (the kiosk: what comes next). */
async function listEvents() {
  const params = { map_id: state.mapId, limit: kiosk ? 12 : 25 };
  if (!kiosk) {
    params.from = $('event-from').value;
    params.to = $('event-to').value;
    if (state.near) Object.assign(params, { near: `${state.near.lat.toFixed(5)},${state.near.lng.toFixed(5)}`, radius_m: $('event-radius').value });
  }
  const list = $('event-list');
  if (!kiosk) {
    // The same filter as a feed a calendar app subscribes to (webcal: under the service's public URL).
    const { limit: _, ...filter } = params;
    const query = new URLSearchParams(Object.entries(filter).filter(([, value]) => value !== '' && value !== undefined));
    $('event-subscribe').href = `${config.public_url.replace(/^https?:/, 'webcal:')}/events.ics?${query}`;
  }
  try {
    const page = await api('/events', params);
    list.replaceChildren(...page.events.map((e) => eventButton(e, e.event_type)));
    const where = state.near ? ` within ${$('event-radius').selectedOptions[0].text} of the point` : '';
    $('events-title').textContent = kiosk ? 'Coming up' : `Events: ${page.total}${where}`;
    list.dataset.total = String(page.total);
    if (page.events.length === 0) list.append(el('li', { className: 'muted' }, 'No events in this window.'));
  } catch (err) {
    list.replaceChildren(el('li', { className: 'error' }, err.message));
  }
}

function openDetail(...children) {
  $('detail-body').replaceChildren(...children);
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
  const upcoming = el('ol', { className: 'event-list' }, el('li', { className: 'muted' }, 'Loading events…'));
  openDetail(el('p', { className: 'kind' }, poi.type), el('h2', {}, poi.name), poi.description ? el('p', {}, poi.description) : null,
    facts([['Categories and tags', names.join(', ')], ['Address', poi.address], ['Open now', openText(poi)], ['Opening hours', poi.opening_hours],
      ['Hours (OpenStreetMap)', poi.hours], ['Phone', poi.phone],
      ['Website', poi.website], ['Difficulty', poi.difficulty], ['Duration', poi.duration_min ? `${poi.duration_min} min` : null],
      ['Where', poi.type === 'marker' ? `${poi.lat}, ${poi.lng}` : null]]),
    el('p', {}, el('a', { id: 'poi-page', href: `${config.base}/${poi.type}s/${poi.id}.html` }, 'Page to share')),
    el('h3', {}, 'Upcoming events here'), upcoming);
  highlight([poi]);
  try {
    const answer = await api('/events/upcoming-by-poi', { poi_ids: poi.id, limit_per_poi: 5 });
    const events = answer[poi.id] ?? [];
    upcoming.replaceChildren(...(events.length ? events.map((e) => eventButton(e)) : [el('li', { className: 'muted' }, 'None scheduled.')]));
  } catch (err) {
    upcoming.replaceChildren(el('li', { className: 'error' }, err.message));
  }
}

async function openEvent(id) {
  const event = await api(`/events/${id}`);
  // An occurrence of a series says how it repeats: the series' rule in words.
  const series = event.series_id ? await api(`/events/${event.series_id}`).catch(() => null) : null;
  const anchors = event.pois.map((poi) => el('li', {}, el('button', { type: 'button', className: 'poi', onclick: () => openPoi(poi) }, poi.name, el('span', { className: 'muted' }, ` · ${poi.type}`))));
  const status = statusText(event);
  const offers = event.offers;
  const price = offers?.free ? 'Free' : offers?.price != null ? `${offers.price} ${offers.currency ?? ''}`.trim() : event.price;
  openDetail(el('p', { className: 'kind' }, `event · ${event.event_type}`), el('h2', { id: 'event-title' }, event.title),
    status ? el('p', { id: 'event-status', className: `event-status status-${event.status}` }, status) : null,
    event.description ? el('p', {}, event.description) : null,
    facts(event.all_day ? [['When', eventWhen(event)]] : [['Starts', when(event.starts_at)], ['Ends', event.ends_at ? when(event.ends_at) : null]]),
    facts([['Repeats', series?.recurrence?.text], ['Tags', event.tags.join(', ')], ['Price', price], ['Booking', offers?.booking_url],
      ['Organizer', event.organizer?.name], ['Online', event.online_url], ['Accessibility', event.accessibility.map((f) => f.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)).join(', ')],
      ['More', event.url]]),
    el('p', {}, el('a', { id: 'event-calendar', href: `${config.base}/events/${event.id}.ics`, download: `${event.id}.ics` }, 'Add to calendar'),
      series ? el('span', {}, ' · ', el('a', { id: 'series-calendar', href: `${config.base}/events/${series.id}.ics`, download: `${series.id}.ics` }, 'the whole series')) : null,
      ' · ', el('a', { id: 'event-page', href: `${config.base}/events/${event.id}.html` }, 'Page to share')),
    el('h3', {}, `Where (${event.pois.length})`), el('ol', { className: 'poi-list', id: 'event-pois' }, ...anchors));
  highlight(event.pois);
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

/** Names the places that lie outside the map's own bounds (a swapped [lng, lat] lands far away), with a way to see them. */
function reportOutside() {
  const box = state.record.map_data?.bounds;
  if (!box) return;
  const [west, south, east, north] = box;
  const outside = state.record.markers.filter((m) => m.lng < west || m.lng > east || m.lat < south || m.lat > north);
  if (outside.length === 0) return;
  const show = el('button', { type: 'button', onclick: () => map.fitBounds(L.latLngBounds([...outside.map((m) => [m.lat, m.lng]), state.startView.center]).pad(0.1)) }, 'Show them');
  setStatus(`${outside.length} of ${state.record.markers.length} markers lie outside the map's bounds: ${outside.slice(0, 5).map((m) => m.name).join(', ')}. `, show);
}

map.on('click', (e) => {
  if (kiosk) return;
  state.near = e.latlng;
  nearCircle?.remove();
  nearCircle = L.circle(e.latlng, { radius: Number($('event-radius').value), color: '#333', weight: 1, dashArray: '3 3', fillOpacity: 0.05, interactive: false, className: 'near-circle' }).addTo(map);
  void listEvents();
});

$('detail-close').addEventListener('click', closeDetail);
$('open-now').addEventListener('click', toggleOpenOnly);
// What is open changes with the clock: asked again every minute (a kiosk runs all day).
setInterval(() => void loadOpenNow().catch(() => {}), OPEN_NOW_REFRESH_MS);

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
}

const began = performance.now();
const params = new URLSearchParams(location.search);
try {
  await Promise.all([drawBase(), loadMap(params.get('map') ?? config.maps[0]?.id, params.get('version'))]);
  document.body.dataset.ready = 'true';
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.loadMs = String(Math.round(performance.now() - began));
} catch (err) {
  setStatus(`Could not load: ${err.message}`);
  document.body.dataset.ready = 'error';
}
