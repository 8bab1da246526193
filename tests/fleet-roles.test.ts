/**
 * The roles docs/deployment.md tells a fleet to create, run as written (with names of their own) on a real
 * PostgreSQL: `publish` with the role that owns the database, a replica with a role that can only read. The
 * replica waits, saying why, until the first publish has made the store, then follows every version.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectPostgres } from '../src/db/postgres.ts';
import { DEMO_BUNDLE_PATH, DEMO_SESSIONS_PATH } from '../src/serve/config.ts';
import { serverUrl } from './helpers/postgres.ts';
import { runToExit, startServer, type RunningServer } from './helpers/server.ts';

/** The SQL block under "Roles and privileges" in docs/deployment.md, as written. */
async function documentedSql(): Promise<string> {
  const page = await readFile(new URL('../docs/deployment.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('### Roles and privileges'));
  const m = /```sql\n([\s\S]*?)```/.exec(section);
  assert.ok(m, 'docs/deployment.md shows the roles as SQL');
  return m[1];
}

/** GET /readyz: status and body. */
async function readiness(server: RunningServer): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${server.base}/readyz`);
  return { status: res.status, body: await res.json() as Record<string, any> };
}

/** Polls /readyz until `ok`; fails after 30 s with the last answer. */
async function waitFor(server: RunningServer, what: string, ok: (body: Record<string, any>) => boolean): Promise<Record<string, any>> {
  const began = performance.now();
  for (;;) {
    const { body } = await readiness(server);
    if (ok(body)) return body;
    if (performance.now() - began > 30_000) assert.fail(`${what}: ${JSON.stringify(body)}\n${server.output().slice(-2000)}`);
    await sleep(50);
  }
}

const suffix = crypto.randomUUID().replaceAll('-', '').slice(0, 10);
const names = { dm_publisher: `dm_publisher_${suffix}`, dm_replica: `dm_replica_${suffix}`, destination_map: `destination_map_${suffix}` };
const dir = await mkdtemp(join(tmpdir(), 'dmcs-roles-'));
let replica: RunningServer | undefined;
let admin: ReturnType<typeof connectPostgres> | undefined;
after(async () => {
  await replica?.stop();
  if (admin) {
    await admin.exec(`DROP DATABASE IF EXISTS ${names.destination_map} WITH (FORCE)`).catch(() => {});
    await admin.exec(`DROP ROLE IF EXISTS ${names.dm_publisher}; DROP ROLE IF EXISTS ${names.dm_replica}`).catch(() => {});
    await admin.close();
  }
  await rm(dir, { recursive: true, force: true });
});

test('a publisher that owns the database and a replica that can only read, as docs/deployment.md creates them', async () => {
  const base = await serverUrl();
  const sql = (await documentedSql()).replace(/\b(dm_publisher|dm_replica|destination_map)\b/g, (n) => names[n as keyof typeof names]);
  // The first statements run as the superuser; the rest, as the page says, connected to the new database.
  const [server, inDatabase] = sql.split(/^-- then, connected to .*$/m);
  assert.ok(inDatabase, 'the page says which statements run in the new database');
  admin = connectPostgres(base, { max: 1 });
  for (const statement of server.split(';').map((s) => s.trim()).filter(Boolean)) await admin.exec(statement);
  const url = (role: 'dm_publisher' | 'dm_replica', password: string) => {
    const u = new URL(base);
    [u.username, u.password, u.pathname] = [names[role], password, `/${names.destination_map}`];
    return u.toString();
  };
  const superuserThere = new URL(base);
  superuserThere.pathname = `/${names.destination_map}`;
  const there = connectPostgres(superuserThere.toString(), { max: 1 });
  try {
    for (const statement of inDatabase.split(';').map((s) => s.trim().replace(/^--.*$/gm, '').trim()).filter(Boolean)) await there.exec(statement);
  } finally {
    await there.close();
  }
  const publisher = url('dm_publisher', 'change-me-publisher');

  // Started before the first publish: it waits, and says why.
  replica = await startServer('node', ['--database-url', url('dm_replica', 'change-me-replica'), '--data-dir', join(dir, 'replica')],
    60_000, {}, /"msg":"listening"/);
  const waiting = await waitFor(replica, 'the replica says it may not create the store', (b) => typeof b.database?.error === 'string');
  assert.equal(waiting.status, 'loading');
  assert.match(waiting.database.error, /may not create it .*run publish once with the role that owns the database/);

  const first = await runToExit('node', ['publish', '--database-url', publisher, DEMO_BUNDLE_PATH, '--sessions', DEMO_SESSIONS_PATH]);
  assert.equal(first.code, 0, first.stderr);
  const served = await waitFor(replica, 'the replica serves the first version', (b) => b.version === 1);
  assert.equal(served.database.error, null);
  const saved = await fetch(`${replica.base}/events/a8e53f5d-23b9-5801-9a77-63ddafe3fbd1`, { headers: { authorization: 'Bearer demo-session-token' } });
  assert.equal((await saved.json()).is_saved, true, 'the replica reads the sessions the publisher loaded');

  // A later version is a new schema: the default privileges let the replica read it too.
  const edited = JSON.parse(await readFile(DEMO_BUNDLE_PATH, 'utf8'));
  edited.markers[0].name = 'Edited by the publisher role';
  await writeFile(join(dir, 'edited.json'), JSON.stringify(edited));
  assert.equal((await runToExit('node', ['publish', '--database-url', publisher, join(dir, 'edited.json')])).code, 0);
  const second = await waitFor(replica, 'the replica follows the second version', (b) => b.version === 2);
  assert.equal(second.behind, false);
  assert.equal((await (await fetch(`${replica.base}/markers/${edited.markers[0].id}`)).json()).name, 'Edited by the publisher role');
  assert.doesNotMatch(replica.output(), /permission denied for (table|schema) (?!public)/, 'no read was refused');
});
