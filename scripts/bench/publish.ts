/**
 * Publishing, measured from outside, on Node. Two measurements, each a function scripts/bench.ts calls (and
 * this file's command line runs):
 *
 * - `measurePublishUnderLoad`: the service serves a bundle (the demo) while autocannon, in a process of its own
 *   (scripts/bench/run-load.ts), sends content and event requests; first a run with no publish (the
 *   baseline), then a run while `publishes` edited bundles are published one after another with SIGHUP. Reports
 *   failed requests, p99 with and without publishes (and their ratio), the time from each SIGHUP to the new
 *   version served, the slowest /healthz answer in each run, and the first load (start to served with an empty
 *   data directory, and the peak RSS then: three starts before the load, not pinned, as no load runs then).
 * - `measureLargePublish`: the first load of a large bundle (1M events) into an empty data directory, start to
 *   served and the peak RSS (VmHWM of the service process, its publisher worker thread included), then a few
 *   SIGHUP publishes with one event title edited, each timed to the new version served. Every wait is bounded;
 *   one that runs out is reported (null), not thrown.
 *
 *   node scripts/bench/publish.ts [--bundle data/demo-bundle.json] [--duration 10] [--connections 16] [--publishes 10]
 *     [--large-bundle .bench/large-bundle.json] [--large-publishes 2] [--out PATH]
 *
 * Prints one JSON line ({ underLoad, large }); with --out, also writes the markdown tables there. Servers run on
 * core 0 and the load generator on core 1 when taskset exists and there are 2+ cores; the first loads and the large
 * bundle's run have no load generator beside them and are not pinned. Only 127.0.0.1 is loaded.
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { progress, runMain } from '../harness/cli.ts';
import { decodedBody, get, hitRate, readCacheCounters, waitFor200 } from '../harness/http.ts';
import { canPin, LOAD_CPU, ROOT, SERVER_CPU, shownPath } from '../harness/machine.ts';
import { readRss } from '../harness/process-stats.ts';
import { readContentLoaded, serviceCommand } from '../harness/service.ts';
import { collectTail, hasExited, pickPort, spawnTracked, stopChild } from '../harness/spawn.ts';
import { median, percentile, round } from '../harness/stats.ts';
import { firstEventTitle, singleEventTitleEnds } from './bundle-bytes.ts';
import { BROWSER_ACCEPT_ENCODING } from './distinct-queries.ts';
import type { LoadResult } from './run-load.ts';
import { renderLargePublish, renderPublishUnderLoad } from './report.ts';
import type { ChangeFeedMeasure, Download, LargePublish, PublishRun, PublishUnderLoad } from './results.ts';

const LOAD_SCRIPT = join(ROOT, 'scripts/bench/run-load.ts');

/** Where servers and the load generator run: core 0 and core 1, or unpinned. */
export interface Cores { server: string | null; load: string | null }

/** No pinning: for runs with no load generator beside the service. */
const UNPINNED: Cores = { server: null, load: null };

// ---------------------------------------------------------------------------------------------------------------
// HTTP, processes

/** One GET of `path` on 127.0.0.1:`port` on a fresh connection: status, body text, and ms from the call to the end of the body. */
async function getPath(port: number, path: string, timeoutMs: number): Promise<{ status: number; body: string; ms: number }> {
  const answer = await get(`http://127.0.0.1:${port}${path}`, { timeoutMs });
  return { status: answer.status, body: answer.body.toString('utf8'), ms: answer.ms };
}

/** What /readyz says (the part used here). */
interface Readiness {
  status?: string;
  version?: number;
  last_publish?: { at: string; outcome: string; ms: number; error: string | null; problems: unknown[]; problem_count: number } | null;
}

/** VmHWM (peak resident set) of a process in MiB; null when /proc cannot tell. */
const peakRssMb = (pid: number | undefined) => readRss(pid).peakMb;

/** A started service. */
interface Service { child: ChildProcess; port: number; began: number; stderr(): string }

/** Spawns the service on Node (`npm start`'s command) on a free port of 127.0.0.1. */
async function spawnService(cores: Cores, bundle: string, dataDir: string, logLevel: string | null, logFile?: string): Promise<Service> {
  const port = await pickPort();
  const began = performance.now();
  const child = spawnTracked(serviceCommand('node', port, ['--bundle', bundle, '--data-dir', dataDir, ...(logLevel ? ['--log-level', logLevel] : [])]),
    { cpu: cores.server, stdoutFile: logFile });
  child.stdout?.resume();
  return { child, port, began, stderr: collectTail(child.stderr) };
}

/**
 * Polls /readyz until it answers 200: ms from spawn, or null when `timeoutMs` ran out first (the service is
 * left running). Throws when the service exits.
 */
function waitServed(service: Service, timeoutMs: number, pollMs: number): Promise<number | null> {
  return waitFor200(`http://127.0.0.1:${service.port}/readyz`, { child: service.child, since: service.began, timeoutMs, pollMs, output: service.stderr });
}

/** Reads /readyz (200 or 503). */
async function readyz(port: number, timeoutMs: number): Promise<Readiness> {
  const r = await getPath(port, '/readyz', timeoutMs);
  if (r.status !== 200 && r.status !== 503) throw new Error(`/readyz answered ${r.status}: ${r.body.slice(0, 300)}`);
  return JSON.parse(r.body) as Readiness;
}

/**
 * Sends SIGHUP and polls /readyz every `pollMs` (a fresh connection each time) until the version changes: ms from
 * the signal and the service's own `last_publish.ms`, or ms null when `timeoutMs` ran out. Throws when the publish
 * was refused, failed or changed nothing, or the service exited.
 */
async function publishAndWait(service: Service, timeoutMs: number, pollMs: number): Promise<{ ms: number | null; publishMs: number | null }> {
  const before = await readyz(service.port, 30_000);
  const sent = performance.now();
  service.child.kill('SIGHUP');
  const deadline = sent + timeoutMs;
  let lastError: Error | null = null;
  while (performance.now() < deadline) {
    if (hasExited(service.child)) throw new Error(`the service exited (${service.child.exitCode ?? service.child.signalCode}) during a publish:\n${service.stderr().slice(-2000)}`);
    // A poll may wait while the serving thread is busy: that time counts, but never past the deadline. A poll that
    // fails is tried again (the process is checked above); only a run of failures until the deadline is reported.
    const r = await readyz(service.port, Math.max(1000, deadline - performance.now())).catch((err: Error) => {
      lastError = err;
      return null;
    });
    if (r === null) {
      await sleep(pollMs);
      continue;
    }
    lastError = null;
    if (r.version !== undefined && r.version !== before.version) {
      return { ms: Math.round(performance.now() - sent), publishMs: r.last_publish?.ms ?? null };
    }
    const last = r.last_publish;
    if (last && last.at !== before.last_publish?.at && last.outcome !== 'published') {
      throw new Error(`the publish after SIGHUP was ${last.outcome}: ${last.error ?? JSON.stringify(last.problems).slice(0, 500)}`);
    }
    await sleep(pollMs);
  }
  if (lastError) throw new Error(`/readyz did not answer until the publish's deadline: ${(lastError as Error).message}`);
  return { ms: null, publishMs: null };
}

/** Checks that the service answers `path` with `field` equal to `expected` (the edit was published). */
async function checkServed(port: number, path: string, field: string, expected: string): Promise<void> {
  const r = await getPath(port, path, 60_000);
  const got = r.status === 200 ? (JSON.parse(r.body) as Record<string, unknown>)[field] : undefined;
  if (got !== expected) throw new Error(`after the publish ${path} answered ${r.status} with ${field} ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
}

/**
 * Probes /healthz one request at a time, each on a fresh connection (a kept-alive one can be closed by the server
 * just as a request is sent on it, after a long pause of its serving thread), until stopped.
 */
function probeHealth(port: number, intervalMs: number): { stop(): Promise<PublishRun['healthz']> } {
  const times: number[] = [];
  let failed = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const r = await getPath(port, '/healthz', 60_000);
        if (r.status === 200) times.push(r.ms);
        else failed++;
      } catch {
        failed++;
      }
      await sleep(intervalMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const at = (q: number) => (times.length ? round(percentile(times, q), 1) : 0);
      return { probes: times.length + failed, slowestMs: at(1), p99Ms: at(0.99), failed, intervalMs };
    },
  };
}

/** A load run in its own process: `measuring` resolves when the measured run begins; `halt` ends it early. */
interface LoadRun { measuring: Promise<void>; done: Promise<LoadResult>; halt(): void }

/** Starts scripts/bench/run-load.ts on the load core. */
function startLoad(cores: Cores, port: number, paths: string[], connections: number, durationS: number, warmupS: number): LoadRun {
  const child = spawnTracked([process.execPath, LOAD_SCRIPT, '--url', `http://127.0.0.1:${port}`, ...paths.flatMap((p) => ['--path', p]),
    '--connections', String(connections), '--duration', String(durationS), '--warmup', String(warmupS)], { cpu: cores.load });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => (out += d));
  let onMeasuring: () => void = () => {};
  const measuring = new Promise<void>((resolve) => (onMeasuring = resolve));
  child.stderr?.on('data', (d) => {
    err += d;
    if (err.includes('measuring\n')) onMeasuring();
  });
  const budgetMs = (warmupS + durationS) * 1000 + 60_000;
  const done = new Promise<LoadResult>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), budgetMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      onMeasuring();
      if (code !== 0) return reject(new Error(`the load generator exited with ${code ?? signal}: ${err.trim().slice(-1500)}`));
      try {
        resolve(JSON.parse(out) as LoadResult);
      } catch {
        reject(new Error(`the load generator printed no result: ${out.slice(0, 500)} ${err.slice(0, 500)}`));
      }
    });
  });
  // Keeps an unawaited rejection from ending the process before the caller awaits `done`.
  done.catch(() => {});
  return { measuring, done, halt: () => { if (!hasExited(child)) child.kill('SIGUSR2'); } };
}

/** Empties `workDir` and copies `bundle` into it, as the file publishes edit: its path. */
async function copyBundle(workDir: string, bundle: string): Promise<string> {
  await rm(workDir, { recursive: true, force: true });
  await mkdir(workDir, { recursive: true });
  const bundlePath = join(workDir, 'bundle.json');
  copyFileSync(bundle, bundlePath);
  return bundlePath;
}

// ---------------------------------------------------------------------------------------------------------------
// Publishing under load

/** How to measure publishing under load. */
export interface UnderLoadOptions {
  bundle: string;
  /** A fresh directory for the bundle copy and the data directory (removed afterwards). */
  workDir: string;
  /** Seconds of the run without publishes. */
  durationS: number;
  warmupS: number;
  connections: number;
  publishes: number;
  logLevel: string;
  cores: Cores;
  /** The service's stdout. */
  logFile?: string;
  say?: (text: string) => void;
}

/** The demo-bundle slice read here. */
interface SmallBundle { maps: { id: string; enabled: boolean }[]; markers: { id: string; map_id: string; name: string }[] }

/** Starts of the demo measured one after another, each into an empty data directory. */
const FIRST_LOADS = 3;

/**
 * The demo's first load: spawn to served with an empty data directory, FIRST_LOADS times (the median is reported,
 * every run beside it). No load runs then, so the service is not pinned: it has every core, as deployed.
 */
async function measureFirstLoads(o: UnderLoadOptions, bundlePath: string, say: (text: string) => void): Promise<PublishUnderLoad['firstLoad']> {
  const runsMs: number[] = [];
  let peak: number | null = null;
  for (let i = 1; i <= FIRST_LOADS; i++) {
    const dataDir = join(o.workDir, `first-load-${i}`);
    const service = await spawnService(UNPINNED, bundlePath, dataDir, o.logLevel);
    try {
      const ms = await waitServed(service, 120_000, 20);
      if (ms === null) throw new Error(`the service did not serve ${o.bundle} within 120 s`);
      runsMs.push(ms);
      const rss = peakRssMb(service.child.pid);
      if (rss !== null) peak = Math.max(peak ?? 0, rss);
    } finally {
      await stopChild(service.child, 30_000);
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  say(`publish: first loads ${runsMs.join(', ')} ms`);
  return { ms: Math.round(median(runsMs)), runsMs, peakRssMb: peak };
}

/** Publishing under load: see the file's opening comment. */
export async function measurePublishUnderLoad(o: UnderLoadOptions): Promise<PublishUnderLoad> {
  const say = o.say ?? (() => {});
  const bundlePath = await copyBundle(o.workDir, o.bundle);
  const original = JSON.parse(await readFile(bundlePath, 'utf8')) as SmallBundle;
  const map = original.maps.find((m) => m.enabled)?.id;
  const marker = original.markers.find((m) => m.map_id === map);
  if (!map || !marker) throw new Error(`${o.bundle} has no enabled map with a marker`);
  const firstLoad = await measureFirstLoads(o, bundlePath, say);
  const service = await spawnService(o.cores, bundlePath, join(o.workDir, 'data'), o.logLevel, o.logFile);
  let load: LoadRun | null = null;
  let probe: ReturnType<typeof probeHealth> | null = null;
  try {
    if (await waitServed(service, 120_000, 20) === null) throw new Error(`the service did not serve ${o.bundle} within 120 s`);
    const paths = [`/maps/${map}?info=true&markers=true`, `/markers/${marker.id}`, `/places-of-interest/map/${map}`,
      `/events?map_id=${map}&limit=50`, `/events?map_id=${map}&near=38.7075,-9.1364&radius_m=5000&limit=20`];
    const healthEveryMs = 10;

    say(`publish: ${o.warmupS} s warm-up and ${o.durationS} s without publishes`);
    load = startLoad(o.cores, service.port, paths, o.connections, o.durationS, o.warmupS);
    await load.measuring;
    probe = probeHealth(service.port, healthEveryMs);
    const baselineLoad = await load.done;
    const baseline: PublishRun = { load: baselineLoad, healthz: await probe.stop() };
    probe = null;

    say(`publish: ${o.publishes} SIGHUP publishes under load`);
    // The run is bounded by the publishes' own bounds; it normally stops right after the last one.
    const publishTimeoutMs = 60_000;
    load = startLoad(o.cores, service.port, paths, o.connections, Math.ceil((o.publishes * publishTimeoutMs) / 1000) + 10, 0);
    await load.measuring;
    probe = probeHealth(service.port, healthEveryMs);
    const sighupToServedMs: number[] = [];
    const publishMs: (number | null)[] = [];
    try {
      for (let i = 1; i <= o.publishes; i++) {
        const edited = structuredClone(original);
        const name = `${marker.name} (edit ${i})`;
        edited.markers.find((m) => m.id === marker.id)!.name = name;
        await writeFile(`${bundlePath}.tmp`, JSON.stringify(edited));
        await rename(`${bundlePath}.tmp`, bundlePath);
        const r = await publishAndWait(service, publishTimeoutMs, 5);
        if (r.ms === null) throw new Error(`publish ${i} was not served within ${publishTimeoutMs / 1000} s`);
        sighupToServedMs.push(r.ms);
        publishMs.push(r.publishMs);
        await checkServed(service.port, `/markers/${marker.id}`, 'name', name);
      }
    } finally {
      load.halt();
    }
    const duringHealth = await probe.stop();
    probe = null;
    const duringLoad = await load.done;
    load = null;
    const during: PublishRun = { load: duringLoad, healthz: duringHealth };
    const failed = (l: LoadResult) => l.non2xx + l.errors + l.timeouts;
    return {
      bundle: shownPath(o.bundle), runtime: 'node', connections: o.connections, paths, logLevel: o.logLevel, warmupS: o.warmupS,
      baselineS: o.durationS, publishes: o.publishes, edit: `marker \`${marker.id}\` renamed ("${marker.name} (edit n)")`,
      baseline, during, failed: { baseline: failed(baselineLoad), during: failed(duringLoad) },
      p99Ratio: Math.round((duringLoad.latencyMs.p99 / Math.max(1, baselineLoad.latencyMs.p99)) * 100) / 100,
      sighupToServedMs, sighupMedianMs: Math.round(median(sighupToServedMs)), sighupMaxMs: Math.max(...sighupToServedMs), publishMs,
      firstLoad, peakRssMb: peakRssMb(service.child.pid),
    };
  } finally {
    load?.halt();
    await load?.done.catch(() => {});
    await probe?.stop();
    await stopChild(service.child, 30_000);
    await rm(o.workDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The large bundle: first load and SIGHUP

/** How to measure the large bundle's first load and publishes. */
export interface LargeOptions {
  bundle: string;
  /** A directory for the bundle copy and the data directory (emptied first, removed afterwards). */
  workDir: string;
  publishes: number;
  /** The longest wait for the first load (it is reported as not served beyond it). */
  firstLoadTimeoutMs: number;
  /** The longest wait for each publish. */
  publishTimeoutMs: number;
  /** The service's --log-level (null: its default, which logs "content loaded" with its source and ms). */
  logLevel: string | null;
  /** The service's stdout (read for its "content loaded" line). */
  logFile: string;
  /** The map's events (every occurrence), when counted: 1% of them are edited for the change feed's row. */
  events?: number | null;
  say?: (text: string) => void;
}

/** The large bundle's first load and SIGHUP publishes: see the file's opening comment. */
export async function measureLargePublish(o: LargeOptions): Promise<LargePublish> {
  const say = o.say ?? (() => {});
  const bundlePath = await copyBundle(o.workDir, o.bundle);
  const bundleBytes = statSync(bundlePath).size;
  say(`publish, large: first load of ${shownPath(o.bundle)} into an empty data directory (up to ${Math.round(o.firstLoadTimeoutMs / 1000)} s)`);
  // No load generator runs here (only the light /healthz probe), so the service has every core, as deployed.
  const service = await spawnService(UNPINNED, bundlePath, join(o.workDir, 'data'), o.logLevel, o.logFile);
  try {
    const ms = await waitServed(service, o.firstLoadTimeoutMs, 100);
    const firstLoad = { ms, timeoutMs: o.firstLoadTimeoutMs, peakRssMb: peakRssMb(service.child.pid), logged: readContentLoaded(o.logFile) };
    say(`publish, large: first load ${ms === null ? 'not served in time' : `${ms} ms`}, peak RSS ${firstLoad.peakRssMb} MB`);
    const result: LargePublish = {
      bundle: shownPath(o.bundle), bundleBytes, firstLoad, edit: 'the first event\'s title edited', publishTimeoutMs: o.publishTimeoutMs,
      publishes: [], sighupMedianMs: null, sighupMaxMs: null, healthz: null, peakRssMb: null, skipped: null,
    };
    if (ms === null) {
      result.skipped = `the first load was not served within ${Math.round(o.firstLoadTimeoutMs / 1000)} s`;
      result.peakRssMb = firstLoad.peakRssMb;
      return result;
    }
    const bytes = await readFile(bundlePath);
    const event = firstEventTitle(bytes);
    result.edit = `the title of event \`${event.id}\` edited ("${event.title} (edit n)")`;
    const probe = probeHealth(service.port, 10);
    try {
      for (let i = 1; i <= o.publishes; i++) {
        const suffix = ` (edit ${i})`;
        await writeFile(`${bundlePath}.tmp`, [bytes.subarray(0, event.end), Buffer.from(suffix), bytes.subarray(event.end)]);
        await rename(`${bundlePath}.tmp`, bundlePath);
        say(`publish, large: SIGHUP ${i} of ${o.publishes} (up to ${Math.round(o.publishTimeoutMs / 1000)} s)`);
        const r = await publishAndWait(service, o.publishTimeoutMs, 20);
        result.publishes.push({ sighupToServedMs: r.ms, publishMs: r.publishMs });
        if (r.ms === null) {
          // The publish still runs: another SIGHUP now would only queue behind it.
          result.skipped = `publish ${i} was not served within ${Math.round(o.publishTimeoutMs / 1000)} s; no further publish was sent`;
          break;
        }
        say(`publish, large: SIGHUP ${i} to served ${r.ms} ms (the service's publish ${r.publishMs} ms)`);
        await checkServed(service.port, `/events/${event.id}`, 'title', event.title + suffix);
      }
    } finally {
      result.healthz = await probe.stop();
    }
    const served = result.publishes.map((p) => p.sighupToServedMs).filter((x): x is number => x !== null);
    if (served.length) {
      result.sighupMedianMs = Math.round(median(served));
      result.sighupMaxMs = Math.max(...served);
    }
    if (result.skipped === null) {
      result.feed = await measureChangeFeed(service, bundlePath, event.id, o, say);
    }
    result.peakRssMb = peakRssMb(service.child.pid);
    return result;
  } finally {
    await stopChild(service.child, 60_000);
    await rm(o.workDir, { recursive: true, force: true });
  }
}

/** The feed's page size: its largest, as a client catching up asks. */
const FEED_LIMIT = 1000;

/**
 * One more publish, editing the titles of 1% of the map's events (one single event in so many, spread over the
 * bundle), then what a client standing at the token before it downloads to catch up: every page of the change feed,
 * against the export it would otherwise fetch again. Both are asked first after the publish (made afresh), with a
 * browser's Accept-Encoding, one request at a time on fresh connections, each page as soon as the one before ended.
 * The feed must list exactly the events edited.
 */
async function measureChangeFeed(service: Service, bundlePath: string, eventId: string, o: LargeOptions,
  say: (text: string) => void): Promise<ChangeFeedMeasure> {
  const base = `http://127.0.0.1:${service.port}`;
  const one = await getPath(service.port, `/events/${eventId}`, 60_000);
  const mapId = (JSON.parse(one.body) as { map_id: string }).map_id;
  const details = await get(`${base}/maps/${mapId}/details`, { timeoutMs: 60_000 });
  const since = details.headers['x-change-token'];
  if (typeof since !== 'string') throw new Error(`/maps/${mapId}/details carries no X-Change-Token`);
  const bytes = await readFile(bundlePath);
  const singles = singleEventTitleEnds(bytes, 1).singles;
  const target = Math.round((o.events ?? singles) / 100);
  const { ends } = singleEventTitleEnds(bytes, Math.max(1, Math.floor(singles / target)));
  const edited = ends.slice(0, target);
  const parts: Buffer[] = [];
  let at = 0;
  for (const end of edited) {
    parts.push(bytes.subarray(at, end), Buffer.from(' (changed)'));
    at = end;
  }
  parts.push(bytes.subarray(at));
  await writeFile(`${bundlePath}.tmp`, parts);
  await rename(`${bundlePath}.tmp`, bundlePath);
  say(`publish, large: SIGHUP with ${edited.length} event titles edited, for the change feed (up to ${Math.round(o.publishTimeoutMs / 1000)} s)`);
  const published = await publishAndWait(service, o.publishTimeoutMs, 20);
  if (published.ms === null) throw new Error(`the change feed's publish was not served within ${Math.round(o.publishTimeoutMs / 1000)} s`);

  const headers = { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
  /** Downloads `paths` one after another (the next from the answer before), counting bytes and the cache's hits. */
  const download = async (first: string, next: (body: Buffer) => string | null): Promise<{ download: Download; bodies: Buffer[] }> => {
    const before = await readCacheCounters(base);
    const began = performance.now();
    const bodies: Buffer[] = [];
    let wireBytes = 0;
    let encoding: string | null | undefined;
    for (let path: string | null = first; path !== null;) {
      const answer = await get(base + path, { headers, timeoutMs: 600_000 });
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.body.toString('utf8', 0, 300)}`);
      const coding = (answer.headers['content-encoding'] as string | undefined) ?? null;
      encoding ??= coding;
      wireBytes += answer.body.length;
      const body = decodedBody(answer.body, coding);
      if (!body) throw new Error(`${path} came back ${coding}-encoded, which the benchmark cannot read`);
      bodies.push(body);
      path = next(body);
    }
    const ms = Math.round(performance.now() - began);
    const cacheHitRate = hitRate(before, await readCacheCounters(base));
    return { bodies, download: { requests: bodies.length, ms, wireBytes, bytes: bodies.reduce((n, b) => n + b.length, 0), encoding: encoding ?? null, cacheHitRate } };
  };

  const feedPath = (cursor: string | null) => `/maps/${mapId}/changes?since=${encodeURIComponent(since)}&limit=${FEED_LIMIT}` +
    (cursor ? `&cursor=${encodeURIComponent(cursor)}` : '');
  const pages: { changes: { op: string; type: string; id: string }[]; total: number; next_cursor: string | null }[] = [];
  const feed = await download(feedPath(null), (body) => {
    const page = JSON.parse(body.toString('utf8')) as (typeof pages)[number];
    pages.push(page);
    return page.next_cursor ? feedPath(page.next_cursor) : null;
  });
  const changes = pages.flatMap((p) => p.changes);
  const wrong = changes.filter((c) => c.op !== 'upsert' || c.type !== 'event');
  if (changes.length !== edited.length || pages[0].total !== edited.length || wrong.length > 0 || new Set(changes.map((c) => c.id)).size !== edited.length) {
    throw new Error(`the feed listed ${changes.length} changes (total ${pages[0].total}; ${wrong.length} not an event's upsert) for ${edited.length} events edited`);
  }
  say(`publish, large: the feed, ${pages.length} pages of ${changes.length} changes: ${feed.download.wireBytes} bytes in ${feed.download.ms} ms`);
  const whole = await download(`/maps/${mapId}/export`, () => null);
  say(`publish, large: the export: ${whole.download.wireBytes} bytes (${whole.download.bytes} of JSON) in ${whole.download.ms} ms`);
  return {
    events: o.events ?? null, edited: edited.length, publishMs: published.ms, changes: changes.length, limit: FEED_LIMIT,
    feed: feed.download, export: whole.download,
    wireRatio: round(feed.download.wireBytes / whole.download.wireBytes, 4), msRatio: round(feed.download.ms / whole.download.ms, 4),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Command line

if (import.meta.main) {
  await runMain('publish', async () => {
    const { values } = parseArgs({ strict: true, options: {
      bundle: { type: 'string', default: join(ROOT, 'data/demo-bundle.json') },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '16' },
      publishes: { type: 'string', default: '10' },
      'large-bundle': { type: 'string' },
      'large-publishes': { type: 'string', default: '2' },
      out: { type: 'string' },
    } });
    const cores: Cores = canPin() ? { server: SERVER_CPU, load: LOAD_CPU } : UNPINNED;
    const dir = await mkdtemp(join(tmpdir(), 'dmcs-bench-publish-'));
    const say = progress('publish');
    try {
      const underLoad = await measurePublishUnderLoad({ bundle: values.bundle!, workDir: join(dir, 'under-load'), durationS: Number(values.duration),
        warmupS: 1, connections: Number(values.connections), publishes: Number(values.publishes), logLevel: 'warn', cores, say });
      const large = values['large-bundle'] ? await measureLargePublish({ bundle: values['large-bundle'], workDir: join(dir, 'large'),
        publishes: Number(values['large-publishes']), firstLoadTimeoutMs: 600_000, publishTimeoutMs: 600_000, logLevel: null,
        logFile: join(dir, 'large.log'), say }) : null;
      console.log(JSON.stringify({ cores, underLoad, large }));
      if (values.out) {
        await writeFile(values.out, [renderPublishUnderLoad(underLoad), ...(large ? ['', renderLargePublish(large)] : []), ''].join('\n'));
      }
      return 0;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
