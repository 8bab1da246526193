/**
 * The small bundles a destination brings, served the way a user meets them, on Node with one serving thread and
 * with two, on Bun and Deno with two: a server starts on one of them in a new data directory and is given the other
 * two, one by SIGHUP and one by --watch, answering as the in-process app does over the same bundle each time. Then
 * each is published into PostgreSQL, where a replica on every runtime follows it. Their payloads are small enough
 * to come from a runtime's buffer pool, which once stopped every one of them on Node (and the one-POI bundle on
 * Deno); tests/payload-transfer.test.ts publishes each through the publisher's thread in-process too.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BundleT } from '../src/content/bundle/bundle-schema.ts';
import { openTestApp, type TestApp } from './helpers/app.ts';
import { F } from './helpers/fixture.ts';
import { testDatabase } from './helpers/postgres.ts';
import { declaredOn, reachableBy, RUNTIME_NAMES, runToExit, startServer, tmpdirFor, waitForEveryThread, type RunningServer } from './helpers/server.ts';
import { SMALL_BUNDLES } from './helpers/small-bundles.ts';

const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

type Name = keyof typeof SMALL_BUNDLES;
const NAMES = Object.keys(SMALL_BUNDLES) as Name[];

/** The paths each bundle is asked for: its map with every section, its GeoJSON, a year of its events, and one POI. */
function pathsOf(name: Name): string[] {
  const { map, poi } = SMALL_BUNDLES[name];
  return [`/maps/${map}?info=true&categories=true&markers=true&paths=true&polygons=true&contents=true`, `/places-of-interest/map/${map}`,
    `/events?map_id=${map}&from=2027-01-01&to=2027-12-31`, poi];
}

/** Writes a file by rename, as editors and deploy tools do. */
async function replaceFile(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

/** GET on a new connection each time (so that with two threads either may answer): status and parsed body. */
async function getJson(base: string, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + path, { headers: { connection: 'close' } });
  return { status: res.status, body: await res.json() };
}

/** Every path answers as the in-process app over the same bundle does, on ten fresh connections in a row. */
async function assertServesAs(server: RunningServer, app: TestApp, paths: readonly string[], what: string): Promise<void> {
  for (const path of paths) {
    const expected = await app.json(path);
    assert.equal(expected.status, 200, `${what}: the in-process app answers ${path}`);
    for (let i = 0; i < 10; i++) assert.deepEqual(await getJson(server.base, path), { status: 200, body: expected.body }, `${what}: ${path}`);
  }
}

/**
 * Polls until `path` is found, then until every one of the server's `threads` serves the version that has it
 * (waitForEveryThread, by thread number: fresh connections in a row could all reach the same thread), and answers
 * that version: the first a thread reports above `before`, what the threads served before this publish. A publish
 * of content already served makes no version, so this one publish makes exactly one.
 */
async function waitForPath(server: RunningServer, path: string, what: string, threads: number, before: number): Promise<number> {
  const began = performance.now();
  const late = () => performance.now() - began > 60_000;
  while ((await getJson(server.base, path).catch(() => ({ status: 0 }))).status !== 200) {
    if (late()) assert.fail(`${what}: ${path} was not served within 60 s\n${server.output().slice(-3000)}`);
    await sleep(50);
  }
  let version = before;
  while (version <= before) {
    version = (await servedVersion(server)) ?? before;
    if (version <= before && late()) assert.fail(`${what}: no thread serves a version after ${before} within 60 s\n${server.output().slice(-3000)}`);
    if (version <= before) await sleep(50);
  }
  await waitForEveryThread(server, threads, version);
  return version;
}

/** The version the thread a fresh connection reaches serves (undefined while none is). */
async function servedVersion(server: RunningServer): Promise<number | undefined> {
  const ready = await getJson(server.base, '/readyz').catch(() => null);
  return (ready?.body as { version?: number } | null)?.version;
}

/** The in-process apps, one per bundle and edit, opened once for every runtime. */
const apps = new Map<string, TestApp>();
async function appFor(key: string, bundle: BundleT): Promise<TestApp> {
  if (!apps.has(key)) apps.set(key, await openTestApp(bundle));
  return apps.get(key)!;
}
after(async () => { for (const app of apps.values()) await app.close(); });

// Each server starts with one bundle and is then given the other two, one by SIGHUP and one by a save (--watch):
// the order turns with the runtime and the threads, so each bundle is the first start of a server and comes by
// SIGHUP and by --watch to others, and every runtime meets all three. One serving thread is what the service does
// the same on every runtime (declaredOn), so Bun and Deno run with two, which reaches their worker threads too.
for (const [r, runtime] of RUNTIME_NAMES.entries()) {
  for (const [w, workers] of [1, 2].entries()) {
    if (!declaredOn(runtime, workers === 1 ? 'service' : 'runtime')) continue;
    const turn = (r + w) % NAMES.length;
    const [first, bySignal, bySave] = [0, 1, 2].map((k) => NAMES[(turn + k) % NAMES.length]);
    test(`${runtime}, ${workers === 1 ? 'one serving thread' : 'two serving threads'}: ${first} on the first start, ${bySignal} by SIGHUP, ${bySave} by --watch`,
      async () => {
        const dir = await mkdtemp(join(tmpdirFor(runtime), `dmcs-users-${runtime}-`));
        dirs.push(dir);
        const file = join(dir, 'my-destination.json');
        const bundles = new Map(NAMES.map((name) => [name, SMALL_BUNDLES[name].make()]));
        await replaceFile(file, JSON.stringify(bundles.get(first)));
        const server = await startServer(runtime, ['--bundle', file, '--data-dir', join(dir, 'data'), '--watch', '--workers', String(workers),
          '--fixed-time', F.now.toISOString()], 120_000, {}, /"msg":"content loaded"/);
        try {
          if (workers > 1) await waitForLog(server, /"msg":"serving threads"/);
          await assertServesAs(server, await appFor(first, bundles.get(first)!), pathsOf(first), `${first}, first start`);
          // The first start made one version, which every thread answered with above.
          const started = await servedVersion(server);
          assert.equal(typeof started, 'number', 'the first start serves a version');

          await replaceFile(file, JSON.stringify(bundles.get(bySignal)));
          // --watch may see this write too: whichever publishes first, the other finds the content unchanged.
          server.child.kill('SIGHUP');
          const signalled = await waitForPath(server, SMALL_BUNDLES[bySignal].poi, 'SIGHUP', workers, started!);
          await assertServesAs(server, await appFor(bySignal, bundles.get(bySignal)!), pathsOf(bySignal), `${bySignal}, by SIGHUP`);

          await replaceFile(file, JSON.stringify(bundles.get(bySave)));
          await waitForPath(server, SMALL_BUNDLES[bySave].poi, '--watch', workers, signalled);
          await assertServesAs(server, await appFor(bySave, bundles.get(bySave)!), pathsOf(bySave), `${bySave}, by --watch`);

          const ready = await getJson(server.base, '/readyz');
          assert.equal(ready.status, 200);
          assert.equal((ready.body as { behind: boolean }).behind, false);
          assert.doesNotMatch(server.output(), /"level":"error"/, 'nothing failed on the way');
        } finally {
          assert.equal(await server.stop(), 0);
        }
      });
  }
}

/** Waits until the server's log matches `pattern`. */
async function waitForLog(server: RunningServer, pattern: RegExp, ms = 60_000): Promise<void> {
  const began = performance.now();
  while (!pattern.test(server.output())) {
    if (performance.now() - began > ms) assert.fail(`${pattern} not logged within ${ms} ms\n${server.output().slice(-3000)}`);
    await sleep(50);
  }
}

describe('published into PostgreSQL, followed by a replica on every runtime', () => {
  let db: { url: string; drop(): Promise<void> };
  let dir: string;
  const replicas: RunningServer[] = [];
  before(async () => {
    db = await testDatabase();
    dir = await mkdtemp(join(tmpdir(), 'dmcs-users-fleet-'));
    dirs.push(dir);
  });
  after(async () => {
    for (const r of replicas) await r.stop();
    await db?.drop();
  });

  test('each bundle in turn: publish, and every replica serves it as the in-process app does', async () => {
    for (const [k, name] of NAMES.entries()) {
      const bundle = SMALL_BUNDLES[name].make();
      const file = join(dir, `bundle-${k}.json`);
      await writeFile(file, JSON.stringify(bundle));
      const published = await runToExit('node', ['publish', '--database-url', db.url, file]);
      assert.equal(published.code, 0, published.stderr);
      if (replicas.length === 0) {
        for (const runtime of RUNTIME_NAMES) {
          replicas.push(await startServer(runtime, ['--database-url', db.url, '--data-dir', join(reachableBy(runtime, dir), `replica-${runtime}`),
            '--fixed-time', F.now.toISOString(), ...(runtime === 'node' ? ['--workers', '2'] : [])],
          120_000, {}, /"msg":"listening"/));
        }
      }
      for (const replica of replicas) {
        await waitForEveryThread(replica, replica.child.spawnargs.includes('--workers') ? 2 : 1, k + 1);
        await assertServesAs(replica, await appFor(name, bundle), pathsOf(name), `replica, ${name}`);
      }
    }
  });
});
