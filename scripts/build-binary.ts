/**
 * `npm run build:binary`: one executable, dist/destination-map, built by `bun build --compile` from
 * src/serve/binary.ts. First it writes what the binary embeds besides PGlite's own files into .build/binary/:
 * the demo bundle's exact bytes, the demo's sessions file, the pages' assets, the demo's payload built ahead (served at start
 * without opening a store), and an empty store (PGlite's data directory after the migrations) that an in-memory store starts
 * from, so it runs no initdb.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { sha256Hex } from '../src/content/bundle/parse.ts';
import { SqlStore } from '../src/content/store/sql-store.ts';
import { openDb } from '../src/db/pglite.ts';
import { CACHE_FILES, writeCache } from '../src/content/model/model-cache.ts';
import { Publisher } from '../src/content/publisher.ts';
import { readAssetFiles } from '../src/pages/assets.ts';
import { DEMO_BUNDLE_PATH, DEMO_SESSIONS_PATH } from '../src/serve/config.ts';
import { tarDirectory } from './make-empty-store.ts';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the embedded demo files are staged (read by src/serve/binary.ts at compile time). */
export const BUILD_DIR = join(ROOT, '.build', 'binary');
/** The executable `npm run build:binary` writes. */
export const BINARY_PATH = join(ROOT, 'dist', 'destination-map');
/** The Bun that compiles it: the devDependency, so nothing else needs installing. */
const BUN = join(ROOT, 'node_modules', '.bin', 'bun');

/** What a build produced and how long its two steps took. */
export interface BuiltBinary {
  path: string;
  bytes: number;
  /** SHA-256 of the embedded demo bundle. */
  checksum: string;
  ms: { snapshot: number; compile: number };
}

/** Stages the demo files, then compiles the binary to `outFile`. */
export async function buildBinary(outFile: string = BINARY_PATH): Promise<BuiltBinary> {
  const began = performance.now();
  const checksum = await stageDemo(BUILD_DIR);
  const staged = performance.now();
  await mkdir(dirname(outFile), { recursive: true });
  await runBun(['build', '--compile', '--minify',
    // Settings come from flags and the environment only, never from a stray .env or bunfig.toml in the working directory.
    '--no-compile-autoload-dotenv', '--no-compile-autoload-bunfig',
    join(ROOT, 'src', 'serve', 'binary.ts'), '--outfile', outFile]);
  const compiled = performance.now();
  return {
    path: outFile, bytes: (await stat(outFile)).size, checksum,
    ms: { snapshot: Math.round(staged - began), compile: Math.round(compiled - staged) },
  };
}

/**
 * Writes demo-bundle.txt and demo-sessions.txt (the demo's bytes; not .json, so neither Bun nor tsc parses
 * them), page-assets.txt and empty-store.tar.gz into `dir`. The empty store is always built afresh: one from an older PGlite
 * or schema must never be shipped.
 */
async function stageDemo(dir: string): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const bundlePath = join(dir, 'demo-bundle.txt');
  await copyFile(DEMO_BUNDLE_PATH, bundlePath);
  await copyFile(DEMO_SESSIONS_PATH, join(dir, 'demo-sessions.txt'));
  // The pages' assets (Leaflet, the coastlines, Redoc, the pages' own scripts) as one JSON text: name -> text.
  await writeFile(join(dir, 'page-assets.txt'), JSON.stringify(await readAssetFiles()));
  await writeFile(join(dir, 'empty-store.tar.gz'), await memoryStore());
  await writeDemoModel(await readFile(bundlePath, 'utf8'), dir);
  return sha256Hex(await readFile(bundlePath));
}

/**
 * The name a model cache's file is embedded under (src/serve/binary.ts imports each by it): `demo-model-<file>.bin`,
 * so that neither Bun nor tsc parses one as JSON.
 */
function demoModelFile(cacheFile: string): string {
  return `demo-model-${cacheFile.replace(/\.[a-z]+$/, '')}.bin`;
}

/**
 * The demo's payload, published here by the service's own publisher (in memory) exactly as the binary would at start,
 * and written as a verified cache whose files are embedded as demo-model-<file>.bin: the binary serves the demo from it
 * without opening a store (src/content/prebuilt-publisher.ts), and checks each file against the manifest first.
 */
async function writeDemoModel(demo: string, dir: string): Promise<void> {
  const publisher = await Publisher.open({});
  try {
    const staged = await publisher.stage(demo);
    if (staged.problems) throw new Error(`the demo bundle is refused: ${JSON.stringify(staged.problems.slice(0, 3))}`);
    const { payload } = await publisher.prepare();
    await publisher.commit();
    const scratch = await mkdtemp(join(tmpdir(), 'binary-model-'));
    try {
      const cache = await writeCache(scratch, payload);
      for (const name of CACHE_FILES) await copyFile(join(cache, name), join(dir, demoModelFile(name)));
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  } finally {
    await publisher.close();
  }
}

/**
 * The empty store the built-in demo starts from, as a gzipped ustar (src/db/pglite.ts unpacks it into PGlite's file
 * system). All of it is held in memory while the binary runs, so it is made small: 1 MB WAL segments (the
 * `compact` store) and no template databases, which a store that never creates a database has no use for
 * (template0 and template1: two of its three databases).
 */
async function memoryStore(): Promise<Uint8Array> {
  const scratch = await mkdtemp(join(tmpdir(), 'binary-store-'));
  try {
    const store = join(scratch, 'store');
    const db = await openDb({ dataDir: store, emptyStore: false, compact: true });
    try {
      await SqlStore.open(db);
      for (const name of ['template0', 'template1']) {
        await db.exec(`ALTER DATABASE ${name} IS_TEMPLATE false`);
        await db.exec(`DROP DATABASE ${name}`);
      }
    } finally {
      await db.close();
    }
    return gzipSync(tarDirectory(store), { level: 9 });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Runs the devDependency Bun; rejects with its output when it fails. */
function runBun(args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(BUN, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`bun ${args.join(' ')} exited with ${code}:\n${output}`))));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildBinary();
  console.log(JSON.stringify({ ...built, path: relative(process.cwd(), built.path) }));
}
