/**
 * The machine a measurement runs on, as the reports describe it: CPU, cores, memory, OS, the load average, the
 * versions of the runtimes and of autocannon, the commit checked out, and whether processes can be pinned to cores.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES } from '../../tests/helpers/server.ts';
import { round } from './stats.ts';

/** The repository's root directory. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A path as a report shows it: relative to the repository when inside it (no machine's own directories), else as given. */
export function shownPath(path: string): string {
  const inside = relative(ROOT, path);
  return inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/** Servers run on this core and load generators on the other one (when the machine can pin). */
export const SERVER_CPU = '0';
export const LOAD_CPU = '1';

/** CPU, cores, memory and OS. */
export interface MachineFacts {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  os: string;
  kernel: string;
}

/** CPU model, cores, memory (GiB) and the OS's name and kernel. */
export function describeMachine(): MachineFacts {
  const cpuList = cpus();
  let os: string = process.platform;
  try {
    os = /PRETTY_NAME="?([^"\n]+)"?/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? os;
  } catch {
    // No os-release: the platform name will do.
  }
  return { cpuModel: cpuList[0]?.model.trim() ?? 'unknown', cores: cpuList.length, memoryGb: round(totalmem() / 2 ** 30, 1), os, kernel: release() };
}

/** The 1, 5 and 15-minute load averages now, to two decimals. */
export function readLoadAverage(): number[] {
  return loadavg().map((x) => round(x, 2));
}

let tasksetFound: boolean | null = null;

/** Whether taskset is installed (asked once). */
export function hasTaskset(): boolean {
  tasksetFound ??= spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
  return tasksetFound;
}

/** Whether servers and load generators can be pinned to cores of their own: taskset, and at least two cores. */
export function canPin(): boolean {
  return hasTaskset() && cpus().length >= 2;
}

/** The first line a command prints when asked its version, or `unavailable (why)`. */
function readVersionLine(cmd: string, args: readonly string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.split('\n')[0].trim() : `unavailable (${(r.stderr || String(r.error)).trim().slice(0, 80)})`;
}

/** The commit a run measured: its full hash (null outside a git checkout), whether the work tree was clean, its subject. */
export interface Commit {
  head: string | null;
  /** False when tracked files have uncommitted changes or untracked files are present: the numbers are then not the commit's alone. */
  clean: boolean;
  subject: string;
}

/** The commit checked out in the repository, read with git. */
export function readCommit(): Commit {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  const head = git('rev-parse', 'HEAD');
  if (head.status !== 0) return { head: null, clean: false, subject: '' };
  const status = git('status', '--porcelain');
  return {
    head: head.stdout.trim(),
    clean: status.status === 0 && status.stdout.trim() === '',
    subject: git('log', '-1', '--format=%s').stdout.trim().slice(0, 100),
  };
}

/** Versions of the three runtimes and of autocannon. */
export function readVersions(): Record<string, string> {
  const autocannon = JSON.parse(readFileSync(join(ROOT, 'node_modules/autocannon/package.json'), 'utf8')) as { version: string };
  return { node: process.version, bun: readVersionLine(RUNTIMES.bun[0], ['--version']), deno: readVersionLine(RUNTIMES.deno[0], ['--version']),
    autocannon: autocannon.version };
}
