/**
 * Vector tiles: /maps/{map_id}/tiles.json, /maps/{map_id}/tiles/{z}/{x}/{y}.mvt and /maps/{map_id}/style.json over a map
 * of knots, scattered markers, markers either side of the antimeridian and at the poles (tilesBundle). Tiles are
 * decoded with @mapbox/vector-tile, as a map SDK reads them, and compared with a brute force of the test's own over the
 * bundle: every marker counted once in the z0 tile; above the cluster zoom, exactly the markers whose position lies in
 * the tile grown by the documented buffer (across the antimeridian too); a cluster's category the one most of its
 * markers have; `tags` meaning what it means on /maps/{map_id}/pois.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VectorTile, type VectorTileLayer } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { openTestApp } from '../helpers/app.ts';
import { findMapVersion } from '../../src/routes/shared.ts';
import { TILES, tilesBundle } from '../helpers/small-bundles.ts';
import { F, makeFixture } from '../helpers/fixture.ts';
import { CLUSTER_MAX_ZOOM, CLUSTER_RADIUS, KEPT_TAG_SETS, versionTiles } from '../../src/content/model/map-tiles.ts';

const bundle = tilesBundle();
const markers = bundle.markers.filter((m) => m.map_id === TILES.map);
const categories = new Map(bundle.categories.map((c) => [c.id, c]));

/** The top-level category above the first of `ids` that is a category (not a tag), as the docs say. */
function topOf(ids: readonly string[]): string | undefined {
  let at = ids.map((id) => categories.get(id)).find((c) => c?.kind === 'category');
  while (at?.parent_id) at = categories.get(at.parent_id);
  return at?.id;
}

/** Every category at or below `id`. */
function subtree(id: string): Set<string> {
  const ids = new Set([id]);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of bundle.categories) if (c.parent_id && ids.has(c.parent_id) && !ids.has(c.id)) { ids.add(c.id); grew = true; }
  }
  return ids;
}

// Web Mercator in the unit square, and a position as the cluster index keeps it (to 2^-30 of the world).
const SCALE = 2 ** 30;
const unitX = (lng: number) => lng / 360 + 0.5;
const unitY = (lat: number) => {
  const sin = Math.sin((lat * Math.PI) / 180);
  const y = 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI;
  return y < 0 ? 0 : y > 1 ? 1 : y;
};
const kept = (c: number) => (c - 0.5) * SCALE | 0;

/** The markers (of `among`) a tile above the cluster zoom holds: inside the tile grown by radius / extent, wrapping. */
function bruteTile(z: number, x: number, y: number, among = markers): Set<string> {
  const n = 2 ** z;
  const p = CLUSTER_RADIUS / 512;
  const within = (m: { lng: number; lat: number }, x0: number, x1: number) => {
    const mx = kept(unitX(m.lng));
    const my = kept(unitY(m.lat));
    return mx >= (x0 - 0.5) * SCALE && mx <= (x1 - 0.5) * SCALE && my >= ((y - p) / n - 0.5) * SCALE && my <= ((y + 1 + p) / n - 0.5) * SCALE;
  };
  const out = new Set<string>();
  for (const m of among) {
    if (within(m, (x - p) / n, (x + 1 + p) / n)) out.add(m.id);
    if (x === 0 && within(m, 1 - p / n, 1)) out.add(m.id);
    if (x === n - 1 && within(m, 0, p / n)) out.add(m.id);
  }
  return out;
}

/** The tile holding a position at zoom z. */
function tileAt(z: number, lng: number, lat: number): [number, number] {
  const n = 2 ** z;
  return [Math.min(n - 1, Math.floor(unitX(lng) * n)), Math.min(n - 1, Math.floor(unitY(lat) * n))];
}

let t: TestTarget;
before(async () => { t = await openTarget(bundle); });
after(async () => { await t.close(); });

interface Decoded { status: number; bytes: Uint8Array; layers: Record<string, VectorTileLayer>; res: Response }

async function tile(z: number, x: number, y: number, query = '', init?: RequestInit): Promise<Decoded> {
  const res = await t.get(`/maps/${TILES.map}/tiles/${z}/${x}/${y}.mvt${query}`, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  // The body as sent: compressed only when a test asks for it (and then not decoded).
  const plain = !res.headers.get('content-encoding');
  const layers = res.status === 200 && bytes.length > 0 && plain ? new VectorTile(new PbfReader(bytes)).layers : {};
  return { status: res.status, bytes, layers, res };
}

function features(layer: VectorTileLayer | undefined) {
  const out = [];
  for (let i = 0; layer && i < layer.length; i++) {
    const f = layer.feature(i);
    out.push({ properties: f.properties, geometry: f.loadGeometry(), id: f.id });
  }
  return out;
}

/**
 * The markers a z0 tile counts: the point_counts of its clusters and its single markers whose point lies inside it.
 * Wrapped copies lie beyond the tile's left and right edges; the bottom edge holds the south pole.
 */
function countedAtZ0(layer: VectorTileLayer | undefined): number {
  let total = 0;
  for (const f of features(layer)) {
    const [[pt]] = f.geometry;
    if (pt.x < 0 || pt.x >= 512 || pt.y < 0 || pt.y > 512) continue;
    total += f.properties.cluster === true ? Number(f.properties.point_count) : 1;
  }
  return total;
}

describe('vector tiles', () => {
  test('the z0 tile counts every marker once: the point_counts and single markers that lie inside it', async () => {
    for (const lang of ['en', 'pt']) {
      const { status, res, layers } = await tile(0, 0, 0, `?lang=${lang}`);
      assert.equal(status, 200);
      assert.equal(res.headers.get('content-type'), 'application/vnd.mapbox-vector-tile');
      const layer = layers.markers;
      assert.equal(layer.extent, 512);
      assert.equal(layer.version, 2);
      assert.equal(countedAtZ0(layer), markers.length, lang);
    }
  });

  test('a cluster has its count, a label, its id and the top-level category most of its markers have', async () => {
    // At z0 the Lisbon knots (1,200 markers within 0.01 degrees) are one cluster, which holds them all and a few more at most.
    const { layers } = await tile(0, 0, 0);
    const clusters = features(layers.markers).filter((f) => f.properties.cluster === true);
    assert.ok(clusters.length > 0);
    for (const c of clusters) {
      assert.equal(typeof c.properties.label, 'string');
      assert.equal(typeof c.properties.cluster_id, 'number');
      assert.equal(c.id, c.properties.cluster_id);
      const count = Number(c.properties.point_count);
      assert.equal(c.properties.label, count < 1000 ? String(count) : count < 10_000 ? `${Math.floor(count / 100) / 10}k` : `${Math.floor(count / 1000)}k`);
      assert.match(String(c.properties.color), /^#[0-9a-f]{6}$/);
    }
    // The whole world at z0 with radius 60: the biggest cluster's category is the commonest top-level category of the
    // markers of its knot; the choices cycle, so for a knot of equal shares it is the first in the map's order that
    // has the most. Checked on a cluster that holds a whole knot alone: Tokyo's (400 markers within 0.05 degrees).
    const tokyo = markers.filter((m) => Math.abs(m.lng - 139.7) < 0.1 && Math.abs(m.lat - 35.68) < 0.1);
    const counts = new Map<string, number>();
    for (const m of tokyo) { const top = topOf(m.category_ids); if (top) counts.set(top, (counts.get(top) ?? 0) + 1); }
    const order = bundle.categories.filter((c) => c.parent_id === null && c.kind === 'category').sort((a, b) => a.sort_order - b.sort_order).map((c) => c.id);
    const best = [...counts].sort((a, b) => b[1] - a[1] || order.indexOf(a[0]) - order.indexOf(b[0]))[0][0];
    const z = 6;
    const [x, y] = tileAt(z, 139.7, 35.68);
    const near = features((await tile(z, x, y)).layers.markers).filter((f) => f.properties.cluster === true)
      .sort((a, b) => Number(b.properties.point_count) - Number(a.properties.point_count));
    assert.equal(Number(near[0].properties.point_count), tokyo.length);
    assert.equal(near[0].properties.category, best);
  });

  test(`above zoom ${CLUSTER_MAX_ZOOM} a tile holds exactly the markers inside it and its buffer, each with its fields`, async () => {
    const byId = new Map(markers.map((m) => [m.id, m]));
    let checked = 0;
    // The tile of every 40th marker at z15 and z16, and its neighbours.
    for (const z of [CLUSTER_MAX_ZOOM + 1, CLUSTER_MAX_ZOOM + 2]) {
      for (let i = 0; i < markers.length; i += 40) {
        const [x0, y0] = tileAt(z, markers[i].lng, markers[i].lat);
        for (const [x, y] of [[x0, y0], [(x0 + 1) % 2 ** z, y0]]) {
          const got = features((await tile(z, x, y, '?lang=pt')).layers.markers);
          assert.ok(got.every((f) => f.properties.cluster === undefined), 'no clusters above the cluster zoom');
          assert.deepEqual(new Set(got.map((f) => f.properties.id)), bruteTile(z, x, y), `${z}/${x}/${y}`);
          for (const f of got) {
            const m = byId.get(String(f.properties.id))!;
            assert.equal(f.properties.name, (m.name as { pt: string }).pt);
            assert.equal(f.properties.category, topOf(m.category_ids));
            const own = m.icon_id === TILES.cafeIcon ? 'cafe' : undefined;
            assert.equal(f.properties.icon, own ?? (topOf(m.category_ids) === TILES.category('sights') ? 'museum' : 'marker'));
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 100, `${checked} markers checked`);
  });

  test('across the antimeridian: the first and last columns each hold the markers just beyond the other edge', async () => {
    const z = 16;
    const n = 2 ** z;
    const row = tileAt(z, 180, -16.5)[1];
    for (const x of [0, n - 1]) {
      const got = new Set(features((await tile(z, x, row)).layers.markers).map((f) => f.properties.id));
      const want = bruteTile(z, x, row);
      assert.deepEqual(got, want);
      const east = [...want].filter((id) => markers.find((m) => m.id === id)!.lng > 0).length;
      assert.ok(east > 0 && east < want.size, `column ${x} holds markers of both sides (${east} of ${want.size} east)`);
    }
    // The path across the date line, its two parts cut at 180°: each part is in the tile of its side, and the part of
    // the other side reaches into that tile's buffer across the line; no tile away from the line holds either.
    const pathsIn = async (x: number, y: number) => new Set(features((await tile(9, x, y)).layers.paths).map((f) => f.properties.id));
    const [east, y9] = tileAt(9, 179.95, -16.52);
    const [west] = tileAt(9, -179.85, -16.52);
    assert.deepEqual([east, west], [511, 0]);
    const both = new Set([TILES.dateLinePath, TILES.dateLinePathEast]);
    assert.deepEqual(await pathsIn(east, y9), both, `9/${east}/${y9}`);
    assert.deepEqual(await pathsIn(west, y9), both, `9/${west}/${y9}`);
    for (const x of [1, 2, 256, 509, 510]) assert.equal((await pathsIn(x, y9)).size, 0, `9/${x}/${y9}`);
    // The west part is drawn where it lies: in the east column's tile, up to the tile's right edge (x = 4096).
    const westPart = features((await tile(9, east, y9)).layers.paths).find((f) => f.properties.id === TILES.dateLinePath)!;
    const xs = westPart.geometry.flat().map((p) => p.x);
    assert.ok(Math.max(...xs) >= 4096 && Math.max(...xs) <= 4096 + 64 && Math.min(...xs) >= 0, `west part spans x ${Math.min(...xs)}..${Math.max(...xs)}`);
  });

  test('tags keep the POIs under any of them, with the items below them, as on /maps/{map_id}/pois', async () => {
    for (const tags of [[TILES.category('food')], [TILES.category('free'), TILES.category('sights')]]) {
      const wanted = new Set(tags.flatMap((tag) => [...subtree(tag)]));
      const among = markers.filter((m) => m.category_ids.some((c) => wanted.has(c)));
      const { layers } = await tile(0, 0, 0, `?tags=${tags.join(',')}`);
      assert.equal(countedAtZ0(layers.markers), among.length);
      const listed = await t.json(`/maps/${TILES.map}/pois?tags=${tags.join(',')}&end=1`);
      assert.equal(listed.body.total, among.length + (tags.includes(TILES.category('sights')) ? 1 : 0), 'the same POIs as /pois (and the polygon)');
      const [x, y] = tileAt(16, -9.14, 38.71);
      const got = new Set(features((await tile(16, x, y, `?tags=${tags.join(',')}`)).layers.markers).map((f) => f.properties.id));
      assert.deepEqual(got, bruteTile(16, x, y, among));
    }
    // Tags that name nothing: an empty tile.
    const none = await tile(0, 0, 0, '?tags=00000000-0000-4000-8000-000000000000');
    assert.equal(none.status, 200);
    assert.equal(none.bytes.length, 0);
  });

  test(`more tag sets than the ${KEPT_TAG_SETS} kept: each answers its own markers, the first again after more were asked`, async () => {
    const keys = ['sights', 'food', 'bakeries', 'parks', 'free'];
    const sets: string[][] = [];
    for (let mask = 1; sets.length < KEPT_TAG_SETS + 2; mask++) sets.push(keys.filter((_, k) => mask & (1 << k)).map((key) => TILES.category(key)));
    for (const tags of [...sets, sets[0]]) {
      const wanted = new Set(tags.flatMap((tag) => [...subtree(tag)]));
      const among = markers.filter((m) => m.category_ids.some((c) => wanted.has(c)));
      assert.equal(countedAtZ0((await tile(0, 0, 0, `?tags=${tags.join(',')}`)).layers.markers), among.length, tags.join(','));
    }
  });

  test('tags keep the paths and polygons under them too', async () => {
    const [x, y] = tileAt(14, -9.1475, 38.7175);
    const ids = async (query: string) => {
      const { layers } = await tile(14, x, y, query);
      return [...features(layers.paths), ...features(layers.polygons)].map((f) => f.properties.id).sort();
    };
    assert.deepEqual(await ids(''), [TILES.path, TILES.polygon].sort());
    assert.deepEqual(await ids(`?tags=${TILES.category('sights')}`), [TILES.polygon]);
    assert.deepEqual(await ids(`?tags=${TILES.category('parks')}`), [TILES.path]);
    assert.deepEqual(await ids(`?tags=${TILES.category('food')}`), []);
  });

  test('paths and polygons: in the tiles they cross, with their ids, names and categories', async () => {
    const [x, y] = tileAt(14, -9.1475, 38.7175);
    const { layers } = await tile(14, x, y, '?lang=pt');
    const polygon = features(layers.polygons).find((f) => f.properties.id === TILES.polygon);
    assert.ok(polygon);
    assert.equal(polygon.properties.category, TILES.category('sights'));
    assert.equal(polygon.properties.color, '#aa3300');
    assert.equal(layers.polygons.extent, 4096);
    const path = bundle.paths.find((p) => p.id === TILES.path)!;
    for (const [lng, lat] of path.geometry.coordinates.filter((_, i) => i % 50 === 0)) {
      const [px, py] = tileAt(15, lng, lat);
      const got = features((await tile(15, px, py, '?lang=pt')).layers.paths).find((f) => f.properties.id === TILES.path);
      assert.ok(got, `15/${px}/${py}`);
      assert.equal(got.properties.name, 'Passeio do rio');
    }
  });

  test('an empty tile is 200 with an empty body; ETag, 304 and compression as every answer', async () => {
    const [x, y] = tileAt(16, -30, -50);
    const empty = await tile(16, x, y);
    assert.equal(empty.status, 200);
    assert.equal(empty.bytes.length, 0);
    const [fx, fy] = tileAt(14, -9.1601, 38.7051);
    const full = await tile(14, fx, fy, '', { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(full.status, 200);
    assert.equal(full.res.headers.get('content-encoding'), 'gzip');
    const etag = full.res.headers.get('etag')!;
    assert.ok(etag);
    const again = await t.get(`/maps/${TILES.map}/tiles/14/${fx}/${fy}.mvt`, { headers: { 'if-none-match': etag, 'accept-encoding': 'gzip' } });
    assert.equal(again.status, 304);
    // HEAD: the headers of the GET beside it, no body. (A tile served again may be compressed again more strongly,
    // under a new ETag: docs/operating.md, HTTP caching; so the GET is asked until its ETag stays.)
    const url = `/maps/${TILES.map}/tiles/14/${fx}/${fy}.mvt`;
    const settled = async () => {
      let last = '';
      for (let i = 0; i < 100; i++) {
        const got = await t.get(url, { headers: { 'accept-encoding': 'gzip' } });
        await got.arrayBuffer();
        if (got.headers.get('etag') === last) return got;
        last = got.headers.get('etag') ?? '';
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${url}: its ETag did not settle`);
    };
    const get = await settled();
    const head = await t.get(url, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(head.status, 200);
    for (const name of ['etag', 'content-type', 'content-encoding', 'content-length', 'cache-control', 'vary']) {
      assert.equal(head.headers.get(name), get.headers.get(name), name);
    }
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  });

  test('bad coordinates are 400 naming each; a disabled or unknown map is 404', async () => {
    const bad = await t.json(`/maps/${TILES.map}/tiles/2/4/9.mvt`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.errors.map((e: { name: string }) => e.name).sort(), ['x', 'y']);
    const zoom = await t.json(`/maps/${TILES.map}/tiles/23/0/0.mvt`);
    assert.equal(zoom.status, 400);
    assert.deepEqual(zoom.body.errors.map((e: { name: string }) => e.name), ['z']);
    const tags = await t.json(`/maps/${TILES.map}/tiles/0/0/0.mvt?tags=nope`);
    assert.equal(tags.status, 400);
    assert.deepEqual(tags.body.errors.map((e: { name: string }) => e.name), ['tags']);
    // The range said is the zoom's grid, whether the number is beyond it, beyond the deepest zoom's or below 0.
    const range = 'must be a whole number from 0 to 7 at zoom 3 (below 2^z)';
    for (const [x, y] of [['99999999', '-1'], ['8', '1.5'], ['-1', '4194304']]) {
      const { status, body } = await t.json(`/maps/${TILES.map}/tiles/3/${x}/${y}.mvt`);
      assert.equal(status, 400);
      assert.deepEqual(body.errors.map((e: { name: string; reason: string }) => [e.name, e.reason]).sort(), [['x', range], ['y', range]], `3/${x}/${y}`);
    }
    // One 400 names every bad parameter: a column beyond the grid, a row below 0 and a bad tag at once.
    const several = await t.json(`/maps/${TILES.map}/tiles/1/5/-1.mvt?tags=nope`);
    assert.equal(several.status, 400);
    assert.deepEqual(several.body.errors.map((e: { name: string }) => e.name).sort(), ['tags', 'x', 'y']);
    // Names are in one language: every language at once is 400 naming langs.
    const all = await t.json(`/maps/${TILES.map}/tiles/0/0/0.mvt?langs=all`);
    assert.equal(all.status, 400);
    assert.deepEqual(all.body.errors.map((e: { name: string }) => e.name), ['langs']);
    // ... named in the same 400 as every other bad parameter.
    const allAndMore = await t.json(`/maps/${TILES.map}/tiles/1/5/-1.mvt?tags=nope&langs=all`);
    assert.deepEqual(allAndMore.body.errors.map((e: { name: string }) => e.name).sort(), ['langs', 'tags', 'x', 'y']);
    for (const path of [`/maps/${TILES.map}/tiles.json?langs=all&version_id=nope`, `/maps/${TILES.map}/style.json?langs=all&version_id=nope`]) {
      const { status, body } = await t.json(path);
      assert.equal(status, 400, path);
      assert.deepEqual(body.errors.map((e: { name: string }) => e.name).sort(), ['langs', 'version_id'], path);
    }
    for (const path of [`/maps/${TILES.disabled}/tiles/0/0/0.mvt`, `/maps/${TILES.map}/tiles/0/0/0.mvt?version_id=00000000-0000-4000-8000-000000000000`, `/maps/${TILES.disabled}/tiles.json`, `/maps/${TILES.disabled}/style.json`,
      '/maps/00000000-0000-4000-8000-000000000000/tiles/0/0/0.mvt',
      // The suffix is .mvt only.
      `/maps/${TILES.map}/tiles/0/0/0.pbf`]) {
      assert.equal((await t.get(path)).status, 404, path);
    }
    // A tile asked for with another suffix is told the one served.
    const pbf = await t.json(`/maps/${TILES.map}/tiles/0/0/0.pbf`);
    assert.match(pbf.body.detail, /^No route matches \/maps\/[^ ]+\/tiles\/0\/0\/0\.pbf\. A map's vector tiles end in \.mvt: /);
    assert.doesNotMatch((await t.json('/maps/nope/places.pbf')).body.detail, /\.mvt/);
  });
});

describe('tiles of each published version', () => {
  let demo: TestTarget;
  before(async () => { demo = await openTarget(makeFixture()); });
  after(async () => { await demo.close(); });

  test('the z0 tile of each version counts that version\'s markers, as /maps/{map_id}/markers lists them', async () => {
    const counts: number[] = [];
    for (const version of [F.v1, F.v2]) {
      const listed = await demo.json(`/maps/${F.map}/markers?version_id=${version}&end=100000`);
      assert.equal(listed.status, 200);
      const res = await demo.get(`/maps/${F.map}/tiles/0/0/0.mvt?version_id=${version}`);
      assert.equal(res.status, 200);
      const layer = new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer()))).layers.markers;
      const total = countedAtZ0(layer);
      assert.equal(total, listed.body.markers.length, version);
      counts.push(total);
    }
    assert.notEqual(counts[0], counts[1], 'the versions hold different markers');
  });
});

describe('TileJSON and style', () => {
  test('tiles.json is TileJSON 3.0.0 with an absolute tile URL carrying the version, tags and language asked for', async () => {
    const { status, body } = await t.json(`/maps/${TILES.map}/tiles.json?tags=${TILES.category('food')}&lang=pt`);
    assert.equal(status, 200);
    assert.equal(body.tilejson, '3.0.0');
    assert.equal(body.scheme, 'xyz');
    assert.equal(body.tiles.length, 1);
    const url = new URL(body.tiles[0].replace('{z}/{x}/{y}', '0/0/0'));
    assert.match(url.pathname, new RegExp(`/maps/${TILES.map}/tiles/0/0/0\\.mvt$`));
    assert.equal(url.searchParams.get('tags'), TILES.category('food'));
    // Each tag once, as asked.
    const twice = (await t.json(`/maps/${TILES.map}/tiles.json?tags=${TILES.category('food')},${TILES.category('food')}`)).body;
    assert.equal(new URL(twice.tiles[0].replace('{z}/{x}/{y}', '0/0/0')).searchParams.get('tags'), TILES.category('food'));
    assert.equal(url.searchParams.get('lang'), 'pt');
    assert.deepEqual(body.vector_layers.map((l: { id: string }) => l.id), ['markers', 'paths', 'polygons']);
    // The attribution is the publisher's name in the language answered, as text in the HTML map SDKs make of it.
    assert.equal(body.attribution, 'Escritório &#60;de&#62; mapas');
    assert.equal((await t.json(`/maps/${TILES.map}/tiles.json?lang=en`)).body.attribution, 'Tiles &#60;office&#62; &#38; co');
    // A version asked for is carried too.
    const version = bundle.maps.find((m) => m.id === TILES.map)!.current_version_id;
    const pinned = (await t.json(`/maps/${TILES.map}/tiles.json?version_id=${version}`)).body;
    assert.equal(new URL(pinned.tiles[0].replace('{z}/{x}/{y}', '0/0/0')).searchParams.get('version_id'), version);
    // The URL it gives answers.
    const got = await tile(0, 0, 0, url.search);
    assert.equal(got.status, 200);
    assert.ok(got.layers.markers.length > 0);
  });

  test('tiles.json bounds hold the declared bounds and every POI, never wrapping; its centre zoom is whole, within its zooms', async () => {
    const near = (got: number[], want: number[]) => assert.ok(got.length === want.length && got.every((g, i) => Math.abs(g - want[i]) < 1e-6), `${got} ≠ ${want}`);
    // A marker 20 km west of the declared bounds: a map SDK asks for no tile outside them, so they grow to hold it.
    const bounded = (await t.json(`/maps/${TILES.bounded}/tiles.json`)).body;
    near(bounded.bounds, [-9.39, 38.7, -9.1, 38.7975]);
    near(bounded.center, [-9.15, 38.72, 13]);
    assert.deepEqual([bounded.minzoom, bounded.maxzoom], [0, 16]);
    const [x, y] = tileAt(15, -9.39, 38.7975);
    const outside = await t.get(`/maps/${TILES.bounded}/tiles/15/${x}/${y}.mvt`);
    const layer = new VectorTile(new PbfReader(new Uint8Array(await outside.arrayBuffer()))).layers.markers;
    assert.deepEqual(features(layer).map((f) => f.properties.name), ['Outside']);
    // TileJSON bounds must not wrap: bounds across the antimeridian take the world's width. Zoom 22 is given as 16.
    const fiji = (await t.json(`/maps/${TILES.acrossDateLine}/tiles.json`)).body;
    near(fiji.bounds, [-180, -19, 180, -15]);
    near(fiji.center, [179, -17, 16]);
    assert.ok(fiji.bounds[0] <= fiji.bounds[2]);
  });

  test('under a base path, the tile URLs of tiles.json and style.json carry it, and answer', async () => {
    const under = await openTarget(bundle, { basePath: '/kiosk-api' });
    try {
      const { body } = await under.json(`/kiosk-api/maps/${TILES.map}/tiles.json?lang=pt`);
      const url = new URL(body.tiles[0].replace('{z}/{x}/{y}', '0/0/0'));
      assert.equal(url.pathname, `/kiosk-api/maps/${TILES.map}/tiles/0/0/0.mvt`);
      const res = await under.get(url.pathname + url.search);
      assert.equal(res.status, 200);
      assert.ok(new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer()))).layers.markers.length > 0);
      const style = (await under.json(`/kiosk-api/maps/${TILES.map}/style.json`)).body;
      assert.equal(new URL(style.sources.pois.url).pathname, `/kiosk-api/maps/${TILES.map}/tiles.json`);
    } finally {
      await under.close();
    }
  });

  test('style.json is a MapLibre style over the map\'s TileJSON', async () => {
    const { status, body } = await t.json(`/maps/${TILES.map}/style.json`);
    assert.equal(status, 200);
    assert.equal(body.version, 8);
    assert.match(body.sources.pois.url, new RegExp(`/maps/${TILES.map}/tiles\\.json\\?lang=en$`));
    const layerIds = body.layers.map((l: { id: string }) => l.id);
    for (const id of ['polygons-fill', 'paths', 'clusters', 'markers']) assert.ok(layerIds.includes(id), id);
    for (const layer of body.layers.filter((l: { source?: string }) => l.source === 'pois')) {
      assert.ok(['markers', 'paths', 'polygons'].includes(layer['source-layer']), layer.id);
    }
  });
});

describe('the tag sets kept', () => {
  test(`at most ${KEPT_TAG_SETS}, the least recently asked let go first, and made again when asked again`, async () => {
    const { store, get, close } = await openTestApp(bundle);
    try {
      const keys = ['sights', 'food', 'bakeries', 'parks', 'free'];
      const sets: string[][] = [];
      for (let mask = 1; sets.length < KEPT_TAG_SETS + 2; mask++) sets.push(keys.filter((_, k) => mask & (1 << k)).map((key) => TILES.category(key)));
      const tiles = versionTiles(store.model, findMapVersion(store.model, TILES.map).version);
      for (const tags of sets) assert.equal((await get(`/maps/${TILES.map}/tiles/0/0/0.mvt?tags=${tags.join(',')}`)).status, 200);
      assert.equal(tiles.tagSetsKept, KEPT_TAG_SETS);
      assert.deepEqual(sets.map((tags) => tiles.keepsTagSet(tags)), sets.map((_, k) => k >= 2));
      // A set is known by its tags in any order.
      assert.equal(tiles.keepsTagSet([...sets[sets.length - 1]].reverse()), true);
      // The first set asked again (another tile, so no cached answer stands in): made again, and the least recent let go.
      assert.equal((await get(`/maps/${TILES.map}/tiles/1/0/0.mvt?tags=${sets[0].join(',')}`)).status, 200);
      assert.equal(tiles.tagSetsKept, KEPT_TAG_SETS);
      assert.equal(tiles.keepsTagSet(sets[0]), true);
      assert.equal(tiles.keepsTagSet(sets[2]), false);
    } finally {
      await close();
    }
  });
});
