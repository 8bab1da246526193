/**
 * Starting the real server as a child process on a real port, under Node, Bun or Deno.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawRequest } from './http.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}node_modules/.bin/`;

/**
 * The services the tests start run as users run them (Node as `npm start` does, with its own type stripping; the test
 * command adds V8 flags, below) and collect no coverage: coverage is that of the test processes, which load the sources
 * through tsx. Node hands a test process's NODE_V8_COVERAGE to every child whose environment has none, so it is emptied
 * here, in the helper every test that starts the service imports. Collecting it made every start dearer (the service
 * then ran through tsx), and c8 cannot merge a file's coverage run both ways: it merges V8's coverage before mapping it
 * to the source (event-table.ts came out 12% covered). docs/decisions.md (The test command's time) has what it cost and
 * what the gates see without it. `erasableSyntaxOnly` in tsconfig.json keeps every source fit for type stripping.
 */
if (process.env.NODE_V8_COVERAGE) process.env.NODE_V8_COVERAGE = '';
/**
 * V8 flags the test command runs Node with, the services included (TEST_NODE_FLAGS, set by scripts/run-tests.ts and
 * said why there); the benchmark and reliability scripts, which measure the service as shipped, set none.
 */
const NODE_FLAGS = (process.env.TEST_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const NODE_SERVICE = [process.execPath, ...NODE_FLAGS, 'src/serve/node.ts'];

/** How each runtime starts the service (the same commands as the npm scripts). */
export const RUNTIMES: Record<'node' | 'bun' | 'deno', readonly string[]> = {
  node: NODE_SERVICE,
  bun: [`${BIN}bun`, 'src/serve/bun.ts'],
  deno: [`${BIN}deno`, 'run', '--allow-net', '--allow-read', '--allow-write', '--allow-env', 'src/serve/deno.ts'],
};

/** A runtime name. */
export type Runtime = keyof typeof RUNTIMES;

/** Every runtime, Node first. */
export const RUNTIME_NAMES = Object.keys(RUNTIMES) as Runtime[];

/**
 * Where a process-level test is declared, by what it checks (docs/decisions.md, Which runtimes a process-level
 * test runs on). The HTTP-level suite runs whole on every runtime; a test that starts the service runs on Node, and
 * on Bun and Deno too when what it checks reaches something that runtime provides itself (`'runtime'`): its HTTP
 * server and connections, signals, worker threads, file watching, the data directory's lock, the errors its file
 * system gives (ENOSPC, EROFS), its permissions and network. What follows such an event (what the service rebuilds
 * from which file, which version it serves) is the same JavaScript on every runtime (`'service'`), and runs on Node.
 */
export function declaredOn(runtime: Runtime, reaches: 'runtime' | 'service'): boolean {
  return reaches === 'runtime' || runtime === 'node';
}

/**
 * The directory to make a temporary directory in for what a service on `runtime` reads and writes. The test command
 * keeps its files in memory (/dev/shm; scripts/run-tests.ts says why), but Deno refuses every path under /dev
 * without --allow-all, which the service is not run with: its files go to TEST_DISK_TMPDIR, on disk.
 */
export function tmpdirFor(runtime: Runtime): string {
  return runtime === 'deno' && process.env.TEST_DISK_TMPDIR ? process.env.TEST_DISK_TMPDIR : tmpdir();
}

/** The directories made by `reachableBy`, by runtime and the directory each stands in for. */
const standIns = new Map<string, string>();

/**
 * `dir` (a test file's working directory, made in tmpdir()) when a service on `runtime` can use it, else a directory
 * of the same purpose that it can (made once, in tmpdirFor(runtime), and removed when the test process exits).
 */
export function reachableBy(runtime: Runtime, dir: string): string {
  if (tmpdirFor(runtime) === tmpdir()) return dir;
  const key = `${runtime}:${dir}`;
  if (!standIns.has(key)) {
    const made = mkdtempSync(join(tmpdirFor(runtime), `${basename(dir)}-`));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    standIns.set(key, made);
  }
  return standIns.get(key)!;
}

/**
 * Refuses to start Deno on a path under /dev: it would refuse the path, and the service then serves from memory
 * what it could not keep on disk (with a warning), so a test would pass checking the wrong thing.
 */
export function assertDenoCanReach(runtime: Runtime, args: string[]): void {
  const under = args.find((arg) => /^\/dev\/(?!null$)/.test(arg));
  if (runtime === 'deno' && under) {
    throw new Error(`Deno refuses paths under /dev without --allow-all, and ${under} is one: make it in tmpdirFor('deno')`);
  }
}

/** A running server. */
export interface RunningServer {
  base: string;
  port: number;
  child: ChildProcess;
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Runs the service to completion (for start-up failures and --help). */
export async function runToExit(runtime: Runtime, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  assertDenoCanReach(runtime, args);
  const [cmd, ...rest] = RUNTIMES[runtime];
  const child = spawn(cmd, [...rest, ...args], { cwd: ROOT, env: { ...process.env, PORT: '', HOST: '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}

/** The data directories of starts given none, by the directory they are made in (see defaultDataDir). */
const defaultDataDirs = new Map<string, string>();

/**
 * The data directory of a start given none (no --data-dir, no DATA_DIR from the test): one the test run owns, never
 * the service's default `.data` in the working tree (or a DATA_DIR of the developer's environment), where `npm test`
 * would publish the demo over a developer's own store. Under the test command (TEST_SCRATCH_DIR set) the whole run
 * shares one in tmpdirFor(runtime), as such starts shared `.data`: the first publishes the demo, and later ones serve
 * what it closed cleanly. Outside it, one per process.
 */
function defaultDataDir(runtime: Runtime): string {
  const dir = tmpdirFor(runtime);
  if (!defaultDataDirs.has(dir)) {
    if (process.env.TEST_SCRATCH_DIR) defaultDataDirs.set(dir, join(dir, 'dmcs-default-data'));
    else {
      const made = mkdtempSync(join(dir, 'dmcs-default-data-'));
      process.once('exit', () => rmSync(made, { recursive: true, force: true }));
      defaultDataDirs.set(dir, made);
    }
  }
  return defaultDataDirs.get(dir)!;
}

/**
 * Starts the service on an ephemeral port of 127.0.0.1 and waits until it listens and its content is loaded
 * (the log line `ready` matches: by default "content loaded"; a replica logs "content followed"). Given no data
 * directory, it gets the test run's (defaultDataDir).
 */
export async function startServer(runtime: Runtime, args: string[] = [], timeoutMs = 60_000,
  env: Record<string, string> = {}, ready = /"msg":"content loaded"/): Promise<RunningServer> {
  assertDenoCanReach(runtime, args);
  const [cmd, ...rest] = RUNTIMES[runtime];
  const dataDir = args.includes('--data-dir') || env.DATA_DIR ? {} : { DATA_DIR: defaultDataDir(runtime) };
  const child = spawn(cmd, [...rest, '--port', '0', '--host', '127.0.0.1', ...args], { cwd: ROOT, env: { ...process.env, ...dataDir, ...env } });
  let out = '';
  let started = false;
  child.stderr!.on('data', (d) => (out += d));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${runtime} did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    child.stdout!.on('data', (d) => {
      out += d;
      // Once started, only collect: the access log can grow long, and matching it again per chunk would be quadratic.
      if (started) return;
      const m = /"msg":"listening".*?"port":(\d+)/.exec(out);
      if (m && ready.test(out)) { started = true; clearTimeout(timer); resolve(Number(m[1])); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${runtime} exited with ${code}:\n${out}`)); });
  });
  return {
    base: `http://127.0.0.1:${port}`, port, child, output: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      return code;
    },
  };
}

/**
 * Waits until every serving thread of `server` (`threads`, as its --workers says) answers /readyz with `version`.
 * Threads take up a new version each on its own (src/serve/serving-threads.ts), and the kernel spreads connections
 * over them at random, so a run of answers from one connection after another proves nothing: each thread must have
 * been heard from by number (a thread that once serves a version keeps it until the next publish). Fails after `ms`.
 */
export async function waitForEveryThread(server: RunningServer, threads: number, version: number, ms = 60_000): Promise<void> {
  const began = performance.now();
  const serving = new Set<number>();
  while (serving.size < threads) {
    const body = await rawRequest(`${server.base}/readyz`).then((r) => JSON.parse(r.body.toString()) as { version?: number; thread?: number }, () => null);
    if (body?.version === version) serving.add(body.thread ?? 0);
    else await new Promise((resolve) => setTimeout(resolve, 20));
    if (serving.size < threads && performance.now() - began > ms) {
      throw new Error(`threads ${[...serving].join(', ') || 'none'} of ${threads} serve version ${version} after ${ms} ms\n${server.output().slice(-3000)}`);
    }
  }
}
