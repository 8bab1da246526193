/**
 * The OpenAPI document at GET /openapi.json: it lists exactly the spec's endpoints and parameters, and every
 * endpoint's real responses conform to what it declares (the valibot schema and the document's JSON Schema).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as v from 'valibot';
import type { BundleT } from '../../src/content/bundle/bundle-schema.ts';
import type { RouteSpec } from '../../src/http/route.ts';
import { apiRoutes } from '../../src/routes/index.ts';
import { DEMO_BUNDLE_PATH } from '../../src/serve/config.ts';
import { readDemoBundle, readDemoSessions } from '../helpers/app.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { F, makeFixture, uuidFor } from '../helpers/fixture.ts';

type Param = { in: 'path' | 'query'; required: boolean };
const PATH: Param = { in: 'path', required: true };
const OPT: Param = { in: 'query', required: false };
const REQ: Param = { in: 'query', required: true };

/** The 27 endpoints of docs/spec read-api.md and the parameters it lists for each, written out from the spec. */
const SPEC: Record<string, Record<string, Param>> = {
  '/maps/{map_id}': {
    map_id: PATH, info: OPT, all_categories: OPT, categories: OPT, markers: OPT, paths: OPT, polygons: OPT, publisher: OPT,
    map_data: OPT, contact: OPT, map_sponsors: OPT, version_id: OPT, tag_counts: OPT, contents: OPT,
  },
  '/maps/{map_id}/details': { map_id: PATH },
  '/maps/{map_id}/contents': { map_id: PATH },
  '/publisher/{publisher_id}': { publisher_id: PATH },
  '/publisher/{publisher_id}/maps': { publisher_id: PATH, lng: OPT, lat: OPT },
  '/events': {
    map_id: REQ, from: OPT, to: OPT, event_types: OPT, tags: OPT, tags_match: OPT, q: OPT, bbox: OPT, near: OPT, radius_m: OPT, status: OPT,
    updated_since: OPT, near_poi: OPT, limit: OPT, cursor: OPT,
  },
  '/events/upcoming-by-poi': { poi_ids: REQ, from: OPT, to: OPT, limit_per_poi: OPT, status: OPT },
  '/events/{id}': { id: PATH },
  '/maps/{map_id}/pois': { map_id: PATH, tags: REQ, q: OPT, open_at: OPT, open_now: OPT, updated_since: OPT, near_poi: OPT, radius_m: OPT, start: OPT, end: OPT },
  '/maps/{map_id}/markers': { map_id: PATH, version_id: OPT, updated_since: OPT },
  '/maps/{map_id}/markers/{marker_id}': { map_id: PATH, marker_id: PATH },
  '/markers/{marker_id}': { marker_id: PATH },
  '/maps/{map_id}/paths': { map_id: PATH, version_id: OPT, updated_since: OPT },
  '/maps/{map_id}/paths/{path_id}': { map_id: PATH, path_id: PATH },
  '/paths/{path_id}': { path_id: PATH },
  '/maps/{map_id}/polygons': { map_id: PATH, version_id: OPT, updated_since: OPT },
  '/maps/{map_id}/polygons/{polygon_id}': { map_id: PATH, polygon_id: PATH },
  '/polygons/{polygon_id}': { polygon_id: PATH },
  '/places-of-interest/items/{map_id}': { map_id: PATH, sort_type: OPT, version_id: OPT, include_counts: OPT },
  '/places-of-interest/map/{mapId}': { mapId: PATH, version_id: OPT },
  '/places-of-interest/id/{poiId}': { poiId: PATH },
  '/places-of-interest/icons': {},
  // type and path_id are "conditional" in the spec: one of them is needed, neither alone is required.
  '/places-of-interest/tags-pois-orders': { map_id: REQ, type: OPT, path_id: OPT },
  '/poi-associations/{poi_id}': { poi_id: PATH },
  '/poi-associations': { poi_ids: REQ, list_id: OPT, include_reverse: OPT },
  '/maps/{map_id}/lists': { map_id: PATH, verified: OPT, start: OPT, end: OPT },
  '/maps/{map_id}/lists/{list_id}': { map_id: PATH, list_id: PATH },
};

const ALL_FLAGS = ['info', 'all_categories', 'categories', 'markers', 'paths', 'polygons', 'publisher', 'map_data', 'contact',
  'map_sponsors', 'tag_counts', 'contents'];

const Problem = v.strictObject({
  type: v.string(),
  title: v.pipe(v.string(), v.minLength(1)),
  status: v.number(),
  detail: v.pipe(v.string(), v.minLength(1)),
  instance: v.string(),
  errors: v.optional(v.array(v.strictObject({ name: v.string(), in: v.picklist(['query', 'path', 'header']), reason: v.string() }))),
});

const usingDemo = existsSync(DEMO_BUNDLE_PATH);
let t: TestTarget;
let bundle: BundleT;
let doc: any;

before(async () => {
  bundle = usingDemo ? { ...await readDemoBundle(), sessions: await readDemoSessions() } : makeFixture();
  t = await openTarget(bundle);
  const res = await t.json('/openapi.json');
  assert.equal(res.status, 200);
  doc = res.body;
});
after(async () => {
  await t?.close();
});

/** The health checks, documented beside the API at the root. */
const HEALTH = ['/healthz', '/readyz'];
const toTemplate = (ittyPath: string) => ittyPath.replace(/:(\w+)/g, '{$1}');
const operation = (path: string) => doc.paths[path]?.get;

test(`the document is OpenAPI 3.1.0 (served over the ${usingDemo ? 'demo' : 'fixture'} bundle)`, () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(typeof doc.info.title, 'string');
  assert.equal(typeof doc.info.version, 'string');
});

/** The outputs beside the spec's JSON (docs/outputs.md), with their media types. */
const OUTPUTS: Record<string, string> = {
  '/events.ics': 'text/calendar', '/events/{id}.ics': 'text/calendar',
  ...Object.fromEntries(['events', 'markers', 'paths', 'polygons'].flatMap((kind) => [
    [`/${kind}/{id}.html`, 'text/html'], [`/${kind}/{id}.jsonld`, 'application/ld+json']])),
  '/maps/{map_id}/tiles.json': 'application/json', '/maps/{map_id}/style.json': 'application/json',
  '/maps/{map_id}/tiles/{z}/{x}/{y}.mvt': 'application/vnd.mapbox-vector-tile', '/basemap.json': 'application/json',
  '/basemap/{z}/{x}/{y}.mvt': 'application/vnd.mapbox-vector-tile', '/basemap/{z}/{x}/{y}.png': 'image/png',
  '/basemap/{z}/{x}/{y}.jpg': 'image/jpeg', '/basemap/{z}/{x}/{y}.webp': 'image/webp', '/basemap/{z}/{x}/{y}.avif': 'image/avif',
  '/paths/{id}.gpx': 'application/gpx+xml', '/paths/{id}.kml': 'application/vnd.google-earth.kml+xml',
  '/maps/{map_id}/pois.gpx': 'application/gpx+xml', '/maps/{map_id}/pois.kml': 'application/vnd.google-earth.kml+xml',
  '/ogc': 'application/json', '/ogc/conformance': 'application/json', '/ogc/collections': 'application/json',
  '/ogc/collections/{collectionId}': 'application/json', '/ogc/collections/{collectionId}/queryables': 'application/schema+json',
  '/ogc/collections/{collectionId}/items': 'application/geo+json', '/ogc/collections/{collectionId}/items/{featureId}': 'application/geo+json',
  '/maps/{map_id}/export': 'application/json', '/maps/{map_id}/changes': 'application/json',
};

test('the document has exactly the 27 paths of the spec plus the outputs, /openapi.json and the health checks', () => {
  assert.equal(Object.keys(SPEC).length, 27);
  assert.deepEqual(Object.keys(doc.paths).sort(), [...Object.keys(SPEC), ...Object.keys(OUTPUTS), '/openapi.json', ...HEALTH].sort());
});

test('the health checks are documented at the root whatever the base path, and answer as documented', async () => {
  const mounted = await openTarget(bundle, { basePath: '/api/v1' });
  try {
    const mountedDoc = await (await mounted.get('/api/v1/openapi.json')).json();
    for (const path of HEALTH) {
      for (const d of [doc, mountedDoc]) assert.deepEqual(d.paths[path].servers, [{ url: '/' }], path);
      const res = await mounted.get(`${mountedDoc.paths[path].servers[0].url.replace(/\/$/, '')}${path}`);
      assert.equal(res.status, 200, path);
      const body = await res.json();
      const schema = mountedDoc.paths[path].get.responses['200'].content['application/json'].schema;
      assert.deepEqual(checkJsonSchema(schema, body, '$'), [], path);
      for (const key of Object.keys(body)) assert.ok(key in schema.properties, `${path}: ${key} is documented`);
    }
  } finally {
    await mounted.close();
  }
});

test('every path has only a GET operation, with an operationId, a summary, tags and a 200 response with a schema', () => {
  const ids = new Set<string>();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    assert.deepEqual(Object.keys(item), HEALTH.includes(path) ? ['servers', 'get'] : ['get'], path);
    const op = item.get;
    assert.match(op.operationId ?? '', /^[a-zA-Z][a-zA-Z0-9]*$/, `${path} operationId`);
    assert.ok(!ids.has(op.operationId), `${path}: operationId ${op.operationId} is used twice`);
    ids.add(op.operationId);
    assert.ok(typeof op.summary === 'string' && op.summary.length > 5, `${path} summary`);
    assert.ok(Array.isArray(op.tags) && op.tags.length > 0 && op.tags.every((x: unknown) => typeof x === 'string' && x), `${path} tags`);
    const content = op.responses?.['200']?.content;
    assert.ok(content, `${path} has a 200 response with content`);
    const types = Object.keys(content);
    assert.equal(types.length, 1, `${path}: one media type`);
    assert.equal(types[0], OUTPUTS[path] ?? (path === '/places-of-interest/map/{mapId}' ? 'application/geo+json' : 'application/json'), path);
    assertSchemaShape(content[types[0]].schema, `${path} 200`);
  }
});

test('every operation declares exactly the parameters the spec lists, with in and required right', () => {
  for (const [path, expected] of Object.entries(SPEC)) {
    const op = operation(path);
    assert.ok(op, `${path} is in the document`);
    const declared: Record<string, Param> = {};
    for (const p of op.parameters ?? []) {
      assert.ok(!(p.name in declared), `${path}: parameter ${p.name} declared twice`);
      declared[p.name] = { in: p.in, required: p.required };
      assert.ok(p.schema && typeof p.schema === 'object' && (p.schema.type || p.schema.enum || p.schema.anyOf), `${path} ${p.name} has a schema`);
    }
    // Every endpoint of the spec serves text, so each also takes the language parameters (`lang`, `langs`); one that
    // answers records (every list and detail route) takes the field selection (`fields`, `omit`).
    const records = apiRoutes.find((r) => r.path.replace(/:(\w+)/g, '{$1}') === path)?.records;
    const withLanguage: Record<string, Param> = { ...expected, lang: OPT, langs: OPT, ...(records ? { fields: OPT, omit: OPT } : {}) };
    assert.deepEqual(declared, withLanguage, path);
    // The template's {names} are exactly its path parameters.
    const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    assert.deepEqual(Object.keys(declared).filter((n) => declared[n].in === 'path').sort(), inTemplate, path);
  }
});

test('every $ref in the document resolves to a component schema', () => {
  const refs: string[] = [];
  const walk = (x: unknown) => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === 'object') {
      for (const [k, val] of Object.entries(x)) {
        if (k === '$ref') refs.push(val as string);
        else walk(val);
      }
    }
  };
  walk(doc);
  assert.ok(refs.length > 0);
  for (const ref of refs) {
    assert.match(ref, /^#\/components\/schemas\/\w+$/);
    const name = ref.split('/').pop()!;
    assertSchemaShape(doc.components.schemas[name], ref);
  }
});

test('every error response of the document is problem+json referencing the Problem schema', () => {
  const problem = doc.components.schemas.Problem;
  assert.deepEqual([...problem.required].sort(), ['detail', 'instance', 'status', 'title', 'type']);
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    // The health checks answer plain JSON, documented as such, when not ready (503).
    if (HEALTH.includes(path)) continue;
    for (const [status, response] of Object.entries<any>(item.get.responses)) {
      if (status === '200') continue;
      assert.match(status, /^[45]\d\d$/, `${path} ${status}`);
      assert.deepEqual(response.content, { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }, `${path} ${status}`);
    }
    const hasParams = (item.get.parameters ?? []).length > 0;
    assert.equal('400' in item.get.responses, hasParams, `${path}: 400 is declared exactly when it has parameters`);
  }
});

/** A JSON Schema object must say what it is: a type, a reference, or a combination. */
function assertSchemaShape(schema: any, where: string) {
  assert.ok(schema && typeof schema === 'object' && !Array.isArray(schema), `${where}: schema is an object`);
  assert.ok('type' in schema || '$ref' in schema || 'anyOf' in schema || 'oneOf' in schema,
    `${where}: schema has type, $ref, anyOf or oneOf (${JSON.stringify(schema).slice(0, 120)})`);
}

// ---------------------------------------------------------------------------------------------------------------
// Real requests, built from the loaded bundle's ids.

interface Probe { route: RouteSpec; url: string; init?: RequestInit }

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const lc = (s: string) => s.toLowerCase();

/** Builds a request URL for a route: fills `:params`, appends the query. */
function urlFor(route: RouteSpec, params: Record<string, string> = {}, query: Record<string, string> = {}): string {
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
    assert.ok(params[name], `${route.path}: no value for ${name}`);
    return encodeURIComponent(params[name]);
  });
  const qs = new URLSearchParams(query).toString();
  return qs ? `${path}?${qs}` : path;
}

const routeAt = (path: string) => {
  const route = apiRoutes.find((r) => r.path === path);
  assert.ok(route, `no route declared at ${path}`);
  return route;
};

/** The documented session token of the bundle (the demo's, or the fixture's) when it has an unexpired one. */
function sessionToken(): string | undefined {
  return ['demo-session-token', F.sessionToken].find((tok) =>
    bundle.sessions.some((s) => s.token_sha256 === sha256(tok) && Date.parse(s.expires_at) > Date.now()));
}

let probesPromise: Promise<Probe[]> | undefined;
/** Every request to check, built once. */
function probes(): Promise<Probe[]> {
  probesPromise ??= buildProbes();
  return probesPromise;
}

async function buildProbes(): Promise<Probe[]> {
  const out: Probe[] = [];
  const add = (path: string, params?: Record<string, string>, query?: Record<string, string>, init?: RequestInit) => {
    const route = routeAt(path);
    out.push({ route, url: urlFor(route, params, query), init });
  };
  const ok = async (url: string) => {
    const res = await t.json(url);
    assert.equal(res.status, 200, `${url} answers 200 while building probes: ${JSON.stringify(res.body).slice(0, 300)}`);
    return res.body;
  };
  const allFlags = Object.fromEntries(ALL_FLAGS.map((f) => [f, 'true']));
  const wide = { from: '1970-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' };

  const enabled = bundle.maps.filter((m) => m.enabled);
  assert.ok(enabled.length > 0);
  const eventCount = (id: string) => bundle.events.filter((e) => lc(e.map_id) === lc(id)).length;
  const main = [...enabled].sort((a, b) => eventCount(b.id) - eventCount(a.id))[0];
  const M = lc(main.id);

  // Maps and publishers.
  for (const m of bundle.maps) add('/maps/:map_id/details', { map_id: lc(m.id) });
  for (const m of enabled) {
    const map_id = lc(m.id);
    add('/maps/:map_id', { map_id });
    add('/maps/:map_id', { map_id }, allFlags);
    for (const ver of m.versions.filter((x) => x.status === 'published')) {
      add('/maps/:map_id', { map_id }, { ...allFlags, version_id: lc(ver.id) });
      for (const kind of ['markers', 'paths', 'polygons']) add(`/maps/:map_id/${kind}`, { map_id }, { version_id: lc(ver.id) });
      add('/places-of-interest/map/:mapId', { mapId: map_id }, { version_id: lc(ver.id) });
      for (const sort_type of ['alphabetical', 'popularity', 'custom']) {
        add('/places-of-interest/items/:map_id', { map_id }, { sort_type, include_counts: 'true', version_id: lc(ver.id) });
      }
    }
    add('/maps/:map_id/contents', { map_id });
    add('/places-of-interest/items/:map_id', { map_id });
    add('/places-of-interest/map/:mapId', { mapId: map_id });
    add('/events', { }, { map_id, ...wide, limit: '200' });
  }
  for (const p of bundle.publishers) {
    add('/publisher/:publisher_id', { publisher_id: lc(p.id) });
    add('/publisher/:publisher_id/maps', { publisher_id: lc(p.id) });
    add('/publisher/:publisher_id/maps', { publisher_id: lc(p.id) }, { lat: String(main.map_data.center.lat), lng: String(main.map_data.center.lng) });
  }

  // POIs of the main map, as the API serves them (public only).
  const full = await ok(urlFor(routeAt('/maps/:map_id'), { map_id: M }, { markers: 'true', paths: 'true', polygons: 'true' }));
  const byKind: Record<string, string[]> = {
    marker: full.markers.map((p: { id: string }) => p.id),
    path: full.paths.map((p: { id: string }) => p.id),
    polygon: full.polygons.map((p: { id: string }) => p.id),
  };
  const publicPois = new Set([...byKind.marker, ...byKind.path, ...byKind.polygon]);
  for (const [kind, plural] of [['marker', 'markers'], ['path', 'paths'], ['polygon', 'polygons']]) {
    for (const id of byKind[kind].slice(0, 3)) {
      add(`/maps/:map_id/${plural}/:${kind}_id`, { map_id: M, [`${kind}_id`]: id });
      add(`/${plural}/:${kind}_id`, { [`${kind}_id`]: id });
      add('/places-of-interest/id/:poiId', { poiId: id });
    }
  }

  // Categories and tags.
  const items = (await ok(urlFor(routeAt('/places-of-interest/items/:map_id'), { map_id: M }))).items;
  const itemIds: string[] = [];
  type Node = { id: string; children: Node[] };
  const collect = (nodes: Node[]) => nodes.forEach((n) => { itemIds.push(n.id); collect(n.children); });
  collect(items);
  assert.ok(itemIds.length > 0, 'the main map has categories');
  add('/maps/:map_id/pois', { map_id: M }, { tags: itemIds.slice(0, 3).join(',') });
  add('/maps/:map_id/pois', { map_id: M }, { tags: itemIds.slice(0, 100).join(' , '), start: '2', end: '40' });
  add('/maps/:map_id/pois', { map_id: M }, { tags: itemIds[itemIds.length - 1], start: '0', end: '500' });
  add('/places-of-interest/icons');
  add('/places-of-interest/tags-pois-orders', {}, { map_id: M, type: 'keywords' });
  for (const id of [...itemIds.slice(0, 4), ...itemIds.slice(-3)]) add('/places-of-interest/tags-pois-orders', {}, { map_id: M, path_id: id });

  // Events: a wide page and the next, each filter, and single events.
  const page = await ok(urlFor(routeAt('/events'), {}, { map_id: M, ...wide, limit: '20' }));
  assert.ok(page.events.length > 0 && page.next_cursor, 'the main map has more than one page of events');
  add('/events', {}, { map_id: M });
  add('/events', {}, { map_id: M, ...wide, limit: '20', cursor: page.next_cursor });
  const first = page.events[0];
  const { lat, lng } = main.map_data.center;
  add('/events', {}, { map_id: M, ...wide, event_types: first.event_type, limit: '200' });
  // Every status, so the records of changed events (previous_start) are checked too.
  add('/events', {}, { map_id: M, ...wide, status: 'all', limit: '200' });
  if (first.tags.length > 0) add('/events', {}, { map_id: M, ...wide, tags: first.tags.join(','), limit: '5' });
  add('/events', {}, { map_id: M, ...wide, bbox: `${lng - 1},${lat - 1},${lng + 1},${lat + 1}`, limit: '200' });
  add('/events', {}, { map_id: M, ...wide, near: `${lat},${lng}`, radius_m: '50000', limit: '200' });
  const eventIds = page.events.map((e: { id: string }) => e.id);
  for (const id of eventIds.slice(0, 10)) add('/events/:id', { id });
  const token = sessionToken();
  if (token) {
    const saved = bundle.sessions.find((s) => s.token_sha256 === sha256(token))!.saved_event_ids.map(lc);
    for (const id of [...saved.slice(0, 2), ...eventIds.slice(0, 2)]) {
      add('/events/:id', { id }, {}, { headers: { authorization: `Bearer ${token}` } });
    }
  }
  const anchored = [...new Set(bundle.events.filter((e) => lc(e.map_id) === M).flatMap((e) => e.poi_ids.map(lc)))]
    .filter((id) => publicPois.has(id));
  const twenty = [...anchored.slice(0, 17), byKind.path[0], byKind.polygon[0], uuidFor('no-such-poi')].filter(Boolean);
  assert.ok(twenty.length >= 15, 'enough POIs to ask about');
  add('/events/upcoming-by-poi', {}, { poi_ids: twenty.join(','), from: wide.from, limit_per_poi: '20' });
  add('/events/upcoming-by-poi', {}, { poi_ids: twenty.join(',') });
  add('/events/upcoming-by-poi', {}, { poi_ids: twenty.slice(0, 5).join(','), from: '2020-01-01', to: '2030-01-01T00:00:00+02:00', limit_per_poi: '1' });

  // Associations.
  const associated = [...new Set(bundle.associations.flatMap((a) => [lc(a.poi_id), lc(a.associated_poi_id)]))]
    .filter((id) => publicPois.has(id));
  assert.ok(associated.length > 0, 'the main map has associations');
  for (const id of associated.slice(0, 8)) add('/poi-associations/:poi_id', { poi_id: id });
  const batch = [...associated.slice(0, 19), uuidFor('no-such-poi')];
  add('/poi-associations', {}, { poi_ids: batch.join(',') });
  add('/poi-associations', {}, { poi_ids: batch.join(','), include_reverse: 'true' });

  // Lists.
  const lists = (await ok(urlFor(routeAt('/maps/:map_id/lists'), { map_id: M }))).items;
  assert.ok(lists.length > 0, 'the main map has verified lists');
  add('/maps/:map_id/lists', { map_id: M });
  add('/maps/:map_id/lists', { map_id: M }, { verified: 'true', start: '1', end: '3' });
  for (const l of lists) {
    add('/maps/:map_id/lists/:list_id', { map_id: M, list_id: l.id });
    add('/poi-associations', {}, { poi_ids: batch.join(','), list_id: l.id, include_reverse: 'true' });
  }
  return out;
}

let responsesPromise: Promise<{ probe: Probe; status: number; type: string | null; body: unknown }[]> | undefined;
/** Every probe's response, fetched once. */
function responses() {
  responsesPromise ??= (async () => {
    const out = [];
    for (const probe of await probes()) {
      const res = await t.get(probe.url, probe.init);
      out.push({ probe, status: res.status, type: res.headers.get('content-type'), body: await res.json() });
    }
    return out;
  })();
  return responsesPromise;
}

test('every API route is probed with real requests built from the bundle', async () => {
  const all = await probes();
  for (const route of apiRoutes) {
    const n = all.filter((p) => p.route === route).length;
    assert.ok(n >= 1, `${route.path} has no probe`);
  }
  assert.equal(apiRoutes.length, 27);
  const mapProbes = all.filter((p) => p.route.path === '/maps/:map_id').length;
  assert.ok(mapProbes >= 3, 'GET /maps/:map_id is probed with all flags and each version');
});

test('every real 200 response conforms to its route\'s declared valibot response schema', async () => {
  const failures: string[] = [];
  for (const { probe, status, type, body } of await responses()) {
    if (status !== 200) {
      failures.push(`${probe.url}: status ${status} ${JSON.stringify(body).slice(0, 200)}`);
      continue;
    }
    const expectedType = probe.route.contentType?.split(';')[0] ?? 'application/json';
    if (!type?.startsWith(expectedType)) failures.push(`${probe.url}: content-type ${type}, expected ${expectedType}`);
    const parsed = v.safeParse(probe.route.response, body);
    if (!parsed.success) {
      failures.push(`${probe.url}: ${parsed.issues.slice(0, 3).map((i) =>
        `${(i.path ?? []).map((p) => String(p.key)).join('.')}: ${i.message}`).join('; ')}`);
    }
  }
  assert.deepEqual(failures, []);
});

test('the optional parts of response bodies are really exercised', async () => {
  const bodies = (await responses()).filter((r) => r.status === 200);
  const mapBodies = bodies.filter((r) => r.probe.route.path === '/maps/:map_id').map((r) => r.body as Record<string, unknown>);
  for (const flag of ALL_FLAGS) assert.ok(mapBodies.some((b) => flag in b), `some map body has ${flag}`);
  const upcoming = bodies.filter((r) => r.probe.route.path === '/events/upcoming-by-poi').map((r) => r.body as Record<string, unknown[]>);
  assert.ok(upcoming.some((b) => Object.values(b).some((list) => list.length > 0)), 'some upcoming-by-poi list is not empty');
  assert.ok(upcoming.every((b) => Object.keys(b).length > 0));
  const batches = bodies.filter((r) => r.probe.route.path === '/poi-associations').map((r) => r.body as Record<string, { direction: string }[]>);
  assert.ok(batches.some((b) => Object.values(b).flat().some((a) => a.direction === 'reverse')), 'a reverse association is served');
  const details = bodies.filter((r) => r.probe.route.path === '/maps/:map_id/details').map((r) => (r.body as { enabled: boolean }).enabled);
  if (bundle.maps.some((m) => !m.enabled)) assert.ok(details.includes(false), 'a disabled map\'s details are served');
  const orders = bodies.filter((r) => r.probe.route.path === '/places-of-interest/tags-pois-orders').map((r) => r.body as Record<string, unknown>);
  assert.ok(orders.some((b) => 'type' in b) && orders.some((b) => 'path_id' in b), 'both shapes of the category order are served');
  if (!usingDemo) assert.ok(sessionToken(), 'the fixture session token is found');
  if (sessionToken()) {
    const events = bodies.filter((r) => r.probe.route.path === '/events/:id').map((r) => r.body as Record<string, unknown>);
    assert.ok(events.some((b) => b.is_saved === true), 'is_saved is served to a session');
  }
});

test('every real 200 response also conforms to the JSON Schema of the document', async () => {
  const failures: string[] = [];
  for (const { probe, status, body } of await responses()) {
    if (status !== 200) continue;
    const content = operation(toTemplate(probe.route.path)).responses['200'].content;
    const schema = (Object.values(content)[0] as { schema: unknown }).schema;
    const errors = checkJsonSchema(schema, body, '$');
    if (errors.length > 0) failures.push(`${probe.url}: ${errors.slice(0, 3).join('; ')}`);
  }
  assert.deepEqual(failures, []);
});

test('the JSON Schema check used above rejects bodies that break the document', async () => {
  const { probe, body } = (await responses()).find((r) => r.probe.route.path === '/events/:id' && r.status === 200)!;
  const schema = operation(toTemplate(probe.route.path)).responses['200'].content['application/json'].schema;
  const event = body as Record<string, unknown>;
  assert.deepEqual(checkJsonSchema(schema, event, '$'), []);
  assert.notDeepEqual(checkJsonSchema(schema, { ...event, surprise: 1 }, '$'), []);
  assert.notDeepEqual(checkJsonSchema(schema, { ...event, id: 'ABC' }, '$'), []);
  const { title: _title, ...untitled } = event;
  assert.notDeepEqual(checkJsonSchema(schema, untitled, '$'), []);
  assert.notDeepEqual(checkJsonSchema(schema, { ...event, pois: [{ type: 'marker' }] }, '$'), []);
});

/** A small JSON Schema (2020-12) checker for the keywords the document uses; returns what fails, with paths. */
function checkJsonSchema(schema: any, value: unknown, at: string): string[] {
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [`${at}: no value allowed`];
  if (schema.$ref) {
    const name = (schema.$ref as string).replace('#/components/schemas/', '');
    return checkJsonSchema(doc.components.schemas[name], value, at);
  }
  const errors: string[] = [];
  const fail = (msg: string) => errors.push(`${at}: ${msg}`);
  if (schema.anyOf && !schema.anyOf.some((s: unknown) => checkJsonSchema(s, value, at).length === 0)) fail('matches no anyOf branch');
  if (schema.oneOf) {
    const n = schema.oneOf.filter((s: unknown) => checkJsonSchema(s, value, at).length === 0).length;
    if (n !== 1) fail(`matches ${n} oneOf branches`);
  }
  for (const s of schema.allOf ?? []) errors.push(...checkJsonSchema(s, value, at));
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) fail(`is not ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value))) fail(`is not one of ${schema.enum}`);
  if (schema.type) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    const okType = types.some((ty) => ty === actual || (ty === 'integer' && Number.isInteger(value)));
    if (!okType) return [...errors, `${at}: is ${actual}, not ${types.join('|')}`];
  }
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) fail(`"${value.slice(0, 40)}" does not match ${schema.pattern}`);
    if (schema.minLength !== undefined && value.length < schema.minLength) fail('too short');
    if (schema.maxLength !== undefined && value.length > schema.maxLength) fail('too long');
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) fail(`${value} < ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) fail(`${value} > ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) fail(`fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) fail(`more than ${schema.maxItems} items`);
    const prefix: unknown[] = schema.prefixItems ?? [];
    value.forEach((item, i) => {
      const s = i < prefix.length ? prefix[i] : schema.items;
      errors.push(...checkJsonSchema(s, item, `${at}[${i}]`));
    });
  } else if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in obj)) fail(`lacks required ${key}`);
    const props = schema.properties ?? {};
    for (const [key, val] of Object.entries(obj)) {
      if (schema.propertyNames) errors.push(...checkJsonSchema(schema.propertyNames, key, `${at}{${key}}`));
      if (key in props) errors.push(...checkJsonSchema(props[key], val, `${at}.${key}`));
      else if (schema.additionalProperties !== undefined) errors.push(...checkJsonSchema(schema.additionalProperties, val, `${at}.${key}`));
    }
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------------------------
// Errors.

test('400 and 404 bodies of every route are problem+json with the status, and the status is declared in the document', async () => {
  const unknownId = uuidFor('nothing-here');
  const M = lc(bundle.maps.find((m) => m.enabled)!.id);
  const failures: string[] = [];
  const checked = new Map<RouteSpec, number>();
  for (const route of apiRoutes) {
    const pathNames = Object.keys(route.pathParams);
    const requests: { url: string; status: number }[] = [];
    if (pathNames.length > 0) {
      const bad = Object.fromEntries(pathNames.map((n) => [n, 'not-a-uuid']));
      requests.push({ url: urlFor(route, bad, requiredQuery(route, M)), status: 400 });
      const allMissing = Object.fromEntries(pathNames.map((n) => [n, unknownId]));
      requests.push({ url: urlFor(route, allMissing, requiredQuery(route, M)), status: 404 });
      if (pathNames.length > 1) {
        // A real map with an unknown item in it.
        const missing = Object.fromEntries(pathNames.map((n) => [n, n === 'map_id' ? M : unknownId]));
        requests.push({ url: urlFor(route, missing, requiredQuery(route, M)), status: 404 });
      }
    } else if (Object.keys(route.query).length > 0) {
      requests.push({ url: urlFor(route, {}, { ...requiredQuery(route, M), limit: '0', limit_per_poi: '0', include_reverse: 'yes', type: 'nope' }), status: 400 });
      requests.push({ url: urlFor(route), status: 400 }); // a required parameter is missing
      if ('map_id' in route.query) requests.push({ url: urlFor(route, {}, { ...requiredQuery(route, unknownId), type: 'keywords' }), status: 404 });
    }
    for (const { url, status } of requests) {
      const res = await t.get(url);
      checked.set(route, (checked.get(route) ?? 0) + 1);
      const body = await res.json();
      if (res.status !== status) {
        failures.push(`${url}: ${res.status}, expected ${status}`);
        continue;
      }
      if (!res.headers.get('content-type')?.startsWith('application/problem+json')) failures.push(`${url}: content-type ${res.headers.get('content-type')}`);
      const parsed = v.safeParse(Problem, body);
      if (!parsed.success) failures.push(`${url}: ${parsed.issues[0].message} at ${(parsed.issues[0].path ?? []).map((p) => p.key).join('.')}`);
      else if (parsed.output.status !== status) failures.push(`${url}: body status ${parsed.output.status}`);
      else if (status === 400 && !(parsed.output.errors?.length)) failures.push(`${url}: a 400 names no parameter`);
      if (!(String(status) in operation(toTemplate(route.path)).responses)) failures.push(`${route.path}: ${status} is not declared in the document`);
      const problemErrors = checkJsonSchema(doc.components.schemas.Problem, body, '$');
      if (problemErrors.length > 0) failures.push(`${url}: ${problemErrors.join('; ')}`);
    }
  }
  for (const route of apiRoutes) {
    if (route.path === '/places-of-interest/icons') continue; // no parameters, nothing to get wrong
    assert.ok((checked.get(route) ?? 0) >= 2, `${route.path}: error responses checked`);
  }
  assert.deepEqual(failures, []);
});

/** Values for a route's required query parameters, so a request fails only where the test means it to. */
function requiredQuery(route: RouteSpec, mapId: string): Record<string, string> {
  const q: Record<string, string> = {};
  if ('map_id' in route.query) q.map_id = mapId;
  if ('tags' in route.query && route.path.includes(':map_id')) q.tags = uuidFor('some-tag');
  if ('poi_ids' in route.query) q.poi_ids = uuidFor('some-poi');
  return q;
}

// ---------------------------------------------------------------------------------------------------------------
// Base path.

test('servers[0].url is "/" at the root and the configured base path when one is set', async () => {
  assert.deepEqual(doc.servers, [{ url: '/' }]);
  const mounted = await openTarget(bundle, { basePath: '/api/v1' });
  try {
    const res = await mounted.get('/api/v1/openapi.json');
    assert.equal(res.status, 200);
    const mountedDoc = await res.json();
    assert.deepEqual(mountedDoc.servers, [{ url: '/api/v1' }]);
    // Paths stay relative to the server URL, and the server URL plus a path is a working request.
    assert.deepEqual(Object.keys(mountedDoc.paths).sort(), Object.keys(doc.paths).sort());
    const M = lc(bundle.maps.find((m) => m.enabled)!.id);
    const viaServer = await mounted.get(`${mountedDoc.servers[0].url}${'/maps/{map_id}'.replace('{map_id}', M)}`);
    assert.equal(viaServer.status, 200);
    assert.equal((await mounted.get('/openapi.json')).status, 404, 'nothing is served outside the base path');
  } finally {
    await mounted.close();
  }
  // A base path given without its leading slash or with a trailing one is normalised.
  const loose = await openTarget(bundle, { basePath: 'api/v2/' });
  try {
    const looseDoc = await (await loose.get('/api/v2/openapi.json')).json();
    assert.deepEqual(looseDoc.servers, [{ url: '/api/v2' }]);
  } finally {
    await loose.close();
  }
});

test('integer parameters are documented as integers with their range and default', async () => {
  const doc = (await t.json('/openapi.json')).body;
  const param = (path: string, name: string) => doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name);
  assert.deepEqual(param('/events', 'limit').schema, { type: 'integer', minimum: 1, maximum: 200, default: 50 });
  assert.deepEqual(param('/events', 'radius_m').schema, { type: 'integer', minimum: 1, maximum: 200000 });
  assert.deepEqual(param('/events/upcoming-by-poi', 'limit_per_poi').schema, { type: 'integer', minimum: 1, maximum: 20, default: 5 });
  assert.equal(param('/maps/{map_id}/pois', 'start').schema.type, 'integer');
});

test('GET /events/{id} declares the optional account-session bearer scheme', async () => {
  const doc = (await t.json('/openapi.json')).body;
  assert.deepEqual(doc.paths['/events/{id}'].get.security, [{}, { accountSession: [] }]);
  assert.equal(doc.components.securitySchemes.accountSession.scheme, 'bearer');
  assert.equal(doc.paths['/events'].get.security, undefined);
});
