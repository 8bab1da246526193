/**
 * The same handler on Node, Bun and Deno: each runtime serves the demo over a real port, and the
 * smoke walk below is written once and run against each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readDemoBundle } from './helpers/app.ts';
import { RUNTIME_NAMES, runToExit, startServer, type RunningServer } from './helpers/server.ts';

const demo = await readDemoBundle();
const mainMap = demo.maps.find((m) => m.enabled && m.versions.length > 1)!;
const marker = demo.markers.find((m) => m.map_id === mainMap.id && !m.version_ids)!;

for (const runtime of RUNTIME_NAMES) {
  describe(`the service on ${runtime}`, () => {
    let server: RunningServer;
    before(async () => { server = await startServer(runtime); });
    after(async () => { await server?.stop(); });

    test('serves a map with sections over HTTP', async () => {
      const res = await fetch(`${server.base}/maps/${mainMap.id}?info=true&markers=true`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.ok(res.headers.get('x-request-id'));
      const body = await res.json();
      assert.equal(body.id, mainMap.id);
      assert.ok(body.markers.length > 0);
    });

    test('serves GeoJSON, events and a marker', async () => {
      const geo = await fetch(`${server.base}/places-of-interest/map/${mainMap.id}`);
      assert.equal(geo.headers.get('content-type'), 'application/geo+json; charset=utf-8');
      assert.equal((await geo.json()).markers.type, 'FeatureCollection');
      const events = await (await fetch(`${server.base}/events?map_id=${mainMap.id}&from=2027-01-01T00:00:00Z&limit=5`)).json();
      assert.equal(events.events.length, 5);
      assert.ok(events.total >= 5);
      const m = await fetch(`${server.base}/markers/${marker.id.toUpperCase()}`);
      assert.equal((await m.json()).id, marker.id);
    });

    test('answers HEAD without a body, OPTIONS with 204 and POST with 405', async () => {
      const head = await fetch(`${server.base}/maps/${mainMap.id}`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal((await head.arrayBuffer()).byteLength, 0);
      const options = await fetch(`${server.base}/maps/${mainMap.id}`, { method: 'OPTIONS' });
      assert.equal(options.status, 204);
      assert.match(options.headers.get('access-control-allow-methods')!, /GET/);
      const post = await fetch(`${server.base}/maps/${mainMap.id}`, { method: 'POST', body: 'x' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS');
    });

    test('answers bad parameters with problem+json naming each one', async () => {
      const res = await fetch(`${server.base}/events?map_id=nope&limit=0`);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      const body = await res.json();
      assert.deepEqual(body.errors.map((e: { name: string }) => e.name).sort(), ['limit', 'map_id']);
    });

    test('echoes a sane X-Request-Id', async () => {
      const res = await fetch(`${server.base}/places-of-interest/icons`, { headers: { 'x-request-id': 'abc-123' } });
      assert.equal(res.headers.get('x-request-id'), 'abc-123');
    });

    test('exits 0 on SIGTERM', async () => {
      assert.equal(await server.stop(), 0);
    });
  });
}

describe('start-up', () => {
  test('a bad bundle exits non-zero with every problem listed, before opening a port', async () => {
    const { writeFile, mkdtemp } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'bundle-'));
    const bad = structuredClone(demo);
    bad.markers[0].lat = 91;
    bad.events[0].poi_ids = ['00000000-0000-4000-8000-000000000000'];
    await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
    const { code, stderr, stdout } = await runToExit('node', ['--bundle', join(dir, 'bad.json'), '--port', '0', '--data-dir', join(dir, 'data')]);
    assert.equal(code, 1);
    assert.match(stderr, /\$\.markers\[0\]\.lat/);
    assert.doesNotMatch(stdout, /listening/);
  });

  test('--help prints every setting and exits 0', async () => {
    const { code, stdout } = await runToExit('node', ['--help']);
    assert.equal(code, 0);
    for (const flag of ['--bundle', '--port', '--host', '--base-path', '--data-dir', 'PORT', 'HOST', 'BUNDLE_PATH']) assert.match(stdout, new RegExp(flag));
  });

  test('an unknown option exits 2 with a message', async () => {
    const { code, stderr } = await runToExit('node', ['--nope']);
    assert.equal(code, 2);
    assert.match(stderr, /unknown option --nope/);
  });

  test('PORT and HOST come from the environment', async () => {
    const { parseConfig } = await import('../src/serve/config.ts');
    const config = parseConfig([], { PORT: '9999', HOST: '127.0.0.1', BASE_PATH: '/api' });
    assert.ok(config !== 'help');
    assert.equal(config.port, 9999);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.basePath, '/api');
    const defaults = parseConfig([], {});
    assert.ok(defaults !== 'help');
    assert.equal(defaults.port, 8787);
    assert.throws(() => parseConfig(['--port', 'x'], {}), /port must be an integer/);
    assert.throws(() => parseConfig(['--base-path', '/a(b)'], {}), /base path must hold only/);
  });
});
