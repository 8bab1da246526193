/**
 * Data snapshots: PGlite's data directory after a bundle was loaded, saved as a tarball named by the
 * bundle's checksum. Reopening one skips initdb and the load (seconds of start-up); a changed bundle,
 * schema or PostgreSQL setting has another name, so a stale snapshot is never used, only rebuilt.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { POSTGRES_CONF } from '../db/pglite.ts';
import { CREATE_SCHEMA, INSERT } from '../db/schema.ts';
import { hash53 } from '../http/hash.ts';

/** Changes whenever what a snapshot holds could change for the same bundle. */
const SCHEMA_FINGERPRINT = hash53(JSON.stringify([CREATE_SCHEMA, INSERT, POSTGRES_CONF])).toString(36);

/** Prefix and suffix of every snapshot file, so old ones can be found and removed. */
const PREFIX = 'snapshot-';
const SUFFIX = '.tar.gz';

/** The file name of the snapshot of a bundle with this SHA-256 checksum. */
export function snapshotFileName(checksum: string): string {
  return `${PREFIX}${SCHEMA_FINGERPRINT}-${checksum.slice(0, 32)}${SUFFIX}`;
}

/** Reads the snapshot for `checksum` from `dir`; null when there is none. */
export async function readSnapshot(dir: string, checksum: string): Promise<Blob | null> {
  try {
    return new Blob([await readFile(join(dir, snapshotFileName(checksum)))]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Writes the snapshot for `checksum` into `dir` (atomically: a temporary file, then a rename) and removes
 * snapshots of other bundles, which a restart would never use again.
 */
export async function writeSnapshot(dir: string, checksum: string, snapshot: Blob): Promise<string> {
  await mkdir(dir, { recursive: true });
  const name = snapshotFileName(checksum);
  const path = join(dir, name);
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  await writeFile(temporary, new Uint8Array(await snapshot.arrayBuffer()));
  await rename(temporary, path);
  for (const other of await readdir(dir)) {
    if (other !== name && other.startsWith(PREFIX) && other.endsWith(SUFFIX)) await rm(join(dir, other), { force: true });
  }
  return path;
}

/** Removes the snapshot for `checksum` (one that failed to open). */
export async function removeSnapshot(dir: string, checksum: string): Promise<void> {
  await rm(join(dir, snapshotFileName(checksum)), { force: true });
}
