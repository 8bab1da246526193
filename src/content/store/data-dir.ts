/**
 * The data directory: `store/` (the embedded PostgreSQL's files, the system of record), `model/` (derived
 * caches of content versions), `lock.sock`, which says that a live process owns the directory,
 * `server.pid`, the owner's pid once it serves, and `store.damaged-<time>/`, each a store found damaged and moved
 * aside (kept for whoever wants to look into it; nothing reads or removes it).
 *
 * The lock is a listening Unix socket, not a file holding a pid: the operating system closes it when its
 * process dies however it dies, so a lock never outlives its owner, whatever pid the next process gets (a
 * container's process is always pid 1). A second process that finds the lock answered leaves the store alone
 * and serves from the caches; one that finds it dead takes it over. The lock answers whoever connects with its
 * owner's pid, so `server.pid` is only believed when the lock confirms it: a pid file left by a crash, whose pid
 * the system may since have given to any other process, is never signalled.
 */
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';

/** Where the store's database files live. */
export const storePath = (dataDir: string) => join(dataDir, 'store');
/** Where the derived model caches live. */
export const cachesPath = (dataDir: string) => join(dataDir, 'model');
const lockPath = (dataDir: string) => join(dataDir, 'lock.sock');
/** Where the owner writes its pid once it serves (for `reload`, and for a service manager's PIDFile). */
export const pidFilePath = (dataDir: string) => join(dataDir, 'server.pid');

/** What the lock answers: this service's name and its owner's pid, so `reload` never takes another program's socket for it. */
const OWNER_LINE = /^destination-map-content (\d+)\n/;

/** The warning of a process that found the data directory owned by another live one. */
export const ownedElsewhere = (dataDir: string) => `another running process owns the data directory ${dataDir}: its caches are read, its store is left alone`;

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
    const server = createServer((socket) => {
      // A client that hangs up first (lockDataDir's own probe) must not make the write an uncaught error.
      socket.on('error', () => socket.destroy());
      socket.end(`destination-map-content ${process.pid}\n`);
    });
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
 * Creates a directory and its missing parents, one level at a time. Not `mkdir(path, { recursive: true })`: on a
 * parent that exists but refuses a new entry with ENOENT (any path under /proc), Node's recursive mkdir retries for
 * ever, silently, on every thread of its pool; here that parent's ENOENT is thrown, as any unwritable place's error is.
 */
async function makeDirectories(path: string): Promise<void> {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      await stat(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.push(dir);
      if (dirname(dir) === dir) break;
    }
  }
  for (const dir of missing.reverse()) {
    await mkdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
}

/**
 * Takes the lock of a data directory (creating the directory); null when a live process holds it. Throws
 * when the directory cannot be created or written (read-only, full): the caller decides what that means.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock | null> {
  await makeDirectories(dataDir);
  const path = socketPath(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const server = await listen(path);
      // A pid file left by an owner that died is not this process's: `reload` must find none until it serves.
      await unlink(pidFilePath(dataDir)).catch(() => {});
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

/**
 * The pid of the live process that owns a data directory, asked of its lock: null when no process holds it,
 * `unknown` when one does but does not say its pid (a release before the lock answered it).
 */
export function askOwner(dataDir: string): Promise<number | 'unknown' | null> {
  return new Promise((resolve) => {
    const socket = createConnection(socketPath(dataDir));
    let text = '';
    const done = (answer: number | 'unknown' | null) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setEncoding('utf8');
    socket.setTimeout(3000, () => done('unknown'));
    socket.on('data', (chunk: string) => {
      text += chunk;
      const m = OWNER_LINE.exec(text);
      if (m) done(Number(m[1]));
    });
    socket.once('end', () => done('unknown'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(['ENOENT', 'ECONNREFUSED'].includes(err.code ?? '') ? null : 'unknown'));
  });
}

/**
 * Writes `server.pid` when this process owns the data directory (its lock answers this pid), and returns how to
 * remove it; null when another process owns the directory, or none does (a store in memory): that process
 * writes nothing there.
 */
export async function writePidFile(dataDir: string): Promise<{ remove(): Promise<void> } | null> {
  if ((await askOwner(dataDir)) !== process.pid) return null;
  const path = pidFilePath(dataDir);
  await writeFile(path, `${process.pid}\n`);
  return { remove: () => unlink(path).catch(() => {}) };
}

/** The pid a data directory's `server.pid` names; null when there is no such file or it holds no pid. */
export async function readPidFile(dataDir: string): Promise<number | null> {
  const text = await readFile(pidFilePath(dataDir), 'utf8').catch(() => '');
  const m = /^(\d+)\s*$/.exec(text);
  return m ? Number(m[1]) : null;
}

/**
 * Moves the store of a data directory aside, to `store.damaged-<UTC time>` (with `-2`, `-3`… after a name taken),
 * and answers where it went (null when there is no store): a damaged store is kept, never removed, since it may
 * hold what no bundle does.
 */
export async function setStoreAside(dataDir: string): Promise<string | null> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  for (let n = 1; ; n++) {
    const path = join(dataDir, `store.damaged-${stamp}${n > 1 ? `-${n}` : ''}`);
    if (await stat(path).then(() => true, () => false)) continue;
    try {
      await rename(storePath(dataDir), path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    return path;
  }
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
