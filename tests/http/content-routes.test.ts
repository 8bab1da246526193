/**
 * Maps, publishers, POIs, categories, associations and lists: every answer is compared with a linear
 * scan of the same bundle (the synthetic fixture), with random inputs from fixed mulberry32 seeds.
 *
 * The fixture is extended in two ways only: four more enabled maps for publisher A (so the order of
 * publisher maps has something to order), and a curated `poi_order` on one category (so the curated
 * order of tags-pois-orders is exercised).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { CategoryT, MapT } from '../../src/content/bundle/bundle-schema.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { F, makeFixture, mulberry32, uuidFor } from '../helpers/fixture.ts';

// ---- The bundle ------------------------------------------------------------------------------

const bundle = makeFixture();
const M = F.map;
const P = F.pacific;

const extraMaps: [string, string, { lat: number; lng: number }][] = [
  ['beta', 'beta', { lat: 41.15, lng: -8.61 }],
  ['alpha', 'Alpha', { lat: 37.02, lng: -7.93 }],
  ['avila10', 'Ávila 10', { lat: 40.66, lng: -4.7 }],
  ['avila9', 'Ávila 9', { lat: 48.86, lng: 2.35 }],
];
for (const [key, name, center] of extraMaps) {
  const template = bundle.maps.find((m) => m.id === P)!;
  const version = uuidFor(`version:extra:${key}`);
  const doc: MapT = {
    ...structuredClone(template), id: uuidFor(`map:extra:${key}`), publisher_id: F.publisher, name, slug: key,
    map_data: { center, zoom: 10 }, content_blocks: [], versions: [{ id: version, name: 'v1', status: 'published' }],
    current_version_id: version,
  };
  bundle.maps.push(doc);
}

// ---- Brute force -----------------------------------------------------------------------------

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const byName = (a: { name: unknown; id: string }, b: { name: unknown; id: string }) =>
  collator.compare(String(a.name), String(b.name)) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const custom = (a: CategoryT, b: CategoryT) => a.sort_order - b.sort_order || byName(a, b);

interface Versioned { map_id: string; version_ids?: string[] }
const mapDoc = (id: string) => bundle.maps.find((m) => m.id === id)!;
const currentOf = (mapId: string) => mapDoc(mapId).current_version_id;
const publishedOf = (mapId: string) => mapDoc(mapId).versions.filter((v) => v.status === 'published').map((v) => v.id);
const inVersion = (item: Versioned, mapId: string, versionId: string) =>
  item.map_id === mapId && (!item.version_ids || item.version_ids.includes(versionId));

type PoiType = 'marker' | 'path' | 'polygon';
const allPois = [
  ...bundle.markers.map((p) => ({ ...p, type: 'marker' as PoiType })),
  ...bundle.paths.map((p) => ({ ...p, type: 'path' as PoiType })),
  ...bundle.polygons.map((p) => ({ ...p, type: 'polygon' as PoiType })),
];
type BrutePoi = (typeof allPois)[number];
const poiById = new Map(allPois.map((p) => [p.id, p]));
const enabledMaps = bundle.maps.filter((m) => m.enabled).map((m) => m.id);
const isPublic = (p: Versioned) => mapDoc(p.map_id).enabled &&
  (p.version_ids ?? mapDoc(p.map_id).versions.map((v) => v.id)).some((v) => enabledMaps.some((m) => publishedOf(m).includes(v)));
const publicPois = allPois.filter(isPublic);

const versionCats = (mapId: string, v: string) => bundle.categories.filter((c) => inVersion(c, mapId, v));
const versionPois = (mapId: string, v: string) => allPois.filter((p) => inVersion(p, mapId, v));

const subtreeMemo = new Map<string, Set<string>>();
/** POIs of the version assigned to the category or to any category below it. */
function subtreePois(mapId: string, v: string, catId: string): Set<string> {
  const key = `${mapId}/${v}/${catId}`;
  let hit = subtreeMemo.get(key);
  if (hit) return hit;
  const cats = versionCats(mapId, v);
  const ids = new Set(cats.map((c) => c.id));
  const parentOf = new Map(cats.map((c) => [c.id, c.parent_id && ids.has(c.parent_id) ? c.parent_id : null]));
  const isUnder = (cid: string) => {
    for (let cur: string | null | undefined = cid; cur && ids.has(cur); cur = parentOf.get(cur)) if (cur === catId) return true;
    return false;
  };
  hit = new Set(ids.has(catId) ? versionPois(mapId, v).filter((p) => p.category_ids.some(isUnder)).map((p) => p.id) : []);
  subtreeMemo.set(key, hit);
  return hit;
}

interface TreeNode { id: string; count?: number; children: TreeNode[] }
/** The category tree of a version in a given sibling order. */
function bruteTree(mapId: string, v: string, order: string, counts: boolean, keep?: (c: CategoryT) => boolean): TreeNode[] {
  const cats = versionCats(mapId, v);
  const ids = new Set(cats.map((c) => c.id));
  const parent = (c: CategoryT) => (c.parent_id && ids.has(c.parent_id) ? c.parent_id : null);
  const count = (c: CategoryT) => subtreePois(mapId, v, c.id).size;
  const cmp = order === 'alphabetical' ? byName : order === 'popularity'
    ? (a: CategoryT, b: CategoryT) => count(b) - count(a) || byName(a, b) : custom;
  const build = (p: string | null): TreeNode[] => cats.filter((c) => parent(c) === p && (!keep || keep(c))).sort(cmp)
    .map((c) => ({ id: c.id, ...(counts ? { count: count(c) } : {}), children: build(c.id) }));
  return build(null);
}
/** The id/count/children skeleton of a served tree. */
const shape = (nodes: any[]): TreeNode[] => nodes.map((n) => ({ id: n.id, ...('count' in n ? { count: n.count } : {}), children: shape(n.children) }));

/** Public POIs of the current version that carry any of the tags (or a tag below them), by name then id. */
const poisByTags = (mapId: string, tags: string[]) => {
  const v = currentOf(mapId);
  const wanted = new Set(tags.flatMap((tag) => [...subtreePois(mapId, v, tag)]));
  return versionPois(mapId, v).filter((p) => wanted.has(p.id)).sort(byName).map((p) => p.id);
};

// The curated order: one POI under the category, one outside it, a draft-only one, a repeat, another under it.
const ROOT0 = uuidFor('category:root0');
{
  const under = [...subtreePois(M, F.v2, ROOT0)].map((id) => poiById.get(id)!).sort(byName);
  const outside = versionPois(M, F.v2).find((p) => !subtreePois(M, F.v2, ROOT0).has(p.id))!;
  const root0 = bundle.categories.find((c) => c.id === ROOT0)!;
  root0.poi_order = [under[under.length - 1].id, outside.id, F.draftMarker, under[under.length - 1].id, under[3].id];
}

// Registered after the bundle is complete: a top-level before() hook starts at once, not after the module.
let t: TestTarget;
before(async () => {
  t = await openTarget(bundle);
});
after(async () => {
  await t?.close();
});

const round7 = (x: number) => Math.round(x * 1e7) / 1e7;
const decimals = (x: number) => {
  const s = String(x);
  if (s.includes('e')) return Infinity;
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
};
/** A served coordinate: at most 7 decimals and within half a unit of the 7th decimal of the input. */
const assertRounded = (got: number, input: number, what: string) => {
  assert.ok(decimals(got) <= 7, `${what}: ${got} has more than 7 decimals`);
  assert.ok(Math.abs(got - input) <= 5e-8 + 1e-12, `${what}: ${got} is not ${input} rounded`);
};
/** Twice the signed area (shoelace); positive means counter-clockwise. */
const signedArea = (ring: number[][]) => {
  let sum = 0;
  for (let i = 0; i < ring.length - 1; i++) sum += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1];
  return sum;
};
/** Great-circle distance in metres (haversine, R = 6371 km). */
const haversineM = (lat1: number, lng1: number, lat2: number, lng2: number) => {
  const rad = Math.PI / 180;
  const h = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6371_000 * Math.asin(Math.sqrt(h));
};
const compareAssoc = (a: { sort_order: number; created_at: string; id: string }, b: typeof a) =>
  a.sort_order - b.sort_order || Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

async function ok(path: string) {
  const { status, body } = await t.json(path);
  assert.equal(status, 200, `${path} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}
async function fails(path: string, status: number, names: string[] = []) {
  const res = await t.json(path);
  assert.equal(res.status, status, `${path} answered ${res.status}`);
  if (status === 400) assert.deepEqual(res.body.errors.map((e: { name: string }) => e.name).sort(), [...names].sort(), path);
  return res.body;
}
const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

// ---- Maps ------------------------------------------------------------------------------------

describe('maps', () => {
  const IDENTITY = ['branding', 'country', 'created_at', 'current_version_id', 'description', 'enabled', 'id', 'name', 'publisher_id', 'slug',
    'time_zone', 'version'];
  const doc = mapDoc(M);
  const v2Cats = versionCats(M, F.v2);
  /** What each section must hold, from the bundle. */
  const SECTIONS: Record<string, (section: any) => void> = {
    info: (s) => assert.deepEqual(s, doc.info),
    all_categories: (s) => {
      assert.deepEqual(ids(s), [...v2Cats].sort(custom).map((c) => c.id));
      for (const c of s) {
        const raw = v2Cats.find((x) => x.id === c.id)!;
        assert.deepEqual([c.map_id, c.parent_id, c.kind, c.name, c.sort_order], [raw.map_id, raw.parent_id, raw.kind, raw.name, raw.sort_order]);
        assert.deepEqual(c.version_ids, (raw.version_ids ?? publishedOf(M)).filter((v) => publishedOf(M).includes(v)).sort());
      }
    },
    categories: (s) => assert.deepEqual(shape(s), bruteTree(M, F.v2, 'custom', false, (c) => subtreePois(M, F.v2, c.id).size > 0)),
    markers: (s) => assert.deepEqual(ids(s), versionPois(M, F.v2).filter((p) => p.type === 'marker').sort(byName).map((p) => p.id)),
    paths: (s) => assert.deepEqual(ids(s), versionPois(M, F.v2).filter((p) => p.type === 'path').sort(byName).map((p) => p.id)),
    polygons: (s) => assert.deepEqual(ids(s), versionPois(M, F.v2).filter((p) => p.type === 'polygon').sort(byName).map((p) => p.id)),
    publisher: (s) => {
      const p = bundle.publishers.find((x) => x.id === doc.publisher_id)!;
      assert.deepEqual([s.id, s.name, s.slug, s.location], [p.id, p.name, p.slug, p.location ?? null]);
    },
    map_data: (s) => assert.deepEqual(s, doc.map_data),
    contact: (s) => assert.deepEqual(s, doc.contact),
    map_sponsors: (s) => assert.deepEqual(s, doc.sponsors.map((sp) => ({
      name: sp.name, url: sp.url ?? null, logo_url: sp.logo_url ?? null, tier: sp.tier ?? null }))),
    tag_counts: (s) => assert.deepEqual(s, [...v2Cats].sort(custom).map((c) => ({ id: c.id, kind: c.kind, count: subtreePois(M, F.v2, c.id).size }))),
    contents: (s) => assert.deepEqual(ids(s), [...doc.content_blocks].sort((a, b) => a.sort_order - b.sort_order).map((b) => b.id)),
  };
  const FLAGS = Object.keys(SECTIONS);

  test('a map without flags carries only its identity, and each of the 12 section flags adds exactly its own section', async () => {
    assert.equal(FLAGS.length, 12);
    const plain = await ok(`/maps/${M}`);
    assert.deepEqual(Object.keys(plain).sort(), IDENTITY);
    assert.deepEqual([plain.id, plain.name, plain.enabled, plain.current_version_id, plain.version.id], [M, doc.name, true, F.v2, F.v2]);
    for (const flag of FLAGS) {
      const on = await ok(`/maps/${M}?${flag}=true`);
      assert.deepEqual(Object.keys(on).sort(), [...IDENTITY, flag].sort(), flag);
      SECTIONS[flag](on[flag]);
      const others = FLAGS.filter((f) => f !== flag).map((f) => `${f}=false`).join('&');
      assert.deepEqual(Object.keys(await ok(`/maps/${M}?${flag}=false&${others}`)).sort(), IDENTITY, `${flag}=false`);
    }
    const all = await ok(`/maps/${M}?${FLAGS.map((f) => `${f}=true`).join('&')}`);
    assert.deepEqual(Object.keys(all).sort(), [...IDENTITY, ...FLAGS].sort());
    for (const flag of FLAGS) SECTIONS[flag](all[flag]);
  });

  test('version_id, the thirteenth parameter, selects the version the versioned sections come from', async () => {
    const body = await ok(`/maps/${M}?version_id=${F.v1}&markers=true&tag_counts=true&all_categories=true`);
    assert.deepEqual(Object.keys(body).sort(), [...IDENTITY, 'all_categories', 'markers', 'tag_counts'].sort());
    assert.deepEqual([body.version.id, body.version.name, body.version.status, body.current_version_id], [F.v1, 'v1', 'published', F.v2]);
    assert.deepEqual(ids(body.markers), versionPois(M, F.v1).filter((p) => p.type === 'marker').sort(byName).map((p) => p.id));
    assert.deepEqual(ids(body.all_categories), [...versionCats(M, F.v1)].sort(custom).map((c) => c.id));
    assert.deepEqual(body.tag_counts.map((c: { count: number }) => c.count),
      [...versionCats(M, F.v1)].sort(custom).map((c) => subtreePois(M, F.v1, c.id).size));
  });

  test('GET /maps/:id/contents returns the content blocks sorted by sort_order', async () => {
    for (const mapId of [M, P]) {
      const body = await ok(`/maps/${mapId}/contents`);
      const blocks = [...mapDoc(mapId).content_blocks].sort((a, b) => a.sort_order - b.sort_order);
      assert.equal(body.map_id, mapId);
      assert.deepEqual(ids(body.content_blocks), ids(blocks));
      assert.deepEqual(body.content_blocks.map((b: { title: string }) => b.title), ['First', 'Second']);
    }
    assert.deepEqual((await ok(`/maps/${extraMaps.length && uuidFor('map:extra:beta')}/contents`)).content_blocks, []);
    await fails(`/maps/${uuidFor('no map')}/contents`, 404);
  });
});

// ---- Publishers ------------------------------------------------------------------------------

describe('publishers', () => {
  test('GET /publisher/:id returns the publisher, and an unknown one 404', async () => {
    for (const p of bundle.publishers) {
      const body = await ok(`/publisher/${p.id}`);
      assert.deepEqual([body.id, body.name, body.slug, body.location], [p.id, p.name, p.slug, p.location ?? null]);
    }
    await fails(`/publisher/${uuidFor('no publisher')}`, 404);
    await fails(`/publisher/${M}/maps`, 404);
  });

  const mapsOf = (pub: string) => bundle.maps.filter((m) => m.publisher_id === pub && m.enabled);

  test('publisher maps are ordered by name without lat/lng, and carry no distance', async () => {
    for (const pub of [F.publisher, F.publisherB]) {
      const body = await ok(`/publisher/${pub}/maps`);
      const expected = mapsOf(pub).sort(byName);
      assert.deepEqual(ids(body.maps), ids(expected));
      assert.equal(body.total, expected.length);
      for (const m of body.maps) {
        assert.ok(!('distance_m' in m));
        const raw = mapDoc(m.id);
        assert.deepEqual([m.name, m.slug, m.center, m.time_zone], [raw.name, raw.slug, raw.map_data.center, raw.time_zone]);
      }
    }
    assert.ok(mapsOf(F.publisher).length >= 5, 'there is an order to check');
  });

  test('publisher maps are ordered by great-circle distance to the map centre with lat/lng, with distance_m', async () => {
    const rand = mulberry32(101);
    const points: [number, number][] = [[38.72, -9.14], [90, 0], [-90, 0], [0, 180], [0, -180], [41.15, -8.61]];
    for (let i = 0; i < 40; i++) points.push([rand() * 180 - 90, rand() * 360 - 180]);
    points.push(...Array.from({ length: 20 }, (): [number, number] => [36 + rand() * 14, -10 + rand() * 14]));
    for (const [lat, lng] of points) {
      const body = await ok(`/publisher/${F.publisher}/maps?lat=${lat}&lng=${lng}`);
      const expected = mapsOf(F.publisher)
        .map((m) => ({ id: m.id, name: m.name, d: haversineM(lat, lng, m.map_data.center.lat, m.map_data.center.lng) }))
        .sort((a, b) => Math.round(a.d) - Math.round(b.d) || byName(a, b));
      assert.deepEqual(ids(body.maps), ids(expected), `${lat},${lng}`);
      for (const [i, m] of body.maps.entries()) {
        assert.ok(Number.isInteger(m.distance_m) || Math.abs(m.distance_m - expected[i].d) <= 1, 'whole metres');
        assert.ok(Math.abs(m.distance_m - expected[i].d) <= 1, `${m.name}: ${m.distance_m} vs ${expected[i].d}`);
      }
    }
  });

  test('lat without lng, or lng without lat, or either out of range, gets 400', async () => {
    await fails(`/publisher/${F.publisher}/maps?lat=38`, 400, ['lng']);
    await fails(`/publisher/${F.publisher}/maps?lng=-9`, 400, ['lat']);
    await fails(`/publisher/${F.publisher}/maps?lat=91&lng=0`, 400, ['lat']);
    await fails(`/publisher/${F.publisher}/maps?lat=0&lng=180.5`, 400, ['lng']);
    await fails(`/publisher/${F.publisher}/maps?lat=x&lng=`, 400, ['lat', 'lng']);
  });
});

// ---- Windows ---------------------------------------------------------------------------------

/** Pages through a windowed route with random window sizes; checks each window and returns every id seen. */
async function pageThrough(prefix: string, expected: string[], rand: () => number) {
  const seen: string[] = [];
  let start = 0;
  for (let guard = 0; guard < 1000; guard++) {
    const end = start + 1 + Math.floor(rand() * (rand() < 0.2 ? 500 : 12));
    const body = await ok(`${prefix}start=${start}&end=${end}`);
    assert.deepEqual(Object.keys(body).sort(), ['end', 'items', 'start', 'total']);
    assert.deepEqual([body.total, body.start, body.end], [expected.length, start, Math.min(end, Math.max(start, expected.length))], prefix);
    seen.push(...ids(body.items));
    if (body.end >= expected.length) break;
    start = body.end;
  }
  return seen;
}

/** Random windows anywhere, including past the end, and the defaults. */
async function randomWindows(prefix: string, expected: string[], rand: () => number) {
  for (let i = 0; i < 15; i++) {
    const start = Math.floor(rand() * (expected.length + 5));
    const end = start + Math.floor(rand() * 60);
    const body = await ok(`${prefix}start=${start}&end=${end}`);
    const want = expected.slice(start, end);
    assert.deepEqual(ids(body.items), want, `${prefix}start=${start}&end=${end}`);
    assert.deepEqual([body.total, body.start, body.end], [expected.length, start, start + want.length]);
  }
  const dflt = await ok(prefix.replace(/[?&]$/, ''));
  assert.deepEqual([ids(dflt.items), dflt.start, dflt.end], [expected.slice(0, 50), 0, Math.min(50, expected.length)]);
  const fromStart = await ok(`${prefix}start=3`);
  assert.deepEqual([ids(fromStart.items), fromStart.start, fromStart.end], [expected.slice(3, 53), 3, 3 + expected.slice(3, 53).length]);
  const toEnd = await ok(`${prefix}end=4`);
  assert.deepEqual([ids(toEnd.items), toEnd.start, toEnd.end], [expected.slice(0, 4), 0, Math.min(4, expected.length)]);
}

describe('map POIs by tag', () => {
  const v2Cats = versionCats(M, F.v2).map((c) => c.id);

  test('GET /maps/:id/pois matches brute force for random tag sets, each item exactly once when paged window by window', async () => {
    const rand = mulberry32(2027);
    const pool = [...v2Cats, uuidFor('category:pacific'), F.draftCategory, uuidFor('category:v2-only'), uuidFor('unknown tag')];
    let nonEmpty = 0;
    for (let i = 0; i < 40; i++) {
      const tags = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pool[Math.floor(rand() * pool.length)]);
      const expected = poisByTags(M, tags);
      if (expected.length > 0) nonEmpty++;
      const seen = await pageThrough(`/maps/${M}/pois?tags=${tags.join(',')}&`, expected, rand);
      assert.deepEqual(seen, expected, `tags ${tags}`);
      assert.equal(new Set(seen).size, seen.length, 'no item twice');
    }
    assert.ok(nonEmpty > 20);
    // Records are the full POI records.
    const body = await ok(`/maps/${M}/pois?tags=${ROOT0}&end=500`);
    for (const rec of body.items) {
      const raw = poiById.get(rec.id)!;
      assert.deepEqual([rec.type, rec.map_id, rec.name], [raw.type, M, raw.name]);
    }
  });

  test('all tags at once cover every POI of the current version, and the pacific map is separate', async () => {
    const expected = versionPois(M, F.v2).sort(byName).map((p) => p.id);
    const roots = bundle.categories.filter((c) => c.map_id === M && c.parent_id === null && inVersion(c, M, F.v2)).map((c) => c.id);
    assert.deepEqual(ids((await ok(`/maps/${M}/pois?tags=${roots.join(',')}&end=500`)).items), expected);
    const pac = await ok(`/maps/${P}/pois?tags=${uuidFor('category:pacific')}&end=500`);
    assert.deepEqual(ids(pac.items), versionPois(P, F.pacificV).sort(byName).map((p) => p.id));
    assert.equal((await ok(`/maps/${M}/pois?tags=${uuidFor('category:pacific')}`)).total, 0);
  });

  test('start and end default to 0 and start + 50, and random windows slice the ordered list', async () => {
    const roots = bundle.categories.filter((c) => c.map_id === M && c.parent_id === null).map((c) => c.id);
    const expected = poisByTags(M, roots);
    assert.ok(expected.length > 53, 'more POIs than one default window');
    await randomWindows(`/maps/${M}/pois?tags=${roots.join(',')}&`, expected, mulberry32(5));
  });

  test('end before start, or a window wider than 500, gets 400 naming end', async () => {
    const q = `/maps/${M}/pois?tags=${ROOT0}`;
    await fails(`${q}&start=10&end=9`, 400, ['end']);
    await fails(`${q}&end=501`, 400, ['end']);
    await fails(`${q}&start=7&end=508`, 400, ['end']);
    await ok(`${q}&start=7&end=507`);
    await ok(`${q}&start=7&end=7`);
    await fails(`${q}&start=-1`, 400, ['start']);
    await fails(`${q}&start=x&end=y`, 400, ['start', 'end']);
    await fails(`/maps/${M}/pois`, 400, ['tags']);
  });
});

describe('lists', () => {
  const verified = bundle.lists.filter((l) => l.map_id === M && l.verified).sort(byName);

  test('GET /maps/:id/lists pages window by window through the verified lists by name, each exactly once', async () => {
    const rand = mulberry32(77);
    for (let i = 0; i < 10; i++) {
      assert.deepEqual(await pageThrough(`/maps/${M}/lists?`, ids(verified), rand), ids(verified));
    }
    await randomWindows(`/maps/${M}/lists?`, ids(verified), rand);
    await fails(`/maps/${M}/lists?start=5&end=4`, 400, ['end']);
    await fails(`/maps/${M}/lists?start=0&end=501`, 400, ['end']);
  });

  test('a list summary and GET /maps/:id/lists/:list_id carry the list and its public POIs', async () => {
    const windowed = await ok(`/maps/${M}/lists?end=500`);
    for (const l of verified) {
      const items = l.items.filter((it) => publicPois.some((p) => p.id === it.poi_id));
      const summary = windowed.items.find((x: { id: string }) => x.id === l.id);
      assert.deepEqual([summary.name, summary.map_id, summary.verified, summary.item_count], [l.name, M, true, items.length]);
      const body = await ok(`/maps/${M}/lists/${l.id}`);
      assert.deepEqual(body.items.map((it: { id: string; note: string | null }) => [it.id, it.note]), items.map((it) => [it.poi_id, it.note ?? null]));
      for (const it of body.items) {
        const raw = poiById.get(it.id)!;
        assert.deepEqual([it.type, it.name], [raw.type, raw.name]);
      }
    }
    await fails(`/maps/${P}/lists/${F.verifiedList}`, 404);
    await fails(`/maps/${M}/lists/${uuidFor('no list')}`, 404);
  });
});

// ---- POIs ------------------------------------------------------------------------------------

describe('markers, paths and polygons', () => {
  const TYPES: PoiType[] = ['marker', 'path', 'polygon'];

  test('each map route lists its kind for a version, ordered by name, then id', async () => {
    for (const mapId of [M, P]) {
      for (const v of [undefined, ...publishedOf(mapId)]) {
        for (const type of TYPES) {
          const body = await ok(`/maps/${mapId}/${type}s${v ? `?version_id=${v}` : ''}`);
          const version = v ?? currentOf(mapId);
          assert.deepEqual([body.map_id, body.version_id], [mapId, version]);
          assert.deepEqual(ids(body[`${type}s`]), versionPois(mapId, version).filter((p) => p.type === type).sort(byName).map((p) => p.id));
        }
      }
    }
  });

  /** Checks a served record against the bundle. */
  function checkRecord(rec: any, raw: BrutePoi) {
    assert.deepEqual([rec.id, rec.type, rec.map_id, rec.name], [raw.id, raw.type, raw.map_id, raw.name]);
    if (raw.type === 'marker') {
      const m = raw as unknown as { lat: number; lng: number; external_id?: string };
      assertRounded(rec.lat, m.lat, `${raw.id} lat`);
      assertRounded(rec.lng, m.lng, `${raw.id} lng`);
      assert.equal(rec.external_id, m.external_id ?? null);
      assert.ok(!('geometry' in rec));
    } else {
      assert.equal(rec.geometry.type, raw.type === 'path' ? 'LineString' : 'Polygon');
    }
  }

  test('single routes return the record; map-scoped ones 404 for another map, and every one 404s for the wrong kind', async () => {
    for (const raw of publicPois) {
      const other = raw.map_id === M ? P : M;
      const body = await ok(`/${raw.type}s/${raw.id}`);
      checkRecord(body, raw);
      assert.deepEqual(await ok(`/maps/${raw.map_id}/${raw.type}s/${raw.id}`), body);
      await fails(`/maps/${other}/${raw.type}s/${raw.id}`, 404);
      for (const wrong of TYPES.filter((x) => x !== raw.type)) {
        await fails(`/${wrong}s/${raw.id}`, 404);
        await fails(`/maps/${raw.map_id}/${wrong}s/${raw.id}`, 404);
      }
    }
    for (const type of TYPES) await fails(`/${type}s/${uuidFor('nothing')}`, 404);
  });

  test('GET /places-of-interest/id resolves each kind to its type and record', async () => {
    const seenTypes = new Set<string>();
    for (const raw of publicPois) {
      const body = await ok(`/places-of-interest/id/${raw.id}`);
      assert.deepEqual(Object.keys(body).sort(), ['record', 'type']);
      assert.equal(body.type, raw.type);
      assert.deepEqual(body.record, await ok(`/${raw.type}s/${raw.id}`));
      seenTypes.add(body.type);
    }
    assert.deepEqual([...seenTypes].sort(), ['marker', 'path', 'polygon']);
    await fails(`/places-of-interest/id/${uuidFor('nothing')}`, 404);
    await fails(`/places-of-interest/id/${M}`, 404);
  });

  test('GET /places-of-interest/map serves GeoJSON: [lng, lat], at most 7 decimals, outer rings counter-clockwise and holes clockwise', async () => {
    let holes = 0;
    let clockwiseInputs = 0;
    for (const mapId of [M, P]) {
      for (const v of [undefined, ...publishedOf(mapId)]) {
        const res = await t.get(`/places-of-interest/map/${mapId}${v ? `?version_id=${v}` : ''}`);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^application\/geo\+json/);
        const body = await res.json();
        const version = v ?? currentOf(mapId);
        assert.deepEqual([body.map_id, body.version_id], [mapId, version]);
        for (const type of TYPES) {
          const fc = body[`${type}s`];
          assert.equal(fc.type, 'FeatureCollection');
          const expected = versionPois(mapId, version).filter((p) => p.type === type).sort(byName);
          assert.equal(fc.features.length, expected.length, `${type}s of ${version}`);
          assert.deepEqual(ids(fc.features), ids(expected));
          for (const [i, f] of fc.features.entries()) {
            const raw = expected[i] as any;
            assert.equal(f.type, 'Feature');
            assert.equal(f.properties.name, raw.name);
            assert.ok(!('geometry' in f.properties) && !('lat' in f.properties) && !('lng' in f.properties));
            if (type === 'marker') {
              assert.equal(f.geometry.type, 'Point');
              assertRounded(f.geometry.coordinates[0], raw.lng, 'lng first');
              assertRounded(f.geometry.coordinates[1], raw.lat, 'lat second');
            } else if (type === 'path') {
              assert.equal(f.geometry.type, 'LineString');
              assert.equal(f.geometry.coordinates.length, raw.geometry.coordinates.length);
              f.geometry.coordinates.forEach((pos: number[], k: number) => {
                assertRounded(pos[0], raw.geometry.coordinates[k][0], 'path lng');
                assertRounded(pos[1], raw.geometry.coordinates[k][1], 'path lat');
              });
            } else {
              assert.equal(f.geometry.type, 'Polygon');
              assert.equal(f.geometry.coordinates.length, raw.geometry.coordinates.length);
              f.geometry.coordinates.forEach((ring: number[][], r: number) => {
                const input: number[][] = raw.geometry.coordinates[r];
                if ((signedArea(input) > 0) !== (r === 0)) clockwiseInputs++;
                // Same ring, possibly reversed, with every position rounded.
                const same = (cand: number[][]) => cand.length === ring.length &&
                  cand.every((pos, k) => Math.abs(pos[0] - ring[k][0]) <= 5e-8 + 1e-12 && Math.abs(pos[1] - ring[k][1]) <= 5e-8 + 1e-12);
                assert.ok(same(input) || same([...input].reverse()), `${raw.id} ring ${r} is the input ring`);
                for (const pos of ring) assert.ok(decimals(pos[0]) <= 7 && decimals(pos[1]) <= 7, `${pos}`);
                const area = signedArea(ring);
                if (r === 0) assert.ok(area > 0, `${raw.id}: the outer ring is counter-clockwise`);
                else { assert.ok(area < 0, `${raw.id}: hole ${r} is clockwise`); holes++; }
                assert.deepEqual(ring[0], ring[ring.length - 1], 'rings stay closed');
              });
            }
          }
        }
      }
    }
    assert.ok(holes > 0 && clockwiseInputs > 0, 'the fixture has holes and wrongly wound input');
    assert.ok(bundle.markers.some((m) => decimals(m.lat) > 7), 'the fixture has coordinates to round');
    await fails(`/places-of-interest/map/${uuidFor('no map')}`, 404);
  });
});

// ---- Categories, icons, orders ---------------------------------------------------------------

describe('categories, icons and orders', () => {
  test('GET /places-of-interest/icons returns every icon with its name and URL', async () => {
    const body = await ok('/places-of-interest/icons');
    assert.deepEqual(body, {
      icons: [...bundle.icons].sort(byName).map((ic) => ({ id: ic.id, name: ic.name, url: ic.url, color: ic.color ?? null, maki: ic.maki ?? null })),
    });
  });

  test('items order siblings at every level by sort_type, and include_counts matches brute-force subtree counts', async () => {
    let compared = 0;
    for (const v of [undefined, F.v1, F.v2]) {
      const version = v ?? F.v2;
      for (const sort of [undefined, 'custom', 'alphabetical', 'popularity']) {
        for (const counts of [undefined, 'true', 'false']) {
          const qs = [v && `version_id=${v}`, sort && `sort_type=${sort}`, counts && `include_counts=${counts}`].filter(Boolean).join('&');
          const body = await ok(`/places-of-interest/items/${M}${qs ? `?${qs}` : ''}`);
          assert.deepEqual([body.map_id, body.version_id, body.sort_type], [M, version, sort ?? 'custom']);
          assert.deepEqual(shape(body.items), bruteTree(M, version, sort ?? 'custom', counts === 'true'), qs);
          compared++;
        }
      }
    }
    // The three orders really differ on this fixture, so each comparison above can fail.
    const tops = (order: string) => bruteTree(M, F.v2, order, false).map((n) => n.id).join();
    assert.equal(new Set(['custom', 'alphabetical', 'popularity'].map(tops)).size, 3);
    assert.equal(compared, 36);
    const pac = await ok(`/places-of-interest/items/${P}?include_counts=true`);
    assert.deepEqual(shape(pac.items), bruteTree(P, F.pacificV, 'custom', true));
  });

  test('an invalid sort_type gets 400 naming sort_type', async () => {
    for (const bad of ['name', 'ALPHABETICAL', '', 'random', 'custom,popularity']) {
      await fails(`/places-of-interest/items/${M}?sort_type=${bad}`, 400, ['sort_type']);
    }
  });

  test('tags-pois-orders with type=keywords returns the top-level categories by sort_order', async () => {
    for (const mapId of [M, P]) {
      const body = await ok(`/places-of-interest/tags-pois-orders?map_id=${mapId}&type=keywords`);
      const expected = versionCats(mapId, currentOf(mapId)).filter((c) => c.parent_id === null).sort(custom);
      assert.deepEqual([body.map_id, body.type], [mapId, 'keywords']);
      assert.deepEqual(ids(body.categories), ids(expected));
    }
    const names = (await ok(`/places-of-interest/tags-pois-orders?map_id=${M}&type=keywords`)).categories.map((c: { name: string }) => c.name);
    assert.deepEqual(names, ['Museums', 'apple Food', 'Zebra Sights', 'New in v2']);
  });

  test('tags-pois-orders with path_id returns the children and the POIs, the curated order first, then by name', async () => {
    const curatedRoot = bundle.categories.find((c) => c.id === ROOT0)!;
    for (const c of versionCats(M, F.v2)) {
      const body = await ok(`/places-of-interest/tags-pois-orders?map_id=${M}&path_id=${c.id}`);
      assert.deepEqual([body.map_id, body.path_id, body.category.id], [M, c.id, c.id]);
      assert.deepEqual(ids(body.children), versionCats(M, F.v2).filter((x) => x.parent_id === c.id).sort(custom).map((x) => x.id));
      const under = subtreePois(M, F.v2, c.id);
      const curated = [...new Set(c.poi_order ?? [])].filter((id) => under.has(id));
      const rest = versionPois(M, F.v2).filter((p) => under.has(p.id) && !curated.includes(p.id)).sort(byName).map((p) => p.id);
      assert.deepEqual(ids(body.pois), [...curated, ...rest], String(c.name));
      assert.deepEqual(body.pois.map((p: { position: number }) => p.position), body.pois.map((_: unknown, i: number) => i + 1));
      for (const p of body.pois) {
        assert.deepEqual(Object.keys(p).sort(), ['id', 'lat', 'lng', 'name', 'position', 'type']);
        assert.deepEqual([p.type, p.name], [poiById.get(p.id)!.type, poiById.get(p.id)!.name]);
      }
    }
    const root = await ok(`/places-of-interest/tags-pois-orders?map_id=${M}&path_id=${ROOT0}`);
    const order = curatedRoot.poi_order!;
    assert.deepEqual(ids(root.pois).slice(0, 2), [order[0], order[4]], 'curated POIs lead, outsiders and drafts skipped');
  });

  test('tags-pois-orders needs exactly one of type and path_id, type must be keywords, and an unknown path_id gets 404', async () => {
    const base = `/places-of-interest/tags-pois-orders?map_id=${M}`;
    await fails(base, 400, ['type']);
    await fails(`${base}&type=keywords&path_id=${ROOT0}`, 400, ['path_id']);
    await fails(`${base}&type=other`, 400, ['type']);
    await fails(`${base}&type=KEYWORDS`, 400, ['type']);
    await fails(`/places-of-interest/tags-pois-orders?type=keywords`, 400, ['map_id']);
    await fails(`${base}&path_id=${uuidFor('no category')}`, 404);
    await fails(`${base}&path_id=${uuidFor('category:pacific')}`, 404);
    await fails(`/places-of-interest/tags-pois-orders?map_id=${uuidFor('no map')}&type=keywords`, 404);
  });
});

// ---- Associations ----------------------------------------------------------------------------

describe('associations', () => {
  const publicIds = new Set(publicPois.map((p) => p.id));
  const A = uuidFor('marker:main0');
  /** Neighbours in an expected order tied on both sort_order and created_at, so only the id orders them. */
  let fullTies = 0;

  /** The served associations of a POI: universal (and list) forward ones, and the mutual reverse ones when asked. */
  function expectedFor(poi: string, reverse: boolean, list: string | null = null) {
    const visible = (a: { list_id: string | null }) => a.list_id === null || a.list_id === list;
    const forward = bundle.associations.filter((a) => a.poi_id === poi && publicIds.has(a.associated_poi_id) && visible(a))
      .map((a) => ({ ...a, direction: 'forward', other: a.associated_poi_id }));
    const back = reverse ? bundle.associations.filter((a) => a.associated_poi_id === poi && a.mutual && publicIds.has(a.poi_id) && visible(a))
      .map((a) => ({ ...a, direction: 'reverse', other: a.poi_id })) : [];
    const all = publicIds.has(poi) ? [...forward, ...back].sort(compareAssoc) : [];
    fullTies += all.filter((a, i) => i > 0 && a.sort_order === all[i - 1].sort_order && a.created_at === all[i - 1].created_at).length;
    return all.map((a) => [a.id, a.direction, a.other]);
  }

  /** Checks the associated_poi summary of an association against the bundle. */
  function checkAssociated(a: any) {
    const raw = poiById.get(a.associated_poi_id)! as any;
    assert.deepEqual(Object.keys(a.associated_poi).sort(), ['id', 'lat', 'lng', 'name', 'type']);
    assert.deepEqual([a.associated_poi.id, a.associated_poi.type, a.associated_poi.name], [raw.id, raw.type, raw.name]);
    if (raw.type === 'marker') {
      assertRounded(a.associated_poi.lat, raw.lat, 'associated lat');
      assertRounded(a.associated_poi.lng, raw.lng, 'associated lng');
    } else {
      const pts: number[][] = raw.geometry.coordinates.flat(raw.type === 'polygon' ? 1 : 0);
      const lngs = pts.map((p) => p[0]);
      const lats = pts.map((p) => p[1]);
      assert.ok(a.associated_poi.lat >= Math.min(...lats) - 1e-7 && a.associated_poi.lat <= Math.max(...lats) + 1e-7);
      assert.ok(a.associated_poi.lng >= Math.min(...lngs) - 1e-7 && a.associated_poi.lng <= Math.max(...lngs) + 1e-7);
    }
  }

  test('GET /poi-associations/:id returns the universal ones, by sort_order, then created_at, then id', async () => {
    let checked = 0;
    for (const p of publicPois) {
      const body = await ok(`/poi-associations/${p.id}`);
      assert.deepEqual([body.poi_id, body.poi_type], [p.id, p.type]);
      assert.deepEqual(body.associations.map((a: any) => [a.id, a.direction, a.associated_poi_id]), expectedFor(p.id, false), p.id);
      for (const a of body.associations) {
        assert.equal(a.poi_id, p.id);
        assert.equal(a.list_id, null);
        checkAssociated(a);
        checked++;
      }
    }
    assert.ok(checked > 20);
    // The hand-made tie: a-c and a-d share sort_order 1; a-d was created earlier and comes first.
    const a = await ok(`/poi-associations/${A}`);
    const order = ids(a.associations);
    assert.ok(order.indexOf(uuidFor('assoc:a-d')) < order.indexOf(uuidFor('assoc:a-c')));
    assert.ok(!order.includes(uuidFor('assoc:a-e-list')), 'list-scoped ones are not universal');
    await fails(`/poi-associations/${uuidFor('nothing')}`, 404);
  });

  test('the batch keeps request order, and include_reverse adds the mutual reverse ones but never one-way ones', async () => {
    const idsAll = [...publicPois.map((p) => p.id), uuidFor('nothing')];
    let reverses = 0;
    for (let i = 0; i < idsAll.length; i += 100) {
      const chunk = idsAll.slice(i, i + 100);
      for (const reverse of [false, true]) {
        const body = await ok(`/poi-associations?poi_ids=${chunk.join(',')}${reverse ? '&include_reverse=true' : ''}`);
        assert.deepEqual(Object.keys(body), chunk);
        for (const id of chunk) {
          assert.deepEqual(body[id].map((a: any) => [a.id, a.direction, a.associated_poi_id]), expectedFor(id, reverse), `${id} reverse=${reverse}`);
          for (const a of body[id]) {
            assert.equal(a.poi_id, id);
            checkAssociated(a);
            if (a.direction === 'reverse') { reverses++; assert.equal(a.mutual, true); }
          }
        }
      }
    }
    assert.ok(reverses > 5);
    assert.ok(fullTies > 0, 'some neighbours are ordered by id alone');
    const body = await ok(`/poi-associations?poi_ids=${A},${uuidFor('marker:main1')}&include_reverse=true`);
    const onA = body[A].map((a: any) => [a.id, a.direction]);
    assert.ok(onA.some(([id, d]: string[]) => id === uuidFor('assoc:c-a-mutual') && d === 'reverse'));
    assert.ok(!onA.some(([id]: string[]) => id === uuidFor('assoc:d-a-oneway')), 'one-way associations are never reversed');
    assert.ok(body[uuidFor('marker:main1')].some((a: any) => a.id === uuidFor('assoc:a-b') && a.direction === 'reverse' && a.associated_poi_id === A));
  });
});
