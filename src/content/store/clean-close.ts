/**
 * The record of a store closed cleanly: `store-closed.json` in the data directory. The publisher writes it after it
 * closed the store in the data directory (the version the store makes current, its sessions, when that version's events
 * last changed, and a fingerprint of the
 * store's files), and removes it before it opens the store again. A start that owns the directory and finds the record,
 * with every file of the store as the record saw it (path, size, modification time), knows what the store holds
 * without opening it: it serves that version's verified model cache, and opens the store only when something must be
 * written (src/content/prebuilt-publisher.ts). Anything else (no record, another release's, a store touched since, a
 * cache that does not verify) opens the store as before.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MIGRATIONS } from '../../db/schema.ts';
import { storePath } from './data-dir.ts';
import type { SessionRow, VersionInfo } from './sql-store.ts';
import type { ChangeSummary } from '../changes.ts';

/** Where the record is kept. */
export const cleanClosePath = (dataDir: string) => join(dataDir, 'store-closed.json');

/** The record's format: a record of another format is not read. */
const FORMAT = 2;

/** What a cleanly closed store holds. */
export interface ClosedStore {
  /** The version the store makes current. */
  current: VersionInfo;
  /** The stored sessions, as SqlStore.readSessions answers them. */
  sessions: SessionRow[];
  /** When the current version's events last changed (SqlStore.recordChanges). */
  changes: ChangeSummary | null;
}

interface CleanCloseRecord extends ClosedStore {
  format: number;
  /** The migrations of the release that closed it: another release opens the store (it may migrate it). */
  migrations: number;
  /** The fingerprint of the store's files when it was closed. */
  store: string;
}

/** Every file under `dir` (recursively) with its size and modification time, hashed in path order. */
async function fingerprint(dir: string): Promise<string> {
  const lines: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(dir, rel), { withFileTypes: true });
    for (const entry of entries) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        await walk(path);
      } else {
        // The modification time in whole milliseconds, cut from nanoseconds: Deno knows only milliseconds, and Node's
        // mtime, made from a float, can round up where the others cut (a store closed on one runtime, read on another).
        const s = await stat(join(dir, path), { bigint: true });
        lines.push(`${path}\t${s.size}\t${s.mtimeNs / 1_000_000n}`);
      }
    }
  };
  await walk('');
  return createHash('sha256').update(lines.sort().join('\n')).digest('hex');
}

/** Writes the record for a store just closed (a temporary file renamed into place). */
export async function writeCleanClose(dataDir: string, closed: ClosedStore): Promise<void> {
  const record: CleanCloseRecord = { format: FORMAT, migrations: MIGRATIONS.length, ...closed, store: await fingerprint(storePath(dataDir)) };
  const path = cleanClosePath(dataDir);
  const temporary = `${path}.tmp-${randomUUID()}`;
  try {
    await writeFile(temporary, JSON.stringify(record));
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
}

/** What the record says the store holds, when there is one of this release and the store's files are as it saw them; else null. */
export async function readCleanClose(dataDir: string): Promise<ClosedStore | null> {
  try {
    const record = JSON.parse(await readFile(cleanClosePath(dataDir), 'utf8')) as CleanCloseRecord;
    if (record.format !== FORMAT || record.migrations !== MIGRATIONS.length || !record.current || !Array.isArray(record.sessions)) return null;
    if (record.store !== await fingerprint(storePath(dataDir))) return null;
    return { current: record.current, sessions: record.sessions, changes: record.changes ?? null };
  } catch {
    return null;
  }
}

/** Removes the record: the store is about to be opened, and may change. */
export function forgetCleanClose(dataDir: string): Promise<void> {
  return rm(cleanClosePath(dataDir), { force: true });
}
