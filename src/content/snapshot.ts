/**
 * Data snapshots: PGlite's data directory after a bundle was loaded, kept on disk and named by the bundle's
 * checksum. Reopening one skips initdb and the load, and an on-disk database keeps the content out of
 * memory (a million events would not fit the RSS budget in PGlite's in-memory file system). A changed
 * bundle, schema or PostgreSQL setting has another name, so a stale snapshot is never used, only rebuilt.
 *
 * A snapshot is used in place by one process at a time (a lock file holds its pid); another process
 * that finds it locked works on a private copy, removed when it closes.
 */
import { cp, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { POSTGRES_CONF } from '../db/pglite.ts';
import { CREATE_SCHEMA, INSERT } from '../db/schema.ts';
import { hash53 } from '../http/hash.ts';
import { EventTable, TABLE_FORMAT } from './model/event-table.ts';

/** Changes whenever what a snapshot holds could change for the same bundle. */
const SCHEMA_FINGERPRINT = hash53(JSON.stringify([CREATE_SCHEMA, INSERT, POSTGRES_CONF, TABLE_FORMAT])).toString(36);

/** The directory name of the snapshot of a bundle with this SHA-256 checksum. */
export function snapshotName(checksum: string): string {
  return `pg-${SCHEMA_FINGERPRINT}-${checksum.slice(0, 32)}`;
}

/** A data directory this process may open, and how to give it back. */
export interface ClaimedDir {
  path: string;
  /** Unlocks it, or deletes it when it was a private copy. */
  release(): Promise<void>;
}

/** True when a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock file of a snapshot; false when a live process holds it. */
async function lock(lockPath: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(await readFile(lockPath, 'utf8').catch(() => ''));
      if (owner > 0 && alive(owner)) return false;
      await rm(lockPath, { force: true }); // left by a process that died
    }
  }
  return false;
}

/** A new private directory name in `dir`, owned by this process. */
function privateName(dir: string): string {
  return join(dir, `tmp-${process.pid}-${crypto.randomUUID()}`);
}

/** A private directory that is deleted on release. */
function privateDir(path: string): ClaimedDir {
  return { path, release: () => rm(path, { recursive: true, force: true }) };
}

/**
 * Claims the snapshot for `checksum` in `dir`: in place under a lock, or as a private copy when another
 * process holds it. Null when there is no such snapshot.
 */
export async function claimSnapshot(dir: string, checksum: string): Promise<ClaimedDir | null> {
  const path = join(dir, snapshotName(checksum));
  try {
    await readFile(join(path, 'PG_VERSION'));
  } catch {
    return null;
  }
  const lockPath = `${path}.lock`;
  if (await lock(lockPath)) return { path, release: () => rm(lockPath, { force: true }) };
  const copy = privateName(dir);
  await cp(path, copy, { recursive: true });
  return privateDir(copy);
}

/** A private directory in `dir` to build a new snapshot in (created empty). */
export async function newSnapshotDir(dir: string): Promise<ClaimedDir> {
  await mkdir(dir, { recursive: true });
  const path = privateName(dir);
  await mkdir(path);
  return privateDir(path);
}

/**
 * Publishes a fully built (and closed) private directory as the snapshot for `checksum`, and removes
 * snapshots of other bundles that no live process holds, and private directories of dead processes.
 * Returns the snapshot's path, or null when another process published the same snapshot first.
 */
export async function publishSnapshot(dir: string, built: string, checksum: string): Promise<string | null> {
  const path = join(dir, snapshotName(checksum));
  try {
    await rename(built, path);
  } catch (err) {
    if (['ENOTEMPTY', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '')) return null;
    throw err;
  }
  for (const name of await readdir(dir)) {
    const full = join(dir, name);
    const tmp = /^tmp-(\d+)-/.exec(name);
    if (tmp && !alive(Number(tmp[1]))) await rm(full, { recursive: true, force: true });
    if (/^pg-[^.]+$/.test(name) && full !== path && await lock(`${full}.lock`)) {
      await rm(full, { recursive: true, force: true });
      await rm(`${full}.lock`, { force: true });
    }
  }
  return path;
}

/**
 * What a start from the snapshot builds its read model from, without validating or parsing the whole bundle
 * again: the validated bundle as loaded (ids lower-cased and the like) without its events, and the event
 * tables as they were held in memory.
 */
const LOADED_BUNDLE = 'loaded-bundle.json';
const EVENT_TABLES = 'event-tables.bin';

/** Keeps the loaded content in a snapshot directory being built. */
export async function writeLoadedContent(snapshotDir: string, bundle: { events: unknown[] }, tables: readonly EventTable[]): Promise<void> {
  await writeFile(join(snapshotDir, LOADED_BUNDLE), JSON.stringify({ ...bundle, events: [] }));
  const file = await open(join(snapshotDir, EVENT_TABLES), 'w');
  try {
    for (const chunk of EventTable.encode(tables)) await file.write(chunk);
  } finally {
    await file.close();
  }
}

/** Reads the loaded content kept in a snapshot directory. */
export async function readLoadedContent(snapshotDir: string): Promise<{ bundle: unknown; tables: EventTable[] }> {
  const [text, bytes] = await Promise.all([
    readFile(join(snapshotDir, LOADED_BUNDLE), 'utf8'), readFile(join(snapshotDir, EVENT_TABLES)),
  ]);
  return { bundle: JSON.parse(text), tables: EventTable.decode(bytes) };
}

/** True when `dir` holds the snapshot for `checksum`. */
export async function hasSnapshot(dir: string, checksum: string): Promise<boolean> {
  return readFile(join(dir, snapshotName(checksum), 'PG_VERSION')).then(() => true, () => false);
}

/** Removes the snapshot for `checksum` (one that failed to open). */
export async function removeSnapshot(dir: string, checksum: string): Promise<void> {
  const path = join(dir, snapshotName(checksum));
  await rm(path, { recursive: true, force: true });
  await rm(`${path}.lock`, { force: true });
}
