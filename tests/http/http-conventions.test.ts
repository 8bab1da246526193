/**
 * Request and response conventions (docs: api-conventions.md, "Requests" and "Responses") on every
 * route: methods, HEAD, CORS, base path, UUID case, flags, comma lists, repeated and unknown
 * parameters, problem+json, the 414 limit, request ids, content types, and a seeded fuzz that no
 * malformed input turns into a 500.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { changeToken } from '../../src/content/changes.ts';
import { routes } from '../../src/routes/index.ts';
import { F, makeFixture, mulberry32, uuidFor } from '../helpers/fixture.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';

/**
 * The fixture, as text of its own (indented): its data snapshot is this file's alone, so over a real port its service
 * owns it and keeps the change history the feed's sample needs, while the other files' services share theirs.
 */
const bundle = JSON.stringify(makeFixture(), null, 1);
let t: TestTarget;

before(async () => {
  t = await openTarget(bundle);
  // The change feed's sample follows from the token the store gave the map (none without change tracking).
  const token = (await t.get(`/maps/${M}/details`)).headers.get('x-change-token');
  assert.equal(token !== null, t.tracksChanges, 'an answer about a map carries its change token when changes are tracked');
  if (token) SAMPLES.push(`/maps/${M}/changes?since=${token}`);
  else {
    const res = await t.get(`/maps/${M}/changes?since=${changeToken('00000000-0000-0000-0000-000000000000', 1)}`);
    assert.equal(res.status, 503);
    assert.ok((await res.json()).export.endsWith(`/maps/${M}/export`));
  }
});
after(async () => {
  await t?.close();
});

const M = F.map;
const A = uuidFor('marker:main0');
const B = uuidFor('marker:main1');
const PATH0 = uuidFor('path:0');
const ROOT0 = uuidFor('category:root0');
const UUID_ANY = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_TYPE = 'application/json; charset=utf-8';
const mediaType = (res: Response) => (res.headers.get('content-type') ?? '').split(';')[0].trim();
const get = (path: string, init?: RequestInit) => t.get(path, init);
/** The headers of a response but Date, which the runtime's HTTP server adds (Bun leaves it off HEAD answers). */
const appHeaders = (res: Response) => Object.fromEntries([...res.headers].filter(([name]) => name !== 'date'));

/** One request for each OGC API Features route (the conformance classes are plain JSON; the rest are outputs, below). */
const OGC_SAMPLES = ['/ogc', '/ogc/conformance', '/ogc/collections', `/ogc/collections/${M}-markers`, `/ogc/collections/${M}-markers/queryables`,
  `/ogc/collections/${M}-markers/items`, `/ogc/collections/${M}-markers/items/${A}`];
/** One working request for every route the app serves (27 endpoints plus the OpenAPI document). */
const SAMPLES = [
  `/maps/${M}?info=true`, `/maps/${M}/details`, `/maps/${M}/contents`, `/publisher/${F.publisher}`,
  `/publisher/${F.publisher}/maps`, `/events?map_id=${M}`, `/events/upcoming-by-poi?poi_ids=${A}`, `/events/${F.savedEvent}`,
  `/maps/${M}/pois?tags=${ROOT0}`, `/maps/${M}/markers`, `/maps/${M}/markers/${A}`, `/markers/${A}`,
  `/maps/${M}/paths`, `/maps/${M}/paths/${PATH0}`, `/paths/${PATH0}`, `/maps/${M}/polygons`,
  `/maps/${M}/polygons/${F.holePolygon}`, `/polygons/${F.holePolygon}`, `/places-of-interest/items/${M}`,
  `/places-of-interest/map/${M}`, `/places-of-interest/id/${A}`, '/places-of-interest/icons',
  `/places-of-interest/tags-pois-orders?map_id=${M}&type=keywords`, `/poi-associations/${A}`, `/poi-associations?poi_ids=${A}`,
  `/maps/${M}/lists`, `/maps/${M}/lists/${F.verifiedList}`, '/openapi.json', `/events.ics?map_id=${M}`, `/events/${F.savedEvent}.ics`,
  `/events/${F.savedEvent}.html`, `/events/${F.savedEvent}.jsonld`, `/markers/${A}.html`, `/markers/${A}.jsonld`, `/paths/${PATH0}.html`,
  `/paths/${PATH0}.jsonld`, `/polygons/${F.holePolygon}.html`, `/polygons/${F.holePolygon}.jsonld`,
  `/maps/${M}/tiles.json`, `/maps/${M}/tiles/0/0/0.mvt`, `/maps/${M}/style.json`,
  `/paths/${PATH0}.gpx`, `/paths/${PATH0}.kml`, `/maps/${M}/pois.gpx`, `/maps/${M}/pois.kml`,
  ...OGC_SAMPLES, `/maps/${M}/export`,
];
/** The routes of the basemap, which answer 404 when none is served (as here: tests/basemap.test.ts serves one). */
const NO_BASEMAP_SAMPLES = ['/basemap.json', ...['mvt', 'png', 'jpg', 'webp', 'avif'].map((suffix) => `/basemap/0/0/0.${suffix}`)];
const GEOJSON_PATHS = new Set([`/places-of-interest/map/${M}`]);
/** The samples of routes whose 200 is another format than JSON (docs/outputs.md), with that format. */
const OUTPUT_SAMPLES = new Map([
  [`/events.ics?map_id=${M}`, 'text/calendar; charset=utf-8'], [`/events/${F.savedEvent}.ics`, 'text/calendar; charset=utf-8'],
  ...[`/events/${F.savedEvent}`, `/markers/${A}`, `/paths/${PATH0}`, `/polygons/${F.holePolygon}`].flatMap((path) => [
    [`${path}.html`, 'text/html; charset=utf-8'], [`${path}.jsonld`, 'application/ld+json; charset=utf-8']] as const),
  [`/maps/${M}/tiles/0/0/0.mvt`, 'application/vnd.mapbox-vector-tile'],
  ...[`/paths/${PATH0}`, `/maps/${M}/pois`].flatMap((path) => [
    [`${path}.gpx`, 'application/gpx+xml'], [`${path}.kml`, 'application/vnd.google-earth.kml+xml']] as const),
  // JSON with absolute links under the public URL (which holds the base path): compared as outputs are.
  [`/maps/${M}/tiles.json`, JSON_TYPE], [`/maps/${M}/style.json`, JSON_TYPE],
  ...OGC_SAMPLES.filter((path) => path !== '/ogc/conformance').map((path) => [path,
    path.includes('/items') ? 'application/geo+json; charset=utf-8' : path.endsWith('/queryables') ? 'application/schema+json; charset=utf-8' : JSON_TYPE] as const),
]);
/** What a 200 other than JSON may be: a page, or an output's format. */
const OTHER_TYPES = new Set(['text/html; charset=utf-8', ...OUTPUT_SAMPLES.values()]);

/** A body as its type says: JSON, or the text of a page or an output. */
const bodyOf = async (res: Response): Promise<unknown> => (OTHER_TYPES.has(res.headers.get('content-type') ?? '') ? res.text() : res.json());

/** A request per status the API uses besides 200, so header rules can be checked on each. */
const ERROR_SAMPLES: [string, number, RequestInit?][] = [
  [`/maps/${uuidFor('nothing')}`, 404], ['/no/such/route', 404], [`/maps/not-a-uuid`, 400],
  [`/maps/${M}/lists?verified=false`, 403], [`/maps/${M}`, 405, { method: 'POST' }],
  [`/maps/${M}?pad=${'x'.repeat(9000)}`, 414], [`/maps/${M}`, 204, { method: 'OPTIONS' }],
];

describe('methods', () => {
  test('the samples cover every route the app serves, and each answers GET with 200 and a JSON object (or its own format)', async () => {
    const patterns = routes.map((r) => new RegExp(`^${r.path.replace(/:\w+/g, '[^/]+')}$`));
    for (const [i, re] of patterns.entries()) {
      assert.ok([...SAMPLES, ...NO_BASEMAP_SAMPLES].some((s) => re.test(s.split('?')[0])), `no sample for ${routes[i].path}`);
    }
    assert.equal(SAMPLES.length + NO_BASEMAP_SAMPLES.length, routes.length);
    for (const path of NO_BASEMAP_SAMPLES) assert.equal((await get(path)).status, 404, path);
    for (const path of SAMPLES) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      if (OUTPUT_SAMPLES.has(path)) {
        assert.equal(res.headers.get('content-type'), OUTPUT_SAMPLES.get(path), path);
        assert.ok((await res.text()).length > 0, path);
        continue;
      }
      if (GEOJSON_PATHS.has(path)) assert.equal(mediaType(res), 'application/geo+json', path);
      else assert.equal(res.headers.get('content-type'), JSON_TYPE, path);
      const body = await res.json();
      assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), `${path}: the top level is an object`);
    }
  });

  test('HEAD returns the same status and headers as GET with an empty body, for 200s and errors alike', async () => {
    const paths = [...SAMPLES, `/maps/${uuidFor('nothing')}`, '/no/such/route', '/maps/not-a-uuid', `/maps/${M}/lists?verified=false`];
    for (const path of paths) {
      const headers = { 'x-request-id': 'head-check-1' };
      const g = await get(path, { headers });
      const h = await get(path, { method: 'HEAD', headers });
      assert.equal(h.status, g.status, path);
      assert.deepEqual(appHeaders(h), appHeaders(g), path);
      assert.equal(await h.text(), '', path);
      assert.ok((await g.text()).length > 0, path);
    }
  });

  test('OPTIONS answers a CORS preflight with 204, allowing GET and HEAD, Authorization and If-None-Match, with a Max-Age', async () => {
    for (const path of SAMPLES) {
      const res = await get(path, {
        method: 'OPTIONS',
        headers: { origin: 'https://example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      assert.equal(res.status, 204, path);
      const list = (name: string) => (res.headers.get(name) ?? '').split(',').map((s) => s.trim().toLowerCase());
      for (const m of ['get', 'head']) assert.ok(list('access-control-allow-methods').includes(m), `${path} allows ${m}`);
      for (const h of ['authorization', 'if-none-match']) assert.ok(list('access-control-allow-headers').includes(h), `${path} allows ${h}`);
      assert.match(res.headers.get('access-control-max-age') ?? '', /^[1-9]\d*$/, path);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.equal(await res.text(), '');
    }
  });

  test('POST, PUT, DELETE and PATCH get 405 problem+json with an Allow header listing GET and HEAD', async () => {
    for (const path of SAMPLES) {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const res = await get(path, { method, body: method === 'DELETE' ? undefined : '{}' });
        assert.equal(res.status, 405, `${method} ${path}`);
        const allow = (res.headers.get('allow') ?? '').split(',').map((s) => s.trim());
        assert.ok(allow.includes('GET') && allow.includes('HEAD'), `${method} ${path}: Allow ${allow}`);
        assert.ok(!allow.includes(method));
        assert.equal(mediaType(res), 'application/problem+json');
        assert.equal((await res.json()).status, 405);
      }
    }
  });

  test('every answer carries the security headers: 200, 304, HEAD, preflight, 400, 404, 405, 414, /healthz and /readyz', async () => {
    const etag = (await get(SAMPLES[0])).headers.get('etag')!;
    const answers = [
      await get(SAMPLES[0]), await get(SAMPLES[0], { headers: { 'if-none-match': etag } }), await get(SAMPLES[0], { method: 'HEAD' }),
      await get(SAMPLES[0], { method: 'OPTIONS', headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' } }),
      await get(`/events?map_id=${M}&limit=0`), await get('/no/such/route'), await get(SAMPLES[0], { method: 'POST' }),
      await get(`/maps/${M}?x=${'a'.repeat(9000)}`), await get('/healthz'), await get('/readyz'),
    ];
    assert.deepEqual(answers.map((r) => r.status), [200, 304, 200, 204, 400, 404, 405, 414, 200, 200]);
    for (const res of answers) {
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', String(res.status));
      assert.match(res.headers.get('content-security-policy') ?? '', /^default-src 'none'; frame-ancestors 'none'/, String(res.status));
      assert.equal(res.headers.get('x-frame-options'), 'DENY', String(res.status));
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer', String(res.status));
    }
  });

  test('an unknown path gets 404 problem+json, and a path starting with // is a path, never a host', async () => {
    // `/` is the home page (tests/http/pages.test.ts).
    for (const path of ['/nope', '/explore/nope', '/assets/nope.js', '/maps', `/maps/${M}/nope`, '/markers', `/events/${F.savedEvent}/extra`, '/api/v1/openapi.json',
      '//', `//evil.example/markers/${A}`, `//markers/${A}`]) {
      const res = await get(path);
      assert.equal(res.status, 404, path);
      assert.equal(mediaType(res), 'application/problem+json', path);
      const body = await res.json();
      assert.equal(body.status, 404);
      assert.equal(body.instance, path);
    }
  });

  test('a path without parameters routes the same every time, past the number of matches the app keeps (256)', async () => {
    const first = await (await get(`/events?map_id=${M}&limit=3`)).json();
    assert.equal(first.events.length, 3);
    // Each spelling (`/events/`, `/events//`, …) is a path of its own to the router; all of them are /events.
    for (let k = 0; k <= 300; k += 1) {
      const path = `/events${'/'.repeat(k)}`;
      const res = await get(`${path}?map_id=${M}&limit=3`);
      assert.equal(res.status, 200, path);
      assert.deepEqual(await res.json(), first, path);
      if (k % 50 === 0) {
        // Paths with parameters are routed between them: another id, another record.
        assert.equal((await (await get(`/markers/${k % 100 === 0 ? A : B}`)).json()).id, k % 100 === 0 ? A : B);
        assert.equal((await get(`/events/?limit=1`)).status, 400, 'map_id is still required');
      }
    }
    // An absent parameter is its default again after requests that sent it (what it parses to is kept).
    const all = await (await get(`/events?map_id=${M}`)).json();
    assert.equal(all.events.length, Math.min(50, all.total));
    assert.ok(all.total > 3);
  });
});

describe('base path', () => {
  test('a configured base path mounts every route under it, and the root routes answer 404', async () => {
    for (const basePath of ['/api/v1', '/api/v1/', 'api/v1']) {
      const mounted = await openTarget(bundle, { basePath });
      const fetch = (path: string, init?: RequestInit) => mounted.get(path, init);
      try {
        // Change tokens name their store: the second service's feed is asked from its own token (on PostgreSQL it is a replica
        // of another database). On this snapshot it may serve the caches without change history: its feed is then 503.
        const mountedToken = (await fetch(`/api/v1/maps/${M}/details`)).headers.get('x-change-token');
        assert.equal(mountedToken !== null, mounted.tracksChanges);
        for (const path of SAMPLES) {
          const feed = path.includes('/changes?');
          const untracked = feed && !mounted.tracksChanges;
          const res = await fetch(`/api/v1${feed && mountedToken ? path.replace(/since=[^&]*/, `since=${mountedToken}`) : path}`);
          assert.equal(res.status, untracked ? 503 : 200, `${basePath}: /api/v1${path}`);
          if (untracked) assert.ok((await res.json()).export.endsWith(`/api/v1/maps/${M}/export`));
          else if (feed) assert.deepEqual((await res.json()).changes, []);
          // An output's links are absolute under the public URL, which holds the base path: its type alone is compared.
          if (OUTPUT_SAMPLES.has(path)) assert.equal(res.headers.get('content-type'), OUTPUT_SAMPLES.get(path));
          else if (!feed) {
            const body = await res.json();
            if (path === '/openapi.json') assert.equal(body.servers[0].url, '/api/v1');
            else {
              // The export's token names the store (another database on PostgreSQL), and is null on a service without change
              // tracking (the second one here may be): the rest is compared.
              const expected = await (await get(path)).json();
              if (path.endsWith('/export')) {
                assert.equal(body.token !== null, mounted.tracksChanges);
                [body.token, expected.token] = [null, null];
              }
              assert.deepEqual(body, expected, path);
            }
          }
          assert.equal((await fetch(path)).status, 404, `${basePath}: ${path} at the root`);
          assert.equal((await fetch(`/api/v10${path}`)).status, 404, `/api/v10${path}`);
        }
        const missing = await fetch(`/api/v1/maps/${uuidFor('nothing')}`);
        assert.equal(missing.status, 404);
        assert.equal((await missing.json()).instance, `/api/v1/maps/${uuidFor('nothing')}`);
        assert.equal((await fetch(`/api/v1/maps/${M}`, { method: 'OPTIONS' })).status, 204);
        assert.equal((await fetch(`/api/v1/maps/${M}`, { method: 'PUT' })).status, 405);
      } finally {
        await mounted.close();
      }
    }
  });
});

describe('parameters', () => {
  const mixed = (id: string) => [...id].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');

  test('UUIDs are accepted in any letter case and always emitted lowercase', async () => {
    const cases: [string, (body: any) => void][] = [
      [`/maps/${M.toUpperCase()}?markers=true&version_id=${F.v1.toUpperCase()}`, (b) => { assert.equal(b.id, M); assert.equal(b.version.id, F.v1); }],
      [`/maps/${mixed(M)}/markers/${A.toUpperCase()}`, (b) => assert.equal(b.id, A)],
      [`/markers/${A.toUpperCase()}`, (b) => assert.equal(b.id, A)],
      [`/publisher/${F.publisher.toUpperCase()}`, (b) => assert.equal(b.id, F.publisher)],
      [`/events?map_id=${M.toUpperCase()}&from=2027-01-01`, (b) => assert.ok(b.events.length > 0)],
      [`/events/${F.savedEvent.toUpperCase()}`, (b) => assert.equal(b.id, F.savedEvent)],
      [`/events/upcoming-by-poi?poi_ids=${A.toUpperCase()},${mixed(B)}`, (b) => assert.deepEqual(Object.keys(b), [A, B])],
      [`/poi-associations?poi_ids=${A.toUpperCase()}&list_id=${F.verifiedList.toUpperCase()}`, (b) => assert.deepEqual(Object.keys(b), [A])],
      [`/poi-associations/${A.toUpperCase()}`, (b) => assert.equal(b.poi_id, A)],
      [`/places-of-interest/tags-pois-orders?map_id=${M.toUpperCase()}&path_id=${ROOT0.toUpperCase()}`, (b) => assert.equal(b.path_id, ROOT0)],
      [`/places-of-interest/id/${mixed(F.holePolygon)}`, (b) => assert.equal(b.record.id, F.holePolygon)],
      [`/maps/${M}/lists/${F.verifiedList.toUpperCase()}`, (b) => assert.equal(b.id, F.verifiedList)],
    ];
    for (const [path, check] of cases) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      const text = await res.text();
      check(JSON.parse(text));
      for (const id of text.match(UUID_ANY) ?? []) assert.equal(id, id.toLowerCase(), `${path} emits ${id}`);
    }
    const lower = await (await get(`/maps/${M}/pois?tags=${ROOT0}`)).json();
    assert.deepEqual(await (await get(`/maps/${M}/pois?tags=${ROOT0.toUpperCase()}`)).json(), lower);
    assert.ok(lower.total > 0);
  });

  test('a value parsed before parses the same again, past the values kept per parameter, and a bad one stays bad', async () => {
    // limit 1 to 300 (valibot's parse of each plain value is kept, at most 256 per parameter), twice over.
    const total = (await (await get(`/events?map_id=${M}&from=2026-01-01&to=2029-01-01`)).json()).total;
    assert.ok(total > 3);
    for (let round = 0; round < 2; round++) {
      for (let limit = 1; limit <= 300; limit += round === 0 ? 1 : 37) {
        const res = await get(`/events?map_id=${M}&from=2026-01-01&to=2029-01-01&limit=${limit}`);
        if (limit > 200) {
          assert.equal(res.status, 400, `limit=${limit}`);
          assert.deepEqual((await res.json()).errors.map((e: { name: string }) => e.name), ['limit']);
          continue;
        }
        assert.equal(res.status, 200, `limit=${limit}`);
        assert.equal((await res.json()).events.length, Math.min(limit, total), `limit=${limit}`);
      }
      for (const bad of ['x', '0', '1.5', '']) assert.equal((await get(`/events?map_id=${M}&limit=${bad}`)).status, 400, `limit=${bad}`);
    }
  });

  const BAD_UUIDS = ['not-a-uuid', M.replace(/-/g, ''), `%7B${M}%7D`, `urn:uuid:${M}`, M.slice(0, -1), `${M}0`, `g${M.slice(1)}`,
    `${M}%20`, `%20${M}`, M.replace('-', '_'), `${M.slice(0, -1)}%D9%A3`, '0', '%00'];
  const PATH_SLOTS: [(bad: string) => string, string][] = [
    [(x) => `/maps/${x}`, 'map_id'], [(x) => `/maps/${x}/details`, 'map_id'], [(x) => `/maps/${x}/contents`, 'map_id'],
    [(x) => `/maps/${M}/markers/${x}`, 'marker_id'], [(x) => `/markers/${x}`, 'marker_id'], [(x) => `/paths/${x}`, 'path_id'],
    [(x) => `/maps/${M}/polygons/${x}`, 'polygon_id'], [(x) => `/polygons/${x}`, 'polygon_id'], [(x) => `/maps/${M}/lists/${x}`, 'list_id'],
    [(x) => `/publisher/${x}`, 'publisher_id'], [(x) => `/publisher/${x}/maps`, 'publisher_id'], [(x) => `/events/${x}`, 'id'],
    [(x) => `/places-of-interest/map/${x}`, 'mapId'], [(x) => `/places-of-interest/id/${x}`, 'poiId'],
    [(x) => `/places-of-interest/items/${x}`, 'map_id'], [(x) => `/poi-associations/${x}`, 'poi_id'],
  ];
  const QUERY_SLOTS: [(bad: string) => string, string][] = [
    [(x) => `/events?map_id=${x}`, 'map_id'], [(x) => `/maps/${M}?version_id=${x}`, 'version_id'],
    [(x) => `/maps/${M}/markers?version_id=${x}`, 'version_id'], [(x) => `/places-of-interest/map/${M}?version_id=${x}`, 'version_id'],
    [(x) => `/poi-associations?poi_ids=${A},${x}`, 'poi_ids'], [(x) => `/poi-associations?poi_ids=${A}&list_id=${x}`, 'list_id'],
    [(x) => `/events/upcoming-by-poi?poi_ids=${x}`, 'poi_ids'], [(x) => `/maps/${M}/pois?tags=${ROOT0},${x}`, 'tags'],
    [(x) => `/places-of-interest/tags-pois-orders?map_id=${x}&type=keywords`, 'map_id'],
    [(x) => `/places-of-interest/tags-pois-orders?map_id=${M}&path_id=${x}`, 'path_id'],
  ];

  test('a malformed UUID in a path or query slot gets 400 naming the parameter and where it is', async () => {
    for (const [slots, where] of [[PATH_SLOTS, 'path'], [QUERY_SLOTS, 'query']] as const) {
      for (const [make, name] of slots) {
        // In a comma list, spaces around an item are ignored, so only the other forms are malformed there.
        const list = name === 'poi_ids' || name === 'tags';
        for (const bad of list ? BAD_UUIDS.filter((x) => !x.includes('%20')) : BAD_UUIDS) {
          const path = make(bad);
          const res = await get(path);
          assert.equal(res.status, 400, path);
          const body = await res.json();
          assert.deepEqual(body.errors.map((e: { name: string; in: string }) => ({ name: e.name, in: e.in })), [{ name, in: where }], path);
          assert.match(body.detail, new RegExp(name));
        }
      }
    }
  });

  test('a well-formed UUID that names nothing gets 404', async () => {
    const nothing = uuidFor('nothing at all');
    for (const [make] of [...PATH_SLOTS, ...QUERY_SLOTS.filter(([, n]) => !['poi_ids', 'tags'].includes(n))]) {
      const path = make(nothing);
      assert.equal((await get(path)).status, 404, path);
    }
  });

  const FLAG_ROUTES: [string, string][] = [
    ...['info', 'all_categories', 'categories', 'markers', 'paths', 'polygons', 'publisher', 'map_data', 'contact', 'map_sponsors',
      'tag_counts', 'contents'].map((f): [string, string] => [`/maps/${M}?`, f]),
    [`/places-of-interest/items/${M}?`, 'include_counts'], [`/poi-associations?poi_ids=${A}&`, 'include_reverse'],
  ];

  test('flags accept true, false and absence, and any other value gets 400 naming the flag', async () => {
    for (const [prefix, name] of FLAG_ROUTES) {
      const absent = await (await get(prefix.slice(0, -1))).json();
      const off = await get(`${prefix}${name}=false`);
      assert.equal(off.status, 200);
      assert.deepEqual(await off.json(), absent, `${name}=false is the same as no ${name}`);
      const on = await get(`${prefix}${name}=true`);
      assert.equal(on.status, 200);
      assert.notDeepEqual(await on.json(), absent, `${name}=true changes the body`);
      for (const bad of ['yes', '1', 'TRUE', 'True', '0', 'on', 'no', '', 'true%20', 't']) {
        const res = await get(`${prefix}${name}=${bad}`);
        assert.equal(res.status, 400, `${name}=${bad}`);
        const body = await res.json();
        assert.deepEqual(body.errors.map((e: { name: string; in: string }) => [e.name, e.in]), [[name, 'query']], `${name}=${bad}`);
      }
    }
  });

  test('comma lists ignore spaces around items, drop empty items and collapse repeats in first-seen order', async () => {
    const messy = `%20${B}%20,%20${A},,${B},%20${A.toUpperCase()}%20,`;
    const upcoming = await (await get(`/events/upcoming-by-poi?poi_ids=${messy}&from=2020-01-01`)).json();
    assert.deepEqual(Object.keys(upcoming), [B, A]);
    assert.deepEqual(upcoming, await (await get(`/events/upcoming-by-poi?poi_ids=${B},${A}&from=2020-01-01`)).json());
    const assoc = await (await get(`/poi-associations?poi_ids=${messy}&include_reverse=true`)).json();
    assert.deepEqual(Object.keys(assoc), [B, A]);
    const tags = uuidFor('category:tag1-1');
    const clean = await (await get(`/maps/${M}/pois?tags=${ROOT0},${tags}&end=500`)).json();
    assert.deepEqual(await (await get(`/maps/${M}/pois?tags=%20${ROOT0}%20,,%20${tags},${ROOT0}&end=500`)).json(), clean);
    const types = await (await get(`/events?map_id=${M}&from=2027-01-01&to=2027-12-31&event_types=concert,market&tags=art,night&limit=200`)).json();
    assert.ok(types.total > 0);
    assert.deepEqual(await (await get(`/events?map_id=${M}&from=2027-01-01&to=2027-12-31&event_types=%20concert%20,,%20,market,concert&tags=,art,,night%20,art&limit=200`)).json(), types);
    for (const path of [`/events/upcoming-by-poi?poi_ids=,%20,,`, `/poi-associations?poi_ids=,`, `/maps/${M}/pois?tags=%20`]) {
      const res = await get(path);
      assert.equal(res.status, 400, `${path}: a list with no items`);
    }
  });

  test('a comma list of 100 items is accepted and one of 101 items gets 400 stating the limit', async () => {
    const rand = mulberry32(7);
    const ids = Array.from({ length: 101 }, (_, i) => uuidFor(`random:${i}:${rand()}`));
    const words = Array.from({ length: 101 }, (_, i) => `w${i}`);
    const lists: [string, string[], string][] = [
      ['/events/upcoming-by-poi?poi_ids=', ids, 'poi_ids'], ['/poi-associations?poi_ids=', ids, 'poi_ids'],
      [`/maps/${M}/pois?tags=`, ids, 'tags'], [`/events?map_id=${M}&tags=`, words, 'tags'], [`/events?map_id=${M}&event_types=`, words, 'event_types'],
    ];
    for (const [prefix, items, name] of lists) {
      const ok = await get(prefix + items.slice(0, 100).join(','));
      assert.equal(ok.status, 200, `${name} with 100 items`);
      // Repeats are collapsed before counting: 100 distinct items plus a repeat is still 100.
      assert.equal((await get(prefix + [...items.slice(0, 100), items[0]].join(','))).status, 200, `${name} with a repeat`);
      const res = await get(prefix + items.join(','));
      assert.equal(res.status, 400, `${name} with 101 items`);
      const body = await res.json();
      assert.deepEqual(body.errors.map((e: { name: string }) => e.name), [name]);
      assert.match(body.errors[0].reason, /100/);
    }
    const upcoming = await (await get(`/events/upcoming-by-poi?poi_ids=${ids.slice(0, 100).join(',')}`)).json();
    assert.deepEqual(Object.keys(upcoming), ids.slice(0, 100));
  });

  test('a UUID repeated in another letter case counts once toward the 100-item limit', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => uuidFor(`case:${i}`));
    for (const prefix of ['/events/upcoming-by-poi?poi_ids=', '/poi-associations?poi_ids=', `/maps/${M}/pois?tags=`]) {
      const res = await get(prefix + [...ids, ids[0].toUpperCase()].join(','));
      assert.equal(res.status, 200, `${prefix}: 100 distinct UUIDs, one of them repeated in upper case`);
    }
  });

  test('a repeated known parameter gets 400 naming it, while repeated unknown parameters are ignored', async () => {
    const cases: [string, string][] = [
      [`/events?map_id=${M}&limit=1&limit=2`, 'limit'], [`/maps/${M}?info=true&info=false`, 'info'],
      [`/events?map_id=${M}&map_id=${M}`, 'map_id'], [`/maps/${M}/pois?tags=${ROOT0}&tags=${ROOT0}`, 'tags'],
      [`/maps/${M}/lists?start=0&start=1`, 'start'],
    ];
    for (const [path, name] of cases) {
      const res = await get(path);
      assert.equal(res.status, 400, path);
      const body = await res.json();
      assert.deepEqual(body.errors.map((e: { name: string; in: string }) => [e.name, e.in]), [[name, 'query']], path);
    }
    for (const [path, plain] of [
      [`/maps/${M}?info=true&foo=1&foo=2`, `/maps/${M}?info=true`],
      [`/maps/${M}/details?map_id=a&map_id=b`, `/maps/${M}/details`],
      [`/events?map_id=${M}&_=1&_=2`, `/events?map_id=${M}`],
    ]) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      assert.deepEqual(await res.json(), await (await get(plain)).json(), path);
    }
  });

  test('unknown parameters are ignored, but by OGC API Features, whose standard asks for a 400 naming each', async () => {
    for (const path of SAMPLES) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await get(`${path}${sep}_=1712345678&utm_source=news&callback=cb&x%20y=%E0%A4%A`);
      if (OGC_SAMPLES.includes(path)) {
        assert.equal(res.status, 400, path);
        const names = (await res.json()).errors.map((e: { name: string }) => e.name);
        for (const name of ['_', 'utm_source', 'callback']) assert.ok(names.includes(name), `${path}: ${name} is named`);
        continue;
      }
      assert.equal(res.status, 200, path);
      assert.deepEqual(await bodyOf(res), await bodyOf(await get(path)), path);
    }
  });

  test('integers are base-10 with no decimal point, and out of range gets 400 stating the range', async () => {
    for (const bad of ['1.0', '1e2', '0x10', '1_0', 'ten', '0', '201', '-1', '99999999999999999999', 'NaN', 'Infinity']) {
      const res = await get(`/events?map_id=${M}&limit=${bad}`);
      assert.equal(res.status, 400, `limit=${bad}`);
      const body = await res.json();
      assert.equal(body.errors[0].name, 'limit');
      assert.match(body.errors[0].reason, /1 to 200/);
    }
    for (const [path, range] of [[`/events/upcoming-by-poi?poi_ids=${A}&limit_per_poi=21`, /1 to 20/],
      [`/events?map_id=${M}&near=38.7,-9.1&radius_m=200001`, /1 to 200000/], [`/maps/${M}/lists?start=-1`, /from 0/]] as const) {
      const res = await get(path);
      assert.equal(res.status, 400, path);
      assert.match((await res.json()).errors[0].reason, range, path);
    }
    assert.equal((await get(`/events?map_id=${M}&limit=200`)).status, 200);
  });
});

describe('errors', () => {
  const PROBLEM_KEYS = ['detail', 'errors', 'instance', 'status', 'title', 'type'];

  /** Checks the RFC 9457 shape of a problem response and returns its body. */
  async function problem(res: Response, status: number, instance: string) {
    assert.equal(res.status, status);
    assert.equal(mediaType(res), 'application/problem+json');
    const body = await res.json();
    for (const k of Object.keys(body)) assert.ok(PROBLEM_KEYS.includes(k), `unexpected key ${k}`);
    assert.equal(typeof body.type, 'string');
    assert.equal(typeof body.title, 'string');
    assert.ok(body.title.length > 0 && body.detail.length > 0);
    assert.equal(body.status, status);
    assert.equal(body.instance, instance);
    if (status === 400) {
      assert.ok(Array.isArray(body.errors) && body.errors.length > 0);
      for (const e of body.errors) {
        assert.deepEqual(Object.keys(e).sort(), ['in', 'name', 'reason']);
        assert.ok(['query', 'path', 'header'].includes(e.in));
        assert.ok(typeof e.reason === 'string' && e.reason.length > 0);
        assert.ok(body.detail.includes(e.name), `detail names ${e.name}`);
      }
    }
    return body;
  }

  test('a 400 lists every bad parameter at once', async () => {
    const cases: [string, [string, string][]][] = [
      [`/events?map_id=bad&limit=0&from=garbage`, [['map_id', 'query'], ['from', 'query'], ['limit', 'query']]],
      [`/maps/bad?info=yes&markers=1`, [['map_id', 'path'], ['info', 'query'], ['markers', 'query']]],
      [`/events?map_id=${M}&from=2027-01-01T10:00&to=x&event_types=a&bbox=1,2&near=a,b&radius_m=0&limit=1.5&cursor=%21`,
        [['from', 'query'], ['to', 'query'], ['bbox', 'query'], ['near', 'query'], ['radius_m', 'query'], ['limit', 'query'], ['cursor', 'query']]],
      [`/maps/x/lists?verified=maybe&start=-1&end=x`, [['map_id', 'path'], ['verified', 'query'], ['start', 'query'], ['end', 'query']]],
      [`/publisher/x/maps?lat=100&lng=west`, [['publisher_id', 'path'], ['lat', 'query'], ['lng', 'query']]],
      [`/places-of-interest/items/x?sort_type=size&version_id=v&include_counts=2`,
        [['map_id', 'path'], ['sort_type', 'query'], ['version_id', 'query'], ['include_counts', 'query']]],
    ];
    for (const [path, expected] of cases) {
      const body = await problem(await get(path), 400, path.split('?')[0]);
      const got = body.errors.map((e: { name: string; in: string }) => [e.name, e.in]);
      const key = (x: string[]) => x.join(':');
      assert.deepEqual(got.map(key).sort(), expected.map(key).sort(), path);
    }
  });

  test('problem responses have the RFC 9457 shape and the problem+json content type for every error status', async () => {
    for (const [path, status, init] of ERROR_SAMPLES) {
      if (status === 204) continue;
      await problem(await get(path, init), status, path.split('?')[0]);
    }
  });

  test('a forged cursor with an impossible window gets 400, not 500', async () => {
    const forge = (state: unknown) => Buffer.from(JSON.stringify(state)).toString('base64url');
    const results: string[] = [];
    const expected: string[] = [];
    for (const state of [{ k: 'x', s: 0, i: 'x', f: 1e20, t: 0 }, { k: 'x', s: 0, i: 'x', f: 0, t: -1e20 },
      { k: 'x', s: 1e300, i: 'x', f: 1e300, t: 1e301 }, { k: 'x', s: 0, i: 'x', f: 10, t: 5 }]) {
      const res = await get(`/events?map_id=${M}&cursor=${forge(state)}`);
      const body = await res.json();
      // The client sent only the cursor, so the cursor is what the 400 must name.
      results.push(`${JSON.stringify(state)} -> ${res.status} ${(body.errors ?? []).map((e: { name: string }) => e.name)}`);
      expected.push(`${JSON.stringify(state)} -> 400 cursor`);
    }
    assert.deepEqual(results, expected);
  });

  test('a request target longer than 8 KiB gets 414, and one of exactly 8 KiB does not', async () => {
    const base = `/maps/${M}?pad=`;
    const exact = base + 'x'.repeat(8192 - base.length);
    assert.equal(exact.length, 8192);
    assert.equal((await get(exact)).status, 200);
    await problem(await get(`${exact}y`), 414, `/maps/${M}`);
    const longPath = `/maps/${'a'.repeat(8200)}`;
    assert.equal((await get(longPath)).status, 414);
    assert.equal((await get(`${exact}y`, { method: 'HEAD' })).status, 414);
  });
});

describe('headers on every response', () => {
  const everything = (): [string, RequestInit | undefined][] => [
    ...SAMPLES.map((p): [string, undefined] => [p, undefined]),
    ...SAMPLES.slice(0, 5).map((p): [string, RequestInit] => [p, { method: 'HEAD' }]),
    ...ERROR_SAMPLES.map(([p, , init]): [string, RequestInit | undefined] => [p, init]),
  ];

  test('X-Request-Id echoes a sane client id and is a new UUID when absent or not sane', async () => {
    for (const [path, init] of everything()) {
      for (const sane of ['client-req.42', 'b9f0c2de-7a31-4c55-9e0b-1d2f3a4b5c6d', 'trace:abc/def+1=2']) {
        const res = await get(path, { ...init, headers: { 'x-request-id': sane } });
        assert.equal(res.headers.get('x-request-id'), sane, `${path} echoes ${sane}`);
      }
      const seen = new Set<string>();
      for (const insane of [undefined, 'x'.repeat(300), 'has spaces in it', '<script>', '']) {
        const res = await get(path, { ...init, headers: insane === undefined ? {} : { 'x-request-id': insane } });
        const id = res.headers.get('x-request-id') ?? '';
        assert.match(id, UUID_LIKE, `${path} with ${String(insane).slice(0, 20)}`);
        assert.ok(!seen.has(id), 'a new id each time');
        seen.add(id);
      }
    }
  });

  test('every response, errors and preflights included, allows any origin and exposes ETag, X-Request-Id and Link', async () => {
    for (const [path, init] of everything()) {
      const res = await get(path, init);
      assert.equal(res.headers.get('access-control-allow-origin'), '*', `${init?.method ?? 'GET'} ${path.slice(0, 80)} (${res.status})`);
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((s) => s.trim().toLowerCase());
      for (const h of ['etag', 'x-request-id', 'link']) assert.ok(exposed.includes(h), `${path.slice(0, 80)} exposes ${h}`);
    }
  });
});

describe('malformed input', () => {
  const rand = mulberry32(0xC0FFEE);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');
  const forgedCursor = () => Buffer.from(JSON.stringify({
    k: pick(['x', '', '00000000']), s: pick([0, -1, 1e300, -1e300, 8.64e15 + 1, 1.5]), i: pick(['', 'x', A]),
    f: pick([0, 1e20, -1e20, 8.64e15, -8.64e15 - 1, 1.5]), t: pick([0, 1e20, -1e20, 1]),
  })).toString('base64url');
  const PIECES: (() => string)[] = [
    () => '%E0%A4%A', () => '%', () => '%%', () => '%zz', () => '%C0%80', () => '%FF%FE%FD', () => '%00', () => '%2F', () => '%2C%2C',
    () => Array.from({ length: 1 + Math.floor(rand() * 12) }, () => `%${hex(Math.floor(rand() * 256))}`).join(''),
    () => '1e309', () => '99999999999999999999999999', () => 'NaN', () => 'Infinity', () => '-Infinity', () => '-0', () => '0x1F',
    () => '1_000', () => '%D9%A1%D9%A2', () => encodeURIComponent('𝔘𝔫𝔦𝔠𝔬𝔡𝔢'), () => 'ü', () => '日本', () => ',,,', () => '%20', () => '+',
    () => '-90.0000001,180', () => '1,2,3,4', () => '91,0', () => '0,181', () => '-180,-90,180,90', () => '180,90,-180,-90',
    () => '.5,.5', () => '1.,2.', () => uuidFor(String(rand())).toUpperCase(), () => pick([M, A, F.v1, F.draft, F.disabled, ROOT0, F.verifiedList]),
    () => 'true', () => '2027-03-01', () => '2027-02-30T00:00:00Z', () => '2027-03-01T25:00:00Z', () => '2027-03-01T12:00:00+99:99',
    () => '0000-00-00', () => '9999-12-31T23:59:59.999999999Z', () => 'a'.repeat(Math.floor(rand() * 3000)), () => '__proto__',
    () => 'constructor', () => '%22%27%3C%3E%7B%7D%7C%5C%5E%60', () => String(Math.floor(rand() * 1e6) - 5e5), () => '', () => forgedCursor(),
    () => '..', () => '%2E%2E', () => '/', () => '?', () => '#', () => '&', () => '=',
  ];
  const garbage = () => Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(PIECES)()).join('');

  test('300 random malformed requests from a fixed seed never get a 500, and every body is a JSON object (or a page, or an output\'s format)', async () => {
    const failures: string[] = [];
    for (let i = 0; i < 300; i++) {
      const route = pick(routes);
      let path = route.path.replace(/:(\w+)/g, () => (rand() < 0.3 ? pick([M, A, F.savedEvent, F.publisher, uuidFor('x')]) : garbage()));
      if (rand() < 0.1) path += garbage();
      const params: string[] = [];
      for (const name of Object.keys(route.query)) {
        if (rand() < 0.6) params.push(`${name}=${garbage()}`);
        if (rand() < 0.05) params.push(`${name}=${garbage()}`);
      }
      if (rand() < 0.3) params.push(`${garbage()}=${garbage()}`);
      const target = `${path}${params.length ? `?${params.join('&')}` : ''}`;
      const method = rand() < 0.1 ? 'HEAD' : 'GET';
      const logged = t.errorLog().length;
      const res = await t.get(target, { method });
      const text = await res.text();
      if (res.status >= 500) failures.push(`${res.status} ${method} ${target.slice(0, 300)} :: ${t.errorLog().slice(logged).join(' ').slice(0, 300)}`);
      const type = res.headers.get('content-type') ?? '';
      if (method === 'GET' && OTHER_TYPES.has(type)) {
        // A page (a path such as /markers/.. is / once resolved) or an output's own format: a 200 of that type.
        assert.equal(res.status, 200, target);
      } else if (method === 'GET') {
        const body = JSON.parse(text);
        assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), target);
      } else assert.equal(text, '');
    }
    assert.deepEqual(failures, []);
  });
});
