/**
 * The committed empty store (data/empty-store-pglite-<version>.tar.br, made by scripts/make-empty-store.ts):
 * a new store on disk is seeded from it instead of running initdb, and behaves like one that ran initdb.
 *
 * Whether a store was seeded is told by its system identifier, not by timing: initdb makes a new one every
 * time it runs, and a seeded store has the one recorded in the empty store's global/pg_control.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { brotliCompressSync as brotli, brotliDecompressSync, constants } from 'node:zlib';
import {
  committedEmptyStore, EMPTY_STORE_DIR, emptyStoreName, openDb, pgliteVersion, POSTGRES_CONF, readTar, seedStore, type PgliteDb as Db,
} from '../src/db/pglite.ts';
import { SqlStore } from '../src/content/store/sql-store.ts';
import { APPLIED_MIGRATIONS, MIGRATIONS } from '../src/db/schema.ts';
import { tarDirectory } from '../scripts/make-empty-store.ts';

const scratch = mkdtempSync(join(tmpdir(), 'dmcs-empty-store-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
/** A new store path in a data directory of its own (as the service's: the data directory exists, its store/ not yet). */
function fresh(): string {
  const dataDir = join(scratch, `data-${++n}`);
  mkdirSync(dataDir);
  return join(dataDir, 'store');
}

/** The installed PGlite's version, read here independently of src/db/pglite.ts. */
const INSTALLED = JSON.parse(readFileSync(join('node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')).version as string;

/** The data directory members of an empty store file. */
const membersOf = (file: string) => readTar(brotliDecompressSync(readFileSync(file)));

/** The system identifier initdb gave an empty store: the first 8 bytes of its pg_control, little-endian. */
function identifierOf(file: string): string {
  const control = membersOf(file).find((m) => m.path === 'global/pg_control')?.data;
  assert.ok(control, 'the empty store holds global/pg_control');
  return Buffer.from(control).readBigUInt64LE(0).toString();
}

async function identifier(db: Db): Promise<string> {
  return (await db.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')).rows[0].id;
}

/** The settings PostgreSQL runs with, by name. */
async function settings(db: Db): Promise<Map<string, string>> {
  const rows = (await db.query<{ name: string; setting: string }>('SELECT name, setting FROM pg_settings ORDER BY name')).rows;
  return new Map(rows.map((r) => [r.name, r.setting]));
}

/** Opens, runs `check`, closes. */
async function withDb<T>(options: Parameters<typeof openDb>[0], check: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb(options);
  try {
    return await check(db);
  } finally {
    await db.close();
  }
}

const committed = (await committedEmptyStore())!;

/** Brotli, fast (the default quality takes half a minute for a store). */
const brotliCompressSync = (bytes: Uint8Array) => brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });

describe('the committed empty store', () => {
  test('is for the installed PGlite, the only one in data/, and small', async () => {
    assert.equal(await pgliteVersion(), INSTALLED);
    assert.equal(committed, join(EMPTY_STORE_DIR, emptyStoreName(INSTALLED)));
    assert.ok(existsSync(committed), `${committed} is missing: run \`node scripts/make-empty-store.ts\``);
    assert.deepEqual(readdirSync(EMPTY_STORE_DIR).filter((f) => f.startsWith('empty-store-')), [basename(committed)]);
    assert.ok(statSync(committed).size < 2 * 2 ** 20, `${statSync(committed).size} bytes`);
  });

  test('holds every migration of the store, so a new store applies none at its first start', async () => {
    await withDb({ dataDir: fresh() }, async (db) => {
      const applied = (await db.query<{ version: number }>(APPLIED_MIGRATIONS)).rows.map((r) => r.version);
      assert.deepEqual(applied, MIGRATIONS.map((m) => m.version), 'run `npm run make-empty-store` after adding a migration');
    });
  });

  test('is a cleanly stopped data directory: PG_VERSION, the one database PGlite uses, no templates, no postmaster.pid', () => {
    const paths = new Set(membersOf(committed).map((m) => m.path));
    for (const p of ['PG_VERSION', 'global/pg_control', 'base/5/PG_VERSION', 'pg_wal']) assert.ok(paths.has(p), p);
    assert.ok(!paths.has('postmaster.pid'));
    const databases = new Set([...paths].filter((p) => /^base\/\d+\//.test(p)).map((p) => p.split('/')[1]));
    assert.deepEqual([...databases], ['5'],
      'template0 (base/4) and template1 (base/1) are dropped: fewer files for a first start to create');
  });
});

describe('a new store on disk', () => {
  let seededSettings: Map<string, string>;

  test('in a missing directory is seeded from the empty store (no initdb), with the PostgreSQL settings', async () => {
    seededSettings = await withDb({ dataDir: fresh() }, async (db) => {
      assert.equal(await identifier(db), identifierOf(committed));
      assert.deepEqual((await db.query('SELECT datname FROM pg_database')).rows, [{ datname: 'postgres' }], 'the one database, no templates');
      assert.equal((await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0].shared_buffers, '16MB');
      for (const line of POSTGRES_CONF) {
        const [name, value] = line.split('=');
        assert.deepEqual((await db.query('SELECT current_setting($1) AS value', [name])).rows, [{ value }], name);
      }
      return settings(db);
    });
  });

  test('runs with the same settings as one that ran initdb', async () => {
    const initdb = await withDb({ dataDir: fresh(), emptyStore: false }, async (db) => {
      assert.notEqual(await identifier(db), identifierOf(committed));
      return settings(db);
    });
    assert.deepEqual([...seededSettings], [...initdb]);
  });

  test('in an empty directory is seeded too, takes the migrations, and a reopen keeps its data', async () => {
    const dir = fresh();
    mkdirSync(dir, { recursive: true });
    await withDb({ dataDir: dir }, async (db) => {
      assert.equal(await identifier(db), identifierOf(committed));
      const store = await SqlStore.open(db);
      assert.equal(await store.current(), null);
      await db.exec('CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)');
    });
    assert.equal(await seedStore(dir, committed), 'not empty');
    await withDb({ dataDir: dir }, async (db) => {
      assert.equal(await identifier(db), identifierOf(committed));
      assert.deepEqual((await db.query('SELECT x FROM kept')).rows, [{ x: 42 }]);
      await SqlStore.open(db);
    });
  });

  test('without an empty store for this PGlite falls back to initdb', async () => {
    const missing = join(scratch, 'nowhere', emptyStoreName(INSTALLED));
    assert.equal(await seedStore(fresh(), missing), 'no empty store');
    assert.equal(await seedStore(fresh(), null), 'no empty store');
    await withDb({ dataDir: fresh(), emptyStore: missing }, async (db) => {
      assert.notEqual(await identifier(db), identifierOf(committed));
      assert.equal((await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0].shared_buffers, '16MB');
    });
  });

  test('with the empty store of another PGlite version falls back to initdb', async () => {
    const other = join(scratch, emptyStoreName('0.0.1'));
    copyFileSync(committed, other);
    const dir = fresh();
    assert.equal(await seedStore(dir, other), 'other PGlite version');
    assert.ok(!existsSync(dir));
    await withDb({ dataDir: dir, emptyStore: other }, async (db) => {
      assert.notEqual(await identifier(db), identifierOf(committed));
    });
  });

  test('from a file that is no usable empty store seeds nothing and leaves the directory empty', async () => {
    const dir = join(scratch, 'bad');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, emptyStoreName(INSTALLED));
    const unusable = async (bytes: Uint8Array | string, reason: RegExp, store = fresh()) => {
      writeFileSync(file, bytes);
      assert.match(await seedStore(store, file), reason);
      assert.ok(!existsSync(store) || readdirSync(store).length === 0, 'nothing is left in the store directory');
    };
    await unusable('not an empty store', /^unusable: /);
    await unusable(brotliCompressSync(Buffer.from('x'.repeat(1024))), /^unusable: not a tar file/);
    mkdirSync(join(dir, 'empty-dir'));
    await unusable(brotliCompressSync(tarDirectory(join(dir, 'empty-dir'))), /^unusable: it holds no PG_VERSION/);
    // A store directory that cannot be made.
    writeFileSync(join(dir, 'a-file'), '');
    await unusable(readFileSync(committed), /^unusable: .*ENOTDIR/, join(dir, 'a-file', 'store'));
  });

  test('seeded from a store that will not start is made again by initdb', async () => {
    const src = join(scratch, 'broken-src');
    mkdirSync(src);
    for (const m of membersOf(committed)) {
      const path = join(src, m.path);
      if (m.data) writeFileSync(path, m.path === 'global/pg_control' ? new Uint8Array(m.data.length) : m.data);
      else mkdirSync(path, { recursive: true });
    }
    const file = join(scratch, 'broken', emptyStoreName(INSTALLED));
    mkdirSync(join(scratch, 'broken'));
    writeFileSync(file, brotliCompressSync(tarDirectory(src)));
    const dir = fresh();
    await withDb({ dataDir: dir, emptyStore: file }, async (db) => {
      assert.notEqual(await identifier(db), identifierOf(committed));
      await db.exec('CREATE TABLE t (x int)');
    });
  });
});

describe('the empty store archive', () => {
  test('tarDirectory and readTar agree, and the archive does not depend on when it was made', () => {
    const dir = join(scratch, 'tree');
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    writeFileSync(join(dir, 'a', 'b', 'file'), 'x'.repeat(700));
    writeFileSync(join(dir, 'empty'), '');
    writeFileSync(join(dir, 'postmaster.pid'), '1');
    const tar = tarDirectory(dir);
    assert.deepEqual(readTar(tar).map((m) => [m.path, m.data && Buffer.from(m.data).toString()]),
      [['a', null], ['a/b', null], ['a/b/file', 'x'.repeat(700)], ['empty', '']]);
    writeFileSync(join(dir, 'a', 'b', 'file'), 'x'.repeat(700));
    assert.deepEqual(tarDirectory(dir), tar);
  });

  test('readTar refuses what it was not written to read', () => {
    const dir = join(scratch, 'tree2');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'f'), 'data');
    const tar = tarDirectory(dir);
    const changed = (at: number, text: string, fixSum = true) => {
      const copy = tar.slice();
      copy.set(new TextEncoder().encode(text), at);
      if (fixSum) {
        copy.set(new TextEncoder().encode('        '), 148);
        const sum = copy.subarray(0, 512).reduce((s, b) => s + b, 0);
        copy.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
      }
      return copy;
    };
    assert.throws(() => readTar(changed(0, 'g', false)), /checksum/);
    assert.throws(() => readTar(changed(0, '../f')), /outside/);
    assert.throws(() => readTar(changed(0, '/f\0')), /outside/);
    assert.throws(() => readTar(changed(156, '2')), /type 2/);
    assert.throws(() => readTar(changed(124, 'zz')), /bad number/);
    assert.throws(() => readTar(tar.subarray(0, 512 + 100)), /cut short/);
    assert.throws(() => readTar(tar.subarray(0, 1024)), /cut short/);
  });
});
