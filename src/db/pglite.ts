/**
 * Opening the embedded PGlite database that stores the content, fresh or from a data-directory tarball.
 *
 * A new store on disk starts from the committed empty store of the installed PGlite,
 * data/empty-store-pglite-<version>.tar.br (written by scripts/make-empty-store.ts), instead of running
 * initdb, which takes seconds; a missing or unusable one falls back to initdb.
 */
import { MemoryFS, PGlite, type Transaction } from '@electric-sql/pglite';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip } from 'node:zlib';
import type { Db, DbTx } from './db.ts';

/** The embedded database: the store's `Db`, and its whole data directory as a tarball, to reopen later without initdb. */
export interface PgliteDb extends Db {
  dumpDataDir(compression: 'gzip'): Promise<Blob | File>;
}

/** PGlite takes a bulk load's input as a blob read from `/dev/blob`. */
const fromBlob = (sql: string) => sql.replace(/\bFROM STDIN\b/i, "FROM '/dev/blob'");

/** The store's view of a PGlite transaction (or of the whole instance). */
function txOf(pg: Pick<Transaction, 'query' | 'exec'>): DbTx {
  return {
    query: async <T>(sql: string, params?: unknown[]) => pg.query<T>(sql, params),
    exec: (sql: string) => pg.exec(sql),
    copyIn: async (sql: string, data: string) => {
      await pg.query(fromBlob(sql), [], { blob: new Blob([data]) });
    },
  };
}

/** A PGlite instance as the store's `Db`. */
function dbOf(pg: PGlite): PgliteDb {
  return {
    ...txOf(pg),
    transaction: <T>(fn: (tx: DbTx) => Promise<T>) => pg.transaction((tx) => fn(txOf(tx))),
    dumpDataDir: (compression: 'gzip') => pg.dumpDataDir(compression),
    close: () => pg.close(),
  };
}

/**
 * PGlite's own files, for a runtime that cannot read them from node_modules (a compiled binary
 * embeds them and passes them in). The wasm modules may still be compiling: they are awaited only when
 * PGlite needs them, so the compile runs beside the rest of the start.
 */
export interface PgliteAssets {
  pgliteWasmModule: WebAssembly.Module | Promise<WebAssembly.Module>;
  initdbWasmModule: WebAssembly.Module | Promise<WebAssembly.Module>;
  fsBundle: Blob;
}

/** How to open the database. */
export interface OpenOptions {
  /** Keep the database in this directory instead of in memory. */
  dataDir?: string;
  /**
   * Start from this data snapshot instead of running initdb, in memory: a `dumpDataDir` tarball, or a ustar
   * archive such as tarDirectory writes (the single binary's empty store), either gzip-compressed or not.
   */
  snapshot?: Blob;
  /**
   * The empty store that a new store in `dataDir` (a missing or empty directory) is seeded from, instead of
   * running initdb. By default the committed one for the installed PGlite (see committedEmptyStore); none
   * when `assets` are given (PGlite's files then come from elsewhere, whatever version they are). `false`:
   * always run initdb. One that is missing, unreadable or made by another PGlite version is passed over.
   */
  emptyStore?: string | false;
  assets?: PgliteAssets;
  /**
   * Make a new store to be kept in memory (the single binary's empty store is made so): 1 MB WAL segments
   * instead of 16 MB, and WAL that is done with removed, not kept for reuse (MEMORY_CONF).
   */
  compact?: boolean;
}

/**
 * PostgreSQL settings.
 * - The read path serves from memory and PGlite answers only publishes, so a small buffer pool is enough: the
 *   default one would only cost RSS (docs/decisions.md, PostgreSQL settings).
 * - A publish creates and fills a version's tables in one transaction, which `wal_level=minimal` lets
 *   PostgreSQL write without WAL: much faster for large bundles, and nothing replicates from this database.
 * - What WAL there is is checkpointed often and its old segments removed rather than kept for reuse, so the
 *   store's directory holds little WAL (bounded by max_wal_size), not the default's gigabyte.
 */
export const POSTGRES_CONF = ['shared_buffers=16MB', 'wal_level=minimal', 'max_wal_senders=0', 'min_wal_size=32MB', 'max_wal_size=64MB'];

/**
 * A store in memory also removes WAL segments it is done with instead of renaming them for reuse: in memory a
 * kept segment is memory held, and making a new one costs nothing.
 */
export const MEMORY_CONF = [...POSTGRES_CONF, 'wal_recycle=off'];

/**
 * initdb's arguments for a compact store: its WAL in 1 MB segments, and from initdb on none kept for reuse
 * (initdb's own WAL would otherwise stay as segments renamed for later).
 */
const COMPACT_INITDB_ARGS = ['--wal-segsize=1', '--set', 'wal_recycle=off', '--set', 'min_wal_size=2MB'];

/** Opens PGlite (the store applies its migrations); a new store on disk is seeded from the empty store. */
export async function openDb(options: OpenOptions = {}): Promise<PgliteDb> {
  // Unpacked while the wasm modules may still be compiling.
  const seed = options.snapshot ? await snapshotFiles(options.snapshot) : null;
  const assets = options.assets && { ...options.assets,
    pgliteWasmModule: await options.assets.pgliteWasmModule, initdbWasmModule: await options.assets.initdbWasmModule };
  const create = async () => dbOf(await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(seed ? { fs: new SeededMemoryFS(seed) } : {}),
    ...assets,
    ...(options.compact ? { initDbStartParams: COMPACT_INITDB_ARGS } : {}),
    postgresqlconf: seed || options.compact ? MEMORY_CONF : POSTGRES_CONF,
  }));
  const { dataDir } = options;
  if (!dataDir || options.snapshot || options.emptyStore === false) return create();
  const emptyStore = options.emptyStore ?? (options.assets ? null : await committedEmptyStore());
  if (await seedStore(dataDir, emptyStore) !== 'seeded') return create();
  try {
    return await create();
  } catch {
    // A seeded store that will not start: initdb, as if there had been no empty store.
    clearDir(dataDir);
    return create();
  }
}

/** Where PGlite keeps the data directory in its own file system. */
const PGDATA = '/pglite/data';

/** A snapshot's directories and files: gunzipped when it is gzip, then read as a tar (PGlite's own dumps name members from `/`). */
async function snapshotFiles(snapshot: Blob): Promise<TarEntry[]> {
  let bytes = new Uint8Array(await snapshot.arrayBuffer());
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = await gunzipAsync(bytes, { chunkSize: 8 * 2 ** 20 });
  return readTar(bytes, { rooted: true });
}

/**
 * PGlite's in-memory file system with the data directory written into it before PostgreSQL starts, which
 * then finds a database and runs no initdb. PGlite's own `loadDataDir` holds the compressed tarball, the
 * unpacked one, a copy of each member and a copy of that in the file system all at once, and copies each
 * file twice on the way; here each file is copied once, to a buffer the file system owns, and the tar is let go.
 */
class SeededMemoryFS extends MemoryFS {
  private entries: TarEntry[] | null;

  constructor(entries: TarEntry[]) {
    super();
    this.entries = entries;
  }

  override async initialSyncFs(): Promise<void> {
    const fs = this.pg!.Module.FS;
    fs.mkdirTree(PGDATA, 0o700);
    for (const entry of this.entries ?? []) {
      const path = `${PGDATA}/${entry.path}`;
      if (!entry.data) {
        fs.mkdirTree(path, 0o700);
        continue;
      }
      const parent = path.slice(0, path.lastIndexOf('/'));
      if (!fs.analyzePath(parent).exists) fs.mkdirTree(parent, 0o700);
      // A copy of its own (a view would keep the whole tar alive), handed over rather than copied again.
      fs.writeFile(path, entry.data.slice(), { canOwn: true });
    }
    this.entries = null;
  }
}

/** The file name of the empty store made by PGlite `version`: the version it is valid for is part of it. */
export function emptyStoreName(version: string): string {
  return `empty-store-pglite-${version}.tar.br`;
}

const dataUrl = new URL('../../data/', import.meta.url);
/** Where the committed empty stores live (data/); empty where this module is not a file (a compiled binary). */
export const EMPTY_STORE_DIR = dataUrl.protocol === 'file:' ? fileURLToPath(dataUrl) : '';

let installed: Promise<string | null> | undefined;

/** The version of the PGlite in node_modules (its package.json); null when it cannot be read. */
export function pgliteVersion(): Promise<string | null> {
  installed ??= (async () => {
    try {
      const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.resolve('@electric-sql/pglite')), 'utf8'));
      return pkg.name === '@electric-sql/pglite' && typeof pkg.version === 'string' ? pkg.version : null;
    } catch {
      return null;
    }
  })();
  return installed;
}

/** The path of the committed empty store for the installed PGlite (whether or not it exists); null when its version is unknown. */
export async function committedEmptyStore(): Promise<string | null> {
  const version = await pgliteVersion();
  return version && EMPTY_STORE_DIR ? join(EMPTY_STORE_DIR, emptyStoreName(version)) : null;
}

/** What seeding a store directory did: `seeded`, or why it was not (initdb runs, or the store there opens). */
export type SeedOutcome = 'seeded' | 'not empty' | 'no empty store' | 'other PGlite version' | `unusable: ${string}`;

/**
 * Seeds a missing or empty store directory from an empty store (brotli-compressed tar of a fresh, cleanly
 * shut down PGlite data directory, named by emptyStoreName), so that PGlite finds a database and runs no
 * initdb. PG_VERSION is written last: a seeding cut short leaves a directory without it, which the publisher
 * takes for a damaged store and makes anew. A seeding that fails leaves the directory empty again.
 */
export async function seedStore(dataDir: string, emptyStore: string | null): Promise<SeedOutcome> {
  if (listDir(dataDir).length > 0) return 'not empty';
  if (!emptyStore) return 'no empty store';
  const version = await pgliteVersion();
  if (!version || basename(emptyStore) !== emptyStoreName(version)) return 'other PGlite version';
  let entries: TarEntry[];
  try {
    entries = readTar(await inflate(await readFile(emptyStore)));
    if (!entries.some((e) => e.path === 'PG_VERSION' && e.data)) throw new Error('it holds no PG_VERSION');
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return 'no empty store';
    return `unusable: ${(err as Error).message}`;
  }
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const last = entries.filter((e) => e.path === 'PG_VERSION');
    for (const entry of [...entries.filter((e) => e.path !== 'PG_VERSION'), ...last]) {
      const path = join(dataDir, entry.path);
      if (entry.data) writeFileSync(path, entry.data, { mode: 0o600 });
      else mkdirSync(path, { recursive: true, mode: 0o700 });
    }
    return 'seeded';
  } catch (err) {
    clearDir(dataDir);
    return `unusable: ${(err as Error).message}`;
  }
}

const brotliDecompressAsync = promisify(brotliDecompress);
const gunzipAsync = promisify(gunzip);
/** Unpacks an empty store off the thread, in large chunks (the default small ones cost a thread hop each, which was much slower). */
const inflate = (bytes: Uint8Array) => brotliDecompressAsync(bytes, { chunkSize: 8 * 2 ** 20 });

/** The names in a directory; none when it is missing or cannot be read. */
function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Removes what a directory holds, keeping the directory (it may be a mount point). */
function clearDir(dir: string): void {
  for (const name of listDir(dir)) rmSync(join(dir, name), { recursive: true, force: true });
}

/** A tar member: a directory (no data) or a regular file. */
export interface TarEntry {
  /** Relative, `/`-separated, without a trailing slash. */
  path: string;
  data: Uint8Array | null;
}

/** The value of a NUL- or space-terminated octal field of a tar header. */
function octal(header: Uint8Array, start: number, length: number): number {
  const text = new TextDecoder().decode(header.subarray(start, start + length)).replace(/^ +/, '').replace(/[\0 ].*$/s, '');
  if (!/^[0-7]+$/.test(text)) throw new Error('not a tar file: a bad number in a header');
  return parseInt(text, 8);
}

/** A NUL-terminated string field of a tar header. */
function field(header: Uint8Array, start: number, length: number): string {
  const bytes = header.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/**
 * The directories and regular files of a ustar archive, in order (what scripts/make-empty-store.ts writes).
 * Header checksums are verified; other member types and paths that leave the archive are refused. With
 * `rooted`, names may start with `/` (PGlite's dumpDataDir writes them so), read as relative to the archive.
 */
export function readTar(tar: Uint8Array, options: { rooted?: boolean } = {}): TarEntry[] {
  const entries: TarEntry[] = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return entries;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
    if (sum !== octal(header, 148, 8)) throw new Error('not a tar file: a header checksum does not match');
    const full = [field(header, 345, 155), field(header, 0, 100)].filter(Boolean).join('/').replace(/\/+$/, '');
    const name = options.rooted ? full.replace(/^\/+/, '') : full;
    const path = normalize(name);
    if (!name || path !== name || path.startsWith('/') || path.split('/').includes('..')) throw new Error(`a tar member outside the archive: ${name}`);
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156]);
    at += 512;
    if (type === '5') entries.push({ path, data: null });
    else if (type === '0' || type === '\0') {
      if (at + size > tar.length) throw new Error('a tar file cut short');
      entries.push({ path, data: tar.subarray(at, at + size) });
    } else throw new Error(`a tar member of type ${type}: ${name}`);
    at += Math.ceil(size / 512) * 512;
  }
  throw new Error('a tar file cut short');
}
