/**
 * What the reliability probes share: starting the service (on the demo content, on any runtime, under a chosen
 * open-file limit, pinned to the server core when it can be), reading a process's RSS and limits from /proc,
 * the machine's facts for the report, and the result rows every probe returns. No CLI: scripts/reliability.ts
 * runs the probes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES, type Runtime } from '../../tests/helpers/server.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The demo's main map and the marker the README names. */
export const MAIN_MAP = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
export const MARKER = 'e5810d23-f0db-5cec-8426-91a6a6cf88c2';
/** The cached URL most probes load: every POI of the main map as GeoJSON. */
export const POIS_PATH = `/places-of-interest/map/${MAIN_MAP}`;

/** Servers run on this core and load generators on the other one (when taskset exists and there are 2+ cores). */
export const SERVER_CPU = '0';
export const LOAD_CPU = '1';

/** Whether processes can be pinned to cores (taskset, and at least two cores). */
export const PINNING = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0 && cpus().length >= 2;

/** Prints a progress line (stderr, so stdout stays free). */
export function say(text: string): void {
  console.error(`[reliability ${new Date().toISOString().slice(11, 19)}] ${text}`);
}

/** Rounds to `d` decimals. */
export function round(x: number, d = 2): number {
  return Math.round(x * 10 ** d) / 10 ** d;
}

/** A ratio as a percentage. */
export function pct(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------------
// Result rows

/** One measured line of a probe's table. */
export interface Row {
  runtime: string;
  /** What was measured. */
  measure: string;
  /** The measured value, as shown. */
  value: string;
  /** The target, as shown ('' when only reported). */
  target: string;
  /** Whether the target holds: null when there is no target. */
  pass: boolean | null;
}

/** What one probe returns for one runtime. */
export interface ProbeOutcome {
  rows: Row[];
  /** Remarks for the report (examples, what a number means, what was not measured). */
  notes: string[];
  /** The raw numbers, kept in the report's JSON. */
  raw: unknown;
}

/** A row with a target (`pass` given) or a reported value (no target). */
export function row(runtime: string, measure: string, value: string | number, target = '', pass: boolean | null = null): Row {
  return { runtime, measure, value: String(value), target, pass };
}

// ---------------------------------------------------------------------------------------------------------------
// Processes: every child is tracked and stopped on the way out

const children = new Set<ChildProcess>();

/** Spawns a tracked child (killed by `killChildren` on an error or Ctrl-C). */
export function spawnTracked(cmd: string, args: readonly string[], opts: Parameters<typeof spawn>[2] = {}): ChildProcess {
  const child = spawn(cmd, args, { cwd: ROOT, ...opts });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Kills whatever this harness started and is still running, by pid, only its own children. */
export function killChildren(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** The exit code bash uses here when `ulimit -n` cannot be set. */
const ULIMIT_FAILED = 97;

/**
 * A command run through bash with its open-file limit set first (soft and hard: a runtime raises its soft limit
 * to the hard one at start, so both are set), and pinned with taskset when `cpu` is given; `exec` keeps the pid
 * the command's own. With `fdLimit` 'max', the soft limit is raised to the hard one.
 */
export function wrapped(command: readonly string[], fdLimit: number | 'max' | null, cpu: string | null): [string, string[]] {
  const pinned = cpu !== null && PINNING ? ['taskset', '-c', cpu, ...command] : [...command];
  if (fdLimit === null) return [pinned[0], pinned.slice(1)];
  const set = fdLimit === 'max' ? 'ulimit -Sn "$(ulimit -Hn)"' : `ulimit -n ${fdLimit}`;
  return ['bash', ['-c', `${set} || exit ${ULIMIT_FAILED}; exec "$@"`, 'bash', ...pinned]];
}

/** A running service. */
export interface Service {
  runtime: Runtime;
  base: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** The last 64 KB of its output (stdout and stderr). */
  tail(): string;
  /** Lines it logged at level error (the first 20), and how many there were. */
  errors(): { count: number; first: string[] };
  /** Resolves with the exit code or signal and when it came (performance.now()). */
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** How to start the service. */
export interface ServiceOptions {
  /** The data directory (the store's snapshot; one per runtime, reused by its probes). */
  dataDir: string;
  /** The open-file limit to run under (soft and hard), or null: inherited. */
  fdLimit?: number | null;
  /** Extra service flags. */
  args?: string[];
  timeoutMs?: number;
}

/**
 * Starts the service on an ephemeral port of 127.0.0.1 with the demo content (the RUNTIMES command of
 * tests/helpers/server.ts), pinned to the server core, and waits for its "listening" and "content loaded" lines.
 * The access log is read and dropped as it comes (only a tail is kept), so a long run does not fill memory.
 */
export async function startService(runtime: Runtime, o: ServiceOptions): Promise<Service> {
  const [cmd, args] = wrapped([...RUNTIMES[runtime], '--port', '0', '--host', '127.0.0.1', '--data-dir', o.dataDir, ...(o.args ?? [])],
    o.fdLimit ?? null, SERVER_CPU);
  const child = spawnTracked(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  let head = '';
  let partial = '';
  let errorCount = 0;
  const firstErrors: string[] = [];
  const onData = (d: Buffer) => {
    const text = d.toString('utf8');
    tail = (tail + text).slice(-65_536);
    if (head.length < 65_536) head += text;
    // Error lines, found line by line across chunks.
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"level":"error"') && !/\berror\b/i.test(line.slice(0, 40))) continue;
      errorCount++;
      if (firstErrors.length < 20) firstErrors.push(line.slice(0, 500));
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() }));
  });
  const timeoutMs = o.timeoutMs ?? 120_000;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${runtime} did not start in ${timeoutMs} ms:\n${tail.slice(-2000)}`)); }, timeoutMs);
    const check = () => {
      const m = /"msg":"listening".*?"port":(\d+)/.exec(head);
      if (m && head.includes('"msg":"content loaded"')) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(code === ULIMIT_FAILED ? `could not set the open-file limit to ${o.fdLimit} (hard limit too low?)`
        : `${runtime} exited with ${code} before it was ready:\n${tail.slice(-2000)}`));
    });
  });
  return {
    runtime, base: `http://127.0.0.1:${port}`, port, pid: child.pid!, child, tail: () => tail,
    errors: () => ({ count: errorCount, first: firstErrors }), exited,
    async stop(graceMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const { code } = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Whether a child has exited. */
export const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

// ---------------------------------------------------------------------------------------------------------------
// /proc

/** VmRSS and VmHWM of a pid in MB (null when /proc cannot tell). */
export function readRss(pid: number): { rssMb: number | null; peakMb: number | null } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = (name: string) => {
      const m = new RegExp(`${name}:\\s+(\\d+) kB`).exec(status);
      return m ? round(Number(m[1]) / 1024, 1) : null;
    };
    return { rssMb: mb('VmRSS'), peakMb: mb('VmHWM') };
  } catch {
    return { rssMb: null, peakMb: null };
  }
}

/** The open-file limits of a pid ('self' for this process), or null. */
export function fdLimits(pid: number | 'self'): { soft: string; hard: string } | null {
  try {
    const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    return m ? { soft: m[1], hard: m[2] } : null;
  } catch {
    return null;
  }
}

/** Open file descriptors of a pid (its sockets among them), or null. */
export function openFds(pid: number): number | null {
  try {
    return spawnSync('ls', [`/proc/${pid}/fd`], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).length;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The machine

/** The facts the report opens with. */
export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  os: string;
  kernel: string;
  loadAvgStart: number[];
  pinning: string;
  /** This shell's open-file limits (the servers' and the socket holder's are set per probe). */
  fdLimit: { soft: string; hard: string } | null;
}

/** CPU, cores, memory, OS, load and limits. */
export function describeMachine(): Machine {
  const cpuList = cpus();
  let os: string = process.platform;
  try {
    os = /PRETTY_NAME="?([^"\n]+)"?/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? os;
  } catch {
    // No os-release: the platform name will do.
  }
  return {
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown', cores: cpuList.length, memoryGb: round(totalmem() / 2 ** 30, 1), os, kernel: release(),
    loadAvgStart: loadavg().map((x) => round(x, 2)),
    pinning: PINNING ? `servers on core ${SERVER_CPU}; load generators and socket holders on core ${LOAD_CPU} (taskset -c)` : 'not pinned',
    fdLimit: fdLimits('self'),
  };
}

/** The commit checked out, marked when the work tree has changes. */
export function describeCommit(): string {
  const head = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown (not a git checkout)';
  const subject = spawnSync('git', ['log', '-1', '--format=%s'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  return `${head.stdout.trim()}${dirty ? ' + uncommitted changes' : ''} (${subject.slice(0, 100)})`;
}

/** Versions of the runtimes and of autocannon. */
export function readVersions(): Record<string, string> {
  const first = (cmd: string, args: string[]) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 30_000 });
    return r.status === 0 ? r.stdout.split('\n')[0].trim() : 'unavailable';
  };
  const autocannon = JSON.parse(readFileSync(join(ROOT, 'node_modules/autocannon/package.json'), 'utf8')) as { version: string };
  return { node: process.version, bun: first(RUNTIMES.bun[0], ['--version']), deno: first(RUNTIMES.deno[0], ['--version']), autocannon: autocannon.version };
}

/** One GET with a fresh connection; status, headers and body text. */
export async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The response cache's hit and miss counters from /readyz, or null when it does not report them. */
export async function cacheCounters(base: string): Promise<{ hits: number; misses: number } | null> {
  try {
    const body = JSON.parse((await get(`${base}/readyz`)).text) as { response_cache?: { hits: number; misses: number } };
    return body.response_cache ?? null;
  } catch {
    return null;
  }
}

/** hits ÷ (hits + misses) between two readings, or null. */
export function hitRate(before: { hits: number; misses: number } | null, after: { hits: number; misses: number } | null): number | null {
  if (!before || !after) return null;
  const hits = after.hits - before.hits;
  const all = hits + after.misses - before.misses;
  return all > 0 ? round(hits / all, 3) : null;
}
