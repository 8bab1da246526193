/**
 * Opening the embedded PGlite database that stores the content, fresh or from a data-directory tarball.
 */
import { PGlite } from '@electric-sql/pglite';

/** The slice of PGlite the service uses; a real PostgreSQL client can stand in for it. */
export interface Db {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
  transaction<T>(fn: (tx: Pick<Db, 'query' | 'exec'>) => Promise<T>): Promise<T>;
  /** The whole data directory as a gzipped tarball, to reopen later without initdb. */
  dumpDataDir(compression: 'gzip'): Promise<Blob | File>;
  close(): Promise<void>;
}

/**
 * PGlite's own files, for a runtime that cannot read them from node_modules (a compiled binary
 * embeds them and passes them in).
 */
export interface PgliteAssets {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
  fsBundle: Blob;
}

/** How to open the database. */
export interface OpenOptions {
  /** Keep the database in this directory instead of in memory. */
  dataDir?: string;
  /** Start from this data snapshot (a `dumpDataDir` tarball) instead of running initdb. */
  snapshot?: Blob;
  assets?: PgliteAssets;
}

/**
 * PostgreSQL settings.
 * - The read path serves from memory and PGlite answers only publishes, so a small buffer pool is enough:
 *   16 MB instead of the default 128 MB saves about 180 MB of RSS.
 * - A publish creates and fills a version's tables in one transaction, which `wal_level=minimal` lets
 *   PostgreSQL write without WAL: much faster for large bundles, and nothing replicates from this database.
 * - What WAL there is is checkpointed often and its old segments removed rather than kept for reuse, so the
 *   store's directory holds about 64 MB of WAL, not the default 1 GB.
 */
export const POSTGRES_CONF = ['shared_buffers=16MB', 'wal_level=minimal', 'max_wal_senders=0', 'min_wal_size=32MB', 'max_wal_size=64MB'];

/** Opens PGlite (the store applies its migrations). */
export async function openDb(options: OpenOptions = {}): Promise<Db> {
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.snapshot ? { loadDataDir: options.snapshot } : {}),
    ...options.assets,
    postgresqlconf: POSTGRES_CONF,
  });
  return db as unknown as Db;
}
