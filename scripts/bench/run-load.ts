/**
 * One bounded load run with autocannon: a warm-up (discarded), then the measured run, against one URL on
 * 127.0.0.1, or several paths of it that each connection sends in turn (`--path`, repeated). `runLoadPinned`
 * runs it in a child process pinned to a CPU core (taskset), so the load generator never shares a core with
 * the server it measures; the child also runs as a CLI:
 *
 *   node scripts/bench/run-load.ts --url http://127.0.0.1:PORT/path --duration 8 --connections 32 --warmup 1
 *   node scripts/bench/run-load.ts --url http://127.0.0.1:PORT --path /a --path /b --duration 600 --warmup 0
 *   node scripts/bench/run-load.ts --url http://127.0.0.1:PORT --distinct-paths-file paths.json   # each request the next path
 *   node scripts/bench/run-load.ts --url http://127.0.0.1:PORT --distinct-paths-file paths.json --once   # each path once, no more
 *
 * and prints one line of JSON (a LoadResult). It writes `measuring` to stderr when the measured run begins;
 * SIGUSR2 ends the measured run before `--duration` (scripts/bench/publish.ts stops it after its last publish).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuSeconds } from '../harness/process-stats.ts';
import { spawnTracked } from '../harness/spawn.ts';
import { round } from '../harness/stats.ts';

/** What to load and for how long. */
export interface LoadOptions {
  url: string;
  /** Seconds of the measured run. */
  durationS: number;
  connections: number;
  /** Seconds of warm-up before it (0: none). */
  warmupS: number;
  headers?: Record<string, string>;
  /** Paths of `url` that each connection sends in turn, instead of `url` itself. */
  paths?: string[];
  /**
   * Paths of `url` sent one after another across all connections (each request takes the next; the warm-up
   * uses the first ones, so the measured run starts on paths no request has asked for yet), the way a fleet of
   * apps asks distinct questions. Wraps around when they run out, unless `once`.
   */
  distinctPaths?: string[];
  /**
   * With `distinctPaths`: send each path once, never wrapping around (a path sent again could be answered from a
   * cache). The warm-up sends the first share of them (warmupS ÷ (warmupS + durationS)), the measured run the rest,
   * and ends when they are all answered or after `durationS`, whichever comes first: a run of few paths is short.
   */
  once?: boolean;
  /**
   * With `once`: the paths the warm-up sends (each once) instead of the first share of `distinctPaths`, which the
   * measured run then sends whole (without a warm-up, `warmupS` 0, none of them). For a row of few distinct paths, whose first share would warm the code too little:
   * the warm-up's paths are others of the same kind, so no cache holds a measured one.
   */
  warmupPaths?: string[];
  /**
   * The server's pid: after the warm-up, wait (up to 15 s) until it is idle, so requests the warm-up left
   * behind (sockets closed, work still queued) are not charged to the measured run.
   */
  drainPid?: number;
}

/** The numbers kept from one measured run. */
export interface LoadResult {
  url: string;
  connections: number;
  durationS: number;
  /** True when SIGUSR2 ended the measured run before its duration. */
  stoppedEarly: boolean;
  /** Completed requests of the measured run. */
  requests: number;
  /** Completed requests per second (total / actual duration). */
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; avg: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Bytes received per response, headers included (a cheap check that full bodies came back). */
  bytesPerResponse: number;
  /** CPU time of the load generator over the measured run, % of one core (near 100: it, not the server, was the limit). */
  generatorCpuPct: number;
  /** CPU time of the server process over the warm-up and the run, % of one core (filled in by the caller that knows the pid). */
  serverCpuPct?: number;
}

/** The slice of autocannon's result object used here. */
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  requests: { total: number };
  throughput: { total: number };
}

/** autocannon ships no types: this is the call used, whose instance is a thenable with stop(). */
type Autocannon = (opts: Record<string, unknown>) => PromiseLike<AutocannonResult> & { stop(): void };

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Waits until a process uses under 10% of a core over 200 ms, or 15 s have passed. */
export async function waitIdle(pid: number): Promise<void> {
  const deadline = performance.now() + 15_000;
  let last = cpuSeconds(pid);
  while (last !== null && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    const now = cpuSeconds(pid);
    if (now === null || now - last < 0.02) return;
    last = now;
  }
}

/** Only loopback targets: a benchmark run must never send load anywhere else. */
export function checkLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1') throw new Error(`refusing to load ${url}: only http://127.0.0.1 targets are allowed`);
}

/**
 * How a `once` run splits its distinct paths: the warm-up's share (warmupS ÷ (warmupS + durationS), none without a
 * warm-up) and the measured run's rest, each at least one path; null when the run is timed, not bounded.
 */
export function boundedAmounts(o: Pick<LoadOptions, 'distinctPaths' | 'once' | 'warmupS' | 'durationS' | 'warmupPaths'>): { warmup: number; measured: number } | null {
  if (!o.once || !o.distinctPaths) return null;
  const n = o.distinctPaths.length;
  if (o.warmupPaths && o.warmupPaths.length > 0) return { warmup: o.warmupS > 0 ? o.warmupPaths.length : 0, measured: n };
  if (n < 2) throw new Error(`a run that sends each path once needs at least 2 paths, not ${n}`);
  const warmup = o.warmupS > 0 ? Math.min(n - 1, Math.max(1, Math.floor((n * o.warmupS) / (o.warmupS + o.durationS)))) : 0;
  return { warmup, measured: n - warmup };
}

/** How often autocannon samples a bounded run, in ms: how close to its last answer it notices the run is over. */
const BOUNDED_SAMPLE_MS = 10;

/** Runs the warm-up and the measured run in this process. */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  checkLoopback(o.url);
  const bounded = boundedAmounts(o);
  // A warm-up of paths of its own sends them first, then the measured run every distinct path.
  const distinct = bounded && bounded.warmup > 0 && o.warmupPaths ? [...o.warmupPaths, ...o.distinctPaths!] : o.distinctPaths;
  let next = 0;
  const requests = distinct
    ? [{ method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: distinct[next++ % distinct.length] }) }]
    : o.paths?.map((path) => ({ method: 'GET', path }));
  const base = { url: o.url, connections: o.connections, headers: o.headers ?? {}, timeout: 10, ...(requests ? { requests } : {}) };
  // The warm-up lets JITs, caches and connection pools settle; its numbers are thrown away.
  if (bounded && bounded.warmup > 0) await autocannon({ ...base, amount: bounded.warmup, connections: Math.min(o.connections, bounded.warmup) });
  else if (!bounded && o.warmupS > 0) await autocannon({ ...base, duration: o.warmupS });
  if (o.drainPid !== undefined) await waitIdle(o.drainPid);
  // Tells a parent watching the server's CPU that the measured run starts now.
  process.stderr.write('measuring\n');
  const cpuBefore = process.cpuUsage();
  // autocannon notices that a run is over only at its next sample (every second by default), and counts the run's
  // duration to it: a bounded run of one to three seconds was timed as 1.01, 2.01 or 3.01 s, its req/s off by up to
  // half. Sampling every 10 ms ends it, and times it, within 10 ms of its last answer.
  const instance = autocannon(bounded
    ? { ...base, amount: bounded.measured, connections: Math.min(o.connections, bounded.measured), sampleInt: BOUNDED_SAMPLE_MS }
    : { ...base, duration: o.durationS });
  let stoppedEarly = false;
  const stop = () => { stoppedEarly = true; instance.stop(); };
  process.once('SIGUSR2', stop);
  // A bounded run still ends after its duration (autocannon's `amount` would wait for every path).
  const timer = bounded ? setTimeout(() => instance.stop(), o.durationS * 1000) : null;
  const r = await instance;
  if (timer) clearTimeout(timer);
  process.off('SIGUSR2', stop);
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = Math.max(r.duration, 0.001);
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = Number(count);
  return {
    url: o.url, connections: o.connections, durationS: round(r.duration, 3), stoppedEarly, requests: r.requests.total,
    rps: round(r.requests.total / seconds, 1),
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, avg: round(r.latency.average), max: r.latency.max },
    non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, statusCodes,
    bytesPerResponse: r.requests.total > 0 ? Math.round(r.throughput.total / r.requests.total) : 0,
    generatorCpuPct: Math.round((cpu.user + cpu.system) / 1e4 / seconds),
  };
}

/**
 * Runs `runLoad` in a child Node process, pinned with `taskset -c <cpu>` when `cpu` is given and the machine can
 * pin. The child is killed, and this rejects, if it has not finished well after its own time budget. `onMeasuring`
 * is called when the warm-up is over and the measured run begins.
 */
export function runLoadPinned(o: LoadOptions, cpu: string | null, onMeasuring?: () => void): Promise<LoadResult> {
  const args = [fileURLToPath(import.meta.url), '--url', o.url, '--duration', String(o.durationS),
    '--connections', String(o.connections), '--warmup', String(o.warmupS)];
  for (const [name, value] of Object.entries(o.headers ?? {})) args.push('--header', `${name}: ${value}`);
  if (o.drainPid !== undefined) args.push('--drain-pid', String(o.drainPid));
  for (const path of o.paths ?? []) args.push('--path', path);
  // Thousands of paths go through a file, not the command line.
  const files: string[] = [];
  const pathsFile = (paths: string[]) => {
    const file = join(tmpdir(), `run-load-paths-${process.pid}-${crypto.randomUUID()}.json`);
    writeFileSync(file, JSON.stringify(paths));
    files.push(file);
    return file;
  };
  if (o.distinctPaths) {
    args.push('--distinct-paths-file', pathsFile(o.distinctPaths));
    if (o.once) args.push('--once');
    if (o.warmupPaths) args.push('--warmup-paths-file', pathsFile(o.warmupPaths));
  }
  const cleanup = () => { for (const file of files) rmSync(file, { force: true }); };
  const budgetMs = (o.warmupS + o.durationS) * 1000 + 30_000;
  return new Promise((resolve, reject) => {
    const child = spawnTracked([process.execPath, ...args], { cpu });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => {
      err += d;
      if (onMeasuring && err.includes('measuring\n')) {
        onMeasuring();
        onMeasuring = undefined;
      }
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`load run against ${o.url} did not finish in ${budgetMs} ms`));
    }, budgetMs);
    child.once('error', (e) => { clearTimeout(timer); cleanup(); reject(e); });
    child.once('exit', (code) => {
      clearTimeout(timer);
      cleanup();
      if (code !== 0) return reject(new Error(`load run against ${o.url} exited with ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out) as LoadResult);
      } catch {
        reject(new Error(`load run against ${o.url} printed no result: ${out.slice(0, 500)} ${err.slice(0, 500)}`));
      }
    });
  });
}

/** Parses the CLI flags into load options. */
function parseLoadArgs(argv: string[]): LoadOptions {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      url: { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string' }, warmup: { type: 'string' },
      header: { type: 'string', multiple: true }, path: { type: 'string', multiple: true }, 'drain-pid': { type: 'string' },
      'distinct-paths-file': { type: 'string' }, once: { type: 'boolean' }, 'warmup-paths-file': { type: 'string' },
    },
  });
  if (!values.url) throw new Error('--url is required');
  const headers: Record<string, string> = {};
  for (const h of values.header ?? []) {
    const at = h.indexOf(':');
    if (at <= 0) throw new Error(`--header must be "name: value", not ${h}`);
    headers[h.slice(0, at).trim().toLowerCase()] = h.slice(at + 1).trim();
  }
  return {
    url: values.url, durationS: Number(values.duration ?? 8), connections: Number(values.connections ?? 32),
    warmupS: Number(values.warmup ?? 1), headers, ...(values.path ? { paths: values.path } : {}),
    ...(values['distinct-paths-file'] ? { distinctPaths: JSON.parse(readFileSync(values['distinct-paths-file'], 'utf8')) as string[] } : {}),
    ...(values['drain-pid'] ? { drainPid: Number(values['drain-pid']) } : {}), ...(values.once ? { once: true } : {}),
    ...(values['warmup-paths-file'] ? { warmupPaths: JSON.parse(readFileSync(values['warmup-paths-file'], 'utf8')) as string[] } : {}),
  };
}

if (import.meta.main) {
  try {
    console.log(JSON.stringify(await runLoad(parseLoadArgs(process.argv.slice(2)))));
  } catch (err) {
    console.error(String((err as Error).stack ?? err));
    process.exit(1);
  }
}
