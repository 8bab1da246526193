/**
 * The pages in a real browser: headless Debian Chromium driven by playwright-core, against the service on Node
 * over a real port, serving the demo at a pinned time. The explorer: pick the demo map, click a category and see
 * its markers drawn, click the map and see the events near that point listed, open an event and see its anchored
 * POIs, open one of them and see its upcoming events, narrow the events to a date window; a place whose coordinates were swapped is named and shown. The kiosk (--kiosk, under a base path): the rail of what is on today and this week (what is over left out, on a clock set after an event ended), its language switch (the kiosk's words and dates too), and back to its start view after a
 * minute with no touch (the page's clock is driven by Playwright). The explorer's GPX and KML links (the places
 * shown, a path opened) answer their formats. /docs renders every endpoint of /openapi.json. The
 * page of an event and of a place, with scripts off: title, dates, status, style sheet and JSON-LD.
 * Every request each page makes is recorded: all go to 127.0.0.1, and no page logs an error (a CSP violation
 * would be one). The first render of /explore is measured and printed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { clickMapNear, launchChromium, openPage, type RecordedPage } from './helpers/browser.ts';
import { readDemoBundle } from './helpers/app.ts';
import { BASEMAP_ATTRIBUTION, lisbonBasemap } from '../scripts/make-pmtiles.ts';
import { startServer, type RunningServer } from './helpers/server.ts';

/** The demo's main map and a second map to switch from. */
const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const FOOD = '5eb949a0-ac8b-56cc-8572-f5b491d81731';
/** Sights & Monuments, a top-level category of the main map. */
const SIGHTS = '891bcaec-a8e1-5200-9452-222a69aa64b2';
/** The main map's 2025 edition, a published version that is not the current one. */
const V2025 = '843f44fb-f8eb-5a86-a0d0-15215a3da3af';
/** Praça do Comércio. */
const SQUARE = { lat: 38.7075, lng: -9.1364 };
/** Early June 2027: the city's festival weeks, many events. */
const NOW = '2027-06-10T10:00:00Z';
const KIOSK_BASE = '/kiosk-api';
/** The kiosk's public URL: where a phone that scans its QR codes goes (never asked by the test). */
const KIOSK_PUBLIC = 'https://visit.example.org';

const demo = await readDemoBundle();
let browser: Browser;
let server: RunningServer;
let kioskServer: RunningServer;
let dataDir: string;
const opened: RecordedPage[] = [];

/** A page of a new context, closed (and its requests checked) after the test. */
async function newPage(options: { scripts?: boolean } = {}): Promise<RecordedPage> {
  const recorded = await openPage(browser, undefined, options);
  opened.push(recorded);
  return recorded;
}

/** JSON of the service's API. */
async function api<T = any>(base: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`);
  assert.equal(res.status, 200, path);
  return res.json() as Promise<T>;
}

/**
 * Sets the explorer's view (zoom `zoom`, at `at` or where it is), waits for its POI tiles to be drawn, and answers how
 * many markers they hold (the page's data-markers: a cluster counts its markers, each feature drawn by one tile).
 */
async function markersDrawnAt(page: RecordedPage['page'], zoom: number, at?: { lat: number; lng: number }): Promise<number> {
  await page.evaluate(({ zoom, at }) => {
    const { map } = (window as any).explorer;
    map.setView(at ? [at.lat, at.lng] : map.getCenter(), zoom, { animate: false });
  }, { zoom, at });
  await page.waitForFunction(() => document.body.dataset.tilesLoaded && !(window as any).explorer.loading());
  return Number(await page.getAttribute('body', 'data-markers'));
}

/**
 * The explorer's GPX and KML links named `#<prefix>-gpx` and `#<prefix>-kml`: each points at `path` with that suffix
 * and `search`, under the page's base path, saves as `<name>.<suffix>`, and answers 200 with its media type.
 */
async function assertDownloads(page: RecordedPage['page'], prefix: string, path: string, search: string, name: string): Promise<void> {
  for (const [format, type] of [['gpx', 'application/gpx+xml'], ['kml', 'application/vnd.google-earth.kml+xml']]) {
    const link = page.locator(`#${prefix}-${format}`);
    assert.equal(await link.getAttribute('href'), `${path}.${format}${search}`);
    assert.equal(await link.getAttribute('download'), `${name}.${format}`);
    const res = await fetch(new URL(`${path}.${format}${search}`, page.url()));
    assert.equal(res.status, 200, `${path}.${format}${search}`);
    assert.equal(res.headers.get('content-type'), type);
  }
}

/** Asserts every request went to 127.0.0.1 and nothing was logged as an error. */
function assertStayedHome(recorded: RecordedPage): void {
  assert.ok(recorded.requests.length > 0);
  const away = recorded.requests.filter((url) => !url.startsWith('http://127.0.0.1:'));
  assert.deepEqual(away, [], 'every request goes to 127.0.0.1');
  assert.deepEqual(recorded.errors, [], 'no console error (a CSP violation is one)');
}

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'browser-'));
  [browser, server, kioskServer] = await Promise.all([
    launchChromium(),
    startServer('node', ['--data-dir', join(dataDir, 'a'), '--fixed-time', NOW], 120_000),
    startServer('node', ['--data-dir', join(dataDir, 'b'), '--fixed-time', NOW, '--kiosk', MAIN, '--base-path', KIOSK_BASE, '--kiosk-here', `${SQUARE.lat},${SQUARE.lng}`,
      '--public-url', `${KIOSK_PUBLIC}${KIOSK_BASE}`], 120_000),
  ]);
});

after(async () => {
  for (const p of opened) await p.context.close();
  await browser?.close();
  await Promise.all([server?.stop(), kioskServer?.stop()]);
  await rm(dataDir, { recursive: true, force: true });
});

describe('the explorer in Chromium', () => {
  test('picks the demo map, draws a category\'s markers, lists events near a clicked point and opens one, then one of its places; a date window', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    const began = performance.now();
    await page.goto(`${server.base}/explore`);
    await page.waitForSelector('body[data-ready="true"]');
    const firstRenderMs = Math.round(performance.now() - began);
    console.log(JSON.stringify({ explore_first_render_ms: firstRenderMs, in_page_ms: Number(await page.getAttribute('body', 'data-ready-ms')) }));
    assert.ok(firstRenderMs < 15_000, `first render after ${firstRenderMs} ms`);

    // Pick another map, then the demo's main map.
    await page.selectOption('#map-select', FOOD);
    await page.waitForSelector(`body[data-map="${FOOD}"]`);
    await page.selectOption('#map-select', MAIN);
    await page.waitForSelector(`body[data-map="${MAIN}"]`);
    // Drawn from the map's vector tiles: at zoom 5 every marker of the current version is in view, each counted once (a
    // cluster counts its markers); the count of the tiles drawn is the page's data-markers.
    const record = await api(server.base, `/maps/${MAIN}?markers=true`);
    assert.equal(await markersDrawnAt(page, 5), record.markers.length, 'every marker of the current version is drawn');
    assert.ok(await page.locator('.poi-cluster').count() > 0, 'as clusters at that scale');
    assert.ok(new URL(page.url()).search.includes(`map=${MAIN}`));

    // A category: its markers (descendants included), as /maps/:id/pois counts them: the tiles asked for with its tags.
    const tagged = await api(server.base, `/maps/${MAIN}/pois?tags=${SIGHTS}&start=0&end=500`);
    const expected = tagged.items.filter((p: { type: string }) => p.type === 'marker').length;
    assert.ok(expected > 0 && expected < record.markers.length);
    await page.click(`#categories button[data-id="${SIGHTS}"]`);
    await page.waitForSelector(`#categories button[data-id="${SIGHTS}"][aria-pressed="true"]`);
    assert.equal(await markersDrawnAt(page, 5), expected);

    // Open now, on the server's clock (10 June, Portugal Day: the places closed on public holidays are shut): the
    // category's places open now, as open_now answers; then every one again.
    const open = await api(server.base, `/maps/${MAIN}/pois?tags=${SIGHTS}&open_now=true&end=500`);
    const openMarkers = open.items.filter((p: { type: string }) => p.type === 'marker').length;
    assert.ok(openMarkers > 0 && openMarkers < expected, `${openMarkers} of ${expected} open`);
    await page.click('#open-now');
    await page.waitForSelector('#open-now[aria-pressed="true"]');
    assert.equal(await page.locator('path.poi-marker').count(), openMarkers);
    assert.match(await page.textContent('#status') ?? '', new RegExp(`^${open.items.length} places open now in `));
    await page.click('#open-now');
    await page.waitForSelector('#open-now[aria-pressed="false"]');
    assert.equal(await markersDrawnAt(page, 5), expected);
    await page.click(`#categories button[data-id="${SIGHTS}"]`);
    await page.waitForSelector(`#categories button[data-id="${SIGHTS}"][aria-pressed="false"]`);

    // Close in, every marker is its own: clicking one opens it; clicking a cluster zooms in.
    const marker = record.markers.find((m: { name: string }) => m.name === 'Torre de Belém');
    await markersDrawnAt(page, 17, marker);
    await page.click(`.poi-dot[data-id="${marker.id}"]`);
    await page.waitForFunction((name) => document.querySelector('#detail-body h2')?.textContent === name, marker.name);
    await page.click('#detail-close');
    await markersDrawnAt(page, 11, SQUARE);
    const zoom = await page.evaluate(() => (window as any).explorer.map.getZoom());
    await page.click('.poi-cluster >> nth=0');
    await page.waitForFunction((z) => (window as any).explorer.map.getZoom() > z, zoom);
    await markersDrawnAt(page, 13, SQUARE);

    // Click the map near the square, on a spot no place covers.
    const point = await clickMapNear(page, SQUARE);
    const near = `${point.lat.toFixed(5)},${point.lng.toFixed(5)}`;
    const events = await api(server.base, `/events?map_id=${MAIN}&limit=25&near=${near}&radius_m=2000`);
    assert.ok(events.events.length > 0, 'the demo has events near the square');
    assert.equal(await page.getAttribute('#event-list', 'data-total'), String(events.total));
    assert.deepEqual(await page.locator('#event-list button.event').evaluateAll((b) => b.map((x) => (x as HTMLElement).dataset.id)),
      events.events.map((e: { id: string }) => e.id));

    // Open the first: its details and its anchored POIs.
    const first = await api(server.base, `/events/${events.events[0].id}`);
    await page.click('#event-list button.event >> nth=0');
    await page.waitForSelector('#event-title');
    assert.equal(await page.textContent('#event-title'), first.title);
    assert.deepEqual(await page.locator('#event-pois button.poi').evaluateAll((b) => b.map((x) => x.firstChild!.textContent)),
      first.pois.map((p: { name: string }) => p.name));
    assert.ok(await page.locator('.poi-highlight').count() >= first.pois.length, 'its places are outlined on the map');
    assert.equal(await page.isVisible('#detail'), true);

    // One of its places: its details and its upcoming events, as /events/upcoming-by-poi gives them.
    const place = first.pois[0];
    const upcoming = await api(server.base, `/events/upcoming-by-poi?poi_ids=${place.id}&limit_per_poi=5`);
    assert.ok(upcoming[place.id].length > 0, `${place.name} has upcoming events`);
    await page.click('#event-pois button.poi >> nth=0');
    await page.waitForFunction((name) => document.querySelector('#detail-body h2')?.textContent === name, place.name);
    await page.waitForFunction(() => !/Loading/.test(document.querySelector('#detail-body .event-list')!.textContent!));
    assert.deepEqual(await page.locator('#detail-body .event-list button.event strong').allTextContents(),
      upcoming[place.id].map((e: { title: string }) => e.title));
    assert.equal(await page.getAttribute('#poi-page', 'href'), `/${place.type}s/${place.id}.html`);
    const placeRecord = await api(server.base, `/${place.type}s/${place.id}`);
    if (placeRecord.hours) {
      const facts = await page.locator('#detail-body dl').textContent() ?? '';
      assert.match(facts, /Open now(Open now|Closed now)/, 'its detail says whether it is open now');
      assert.ok(facts.includes(placeRecord.hours), 'and gives its hours');
    }

    // A date window, with the point: the list is the API's for both.
    await page.fill('#event-from', '2027-06-12');
    await page.fill('#event-to', '2027-06-13');
    await page.click('#event-form button[type="submit"]');
    const windowed = await api(server.base, `/events?map_id=${MAIN}&limit=25&near=${near}&radius_m=2000&from=2027-06-12&to=2027-06-13`);
    assert.ok(windowed.total > 0 && windowed.total < events.total, `${windowed.total} events on 12 and 13 June`);
    await page.waitForFunction((total) => document.getElementById('event-list')!.dataset.total === String(total), windowed.total);
    assert.deepEqual(await page.locator('#event-list button.event').evaluateAll((b) => b.map((x) => (x as HTMLElement).dataset.id)),
      windowed.events.map((e: { id: string }) => e.id));
    assertStayedHome(recorded);
  });

  test('names a place whose [lng, lat] were swapped into East Africa, and shows it on the coastlines', async () => {
    const bundle = structuredClone(demo);
    const marker = bundle.markers.find((m) => m.map_id === MAIN && m.name === 'Torre de Belém')!;
    [marker.lat, marker.lng] = [marker.lng, marker.lat];
    const file = join(dataDir, 'swapped.json');
    await writeFile(file, JSON.stringify(bundle));
    const swapped = await startServer('node', ['--bundle', file, '--data-dir', join(dataDir, 'c'), '--fixed-time', NOW], 120_000);
    try {
      const recorded = await newPage();
      const { page } = recorded;
      await page.goto(`${swapped.base}/explore?map=${MAIN}`);
      await page.waitForSelector('body[data-ready="true"]');
      assert.match(await page.textContent('#status') ?? '', /^1 of \d+ markers lie outside the map's bounds: Torre de Belém\./);
      await page.click('#status button');
      await page.waitForFunction(() => (window as any).explorer.map.getZoom() <= 10);
      assert.ok(await page.locator('.leaflet-base-pane path').count() > 0, 'the coastlines are drawn at that scale');
      const inView = await page.evaluate(({ lat, lng }) => (window as any).explorer.map.getBounds().contains([lat, lng]), marker);
      assert.equal(inView, true, 'the swapped place is in view');
      assertStayedHome(recorded);
    } finally {
      await swapped.stop();
    }
  });

  test('says how an event stands: a rescheduled occurrence is marked in the list, and its detail gives its old start and how its series repeats', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${server.base}/explore?map=${MAIN}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.fill('#event-from', '2027-02-18');
    await page.fill('#event-to', '2027-02-19');
    await page.click('#event-form button[type="submit"]');
    const listed = await api(server.base, `/events?map_id=${MAIN}&limit=25&from=2027-02-18&to=2027-02-19`);
    const moved = listed.events.find((e: { status: string }) => e.status === 'rescheduled');
    assert.ok(moved?.series_id, 'the demo reschedules an occurrence of a series on 18 February 2027');
    const button = page.locator(`#event-list button.event[data-id="${moved.id}"]`);
    await button.waitFor();
    assert.match(await button.textContent() ?? '', /18 Feb 2027, 19:00 · .* · Rescheduled \(was 11 Feb 2027, 19:00\)$/);
    await button.click();
    await page.waitForSelector('#event-status');
    assert.equal(await page.textContent('#event-status'), 'Rescheduled (was 11 Feb 2027, 19:00)');
    const series = await api(server.base, `/events/${moved.series_id}`);
    assert.ok(series.recurrence.text.length > 0);
    assert.equal(await page.locator('#detail-body dt:text-is("Repeats") + dd').textContent(), series.recurrence.text);
    // Calendars: the listed window as a feed to subscribe to (webcal: under the public URL), the event and its series to add.
    const subscribe = new URL((await page.getAttribute('#event-subscribe', 'href'))!);
    assert.equal(subscribe.protocol, 'webcal:');
    assert.equal(subscribe.pathname, '/events.ics');
    assert.deepEqual(Object.fromEntries(subscribe.searchParams), { map_id: MAIN, from: '2027-02-18', to: '2027-02-19' });
    const feed = await fetch(`${server.base}/events.ics${subscribe.search}`);
    assert.equal(feed.headers.get('content-type'), 'text/calendar; charset=utf-8');
    assert.match(await feed.text(), new RegExp(`UID:${moved.series_id}`));
    for (const [link, id] of [['#event-calendar', moved.id], ['#series-calendar', moved.series_id]]) {
      const href = (await page.getAttribute(link, 'href'))!;
      assert.equal(href, `/events/${id}.ics`);
      assert.equal((await fetch(`${server.base}${href}`)).status, 200);
    }
    // The page to share (what a QR code or a link opens), read without the explorer.
    assert.equal(await page.getAttribute('#event-page', 'href'), `/events/${moved.id}.html`);
    assertStayedHome(recorded);
  });

  test('offers downloads: the places shown (the category and version chosen) as GPX and KML, and a path opened, with its stops', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${server.base}/explore?map=${MAIN}`);
    await page.waitForSelector('body[data-ready="true"]');
    const { name } = await api(server.base, `/maps/${MAIN}/details`);
    await assertDownloads(page, 'pois', `/maps/${MAIN}/pois`, '', name);
    await page.click(`#categories button[data-id="${SIGHTS}"]`);
    await page.waitForSelector(`#categories button[data-id="${SIGHTS}"][aria-pressed="true"]`);
    const category = await page.locator(`#categories button[data-id="${SIGHTS}"]`).evaluate((b) => b.firstChild!.textContent);
    await assertDownloads(page, 'pois', `/maps/${MAIN}/pois`, `?tags=${SIGHTS}`, `${name} - ${category}`);
    await page.selectOption('#version-select', V2025);
    await page.waitForSelector(`body[data-version="${V2025}"]`);
    await assertDownloads(page, 'pois', `/maps/${MAIN}/pois`, `?version_id=${V2025}`, name);

    // A path, opened from an event along it (the Marchas Populares on the Avenida da Liberdade, 12 June 2027).
    await page.fill('#event-from', '2027-06-12');
    await page.fill('#event-to', '2027-06-12');
    await page.click('#event-form button[type="submit"]');
    const listed = await api(server.base, `/events?map_id=${MAIN}&limit=25&from=2027-06-12&to=2027-06-12`);
    const along = listed.events.find((e: { anchors: { type: string }[] }) => e.anchors.some((a) => a.type === 'path'));
    assert.ok(along, 'an event along a path on 12 June 2027');
    const path = await api(server.base, `/paths/${along.anchors.find((a: { type: string }) => a.type === 'path').id}`);
    await page.click(`#event-list button.event[data-id="${along.id}"]`);
    await page.waitForSelector('#event-title');
    await page.locator('#event-pois button.poi').filter({ hasText: path.name }).click();
    await page.waitForFunction((title) => document.querySelector('#detail-body h2')?.textContent === title, path.name);
    await assertDownloads(page, 'path', `/paths/${path.id}`, '', path.name);
    assert.doesNotMatch(await page.textContent('#detail-body') ?? '', /\bnull\b/, 'no part left out is written as "null"');
    assertStayedHome(recorded);
  });

  test('two places at one spot, drawn over each other at every zoom: a click there lists both, and each opens', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${server.base}/explore?map=${MAIN}`);
    await page.waitForSelector('body[data-ready="true"]');
    const record = await api(server.base, `/maps/${MAIN}?markers=true`);
    type Marker = { id: string; name: string; lat: number; lng: number };
    const byPlace = new Map<string, Marker[]>();
    for (const m of record.markers as Marker[]) byPlace.set(`${m.lat},${m.lng}`, [...byPlace.get(`${m.lat},${m.lng}`) ?? [], m]);
    const pair = [...byPlace.values()].find((group) => group.length === 2)!;
    assert.ok(pair, 'the demo has two markers at one spot');
    await markersDrawnAt(page, 17, pair[0]);
    const dot = await page.locator(`.poi-dot[data-id="${pair[0].id}"]`).boundingBox();
    const other = await page.locator(`.poi-dot[data-id="${pair[1].id}"]`).boundingBox();
    assert.ok(dot && other && Math.abs(dot.x - other.x) < 1 && Math.abs(dot.y - other.y) < 1, 'drawn over each other');
    await page.mouse.click(dot.x + dot.width / 2, dot.y + dot.height / 2);
    await page.waitForSelector('#places-here');
    assert.deepEqual((await page.locator('#places-here button').allInnerTexts()).sort(), pair.map((m) => m.name).sort());
    await page.click(`#places-here button:text-is("${pair[1].name}")`);
    await page.waitForFunction((name) => document.querySelector('#detail h2')?.textContent === name, pair[1].name);
    assertStayedHome(recorded);
  });

  test('the events are in view at 1280 x 800, above the categories below the top level, folded under More', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${server.base}/explore?map=${MAIN}`);
    await page.waitForSelector('body[data-ready="true"]');
    const box = await page.locator('#events-title').boundingBox();
    assert.ok(box && box.y + box.height < 800, `the events' title is in view (at ${box?.y})`);
    assert.equal(await page.locator('details.more-chips').getAttribute('open'), null, 'the rest is folded');
    await page.click('details.more-chips summary');
    assert.ok(await page.locator('details.more-chips button.chip.tag').count() > 0, 'the tags are under More');
    assertStayedHome(recorded);
  });

  test('the home page lists the maps and links to the explorer, which opens on the map linked', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${server.base}/`);
    const links = await page.locator('.map-card h3 a').evaluateAll((a) => a.map((x) => x.getAttribute('href')));
    assert.deepEqual(links.sort(), demo.maps.filter((m) => m.enabled).map((m) => `/explore?map=${m.id}`).sort());
    await page.click(`a[href="/explore?map=${FOOD}"]`);
    await page.waitForSelector(`body[data-map="${FOOD}"][data-ready="true"]`);
    assert.equal(await page.inputValue('#map-select'), FOOD);
    assertStayedHome(recorded);
  });
});

describe('the pages of an event and a place in Chromium, with scripts off', () => {
  test('an occurrence\'s page shows its title, dates and status, and its JSON-LD parses as an Event; its place\'s page as a TouristAttraction', async () => {
    const listed = await api(server.base, `/events?map_id=${MAIN}&limit=25&from=2027-02-18&to=2027-02-19`);
    const moved = listed.events.find((e: { status: string }) => e.status === 'rescheduled');
    const recorded = await newPage({ scripts: false });
    const { page } = recorded;
    await page.goto(`${server.base}/events/${moved.id}.html`);
    assert.equal(await page.textContent('h1'), moved.title);
    assert.match(await page.title(), new RegExp(`^${moved.title} · `));
    // The dates as words on the map's clock, and as machine-readable times.
    assert.deepEqual(await page.locator('dd time').evaluateAll((ts) => ts.map((x) => x.getAttribute('datetime'))), [moved.starts_at, moved.ends_at]);
    assert.match(await page.locator('dd time').first().innerText(), /Thursday, February 18, 2027 at 7:00\sPM/);
    assert.match(await page.locator('.event-status').innerText(), /^Rescheduled \(was Thursday, February 11, 2027 at 7:00\sPM\)$/);
    assert.equal(await page.locator('.record-page dl').evaluate((dl) => getComputedStyle(dl).display), 'grid', 'the style sheet is applied');
    const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent())!);
    assert.equal(ld['@type'], 'Event');
    assert.equal(ld.eventStatus, 'https://schema.org/EventRescheduled');
    assert.equal(Date.parse(ld.previousStartDate), Date.parse(moved.previous_start));
    // Its place's page, from the link on the page.
    const place = moved.anchors[0];
    const href = (await page.locator(`.places a`).first().getAttribute('href'))!;
    assert.equal(new URL(href).pathname, `/${place.type}s/${place.id}.html`);
    await page.goto(`${server.base}${new URL(href).pathname}`);
    const record = await api(server.base, `/${place.type}s/${place.id}`);
    assert.equal(await page.textContent('h1'), record.name);
    const placeLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent())!);
    assert.equal(placeLd['@type'], 'TouristAttraction');
    assert.equal(placeLd.name, record.name);
    assertStayedHome(recorded);
  });
});

describe('a basemap in Chromium', () => {
  for (const kind of ['mvt', 'png'] as const) {
    test(`--basemap with ${kind === 'mvt' ? 'vector' : 'raster'} tiles: the explorer draws the archive under the places, and shows its attribution`, async () => {
      const file = join(dataDir, `lisbon-${kind}.pmtiles`);
      await writeFile(file, lisbonBasemap(kind));
      const based = await startServer('node', ['--data-dir', join(dataDir, `basemap-${kind}`), '--fixed-time', NOW, '--basemap', file], 120_000);
      try {
        const recorded = await newPage();
        const { page } = recorded;
        await page.goto(`${based.base}/explore?map=${MAIN}`);
        await page.waitForSelector(`body[data-ready="true"][data-basemap="${kind === 'mvt' ? 'vector' : 'raster'}"]`);
        await page.waitForFunction(() => !(window as any).explorer.loading());
        // The archive's tiles are asked for and drawn: painted pixels in the tile pane (a canvas per tile, or images).
        await page.waitForFunction((raster) => {
          const pane = document.querySelector('.leaflet-tile-pane')!;
          if (raster) return [...pane.querySelectorAll('img')].some((img) => (img as HTMLImageElement).naturalWidth === 256);
          // protomaps-leaflet paints its background on every tile, empty or failed: the archive's earth, water,
          // parks and roads are more colours than that.
          const colours = new Set<string>();
          for (const c of pane.querySelectorAll('canvas')) {
            const ctx = (c as HTMLCanvasElement).getContext('2d');
            if (!ctx || c.width === 0) continue;
            const data = ctx.getImageData(0, 0, c.width, c.height).data;
            for (let i = 0; i < data.length; i += 4 * 7) if (data[i + 3] === 255) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
          }
          return colours.size >= 4;
        }, kind === 'png', { timeout: 15_000 });
        assert.ok(recorded.requests.some((url) => new RegExp(`/basemap/\\d+/\\d+/\\d+\\.${kind}$`).test(url)), 'tiles of the archive are asked for');
        assert.match(await page.locator('.leaflet-control-attribution').innerText(), new RegExp(BASEMAP_ATTRIBUTION.replace(/[()]/g, '\\$&')));
        assert.ok(await page.locator('.poi-cluster, .poi-dot').count() > 0, 'the places over it');
        // Beyond the archive's region (Porto, 270 km north of it) the coast still shows: Natural Earth's land is drawn
        // under the archive, and no tile of the archive is asked for there.
        const landBefore = await page.evaluate(() => Number(document.body.dataset.landTiles ?? 0));
        const askedBefore = recorded.requests.length;
        await page.evaluate(() => (window as any).explorer.map.setView([41.15, -8.61], 11, { animate: false }));
        await page.waitForFunction((before) => Number(document.body.dataset.landTiles ?? 0) > before, landBefore);
        assert.deepEqual(recorded.requests.slice(askedBefore).filter((url) => /\/basemap\/\d+\/\d+\/\d+\./.test(url)), [], 'no tile of the archive beyond its bounds');
        assertStayedHome(recorded);
      } finally {
        await based.stop();
      }
    });
  }
});

describe('the kiosk in Chromium', () => {
  test('shows one map full screen with what is on today and this week, in the language chosen, and goes back to its start view after a minute with no touch', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.clock.install();
    await page.goto(`${kioskServer.base}${KIOSK_BASE}/`);
    await page.waitForSelector('body.kiosk[data-ready="true"]');
    assert.equal(await page.locator('#map-select').count(), 0, 'no map picker');
    // The rail: the events of today and the six days after it on the map's clock (Lisbon, +01:00 in June), those over
    // left out; under "Today" those under way or starting today, then the rest.
    const rail = await api(kioskServer.base, `${KIOSK_BASE}/events?map_id=${MAIN}&from=2027-06-10T00:00:00%2B01:00&to=2027-06-16T23:59:59%2B01:00&limit=60`);
    type RailEvent = { id: string; url: string | null; starts_at: string; ends_at: string | null; all_day: boolean; start_date: string; end_date: string };
    const lisbonDate = (iso: string) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Lisbon' }).format(new Date(iso));
    const on = (rail.events as RailEvent[]).filter((e) => (e.all_day ? e.end_date >= '2027-06-10' : !e.ends_at || Date.parse(e.ends_at) > Date.parse(NOW)));
    const today = on.filter((e) => (e.all_day ? e.start_date : lisbonDate(e.starts_at)) <= '2027-06-10');
    assert.ok(today.length > 0 && today.length < on.length, 'the demo has events today and later this week');
    assert.deepEqual(await page.locator('#event-list button.event').evaluateAll((b) => b.map((x) => (x as HTMLElement).dataset.id)), on.map((e) => e.id));
    assert.equal(await page.locator('#events-title').innerText(), 'Today and this week');
    assert.equal(await page.locator('#rail-today').innerText(), 'TODAY');
    const afterToday = await page.locator('#event-list > li').evaluateAll((li) => li.findIndex((x) => x.id === 'rail-later'));
    assert.equal(afterToday, today.length + 1, '"Later this week" after today\'s events');
    // Touch targets: every place and cluster drawn is at least 48 px each way.
    const targets = await page.locator('.poi-dot, .poi-cluster').evaluateAll((b) => b.map((x) => x.getBoundingClientRect()).map((r) => Math.min(r.width, r.height)));
    assert.ok(targets.length > 0 && Math.min(...targets) >= 48, `smallest target ${Math.min(...targets)} px`);
    // The categories stay in view under the rail at 1280 x 800, with no scrolling.
    const chip = await page.locator('#categories button').first().boundingBox();
    assert.ok(chip && chip.y + chip.height <= 800, `the first category at ${chip?.y}`);
    const view = () => page.evaluate(() => {
      const { map } = (window as any).explorer;
      return { zoom: map.getZoom(), center: map.getCenter().toString() };
    });
    const start = await view();
    // An exhibition under way reads "On now, until …" in the rail, not its start; the kiosk's own place is marked.
    const ongoing = today.find((e) => Date.parse(e.starts_at) < Date.parse(NOW) && e.ends_at && Date.parse(e.ends_at) - Date.parse(NOW) > 86_400_000)!;
    assert.ok(ongoing, 'the demo has an event under way in the rail');
    const until = (locale: string) => new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', timeZone: 'Europe/Lisbon' }).format(new Date(ongoing.ends_at!));
    assert.match(await page.locator(`#event-list button.event[data-id="${ongoing.id}"] .muted`).innerText(), new RegExp(`^On now, until ${until('en-GB')}`));
    assert.equal(await page.locator('path.you-are-here').count(), 1);
    assert.equal(await page.locator('.here-label').innerText(), 'You are here');
    // The language switch: the map's languages; Portuguese asks the API and the tiles in Portuguese, and the kiosk's
    // own words and dates are Portuguese too; the view stays where it was.
    assert.deepEqual(await page.locator('#languages button').evaluateAll((b) => b.map((x) => x.getAttribute('lang'))), ['en', 'pt', 'es']);
    await page.click('#languages button[lang="pt"]');
    await page.waitForSelector('#languages button[lang="pt"][aria-pressed="true"]');
    await page.waitForFunction(() => !(window as any).explorer.loading());
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'pt');
    assert.ok(recorded.requests.some((url) => /\/tiles\/\d+\/\d+\/\d+\.mvt\?lang=pt$/.test(url)), 'tiles in Portuguese');
    assert.ok(recorded.requests.some((url) => /\/events\?.*lang=pt/.test(url)), 'events in Portuguese');
    await page.waitForFunction(() => document.getElementById('events-title')?.textContent === 'Hoje e esta semana');
    await page.waitForSelector(`#event-list button.event[data-id="${ongoing.id}"]`);
    assert.match(await page.locator(`#event-list button.event[data-id="${ongoing.id}"] .muted`).innerText(), new RegExp(`^A decorrer, até ${until('pt')}`));
    assert.equal(await page.locator('.here-label').innerText(), 'Está aqui');
    assert.equal(await page.locator('#open-now').innerText(), 'Aberto agora');
    assert.deepEqual(await view(), start, 'the view stays');

    // Touch things: open now, a category, an event (with a QR code of where it goes on a phone), a zoom.
    await page.click('#open-now');
    await page.click('#categories button >> nth=0');
    await page.click('#event-list button.event >> nth=0');
    await page.waitForSelector('#event-title');
    const qr = page.locator('#detail .qr img');
    await qr.waitFor();
    const first = on[0];
    const target = first.url ?? `${KIOSK_PUBLIC}${KIOSK_BASE}/events/${first.id}.html`;
    assert.equal(new URL(await qr.getAttribute('src') ?? '', kioskServer.base).searchParams.get('text'), target);
    await page.waitForFunction(() => (document.querySelector('#detail .qr img') as HTMLImageElement).naturalWidth > 0);
    // No link leaves the kiosk (a page or a calendar file would strand it, with no way back): a phone takes the QR code.
    assert.equal(await page.locator('#detail a[href]').count(), 0, 'no link in the detail');
    await page.click('.leaflet-control-zoom-in');
    await page.waitForFunction((zoom) => (window as any).explorer.map.getZoom() > zoom, start.zoom);
    assert.notDeepEqual(await view(), start);

    // 45 s later a touch keeps it; 45 s after that touch it is still as left; a minute after it, back to the start.
    await page.clock.fastForward(45_000);
    await page.mouse.click(5, 300);
    await page.clock.fastForward(45_000);
    assert.equal(await page.getAttribute('body', 'data-resets'), null);
    assert.equal(await page.isVisible('#detail'), true);
    await page.clock.fastForward(16_000);
    await page.waitForSelector('body[data-resets="1"]');
    assert.equal(await page.isVisible('#detail'), false, 'the detail is closed');
    assert.equal(await page.locator('#categories button[aria-pressed="true"]').count(), 0, 'no category is chosen');
    assert.equal(await page.getAttribute('#open-now', 'aria-pressed'), 'false', 'every place, open or not');
    assert.deepEqual(await view(), start, 'the start view');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await page.waitForFunction(() => document.getElementById('events-title')?.textContent === 'Today and this week');
    assertStayedHome(recorded);
  });

  test('leaves out of the rail what is over: an event that ended an hour ago is in the day\'s answer, not in the rail', async () => {
    // An event of the week that starts and ends on one day (Lisbon); the kiosk's clock an hour after its end.
    const lisbonDate = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Lisbon' }).format(new Date(ms));
    type RailEvent = { id: string; starts_at: string; ends_at: string | null; all_day: boolean; start_date: string; end_date: string };
    const week = await api<{ events: RailEvent[] }>(server.base, `/events?map_id=${MAIN}&from=2027-06-11T00:00:00%2B01:00&to=2027-06-16T23:59:59%2B01:00&limit=60`);
    const ended = week.events.find((e) => !e.all_day && e.ends_at && lisbonDate(Date.parse(e.starts_at)) === lisbonDate(Date.parse(e.ends_at)) &&
      lisbonDate(Date.parse(e.ends_at) + 3_600_000) === lisbonDate(Date.parse(e.ends_at)))!;
    assert.ok(ended, 'the demo has an event of one day that week');
    const at = Date.parse(ended.ends_at!) + 3_600_000;
    const day = lisbonDate(at);
    const later = await startServer('node', ['--data-dir', join(dataDir, 'kiosk-later'), '--fixed-time', new Date(at).toISOString(), '--kiosk', MAIN,
      '--base-path', KIOSK_BASE], 120_000);
    try {
      const lastDay = lisbonDate(Date.parse(`${day}T12:00:00Z`) + 6 * 86_400_000);
      const answer = await api<{ events: RailEvent[] }>(later.base, `${KIOSK_BASE}/events?map_id=${MAIN}&from=${day}T00:00:00%2B01:00&to=${lastDay}T23:59:59%2B01:00&limit=60`);
      assert.ok(answer.events.some((e) => e.id === ended.id), 'the day\'s answer holds the event that is over');
      const on = answer.events.filter((e) => (e.all_day ? e.end_date >= day : !e.ends_at || Date.parse(e.ends_at) > at));
      const recorded = await newPage();
      const { page } = recorded;
      await page.goto(`${later.base}${KIOSK_BASE}/`);
      await page.waitForSelector('body.kiosk[data-ready="true"]');
      const rail = await page.locator('#event-list button.event').evaluateAll((b) => b.map((x) => (x as HTMLElement).dataset.id));
      assert.ok(!rail.includes(ended.id), 'not in the rail');
      assert.deepEqual(rail, on.map((e) => e.id));
      assertStayedHome(recorded);
    } finally {
      await later.stop();
    }
  });
});

describe('the API reference in Chromium', () => {
  test('renders every endpoint of /openapi.json', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${server.base}/docs`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    const doc = await api(server.base, '/openapi.json');
    const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.values(item as Record<string, { operationId: string }>)
      .filter((op) => op && typeof op === 'object' && 'operationId' in op).map((op) => ({ path, id: op.operationId })));
    assert.ok(operations.length >= 28, `${operations.length} operations`);
    const rendered = await page.locator('[id*="/operation/"]').evaluateAll((els) => els.map((e) => e.id.split('/operation/')[1]));
    assert.deepEqual([...new Set(rendered)].sort(), operations.map((op) => op.id).sort());
    const text = await page.textContent('body');
    for (const op of operations) assert.ok(text!.includes(op.path.replace(/_/g, ' ')) || text!.includes(op.path), op.path);
    assertStayedHome(recorded);
  });
});
