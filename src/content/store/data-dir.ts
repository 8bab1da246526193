/**
 * The data directory: `store/` (the embedded PostgreSQL's files, the system of record), `model/` (derived
 * caches of content versions) and `lock.sock`, which says that a live process owns the directory.
 *
 * The lock is a listening Unix socket, not a file holding a pid: the operating system closes it when its
 * process dies however it dies, so a lock never outlives its owner, whatever pid the next process gets (a
 * container's process is always pid 1). A second process that finds the lock answered leaves the store alone
 * and serves from the caches; one that finds it dead takes it over.
 */
import { mkdir, readdir, rm, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { join, relative } from 'node:path';

/** Where the store's database files live. */
export const storePath = (dataDir: string) => join(dataDir, 'store');
/** Where the derived model caches live. */
export const cachesPath = (dataDir: string) => join(dataDir, 'model');
const lockPath = (dataDir: string) => join(dataDir, 'lock.sock');

/** A held lock on a data directory. */
export interface DataDirLock { release(): Promise<void> }

/** Unix socket paths are limited to about 107 bytes: use the shorter of the absolute and relative forms. */
function socketPath(dataDir: string): string {
  const path = lockPath(dataDir);
  const rel = relative(process.cwd(), path);
  return rel.length < path.length ? rel : path;
}

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      server.unref();
      resolve(server);
    });
  });
}

/**
 * True unless the socket is certainly dead: missing (ENOENT) or refused (ECONNREFUSED). Anything else counts
 * as a live owner (Bun's client sees ECONNRESET, not `connect`, from a server that closes at once).
 */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(!['ENOENT', 'ECONNREFUSED'].includes(err.code ?? '')));
  });
}

/**
 * Takes the lock of a data directory (creating the directory); null when a live process holds it. Throws
 * when the directory cannot be created or written (read-only, full): the caller decides what that means.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock | null> {
  await mkdir(dataDir, { recursive: true });
  const path = socketPath(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const server = await listen(path);
      return {
        release: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => unlink(path).catch(() => {})),
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      if (await answers(path)) return null;
      await unlink(path).catch(() => {}); // left by a process that died
    }
  }
  return null;
}

/** Removes what earlier releases kept in a data directory (per-bundle snapshots, their locks and copies). */
export async function removeOldLayout(dataDir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dataDir).catch(() => [] as string[])) {
    if (!/^(pg-[^/]+|tmp-\d+-.+)$/.test(name)) continue;
    await rm(join(dataDir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
