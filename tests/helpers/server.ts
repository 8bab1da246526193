/**
 * Starting the real server as a child process on a real port, under Node, Bun or Deno.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}node_modules/.bin/`;

/**
 * How Node starts the service: as `npm start` does, with Node's own type stripping; but under coverage (c8 sets
 * NODE_V8_COVERAGE), through tsx as the test process loads the sources. c8 merges V8's coverage of a file across
 * processes before it maps it back to the source, and the coverage of the same file run as Node strips it and as
 * tsx compiles it does not merge: event-table.ts came out 12% covered by tests that run it thoroughly, once servers
 * ran it the other way. The HTTP-level suite runs without coverage, so it runs the service exactly as users do, and
 * `erasableSyntaxOnly` in tsconfig.json keeps every source fit for Node's type stripping.
 */
const NODE_SERVICE = process.env.NODE_V8_COVERAGE ? [process.execPath, '--import', 'tsx', 'src/serve/node.ts'] : [process.execPath, 'src/serve/node.ts'];

/** How each runtime starts the service (the same commands as the npm scripts). */
export const RUNTIMES: Record<'node' | 'bun' | 'deno', readonly string[]> = {
  node: NODE_SERVICE,
  bun: [`${BIN}bun`, 'src/serve/bun.ts'],
  deno: [`${BIN}deno`, 'run', '--allow-net', '--allow-read', '--allow-write', '--allow-env', 'src/serve/deno.ts'],
};

/** A runtime name. */
export type Runtime = keyof typeof RUNTIMES;

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
  const [cmd, ...rest] = RUNTIMES[runtime];
  const child = spawn(cmd, [...rest, ...args], { cwd: ROOT, env: { ...process.env, PORT: '', HOST: '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}

/**
 * Starts the service on an ephemeral port of 127.0.0.1 and waits until it listens and its content is loaded
 * (the log line `ready` matches: by default "content loaded"; a replica logs "content followed").
 */
export async function startServer(runtime: Runtime, args: string[] = [], timeoutMs = 60_000,
  env: Record<string, string> = {}, ready = /"msg":"content loaded"/): Promise<RunningServer> {
  const [cmd, ...rest] = RUNTIMES[runtime];
  const child = spawn(cmd, [...rest, '--port', '0', '--host', '127.0.0.1', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
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
