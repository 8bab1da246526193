/**
 * The benchmark, in one go on one machine: every runtime's service against a bare server of the same
 * runtime serving byte-identical prebuilt bodies (the ceiling), events on a 1M-event dataset, the in-process
 * filters against PGlite SQL, start-up against PGlite alone opening the same snapshot, RSS, and publishing on Node
 * (under load on the demo; the 1M-event first load into an empty data directory and SIGHUP; scripts/bench/publish.ts),
 * and a fleet of replicas over a real PostgreSQL (publish to every replica serving, the database's load, the
 * 1M-event start from PostgreSQL and from the model cache; scripts/bench/fleet.ts).
 * Writes docs/benchmarks.md (a targets table, detail tables and the raw JSON).
 *
 *   npm run bench                                    # everything: 25-45 minutes, more when the 1M snapshot is built
 *   node scripts/bench.ts --quick --out /tmp/b.md    # smoke check: short runs, no large dataset
 *   node scripts/bench.ts --only publish --out /tmp/p.md   # publishing alone (demo under load, then 1M: ~5-10 minutes)
 *   node scripts/bench.ts --quick --large --only large --rows encoded,cursor,misses --runtimes node --out /tmp/r.md
 *                                                    # the rows users produce alone, on Node
 *   node scripts/bench.ts --render docs/benchmarks.md   # the report written again from its own raw results, by
 *                                                    # this commit's renderer (nothing measured again)
 *
 * Flags: --quick, --duration S (8), --connections N (32), --runtimes node,bun,deno, --skip-large, --out PATH,
 * --only PHASES (comma-separated: demo, large, filters, publish, fleet), --large (with --quick: run the 1M-event phases
 * too), --large-bundle PATH (another large bundle), --skip-filters, --service-log-level LEVEL (passed to the
 * service), --keep-logs (keep the services' access logs in .bench/logs), --rows GROUPS (the large phase's rows,
 * comma-separated: cached, distinct, fields, workers, encoded, cursor, misses, calendar, hours, tiles, ogc; all unless
 * given), --cursor-filters N (distinct
 * filters walked to page 200 for the cursor rows: 1000, 200 with --quick).
 * Exits 0 when everything ran (a missed target is reported in the document, not an error) and 1 when
 * something broke: a non-2xx answer, a server that did not start, a body that did not match.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { Agent } from 'node:http';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { RUNTIMES, startServer } from '../tests/helpers/server.ts';
import { printUsage, progress, runMain } from './harness/cli.ts';
import { decodedBody, get as getWith, hitRate, readCacheCounters, waitFor200 } from './harness/http.ts';
import { isInterference, loadGate } from './harness/judge.ts';
import { canPin, describeMachine, hasTaskset, LOAD_CPU, readCommit, readLoadAverage, readVersions, ROOT, SERVER_CPU, shownPath } from './harness/machine.ts';
import { cpuSeconds, readExe, readRss } from './harness/process-stats.ts';
import { readContentLoaded, runtimeCommand, serviceCommand } from './harness/service.ts';
import { collectTail, pickPort, spawnTracked, stopChild, waitExit } from './harness/spawn.ts';
import { mean, median, percent, round } from './harness/stats.ts';
import { measureLargePublish, measurePublishUnderLoad } from './bench/publish.ts';
import { measureFleet } from './bench/fleet.ts';
import {
  BROWSER_ACCEPT_ENCODING, CALENDAR_WINDOW_DAYS, calendarPaths, CURSOR_PAGE_LIMIT, DISTINCT_QUERIES, distinctPaths, ENCODED_SEED, FIELDS_SEED, missPaths, openAtPaths, tileMix, tileWarmup, ogcBoxPaths,
  windowFilters, type DistinctKind,
} from './bench/distinct-queries.ts';
import { EVENTS_FROM_MS, EVENTS_TO_MS, largeId } from './bench/large-data.ts';
import { postgisTiles } from './bench/postgis-tiles.ts';
import { MATCH_CACHE_SIZE } from '../src/content/model/event-search.ts';
import { MAX_FEED_EVENTS } from '../src/content/model/event-calendar.ts';
import { runLoadPinned, type LoadOptions, type LoadResult } from './bench/run-load.ts';
import { runWrk, wrkAvailable, WRK } from './bench/run-wrk.ts';
import { evaluateTargets, renderReport } from './bench/report.ts';
import type {
  BenchOptions, BenchResult, EventsRun, FiltersPhase, FleetPhase, LargePhase, LargePublishPhase, LoadGenerator, Machine, PublishPhase,
  RequestRun, Rss, RuntimeDemo, RuntimeLarge, RuntimeName, WorkersRun,
} from './bench/results.ts';

const BENCH_DIR = join(ROOT, '.bench');
const DEMO_BUNDLE = join(ROOT, 'data/demo-bundle.json');
const DEFAULT_LARGE_BUNDLE = join(BENCH_DIR, 'large-bundle.json');
const MAKE_LARGE = join(ROOT, 'scripts/bench/make-large.ts');
const FILTERS = join(ROOT, 'scripts/bench/filters.ts');
const OPEN_SNAPSHOT = join(ROOT, 'scripts/bench/open-snapshot.ts');
const CEILINGS: Record<RuntimeName, string> = {
  node: join(ROOT, 'scripts/bench/ceiling-node.ts'),
  bun: join(ROOT, 'scripts/bench/ceiling-bun.ts'),
  deno: join(ROOT, 'scripts/bench/ceiling-deno.ts'),
};
const ALL_RUNTIMES: RuntimeName[] = ['node', 'bun', 'deno'];
/** The phases, in the order they run (--only picks some). */
const ALL_PHASES = ['demo', 'large', 'filters', 'publish', 'fleet'];
/**
 * The large phase's groups of rows (--rows picks some): one URL repeated, distinct questions (and the same asking
 * only a list screen's `fields`), serving threads, and
 * the rows users produce: distinct questions with a browser's Accept-Encoding, cursor pages of distinct filters,
 * real misses of the cached URL; calendar feeds of distinct 30-day windows; open_at on distinct instants.
 */
const ALL_ROWS = ['cached', 'distinct', 'fields', 'workers', 'encoded', 'cursor', 'misses', 'calendar', 'hours', 'tiles', 'ogc'];
/** The fields of the fields rows: what a list screen of events shows. */
const LIST_FIELDS = 'id,title,starts_at,ends_at';
/** The demo's main map and the marker the README names. */
const MAIN_MAP = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const MARKER = 'e5810d23-f0db-5cec-8426-91a6a6cf88c2';
/** Every optional section of GET /maps/:id, all asked for. */
const MAP_SECTIONS = ['info', 'all_categories', 'categories', 'markers', 'paths', 'polygons', 'publisher', 'map_data',
  'contact', 'map_sponsors', 'tag_counts', 'contents'];
/** Every request is sent asking for no content coding, so the ceiling serves the very same bytes. */
const IDENTITY = { 'accept-encoding': 'identity' };

/** Start-up budgets: a demo start, and a large start that may have to build the snapshot first. */
const DEMO_START_TIMEOUT_MS = 120_000;
const LARGE_BUILD_TIMEOUT_MS = 45 * 60_000;
const LARGE_START_TIMEOUT_MS = 10 * 60_000;
/** Publishing: connections and publishes under load; the 1M first load's and each 1M SIGHUP's longest wait, and how many SIGHUPs. */
const PUBLISH_CONNECTIONS = 16;
const PUBLISHES = 10;
const LARGE_FIRST_LOAD_TIMEOUT_MS = 10 * 60_000;
const LARGE_PUBLISH_TIMEOUT_MS = 10 * 60_000;
const LARGE_PUBLISHES = 2;

/** One representative request, and whether its answer depends on the clock (then only its shape is rechecked). */
interface BenchRequest { name: string; path: string; live?: boolean }

/** A prebuilt answer: exactly what the service sent. */
interface SavedAnswer { key: string; status: number; contentType: string; body: Buffer }

// ---------------------------------------------------------------------------------------------------------------
// Options

/** Parses the command line. */
function parseBenchArgs(argv: string[]): BenchOptions & { out: string; largeBundle: string; keepLogs: boolean; skipFilters: boolean;
  rows: string[]; cursorFilters: number } {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      quick: { type: 'boolean' }, duration: { type: 'string' }, connections: { type: 'string' },
      runtimes: { type: 'string' }, 'skip-large': { type: 'boolean' }, out: { type: 'string' },
      'large-bundle': { type: 'string' }, 'service-log-level': { type: 'string' }, 'keep-logs': { type: 'boolean' },
      'skip-filters': { type: 'boolean' }, only: { type: 'string' }, large: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      rows: { type: 'string' }, 'cursor-filters': { type: 'string' },
    },
  });
  // The usage is this file's opening comment.
  if (values.help) printUsage(import.meta.url);
  const quick = values.quick ?? false;
  const positive = (name: string, text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!(n > 0) || !Number.isFinite(n)) throw new Error(`--${name} must be a positive number, not ${text}`);
    return n;
  };
  const runtimes = (values.runtimes ?? ALL_RUNTIMES.join(',')).split(',').map((r) => r.trim()).filter(Boolean);
  for (const r of runtimes) if (!ALL_RUNTIMES.includes(r as RuntimeName)) throw new Error(`unknown runtime ${r}; use node, bun, deno`);
  const phases = (values.only ?? ALL_PHASES.join(',')).split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of phases) if (!ALL_PHASES.includes(p)) throw new Error(`unknown phase ${p}; use ${ALL_PHASES.join(', ')}`);
  if (phases.length === 0) throw new Error('--only needs at least one phase');
  const rows = (values.rows ?? ALL_ROWS.join(',')).split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of rows) if (!ALL_ROWS.includes(p)) throw new Error(`unknown rows ${p}; use ${ALL_ROWS.join(', ')}`);
  if (rows.length === 0) throw new Error('--rows needs at least one group');
  return {
    quick,
    durationS: positive('duration', values.duration, quick ? 1 : 8),
    warmupS: 1,
    connections: Math.round(positive('connections', values.connections, 32)),
    runtimes: runtimes as RuntimeName[],
    skipLarge: (values['skip-large'] ?? false) || (quick && !(values.large ?? false)),
    startupRepeats: 3,
    serviceLogLevel: values['service-log-level'] ?? null,
    phases: ALL_PHASES.filter((p) => phases.includes(p)),
    rows: ALL_ROWS.filter((p) => rows.includes(p)),
    cursorFilters: Math.round(positive('cursor-filters', values['cursor-filters'], quick ? 200 : 1000)),
    out: resolve(values.out ?? join(ROOT, 'docs/benchmarks.md')),
    largeBundle: resolve(values['large-bundle'] ?? DEFAULT_LARGE_BUNDLE),
    keepLogs: values['keep-logs'] ?? false,
    skipFilters: values['skip-filters'] ?? false,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Progress, HTTP, the machine

/** Prints a progress line (stderr, so stdout stays free). */
const say = progress('bench');

/** One GET on 127.0.0.1 with a fresh connection, asking for no content coding. */
function get(url: string, timeoutMs = 60_000) {
  return getWith(url, { headers: IDENTITY, timeoutMs });
}

/** CPU, cores, memory, OS, whether servers and load generators are pinned, and the load average now. */
function describeBenchMachine(): Machine {
  const pinned = canPin();
  return {
    ...describeMachine(), pinned, loadAvgStart: readLoadAverage(), loadAvgEnd: null,
    pinningNote: pinned ? `servers on core ${SERVER_CPU}, load generator on core ${LOAD_CPU} (taskset -c)`
      : hasTaskset() ? 'not pinned: fewer than 2 cores' : 'not pinned: taskset not found',
  };
}

/** Versions of the three runtimes and of the load generators. */
function readBenchVersions(): Record<string, string> {
  return { ...readVersions(), wrk: existsSync(WRK) ? wrkVersion() : 'not installed' };
}

/** wrk's version: `wrk -v` prints it first (`wrk debian/4.1.0-3+b2 [epoll] …`), then its usage, and exits 1. */
function wrkVersion(): string {
  return /^wrk (\S+)/.exec(spawnSync(WRK, ['-v'], { encoding: 'utf8', timeout: 30_000 }).stdout ?? '')?.[1] ?? 'unknown';
}

// ---------------------------------------------------------------------------------------------------------------
// Servers

/** A server started by the benchmark. */
interface Running {
  child: ChildProcess;
  base: string;
  stderr(): string;
  /** Where its stdout (the access log) goes. */
  logFile: string | null;
}

const LOG_DIR = join(BENCH_DIR, 'logs');

/**
 * Polls `url` (every 20 ms, each poll waiting up to 10 s) until it answers 200: ms since `since`. Throws when the
 * process exits, and SIGKILLs it and throws when the time is up.
 */
async function waitServing(url: string, child: ChildProcess, since: number, timeoutMs: number, stderr: () => string): Promise<number> {
  const ms = await waitFor200(url, { child, since, timeoutMs, requestTimeoutMs: 10_000, headers: IDENTITY, output: stderr });
  if (ms !== null) return ms;
  child.kill('SIGKILL');
  throw new Error(`no 200 from ${url} in ${Math.round(timeoutMs / 1000)} s:\n${stderr().slice(-2000)}`);
}

/**
 * Spawns the service (pinned, stdout to a log file) and times it from spawn to the first 200 on `probe`.
 * `extra` are service flags (bundle, data dir).
 */
async function startService(runtime: RuntimeName, extra: string[], probe: string, timeoutMs: number, logName: string,
  logLevel: string | null, cpu: string | null = SERVER_CPU): Promise<{ server: Running; ms: number }> {
  await mkdir(LOG_DIR, { recursive: true });
  const port = await pickPort();
  const logFile = join(LOG_DIR, `${logName}.log`);
  const began = performance.now();
  const child = spawnTracked(serviceCommand(runtime, port, [...extra, ...(logLevel ? ['--log-level', logLevel] : [])]), { cpu, stdoutFile: logFile });
  const stderr = collectTail(child.stderr);
  const base = `http://127.0.0.1:${port}`;
  try {
    const ms = await waitServing(base + probe, child, began, timeoutMs, stderr);
    return { server: { child, base, stderr, logFile }, ms };
  } catch (err) {
    throw new Error(`${runtime} service: ${(err as Error).message} (its stdout is kept in ${logFile})`);
  }
}

/** Starts the ceiling of a runtime over the saved answers in `manifest`. */
async function startCeiling(runtime: RuntimeName, manifest: string, probe: string): Promise<Running> {
  const port = await pickPort();
  const child = spawnTracked([...runtimeCommand(runtime, CEILINGS[runtime]), '--manifest', manifest, '--port', String(port),
    '--host', '127.0.0.1'], { cpu: SERVER_CPU });
  child.stdout?.resume();
  const stderr = collectTail(child.stderr);
  const base = `http://127.0.0.1:${port}`;
  await waitServing(base + probe, child, performance.now(), 60_000, stderr);
  return { child, base, stderr, logFile: null };
}

/** `source` of the service's "content loaded" log line (snapshot or bundle), when it was logged. */
function loadedFrom(logFile: string | null): string | null {
  return readContentLoaded(logFile)?.source ?? null;
}

/** Stops a server (SIGKILL after 15 s) and removes its access log unless asked to keep it. */
async function stopServer(server: Running, keepLogs: boolean): Promise<void> {
  await stopChild(server.child, 15_000);
  if (server.logFile && !keepLogs) await rm(server.logFile, { force: true });
}

/**
 * The newest data snapshot in a data directory: the store's PGlite data directory (`store`, or `pg-*` from earlier
 * versions of the service; opened in place) or, from earlier versions still, a `snapshot-*.tar.gz` tarball (opened
 * into memory).
 */
async function findSnapshot(dir: string): Promise<string> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) =>
    ((n === 'store' || /^pg-[^.]+$/.test(n)) && existsSync(join(dir, n, 'PG_VERSION'))) || (n.startsWith('snapshot-') && n.endsWith('.tar.gz')));
  if (names.length === 0) throw new Error(`no data snapshot (store, pg-* or snapshot-*.tar.gz) in ${dir}: the service did not write one`);
  names.sort((a, b) => statSync(join(dir, b)).mtimeMs - statSync(join(dir, a)).mtimeMs);
  return join(dir, names[0]);
}

// ---------------------------------------------------------------------------------------------------------------
// The demo bundle: representative requests

/** The slice of the demo bundle the request picks read. */
interface DemoBundle {
  maps: { id: string }[];
  markers: unknown[]; paths: unknown[]; polygons: unknown[]; categories: unknown[]; lists: unknown[];
  events: { map_id: string; ends_at: string; poi_ids: string[] }[];
  associations: { poi_id: string; list_id: string | null }[];
}

/** Ids sorted by count (most first), then id, the first `n`. */
function topIds(counts: Map<string, number>, n: number): string[] {
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n).map(([id]) => id);
}

/** The representative content requests, with POI ids picked from the bundle so the answers are not empty. */
function demoRequests(bundle: DemoBundle, nowMs: number): BenchRequest[] {
  if (!bundle.maps.some((m) => m.id === MAIN_MAP)) throw new Error(`the demo bundle has no map ${MAIN_MAP}`);
  const upcoming = new Map<string, number>();
  for (const e of bundle.events) {
    if (e.map_id !== MAIN_MAP || Date.parse(e.ends_at) < nowMs) continue;
    for (const id of e.poi_ids) upcoming.set(id, (upcoming.get(id) ?? 0) + 1);
  }
  const withEvents = topIds(upcoming, 20);
  const universal = new Map<string, number>();
  const anyList = new Map<string, number>();
  for (const a of bundle.associations) {
    const counts = a.list_id === null ? universal : anyList;
    counts.set(a.poi_id, (counts.get(a.poi_id) ?? 0) + 1);
  }
  // POIs with universal associations first; then list-only ones and POIs with events, if fewer than 20 have any.
  const withAssociations = [...new Set([...topIds(universal, 20), ...topIds(anyList, 20), ...withEvents])].slice(0, 20);
  if (withEvents.length < 20) throw new Error(`only ${withEvents.length} POIs of the main map have upcoming events; the demo needs 20`);
  return [
    { name: 'map, every section', path: `/maps/${MAIN_MAP}?${MAP_SECTIONS.map((s) => `${s}=true`).join('&')}` },
    { name: 'POIs as GeoJSON', path: `/places-of-interest/map/${MAIN_MAP}` },
    { name: 'one marker', path: `/markers/${MARKER}` },
    { name: 'category tree with counts', path: `/places-of-interest/items/${MAIN_MAP}?include_counts=true` },
    // No `from`: "now" is the default, as apps call it, so the answer depends on the clock.
    { name: 'upcoming events of 20 POIs', path: `/events/upcoming-by-poi?poi_ids=${withEvents.join(',')}`, live: true },
    { name: 'associations of 20 POIs', path: `/poi-associations?poi_ids=${withAssociations.join(',')}` },
  ];
}

/** Fetches every request from the service (identity coding) and saves status, content-type and body bytes. */
async function saveAnswers(base: string, requests: BenchRequest[], dir: string): Promise<{ manifest: string; answers: SavedAnswer[] }> {
  await mkdir(dir, { recursive: true });
  const answers: SavedAnswer[] = [];
  const entries: { key: string; status: number; contentType: string; file: string }[] = [];
  for (const [i, r] of requests.entries()) {
    const answer = await get(base + r.path);
    const coding = answer.headers['content-encoding'];
    if (answer.status !== 200) throw new Error(`${r.path} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
    if (coding && coding !== 'identity') throw new Error(`${r.path} came back ${coding}-encoded although identity was asked for`);
    const contentType = String(answer.headers['content-type'] ?? '');
    const file = `body-${i}.bin`;
    await writeFile(join(dir, file), answer.body);
    answers.push({ key: r.path, status: answer.status, contentType, body: answer.body });
    entries.push({ key: r.path, status: answer.status, contentType, file });
  }
  const manifest = join(dir, 'manifest.json');
  await writeFile(manifest, JSON.stringify({ entries }, null, 1));
  return { manifest, answers };
}

/** Checks that a server answers each saved request with the same status, content-type, length and bytes. */
async function checkAnswers(base: string, answers: SavedAnswer[], who: string, shapeOnly: Set<string> = new Set()): Promise<void> {
  for (const saved of answers) {
    const got = await get(base + saved.key);
    const problems: string[] = [];
    if (got.status !== saved.status) problems.push(`status ${got.status}, not ${saved.status}`);
    if (String(got.headers['content-type'] ?? '') !== saved.contentType) problems.push(`content-type ${got.headers['content-type']}, not ${saved.contentType}`);
    const length = got.headers['content-length'];
    if (length !== undefined && Number(length) !== got.body.length) problems.push(`content-length ${length} but ${got.body.length} bytes came`);
    if (!shapeOnly.has(saved.key) && !got.body.equals(saved.body)) problems.push(`body of ${got.body.length} bytes differs from the ${saved.body.length} saved`);
    if (problems.length) throw new Error(`mismatched answer from the ${who} for ${saved.key}: ${problems.join('; ')}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Load runs

/** What every phase shares. */
interface Ctx {
  opts: ReturnType<typeof parseBenchArgs>;
  tmp: string;
  notes: string[];
  failures: string[];
  /** Whether Debian's wrk is there for the serving-threads runs (see benchWorkers). */
  wrk: boolean;
  /** PostGIS's tiles, measured once per run (see benchTiles). */
  postgis?: Promise<RuntimeLarge['postgisTiles']>;
}

/**
 * One warm-up plus measured run from the load core against a server process; any non-2xx, error or timeout
 * is a failure. Also records how busy the server's core was during the measured run.
 */
async function measure(ctx: Ctx, url: string, server: ChildProcess, who: string, stderr?: () => string,
  extra: Partial<LoadOptions> = {}, onMeasuring?: () => void, loadCpu: string | null = LOAD_CPU,
  generator: LoadGenerator = 'autocannon'): Promise<LoadResult> {
  const o: LoadOptions = { url, durationS: ctx.opts.durationS, warmupS: ctx.opts.warmupS, connections: ctx.opts.connections, headers: IDENTITY,
    ...(server.pid !== undefined ? { drainPid: server.pid } : {}), ...extra };
  let start: { cpu: number | null; at: number } | null = null;
  const r = await (generator === 'wrk' ? runWrk : runLoadPinned)(o, loadCpu, () => {
    start = { cpu: cpuSeconds(server.pid), at: performance.now() };
    onMeasuring?.();
  });
  const began = start as { cpu: number | null; at: number } | null;
  const cpuEnd = cpuSeconds(server.pid);
  if (began?.cpu != null && cpuEnd !== null) r.serverCpuPct = Math.round(((cpuEnd - began.cpu) / ((performance.now() - began.at) / 1000)) * 100);
  if (r.requests === 0 && r.errors === 0 && r.timeouts === 0) {
    // Slow, not broken: nothing finished within the run (each request takes longer than the run over the connections).
    ctx.notes.push(`the ${who}: no request to ${url.replace(/^http:\/\/[^/]+/, '')} completed within the ${ctx.opts.durationS} s run`);
  } else if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0 || r.requests === 0) {
    const state = server.exitCode !== null || server.signalCode !== null
      ? `; the ${who} process has exited (${server.exitCode ?? server.signalCode}): ${stderr?.().slice(-1500) ?? ''}` : '';
    throw new Error(`the ${who} at ${url}: ${r.requests} requests, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts; ` +
      `status codes ${JSON.stringify(r.statusCodes)}${state}`);
  }
  return r;
}

/** Checks that a load run received at least the full body per response (a compressed or cut body would not). */
function checkBytes(r: LoadResult, bodyBytes: number, who: string, path: string): void {
  if (r.requests > 0 && r.bytesPerResponse < bodyBytes) {
    throw new Error(`mismatched body size from the ${who} for ${path} under load: ${r.bytesPerResponse} bytes per response, the body alone is ${bodyBytes}`);
  }
}

/**
 * Spawns open-snapshot.ts and times it from spawn to exit (and to its printed line); with the RSS it reports.
 * A data directory is opened as a fresh copy (made before the clock starts): it exits without closing PGlite.
 */
async function timeSnapshotOpen(ctx: Ctx, runtime: RuntimeName, snapshot: string): Promise<{ exitMs: number; readyMs: number; rssMb: number }> {
  let target = snapshot;
  if (statSync(snapshot).isDirectory()) {
    target = join(ctx.tmp, `open-${runtime}-${basename(snapshot)}`);
    await rm(target, { recursive: true, force: true });
    await cp(snapshot, target, { recursive: true });
  }
  try {
    return await timeOpen(runtime, target);
  } finally {
    if (target !== snapshot) await rm(target, { recursive: true, force: true });
  }
}

/** One timed run of open-snapshot.ts. */
async function timeOpen(runtime: RuntimeName, snapshot: string): Promise<{ exitMs: number; readyMs: number; rssMb: number }> {
  const began = performance.now();
  const child = spawnTracked([...runtimeCommand(runtime, OPEN_SNAPSHOT), '--snapshot', snapshot], { cpu: SERVER_CPU });
  let readyMs = 0;
  child.stdout?.once('data', () => (readyMs = Math.round(performance.now() - began)));
  const out = collectTail(child.stdout);
  const err = collectTail(child.stderr);
  const code = await waitExit(child, 120_000, `open-snapshot on ${runtime}`);
  const exitMs = Math.round(performance.now() - began);
  if (code !== 0 || !out().includes('"ok":true')) throw new Error(`open-snapshot on ${runtime} exited ${code}: ${out()} ${err().slice(-1500)}`);
  return { exitMs, readyMs, rssMb: (JSON.parse(out()) as { rssMb: number }).rssMb };
}

// ---------------------------------------------------------------------------------------------------------------
// Phase 1: the demo bundle, service against ceiling, start-up and RSS

/** Benchmarks one runtime on the demo bundle. */
async function benchDemo(ctx: Ctx, runtime: RuntimeName, requests: BenchRequest[]): Promise<RuntimeDemo> {
  const { opts } = ctx;
  const dataDir = join(BENCH_DIR, 'data-demo');
  const extra = ['--data-dir', dataDir];
  const probe = `/maps/${MAIN_MAP}`;
  say(`${runtime}: first start (writes the demo snapshot, or reuses it)`);
  const first = await startServer(runtime, extra, DEMO_START_TIMEOUT_MS);
  await first.stop();
  const snapshot = await findSnapshot(dataDir);

  // Start-up and PGlite alone, interleaved so both see the same machine; the last start stays up for the load.
  const startupMs: number[] = [];
  const opens: { exitMs: number; readyMs: number; rssMb: number }[] = [];
  let server: Running | null = null;
  for (let i = 0; i < opts.startupRepeats; i++) {
    opens.push(await timeSnapshotOpen(ctx, runtime, snapshot));
    const started = await startService(runtime, extra, probe, DEMO_START_TIMEOUT_MS, `demo-${runtime}-${i}`, opts.serviceLogLevel);
    startupMs.push(started.ms);
    const source = loadedFrom(started.server.logFile);
    // `bundle`: the bundle was written again as a new version (older services said `snapshot` or `store` otherwise).
    if (source === 'bundle') ctx.notes.push(`${runtime} demo start ${i + 1} loaded from "${source}", not from the stored snapshot`);
    if (i < opts.startupRepeats - 1) await stopServer(started.server, opts.keepLogs);
    else server = started.server;
  }
  const snapshotOpenMs = opens.map((o) => o.exitMs);
  say(`${runtime}: start-up ${startupMs.join(', ')} ms; PGlite alone ${snapshotOpenMs.join(', ')} ms`);
  const service = server!;
  const afterStart = readRss(service.child.pid);
  let ceiling: Running | null = null;
  let completed = false;
  try {
    const { manifest, answers } = await saveAnswers(service.base, requests, join(ctx.tmp, runtime));
    ceiling = await startCeiling(runtime, manifest, requests[0].path);
    await checkAnswers(ceiling.base, answers, `${runtime} ceiling`);
    const runs: RequestRun[] = [];
    for (const [i, r] of requests.entries()) {
      const saved = answers[i];
      const ceilingRun = await measure(ctx, ceiling.base + r.path, ceiling.child, `${runtime} ceiling`, ceiling.stderr);
      checkBytes(ceilingRun, saved.body.length, `${runtime} ceiling`, r.path);
      const serviceRun = await measure(ctx, service.base + r.path, service.child, `${runtime} service`, service.stderr);
      checkBytes(serviceRun, saved.body.length, `${runtime} service`, r.path);
      const ratio = round(serviceRun.rps / ceilingRun.rps, 3);
      say(`${runtime}: ${r.name}: service ${serviceRun.rps} req/s, ceiling ${ceilingRun.rps} req/s, ratio ${ratio}`);
      // The ceiling does strictly less work than the service: beating it means something else interfered.
      if (isInterference(ratio)) ctx.notes.push(`${runtime}: the service beat its ceiling on "${r.name}" (${percent(ratio)}): interference from other work; rerun`);
      runs.push({ name: r.name, path: r.path, contentType: saved.contentType, bodyBytes: saved.body.length,
        service: serviceRun, ceiling: ceilingRun, ratio });
    }
    const afterLoad = { ...readRss(service.child.pid), exe: readExe(service.child.pid) };
    // The service must still answer what the ceiling served (answers that follow the clock: status and type only).
    await checkAnswers(service.base, answers, `${runtime} service after the load`, new Set(requests.filter((r) => r.live).map((r) => r.path)));
    const rss: Rss = { afterStartMb: afterStart.rssMb, afterLoadMb: afterLoad.rssMb, peakMb: afterLoad.peakMb, exe: afterLoad.exe };
    checkExe(runtime, rss.exe);
    const startupMedianMs = median(startupMs);
    const snapshotOpenMedianMs = median(snapshotOpenMs);
    completed = true;
    return {
      runtime, startupMs, startupMedianMs, snapshotOpenMs, snapshotOpenMedianMs,
      snapshotReadyMs: opens.map((o) => o.readyMs), snapshotRssMb: median(opens.map((o) => o.rssMb)),
      startupRatio: round(startupMedianMs / snapshotOpenMedianMs, 2), rss, requests: runs,
      contentRps: round(mean(runs.map((r) => r.service.rps)), 1), contentRatio: round(mean(runs.map((r) => r.ratio)), 3),
    };
  } finally {
    if (ceiling) await stopChild(ceiling.child, 15_000);
    // A failed run keeps the service's stdout for a look.
    await stopServer(service, opts.keepLogs || !completed);
  }
}

/** Makes sure RSS was read from the runtime itself, not from a wrapper process. */
function checkExe(runtime: RuntimeName, exe: string | null): void {
  if (exe === null) return;
  const expected = basename(RUNTIMES[runtime][0]);
  if (exe !== expected && !exe.startsWith(runtime)) throw new Error(`RSS was read from ${exe}, not from the ${runtime} runtime (${expected})`);
}

// ---------------------------------------------------------------------------------------------------------------
// Phase 2: events on the large dataset

/** The snapshot directory of a large bundle: `.bench/data-large` for the default one, its own for any other. */
function largeDataDir(bundle: string): string {
  return bundle === DEFAULT_LARGE_BUNDLE ? join(BENCH_DIR, 'data-large') : join(BENCH_DIR, `data-large-${basename(bundle).replace(/\.json$/, '')}`);
}

/** A skipped part. */
const notRun = (reason: string) => ({ status: 'not run' as const, reason });

/** Why the 1M-event phases are skipped. */
function skipLargeReason(opts: Ctx['opts']): string {
  return opts.quick ? '--quick skips the large dataset (add --large to run it)' : '--skip-large';
}

/** The first map id of a bundle, read from its start (maps precede the events) without parsing 300 MB. */
async function scanMapId(bundlePath: string): Promise<string> {
  const re = /"maps"\s*:\s*\[\s*\{\s*"id"\s*:\s*"([0-9a-f-]{36})"/;
  let tail = '';
  for await (const chunk of createReadStream(bundlePath, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = tail + (chunk as string);
    const m = re.exec(text);
    if (m) return m[1];
    tail = text.slice(-256);
  }
  throw new Error(`no "maps":[{"id":...}] in ${bundlePath}`);
}

/** Where near and bbox point: the bundle's city clusters when large-data.ts is there, else the map's centre. */
async function aimLarge(base: string, mapId: string): Promise<{ near: string; bbox: string; tags: string; source: string }> {
  const tags = 'free,outdoor';
  const box = (lat: number, lng: number) => [lng - 0.1, lat - 0.07, lng + 0.1, lat + 0.07].map((x) => round(x, 4)).join(',');
  try {
    // Loaded by path, untyped: the file belongs to the dataset's generator and may change shape.
    type City = { lat: number; lng: number };
    const data = await import(pathToFileURL(join(ROOT, 'scripts/bench/large-data.ts')).href) as { findCity(key: string): City };
    const madrid = data.findCity('madrid');
    const barcelona = data.findCity('barcelona');
    return { near: `${madrid.lat},${madrid.lng}`, bbox: box(barcelona.lat, barcelona.lng), tags,
      source: 'near: Madrid centre; bbox: central Barcelona (city clusters of scripts/bench/large-data.ts)' };
  } catch {
    const answer = await get(`${base}/maps/${mapId}?map_data=true`);
    const body = JSON.parse(answer.body.toString('utf8')) as { map_data?: { center?: { lat: number; lng: number } } };
    const center = body.map_data?.center;
    if (!center) throw new Error(`cannot aim the events requests: no large-data.ts and no map_data.center for ${mapId}`);
    return { near: `${center.lat},${center.lng}`, bbox: box(center.lat, center.lng), tags, source: 'the map centre (map_data.center)' };
  }
}

/** Distinct paths generated per kind: more than a run sends, so none repeats. */
const DISTINCT_PATHS = 60_000;
/** Distinct paths (kept out of the load run) whose totals describe what a kind of question finds. */
const DISTINCT_SAMPLE = 200;

/**
 * The response cache's hit rate over a measured run, from /readyz: `start` (called when the measured run
 * begins) reads the counters, `rate` reads them again and answers hits ÷ (hits + misses), or null.
 */
function countCache(base: string): { start: () => void; rate: () => Promise<number | null> } {
  let first: ReturnType<typeof readCacheCounters> | null = null;
  return {
    start: () => { first = readCacheCounters(base); },
    rate: async () => hitRate(await first, await readCacheCounters(base)),
  };
}

/** Reads `total` and `next_cursor` from an events page (on `agent`'s connections when given); the answer must be 200. */
async function eventsPage(base: string, path: string, agent?: Agent): Promise<{ total: number; next: string | null; count: number; bytes: number }> {
  const answer = agent ? await getWith(base + path, { headers: IDENTITY, agent }) : await get(base + path);
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
  const body = JSON.parse(answer.body.toString('utf8')) as { total: number; next_cursor: string | null; events: unknown[] };
  return { total: body.total, next: body.next_cursor, count: body.events.length, bytes: answer.body.length };
}

/**
 * Counts the items of every top-level array of a bundle (`markers`, `events`, ...) in one streaming pass over
 * its bytes, tracking strings and nesting depth: a 300+ MB bundle is never parsed or held whole.
 */
async function countBundle(bundlePath: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let depth = 0;
  let inString = false;
  let escaped = false;
  let key = '';
  let current = '';
  let text: number[] = [];
  for await (const chunk of createReadStream(bundlePath, { highWaterMark: 1 << 22 })) {
    const bytes = chunk as Buffer;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) {
          inString = false;
          if (depth === 1) key = Buffer.from(text).toString('utf8');
        } else if (depth === 1) text.push(b);
        continue;
      }
      if (b === 0x22) {
        inString = true;
        text = [];
      } else if (b === 0x7b || b === 0x5b) {
        if (depth === 1 && b === 0x5b) current = key;
        else if (depth === 2 && b === 0x7b) counts[current] = (counts[current] ?? 0) + 1;
        depth++;
      } else if (b === 0x7d || b === 0x5d) {
        depth--;
        if (depth === 1) current = '';
      }
    }
  }
  return counts;
}

/** How many events a map serves in all (every status, every time): GET /events's total over all time. */
async function servedEvents(base: string, mapId: string): Promise<number> {
  const answer = await get(`${base}/events?map_id=${mapId}&from=1970-01-01T00:00:00Z&to=2999-12-31T00:00:00Z&limit=1&status=all`, 120_000);
  if (answer.status !== 200) throw new Error(`counting the served events: ${answer.status} ${String(answer.body).slice(0, 200)}`);
  return (JSON.parse(String(answer.body)) as { total: number }).total;
}

/** Generates the large bundle with make-large.ts when missing; false when neither the bundle nor the script exists. */
async function ensureLargeBundle(ctx: Ctx): Promise<boolean> {
  const bundle = ctx.opts.largeBundle;
  if (existsSync(bundle)) return true;
  if (!existsSync(MAKE_LARGE)) return false;
  say(`generating ${bundle} with make-large.ts (once; later runs reuse it)`);
  const child = spawnTracked([process.execPath, MAKE_LARGE, '--out', bundle]);
  const out = collectTail(child.stdout);
  const err = collectTail(child.stderr);
  const code = await waitExit(child, 60 * 60_000, 'make-large.ts');
  if (code !== 0) throw new Error(`make-large.ts exited ${code}: ${err().slice(-1500)}`);
  ctx.notes.push(`generated ${bundle}: ${out().trim().split('\n').pop()}`);
  return true;
}

/** Benchmarks one runtime on the large dataset (a start from the snapshot, then the events requests). */
async function benchLargeRuntime(ctx: Ctx, runtime: RuntimeName, mapId: string, extra: string[],
  aim: (base: string) => Promise<{ near: string; bbox: string; tags: string; source: string }>, contentRps: number | null,
  events: number): Promise<RuntimeLarge> {
  const { opts } = ctx;
  say(`${runtime}: large start from the snapshot`);
  const { server, ms } = await startService(runtime, extra, `/maps/${mapId}`, LARGE_START_TIMEOUT_MS, `large-${runtime}`, opts.serviceLogLevel);
  let completed = false;
  try {
    const afterStart = readRss(server.child.pid);
    const loaded = loadedFrom(server.logFile);
    if (loaded === 'bundle') ctx.notes.push(`${runtime}: the large start loaded the bundle, not the snapshot, so its start-up is not a snapshot start`);
    say(`${runtime}: large start-up ${ms} ms, RSS ${afterStart.rssMb} MB`);
    const target = await aim(server.base);
    const near = `/events?map_id=${mapId}&near=${target.near}&radius_m=5000`;
    const bbox = `/events?map_id=${mapId}&bbox=${target.bbox}&tags=${target.tags}`;
    const requests: EventsRun[] = [];
    const rows = new Set(opts.rows);
    if (rows.has('cached')) requests.push(...await benchCached(ctx, runtime, server, mapId, near, bbox, contentRps));
    if (rows.has('distinct')) requests.push(...await benchDistinct(ctx, runtime, server, mapId, contentRps));
    if (rows.has('fields')) requests.push(...await benchDistinct(ctx, runtime, server, mapId, contentRps, { seed: FIELDS_SEED, names: LIST_FIELDS }));
    let cursorSetup: RuntimeLarge['cursorSetup'];
    let distinctCursorRatio: number | null | undefined;
    if (rows.has('encoded') || rows.has('misses')) requests.push(...await benchEncoded(ctx, runtime, server, mapId, near, target.near, rows));
    let calendarCap: RuntimeLarge['calendarCap'];
    if (rows.has('calendar')) {
      const c = await benchCalendar(ctx, runtime, server, mapId, target.near);
      requests.push(...c.rows);
      calendarCap = c.cap;
    }
    if (rows.has('hours')) requests.push(...await benchHours(ctx, runtime, server, mapId));
    let postgis: RuntimeLarge['postgisTiles'];
    if (rows.has('tiles')) {
      const t = await benchTiles(ctx, runtime, server, mapId);
      requests.push(...t.rows);
      postgis = t.postgis;
    }
    if (rows.has('ogc')) requests.push(...await benchOgc(ctx, runtime, server, mapId));
    if (rows.has('cursor')) {
      const c = await benchCursorDistinct(ctx, runtime, server, mapId, events);
      requests.push(...c.rows);
      cursorSetup = c.setup;
      distinctCursorRatio = c.ratio;
    }
    const afterLoad = { ...readRss(server.child.pid), exe: readExe(server.child.pid) };
    const rss: Rss = { afterStartMb: afterStart.rssMb, afterLoadMb: afterLoad.rssMb, peakMb: afterLoad.peakMb, exe: afterLoad.exe };
    checkExe(runtime, rss.exe);
    completed = true;
    const rpsOf = (name: string) => requests.find((q) => q.name === name && !q.group)?.load.rps;
    const [page1Rps, page200Rps] = [rpsOf(PAGE_1), rpsOf(PAGE_200)];
    return { runtime, startupMs: ms, loadedFrom: loaded, rss, requests,
      cursorRatio: page1Rps !== undefined && page200Rps !== undefined && page200Rps > 0 ? round(page1Rps / page200Rps, 3) : null,
      ...(cursorSetup ? { cursorSetup, distinctCursorRatio: distinctCursorRatio ?? null } : {}), ...(calendarCap ? { calendarCap } : {}),
      ...(postgis ? { postgisTiles: postgis } : {}) };
  } finally {
    await stopServer(server, opts.keepLogs || !completed);
  }
}

/** The names of the cached cursor rows (the cursor target reads them). */
const PAGE_1 = 'broad filter, page 1';
const PAGE_200 = 'broad filter, page 200';

/** One URL repeated per request: near, bbox, and pages 1 and 200 of a broad filter (answered from the response cache). */
async function benchCached(ctx: Ctx, runtime: RuntimeName, server: Running, mapId: string, near: string, bbox: string,
  contentRps: number | null): Promise<EventsRun[]> {
  // A broad filter (every event of the map), walked page by page to page 200 through next_cursor.
  const page1 = `/events?map_id=${mapId}&from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z&limit=50`;
  const firstPage = await eventsPage(server.base, page1);
  let cursor = firstPage.next;
  for (let page = 2; page < 200; page++) {
    if (!cursor) throw new Error(`the broad filter has only ${page - 1} pages (total ${firstPage.total}); the cursor test needs 200`);
    cursor = (await eventsPage(server.base, `${page1}&cursor=${encodeURIComponent(cursor)}`)).next;
  }
  if (!cursor) throw new Error(`the broad filter ends before page 200 (total ${firstPage.total})`);
  const page200 = `${page1}&cursor=${encodeURIComponent(cursor)}`;
  const cases = [
    { name: 'near, 5 km, default window', path: near },
    { name: 'bbox + 2 tags, default window', path: bbox },
    { name: PAGE_1, path: page1 },
    { name: PAGE_200, path: page200 },
  ];
  const requests: EventsRun[] = [];
  for (const c of cases) {
    const probeBegan = performance.now();
    const probe = await eventsPage(server.base, c.path);
    const singleMs = round(performance.now() - probeBegan, 1);
    if (probe.count === 0) ctx.notes.push(`${runtime}: "${c.name}" matched no events; its req/s measures an empty answer`);
    const counting = countCache(server.base);
    const load = await measure(ctx, server.base + c.path, server.child, `${runtime} service`, server.stderr, {}, counting.start);
    checkBytes(load, probe.bytes, `${runtime} service`, c.path);
    const ratioToContent = contentRps ? round(load.rps / contentRps, 3) : null;
    const cacheHitRate = await counting.rate();
    say(`${runtime}: ${c.name} (cached): ${load.rps} req/s (total ${probe.total}; one request alone ${singleMs} ms; cache hit rate ${cacheHitRate})`);
    requests.push({ name: c.name, kind: 'cached', path: c.path, total: probe.total, bodyBytes: probe.bytes, singleMs, load, ratioToContent, cacheHitRate });
  }
  return requests;
}

/**
 * Distinct questions with no content coding (each request another seeded point or box). With `fields`, the rows of the
 * fields group: the same three kinds asking only the fields a list screen shows, at other seeded points (the match
 * lists of the plain rows' filters are not theirs to reuse).
 */
async function benchDistinct(ctx: Ctx, runtime: RuntimeName, server: Running, mapId: string, contentRps: number | null,
  fields?: { seed: number; names: string }): Promise<EventsRun[]> {
  const requests: EventsRun[] = [];
  // Distinct questions, as a fleet of apps asks them: each request a point or box no request asked before.
  for (const kind of Object.keys(DISTINCT_QUERIES) as DistinctKind[]) {
    const paths = fields ? distinctPaths(kind, mapId, DISTINCT_PATHS, fields.seed).map((p) => `${p}&fields=${fields.names}`)
      : distinctPaths(kind, mapId, DISTINCT_PATHS);
    const probeBegan = performance.now();
    const probe = await eventsPage(server.base, paths[paths.length - 1]);
    const singleMs = round(performance.now() - probeBegan, 1);
    // What these questions find: the totals of a sample of them (asked here, outside the measured run).
    const totals: number[] = [];
    for (const path of paths.slice(-DISTINCT_SAMPLE - 1, -1)) totals.push((await eventsPage(server.base, path)).total);
    const sample = { count: totals.length, meanTotal: round(totals.reduce((s, x) => s + x, 0) / totals.length, 1),
      nonEmpty: round(totals.filter((x) => x > 0).length / totals.length, 3) };
    const counting = countCache(server.base);
    const load = await measure(ctx, server.base, server.child, `${runtime} service`, server.stderr,
      { distinctPaths: paths.slice(0, -DISTINCT_SAMPLE - 1) }, counting.start);
    const cacheHitRate = await counting.rate();
    const name = fields ? `${DISTINCT_QUERIES[kind].name}, fields=${fields.names}` : DISTINCT_QUERIES[kind].name;
    say(`${runtime}: ${name} (distinct): ${load.rps} req/s, p99 ${load.latencyMs.p99} ms; cache hit rate ${cacheHitRate}`);
    requests.push({ name, kind: 'distinct', ...(fields ? { group: 'fields' as const } : {}), path: paths[0], total: probe.total,
      bodyBytes: probe.bytes, singleMs, load, ratioToContent: contentRps ? round(load.rps / contentRps, 3) : null, cacheHitRate, sample });
  }
  return requests;
}

// ---------------------------------------------------------------------------------------------------------------
// The rows users produce: a browser's Accept-Encoding, cursor pages of distinct filters, real misses

/** The Accept-Encoding of every browser and mobile HTTP stack. */
const ENCODED = { 'accept-encoding': BROWSER_ACCEPT_ENCODING };

/** Distinct paths of the encoded and misses rows, per kind: more than a run sends (the identity rows' count). */
const ENCODED_PATHS = DISTINCT_PATHS;

/** An answer's body as text, decoded from the coding it came in. */
function decodedText(path: string, body: Buffer, encoding: string | null): string {
  const text = decodedBody(body, encoding)?.toString('utf8');
  if (text === undefined) throw new Error(`${path} came back ${encoding}-encoded, which the benchmark cannot read`);
  return text;
}

/** One GET with the browser's Accept-Encoding: its status, the coding served, the bytes received, the body decoded, the wall time. */
async function encodedGet(base: string, path: string): Promise<{ status: number; text: string; bytes: number; encoding: string | null; ms: number }> {
  const answer = await getWith(base + path, { headers: ENCODED });
  const encoding = typeof answer.headers['content-encoding'] === 'string' ? answer.headers['content-encoding'] : null;
  return { status: answer.status, text: decodedText(path, answer.body, encoding), bytes: answer.body.length, encoding, ms: round(answer.ms, 1) };
}

/** One GET of a page of events with the browser's Accept-Encoding, decoded: the coding served, the bytes received and the page's total. */
async function encodedPage(base: string, path: string): Promise<{ total: number; count: number; bytes: number; encoding: string | null; ms: number }> {
  const answer = await encodedGet(base, path);
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status} with ${BROWSER_ACCEPT_ENCODING}`);
  const body = JSON.parse(answer.text) as { total: number; events: unknown[] };
  return { total: body.total, count: body.events.length, bytes: answer.bytes, encoding: answer.encoding, ms: answer.ms };
}

/**
 * The encoded rows and the misses (`rows` says which): first the cached near URL asked with the browser's
 * Accept-Encoding (the reference of both), then the three distinct kinds with the same header (other seeded points
 * than the identity rows', whose answers the response cache may still hold), then the misses: the cached URL with a
 * distinct `from`, and with a distinct `near` a metre or so from its point. Every row's hit rate is measured.
 */
async function benchEncoded(ctx: Ctx, runtime: RuntimeName, server: Running, mapId: string, near: string, nearPoint: string,
  rows: Set<string>): Promise<EventsRun[]> {
  const requests: EventsRun[] = [];
  const run = async (name: string, kind: EventsRun['kind'], group: 'encoded' | 'misses', paths: string[], reference: EventsRun | null) => {
    // The last path is asked alone first (the coding served, the wall time, the total), then kept out of the run.
    const probe = await encodedPage(server.base, paths[paths.length - 1]);
    if (probe.count === 0) ctx.notes.push(`${runtime}: "${name}" (${BROWSER_ACCEPT_ENCODING}) matched no events on its probe`);
    const counting = countCache(server.base);
    const runPaths = paths.length > 1 ? paths.slice(0, -1) : paths;
    const load = await measure(ctx, server.base + (kind === 'cached' ? runPaths[0] : ''), server.child, `${runtime} service`, server.stderr,
      { headers: ENCODED, ...(kind === 'distinct' ? { distinctPaths: runPaths } : {}) }, counting.start);
    const cacheHitRate = await counting.rate();
    const row: EventsRun = { name, kind, group, path: runPaths[0], total: probe.total, bodyBytes: probe.bytes, singleMs: probe.ms, load,
      ratioToContent: null, cacheHitRate, acceptEncoding: BROWSER_ACCEPT_ENCODING, contentEncoding: probe.encoding,
      ...(reference ? { reference: reference.name, ratioToReference: reference.load.rps > 0 ? round(load.rps / reference.load.rps, 3) : null } : {}) };
    say(`${runtime}: ${name} (${kind}, ${BROWSER_ACCEPT_ENCODING} → ${probe.encoding ?? 'identity'}): ${load.rps} req/s, p99 ${load.latencyMs.p99} ms; ` +
      `cache hit rate ${cacheHitRate}${row.ratioToReference != null ? `; ${percent(row.ratioToReference)} of the cached URL` : ''}`);
    requests.push(row);
    return row;
  };
  // The cached URL, twice in the list so the probe (the last) is the same URL: one URL repeated.
  const cached = await run(ENCODED_CACHED, 'cached', 'encoded', [near, near], null);
  if (rows.has('encoded')) {
    for (const kind of Object.keys(DISTINCT_QUERIES) as DistinctKind[]) {
      await run(DISTINCT_QUERIES[kind].name, 'distinct', 'encoded', distinctPaths(kind, mapId, ENCODED_PATHS, ENCODED_SEED), cached);
    }
  }
  if (rows.has('misses')) {
    const [lat, lng] = nearPoint.split(',').map(Number);
    // `from` from the next whole minute on: the default window's 30 days from there, as the cached URL's from now.
    const fromMs = Math.ceil(Date.now() / 60_000) * 60_000;
    await run(MISS_FROM, 'distinct', 'misses', missPaths('from', near, { lat, lng }, ENCODED_PATHS, fromMs), cached);
    await run(MISS_NEAR, 'distinct', 'misses', missPaths('near', near, { lat, lng }, ENCODED_PATHS, fromMs), cached);
  }
  return requests;
}

// ---------------------------------------------------------------------------------------------------------------
// Calendar feeds: /events.ics on distinct 30-day windows

/** The calendar rows' names (the report reads them). */
const CALENDAR_CACHED = `/events.ics near 5 km, one ${CALENDAR_WINDOW_DAYS}-day window, one cached URL`;
const CALENDAR_DISTINCT = `/events.ics near 5 km, a distinct ${CALENDAR_WINDOW_DAYS}-day window and point each`;
/** Distinct feeds to draw from (a feed takes milliseconds to write: a run sends hundreds). */
const CALENDAR_PATHS = 5_000;
/** How many feeds of the sample give the row's mean size, and how many whole-map windows are asked of the cap. */
const CALENDAR_SAMPLE = 50;
const CALENDAR_CAP_WINDOWS = 20;

/** A feed asked with the browser's Accept-Encoding: its VEVENTs, the bytes received, the coding, the wall time. */
async function calendarFeed(base: string, path: string): Promise<{ events: number; bytes: number; encoding: string | null; ms: number }> {
  const answer = await encodedGet(base, path);
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  if (!answer.text.startsWith('BEGIN:VCALENDAR')) throw new Error(`${path} answered something other than a calendar`);
  return { events: answer.text.split('BEGIN:VEVENT').length - 1, bytes: answer.bytes, encoding: answer.encoding, ms: answer.ms };
}

/**
 * The calendar rows: one feed of a 30-day window near the aimed point repeated (the reference), then a distinct
 * window and point each (5 km: what a feed of a city's events for a month holds), both with the browser's
 * Accept-Encoding; then what the cap does to a 30-day window of the whole map: each of a few windows asked alone,
 * every one refused with 400 naming how many VEVENTs it would hold (a load run would fail on them: non-2xx).
 */
async function benchCalendar(ctx: Ctx, runtime: RuntimeName, server: Running, mapId: string, nearPoint: string):
  Promise<{ rows: EventsRun[]; cap: NonNullable<RuntimeLarge['calendarCap']> }> {
  const rows: EventsRun[] = [];
  const spanTo = Date.parse('2028-01-01T00:00:00Z');
  const spanFrom = Date.parse('2027-01-01T00:00:00Z');
  const cachedPath = `/events.ics?map_id=${mapId}&near=${nearPoint}&radius_m=5000&from=2027-03-01&to=2027-03-30`;
  const distinct = calendarPaths(mapId, CALENDAR_PATHS + CALENDAR_SAMPLE + 1, spanFrom, spanTo, true);
  const run = async (name: string, kind: EventsRun['kind'], paths: string[], reference: EventsRun | null) => {
    const probe = await calendarFeed(server.base, paths[paths.length - 1]);
    const sampled = kind === 'distinct' ? await Promise.all(paths.slice(-CALENDAR_SAMPLE - 1, -1).map((p) => calendarFeed(server.base, p))) : [];
    const runPaths = kind === 'distinct' ? paths.slice(0, -CALENDAR_SAMPLE - 1) : paths;
    const counting = countCache(server.base);
    const load = await measure(ctx, server.base + (kind === 'cached' ? runPaths[0] : ''), server.child, `${runtime} service`, server.stderr,
      { headers: ENCODED, ...(kind === 'distinct' ? { distinctPaths: runPaths } : {}) }, counting.start);
    const cacheHitRate = await counting.rate();
    const row: EventsRun = { name, kind, group: 'calendar', path: runPaths[0], total: probe.events, bodyBytes: probe.bytes, singleMs: probe.ms, load,
      ratioToContent: null, cacheHitRate, acceptEncoding: BROWSER_ACCEPT_ENCODING, contentEncoding: probe.encoding,
      ...(sampled.length > 0 ? { sample: { count: sampled.length, meanTotal: round(mean(sampled.map((f) => f.events)), 1),
        nonEmpty: round(sampled.filter((f) => f.events > 0).length / sampled.length, 3), meanBytes: Math.round(mean(sampled.map((f) => f.bytes))) } } : {}),
      ...(reference ? { reference: reference.name, ratioToReference: reference.load.rps > 0 ? round(load.rps / reference.load.rps, 3) : null } : {}) };
    say(`${runtime}: ${name}: ${load.rps} req/s, p99 ${load.latencyMs.p99} ms; cache hit rate ${cacheHitRate}; ${probe.events} VEVENTs, ${probe.bytes} bytes` +
      `${row.ratioToReference != null ? `; ${percent(row.ratioToReference)} of the cached URL` : ''}`);
    rows.push(row);
    return row;
  };
  const cached = await run(CALENDAR_CACHED, 'cached', [cachedPath, cachedPath], null);
  await run(CALENDAR_DISTINCT, 'distinct', distinct, cached);
  // The whole map, a window each: the cap refuses them all.
  const wholeMap = calendarPaths(mapId, CALENDAR_CAP_WINDOWS, spanFrom, spanTo, false);
  const refusals: { events: number; ms: number }[] = [];
  for (const path of wholeMap) {
    const answer = await encodedGet(server.base, path);
    const held = /the feed would hold ([\d,]+) events/.exec(answer.text);
    if (answer.status !== 400 || !held) throw new Error(`${path}: expected the cap's 400, got ${answer.status}: ${answer.text.slice(0, 300)}`);
    refusals.push({ events: Number(held[1].replace(/,/g, '')), ms: answer.ms });
  }
  const cap = { windows: wholeMap.length, refused: refusals.length, meanEvents: Math.round(mean(refusals.map((r) => r.events))),
    leastEvents: Math.min(...refusals.map((r) => r.events)), medianMs: round(median(refusals.map((r) => r.ms)), 1), cap: MAX_FEED_EVENTS };
  say(`${runtime}: ${cap.refused} of ${cap.windows} whole-map ${CALENDAR_WINDOW_DAYS}-day feeds refused by the cap (mean ${cap.meanEvents} VEVENTs), median ${cap.medianMs} ms`);
  return { rows, cap };
}

// ---------------------------------------------------------------------------------------------------------------
// Opening hours: open_at on distinct instants over the 100,000 POIs

/** The POIs the hours rows ask about: the large map's Food & Drink, its busiest top-level category. */
const HOURS_TAGS = largeId('category:food-drink');
const HOURS_CACHED = '/maps/{id}/pois Food & Drink open_at one instant, one cached URL';
const HOURS_DISTINCT = '/maps/{id}/pois Food & Drink open_at a distinct instant each';
/** Distinct instants to draw from. */
const HOURS_PATHS = 20_000;

/**
 * The opening-hours rows: `open_at` on one instant repeated (the reference: the response cache answers it), then a
 * distinct instant each (to the minute, seeded, over 2027), both with the browser's Accept-Encoding, over the large
 * map's Food & Drink POIs (about a tenth of its 100,000; each answer a window of 50 with when each closes).
 */
async function benchHours(ctx: Ctx, runtime: RuntimeName, server: Running, mapId: string): Promise<EventsRun[]> {
  const rows: EventsRun[] = [];
  const distinct = openAtPaths(mapId, HOURS_TAGS, HOURS_PATHS + 1);
  const cachedPath = `/maps/${mapId}/pois?tags=${HOURS_TAGS}&open_at=2027-03-06T21:00:00Z`;
  const run = async (name: string, kind: EventsRun['kind'], paths: string[], reference: EventsRun | null) => {
    const probe = await encodedGet(server.base, paths[paths.length - 1]);
    if (probe.status !== 200) throw new Error(`${paths[paths.length - 1]} answered ${probe.status}: ${probe.text.slice(0, 300)}`);
    const total = (JSON.parse(probe.text) as { total: number }).total;
    const runPaths = kind === 'distinct' ? paths.slice(0, -1) : paths;
    const counting = countCache(server.base);
    const load = await measure(ctx, server.base + (kind === 'cached' ? runPaths[0] : ''), server.child, `${runtime} service`, server.stderr,
      { headers: ENCODED, ...(kind === 'distinct' ? { distinctPaths: runPaths } : {}) }, counting.start);
    const cacheHitRate = await counting.rate();
    const row: EventsRun = { name, kind, group: 'hours', path: runPaths[0], total, bodyBytes: probe.bytes, singleMs: probe.ms, load,
      ratioToContent: null, cacheHitRate, acceptEncoding: BROWSER_ACCEPT_ENCODING, contentEncoding: probe.encoding,
      ...(reference ? { reference: reference.name, ratioToReference: reference.load.rps > 0 ? round(load.rps / reference.load.rps, 3) : null } : {}) };
    say(`${runtime}: ${name}: ${load.rps} req/s, p99 ${load.latencyMs.p99} ms; cache hit rate ${cacheHitRate}; ${total} open` +
      `${row.ratioToReference != null ? `; ${percent(row.ratioToReference)} of the cached URL` : ''}`);
    rows.push(row);
    return row;
  };
  const cached = await run(HOURS_CACHED, 'cached', [cachedPath, cachedPath], null);
  await run(HOURS_DISTINCT, 'distinct', distinct, cached);
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------
// Vector tiles: distinct tiles of the z10–16 mix over the 100,000 POIs, against one cached tile and against PostGIS

const TILES_CACHED = '/maps/{id}/tiles z14 over Lisbon, one cached tile';
const TILES_DISTINCT = '/maps/{id}/tiles a distinct tile each, the same number of each zoom from 10 to 16';
/** Distinct tiles of each zoom at most, and PostGIS's clients (as the architecture notes' pgbench: 2 clients). */
const TILES_PER_ZOOM = 2_000;
/**
 * Tiles the distinct row's warm-up sends, others than those measured: the mix is only some 300 tiles, whose first
 * ninth (the share other rows warm up with) left the tile code barely compiled when the measured run began.
 */
const TILES_WARMUP = 1_000;
const POSTGIS_CONNECTIONS = 2;

/**
 * The vector-tile rows: one z14 tile over Lisbon repeated (the response cache answers it), then a distinct tile each
 * of the z10–16 mix (seeded points around the cities, a zoom drawn evenly), both with the browser's Accept-Encoding;
 * then, once per bench run, PostGIS ST_AsMVT on the same markers (read from the service) and the same tiles.
 */
async function benchTiles(ctx: Ctx, runtime: RuntimeName, server: Running, mapId: string): Promise<{ rows: EventsRun[]; postgis: RuntimeLarge['postgisTiles'] }> {
  const rows: EventsRun[] = [];
  const mix = tileMix(TILES_PER_ZOOM);
  const tilePath = ([z, x, y]: readonly number[]) => `/maps/${mapId}/tiles/${z}/${x}/${y}.mvt`;
  const distinct = mix.map(tilePath);
  const warmupTiles = tileWarmup(TILES_WARMUP, mix);
  const warmup = warmupTiles.map(tilePath);
  const warmupZooms = [10, 11, 12, 13, 14, 15, 16].map((z) => `${warmupTiles.filter((t) => t[0] === z).length} of zoom ${z}`).join(', ');
  if (!ctx.notes.some((n) => n.startsWith('tiles mix'))) {
    ctx.notes.push(`tiles mix: ${mix.length.toLocaleString('en-US')} distinct tiles, ${mix.length / 7} of each zoom from 10 to 16 (as many as ` +
      'zoom 10 has around the cities), each the tile of a seeded point around the cities, zooms in turn, each sent once; instead of ' +
      `the first ninth of them, the distinct row's warm-up sends ${warmup.length.toLocaleString('en-US')} tiles of other seeded points, none ` +
      `of the measured ones (${warmupZooms}: the tiles of zooms 10 to 12 around the cities are few, and measured), so the tile code ` +
      'is compiled when the measured run begins and no cache holds a measured tile');
  }
  const cachedPath = `/maps/${mapId}/tiles/14/7776/6278.mvt`;
  const run = pairRunner(ctx, runtime, server, 'tiles', rows, 'tile');
  const cached = await run(TILES_CACHED, 'cached', [cachedPath, cachedPath], null);
  await run(TILES_DISTINCT, 'distinct', distinct, cached, warmup);
  // Once per run, on the first runtime: the markers read from the service (a large answer it then keeps in its response
  // cache, which counts in that runtime's RSS after the load), then PostGIS over them.
  ctx.postgis ??= (async () => {
    try {
      const answer = await getWith(`${server.base}/maps/${mapId}/markers`, {});
      const markers = (JSON.parse(answer.body.toString('utf8')) as { markers: { id: string; name: string; lat: number; lng: number }[] }).markers;
      say(`PostGIS: ST_AsMVT over the same ${markers.length} markers and the same ${mix.length} distinct tiles, ${POSTGIS_CONNECTIONS} clients`);
      const result = await postgisTiles(markers, mix.slice(1), { seconds: ctx.opts.quick ? 10 : 30, connections: POSTGIS_CONNECTIONS,
        pin: canPin() ? ['taskset', '-c', SERVER_CPU] : [], log: say });
      say(`PostGIS ${result.version}: ${result.tilesPerSecond} tiles/s (${result.tiles} tiles in ${result.seconds} s)`);
      return result;
    } catch (err) {
      return { skipped: (err as Error).message.split('\n')[0].slice(0, 300) };
    }
  })();
  return { rows, postgis: await ctx.postgis };
}

// ---------------------------------------------------------------------------------------------------------------
// OGC API Features: pages of 100 markers in distinct boxes over the 100,000 POIs, against one cached page

const OGC_CACHED = '/ogc/collections/{id}-markers/items, one cached page of 100 in a box';
const OGC_DISTINCT = '/ogc/collections/{id}-markers/items, the first page of 100 in a distinct box (about 5 by 5 km) each';
/** Distinct boxes at most (each sent once). */
const OGC_BOXES = 20_000;

/** The OGC API Features rows: one page of a box repeated, then a distinct box's page each (a GIS client panning). */
async function benchOgc(ctx: Ctx, runtime: RuntimeName, server: Running, mapId: string): Promise<EventsRun[]> {
  const rows: EventsRun[] = [];
  const distinct = ogcBoxPaths(mapId, OGC_BOXES);
  const run = pairRunner(ctx, runtime, server, 'ogc', rows, 'page');
  const cached = await run(OGC_CACHED, 'cached', [distinct[0], distinct[0]], null);
  await run(OGC_DISTINCT, 'distinct', distinct, cached);
  return rows;
}

/**
 * Runs a group's rows against a cached reference: `kind` cached sends one path again and again (the response cache
 * answers it); distinct sends each path once (the first is the probe). Both with the browser's Accept-Encoding; each
 * row with its cache hit rate, a distinct one with its ratio to the reference. Rows are pushed to `rows`.
 */
function pairRunner(ctx: Ctx, runtime: RuntimeName, server: Running, group: NonNullable<EventsRun['group']>, rows: EventsRun[], unit: string) {
  return async (name: string, kind: EventsRun['kind'], paths: string[], reference: EventsRun | null, warmupPaths?: string[]): Promise<EventsRun> => {
    const probe = await getWith(server.base + paths[0], { headers: ENCODED });
    if (probe.status !== 200) throw new Error(`${paths[0]} answered ${probe.status}`);
    const encoding = typeof probe.headers['content-encoding'] === 'string' ? probe.headers['content-encoding'] : null;
    // The probe asked the first distinct path: the run sends the others, each once.
    const runPaths = kind === 'distinct' ? paths.slice(1) : paths;
    const counting = countCache(server.base);
    const load = await measure(ctx, server.base + (kind === 'cached' ? runPaths[0] : ''), server.child, `${runtime} service`, server.stderr,
      { headers: ENCODED, ...(kind === 'distinct' ? { distinctPaths: runPaths, once: true, ...(warmupPaths ? { warmupPaths } : {}) } : {}) }, counting.start);
    const cacheHitRate = await counting.rate();
    const row: EventsRun = { name, kind, group, path: runPaths[0], total: probe.body.length, bodyBytes: probe.body.length, singleMs: round(probe.ms, 1), load,
      ratioToContent: null, cacheHitRate, acceptEncoding: BROWSER_ACCEPT_ENCODING, contentEncoding: encoding,
      ...(kind === 'distinct' ? { paths: runPaths.length } : {}),
      ...(reference ? { reference: reference.name, ratioToReference: reference.load.rps > 0 ? round(load.rps / reference.load.rps, 3) : null } : {}) };
    say(`${runtime}: ${name}: ${load.rps} req/s, p99 ${load.latencyMs.p99} ms; cache hit rate ${cacheHitRate}` +
      `${row.ratioToReference != null ? `; ${percent(row.ratioToReference)} of the cached ${unit}` : ''}`);
    rows.push(row);
    return row;
  };
}

/** The names of the encoded reference and of the misses rows (the report reads them). */
const ENCODED_CACHED = 'near 5 km, default window, one cached URL';
const MISS_FROM = 'the cached URL with a distinct `from` each (a second later each)';
const MISS_NEAR = 'the cached URL with a distinct `near` each (moved about a metre each)';

/** Page size of the walk to page 200: 50 pages of 199 events end where 199 pages of 50 do (199 is prime). */
const WALK_LIMIT = 199;
const WALK_PAGES = (199 * CURSOR_PAGE_LIMIT) / WALK_LIMIT;
/** Parallel walks (kept-alive connections) during the cursor rows' set-up. */
const WALK_CONNECTIONS = 4;

/**
 * Follows next_cursor from page 1 of `filter` (pages of WALK_LIMIT) to the cursor of page 200 of pages of
 * CURSOR_PAGE_LIMIT; null when the filter holds fewer than 200 full pages. Counts the requests in `count`.
 */
async function walkToPage200(base: string, agent: Agent, filter: string, count: { requests: number }, limit = WALK_LIMIT): Promise<string | null> {
  const pages = (199 * CURSOR_PAGE_LIMIT) / limit;
  let cursor: string | null = null;
  for (let page = 1; page <= pages; page++) {
    const p = await eventsPage(base, `${filter}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, agent);
    count.requests++;
    if (page === 1 && p.total < 200 * CURSOR_PAGE_LIMIT) return null;
    if (!p.next) throw new Error(`${filter}: no next_cursor on page ${page} of ${limit} though total is ${p.total}`);
    cursor = p.next;
  }
  return cursor;
}

/**
 * Page 1 against page 200 of distinct filters, neither answered by a cache: each request a window of every event
 * that no request asked before (the match cache keys its lists by the window; the response cache by the target).
 * Set-up, untimed and bounded by --cursor-filters: each page-200 filter is walked through next_cursor (pages of 199,
 * so 50 requests reach page 200 of pages of 50; the first filter is also walked in pages of 50 and must reach the
 * same cursor), then MATCH_CACHE_SIZE + 16 other filters are each computed twice (limit 1, then 2), so the match
 * cache holds none of the walked lists. Both runs send each of their paths once (run-load's `once`: a run that
 * sends out its paths ends early), the same number of them; the page-1 filters are others again, never asked.
 */
async function benchCursorDistinct(ctx: Ctx, runtime: RuntimeName, server: Running, mapId: string, events: number):
  Promise<{ rows: EventsRun[]; setup: NonNullable<RuntimeLarge['cursorSetup']>; ratio: number | null }> {
  const wanted = ctx.opts.cursorFilters;
  const spanDays = (EVENTS_TO_MS - EVENTS_FROM_MS) / 86_400_000;
  // A window of about twice the events of 200 pages, at least 30 days (at 1M events: about 27,000 events).
  const windowDays = Math.min(Math.floor(spanDays / 2), Math.max(30, Math.ceil((2 * 200 * CURSOR_PAGE_LIMIT * spanDays) / Math.max(events, 1))));
  const candidates = windowFilters(mapId, 2 * wanted + 2, 20261127, EVENTS_FROM_MS, EVENTS_TO_MS, windowDays);
  const agent = new Agent({ keepAlive: true, maxSockets: WALK_CONNECTIONS });
  const count = { requests: 0 };
  const began = performance.now();
  say(`${runtime}: cursor rows: walking up to ${wanted + 1} distinct ${windowDays}-day windows to page 200 (set-up, untimed)`);
  try {
    const walked: { filter: string; cursor: string }[] = [];
    let next = 0;
    const walker = async () => {
      while (walked.length < wanted + 1 && next < candidates.length) {
        const filter = candidates[next++];
        const cursor = await walkToPage200(server.base, agent, filter, count);
        if (cursor && walked.length < wanted + 1) walked.push({ filter, cursor });
      }
    };
    await Promise.all(Array.from({ length: WALK_CONNECTIONS }, walker));
    if (walked.length < 3) {
      const skipped = `only ${walked.length} of ${candidates.length} ${windowDays}-day windows hold 200 pages of ${CURSOR_PAGE_LIMIT} events`;
      ctx.notes.push(`${runtime}: distinct cursor rows not measured: ${skipped}`);
      return { rows: [], setup: { skipped }, ratio: null };
    }
    // The walk's bigger pages reach the cursor pages of 50 reach (checked on one filter: cursors are opaque).
    const check = await walkToPage200(server.base, agent, walked[0].filter, count, CURSOR_PAGE_LIMIT);
    if (check !== walked[0].cursor) throw new Error(`${walked[0].filter}: pages of ${WALK_LIMIT} and of ${CURSOR_PAGE_LIMIT} reach different page-200 cursors`);
    const checked = `${walked[0].filter}: 199 pages of ${CURSOR_PAGE_LIMIT} reach the cursor ${WALK_PAGES} pages of ${WALK_LIMIT} reach`;
    // Page 1: windows of another seed, none of them asked in the walk (every candidate counts as asked).
    const used = new Set(candidates);
    const page1Filters = windowFilters(mapId, walked.length + used.size, 20261129, EVENTS_FROM_MS, EVENTS_TO_MS, windowDays)
      .filter((f) => !used.has(f)).slice(0, walked.length);
    for (const f of page1Filters) used.add(f);
    // Filters used nowhere else, each computed twice (so the match cache keeps them), push every walked list out.
    const evictors = windowFilters(mapId, MATCH_CACHE_SIZE + 16 + used.size, 20261128, EVENTS_FROM_MS, EVENTS_TO_MS, windowDays)
      .filter((f) => !used.has(f)).slice(0, MATCH_CACHE_SIZE + 16);
    for (const f of evictors) {
      for (const limit of [1, 2]) await eventsPage(server.base, `${f}&limit=${limit}`, agent);
      count.requests += 2;
    }
    const walkS = round((performance.now() - began) / 1000, 1);
    say(`${runtime}: cursor rows: ${walked.length} filters walked, ${count.requests} requests in ${walkS} s; ${evictors.length} other filters computed twice`);
    agent.destroy();
    const page = (f: string, cursor: string | null) => `${f}&limit=${CURSOR_PAGE_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    // The last of each list is asked alone (its wall time, its total) and kept out of the run.
    const lists = [
      { name: CURSOR_PAGE_1, paths: page1Filters.map((f) => page(f, null)) },
      { name: CURSOR_PAGE_200, paths: walked.map((w) => page(w.filter, w.cursor)) },
    ];
    const n = Math.min(...lists.map((l) => l.paths.length)) - 1;
    const rows: EventsRun[] = [];
    for (const l of lists) {
      const probeBegan = performance.now();
      const probe = await eventsPage(server.base, l.paths[n]);
      const singleMs = round(performance.now() - probeBegan, 1);
      const runPaths = l.paths.slice(0, n);
      const counting = countCache(server.base);
      const load = await measure(ctx, server.base, server.child, `${runtime} service`, server.stderr,
        { distinctPaths: runPaths, once: true, connections: Math.min(ctx.opts.connections, Math.max(1, Math.floor(n / 4))) }, counting.start);
      const cacheHitRate = await counting.rate();
      const reference = rows[0];
      rows.push({ name: l.name, kind: 'distinct', group: 'cursor', path: runPaths[0], total: probe.total, bodyBytes: probe.bytes, singleMs, load,
        ratioToContent: null, cacheHitRate, paths: runPaths.length,
        ...(reference ? { reference: reference.name, ratioToReference: reference.load.rps > 0 ? round(load.rps / reference.load.rps, 3) : null } : {}) });
      say(`${runtime}: ${l.name}: ${load.rps} req/s over ${load.requests} requests (${load.durationS} s), p99 ${load.latencyMs.p99} ms; cache hit rate ${cacheHitRate}`);
    }
    const [p1, p200] = rows.map((r) => r.load.rps);
    return { rows, setup: { filters: walked.length, windowDays, walkRequests: count.requests, walkS, evicted: evictors.length, checked },
      ratio: p200 > 0 ? round(p1 / p200, 3) : null };
  } finally {
    agent.destroy();
  }
}

/** The names of the distinct cursor rows (the report reads them). */
const CURSOR_PAGE_1 = 'distinct filter, page 1';
const CURSOR_PAGE_200 = 'distinct filter, page 200 (its cursor walked in the set-up)';

/**
 * Waits until each of `workers` threads answers /readyz (a thread listens once its model is built; connections
 * the load generator opens before would all go to the threads already listening).
 */
async function everyThreadServing(base: string, workers: number): Promise<void> {
  if (workers === 1) return;
  const seen = new Set<number>();
  const deadline = performance.now() + LARGE_START_TIMEOUT_MS;
  while (seen.size < workers) {
    if (performance.now() > deadline) throw new Error(`only threads ${[...seen].join(', ')} of ${workers} answered /readyz`);
    const ready = JSON.parse((await get(`${base}/readyz`)).body.toString('utf8')) as { thread?: number };
    if (ready.thread !== undefined) seen.add(ready.thread);
    await sleep(20);
  }
}

/** Serving threads compared: `--workers 1` and `--workers 2`. */
const WORKER_COUNTS = [1, 2];

/**
 * Rounds of one thread then two, per load generator: a run of the same service on this machine moves by 10-40%
 * from minute to minute (one thread's CPU a question was 222 µs in one run and 312 in the next), and a ratio of
 * two single runs took all of it. The target is judged on the ratio of the rounds' mean req/s.
 */
const WORKER_ROUNDS = 2;

/** Distinct paths for the serving-threads runs: wrk sends more a second than autocannon, and none may repeat. */
const WORKERS_DISTINCT_PATHS = 150_000;

/**
 * The same distinct near 5 km questions against the service started with one serving thread and with two, side
 * by side, nothing pinned: the server may use both cores, and the load generator shares them. Each count is run
 * with autocannon and, when Debian's wrk is there (installed when missing), with wrk, whose own CPU takes less of
 * the two cores from the server (scripts/bench/run-wrk.ts), in WORKER_ROUNDS rounds of one thread then two. A
 * fresh service for each run; RSS is the whole process's after the load, every thread counted.
 */
async function benchWorkers(ctx: Ctx, runtime: RuntimeName, mapId: string, extra: string[]): Promise<WorkersRun[]> {
  const runs: WorkersRun[] = [];
  const paths = distinctPaths('near5km', mapId, WORKERS_DISTINCT_PATHS);
  const generators: LoadGenerator[] = ['autocannon', ...(ctx.wrk ? ['wrk' as const] : [])];
  for (const generator of generators) {
    for (let round = 1; round <= WORKER_ROUNDS; round++) {
      for (const workers of WORKER_COUNTS) {
        say(`${runtime}: --workers ${workers}, unpinned, ${generator}, round ${round} of ${WORKER_ROUNDS}`);
        const { server } = await startService(runtime, [...extra, '--workers', String(workers)], `/maps/${mapId}`, LARGE_START_TIMEOUT_MS,
          `large-${runtime}-workers-${workers}-${generator}-${round}`, ctx.opts.serviceLogLevel, null);
        let completed = false;
        try {
          await everyThreadServing(server.base, workers);
          const counting = countCache(server.base);
          const load = await measure(ctx, server.base, server.child, `${runtime} service (--workers ${workers}, ${generator})`, server.stderr,
            { distinctPaths: paths }, counting.start, null, generator);
          const cacheHitRate = await counting.rate();
          const rssMb = readRss(server.child.pid).rssMb;
          say(`${runtime}: --workers ${workers}, ${generator}: ${load.rps} req/s, p99 ${load.latencyMs.p99} ms, RSS ${rssMb} MB`);
          runs.push({ workers, generator, round, load, cacheHitRate, rssMb });
          completed = true;
        } finally {
          await stopServer(server, ctx.opts.keepLogs || !completed);
        }
      }
    }
  }
  return runs;
}

/** The large-dataset phase over every runtime. */
async function benchLarge(ctx: Ctx, demo: RuntimeDemo[]): Promise<LargePhase> {
  const { opts } = ctx;
  if (!opts.phases.includes('large')) return notRun(`--only ${opts.phases.join(',')}`);
  if (opts.skipLarge) return notRun(skipLargeReason(opts));
  if (!(await ensureLargeBundle(ctx))) return notRun(`no ${opts.largeBundle} and no scripts/bench/make-large.ts to generate it`);
  const mapId = await scanMapId(opts.largeBundle);
  const counts = await countBundle(opts.largeBundle);
  const dataDir = largeDataDir(opts.largeBundle);
  const extra = ['--bundle', opts.largeBundle, '--data-dir', dataDir];
  // The first start builds the snapshot (initdb and a 1M-event load: minutes) or reuses it; every measured start is a second one.
  say(`first large start on ${opts.runtimes[0]} (builds the snapshot when there is none; may take minutes)`);
  const builder = await startServer(opts.runtimes[0], extra, LARGE_BUILD_TIMEOUT_MS);
  const loadedLine = builder.output().split('\n').find((l) => l.includes('"msg":"content loaded"'));
  if (loadedLine) ctx.notes.push(`large first start (${opts.runtimes[0]}): ${loadedLine.trim()}`);
  // The events as served: a series counts by its occurrences, which the bundle does not list.
  counts.events = await servedEvents(builder.base, mapId);
  await builder.stop();
  let aim: { near: string; bbox: string; tags: string; source: string } | null = null;
  const aimOnce = async (base: string) => (aim ??= await aimLarge(base, mapId));
  const runtimes: RuntimeLarge[] = [];
  for (const runtime of opts.runtimes) {
    try {
      const contentRps = demo.find((d) => d.runtime === runtime)?.contentRps ?? null;
      const run = await benchLargeRuntime(ctx, runtime, mapId, extra, aimOnce, contentRps, counts.events ?? 0);
      runtimes.push(run);
      if (opts.rows.includes('workers')) run.workers = await benchWorkers(ctx, runtime, mapId, extra);
    } catch (err) {
      ctx.failures.push(`${runtime} large: ${(err as Error).message}`);
    }
  }
  const settled = aim as { near: string; bbox: string; tags: string; source: string } | null;
  return {
    status: 'ran', bundle: shownPath(opts.largeBundle),
    bundleBytes: statSync(opts.largeBundle).size, mapId, counts,
    aim: settled ?? { near: '', bbox: '', tags: '', source: 'not aimed' }, runtimes,
  };
}

/** Runs filters.ts on the large bundle (same snapshot directory as the service) and keeps its JSON. */
async function benchFilters(ctx: Ctx): Promise<FiltersPhase> {
  const { opts } = ctx;
  if (!opts.phases.includes('filters')) return notRun(`--only ${opts.phases.join(',')}`);
  if (opts.skipLarge) return notRun(skipLargeReason(opts));
  if (opts.skipFilters) return notRun('--skip-filters');
  if (!existsSync(FILTERS)) return notRun('scripts/bench/filters.ts does not exist yet');
  if (!existsSync(opts.largeBundle)) return notRun(`no ${opts.largeBundle}`);
  say('filters.ts: the in-process filter against PGlite SQL');
  const json = join(ctx.tmp, 'filters.json');
  const child = spawnTracked([process.execPath, FILTERS, '--bundle', opts.largeBundle, '--data-dir', largeDataDir(opts.largeBundle),
    '--json', json], { cpu: SERVER_CPU });
  child.stdout?.resume();
  const err = collectTail(child.stderr);
  const code = await waitExit(child, 60 * 60_000, 'filters.ts');
  if (code !== 0) throw new Error(`filters.ts exited ${code}: ${err().slice(-1500)}`);
  return { status: 'ran', result: JSON.parse(await readFile(json, 'utf8')) };
}

// ---------------------------------------------------------------------------------------------------------------
// Phase 4: publishing on Node (scripts/bench/publish.ts)

/** Servers on the server core, the load generator on the load core (spawnTracked pins only when the machine can). */
const PUBLISH_CORES = { server: SERVER_CPU, load: LOAD_CPU };

/** Why a publishing phase does not run, or null when it does. */
function publishSkipped(opts: Ctx['opts']): string | null {
  if (!opts.phases.includes('publish')) return `--only ${opts.phases.join(',')}`;
  if (!opts.runtimes.includes('node')) return 'publishing is measured on Node, and node is not in --runtimes';
  return null;
}

/** Publishing under load on the demo: a baseline run, then a run during 10 SIGHUP publishes. */
async function benchPublish(ctx: Ctx): Promise<PublishPhase> {
  const { opts } = ctx;
  const skipped = publishSkipped(opts);
  if (skipped) return notRun(skipped);
  await mkdir(LOG_DIR, { recursive: true });
  const logFile = join(LOG_DIR, 'publish-demo.log');
  let completed = false;
  try {
    const r = await measurePublishUnderLoad({
      bundle: DEMO_BUNDLE, workDir: join(BENCH_DIR, 'publish-demo'), durationS: Math.max(2, opts.durationS), warmupS: opts.warmupS,
      connections: PUBLISH_CONNECTIONS, publishes: PUBLISHES, logLevel: opts.serviceLogLevel ?? 'warn', cores: PUBLISH_CORES,
      logFile, say,
    });
    completed = true;
    say(`publish: failed ${r.failed.during} (baseline ${r.failed.baseline}); p99 ${r.during.load.latencyMs.p99} ÷ ${r.baseline.load.latencyMs.p99} ms; ` +
      `/healthz slowest ${r.during.healthz.slowestMs} ms; SIGHUP to served median ${r.sighupMedianMs} ms, max ${r.sighupMaxMs} ms`);
    return { status: 'ran', ...r };
  } finally {
    if (completed && !opts.keepLogs) await rm(logFile, { force: true });
  }
}

/** The 1M-event first load into an empty data directory, then SIGHUPs with one event title edited. */
async function benchPublishLarge(ctx: Ctx, large: LargePhase): Promise<LargePublishPhase> {
  const { opts } = ctx;
  const skipped = publishSkipped(opts);
  if (skipped) return notRun(skipped);
  if (opts.skipLarge) return notRun(skipLargeReason(opts));
  if (!(await ensureLargeBundle(ctx))) return notRun(`no ${opts.largeBundle} and no scripts/bench/make-large.ts to generate it`);
  await mkdir(LOG_DIR, { recursive: true });
  const logFile = join(LOG_DIR, 'publish-large.log');
  const events = large.status === 'ran' ? large.counts.events ?? null : (await countBundle(opts.largeBundle)).events ?? null;
  let completed = false;
  try {
    const r = await measureLargePublish({
      bundle: opts.largeBundle, workDir: join(BENCH_DIR, 'publish-large'), publishes: LARGE_PUBLISHES,
      firstLoadTimeoutMs: LARGE_FIRST_LOAD_TIMEOUT_MS, publishTimeoutMs: LARGE_PUBLISH_TIMEOUT_MS, logLevel: opts.serviceLogLevel,
      logFile, events, say,
    });
    if (r.skipped) ctx.notes.push(`publishing, large bundle: ${r.skipped}`);
    completed = r.skipped === null;
    return { status: 'ran', ...r, events };
  } finally {
    if (completed && !opts.keepLogs) await rm(logFile, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Phase 5: a fleet over PostgreSQL (scripts/bench/fleet.ts)

/** Publishes on the demo to two replicas, the database's load, and the 1M-event start from PostgreSQL. */
async function benchFleet(ctx: Ctx): Promise<FleetPhase> {
  const { opts } = ctx;
  if (!opts.phases.includes('fleet')) return notRun(`--only ${opts.phases.join(',')}`);
  if (!opts.runtimes.includes('node')) return notRun('the fleet is measured on Node, and node is not in --runtimes');
  const large = !opts.skipLarge && (await ensureLargeBundle(ctx)) ? opts.largeBundle : null;
  const r = await measureFleet({ workDir: join(BENCH_DIR, 'fleet'), publishes: opts.quick ? 2 : 5, largeBundle: large, say });
  if (!large) ctx.notes.push(`fleet: no 1M-event rows (${skipLargeReason(opts)})`);
  return { status: 'ran', ...r };
}

// ---------------------------------------------------------------------------------------------------------------
// Main

/** Counts of the demo bundle. */
function demoCounts(bundle: DemoBundle): Record<string, number | string> {
  return {
    bundle: 'data/demo-bundle.json', bytes: statSync(DEMO_BUNDLE).size, maps: bundle.maps.length, markers: bundle.markers.length,
    paths: bundle.paths.length, polygons: bundle.polygons.length, categories: bundle.categories.length,
    events: bundle.events.length, lists: bundle.lists.length, associations: bundle.associations.length,
  };
}

/**
 * `--render FILE [--out PATH]`: writes a report again from the raw results of an earlier run (FILE: the report, or
 * its raw JSON) with this commit's renderer and target rules, measuring nothing: paths inside the repository are
 * shown relative to it. The header keeps the commit measured; a note names the commit that rendered it.
 */
async function rerender(from: string, out: string): Promise<number> {
  const text = await readFile(from, 'utf8');
  const raw = from.endsWith('.json') ? text : /^## Raw results\n\n```json\n([\s\S]*)\n```\s*$/m.exec(text)?.[1];
  if (!raw) throw new Error(`${from} holds no raw results (the JSON block under "## Raw results")`);
  const result = JSON.parse(raw, (_key, value: unknown) => (typeof value === 'string' && value.startsWith(ROOT) ? shownPath(value) : value)) as BenchResult;
  const rendering = readCommit();
  result.notes.push(`rendered again from these raw results by \`node scripts/bench.ts --render\` at ${rendering.head ?? 'an unknown commit'}` +
    `${rendering.clean ? '' : ' (work tree not clean)'}: nothing was measured again`);
  result.targets = evaluateTargets(result);
  await writeFile(out, renderReport(result));
  console.log(`wrote ${out} from the raw results in ${from}`);
  return 0;
}

/** Runs everything and writes the document (or, with --render, writes it again); resolves with the exit code. */
async function main(): Promise<number> {
  const renderAt = process.argv.indexOf('--render');
  if (renderAt >= 0) {
    const from = process.argv[renderAt + 1];
    if (!from) throw new Error('--render needs the report (or raw JSON) to render again');
    const outAt = process.argv.indexOf('--out');
    return rerender(resolve(from), resolve(outAt >= 0 ? process.argv[outAt + 1] : join(ROOT, 'docs/benchmarks.md')));
  }
  const opts = parseBenchArgs(process.argv.slice(2));
  const began = performance.now();
  const machine = describeBenchMachine();
  const commit = readCommit();
  const gate = loadGate(machine.loadAvgStart);
  say(`load gate ${gate.text}`);
  // wrk first (installed when missing), so its version is read with the others.
  const wrk = opts.phases.includes('large') && opts.rows.includes('workers') && wrkAvailable(say) !== null;
  const versions = readBenchVersions();
  say(`${machine.cpuModel}, ${machine.cores} cores; ${machine.pinningNote}`);
  say(`node ${versions.node}, bun ${versions.bun}, ${versions.deno}; ${opts.durationS} s runs, ${opts.connections} connections`);
  const ctx: Ctx = { opts, tmp: await mkdtemp(join(tmpdir(), 'bench-answers-')), notes: [], failures: [], wrk };
  if (opts.phases.includes('large') && opts.rows.includes('workers') && !wrk) ctx.notes.push('wrk could not be installed: the serving-threads rows were measured with autocannon only');
  try {
    await mkdir(BENCH_DIR, { recursive: true });
    // The demo data directory is throwaway: the first start of each run writes it afresh.
    await rm(join(BENCH_DIR, 'data-demo'), { recursive: true, force: true });
    const bundle = JSON.parse(await readFile(DEMO_BUNDLE, 'utf8')) as DemoBundle;
    const requests = demoRequests(bundle, Date.now());
    const demo: RuntimeDemo[] = [];
    for (const runtime of opts.phases.includes('demo') ? opts.runtimes : []) {
      try {
        demo.push(await benchDemo(ctx, runtime, requests));
      } catch (err) {
        ctx.failures.push(`${runtime} demo: ${(err as Error).message}`);
        say(`${runtime} demo FAILED: ${(err as Error).message}`);
      }
    }
    let large: LargePhase;
    try {
      large = await benchLarge(ctx, demo);
    } catch (err) {
      ctx.failures.push(`large dataset: ${(err as Error).message}`);
      large = notRun(`failed: ${(err as Error).message.split('\n')[0]}`);
    }
    let filters: FiltersPhase;
    try {
      filters = await benchFilters(ctx);
    } catch (err) {
      ctx.failures.push(`filters: ${(err as Error).message}`);
      filters = notRun(`failed: ${(err as Error).message.split('\n')[0]}`);
    }
    let publish: PublishPhase;
    try {
      publish = await benchPublish(ctx);
    } catch (err) {
      ctx.failures.push(`publishing under load: ${(err as Error).message}`);
      say(`publishing under load FAILED: ${(err as Error).message}`);
      publish = notRun(`failed: ${(err as Error).message.split('\n')[0]}`);
    }
    let publishLarge: LargePublishPhase;
    try {
      publishLarge = await benchPublishLarge(ctx, large);
    } catch (err) {
      ctx.failures.push(`publishing, large bundle: ${(err as Error).message}`);
      say(`publishing, large bundle FAILED: ${(err as Error).message}`);
      publishLarge = notRun(`failed: ${(err as Error).message.split('\n')[0]}`);
    }
    let fleet: FleetPhase;
    try {
      fleet = await benchFleet(ctx);
    } catch (err) {
      ctx.failures.push(`fleet: ${(err as Error).message}`);
      say(`fleet FAILED: ${(err as Error).message}`);
      fleet = notRun(`failed: ${(err as Error).message.split('\n')[0]}`);
    }
    const { out, largeBundle, keepLogs, skipFilters, ...options } = opts;
    void largeBundle; void keepLogs; void skipFilters;
    const result: BenchResult = {
      generatedAt: new Date().toISOString(), command: ['node', 'scripts/bench.ts', ...process.argv.slice(2)].join(' '), commit,
      elapsedS: Math.round((performance.now() - began) / 1000), options, machine, versions,
      datasets: { demo: demoCounts(bundle), large: large.status === 'ran'
        ? { bundle: large.bundle, bytes: large.bundleBytes, ...large.counts } : null },
      demo, large, filters, publish, publishLarge, fleet, targets: [], failures: ctx.failures, notes: ctx.notes,
    };
    // The report's header gives both load averages and the load gate's verdict on the start (by the end the load
    // average includes this benchmark's own servers and load generator).
    machine.loadAvgEnd = readLoadAverage();
    result.targets = evaluateTargets(result);
    await mkdir(resolve(out, '..'), { recursive: true });
    await writeFile(out, renderReport(result));
    for (const t of result.targets) console.log(`${t.holds.padEnd(12)} ${t.name}: ${t.measured}`);
    for (const f of ctx.failures) console.log(`FAILED: ${f}`);
    console.log(`wrote ${out} in ${result.elapsedS} s`);
    return ctx.failures.length > 0 ? 1 : 0;
  } finally {
    await rm(ctx.tmp, { recursive: true, force: true });
  }
}

await runMain('bench', main);
