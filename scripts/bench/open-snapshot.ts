/**
 * The start-up baseline: PGlite alone opening a prebuilt data snapshot, as a process of its own. Imports
 * openDb, opens the snapshot exactly as the service does (a `pg-*` data directory in place, or a
 * `snapshot-*.tar.gz` tarball into memory), runs SELECT 1, prints one line of JSON and exits. The benchmark
 * times it from spawn to exit, on a copy of a data directory, since exiting without closing leaves it unclean.
 *
 *   node scripts/bench/open-snapshot.ts --snapshot .bench/data-demo/pg-...
 */
import { stat, readFile } from 'node:fs/promises';

const began = performance.now();
const argv = process.argv;
const at = argv.indexOf('--snapshot');
const path = at >= 0 ? argv[at + 1] : undefined;
if (!path) {
  console.error('usage: open-snapshot.ts --snapshot PATH');
  process.exit(2);
}
// Imported here, not statically, so the time spent loading PGlite's module is visible in `importMs`.
const { openDb } = await import('../../src/db/pglite.ts');
const imported = performance.now();
const db = (await stat(path)).isDirectory()
  ? await openDb({ dataDir: path })
  : await openDb({ snapshot: new Blob([await readFile(path)]) });
const { rows } = await db.query<{ one: number }>('SELECT 1 AS one');
if (rows[0]?.one !== 1) {
  console.error(`SELECT 1 answered ${JSON.stringify(rows)}`);
  process.exit(1);
}
console.log(JSON.stringify({ ok: true, importMs: Math.round(imported - began), openMs: Math.round(performance.now() - imported),
  rssMb: Math.round(process.memoryUsage.rss() / 2 ** 20) }));
// Exit at once, as a service would be serving by now: closing PGlite is not part of opening it.
process.exit(0);
