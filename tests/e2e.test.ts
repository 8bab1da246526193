/**
 * End to end: the real server (`npm start`'s entry, on Node) on a real port, serving the demo bundle,
 * walked over HTTP through all 27 endpoints with ids taken from the demo content.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readDemoBundle, readDemoSessions } from './helpers/app.ts';
import { startServer, type RunningServer } from './helpers/server.ts';

const demo = await readDemoBundle();
const map = demo.maps.find((m) => m.enabled && m.versions.filter((v) => v.status === 'published').length > 1)!;
const publishedVersion = map.versions.find((v) => v.status === 'published' && v.id !== map.current_version_id)!;
const inMap = <T extends { map_id: string; version_ids?: string[] }>(xs: T[]) =>
  xs.filter((x) => x.map_id === map.id && (!x.version_ids || x.version_ids.includes(map.current_version_id)));
const marker = inMap(demo.markers)[0];
const path = inMap(demo.paths)[0];
const polygon = inMap(demo.polygons)[0];
const category = inMap(demo.categories).find((c) => c.parent_id === null)!;
const list = demo.lists.find((l) => l.map_id === map.id && l.verified)!;
const event = demo.events.find((e) => e.map_id === map.id && e.poi_ids.length > 0)!;
const associated = demo.associations.find((a) => a.list_id === null && inMap(demo.markers).some((m) => m.id === a.poi_id))!;
const poiIds = inMap(demo.markers).slice(0, 20).map((m) => m.id);

describe('the demo over HTTP on Node', () => {
  let server: RunningServer;
  before(async () => { server = await startServer('node'); });
  after(async () => { await server?.stop(); });

  const get = async (target: string) => {
    const res = await fetch(`${server.base}${target}`);
    const type = res.headers.get('content-type') ?? '';
    return { res, status: res.status, type, body: await res.json() };
  };

  test('every one of the 27 endpoints answers 200 with a JSON object', async () => {
    const targets = [
      `/maps/${map.id}?info=true&all_categories=true&categories=true&markers=true&paths=true&polygons=true&publisher=true&map_data=true&contact=true&map_sponsors=true&tag_counts=true&contents=true`,
      `/maps/${map.id}/details`, `/maps/${map.id}/contents`,
      `/publisher/${map.publisher_id}`, `/publisher/${map.publisher_id}/maps?lat=38.7&lng=-9.1`,
      `/events?map_id=${map.id}`, `/events/upcoming-by-poi?poi_ids=${poiIds.join(',')}`, `/events/${event.id}`,
      `/maps/${map.id}/pois?tags=${category.id}`,
      `/maps/${map.id}/markers?version_id=${publishedVersion.id}`, `/maps/${map.id}/markers/${marker.id}`, `/markers/${marker.id}`,
      `/maps/${map.id}/paths`, `/maps/${map.id}/paths/${path.id}`, `/paths/${path.id}`,
      `/maps/${map.id}/polygons`, `/maps/${map.id}/polygons/${polygon.id}`, `/polygons/${polygon.id}`,
      `/places-of-interest/items/${map.id}?sort_type=popularity&include_counts=true`, `/places-of-interest/map/${map.id}`,
      `/places-of-interest/id/${path.id}`, `/places-of-interest/icons`,
      `/places-of-interest/tags-pois-orders?map_id=${map.id}&type=keywords`,
      `/poi-associations/${associated.poi_id}`, `/poi-associations?poi_ids=${poiIds.join(',')}&include_reverse=true`,
      `/maps/${map.id}/lists`, `/maps/${map.id}/lists/${list.id}`,
    ];
    assert.equal(targets.length, 27);
    for (const target of targets) {
      const { status, body, type } = await get(target);
      assert.equal(status, 200, target);
      assert.match(type, /^application\/(geo\+)?json; charset=utf-8$/, target);
      assert.equal(typeof body, 'object', target);
      assert.ok(body !== null && !Array.isArray(body), target);
    }
  });

  test('the OpenAPI document is served', async () => {
    const { status, body } = await get('/openapi.json');
    assert.equal(status, 200);
    assert.equal(body.openapi, '3.1.0');
    // The 27 endpoints, the two calendars, the pages and JSON-LD of events and the three POI kinds (8), a map's tiles,
    // TileJSON and style (3), the basemap's TileJSON and its five tile formats (6), the GPX and KML of a path and of a
    // map's POIs (4), OGC API Features' landing page, conformance, collections, collection, queryables, items and item (7),
    // /openapi.json, /healthz and /readyz.
    assert.equal(Object.keys(body.paths).length, 62);
  });

  test('event pages chain through next_cursor to exactly total events', async () => {
    const seen = new Set<string>();
    let target = `/events?map_id=${map.id}&from=2026-11-01T00:00:00Z&to=2028-12-31T23:59:59Z&limit=200`;
    let total = -1;
    for (;;) {
      const { body } = await get(target);
      total = body.total;
      for (const e of body.events) {
        assert.ok(!seen.has(e.id), `event ${e.id} served twice`);
        seen.add(e.id);
      }
      if (!body.next_cursor) break;
      target = `/events?map_id=${map.id}&from=2026-11-01T00:00:00Z&to=2028-12-31T23:59:59Z&limit=200&cursor=${body.next_cursor}`;
    }
    assert.equal(seen.size, total);
    assert.ok(total > 200, 'the demo spans more than one page');
  });

  test('the demo session token sees is_saved on a saved event', async () => {
    const session = (await readDemoSessions()).find((s) => Date.parse(s.expires_at) > Date.now() && s.saved_event_ids.length > 0)!;
    const saved = session.saved_event_ids[0];
    const res = await fetch(`${server.base}/events/${saved}`, { headers: { authorization: 'Bearer demo-session-token' } });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).is_saved, true);
    assert.match(res.headers.get('cache-control')!, /private/);
  });

  test('a hostile Host header or an absolute-form target does not reshape the request', async () => {
    const { connect } = await import('node:net');
    const raw = (request: string) => new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.end(request));
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    for (const [target, host] of [[`/maps/${map.id}/details`, 'a[b'], [`/maps/${map.id}/details`, 'a/b'],
      [`http://elsewhere.invalid/maps/${map.id}/details`, 'x']]) {
      const reply = await raw(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      assert.match(reply, /^HTTP\/1\.1 200 /, `${target} with Host ${host}: ${reply.slice(0, 200)}`);
      assert.match(reply, /access-control-allow-origin: \*/i);
    }
  });

  test('an unknown id is 404 and a malformed one is 400, both as problem+json', async () => {
    const missing = await get('/markers/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.equal(missing.type, 'application/problem+json; charset=utf-8');
    const bad = await get('/markers/not-a-uuid');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.errors, [{ name: 'marker_id', in: 'path', reason: 'must be a UUID in the 8-4-4-4-12 hex form' }]);
  });
});
