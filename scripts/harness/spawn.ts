/**
 * Child processes of a measurement: spawned from the repository root, pinned to a core when the machine can pin,
 * under an open-file limit when asked, every one tracked so that an error or Ctrl-C stops them all (by pid, only
 * this process's own children); and waiting for them, stopping them, and a free port for a server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { canPin, ROOT } from './machine.ts';

/** How to spawn a command. */
export interface SpawnOptions {
  /** The core to pin it to (taskset -c, which execs it: the pid is the command's own); ignored when the machine cannot pin. */
  cpu?: string | null;
  /** Where its stdout goes (truncated first); a pipe when not given. */
  stdoutFile?: string;
  /** Its open-file limit, soft and hard (set by bash before exec); inherited when not given. */
  fdLimit?: number | null;
  /** A pipe to its stdin; ignored when not asked for. */
  stdin?: boolean;
}

/** The exit code of a command whose open-file limit could not be set. */
export const FD_LIMIT_FAILED = 97;

const children = new Set<ChildProcess>();

/**
 * `command` pinned with taskset when `cpu` is given and the machine can pin, and run through bash with its
 * open-file limit set first when `fdLimit` is given (soft and hard: a runtime raises its soft limit to the hard one
 * at start); `exec` keeps the pid the command's own.
 */
export function wrapCommand(command: readonly string[], cpu: string | null = null, fdLimit: number | null = null): string[] {
  const pinned = cpu !== null && canPin() ? ['taskset', '-c', cpu, ...command] : [...command];
  return fdLimit === null ? pinned : ['bash', '-c', `ulimit -n ${fdLimit} || exit ${FD_LIMIT_FAILED}; exec "$@"`, 'bash', ...pinned];
}

/** Spawns `command` in the repository root, tracked until it exits (see SpawnOptions); stderr is a pipe. */
export function spawnTracked(command: readonly string[], o: SpawnOptions = {}): ChildProcess {
  const [cmd, ...args] = wrapCommand(command, o.cpu ?? null, o.fdLimit ?? null);
  const fd = o.stdoutFile ? openSync(o.stdoutFile, 'w') : null;
  const child = spawn(cmd, args, { cwd: ROOT, stdio: [o.stdin ? 'pipe' : 'ignore', fd ?? 'pipe', 'pipe'] });
  if (fd !== null) closeSync(fd);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGKILLs every tracked child still running (on an error or Ctrl-C). */
export function killChildren(): void {
  for (const child of children) if (!hasExited(child)) child.kill('SIGKILL');
}

/** Whether a child has exited. */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Waits for a child to exit: its exit code; SIGKILLs it and rejects after `timeoutMs`. */
export function waitExit(child: ChildProcess, timeoutMs: number, what: string): Promise<number | null> {
  if (hasExited(child)) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not finish in ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.once('exit', (code) => { clearTimeout(timer); resolve(code); });
  });
}

/** Stops a child: SIGTERM, then SIGKILL after `graceMs`; resolves with its exit code once it has exited. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<number | null> {
  if (hasExited(child)) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** Keeps the last 64 KB of a stream: `() => text` for diagnostics (never a whole access log). */
export function collectTail(stream: NodeJS.ReadableStream | null | undefined): () => string {
  let text = '';
  stream?.on('data', (d: Buffer) => { text = (text + d).slice(-65_536); });
  return () => text;
}

/** A free TCP port on 127.0.0.1. */
export function pickPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
