/**
 * A replica's /readyz tells the truth about what it cannot do: a version the database made current that it cannot
 * load (it keeps serving the one before, answers 200 `degraded` with `behind: true`, names the version and why, and
 * logs it at every attempt), and a database that answers but refuses it (a role without the store's privileges).
 * Every database here is a real PostgreSQL (tests/helpers/postgres.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Publisher } from '../src/content/publisher.ts';
import { connectPostgres } from '../src/db/postgres.ts';
import { versionSchema } from '../src/db/schema.ts';
import { runToExit, startServer, type RunningServer } from './helpers/server.ts';
import { testDatabase } from './helpers/postgres.ts';
import { longTrailsBundle, SMALL } from './helpers/small-bundles.ts';

/** The body of /readyz, with its status. */
async function readiness(server: RunningServer): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${server.base}/readyz`);
  return { status: res.status, body: await res.json() as Record<string, any> };
}

/** Polls until `ok` holds for /readyz; fails after `ms` with the last answer and the log. */
async function waitForReadiness(server: RunningServer, what: string, ok: (r: { status: number; body: Record<string, any> }) => boolean, ms = 20_000) {
  const began = performance.now();
  for (;;) {
    const r = await readiness(server).catch(() => null);
    if (r && ok(r)) return r;
    if (performance.now() - began > ms) assert.fail(`${what}: not within ${ms} ms: ${JSON.stringify(r?.body)}\n${server.output().slice(-3000)}`);
    await sleep(50);
  }
}

const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

describe('a replica that cannot load the current version', () => {
  let db: { url: string; drop(): Promise<void> };
  let replica: RunningServer | undefined;
  let bundles: string;
  before(async () => {
    db = await testDatabase();
    bundles = await mkdtemp(join(tmpdir(), 'dmcs-replica-status-'));
    dirs.push(bundles);
  });
  after(async () => {
    await replica?.stop();
    await db?.drop();
  });

  test('keeps serving, answers 200 degraded with behind, the version and why, logs every attempt, and catches up', async () => {
    const { writeFile } = await import('node:fs/promises');
    const path = (name: string) => join(bundles, name);
    const park = longTrailsBundle();
    await writeFile(path('v1.json'), JSON.stringify(park));
    assert.equal((await runToExit('node', ['publish', '--database-url', db.url, path('v1.json')])).code, 0);
    replica = await startServer('node', ['--database-url', db.url, '--data-dir', join(bundles, 'replica')], 60_000, {}, /"msg":"content followed"/);
    assert.equal((await readiness(replica)).body.behind, false);

    // Version 2 is made current with a row its model cannot be built from (a damaged row, or a publisher of another
    // release): the publisher in this process writes it and commits it without building it first.
    park.paths[0].name = 'Trail 1, damaged';
    await writeFile(path('v2.json'), JSON.stringify(park));
    const publisher = await Publisher.open({ databaseUrl: db.url });
    const sql = connectPostgres(db.url, { max: 1 });
    try {
      const staged = await publisher.stage({ path: path('v2.json') });
      assert.equal(staged.problems, null);
      const schema = versionSchema((staged.current?.version ?? 0) + 1);
      await sql.exec(`UPDATE ${schema}.pois SET doc = doc - 'geometry' WHERE poi_type = 'path'`);
      assert.equal((await publisher.commit())?.version, 2);
    } finally {
      await sql.close();
      await publisher.close();
    }

    const behind = await waitForReadiness(replica, 'the replica says it is behind', (r) => r.body.not_loaded !== null && r.body.not_loaded !== undefined);
    assert.equal(behind.status, 200, 'a replica behind still answers 200: a fleet failing the same version keeps serving');
    assert.equal(behind.body.status, 'degraded');
    assert.equal(behind.body.behind, true);
    assert.equal(behind.body.version, 1, 'the version it serves');
    assert.equal(behind.body.current_version, 2);
    assert.equal(behind.body.not_loaded.version, 2);
    assert.match(behind.body.not_loaded.error, /\S/);
    assert.equal(behind.body.last_publish.outcome, 'failed');
    assert.equal(behind.body.last_publish.error, behind.body.not_loaded.error);
    assert.equal(behind.body.database.error, null, 'the database is fine: the version is not');
    const trail = await fetch(`${replica.base}/paths/${SMALL.park.trail}`);
    assert.equal((await trail.json()).name, 'Trail 1', 'version 1 is still served');

    // Each attempt (a poll, a notification, SIGHUP) is said once in the log.
    const attempts = () => [...replica!.output().matchAll(/"msg":"the current version could not be loaded; the served version stays".*?"version":2,"serving":1/g)].length;
    const before = attempts();
    replica.child.kill('SIGHUP');
    const began = performance.now();
    while (attempts() === before && performance.now() - began < 10_000) await sleep(50);
    assert.equal(attempts(), before + 1, 'SIGHUP is one more attempt, logged once');

    park.paths[0].name = 'Trail 1, mended';
    await writeFile(path('v3.json'), JSON.stringify(park));
    assert.equal((await runToExit('node', ['publish', '--database-url', db.url, path('v3.json')])).code, 0);
    const caught = await waitForReadiness(replica, 'the replica catches up', (r) => r.body.version === 3);
    assert.equal(caught.body.status, 'ready');
    assert.equal(caught.body.behind, false);
    assert.equal(caught.body.not_loaded, null);
    assert.equal(caught.body.last_publish.outcome, 'followed');
  });
});

describe('a replica whose role cannot use the database', () => {
  test('/readyz says the database refuses it and why, as the log does', async () => {
    const db = await testDatabase();
    const role = `reader_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const password = crypto.randomUUID();
    const admin = connectPostgres(db.url, { max: 1 });
    let replica: RunningServer | undefined;
    try {
      // A role that may log in and read, as a read-only account would be given, but owns nothing and may create nothing.
      await admin.exec(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'; REVOKE CREATE ON SCHEMA public FROM PUBLIC;`);
      const url = new URL(db.url);
      url.username = role;
      url.password = password;
      const dir = await mkdtemp(join(tmpdir(), 'dmcs-replica-role-'));
      dirs.push(dir);
      replica = await startServer('node', ['--database-url', url.toString(), '--data-dir', dir], 60_000, {}, /"msg":"listening"/);
      const refused = await waitForReadiness(replica, 'the refusal shows', (r) => typeof r.body.database?.error === 'string');
      assert.equal(refused.status, 503, 'nothing to serve yet');
      assert.equal(refused.body.status, 'loading');
      assert.equal(refused.body.database.reachable, true);
      assert.match(refused.body.database.error, /permission denied/);
      assert.match(replica.output(), /"msg":"the database refused the replica; the served version stays".*permission denied/);
    } finally {
      await replica?.stop();
      await admin.close();
      await db.drop();
      // Roles belong to the server, not to the database dropped.
      const server = new URL(db.url);
      server.pathname = '/postgres';
      const su = connectPostgres(server.toString(), { max: 1 });
      await su.exec(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
      await su.close();
    }
  });
});

describe('checks asked for while one runs', () => {
  // The interleaving is forced with a store whose follow() waits on the test: no database is reached (the follower's
  // connection is made only when it listens, which this test does not start).
  test('a notification that comes while a poll runs is run after it, and the version it brings is logged as followed on the notification', async () => {
    const { ReplicaFollower } = await import('../src/content/replica.ts');
    const { createLogger } = await import('../src/utils/log.ts');
    const lines: string[] = [];
    let version = 1;
    let release!: () => void;
    const pollRuns = new Promise<void>((resolve) => { release = resolve; });
    const labels: string[] = [];
    const store = {
      ready: true,
      get model() { return { version, checksum: `c${version}` }; },
      lastPublish: null,
      async follow(label: string) {
        labels.push(label);
        if (labels.length === 1) {
          await pollRuns; // the poll read the version before the commit
          return false;
        }
        version = 2;
        return true;
      },
    };
    const logger = createLogger('info', (text) => lines.push(...text.split('\n')));
    const follower = new ReplicaFollower(store as never, 'postgres://127.0.0.1:1/none', logger, 60_000);
    try {
      const poll = follower.check('poll');
      const notify = follower.check('notify');
      release();
      await Promise.all([poll, notify]);
      logger.flush();
      assert.deepEqual(labels, ['database (poll)', 'database (notify)']);
      const followed = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'content followed');
      assert.deepEqual(followed.map((line) => [line.trigger, line.version]), [['notify', 2]]);
    } finally {
      await follower.stop();
    }
  });
});
