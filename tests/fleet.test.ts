/**
 * A fleet over a real PostgreSQL: the `publish` subcommand, replicas on real ports that follow what it makes
 * current, identical answers from identical replicas, live sessions, and a database that is down at start or
 * lost while serving. Every database here is a real PostgreSQL (tests/helpers/postgres.ts).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectPostgres } from '../src/db/postgres.ts';
import { DEMO_BUNDLE_PATH } from '../src/serve/config.ts';
import { CACHE_CONTROL } from '../src/http/respond.ts';
import { reachableBy, runToExit, startServer, type RunningServer } from './helpers/server.ts';
import { startThrowawayPostgres, testDatabase, type ThrowawayPostgres } from './helpers/postgres.ts';

const REPLICA_READY = /"msg":"content followed"/;
const LISTENING = /"msg":"listening"/;

interface Demo { maps: { id: string; enabled: boolean }[]; markers: { id: string; map_id: string; name: string }[]; events: { id: string }[] }

/** GET as JSON text, with status and headers. */
async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Polls `check` every 20 ms until it answers true; the ms it took, or throws after `timeoutMs`. */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const began = performance.now();
  for (;;) {
    if (await check().catch(() => false)) return performance.now() - began;
    if (performance.now() - began > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The content version a server's /readyz shows (null while loading). */
async function versionOf(server: RunningServer): Promise<number | null> {
  const r = await get(server.base, '/readyz');
  return r.status === 200 ? (JSON.parse(r.text) as { version: number }).version : null;
}

describe('the publish subcommand', () => {
  let db: { url: string; drop(): Promise<void> };
  let dir: string;
  before(async () => {
    db = await testDatabase();
    dir = await mkdtemp(join(tmpdir(), 'dmcs-publish-'));
  });
  after(async () => {
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('publishes a bundle as a new version, says unchanged for the same content, lists and rolls back', async () => {
    const first = await runToExit('node', ['publish', '--database-url', db.url, DEMO_BUNDLE_PATH]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^published version 1 \(content [0-9a-f]{16}…\) in \d+ ms/);
    const again = await runToExit('node', ['publish', '--database-url', db.url, DEMO_BUNDLE_PATH]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^unchanged: version 1 already holds this content/);

    const demo = JSON.parse(await readFile(DEMO_BUNDLE_PATH, 'utf8')) as Demo;
    demo.markers[0].name += ' (edited)';
    const edited = join(dir, 'edited.json');
    await writeFile(edited, JSON.stringify(demo));
    const second = await runToExit('node', ['publish', edited], );
    assert.equal(second.code, 2, 'no database URL is a usage error');
    assert.match(second.stderr, /needs --database-url/);
    const published = await runToExit('node', ['publish', '--database-url', db.url, edited]);
    assert.equal(published.code, 0, published.stderr);
    assert.match(published.stdout, /^published version 2 /);

    const list = await runToExit('node', ['publish', '--database-url', db.url, '--list']);
    assert.equal(list.code, 0, list.stderr);
    const rows = list.stdout.trim().split('\n').map((l) => l.split('\t'));
    assert.deepEqual(rows.map((r) => r[0]), ['2', '1']);
    assert.equal(rows[0][3], 'current');
    assert.equal(rows[1][2], createHash('sha256').update(await readFile(DEMO_BUNDLE_PATH)).digest('hex'));

    const rollback = await runToExit('node', ['publish', '--database-url', db.url, '--rollback', '1']);
    assert.equal(rollback.code, 0, rollback.stderr);
    assert.match(rollback.stdout, /^version 1 is current again/);
    const missing = await runToExit('node', ['publish', '--database-url', db.url, '--rollback', '7']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /version 7 is not kept \(the store keeps 2, 1\)/);
  });

  test('a bad bundle is refused with every problem listed, and nothing is written', async () => {
    const before = (await runToExit('node', ['publish', '--database-url', db.url, '--list'])).stdout;
    const demo = JSON.parse(await readFile(DEMO_BUNDLE_PATH, 'utf8')) as Demo & { events: Record<string, unknown>[] };
    delete demo.events[0].title;
    demo.events[1].starts_at = 'tomorrow';
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify(demo));
    const r = await runToExit('node', ['publish', '--database-url', db.url, bad]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\$\.events\[0\]\.title/);
    assert.match(r.stderr, /\$\.events\[1\]\.starts_at/);
    assert.equal((await runToExit('node', ['publish', '--database-url', db.url, '--list'])).stdout, before);
  });

  test('an unreachable database is a clear error, and bad arguments a usage error', async () => {
    const down = await runToExit('node', ['publish', '--database-url', 'postgres://x:y@127.0.0.1:9/none', DEMO_BUNDLE_PATH]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach the database/);
    const both = await runToExit('node', ['publish', '--database-url', db.url, '--list', DEMO_BUNDLE_PATH]);
    assert.equal(both.code, 2);
    const notUrl = await runToExit('node', ['publish', '--database-url', 'mysql://h/db', DEMO_BUNDLE_PATH]);
    assert.equal(notUrl.code, 2);
    assert.match(notUrl.stderr, /postgres:\/\//);
  });
});

describe('a fleet of replicas over PostgreSQL', () => {
  let db: { url: string; drop(): Promise<void> };
  let dir: string;
  const replicas: RunningServer[] = [];
  let demo: Demo;
  let map: string;

  before(async () => {
    db = await testDatabase();
    dir = await mkdtemp(join(tmpdir(), 'dmcs-fleet-'));
    demo = JSON.parse(await readFile(DEMO_BUNDLE_PATH, 'utf8')) as Demo;
    map = demo.maps.find((m) => m.enabled)!.id;
    const published = await runToExit('node', ['publish', '--database-url', db.url, DEMO_BUNDLE_PATH]);
    assert.equal(published.code, 0, published.stderr);
    // Replica b answers on two serving threads (--workers 2): everything below holds for it too.
    for (const name of ['a', 'b']) {
      replicas.push(await startServer('node', ['--database-url', db.url, '--data-dir', join(dir, name), '--log-level', 'info',
        ...(name === 'b' ? ['--workers', '2'] : [])], 60_000, {}, /"msg":"content followed"|"msg":"listening"/));
    }
    for (const r of replicas) await waitFor('a replica serves version 1', async () => (await versionOf(r)) === 1, 30_000);
  });
  after(async () => {
    for (const r of replicas) await r.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('two replicas on one version, one of them on two threads, answer the same bytes, ETag and X-Content-Version, with s-maxage', async () => {
    for (const path of [`/maps/${map}?info=true&markers=true`, `/events?map_id=${map}&limit=20`, `/places-of-interest/map/${map}`]) {
      const [a, b] = await Promise.all(replicas.map((r) => get(r.base, path)));
      assert.equal(a.status, 200, path);
      assert.equal(a.text, b.text, path);
      assert.equal(a.headers.get('etag'), b.headers.get('etag'), path);
      assert.equal(a.headers.get('x-content-version'), '1', path);
      assert.equal(b.headers.get('x-content-version'), '1', path);
    }
    const r = await get(replicas[0].base, `/maps/${map}`);
    assert.equal(r.headers.get('cache-control'), CACHE_CONTROL.content);
    assert.match(r.headers.get('cache-control')!, /s-maxage=\d+/);
    // Both threads of replica b are ready and see the database (each request on a connection of its own).
    const threads = new Set<number>();
    for (let i = 0; i < 400 && threads.size < 2; i++) {
      const ready = JSON.parse((await get(replicas[1].base, '/readyz', { connection: 'close' })).text);
      if (ready.status !== 'ready') { await sleep(10); continue; }
      assert.equal(ready.database.reachable, true);
      threads.add(ready.thread);
      await sleep(5);
    }
    assert.deepEqual([...threads].sort(), [0, 1], 'both threads of replica b answered ready');
  });

  test('under load, a publish is served by both replicas, on its notification, with no failed request', async (t) => {
    const edited = structuredClone(demo);
    const marker = edited.markers.find((m) => m.map_id === map)!;
    marker.name += ' (fleet edit)';
    const path = join(dir, 'edited.json');
    await writeFile(path, JSON.stringify(edited));
    const paths = [`/maps/${map}?markers=true`, `/markers/${marker.id}`, `/events?map_id=${map}&limit=50`, '/healthz'];
    let running = true;
    let sent = 0;
    const failures: string[] = [];
    const load = Array.from({ length: 8 }, async (_, k) => {
      for (let i = k; running; i++) {
        const replica = replicas[i % 2];
        const p = paths[i % paths.length];
        try {
          const res = await fetch(replica.base + p);
          await res.arrayBuffer();
          sent++;
          if (res.status !== 200) failures.push(`${p} ${res.status}`);
        } catch (err) {
          failures.push(`${p} ${(err as Error).message}`);
        }
      }
    });
    let ms: number[];
    // The load stops however this ends: loops left running would keep the file's process alive for ever.
    try {
      await sleep(500);
      const publishing = runToExit('node', ['publish', '--database-url', db.url, path]);
      // Timed from the publish's commit: its own process start and validation are not the fleet's doing.
      await waitFor('the publish commits', async () => (await versionOfDb(db.url)) === 2, 30_000);
      ms = await Promise.all(replicas.map((r) => waitFor('a replica serves version 2', async () => {
        const res = await get(r.base, `/markers/${marker.id}`);
        return res.headers.get('x-content-version') === '2' && JSON.parse(res.text).name === marker.name;
      }, 30_000)));
      assert.equal((await publishing).code, 0);
      await sleep(300);
    } finally {
      running = false;
      await Promise.all(load);
    }
    assert.deepEqual(failures, [], `${failures.length} of ${sent} requests failed`);
    assert.ok(sent > 50, `load ran (${sent} requests)`);
    // Followed on the publish's notification, not a poll: timed bounds are the fleet benchmark's (scripts/bench/fleet.ts),
    // since a shared machine under a test run's load makes any time flaky.
    for (const r of replicas) {
      const followed = r.output().split('\n').filter((line) => line.includes('"msg":"content followed"'))
        .map((line) => JSON.parse(line) as { trigger: string; version: number }).find((line) => line.version === 2);
      assert.equal(followed?.trigger, 'notify', `version 2 followed on the notification:\n${r.output()}`);
    }
    t.diagnostic(`each replica served the new version ${ms.map(Math.round).join(' and ')} ms after the commit; ${sent} requests, none failed`);
  });

  test('replicas on Bun and Deno serve the same bytes and ETags as the Node ones (uncompressed), and look sessions up there too', async () => {
    const expected = await versionOf(replicas[0]);
    for (const runtime of ['bun', 'deno'] as const) {
      const other = await startServer(runtime, ['--database-url', db.url, '--data-dir', join(reachableBy(runtime, dir), runtime), '--log-level', 'info'], 60_000, {},
        /"msg":"content followed"/);
      try {
        await waitFor(`${runtime} serves version ${expected}`, async () => (await versionOf(other)) === expected, 30_000);
        // Uncompressed: each runtime's zlib compresses the same bytes differently (so does its ETag for that coding).
        const identity = { 'accept-encoding': 'identity' };
        // An explicit window: a defaulted one starts at each request's own second, and its cursor says so.
        for (const path of [`/maps/${map}?info=true&markers=true`, `/events?map_id=${map}&limit=20&from=2026-11-01T00:00:00Z`]) {
          const [a, b] = await Promise.all([get(replicas[0].base, path, identity), get(other.base, path, identity)]);
          assert.equal(b.status, 200, `${runtime} ${path}`);
          assert.equal(b.text, a.text, `${runtime} ${path}`);
          assert.equal(b.headers.get('etag'), a.headers.get('etag'), `${runtime} ${path}`);
          assert.equal(b.headers.get('x-content-version'), a.headers.get('x-content-version'), `${runtime} ${path}`);
        }
        const session = await get(other.base, `/events/${demo.events[0].id}`, { authorization: 'Bearer not-a-session' });
        assert.equal(session.status, 401, `${runtime}: the session was looked up in the database`);
      } finally {
        assert.equal(await other.stop(), 0, `${runtime} stopped cleanly`);
      }
    }
  });

  test('a session the account system writes counts from the next request on, never cached', async () => {
    const sql = connectPostgres(db.url);
    const token = `fleet-${crypto.randomUUID()}`;
    const hash = createHash('sha256').update(token).digest('hex');
    const account = crypto.randomUUID();
    const event = demo.events[0].id.toLowerCase();
    const bearer = { authorization: `Bearer ${token}` };
    try {
      assert.equal((await get(replicas[0].base, `/events/${event}`, bearer)).status, 401, 'unknown token');
      await sql.query(`INSERT INTO sessions (token_sha256, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')`, [hash, account]);
      let r = await get(replicas[0].base, `/events/${event}`, bearer);
      assert.equal(r.status, 200);
      assert.equal(JSON.parse(r.text).is_saved, false);
      assert.equal(r.headers.get('cache-control'), CACHE_CONTROL.private);
      await sql.query(`INSERT INTO saved_events (account_id, event_id) VALUES ($1, $2)`, [account, event]);
      for (const replica of replicas) {
        r = await get(replica.base, `/events/${event}`, bearer);
        assert.equal(JSON.parse(r.text).is_saved, true);
      }
      await sql.query(`DELETE FROM saved_events WHERE account_id = $1`, [account]);
      assert.equal(JSON.parse((await get(replicas[1].base, `/events/${event}`, bearer)).text).is_saved, false);
      await sql.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE token_sha256 = $1`, [hash]);
      assert.equal((await get(replicas[1].base, `/events/${event}`, bearer)).status, 401, 'an expired session');
    } finally {
      await sql.close();
    }
  });
});

/** The version the database has made current. */
async function versionOfDb(url: string): Promise<number | null> {
  const sql = connectPostgres(url, { max: 1 });
  try {
    const { rows } = await sql.query<{ version: number }>('SELECT version FROM content_current');
    return rows[0] ? Number(rows[0].version) : null;
  } finally {
    await sql.close();
  }
}

describe('a replica whose database is down', () => {
  let pg: ThrowawayPostgres;
  let dir: string;
  let replica: RunningServer | null = null;

  before(async () => {
    pg = await startThrowawayPostgres();
    dir = await mkdtemp(join(tmpdir(), 'dmcs-outage-'));
    const published = await runToExit('node', ['publish', '--database-url', pg.url, DEMO_BUNDLE_PATH]);
    assert.equal(published.code, 0, published.stderr);
  });
  after(async () => {
    await replica?.stop();
    await pg?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('at start: the port opens, /readyz says 503 and why, and the version is served once the database is back', async (t) => {
    await pg.pause();
    replica = await startServer('node', ['--database-url', pg.url, '--data-dir', join(dir, 'r'), '--log-level', 'info'], 60_000, {}, LISTENING);
    assert.equal((await get(replica.base, '/healthz')).status, 200);
    await waitFor('/readyz names the unreachable database', async () => {
      const r = await get(replica!.base, '/readyz');
      const body = JSON.parse(r.text);
      return r.status === 503 && body.status === 'loading' && body.database.reachable === false && typeof body.database.error === 'string';
    }, 10_000);
    const demo = JSON.parse(await readFile(DEMO_BUNDLE_PATH, 'utf8')) as Demo;
    const content = await get(replica.base, `/maps/${demo.maps[0].id}`);
    assert.equal(content.status, 503, 'content waits for the first version');
    assert.equal(replica.child.exitCode, null, 'no exit');
    await pg.resume();
    const ms = await waitFor('the replica serves once the database is back', async () => (await versionOf(replica!)) === 1, 15_000);
    t.diagnostic(`served ${Math.round(ms)} ms after the database came back`);
  });

  test('while serving: content keeps serving, /readyz says degraded, sessions answer 503, and all recovers by itself', async () => {
    const demo = JSON.parse(await readFile(DEMO_BUNDLE_PATH, 'utf8')) as Demo;
    const map = demo.maps.find((m) => m.enabled)!.id;
    const event = demo.events[0].id;
    await pg.pause();
    const content = await get(replica!.base, `/maps/${map}?markers=true`);
    assert.equal(content.status, 200);
    const session = await get(replica!.base, `/events/${event}`, { authorization: 'Bearer any-token' });
    assert.equal(session.status, 503);
    assert.match(session.headers.get('content-type')!, /^application\/problem\+json/);
    assert.equal(session.headers.get('cache-control'), CACHE_CONTROL.none);
    await waitFor('/readyz says degraded', async () => {
      const r = await get(replica!.base, '/readyz');
      const body = JSON.parse(r.text);
      return r.status === 200 && body.status === 'degraded' && body.database.reachable === false && body.version === 1;
    }, 15_000);
    await pg.resume();
    await waitFor('/readyz says ready again', async () => JSON.parse((await get(replica!.base, '/readyz')).text).status === 'ready', 15_000);
    assert.equal((await get(replica!.base, `/events/${event}`, { authorization: 'Bearer any-token' })).status, 401, 'sessions are looked up again');
  });
});
