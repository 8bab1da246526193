/**
 * `publish --sessions` on a real PostgreSQL (tests/helpers/postgres.ts): the sessions file the embedded store
 * reads goes into the database's sessions tables, with a bundle in the same call or alone, so that the demo's
 * token works on a replica (401 before: a fleet has no sessions of its own). A bad sessions file writes nothing,
 * not even the bundle given with it. The replica's pid is in its data directory, and `reload` signals it too.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { readPidFile } from '../src/content/store/data-dir.ts';
import { DEMO_BUNDLE_PATH, DEMO_SESSIONS_PATH } from '../src/serve/config.ts';
import { connectPostgres } from '../src/db/postgres.ts';
import { testDatabase } from './helpers/postgres.ts';
import { runToExit, startServer, type RunningServer } from './helpers/server.ts';

/** The demo event the demo session saved (README, "Demo ids"). */
const SAVED_EVENT = 'a8e53f5d-23b9-5801-9a77-63ddafe3fbd1';
const BEARER = { authorization: 'Bearer demo-session-token' };

/** How many rows the sessions tables hold. */
async function countSessions(url: string): Promise<{ sessions: number; saved: number }> {
  const db = connectPostgres(url, { max: 1 });
  try {
    const [{ rows: [s] }, { rows: [e] }] = [await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions'),
      await db.query<{ n: number }>('SELECT count(*)::int AS n FROM saved_events')];
    return { sessions: s.n, saved: e.n };
  } finally {
    await db.close();
  }
}

describe('publish --sessions', () => {
  let db: { url: string; drop(): Promise<void> };
  let dir: string;
  let replica: RunningServer | undefined;
  before(async () => {
    db = await testDatabase();
    dir = await mkdtemp(join(tmpdir(), 'dmcs-publish-sessions-'));
  });
  after(async () => {
    await replica?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a bad sessions file is refused with its problems, and the bundle given with it is not published', async () => {
    const bad = join(dir, 'bad-sessions.json');
    await writeFile(bad, JSON.stringify({ format: 'destination-sessions/1', sessions: [{ token_sha256: 'x', account_id: 'y', expires_at: 'z', saved_event_ids: [] }] }));
    const run = await runToExit('node', ['publish', '--database-url', db.url, '--sessions', bad, '--bundle', DEMO_BUNDLE_PATH]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /sessions file refused[\s\S]*\$\.sessions\[0\]\.token_sha256[\s\S]*nothing was published/);
    const list = await runToExit('node', ['publish', '--database-url', db.url, '--list']);
    assert.equal(list.stdout.trim(), 'no version is published yet');
  });

  test('the demo bundle without sessions serves the demo token 401 on a replica; --sessions alone then makes it 200 with is_saved', async () => {
    const published = await runToExit('node', ['publish', '--database-url', db.url, '--bundle', DEMO_BUNDLE_PATH]);
    assert.equal(published.code, 0, published.stderr);
    replica = await startServer('node', ['--database-url', db.url, '--data-dir', join(dir, 'replica')], 60_000, {}, /"msg":"content followed"/);
    const before = await fetch(`${replica.base}/events/${SAVED_EVENT}`, { headers: BEARER });
    assert.equal(before.status, 401, 'a fleet has no sessions until they are written');
    await before.arrayBuffer();

    const sessions = await runToExit('node', ['publish', '--database-url', db.url, '--sessions', DEMO_SESSIONS_PATH]);
    assert.equal(sessions.code, 0, sessions.stderr);
    const file = JSON.parse(await readFile(DEMO_SESSIONS_PATH, 'utf8')) as { sessions: { saved_event_ids: string[] }[] };
    const saved = file.sessions.reduce((n, s) => n + s.saved_event_ids.length, 0);
    assert.match(sessions.stdout, new RegExp(`^sessions replaced: ${file.sessions.length} session\\(s\\), ${saved} saved event\\(s\\) from `));
    assert.deepEqual(await countSessions(db.url), { sessions: file.sessions.length, saved });

    const res = await fetch(`${replica.base}/events/${SAVED_EVENT}`, { headers: BEARER });
    assert.equal(res.status, 200);
    const body = await res.json() as { is_saved: boolean };
    assert.equal(body.is_saved, true);
    const expired = await fetch(`${replica.base}/events/${SAVED_EVENT}`, { headers: { authorization: 'Bearer expired-session-token' } });
    assert.equal(expired.status, 401);
    await expired.arrayBuffer();
  });

  test('a bundle and sessions in one call: the bundle is published (or unchanged), then the sessions replace the stored ones', async () => {
    const one = join(dir, 'one-session.json');
    const file = JSON.parse(await readFile(DEMO_SESSIONS_PATH, 'utf8')) as { format: string; sessions: unknown[] };
    await writeFile(one, JSON.stringify({ ...file, sessions: file.sessions.slice(0, 1) }));
    const run = await runToExit('node', ['publish', '--database-url', db.url, '--sessions', one, DEMO_BUNDLE_PATH]);
    assert.equal(run.code, 0, run.stderr);
    const [first, second] = run.stdout.trim().split('\n');
    assert.match(first, /^unchanged: version 1 already holds this content/);
    assert.match(second, /^sessions replaced: 1 session\(s\)/);
    assert.equal((await countSessions(db.url)).sessions, 1);
  });

  test('the replica wrote its pid to its data directory, and reload signals it without ending it', async () => {
    assert.ok(replica);
    const dataDir = join(dir, 'replica');
    assert.equal(await readPidFile(dataDir), replica.child.pid);
    const run = await runToExit('node', ['reload', '--data-dir', dataDir]);
    assert.equal(run.code, 0, run.stderr);
    await sleep(300);
    assert.equal(replica.child.exitCode, null, 'SIGHUP did not end the replica');
    assert.equal((await fetch(`${replica.base}/readyz`)).status, 200);
  });
});
