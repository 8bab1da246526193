/**
 * Writes data/empty-store-pglite-<version>.tar.br: the data directory of a fresh PGlite store (initdb, the
 * store's migrations, the template databases dropped, then a clean shutdown), for the PGlite installed in
 * node_modules. A new store on disk is seeded from it instead of running initdb (see src/db/pglite.ts), which makes a
 * first start seconds faster.
 * Run it again whenever PGlite is upgraded (the committed file of another version is removed, and until the
 * new one is written a new store falls back to initdb) and whenever a migration is added (until then a new
 * store applies it at its first start); tests/empty-store.test.ts fails meanwhile.
 *
 * The archive is a plain ustar (sorted paths, modes 0600/0700, owner 0, time 0) compressed with brotli at
 * its highest quality and a 16 MB window (about 1.0 MB; with the templates it was about 4.4 MB as .tar.gz and 1.4 MB
 * as .tar.br, the three databases being near copies that gzip's 32 KB window cannot see). The same PGlite gives
 * the same files except what initdb makes unique (the system identifier, timestamps in pg_control and WAL).
 */
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import { SqlStore } from '../src/content/store/sql-store.ts';
import { EMPTY_STORE_DIR, emptyStoreName, openDb, pgliteVersion } from '../src/db/pglite.ts';

/** What a live PostgreSQL leaves in its data directory and a cleanly stopped one does not need. */
const SKIP = new Set(['postmaster.pid', 'postmaster.opts']);

/** One 512-byte ustar header. */
function header(path: string, size: number, type: '0' | '5'): Uint8Array {
  const bytes = new Uint8Array(512);
  const put = (text: string, at: number, length: number) => {
    const encoded = new TextEncoder().encode(text);
    if (encoded.length > length) throw new Error(`too long for a tar header: ${text}`);
    bytes.set(encoded, at);
  };
  const num = (value: number, at: number, length: number) => put(`${value.toString(8).padStart(length - 1, '0')}\0`, at, length);
  put(path, 0, 100);
  num(type === '5' ? 0o700 : 0o600, 100, 8);
  num(0, 108, 8); // uid
  num(0, 116, 8); // gid
  num(size, 124, 12);
  num(0, 136, 12); // mtime
  put(' '.repeat(8), 148, 8);
  put(type, 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const b of bytes) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return bytes;
}

/** A ustar archive of `dir`'s directories and regular files, in sorted path order. */
export function tarDirectory(dir: string): Uint8Array {
  const parts: Uint8Array[] = [];
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub)).sort()) {
      const path = sub ? `${sub}/${name}` : name;
      if (SKIP.has(path)) continue;
      const info = statSync(join(dir, path));
      if (info.isDirectory()) {
        parts.push(header(path, 0, '5'));
        walk(path);
      } else if (info.isFile()) {
        const data = readFileSync(join(dir, path));
        parts.push(header(path, data.length, '0'), data, new Uint8Array((512 - (data.length % 512)) % 512));
      } else {
        throw new Error(`not a file or directory: ${path}`);
      }
    }
  };
  walk('');
  parts.push(new Uint8Array(1024));
  const tar = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    tar.set(p, at);
    at += p.length;
  }
  return tar;
}

/** What was written. */
export interface MadeEmptyStore {
  path: string;
  version: string;
  bytes: number;
  /** The size of the data directory it unpacks to. */
  unpacked: number;
}

/** Makes the empty store for the installed PGlite in `outDir`, removing those of other versions there. */
export async function makeEmptyStore(outDir: string = EMPTY_STORE_DIR): Promise<MadeEmptyStore> {
  const version = await pgliteVersion();
  if (!version) throw new Error('cannot tell the installed PGlite version (node_modules/@electric-sql/pglite/package.json)');
  const scratch = await mkdtemp(join(tmpdir(), 'empty-store-'));
  try {
    const dir = join(scratch, 'store');
    const db = await openDb({ dataDir: dir, emptyStore: false });
    await SqlStore.open(db);
    // Only the database PGlite connects to (`postgres`): the two templates are about 600 of the store's 1,060 files,
    // each one a file a first start creates, and the service never runs CREATE DATABASE, which needs them.
    await db.exec(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
    await db.exec('DROP DATABASE template0');
    await db.exec('DROP DATABASE template1');
    await db.close();
    const tar = tarDirectory(dir);
    const compressed = brotliCompressSync(tar, { params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
      [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
    } });
    const name = emptyStoreName(version);
    for (const other of await readdir(outDir)) {
      if (/^empty-store-pglite-.+\.tar\.br$/.test(other) && other !== name) await rm(join(outDir, other));
    }
    const path = join(outDir, name);
    await writeFile(path, compressed);
    return { path, version, bytes: (await stat(path)).size, unpacked: tar.length };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const made = await makeEmptyStore();
  console.log(JSON.stringify({ ...made, path: relative(process.cwd(), made.path) }));
}
