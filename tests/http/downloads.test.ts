/**
 * GPX and KML downloads: /paths/{id}.gpx and .kml, /maps/{map_id}/pois.gpx and .kml, on the demo (three languages, two
 * published versions, a disabled map), on a small bundle whose texts need escaping (and hold characters XML cannot),
 * and on one at the cap. No XSD can be fetched here: every answer is parsed with an XML parser and its required
 * elements checked (GPX 1.1's root, version, namespace, creator and metadata; KML's Placemarks and geometries), and
 * compared with what the JSON API answers of the same POIs (vertices exactly, waypoints = the path's associations, a
 * map's = its markers, or /maps/{map_id}/pois for the same tags and q). GDAL's ogrinfo reads them back as a GIS tool.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { BundleT } from '../../src/content/bundle/bundle-schema.ts';
import { GPX_CREATOR, GPX_TYPE, KML_TYPE, MAX_DOWNLOAD_POIS } from '../../src/content/model/gpx-kml.ts';
import { nameUuid } from '../../scripts/demo/ids.ts';
import { readDemoBundle } from '../helpers/app.ts';
import { ogrLayers } from '../helpers/gdal.ts';
import { oneMarkerBundle, SMALL } from '../helpers/small-bundles.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';

const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const DISABLED = 'ab5ec4f4-3cf5-5e4a-afbb-a3625e23ecbb';
const TRAM = '70228941-3597-5e58-8673-9eec445cb3bb';
const SIGHTS = '891bcaec-a8e1-5200-9452-222a69aa64b2';
const GETTING_AROUND = 'c3adb800-1ea1-5814-bb96-b9143b160610';
const V2025 = '843f44fb-f8eb-5a86-a0d0-15215a3da3af';
const DRAFT = '4c71bfd5-1681-5ccc-83fb-9875ada08569';
const GPX_NS = 'http://www.topografix.com/GPX/1/1';
const KML_NS = 'http://www.opengis.net/kml/2.2';

type Position = [number, number];
interface Waypoint { id: string; name: string; desc: string | null; lat: number; lon: number; links: string[] }
interface Track { id: string; name: string; desc: string | null; segments: Position[][] }
interface Placemark { id: string; type: string; name: string; description: string | null; geometry: { type: string; coordinates: unknown } }

/** Characters XML 1.0 allows nowhere (written out here from the XML spec's Char production). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const parser = new XMLParser({
  ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false, htmlEntities: true, trimValues: false,
  isArray: (name) => ['wpt', 'trk', 'trkseg', 'trkpt', 'link', 'Folder', 'Placemark', 'Data', 'innerBoundaryIs'].includes(name),
});

/** A body parsed as XML, after checking it is well-formed and holds nothing XML cannot. */
function parseXml(body: string): any {
  assert.equal(XMLValidator.validate(body), true, 'well-formed XML');
  assert.doesNotMatch(body, NOT_XML, 'no character XML cannot hold');
  // Not in text, as XML says (its parser above lets it pass); no answer writes a CDATA section.
  assert.doesNotMatch(body, /]]>/, 'no ]]> in text');
  assert.match(body, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/);
  return parser.parse(body);
}

/** The id of a POI from the link to its page. */
function idOfPage(href: string): string {
  const m = /^https?:\/\/[^/]+\/(markers|paths|polygons)\/([0-9a-f-]{36})\.html$/.exec(href);
  assert.ok(m, `${href} is a POI's page`);
  return m[2];
}

/** A latitude or longitude as GPX writes it: an xsd:decimal (no exponent), within range. */
function coordinate(text: string, limit: number): number {
  assert.match(text, /^-?\d+(\.\d+)?$/, `${text} is a decimal`);
  const x = Number(text);
  assert.ok(Math.abs(x) <= limit, `${text} within ±${limit}`);
  return x;
}

/** A GPX 1.1 file's metadata, waypoints and tracks, checking its required parts. */
function readGpx(body: string) {
  const { gpx } = parseXml(body);
  assert.equal(gpx.version, '1.1');
  assert.equal(gpx.xmlns, GPX_NS);
  assert.equal(gpx.creator, GPX_CREATOR);
  assert.deepEqual(Object.keys(gpx).filter((k) => !['version', 'xmlns', 'creator', '#text'].includes(k)), ['metadata', ...(gpx.wpt ? ['wpt'] : []), ...(gpx.trk ? ['trk'] : [])],
    'metadata, then waypoints, then tracks');
  const links = (x: { link?: { href: string }[] }) => (x.link ?? []).map((l) => l.href);
  const text = (x: unknown) => (typeof x === 'string' ? x : null);
  const metadata = { name: text(gpx.metadata.name), desc: text(gpx.metadata.desc), links: links(gpx.metadata) };
  const wpts: Waypoint[] = (gpx.wpt ?? []).map((w: any) => ({
    id: idOfPage(links(w)[0]), name: w.name, desc: text(w.desc), lat: coordinate(w.lat, 90), lon: coordinate(w.lon, 180), links: links(w),
  }));
  const trks: Track[] = (gpx.trk ?? []).map((t: any) => ({
    id: idOfPage(links(t)[0]), name: t.name, desc: text(t.desc),
    segments: t.trkseg.map((s: any) => s.trkpt.map((p: any) => [coordinate(p.lon, 180), coordinate(p.lat, 90)])),
  }));
  return { metadata, wpts, trks };
}

/** KML `coordinates`: lng,lat tuples. */
const positions = (text: string): Position[] => text.trim().split(/\s+/).map((t) => t.split(',').map(Number) as Position);

/** A KML 2.2 file's one Folder: its name and Placemarks, each with its id and type (ExtendedData) and geometry as GeoJSON's. */
function readKml(body: string) {
  const { kml } = parseXml(body);
  assert.equal(kml.xmlns, KML_NS);
  assert.equal(kml.Document.Folder.length, 1);
  const folder = kml.Document.Folder[0];
  const placemarks: Placemark[] = (folder.Placemark ?? []).map((p: any) => {
    const data = Object.fromEntries(p.ExtendedData.Data.map((d: any) => [d.name, d.value]));
    const geometry = p.Point ? { type: 'Point', coordinates: positions(p.Point.coordinates)[0] }
      : p.LineString ? { type: 'LineString', coordinates: positions(p.LineString.coordinates) }
      : { type: 'Polygon', coordinates: [p.Polygon.outerBoundaryIs, ...(p.Polygon.innerBoundaryIs ?? [])].map((b: any) => positions(b.LinearRing.coordinates)) };
    return { id: data.id, type: data.type, name: p.name, description: typeof p.description === 'string' ? p.description : null, geometry };
  });
  return { name: folder.name as string, placemarks };
}

let t: TestTarget;
let demo: BundleT;
before(async () => {
  demo = await readDemoBundle();
  t = await openTarget(demo);
});
after(async () => { await t?.close(); });

/** JSON of the API, 200 expected. */
async function json(target: TestTarget, path: string, headers: Record<string, string> = {}): Promise<any> {
  const { status, body } = await target.json(path, { headers });
  assert.equal(status, 200, `${path}: ${JSON.stringify(body).slice(0, 200)}`);
  return body;
}

/** A download's text, 200 and of its media type expected, with its language. */
async function download(target: TestTarget, path: string, headers: Record<string, string> = {}): Promise<{ body: string; lang: string | null; res: Response }> {
  const res = await target.get(path, { headers });
  const body = await res.text();
  assert.equal(res.status, 200, `${path}: ${body.slice(0, 300)}`);
  assert.equal(res.headers.get('content-type'), path.split('?')[0].endsWith('.gpx') ? GPX_TYPE : KML_TYPE, path);
  return { body, lang: res.headers.get('content-language'), res };
}

const enabledMaps = () => demo.maps.filter((m) => m.enabled);
const marker = (r: { lat: number; lng: number }): Position => [r.lng, r.lat];

/** The POIs a path's downloads name along it: what /poi-associations answers with include_reverse, each once, in order. */
async function stopsOf(target: TestTarget, id: string, lang: string): Promise<{ id: string; type: string; name: string; lat: number; lng: number }[]> {
  const body = await json(target, `/poi-associations?poi_ids=${id}&include_reverse=true&lang=${lang}`);
  const seen = new Set<string>();
  return body[id].map((a: any) => a.associated_poi).filter((p: { id: string }) => !seen.has(p.id) && seen.add(p.id));
}

describe('a path', () => {
  test('as GPX: a track of exactly its vertices, its associated POIs as waypoints at their points, in each language of its map', async () => {
    let checked = 0;
    for (const map of enabledMaps()) {
      for (const lang of map.languages ?? ['en']) {
        for (const path of (await json(t, `/maps/${map.id}/paths?lang=${lang}`)).paths) {
          const { body, lang: served } = await download(t, `/paths/${path.id}.gpx?lang=${lang}`);
          assert.equal(served, lang);
          const gpx = readGpx(body);
          assert.deepEqual([gpx.metadata.name, gpx.metadata.desc, gpx.metadata.links.map(idOfPage)], [path.name, path.description, [path.id]]);
          assert.equal(gpx.trks.length, 1);
          assert.deepEqual(gpx.trks[0], { id: path.id, name: path.name, desc: path.description, segments: [path.geometry.coordinates] });
          const stops = await stopsOf(t, path.id, lang);
          assert.deepEqual(gpx.wpts.map((w) => [w.id, w.name, w.lon, w.lat]), stops.map((p) => [p.id, p.name, p.lng, p.lat]));
          checked += stops.length;
        }
      }
    }
    assert.ok(checked > 0, 'the demo has paths with associated POIs');
  });

  test('as KML: a Placemark of its LineString, then one of each associated POI in its own geometry, in the language asked for', async () => {
    for (const lang of ['en', 'pt', 'es']) {
      const path = await json(t, `/paths/${TRAM}?lang=${lang}`);
      const { body, lang: served } = await download(t, `/paths/${TRAM}.kml?lang=${lang}`);
      assert.equal(served, lang);
      const kml = readKml(body);
      assert.equal(kml.name, path.name);
      const stops = await stopsOf(t, TRAM, lang);
      assert.ok(stops.length >= 5, 'the Tram 28 route has its stops');
      const records = await Promise.all(stops.map(async (s) => (await json(t, `/places-of-interest/id/${s.id}?lang=${lang}`)).record));
      assert.deepEqual(kml.placemarks, [path, ...records].map((r) => ({
        id: r.id, type: r.type, name: r.name, description: r.description, geometry: r.type === 'marker' ? { type: 'Point', coordinates: marker(r) } : r.geometry,
      })));
    }
  });
});

/** Every POI of a version of a map by kind, as the JSON API lists them (name order). */
async function poisOf(target: TestTarget, mapId: string, query: string) {
  const [markers, paths, polygons] = await Promise.all(['markers', 'paths', 'polygons'].map(async (kind) => (await json(target, `/maps/${mapId}/${kind}?${query}`))[kind]));
  return { markers, paths, polygons };
}

describe('a map', () => {
  test('as GPX: every marker a waypoint and every path a track, in name order, of each published version; polygons left out', async () => {
    for (const map of enabledMaps()) {
      for (const version of map.versions.filter((v) => v.status === 'published')) {
        const query = `version_id=${version.id}&lang=pt`;
        const { markers, paths } = await poisOf(t, map.id, query);
        const gpx = readGpx((await download(t, `/maps/${map.id}/pois.gpx?${query}`)).body);
        const name = (await json(t, `/maps/${map.id}/details?lang=pt`)).name;
        assert.equal(gpx.metadata.name, name);
        assert.match(gpx.metadata.links[0], new RegExp(`/explore\\?map=${map.id}$`));
        assert.deepEqual(gpx.wpts.map((w) => [w.id, w.name, w.desc, w.lon, w.lat]), markers.map((m: any) => [m.id, m.name, m.description, m.lng, m.lat]));
        assert.deepEqual(gpx.trks.map((k) => [k.id, k.name, k.segments]), paths.map((p: any) => [p.id, p.name, [p.geometry.coordinates]]));
        // Each links its page, then its own website.
        for (const [w, m] of gpx.wpts.map((w, k) => [w, markers[k]] as const)) assert.deepEqual(w.links.slice(1), m.website ? [m.website] : []);
      }
    }
  });

  test('as KML: a Placemark per marker (Point), path (LineString) and polygon (Polygon, with its holes), in name order', async () => {
    for (const map of enabledMaps()) {
      const { markers, paths, polygons } = await poisOf(t, map.id, 'lang=en');
      const kml = readKml((await download(t, `/maps/${map.id}/pois.kml`)).body);
      assert.equal(kml.name, (await json(t, `/maps/${map.id}/details`)).name);
      const expected = new Map([...markers, ...paths, ...polygons].map((r: any) => [r.id, {
        id: r.id, type: r.type, name: r.name, description: r.description, geometry: r.type === 'marker' ? { type: 'Point', coordinates: marker(r) } : r.geometry,
      }]));
      assert.deepEqual(new Map(kml.placemarks.map((p) => [p.id, p])), expected);
      const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
      for (let k = 1; k < kml.placemarks.length; k++) assert.ok(collator.compare(kml.placemarks[k - 1].name, kml.placemarks[k].name) <= 0, 'name order');
    }
    const park = readKml((await download(t, `/maps/${MAIN}/pois.kml?q=eduardo`)).body).placemarks;
    assert.ok(park.some((p) => p.geometry.type === 'Polygon' && (p.geometry.coordinates as unknown[]).length === 2), 'Parque Eduardo VII with its hole');
  });

  test('tags and q mean what they mean on /maps/{map_id}/pois; without tags, every POI (q still applies)', async () => {
    const items = (await json(t, `/maps/${MAIN}?all_categories=true`)).all_categories.map((c: { id: string }) => c.id);
    const every = (await json(t, `/maps/${MAIN}/pois?tags=${items.join(',')}&end=500`));
    const { markers, paths, polygons } = await poisOf(t, MAIN, '');
    assert.equal(every.total, markers.length + paths.length + polygons.length, 'every POI of the demo has a category');
    const cases = [`tags=${SIGHTS}`, `tags=${SIGHTS}&q=jeronimos`, `tags=${GETTING_AROUND}&q=tranvia&lang=es`, `tags=${SIGHTS},${GETTING_AROUND}`,
      `tags=${nameUuid('downloads', 'no such tag')}`, 'q=tram', 'q=parque&lang=pt', 'q=zzzz'];
    for (const query of cases) {
      const listed = query.includes('tags=') ? query : `tags=${items.join(',')}&${query}`;
      const { items: expected, total } = await json(t, `/maps/${MAIN}/pois?${listed}&end=500`);
      assert.ok(total < 500);
      const gpx = readGpx((await download(t, `/maps/${MAIN}/pois.gpx?${query}`)).body);
      assert.deepEqual(gpx.wpts.map((w) => [w.id, w.name]), expected.filter((p: any) => p.type === 'marker').map((p: any) => [p.id, p.name]), query);
      assert.deepEqual(gpx.trks.map((k) => [k.id, k.name]), expected.filter((p: any) => p.type === 'path').map((p: any) => [p.id, p.name]), query);
      const kml = readKml((await download(t, `/maps/${MAIN}/pois.kml?${query}`)).body);
      assert.deepEqual(kml.placemarks.map((p) => [p.id, p.name]), expected.map((p: any) => [p.id, p.name]), query);
    }
  });
});

describe('the rules every answer follows', () => {
  test('one language: lang or Accept-Language, said by Content-Language; langs=all is 400', async () => {
    const pt = readGpx((await download(t, `/paths/${TRAM}.gpx`, { 'accept-language': 'pt-PT, en;q=0.5' })).body);
    assert.equal(pt.metadata.name, 'Percurso do Elétrico 28');
    const { lang } = await download(t, `/maps/${MAIN}/pois.kml?tags=${SIGHTS}`, { 'accept-language': 'es' });
    assert.equal(lang, 'es');
    for (const path of [`/paths/${TRAM}.gpx?langs=all`, `/maps/${MAIN}/pois.kml?langs=all`]) {
      const { status, body } = await t.json(path);
      assert.equal(status, 400, path);
      assert.equal(body.errors[0].name, 'langs');
    }
    // ... named in the same 400 as every other bad parameter.
    for (const [path, names] of [['/paths/not-a-uuid.gpx?langs=all', ['id', 'langs']], [`/maps/${MAIN}/pois.kml?langs=all&tags=not-a-uuid`, ['langs', 'tags']]] as const) {
      const { status, body } = await t.json(path);
      assert.equal(status, 400, path);
      assert.deepEqual(body.errors.map((e: { name: string }) => e.name).sort(), names, path);
    }
  });

  test('a strong ETag and 304, per language; compressed when asked', async () => {
    for (const path of [`/paths/${TRAM}.gpx`, `/maps/${MAIN}/pois.kml?tags=${SIGHTS}`]) {
      const first = await t.get(path);
      const etag = first.headers.get('etag')!;
      assert.match(etag, /^"[^"]+"$/);
      assert.match(first.headers.get('vary') ?? '', /Accept-Language/);
      assert.equal((await t.get(path, { headers: { 'if-none-match': etag } })).status, 304);
      const pt = await t.get(`${path}${path.includes('?') ? '&' : '?'}lang=pt`, { headers: { 'if-none-match': etag } });
      assert.equal(pt.status, 200, 'another language is another answer');
      assert.notEqual(pt.headers.get('etag'), etag);
      const gzip = await t.get(path, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(gzip.headers.get('content-encoding'), 'gzip');
    }
  });

  test('404 for a path or map that is not public or not one, and a version that is not published; 400 for bad ids', async () => {
    const disabledMarker = demo.markers.find((m) => m.map_id === DISABLED)!;
    const notFound = [`/paths/${nameUuid('downloads', 'no such path')}.gpx`, `/paths/${demo.markers[0].id}.kml`, `/paths/${disabledMarker.id}.gpx`,
      `/maps/${DISABLED}/pois.gpx`, `/maps/${nameUuid('downloads', 'no such map')}/pois.kml`, `/maps/${MAIN}/pois.gpx?version_id=${DRAFT}`];
    for (const path of notFound) {
      const res = await t.get(path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json\b/, path);
    }
    for (const [path, name] of [['/paths/not-a-uuid.gpx', 'id'], [`/maps/${MAIN}/pois.kml?tags=nope`, 'tags'], [`/maps/${MAIN}/pois.gpx?version_id=2025`, 'version_id']]) {
      const { status, body } = await t.json(path);
      assert.equal(status, 400, path);
      assert.deepEqual(body.errors.map((e: { name: string }) => e.name), [name], path);
    }
    assert.equal((await download(t, `/maps/${MAIN}/pois.gpx?version_id=${V2025}`)).res.status, 200);
  });
});

/** A map whose texts need escaping and hold characters XML cannot, a path with a stop each way, a point near 0,0. */
const TRICKY = {
  map: 'Town & <Country> "Guide"',
  marker: 'Fish & Chips <"Joe\'s"> \u0001café',
  path: { id: nameUuid('downloads', 'path'), name: 'Trail & "Loop" <1> \'A\'', description: 'It\'s <b>bold</b> & \u0007"quoted" ]]>' },
  polygon: { id: nameUuid('downloads', 'polygon'), name: 'Park\'s <&> area' },
  tiny: { id: nameUuid('downloads', 'tiny'), name: 'Null Island buoy' },
  disabledMap: nameUuid('downloads', 'disabled map'),
  disabledPath: nameUuid('downloads', 'disabled path'),
};

function trickyBundle(): BundleT {
  const b = oneMarkerBundle(TRICKY.marker);
  const map = b.maps[0];
  map.name = TRICKY.map;
  const created = b.markers[0].created_at;
  b.markers.push({ id: TRICKY.tiny.id, map_id: map.id, name: TRICKY.tiny.name, category_ids: [], lat: -0.0000001, lng: 0.0000005, created_at: created });
  b.paths.push({ id: TRICKY.path.id, map_id: map.id, name: TRICKY.path.name, description: TRICKY.path.description, category_ids: [], created_at: created,
    geometry: { type: 'LineString', coordinates: [[-8.6851, 39.2368], [-8.6849, 39.2371], [-8.684, 39.238]] } });
  b.polygons.push({ id: TRICKY.polygon.id, map_id: map.id, name: TRICKY.polygon.name, category_ids: [], created_at: created,
    geometry: { type: 'Polygon', coordinates: [[[-8.69, 39.23], [-8.68, 39.23], [-8.68, 39.24], [-8.69, 39.23]]] } });
  // The path's marker, and the polygon whose mutual association names the path (the path sees it from the other side).
  b.associations.push(
    { id: nameUuid('downloads', 'a1'), poi_id: TRICKY.path.id, associated_poi_id: SMALL.town.marker, mutual: false, list_id: null, sort_order: 1, created_at: created },
    { id: nameUuid('downloads', 'a2'), poi_id: TRICKY.polygon.id, associated_poi_id: TRICKY.path.id, mutual: true, list_id: null, sort_order: 0, created_at: created });
  const version = nameUuid('downloads', 'disabled version');
  b.maps.push({ ...map, id: TRICKY.disabledMap, slug: 'off', enabled: false, versions: [{ id: version, name: '2027', status: 'published' }], current_version_id: version });
  b.paths.push({ id: TRICKY.disabledPath, map_id: TRICKY.disabledMap, name: 'Closed trail', category_ids: [], created_at: created,
    geometry: { type: 'LineString', coordinates: [[-8.6, 39.2], [-8.5, 39.3]] } });
  return b;
}

/** What a text becomes in XML: the characters XML cannot hold left out. */
const inXml = (text: string) => text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

describe('texts that need escaping', () => {
  let small: TestTarget;
  before(async () => { small = await openTarget(trickyBundle()); });
  after(async () => { await small?.close(); });

  test('&, <, >, " and \' are escaped and read back as written; characters XML cannot hold are left out', async () => {
    const { body } = await download(small, `/paths/${TRICKY.path.id}.gpx`);
    assert.ok(body.includes(`<name>Trail &amp; &quot;Loop&quot; &lt;1&gt; &apos;A&apos;</name>`), 'GPX escapes all five');
    const gpx = readGpx(body);
    assert.deepEqual([gpx.metadata.name, gpx.metadata.desc], [TRICKY.path.name, inXml(TRICKY.path.description)]);
    // The marker forward, the polygon seen from the path (a mutual association), each once, in association order.
    assert.deepEqual(gpx.wpts.map((w) => [w.id, w.name]), [[TRICKY.polygon.id, TRICKY.polygon.name], [SMALL.town.marker, inXml(TRICKY.marker)]]);
    const kml = readKml((await download(small, `/paths/${TRICKY.path.id}.kml`)).body);
    assert.deepEqual(kml.placemarks.map((p) => [p.name, p.description, p.geometry.type]),
      [[TRICKY.path.name, inXml(TRICKY.path.description), 'LineString'], [TRICKY.polygon.name, null, 'Polygon'], [inXml(TRICKY.marker), null, 'Point']]);
    for (const format of ['gpx', 'kml']) {
      const whole = await download(small, `/maps/${SMALL.town.map}/pois.${format}`);
      const names = format === 'gpx' ? [readGpx(whole.body).metadata.name] : [readKml(whole.body).name];
      assert.deepEqual(names, [TRICKY.map]);
    }
  });

  test('a point within a micro-degree of 0,0 is written as a decimal, never in exponent form', async () => {
    const gpx = readGpx((await download(small, `/maps/${SMALL.town.map}/pois.gpx?q=buoy`)).body);
    assert.deepEqual(gpx.wpts.map((w) => [w.lat, w.lon]), [[-0.0000001, 0.0000005]]);
  });

  test('a path of a disabled map is 404', async () => {
    assert.equal((await small.get(`/paths/${TRICKY.disabledPath}.gpx`)).status, 404);
    assert.equal((await small.get(`/maps/${TRICKY.disabledMap}/pois.kml`)).status, 404);
  });
});

describe('the cap', () => {
  test(`${MAX_DOWNLOAD_POIS.toLocaleString('en')} POIs are written, one more is 400 naming tags; GPX counts no polygons`, async () => {
    // Markers and a path up to the cap exactly, and a polygon: at the cap in GPX, one over it in KML.
    const b = oneMarkerBundle('Lighthouse');
    const { created_at } = b.markers[0];
    for (let i = 1; i < MAX_DOWNLOAD_POIS - 1; i++) {
      b.markers.push({ id: nameUuid('downloads', `cap ${i}`), map_id: SMALL.town.map, name: `Place ${i}`, category_ids: [], lat: 39 + i * 1e-5, lng: -8.7, created_at });
    }
    b.paths.push({ id: nameUuid('downloads', 'cap path'), map_id: SMALL.town.map, name: 'Walk', category_ids: [], created_at,
      geometry: { type: 'LineString', coordinates: [[-8.7, 39], [-8.6, 39.1]] } });
    b.polygons.push({ id: nameUuid('downloads', 'cap polygon'), map_id: SMALL.town.map, name: 'Park', category_ids: [], created_at,
      geometry: { type: 'Polygon', coordinates: [[[-8.7, 39], [-8.6, 39], [-8.6, 39.1], [-8.7, 39]]] } });
    const big = await openTarget(b);
    try {
      const gpx = readGpx((await download(big, `/maps/${SMALL.town.map}/pois.gpx`)).body);
      assert.equal(gpx.wpts.length + gpx.trks.length, MAX_DOWNLOAD_POIS);
      const res = await big.get(`/maps/${SMALL.town.map}/pois.kml`);
      assert.equal(res.status, 400);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json\b/);
      const problem = await res.json();
      assert.equal(problem.errors[0].name, 'tags');
      assert.match(problem.errors[0].reason, /would hold 10,001 POIs, more than 10,000: narrow it with tags \(categories\) or q \(a name\)$/);
      assert.deepEqual(readKml((await download(big, `/maps/${SMALL.town.map}/pois.kml?q=lighthouse`)).body).placemarks.map((p) => p.name), ['Lighthouse']);
    } finally {
      await big.close();
    }
  });
});

describe('read back by GDAL (ogrinfo)', () => {
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'downloads-')); });
  after(() => { rmSync(dir, { recursive: true, force: true }); });

  /** The layers GDAL reads in a download, saved to a file of its suffix. */
  async function layers(target: TestTarget, path: string): Promise<{ driver: string; counts: Record<string, number> }> {
    const file = join(dir, `download.${path.split('?')[0].split('.').pop()}`);
    writeFileSync(file, (await download(target, path)).body);
    const read = ogrLayers(file);
    return { driver: read.driver, counts: Object.fromEntries(read.layers.map((l) => [l.name, l.features])) };
  }

  test('a path\'s GPX: its stops as waypoints, one track of its vertices; its KML one layer of it and its stops', async () => {
    const path = await json(t, `/paths/${TRAM}`);
    const stops = await stopsOf(t, TRAM, 'en');
    const gpx = await layers(t, `/paths/${TRAM}.gpx`);
    assert.equal(gpx.driver, 'GPX');
    assert.deepEqual([gpx.counts.waypoints, gpx.counts.tracks, gpx.counts.track_points], [stops.length, 1, path.geometry.coordinates.length]);
    assert.deepEqual((await layers(t, `/paths/${TRAM}.kml`)).counts, { [path.name]: 1 + stops.length });
  });

  test('a map\'s GPX: its markers as waypoints, its paths as tracks; its KML one layer named after it with every POI', async () => {
    for (const map of enabledMaps()) {
      const { markers, paths, polygons } = await poisOf(t, map.id, '');
      const gpx = await layers(t, `/maps/${map.id}/pois.gpx`);
      assert.deepEqual([gpx.counts.waypoints, gpx.counts.tracks, gpx.counts.track_points],
        [markers.length, paths.length, paths.reduce((n: number, p: any) => n + p.geometry.coordinates.length, 0)]);
      const name = (await json(t, `/maps/${map.id}/details?lang=pt`)).name;
      assert.deepEqual((await layers(t, `/maps/${map.id}/pois.kml?lang=pt`)).counts, { [name]: markers.length + paths.length + polygons.length });
    }
  });

  test('texts that needed escaping read back as written', async () => {
    const small = await openTarget(trickyBundle());
    try {
      assert.deepEqual((await layers(small, `/maps/${SMALL.town.map}/pois.kml`)).counts, { [TRICKY.map]: 4 });
      assert.deepEqual((await layers(small, `/paths/${TRICKY.path.id}.gpx`)).counts.waypoints, 2);
    } finally {
      await small.close();
    }
  });
});
