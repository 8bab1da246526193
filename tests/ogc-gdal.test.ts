/**
 * OGC API – Features read by GDAL's OAPIF driver, as QGIS and ogr2ogr read it, from the service on a real port over
 * the benchmark's map of 100,000 POIs (scripts/bench/make-large.ts, with 1,000 events): `ogrinfo` lists every
 * collection with the feature count the bundle gives, `ogr2ogr` pages through the 89,996 markers with a small page
 * size and gets every one exactly once, and `-spat` gets exactly the markers, paths and polygons a brute force over the
 * bundle finds meeting the box. Debian's gdal-bin is installed by the test set-up when missing (tests/helpers/gdal.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BundleT } from '../src/content/bundle/bundle-schema.ts';
import { MAP_ID, VERSION_ID } from '../scripts/bench/large-data.ts';
import { ensureGdal, OGRINFO } from './helpers/gdal.ts';
import { meets, type Box, type Geometry } from './helpers/brute-force.ts';
import { startServer, tmpdirFor, type RunningServer } from './helpers/server.ts';

const OGR2OGR = '/usr/bin/ogr2ogr';
let dir: string;
let server: RunningServer;
let bundle: BundleT;
let source: string;

before(async () => {
  ensureGdal();
  dir = mkdtempSync(join(tmpdirFor('node'), 'ogc-gdal-'));
  const file = join(dir, 'large.json');
  const made = spawnSync(process.execPath, [join(import.meta.dirname, '../scripts/bench/make-large.ts'), '--events', '1000', '--out', file], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  bundle = JSON.parse(readFileSync(file, 'utf8')) as BundleT;
  // The links GDAL follows are built from the public URL, which names the port: a free one chosen here (with
  // `--port 0` the service cannot know it when it makes the links: src/serve/config.ts, publicUrlOf).
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  server = await startServer('node', ['--bundle', file, '--data-dir', join(dir, 'data'), '--port', String(port), '--public-url', base], 300_000);
  source = `OAPIF:${base}/ogc`;
});

after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A TCP port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Runs a GDAL tool; fails with its output when it does not succeed. */
function gdal(tool: string, args: string[]): string {
  const run = spawnSync(tool, args, { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 28 });
  assert.equal(run.status, 0, `${tool} ${args.join(' ')}:\n${run.stdout}\n${run.stderr}`);
  assert.doesNotMatch(run.stderr, /^ERROR/m, run.stderr);
  return run.stdout;
}

/** The map's POIs of a kind: the map has one version, which every POI of it is in (they name none). */
const published = <T extends { map_id: string; version_ids?: string[] }>(records: T[]) =>
  records.filter((r) => r.map_id === MAP_ID && (r.version_ids ?? [VERSION_ID]).includes(VERSION_ID));

test('ogrinfo lists every collection with the feature count the bundle gives', async () => {
  const out = gdal(OGRINFO, ['-ro', '-so', '-al', source]);
  const counts = Object.fromEntries([...out.matchAll(/^Layer name: (\S+)\n[\s\S]*?^Feature Count: (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  // The events: every single event and each occurrence of a series, as /events counts them over all time.
  const res = await fetch(`${server.base}/events?map_id=${MAP_ID}&from=1970-01-01&to=2100-01-01&status=all&limit=1`);
  const { total } = await res.json() as { total: number };
  assert.ok(total > bundle.events.filter((e) => e.map_id === MAP_ID).length - 2, 'the series count as their occurrences');
  assert.deepEqual(counts, {
    [`${MAP_ID}-markers`]: published(bundle.markers).length,
    [`${MAP_ID}-paths`]: published(bundle.paths).length,
    [`${MAP_ID}-polygons`]: published(bundle.polygons).length,
    [`${MAP_ID}-events`]: total,
  });
  assert.equal(published(bundle.markers).length, 89_996);
});

/** The ids of the features ogr2ogr copies out of a collection (the markers by default) with these options. */
function copiedIds(extra: string[], kind = 'markers'): string[] {
  const out = join(dir, `copy-${kind}-${extra.join('_').replace(/\W+/g, '_')}.geojson`);
  gdal(OGR2OGR, ['-f', 'GeoJSON', out, source, `${MAP_ID}-${kind}`, ...extra]);
  const copied = JSON.parse(readFileSync(out, 'utf8')) as { features: { properties: { id: string } }[] };
  return copied.features.map((f) => f.properties.id);
}

test('ogr2ogr pages through the 89,996 markers with a small page size and gets every one exactly once', () => {
  const ids = copiedIds(['-oo', 'PAGE_SIZE=700']);
  assert.equal(ids.length, 89_996);
  assert.equal(new Set(ids).size, ids.length, 'no marker twice');
  assert.deepEqual(new Set(ids), new Set(published(bundle.markers).map((m) => m.id)));
});

test('-spat gets exactly the markers in the box, and the paths and polygons that meet it', () => {
  const markers = published(bundle.markers);
  // A box round a dozen kilometres of the first city the bundle's markers cluster round.
  const { lng, lat } = markers[0];
  const box = [lng - 0.05, lat - 0.04, lng + 0.06, lat + 0.05];
  const want = markers.filter((m) => m.lng >= box[0] && m.lng <= box[2] && m.lat >= box[1] && m.lat <= box[3]).map((m) => m.id).sort();
  assert.ok(want.length > 100, `the box holds markers (${want.length})`);
  const ids = copiedIds(['-spat', ...box.map(String), '-oo', 'PAGE_SIZE=250']).sort();
  assert.deepEqual(ids, want);
  // Shapes: what the test's own brute force says meets the box (GDAL also tests what it is sent against -spat).
  for (const [kind, records] of [['paths', published(bundle.paths)], ['polygons', published(bundle.polygons)]] as const) {
    const shapes = records.filter((r) => meets(r.geometry as Geometry, box as Box)).map((r) => r.id).sort();
    assert.ok(shapes.length > 5, `the box meets ${kind} (${shapes.length})`);
    assert.deepEqual(copiedIds(['-spat', ...box.map(String), '-oo', 'PAGE_SIZE=50'], kind).sort(), shapes, kind);
  }
});
