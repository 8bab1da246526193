/**
 * OGC API – Features under /ogc, checked the way the OGC test suite asserts (its Java suite cannot run offline here):
 * the landing page's links, the conformance classes, the collections (four per enabled map, none of a disabled one,
 * extents from the data), items paged by `next` links with every feature exactly once and `numberMatched` exact,
 * `limit` clamped, `bbox` meaning intersects (compared with a brute force of the test's own over the records of the
 * JSON routes, across the antimeridian and with a polygon's hole), `datetime` on the events (compared with /events),
 * `properties`, CQL2 `filter` against a plain evaluation of the properties, queryables, unknown parameters refused,
 * the language rules and 404s.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { F, makeFixture, mulberry32 } from '../helpers/fixture.ts';
import { OGC_MAX_LIMIT } from '../../src/routes/ogc.ts';
import { boxesOf, flat, inBox, meets, type Box, type Geometry, type Position } from '../helpers/brute-force.ts';

interface Feature { type: 'Feature'; id: string; geometry: Geometry | null; properties: Record<string, unknown> }
interface Page { type: 'FeatureCollection'; features: Feature[]; numberMatched: number; numberReturned: number; links: { href: string; rel: string; type?: string }[] }

const KINDS = ['markers', 'paths', 'polygons', 'events'] as const;

/** The path and query of an absolute link (under the public URL, which is the target's). */
function pathOf(href: string): string {
  const url = new URL(href);
  return url.pathname + url.search;
}

/** Every feature of a query, following `next` links; checks each page's counts on the way. */
async function allPages(target: TestTarget, first: string): Promise<{ features: Feature[]; matched: number; pages: number }> {
  const features: Feature[] = [];
  let path: string | null = first;
  let matched = -1;
  let pages = 0;
  while (path) {
    const { status, body, res }: { status: number; body: Page; res: Response } = await target.json<Page>(path);
    assert.equal(status, 200, `${path}: ${JSON.stringify(body)}`);
    assert.match(res.headers.get('content-type')!, /^application\/geo\+json/);
    assert.equal(body.numberReturned, body.features.length);
    if (matched >= 0) assert.equal(body.numberMatched, matched, 'numberMatched is the same on every page');
    matched = body.numberMatched;
    features.push(...body.features);
    const next = body.links.find((l) => l.rel === 'next');
    path = next ? pathOf(next.href) : null;
    pages++;
    assert.ok(pages < 10_000);
  }
  return { features, matched, pages };
}

describe('OGC API – Features over the fixture', () => {
  let target: TestTarget;
  /** Each enabled map's POIs of each kind, from the JSON routes, as features. */
  const reference = new Map<string, Feature[]>();
  before(async () => {
    target = await openTarget(makeFixture());
    for (const map of [F.map, F.pacific]) {
      for (const kind of ['markers', 'paths', 'polygons'] as const) {
        const { body } = await target.json(`/maps/${map}/${kind}`);
        reference.set(`${map}-${kind}`, (body[kind] as Record<string, any>[]).map((r) => ({
          type: 'Feature', id: r.id, properties: r,
          geometry: kind === 'markers' ? { type: 'Point', coordinates: [r.lng, r.lat] } : r.geometry,
        })));
      }
    }
  });
  after(() => target.close());

  test('the landing page links the service description, its documentation, the conformance classes and the data, absolutely', async () => {
    const { status, body, res } = await target.json('/ogc');
    assert.equal(status, 200);
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    const rels = Object.fromEntries(body.links.map((l: { rel: string; href: string; type: string }) => [l.rel, l]));
    for (const rel of ['self', 'service-desc', 'service-doc', 'conformance', 'data']) {
      assert.ok(rels[rel], `a ${rel} link`);
      assert.ok(rels[rel].href.startsWith(`${new URL(rels.self.href).origin}/`), rels[rel].href);
      assert.ok(rels[rel].type, `${rel} has a type`);
      const linked = await target.get(pathOf(rels[rel].href));
      assert.equal(linked.status, 200, rel);
      await linked.arrayBuffer();
    }
    const { body: openapi, res: described } = await target.json(pathOf(rels['service-desc'].href));
    assert.equal(described.headers.get('content-type')!.split(';')[0], rels['service-desc'].type, 'the type the link says is the one served');
    assert.match(openapi.openapi, /^3\.1/);
    for (const path of ['/ogc', '/ogc/conformance', '/ogc/collections', '/ogc/collections/{collectionId}', '/ogc/collections/{collectionId}/items',
      '/ogc/collections/{collectionId}/items/{featureId}', '/ogc/collections/{collectionId}/queryables']) {
      assert.ok(openapi.paths[path], `OpenAPI documents ${path}`);
    }
  });

  test('the conformance classes: core, GeoJSON, queryables, filter and CQL2; not OpenAPI 3.0 nor HTML', async () => {
    const { body } = await target.json('/ogc/conformance');
    assert.deepEqual([...body.conformsTo].sort(), [
      'http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators',
      'http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2',
      'http://www.opengis.net/spec/cql2/1.0/conf/cql2-text',
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
      'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter',
      'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter',
      'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables',
    ]);
  });

  test('four collections per enabled map, none of the disabled one, each with its extent from the data', async () => {
    const { body } = await target.json('/ogc/collections');
    const ids = body.collections.map((c: { id: string }) => c.id).sort();
    assert.deepEqual(ids, [F.map, F.pacific].flatMap((map) => KINDS.map((kind) => `${map}-${kind}`)).sort());
    for (const c of body.collections) {
      assert.equal(c.itemType, 'feature');
      assert.ok(c.links.some((l: { rel: string }) => l.rel === 'items'));
      const one = await target.json(`/ogc/collections/${c.id}`);
      assert.deepEqual(one.body, c, 'the collection alone is described as in the list');
      if (c.id.endsWith('-events')) continue;
      const features = reference.get(c.id)!;
      if (features.length === 0) {
        assert.equal(c.extent.spatial, undefined, `${c.id} has no feature, so no extent`);
        continue;
      }
      const xs = features.flatMap((f) => flat(f.geometry!).map((p) => p[0]));
      const ys = features.flatMap((f) => flat(f.geometry!).map((p) => p[1]));
      assert.deepEqual(c.extent.spatial.bbox, [[Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]], c.id);
    }
    for (const kind of KINDS) assert.equal((await target.get(`/ogc/collections/${F.disabled}-${kind}`)).status, 404);
    assert.equal((await target.get(`/ogc/collections/${F.map}-lists`)).status, 404);
    assert.equal((await target.get(`/ogc/collections/nothing/items`)).status, 404);
  });

  test('paging through every collection with a small limit gives every feature exactly once, numberMatched exact', async () => {
    for (const map of [F.map, F.pacific]) {
      for (const kind of ['markers', 'paths', 'polygons'] as const) {
        const id = `${map}-${kind}`;
        const { features, matched, pages } = await allPages(target, `/ogc/collections/${id}/items?limit=7`);
        const want = reference.get(id)!;
        assert.equal(matched, want.length);
        assert.equal(pages, Math.max(1, Math.ceil(want.length / 7)));
        assert.deepEqual(features.map((f) => f.id), want.map((f) => f.id).sort(), `${id}: every feature once, by id`);
        const byId = new Map(want.map((f) => [f.id, f]));
        for (const f of features) {
          assert.deepEqual(f.geometry, byId.get(f.id)!.geometry);
          assert.equal(f.properties.name, byId.get(f.id)!.properties.name);
        }
      }
    }
  });

  test('limit: a page of the default size, a larger limit than the largest taken as the largest, none below 1', async () => {
    const id = `${F.map}-markers`;
    const { body } = await target.json<Page>(`/ogc/collections/${id}/items`);
    assert.equal(body.numberReturned, Math.min(100, reference.get(id)!.length));
    const big = await target.json<Page>(`/ogc/collections/${id}/items?limit=${OGC_MAX_LIMIT * 10}`);
    assert.equal(big.status, 200);
    assert.equal(big.body.numberReturned, Math.min(OGC_MAX_LIMIT, reference.get(id)!.length));
    assert.match(big.body.links.find((l) => l.rel === 'self')!.href, new RegExp(`limit=${OGC_MAX_LIMIT}\\b`));
    for (const bad of ['0', '-1', 'ten', '1.5']) {
      const { status, body: problem } = await target.json(`/ogc/collections/${id}/items?limit=${bad}`);
      assert.equal(status, 400, bad);
      assert.deepEqual(problem.errors.map((e: { name: string }) => e.name), ['limit']);
    }
  });

  test('bbox means intersects: exactly the features whose geometry meets the box, across the antimeridian too', async () => {
    const rand = mulberry32(36);
    const boxes: { map: string; box: Box }[] = [];
    for (const map of [F.map, F.pacific]) {
      const all = ['markers', 'paths', 'polygons'].flatMap((kind) => reference.get(`${map}-${kind}`)!);
      for (let k = 0; k < 25; k++) {
        const f = all[Math.floor(rand() * all.length)];
        const points = flat(f.geometry!);
        const [x, y] = points[Math.floor(rand() * points.length)];
        const r = 0.002 + rand() * 0.05;
        boxes.push({ map, box: [Math.max(-180, x - r * rand()), Math.max(-90, y - r), Math.min(180, x + r * rand()), Math.min(90, y + r * rand())] });
      }
    }
    // Across the antimeridian, round the Pacific map's dateline markers and walk; and one inside the polygon's hole.
    boxes.push({ map: F.pacific, box: [179.9, -19, -179.9, -16] }, { map: F.pacific, box: [170, -20, -170, -15] }, { map: F.pacific, box: [179.99, -18, 179.999, -17] });
    const hole = reference.get(`${F.map}-polygons`)!.find((f) => f.id === F.holePolygon)!;
    const ring = (hole.geometry as { coordinates: Position[][] }).coordinates[1];
    const [hx, hy] = [ring.reduce((s, p) => s + p[0], 0) / ring.length, ring.reduce((s, p) => s + p[1], 0) / ring.length];
    boxes.push({ map: F.map, box: [hx - 1e-5, hy - 1e-5, hx + 1e-5, hy + 1e-5] });
    let nonEmpty = 0;
    for (const { map, box } of boxes) {
      for (const kind of ['markers', 'paths', 'polygons'] as const) {
        const id = `${map}-${kind}`;
        const want = reference.get(id)!.filter((f) => boxesOf(box).some((b) => meets(f.geometry, b))).map((f) => f.id).sort();
        const { features, matched } = await allPages(target, `/ogc/collections/${id}/items?bbox=${box.join(',')}&limit=50`);
        assert.deepEqual(features.map((f) => f.id), want, `${id} bbox=${box.join(',')}`);
        assert.equal(matched, want.length);
        if (want.length > 0) nonEmpty++;
      }
    }
    assert.ok(nonEmpty > 40, `most boxes hold something (${nonEmpty})`);
    const inHole = await target.json<Page>(`/ogc/collections/${F.map}-polygons/items?bbox=${boxes.at(-1)!.box.join(',')}`);
    assert.ok(!inHole.body.features.some((f) => f.id === F.holePolygon), 'a box inside a hole does not meet the polygon');
    // A box wholly inside a polygon (no vertex, no edge in it) meets it; a path crossing a box with no vertex in it too.
    const outer = (hole.geometry as { coordinates: Position[][] }).coordinates[0];
    const [ox, oy] = [outer[0][0] + (hx - outer[0][0]) * 0.1, outer[0][1] + (hy - outer[0][1]) * 0.1];
    const inside: Box = [ox - 1e-6, oy - 1e-6, ox + 1e-6, oy + 1e-6];
    assert.ok(meets(hole.geometry, inside) && !flat(hole.geometry!).some((p) => inBox(p, inside)), 'the box lies inside the polygon');
    const within = await target.json<Page>(`/ogc/collections/${F.map}-polygons/items?bbox=${inside.join(',')}`);
    assert.ok(within.body.features.some((f) => f.id === F.holePolygon), 'a box inside a polygon meets it');
    const path = reference.get(`${F.map}-paths`)![0].geometry as { coordinates: Position[] };
    const [a, b] = path.coordinates;
    const mid: Position = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    const across: Box = [mid[0] - 1e-7, mid[1] - 1e-7, mid[0] + 1e-7, mid[1] + 1e-7];
    const crossed = await target.json<Page>(`/ogc/collections/${F.map}-paths/items?bbox=${across.join(',')}`);
    assert.ok(crossed.body.features.some((f) => f.id === reference.get(`${F.map}-paths`)![0].id), 'a path across a box with no vertex in it');
    // Six numbers (with heights, left aside) mean the same box; a collection id in capitals is the same collection.
    const four = await target.json<Page>(`/ogc/collections/${F.pacific}-markers/items?bbox=170,-20,-170,-15`);
    const six = await target.json<Page>(`/ogc/collections/${F.pacific.toUpperCase()}-markers/items?bbox=170,-20,0,-170,-15,100`);
    assert.equal(six.status, 200);
    assert.deepEqual(six.body.features.map((f) => f.id), four.body.features.map((f) => f.id));
    assert.ok(four.body.numberMatched > 0);
  });

  test('bad parameters: each named in one 400, unknown ones too (the standard asks it); datetime keeps no POI', async () => {
    const { status, body } = await target.json(`/ogc/collections/${F.map}-markers/items?bbox=1,2,3&limit=0&colour=red&sortby=name`);
    assert.equal(status, 400);
    assert.match(body.type, /about:blank|problem/);
    assert.deepEqual(body.errors.map((e: { name: string }) => e.name).sort(), ['bbox', 'colour', 'limit', 'sortby']);
    // A POI has no time: no datetime intersects it (the standard's rule), so none is kept.
    const time = await target.json<Page>(`/ogc/collections/${F.map}-markers/items?datetime=2027-01-01`);
    assert.equal(time.status, 200);
    assert.equal(time.body.numberMatched, 0);
    for (const path of ['/ogc?x=1', '/ogc/conformance?x=1', '/ogc/collections?x=1', `/ogc/collections/${F.map}-markers?x=1`]) {
      assert.equal((await target.get(path)).status, 400, path);
    }
    const cursor = await target.json(`/ogc/collections/${F.map}-markers/items?cursor=abc`);
    assert.equal(cursor.status, 400);
    assert.equal(cursor.body.errors[0].name, 'cursor');
  });

  test('a next link is bound to its query: with another bbox it is refused', async () => {
    const { body } = await target.json<Page>(`/ogc/collections/${F.map}-markers/items?limit=2`);
    const next = new URL(body.links.find((l) => l.rel === 'next')!.href);
    next.searchParams.set('bbox', '-180,-90,180,90');
    const { status, body: problem } = await target.json(next.pathname + next.search);
    assert.equal(status, 400);
    assert.equal(problem.errors[0].name, 'cursor');
  });

  test('properties keeps the named properties of each feature; an unknown name is a 400 naming the parameter', async () => {
    const { body } = await target.json<Page>(`/ogc/collections/${F.map}-paths/items?properties=name,category_ids`);
    for (const f of body.features) assert.deepEqual(Object.keys(f.properties), ['name', 'category_ids']);
    // properties= with no name is the parameter left out: every property.
    const none = await target.json<Page>(`/ogc/collections/${F.map}-paths/items?properties=`);
    const all = await target.json<Page>(`/ogc/collections/${F.map}-paths/items`);
    assert.deepEqual(none.body.features, all.body.features);
    const bad = await target.json(`/ogc/collections/${F.map}-paths/items?properties=name,colour`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].name, 'properties');
    assert.match(bad.body.errors[0].reason, /"colour"/);
  });

  test('queryables name every property a feature has, with its type', async () => {
    for (const kind of KINDS) {
      const id = `${F.map}-${kind}`;
      const { status, body, res } = await target.json(`/ogc/collections/${id}/queryables`);
      assert.equal(status, 200);
      assert.match(res.headers.get('content-type')!, /^application\/schema\+json/);
      assert.equal(body.type, 'object');
      const { body: page } = await target.json<Page>(`/ogc/collections/${id}/items?limit=5`);
      for (const f of page.features) {
        assert.deepEqual(Object.keys(f.properties).sort(), Object.keys(body.properties).sort(), id);
        for (const [name, value] of Object.entries(f.properties)) {
          const schema = body.properties[name];
          if (value === null) continue;
          const type = schema.type === 'integer' ? 'number' : schema.type;
          assert.equal(typeof value, type, `${id} ${name}`);
          if (schema.format === 'date-time') assert.ok(!Number.isNaN(Date.parse(value as string)), `${name}: ${value}`);
        }
      }
    }
  });

  test('filter: CQL2 text selects what a plain evaluation of the properties selects; a bad filter says where it failed', async () => {
    const id = `${F.map}-markers`;
    const { features: all } = await allPages(target, `/ogc/collections/${id}/items?limit=1000`);
    const someCategory = all[3].properties.category as string;
    const cases: [string, (p: Record<string, any>) => boolean][] = [
      [`category = '${someCategory}'`, (p) => p.category === someCategory],
      [`name LIKE 'Marker 1%' OR category IS NULL`, (p) => p.name.startsWith('Marker 1') || p.category === null],
      [`NOT (category = '${someCategory}') AND website IS NOT NULL`, (p) => p.category !== null && p.category !== someCategory && p.website !== null],
      [`name IN ('${all[0].properties.name}', '${all[1].properties.name}')`, (p) => p.name === all[0].properties.name || p.name === all[1].properties.name],
      // Every id holds hyphens; a pattern of many % must not take the service down.
      [`id LIKE '%-4%-%'`, (p) => /-4.*-/.test(p.id)],
      [`name LIKE '${'%a'.repeat(12)}%'`, (p) => (p.name.match(/a/g) ?? []).length >= 12],
    ];
    for (const [filter, keep] of cases) {
      const { features, matched } = await allPages(target, `/ogc/collections/${id}/items?limit=40&filter=${encodeURIComponent(filter)}`);
      const want = all.filter((f) => keep(f.properties)).map((f) => f.id);
      assert.deepEqual(features.map((f) => f.id), want, filter);
      assert.equal(matched, want.length);
    }
    const { status, body } = await target.json(`/ogc/collections/${id}/items?filter=${encodeURIComponent("name = 'x' AND")}`);
    assert.equal(status, 400);
    assert.equal(body.errors[0].name, 'filter');
    assert.match(body.errors[0].reason, /at character \d+/);
    const unknown = await target.json(`/ogc/collections/${id}/items?filter=${encodeURIComponent('colour = 1')}`);
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.errors[0].reason, /colour/);
    assert.equal((await target.get(`/ogc/collections/${id}/items?filter-lang=cql2-json&filter=x`)).status, 400);
    assert.equal((await target.get(`/ogc/collections/${id}/items?filter-crs=${encodeURIComponent('http://www.opengis.net/def/crs/OGC/1.3/CRS84')}&filter=${encodeURIComponent('name IS NULL')}`)).status, 200);
    assert.equal((await target.get(`/ogc/collections/${id}/items?filter-crs=EPSG:3857`)).status, 400);
    // self and next repeat every parameter of the query.
    const crs = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
    const { body: paged } = await target.json<Page>(`/ogc/collections/${id}/items?f=json&limit=2&filter-lang=cql2-text&filter-crs=${encodeURIComponent(crs)}&filter=${encodeURIComponent('name IS NOT NULL')}`);
    for (const rel of ['self', 'next']) {
      const params = new URL(paged.links.find((l) => l.rel === rel)!.href).searchParams;
      assert.deepEqual([params.get('f'), params.get('limit'), params.get('filter-lang'), params.get('filter-crs'), params.get('filter')],
        ['json', '2', 'cql2-text', crs, 'name IS NOT NULL'], rel);
    }
  });

  test('one feature: its collection\'s, with links; another collection\'s or an unknown id is 404', async () => {
    const marker = reference.get(`${F.map}-markers`)![0];
    const { status, body, res } = await target.json(`/ogc/collections/${F.map}-markers/items/${marker.id}`);
    assert.equal(status, 200);
    assert.match(res.headers.get('content-type')!, /^application\/geo\+json/);
    assert.equal(body.id, marker.id);
    assert.deepEqual(body.geometry, marker.geometry);
    assert.ok(body.links.some((l: { rel: string }) => l.rel === 'collection'));
    assert.equal((await target.get(`/ogc/collections/${F.map}-paths/items/${marker.id}`)).status, 404);
    assert.equal((await target.get(`/ogc/collections/${F.pacific}-markers/items/${marker.id}`)).status, 404);
    assert.equal((await target.get(`/ogc/collections/${F.map}-markers/items/${F.disabledMarker}`)).status, 404);
    assert.equal((await target.get(`/ogc/collections/${F.map}-markers/items/${F.draftMarker}`)).status, 404, 'a draft POI is not public');
    assert.equal((await target.get(`/ogc/collections/${F.map}-markers/items/not-an-id`)).status, 404);
  });

  test('ETag and 304 as on every answer', async () => {
    const path = `/ogc/collections/${F.map}-markers/items?limit=3`;
    const first = await target.get(path);
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    assert.ok(etag);
    const again = await target.get(path, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
  });
});

describe('OGC API – Features over the demo: events, time and languages', () => {
  let target: TestTarget;
  const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
  let events: Record<string, any>[] = [];
  before(async () => {
    target = await openTarget(await readFile(new URL('../../data/demo-bundle.json', import.meta.url), 'utf8'));
    let path: string | null = `/events?map_id=${MAIN}&from=1970-01-01&to=2100-01-01&status=all&limit=200`;
    while (path) {
      const { body }: { body: { events: Record<string, any>[]; next_cursor: string | null } } = await target.json(path);
      events.push(...body.events);
      path = body.next_cursor ? `/events?map_id=${MAIN}&from=1970-01-01&to=2100-01-01&status=all&limit=200&cursor=${body.next_cursor}` : null;
    }
    events = events.sort((a, b) => Date.parse(a.starts_at) - Date.parse(b.starts_at) || (a.id < b.id ? -1 : 1));
  });
  after(() => target.close());

  test('the events collection: every event and occurrence of /events, every status, in start order, MultiPoints of their anchors', async () => {
    const { features, matched } = await allPages(target, `/ogc/collections/${MAIN}-events/items?limit=97`);
    assert.equal(matched, events.length);
    assert.deepEqual(features.map((f) => f.id), events.map((e) => e.id));
    assert.ok(new Set(events.map((e) => e.status)).size > 1, 'the demo has events of several statuses');
    assert.ok(events.some((e) => e.series_id), 'and occurrences of series');
    const byId = new Map(events.map((e) => [e.id, e]));
    const points = new Map<string, Position[]>();
    for (const kind of ['markers', 'paths', 'polygons']) {
      const { body } = await target.json(`/maps/${MAIN}/${kind}`);
      for (const r of body[kind]) points.set(r.id, kind === 'markers' ? [[r.lng, r.lat]] : flat(r.geometry));
    }
    for (const f of features) {
      const e = byId.get(f.id)!;
      assert.equal(f.properties.status, e.status);
      assert.equal(f.properties.starts_at, e.starts_at);
      assert.equal(f.properties.title, e.title);
      const want = e.anchors.flatMap((a: { id: string }) => points.get(a.id) ?? []);
      assert.deepEqual(f.geometry, want.length > 0 ? { type: 'MultiPoint', coordinates: want } : null, f.id);
    }
    const { body } = await target.json(`/ogc/collections/${MAIN}-events`);
    assert.deepEqual(body.extent.temporal.interval, [[events[0].starts_at, events.map((e) => e.ends_at).sort().at(-1)]]);
  });

  test('datetime: an instant, a day, closed and open intervals keep the events whose window overlaps them', async () => {
    const mid = Date.parse(events[Math.floor(events.length / 2)].starts_at);
    const iso = (ms: number) => new Date(ms).toISOString();
    const day = iso(mid).slice(0, 10);
    const cases: [string, number, number][] = [
      [iso(mid), mid, mid],
      [day, Date.parse(day), Date.parse(day) + 86_400_000 - 1],
      [`${iso(mid - 5 * 86_400_000)}/${iso(mid)}`, mid - 5 * 86_400_000, mid],
      [`../${iso(mid)}`, -Infinity, mid],
      [`${iso(mid)}/..`, mid, Infinity],
      [`${iso(mid)}/`, mid, Infinity],
      ['../..', -Infinity, Infinity],
      [`${day}/${day}`, Date.parse(day), Date.parse(day) + 86_400_000 - 1],
      [`${iso(mid).replace('Z', '').replace(/\.\d+$/, '')}.5+02:00/..`, mid - 2 * 3_600_000 + 500, Infinity],
    ];
    for (const [datetime, from, to] of cases) {
      const want = events.filter((e) => Date.parse(e.starts_at) <= to && Date.parse(e.ends_at) >= from).map((e) => e.id);
      const { features, matched } = await allPages(target, `/ogc/collections/${MAIN}-events/items?limit=60&datetime=${encodeURIComponent(datetime)}`);
      assert.deepEqual(features.map((f) => f.id), want, datetime);
      assert.equal(matched, want.length);
      assert.ok(want.length > 0, datetime);
    }
    for (const bad of ['2027-13-01', '2027-06-01T10:00:00', '2027-06-02/2027-06-01', 'a/b/c']) {
      const { status, body } = await target.json(`/ogc/collections/${MAIN}-events/items?datetime=${encodeURIComponent(bad)}`);
      assert.equal(status, 400, bad);
      assert.equal(body.errors[0].name, 'datetime');
    }
  });

  test('filters on events: status and time', async () => {
    const { features } = await allPages(target, `/ogc/collections/${MAIN}-events/items?limit=500&filter=${encodeURIComponent("status <> 'scheduled' AND starts_at >= TIMESTAMP('2027-01-01T00:00:00Z')")}`);
    const want = events.filter((e) => e.status !== 'scheduled' && Date.parse(e.starts_at) >= Date.parse('2027-01-01T00:00:00Z')).map((e) => e.id);
    assert.deepEqual(features.map((f) => f.id), want);
    assert.ok(want.length > 0);
  });

  test('names in the negotiated language; langs=all has no place in a feature', async () => {
    const { body: details } = await target.json(`/maps/${MAIN}/markers?lang=pt`);
    const { body: pt, res } = await target.json<Page>(`/ogc/collections/${MAIN}-markers/items?lang=pt&limit=1000`);
    assert.equal(res.headers.get('content-language'), 'pt');
    const names = new Map(details.markers.map((m: { id: string; name: string }) => [m.id, m.name]));
    for (const f of pt.features) assert.equal(f.properties.name, names.get(f.id));
    const accept = await target.get(`/ogc/collections/${MAIN}-markers/items?limit=1`, { headers: { 'accept-language': 'pt-PT' } });
    assert.equal(accept.headers.get('content-language'), 'pt');
    await accept.arrayBuffer();
    assert.equal((await target.get(`/ogc/collections/${MAIN}-markers/items?langs=all`)).status, 400);
    // ... named in the same 400 as every other bad parameter.
    for (const path of [`/ogc/collections/${MAIN}-markers/items?langs=all&limit=0`, `/ogc/collections/${MAIN}-markers/queryables?langs=all&limit=0`,
      '/ogc/collections?langs=all&limit=0']) {
      const { res, body } = await target.json<{ errors?: { name: string }[] }>(path);
      assert.equal(res.status, 400, path);
      assert.deepEqual(body.errors?.map((e) => e.name).sort(), ['langs', 'limit'], path);
    }
    for (const link of pt.links) assert.match(link.href, /[?&]lang=pt(&|$)/, `${link.rel} carries the language`);
  });
});
