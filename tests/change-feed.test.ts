/**
 * The change feed, proven by a sync: a client that starts from a map's export and applies GET /maps/{map_id}/changes
 * after publishes (POIs added, edited, removed and made draft-only; events edited, cancelled and removed; a series, a
 * list, an association, a category, an icon, the publisher and a content block changed; the whole demo published
 * again; the map disabled) holds exactly what a fresh export holds, byte for byte, and stands at its token, whether
 * it follows every publish or several at once, and reading small pages (every change exactly once). On the embedded
 * store here, and on PostgreSQL replicas on real ports below, one of them serving from two threads, with a rollback.
 * Then the edges: a token of another store or older than the history kept (410 linking to the export), one from a
 * replica further ahead, a bad token or cursor (400), a disabled or never-served map.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../src/app.ts';
import type { BundleT } from '../src/content/bundle/bundle-schema.ts';
import { changeToken } from '../src/content/changes.ts';
import { ContentStore } from '../src/content/content-store.ts';
import { RecordChanges } from '../src/content/model/record-changes.ts';
import { EXPORT_SECTIONS } from '../src/routes/changes.ts';
import { QUIET, readDemoBundle } from './helpers/app.ts';
import { runToExit, startServer, waitForEveryThread, type RunningServer } from './helpers/server.ts';
import { testDatabase } from './helpers/postgres.ts';

const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const DRAFT_VERSION = '4c71bfd5-1681-5ccc-83fb-9875ada08569';

/** GET as the client sees it: status, headers and the JSON body. */
type Get = (path: string) => Promise<{ status: number; headers: Headers; body: any }>;

/** A map's records as a client keeps them: `type|id` → the record's JSON as served. */
type Records = Map<string, string>;

/** The records of an export, and its token. */
async function exported(get: Get, mapId = MAIN): Promise<{ records: Records; token: string }> {
  const res = await get(`/maps/${mapId}/export`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const records: Records = new Map();
  for (const [type, section] of Object.entries(EXPORT_SECTIONS)) {
    const value = res.body[section];
    for (const record of Array.isArray(value) ? value : [value]) {
      const key = `${type}|${record.id}`;
      assert.ok(!records.has(key), `${key} is once in the export`);
      records.set(key, JSON.stringify(record));
    }
  }
  assert.equal(res.headers.get('x-change-token'), res.body.token, 'the export stands at its map\'s X-Change-Token');
  return { records, token: res.body.token };
}

/**
 * Applies the feed since `token` to `records`, a page of `limit` at a time; answers the token it ends at and the
 * changes it applied (each record at most once across the pages, the total as said).
 */
async function follow(get: Get, records: Records, token: string, limit = 7, mapId = MAIN): Promise<{ token: string; changes: any[] }> {
  const seen = new Set<string>();
  const applied: any[] = [];
  let cursor: string | null = null;
  let total = -1;
  let next = token;
  do {
    const res = await get(`/maps/${mapId}/changes?since=${encodeURIComponent(token)}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.changes.length <= limit);
    if (total >= 0) assert.equal(res.body.total, total, 'the total is the same on every page');
    total = res.body.total;
    for (const c of res.body.changes) {
      const key = `${c.type}|${c.id}`;
      assert.ok(!seen.has(key), `${key} comes once`);
      seen.add(key);
      applied.push(c);
      if (c.op === 'upsert') records.set(key, JSON.stringify(c.record));
      else records.delete(key);
    }
    cursor = res.body.next_cursor;
    next = res.body.next_token;
  } while (cursor);
  assert.equal(applied.length, total);
  return { token: next, changes: applied };
}

/** Asserts a client's records are exactly a fresh export's, and its token the export's. */
async function assertInSync(get: Get, client: { records: Records; token: string }, what: string): Promise<void> {
  const fresh = await exported(get);
  const keys = (m: Records) => [...m.keys()].sort();
  assert.deepEqual(keys(client.records), keys(fresh.records), `${what}: the same records`);
  for (const [key, json] of fresh.records) assert.equal(client.records.get(key), json, `${what}: ${key} as the export has it`);
  assert.equal(client.token, fresh.token, `${what}: the token of a fresh export`);
}

/** GET on a new connection (no keep-alive). */
function getFresh(url: string): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text,
        headers: new Headers(Object.entries(res.headers).map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(', ') : String(v)])) }));
    }).on('error', reject);
  });
}

/** The demo's publishes the sync goes through, each a bundle (the last disables the main map). */
function publishes(demo: BundleT): { label: string; bundle: BundleT; expect?: (changes: any[]) => void }[] {
  const b1 = structuredClone(demo) as any;
  const markers = b1.markers.filter((m: any) => m.map_id === MAIN);
  const listed = new Set(b1.lists.flatMap((l: any) => l.items.map((i: any) => i.poi_id)));
  const anchored = new Set(b1.events.flatMap((e: any) => e.poi_ids));
  const associated = new Set(b1.associations.flatMap((a: any) => [a.poi_id, a.associated_poi_id]));
  // A listed marker renamed: the lists that hold it and the associations that show it change too.
  const renamed = markers.find((m: any) => listed.has(m.id) && associated.has(m.id));
  renamed.name = `${typeof renamed.name === 'string' ? renamed.name : renamed.name.en} (renamed)`;
  // A marker added, and one no other record names removed.
  b1.markers.push({ ...structuredClone(markers[0]), id: '0f6e9a52-3f0c-4d1e-9a54-6f1d2e3c4b5a', name: 'A new kiosk' });
  const removed = markers.find((m: any) => !listed.has(m.id) && !anchored.has(m.id) && !associated.has(m.id) && m.id !== renamed.id);
  b1.markers = b1.markers.filter((m: any) => m.id !== removed.id);
  const events = b1.events.filter((e: any) => e.map_id === MAIN && !e.recurrence);
  events[0].title = { ...events[0].title, en: 'Edited title' };
  events[1].status = 'cancelled';
  const gone = events[2];
  b1.events = b1.events.filter((e: any) => e.id !== gone.id);
  const series = b1.events.find((e: any) => e.map_id === MAIN && e.recurrence);
  series.title = { ...series.title, en: 'A series renamed' };
  const main = b1.maps.find((m: any) => m.id === MAIN);
  main.content_blocks.push({ ...structuredClone(main.content_blocks[0]), id: '6b1f0c7e-2d4a-4c3b-8e9f-0a1b2c3d4e5f', sort_order: 999 });
  b1.icons[0].name = 'landmark, renamed';

  const b2 = structuredClone(b1);
  // A POI anchored by events, listed and associated made draft-only: no longer public, though still in the bundle.
  const hidden = b2.markers.find((m: any) => m.map_id === MAIN && listed.has(m.id) && anchored.has(m.id) && m.id !== renamed.id)
    ?? b2.markers.find((m: any) => m.map_id === MAIN && anchored.has(m.id) && m.id !== renamed.id);
  hidden.version_ids = [DRAFT_VERSION];
  b2.associations = b2.associations.filter((a: any) => a !== b2.associations.find((x: any) => b2.markers.some((m: any) => m.id === x.poi_id && m.map_id === MAIN)));
  b2.publishers.find((p: any) => p.id === main.publisher_id).name = 'Visit Lisboa (renamed)';
  b2.categories.find((c: any) => c.map_id === MAIN).name = { en: 'A category renamed' };
  b2.lists.find((l: any) => l.map_id === MAIN).name = { en: 'A list renamed' };

  const b4 = structuredClone(demo) as any;
  b4.maps.find((m: any) => m.id === MAIN).enabled = false;
  return [
    {
      label: 'edits of every kind', bundle: b1, expect: (changes) => {
        const op = (type: string, id: string) => changes.find((c) => c.type === type && c.id === id)?.op;
        assert.equal(op('poi', renamed.id), 'upsert');
        assert.equal(op('poi', removed.id), 'delete');
        assert.equal(op('event', gone.id), 'delete');
        assert.equal(changes.find((c) => c.id === events[1].id)?.record.status, 'cancelled', 'a cancellation is reported');
        assert.ok(changes.some((c) => c.type === 'list' && c.record.items.some((i: any) => i.id === renamed.id)), 'a list holding the renamed marker');
        // The events: those edited, the series renamed and each of its occurrences, and those anchored to a POI that changed.
        const changedPois = new Set([renamed.id, removed.id]);
        for (const c of changes.filter((x) => x.type === 'event')) {
          const ok = [events[0].id, events[1].id, gone.id, series.id].includes(c.id) || c.record?.series_id === series.id ||
            c.record?.anchors.some((p: any) => changedPois.has(p.id));
          assert.ok(ok, `event ${c.id} changed`);
        }
        assert.deepEqual(changes.filter((c) => c.type === 'poi').map((c) => c.id).sort(), [renamed.id, removed.id, '0f6e9a52-3f0c-4d1e-9a54-6f1d2e3c4b5a'].sort());
      },
    },
    { label: 'a POI made draft-only, and more', bundle: b2 },
    { label: 'the demo again', bundle: structuredClone(demo) },
    { label: 'the map disabled', bundle: b4 },
  ];
}

/**
 * Runs the sync over `publish` (makes a bundle current and waits until `get` serves it): client A follows every
 * publish, client B only every second one; at the map disabled both get one delete of the map.
 */
async function syncThrough(get: Get, demo: BundleT, publish: (bundle: BundleT) => Promise<void>): Promise<void> {
  const start = await exported(get);
  const a = { records: new Map(start.records), token: start.token };
  const b = { records: new Map(start.records), token: start.token };
  const steps = publishes(demo);
  for (const [k, step] of steps.entries()) {
    await publish(step.bundle);
    if (step.label === 'the map disabled') {
      for (const client of [a, b]) {
        const { changes, token } = await follow(get, client.records, client.token);
        assert.deepEqual(changes, [{ op: 'delete', type: 'map', id: MAIN }], 'a disabled map answers one delete of the map');
        assert.equal(typeof token, 'string');
      }
      assert.equal((await get(`/maps/${MAIN}/export`)).status, 404, 'a disabled map has no export');
      continue;
    }
    const followed = await follow(get, a.records, a.token);
    a.token = followed.token;
    step.expect?.(followed.changes);
    await assertInSync(get, a, `A after ${step.label}`);
    if (k % 2 === 1) {
      b.token = (await follow(get, b.records, b.token, 50)).token;
      await assertInSync(get, b, `B after ${step.label}`);
    }
    // Nothing more to follow: an empty feed at the same token.
    const again = await get(`/maps/${MAIN}/changes?since=${a.token}`);
    assert.deepEqual(again.body, { changes: [], next_cursor: null, total: 0, next_token: a.token });
  }
}

describe('the change feed on the embedded store', () => {
  let dir: string;
  let store: ContentStore;
  let get: Get;
  let demo: BundleT;
  before(async () => {
    demo = await readDemoBundle();
    dir = await mkdtemp(join(tmpdir(), 'change-feed-'));
    store = await ContentStore.open({ dataDir: dir });
    await store.publish(JSON.stringify(demo), 'demo.json');
    const app = createApp({ store, logger: QUIET, publicUrl: 'https://maps.example.org' });
    get = async (path) => {
      const res = await app.fetch(new Request(`https://maps.example.org${path}`));
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    };
  });
  after(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('a client that applies the feed after each publish holds what a fresh export holds', async () => {
    await syncThrough(get, demo, async (bundle) => {
      await store.publish(JSON.stringify(bundle), 'demo.json');
    });
    // Enabled again: the feed follows from the token of the disabled map to everything the map holds.
    await store.publish(JSON.stringify(demo), 'demo.json');
    assert.equal((await get(`/maps/${MAIN}/export`)).status, 200);
  });

  test('every answer about one map carries its token, and CORS lets a browser read it', async () => {
    const token = (await get(`/maps/${MAIN}/export`)).body.token;
    for (const path of [`/maps/${MAIN}/details`, `/events?map_id=${MAIN}`, `/maps/${MAIN}/markers`, `/maps/${MAIN}/changes?since=${token}`]) {
      const res = await get(path);
      assert.equal(res.headers.get('x-change-token'), token, path);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /X-Change-Token/, path);
    }
    assert.equal((await get('/places-of-interest/icons')).headers.get('x-change-token'), null, 'an answer about no map has none');
    // Another map's token is its own: it moves only when that map changes.
    const other = (await get('/maps/5eb949a0-ac8b-56cc-8572-f5b491d81731/details')).headers.get('x-change-token');
    assert.ok(other);
  });

  test('bad and foreign tokens, a token from further ahead, a history no longer kept, cursors, and maps not served', async () => {
    const { token } = await exported(get);
    const summary = store.changeSummary!;
    const missing = await get(`/maps/${MAIN}/changes`);
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.errors.map((e: any) => e.name), ['since']);
    for (const bad of ['zzz', 'not-a-token', `${token}!`, btoa('000000000000.').replace(/=+$/, '')]) {
      const res = await get(`/maps/${MAIN}/changes?since=${encodeURIComponent(bad)}`);
      assert.equal(res.status, 400, bad);
      assert.deepEqual(res.body.errors.map((e: any) => e.name), ['since'], bad);
    }
    // Another store's (a store made anew): 410 with the export to start again from.
    const foreign = await get(`/maps/${MAIN}/changes?since=${changeToken('00000000-0000-4000-8000-000000000000', 1)}`);
    assert.equal(foreign.status, 410);
    assert.match(foreign.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(foreign.body.export, `https://maps.example.org/maps/${MAIN}/export`);
    assert.match(foreign.headers.get('link') ?? '', /\/export>; rel="alternate"/);
    // From a replica further ahead: nothing to follow yet, and the client keeps its token.
    const ahead = changeToken(summary.storeId, summary.latest.change + 5);
    assert.deepEqual((await get(`/maps/${MAIN}/changes?since=${ahead}`)).body, { changes: [], next_cursor: null, total: 0, next_token: ahead });
    // A cursor of another `since`, or altered: 400 naming it.
    const first = (await get(`/maps/${MAIN}/changes?since=${changeToken(summary.storeId, 1)}&limit=2`)).body;
    assert.ok(first.next_cursor);
    for (const cursor of [first.next_cursor.slice(0, -2) + 'AA', 'garbage']) {
      const res = await get(`/maps/${MAIN}/changes?since=${changeToken(summary.storeId, 2)}&cursor=${cursor}`);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.errors.map((e: any) => e.name), ['cursor']);
    }
    // The history kept starts at the latest change (as after HISTORY_DAYS without a publish): an older token is
    // 410, the map's own token still follows (nothing changed since).
    const model = store.model;
    const kept = model.changes;
    model.changes = RecordChanges.of({ ...summary, oldest: summary.latest.change }, model.publishedAt);
    try {
      const old = await get(`/maps/${MAIN}/changes?since=${changeToken(summary.storeId, 1)}`);
      assert.equal(old.status, 410);
      assert.match(old.body.detail, /older than the history/);
      assert.equal((await get(`/maps/${MAIN}/changes?since=${token}&x=1`)).status, 200);
    } finally {
      model.changes = kept;
    }
    // A map never served is 404; a map disabled in every publish answers one delete of it.
    assert.equal((await get(`/maps/00000000-0000-4000-8000-000000000000/changes?since=${token}`)).status, 404);
    assert.equal((await get('/maps/00000000-0000-4000-8000-000000000000/export')).status, 404);
    const disabled = await get(`/maps/ab5ec4f4-3cf5-5e4a-afbb-a3625e23ecbb/changes?since=${token}`);
    assert.deepEqual(disabled.body.changes, [{ op: 'delete', type: 'map', id: 'ab5ec4f4-3cf5-5e4a-afbb-a3625e23ecbb' }]);
  });
});

describe('the change feed on PostgreSQL replicas', () => {
  let db: { url: string; drop(): Promise<void> };
  let dir: string;
  const replicas: RunningServer[] = [];
  let demo: BundleT;
  before(async () => {
    demo = await readDemoBundle();
    db = await testDatabase();
    dir = await mkdtemp(join(tmpdir(), 'change-feed-pg-'));
  });
  after(async () => {
    for (const r of replicas) await r.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a client reading from two replicas, one of them on two threads, stays in sync across publishes and a rollback', async () => {
    let n = 0;
    /** Publishes a bundle; answers the version made current. */
    const publishFile = async (bundle: BundleT): Promise<number> => {
      const path = join(dir, `bundle-${++n}.json`);
      await writeFile(path, JSON.stringify(bundle));
      const r = await runToExit('node', ['publish', '--database-url', db.url, path]);
      assert.equal(r.code, 0, r.stderr);
      return Number(/^published version (\d+)/.exec(r.stdout)?.[1] ?? NaN);
    };
    await publishFile(demo);
    for (const [name, extra] of [['a', []], ['b', ['--workers', '2']]] as const) {
      replicas.push(await startServer('node', ['--database-url', db.url, '--data-dir', join(dir, name), ...extra], 60_000, {}, /"msg":"content followed"/));
    }
    // Each request goes to the next replica, as behind a load balancer, on a connection of its own (so the kernel
    // spreads them over the threads of the replica with two).
    let turn = 0;
    const get: Get = async (path) => {
      const res = await getFresh(replicas[turn++ % replicas.length].base + path);
      return { status: res.status, headers: res.headers, body: res.text ? JSON.parse(res.text) : null };
    };
    // A publish counts once every thread of every replica serves it.
    const settle = async (version: number) => {
      for (const [k, r] of replicas.entries()) await waitForEveryThread(r, k === 0 ? 1 : 2, version, 30_000);
    };
    const syncedVersions: number[] = [];
    await syncThrough(get, demo, async (bundle) => {
      const version = await publishFile(bundle);
      assert.ok(Number.isInteger(version), 'a new version each time');
      await settle(version);
      syncedVersions.push(version);
    });
    // A rollback to the version of the first edits is a change like any other: the client follows it.
    const start = await exported(get).catch(() => null);
    assert.equal(start, null, 'the main map is disabled');
    const r = await runToExit('node', ['publish', '--database-url', db.url, '--rollback', String(syncedVersions[0])]);
    assert.equal(r.code, 0, r.stderr);
    await settle(syncedVersions[0]);
    const client = await exported(get);
    await settle(await publishFile(demo));
    const rolled = await runToExit('node', ['publish', '--database-url', db.url, '--rollback', String(syncedVersions[1])]);
    assert.equal(rolled.code, 0, rolled.stderr);
    await settle(syncedVersions[1]);
    client.token = (await follow(get, client.records, client.token)).token;
    await assertInSync(get, client, 'after a publish and a rollback');
  });
});
