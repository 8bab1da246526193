/**
 * The offline street map: scripts/make-pmtiles.ts writes a PMTiles archive the `pmtiles` reader reads back tile for
 * tile; `--basemap FILE.pmtiles` serves it under /basemap (TileJSON with the archive's layers and their fields, vector
 * tiles decoded by @mapbox/vector-tile, raster tiles), in the map's style.json, refuses at start a file that is not an
 * archive or is shorter than its header says, and warns at start of one in other layers than the Protomaps basemap's.
 * Over real HTTP on every runtime for the start and the tiles.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { BASEMAP_ATTRIBUTION, BASEMAP_ZOOMS, LISBON_BOUNDS, lisbonBasemap, lisbonTiles, readBack, readerOf, tilesCovering, writePmtiles } from '../scripts/make-pmtiles.ts';
import { PmtilesArchive } from '../src/geo/pmtiles-archive.ts';
import { encodeTile, SHAPE_EXTENT } from '../src/geo/vector-tiles.ts';
import { basemapLayersWarning, PAGES_BASEMAP_LAYERS } from '../src/routes/basemap.ts';
import { openTestApp, readDemoBundle, type TestApp } from './helpers/app.ts';
import { reachableBy, RUNTIME_NAMES, runToExit, startServer, type RunningServer } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'basemap-'));
const vectorPath = join(dir, 'lisbon.pmtiles');
const rasterPath = join(dir, 'lisbon-raster.pmtiles');
const vectorBytes = lisbonBasemap('mvt');
writeFileSync(vectorPath, vectorBytes);
writeFileSync(rasterPath, lisbonBasemap('png'));

/** The layers of an OpenMapTiles extract, as its metadata lists them (one with no fields): not the Protomaps basemap's. */
const OPENMAPTILES_LAYERS = [
  { id: 'water', fields: { class: 'String', intermittent: 'Number' } },
  { id: 'landcover', fields: { class: 'String', subclass: 'String' } },
  { id: 'landuse', fields: { class: 'String' } },
  { id: 'transportation', fields: { class: 'String', subclass: 'String', oneway: 'Number' } },
  { id: 'building', fields: { render_height: 'Number' } },
  { id: 'place', fields: { name: 'String', class: 'String', rank: 'Number' } },
  { id: 'aerodrome_label' },
];
const openMapTilesPath = join(dir, 'openmaptiles.pmtiles');
writeFileSync(openMapTilesPath, writePmtiles([{ z: 0, x: 0, y: 0, data: encodeTile([{ name: 'transportation', extent: SHAPE_EXTENT, keys: ['class'],
  features: [{ type: 2, geometry: [[[1940, 1560], [1950, 1570]]], values: ['primary'] }] }]) }],
{ kind: 'mvt', minZoom: 0, maxZoom: 0, bounds: LISBON_BOUNDS, center: [-9.14, 38.72, 0],
  metadata: { name: 'OpenMapTiles extract', attribution: 'OpenMapTiles', vector_layers: OPENMAPTILES_LAYERS } }));

/** The Lisbon archive cut to `length` bytes, as a copy interrupted there leaves it. */
function cutShort(length: number): string {
  const path = join(dir, `lisbon-cut-${length}.pmtiles`);
  writeFileSync(path, vectorBytes.subarray(0, length));
  return path;
}

/** What the start says of an archive cut to `length` bytes: both sizes, as `toLocaleString('en')` writes them. */
function cutShortReason(length: number): RegExp {
  const reason = `lisbon-cut-${length}.pmtiles is shorter than its header says: ${length.toLocaleString('en')} bytes, where its header places ` +
    `its directories and tiles in ${vectorBytes.length.toLocaleString('en')} bytes (was it cut short while it was copied? copy it again, whole)`;
  return new RegExp(reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
}

describe('the PMTiles writer', () => {
  test('every tile written is read back by the pmtiles package, and the header and metadata say what was written', async () => {
    const reader = readerOf(vectorBytes);
    const header = await reader.getHeader();
    assert.equal(header.specVersion, 3);
    assert.equal(header.minZoom, BASEMAP_ZOOMS.min);
    assert.equal(header.maxZoom, BASEMAP_ZOOMS.max);
    assert.ok(Math.abs(header.minLon - LISBON_BOUNDS[0]) < 1e-6);
    const metadata = (await reader.getMetadata()) as { attribution: string; vector_layers: { id: string }[] };
    assert.equal(metadata.attribution, BASEMAP_ATTRIBUTION);
    assert.deepEqual(metadata.vector_layers.map((l) => l.id), ['earth', 'water', 'roads', 'places']);
    let read = 0;
    for (const [z, x, y] of tilesCovering(LISBON_BOUNDS, BASEMAP_ZOOMS.min, BASEMAP_ZOOMS.max)) {
      const tile = await reader.getZxy(z, x, y);
      assert.ok(tile, `${z}/${x}/${y}`);
      const layers = new VectorTile(new PbfReader(new Uint8Array(tile.data))).layers;
      // Below zoom 8 the region is smaller than the simplification keeps.
      if (z >= 8) assert.ok(layers.earth.length > 0, `${z}/${x}/${y} has land`);
      read++;
    }
    assert.equal(read, Number(header.numAddressedTiles));
    assert.equal(await reader.getZxy(14, 0, 0), undefined, 'no tile beyond the region');
  });

  test('readBack checks every tile, whatever the tiles\' compression, and fails on one that does not read back as written', async () => {
    const { tiles, options } = lisbonTiles('mvt');
    for (const tileCompression of ['gzip', 'br', 'zstd', 'none'] as const) {
      const bytes = writePmtiles(tiles, { ...options, tileCompression });
      await readBack(bytes, tiles);
      assert.equal((await readerOf(bytes).getHeader()).tileCompression, { none: 1, gzip: 2, br: 3, zstd: 4 }[tileCompression]);
    }
    const changed = tiles.map((t, i) => (i === 7 ? { ...t, data: t.data.slice(1) } : t));
    await assert.rejects(readBack(writePmtiles(tiles, options), changed), /tile \d+\/\d+\/\d+ does not read back as written/);
  });

  test('an archive too large for a root directory alone gets leaf directories, read back the same', async () => {
    // Contents of their own and lengths that vary, as real tiles have: a directory that does not compress away.
    const tiles = tilesCovering([-10, 36, -6, 42], 0, 14).map(([z, x, y]) => {
      const data = new Uint8Array(5 + ((x * 7919 + y * 104729) % 251));
      data.set([z, x >> 8, x & 255, y >> 8, y & 255]);
      return { z, x, y, data };
    });
    assert.ok(tiles.length > 20_000, `${tiles.length} tiles`);
    const bytes = writePmtiles(tiles, { kind: 'png', minZoom: 0, maxZoom: 14, bounds: [-10, 36, -6, 42], center: [-8, 39, 6], metadata: {} });
    const reader = readerOf(bytes);
    assert.ok(Number((await reader.getHeader()).leafDirectoryLength) > 0);
    for (const t of tiles.filter((_, i) => i % 97 === 0)) assert.deepEqual(new Uint8Array((await reader.getZxy(t.z, t.x, t.y))!.data), t.data);
  });
});

describe('opening an archive', () => {
  test('an archive shorter than its header says (a copy cut short) is refused with both sizes; the whole one opens', async () => {
    // 20,000 bytes cuts the tile data; 600 the metadata; 300 the root directory, which the reader reads with the header.
    for (const length of [20_000, 600, 300]) {
      await assert.rejects(new PmtilesArchive(cutShort(length)).info(), (err: Error) => (assert.match(err.message, cutShortReason(length)), true));
    }
    const whole = await new PmtilesArchive(vectorPath).info();
    assert.equal(whole.kind, 'vector');
    assert.equal(whole.maxZoom, BASEMAP_ZOOMS.max);
    const [z, x, y] = tilesCovering(LISBON_BOUNDS, 14, 14).at(-1)!;
    assert.ok(await new PmtilesArchive(vectorPath).tile(z, x, y), 'the last tiles are there');
  });

  test('the layers are those of the metadata, each with the fields it names, or none', async () => {
    assert.deepEqual((await new PmtilesArchive(vectorPath).info()).layers.map((l) => l.fields), Array(4).fill({ kind: 'String', name: 'String' }));
    assert.deepEqual((await new PmtilesArchive(openMapTilesPath).info()).layers, OPENMAPTILES_LAYERS.map((l) => ({ fields: {}, ...l })));
    assert.deepEqual((await new PmtilesArchive(rasterPath).info()).layers, []);
  });

  test('an archive in other layers than the Protomaps basemap\'s gets a warning naming its layers; a Protomaps or raster one none', async () => {
    const warning = basemapLayersWarning(await new PmtilesArchive(openMapTilesPath).info());
    assert.equal(warning, 'the basemap\'s vector layers (water, landcover, landuse, transportation, building, place, aerodrome_label) are not the ' +
      'Protomaps basemap\'s, which the explorer and the kiosk draw (earth, landcover, landuse, water, roads, buildings, boundaries, places): ' +
      'with no earth layer they will show only a background under the content, and of this archive at most its water, landcover, landuse. ' +
      'It is still served under /basemap, for clients with a style of their own; for the pages, cut the region from a Protomaps build ' +
      '(docs/operating.md)');
    const other = { ...(await new PmtilesArchive(openMapTilesPath).info()), layers: [{ id: 'streets', fields: {} }, { id: 'ocean', fields: {} }] };
    assert.match(basemapLayersWarning(other)!, /layers \(streets, ocean\) .*only a background under the content\. It is still served/);
    assert.equal(basemapLayersWarning(await new PmtilesArchive(vectorPath).info()), null);
    assert.equal(basemapLayersWarning(await new PmtilesArchive(rasterPath).info()), null);
    assert.equal(basemapLayersWarning({ ...other, layers: [] }), null, 'no layers listed: what it holds cannot be told');
  });

  test('the layers the warning says the pages draw are those protomaps-leaflet, as the pages ship it, has rules for', () => {
    const script = readFileSync('node_modules/protomaps-leaflet/dist/protomaps-leaflet.js', 'utf8');
    const drawn = new Set([...script.matchAll(/dataLayer:"(\w+)"/g)].map((m) => m[1]));
    assert.deepEqual([...drawn].sort(), [...PAGES_BASEMAP_LAYERS].sort());
  });
});

describe('/basemap in process', () => {
  let t: TestApp;
  let raster: TestApp;
  let none: TestApp;
  before(async () => {
    const demo = await readDemoBundle();
    t = await openTestApp(demo, { basemap: new PmtilesArchive(vectorPath), publicUrl: 'https://maps.example.org/api' });
    raster = await openTestApp(demo, { basemap: new PmtilesArchive(rasterPath) });
    none = await openTestApp(demo);
  });
  after(async () => { await t.close(); await raster.close(); await none.close(); });

  test('basemap.json describes the archive under the public URL', async () => {
    const { status, body } = await t.json('/basemap.json');
    assert.equal(status, 200);
    assert.deepEqual(body.tiles, ['https://maps.example.org/api/basemap/{z}/{x}/{y}.mvt']);
    assert.equal(body.attribution, BASEMAP_ATTRIBUTION);
    assert.equal(body.maxzoom, BASEMAP_ZOOMS.max);
    assert.equal(body.format, 'mvt');
    assert.deepEqual(body.vector_layers, ['earth', 'water', 'roads', 'places'].map((id) => ({ id, fields: { kind: 'String', name: 'String' } })));
    assert.deepEqual((await raster.json('/basemap.json')).body.vector_layers, []);
    assert.equal((await none.get('/basemap.json')).status, 404);
  });

  test('vector tiles are served uncompressed from the archive; a tile it has not got is 200 and empty', async () => {
    const reader = readerOf(vectorBytes);
    const [z, x, y] = tilesCovering(LISBON_BOUNDS, 13, 13)[3];
    const res = await t.get(`/basemap/${z}/${x}/${y}.mvt`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/vnd.mapbox-vector-tile');
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), new Uint8Array((await reader.getZxy(z, x, y))!.data));
    const missing = await t.get('/basemap/14/0/0.mvt');
    assert.equal(missing.status, 200);
    assert.equal((await missing.arrayBuffer()).byteLength, 0);
    assert.equal((await t.get(`/basemap/${z}/${x}/${y}.png`)).status, 404, 'another format than the archive\'s');
    assert.equal((await t.json('/basemap/3/9/0.mvt')).body.errors[0].name, 'x');
  });

  test('an archive whose tiles are compressed with brotli, zstd or nothing serves the same tiles as a gzipped one', async () => {
    const [z, x, y] = tilesCovering(LISBON_BOUNDS, 14, 14)[4];
    const expected = new Uint8Array((await readerOf(vectorBytes).getZxy(z, x, y))!.data);
    for (const compression of ['br', 'zstd', 'none'] as const) {
      const path = join(dir, `lisbon-${compression}.pmtiles`);
      writeFileSync(path, lisbonBasemap('mvt', compression));
      const app = await openTestApp(await readDemoBundle(), { basemap: new PmtilesArchive(path) });
      try {
        const res = await app.get(`/basemap/${z}/${x}/${y}.mvt`);
        assert.equal(res.status, 200, compression);
        assert.deepEqual(new Uint8Array(await res.arrayBuffer()), expected, compression);
      } finally {
        await app.close();
      }
    }
  });

  test('raster tiles are served as the archive holds them; a missing one is 404', async () => {
    const [z, x, y] = tilesCovering(LISBON_BOUNDS, 12, 12)[0];
    const res = await raster.get(`/basemap/${z}/${x}/${y}.png`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.deepEqual([...new Uint8Array(await res.arrayBuffer()).subarray(0, 4)], [137, 80, 78, 71]);
    assert.equal((await raster.get('/basemap/12/0/0.png')).status, 404);
  });

  test('style.json draws the basemap under the map\'s tiles', async () => {
    const demo = await readDemoBundle();
    const mapId = demo.maps[0].id;
    const { body } = await t.json(`/maps/${mapId}/style.json`);
    assert.deepEqual(body.sources.basemap.tiles, ['https://maps.example.org/api/basemap/{z}/{x}/{y}.mvt']);
    const ids = body.layers.map((l: { id: string }) => l.id);
    assert.ok(ids.indexOf('water') >= 0 && ids.indexOf('water') < ids.indexOf('markers'), 'water under the markers');
    assert.ok(body.layers.every((l: { type: string }) => l.type !== 'symbol'), 'no layer needs glyphs');
    const rasterStyle = (await raster.json(`/maps/${mapId}/style.json`)).body;
    assert.equal(rasterStyle.sources.basemap.type, 'raster');
  });
});

describe('--basemap on the command line', () => {
  test('a file that is not a PMTiles archive, or not there, stops the start with a sentence', async () => {
    const bad = join(dir, 'bad.pmtiles');
    writeFileSync(bad, 'not an archive at all, just text');
    const run = await runToExit('node', ['--basemap', bad]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /basemap .*bad\.pmtiles is not a PMTiles v3 archive/);
    const missing = await runToExit('node', ['--basemap', join(dir, 'missing.pmtiles')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing\.pmtiles does not exist/);
    // A compression the PMTiles spec does not name (byte 98 of the header: the tiles'), refused at start, not per tile.
    const odd = new Uint8Array(vectorBytes);
    odd[98] = 9;
    const oddPath = join(dir, 'odd.pmtiles');
    writeFileSync(oddPath, odd);
    const compressed = await runToExit('node', ['--basemap', oddPath]);
    assert.equal(compressed.code, 2);
    assert.match(compressed.stderr, /odd\.pmtiles compresses its tiles with number 9: this service reads gzip, brotli, zstd or none/);
    // Cut to 20,000 bytes, as an interrupted copy leaves it: refused whole, not served with a 500 for each tile beyond the cut.
    const cut = await runToExit('node', ['--basemap', cutShort(20_000)]);
    assert.equal(cut.code, 2);
    assert.match(cut.stderr, /error: basemap .*lisbon-cut-20000\.pmtiles is shorter than its header says/);
    assert.match(cut.stderr, cutShortReason(20_000));
    const suffix = await runToExit('node', ['--basemap', join(dir, 'lisbon.mbtiles')]);
    assert.equal(suffix.code, 2);
    assert.match(suffix.stderr, /basemap must be a PMTiles archive/);
  });

  test('an archive in other layers than the Protomaps basemap\'s is served, with a warning at start naming its layers', async () => {
    let server: RunningServer | undefined;
    try {
      server = await startServer('node', ['--basemap', openMapTilesPath]);
      const warnings = server.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.level === 'warn' && /not the Protomaps basemap's/.test(String(line.msg)));
      assert.equal(warnings.length, 1, server.output());
      assert.match(String(warnings[0].msg), /^the basemap's vector layers \(water, landcover, .*\) are not the Protomaps basemap's, .*only a background/);
      assert.equal(warnings[0].basemap, openMapTilesPath);
      assert.deepEqual(warnings[0].layers, OPENMAPTILES_LAYERS.map((l) => l.id));
      const json = await (await fetch(`${server.base}/basemap.json`)).json() as { vector_layers: unknown };
      assert.deepEqual(json.vector_layers, OPENMAPTILES_LAYERS.map((l) => ({ fields: {}, ...l })));
      const tile = await fetch(`${server.base}/basemap/0/0/0.mvt`);
      assert.equal(tile.status, 200);
      assert.ok(new VectorTile(new PbfReader(new Uint8Array(await tile.arrayBuffer()))).layers.transportation.length > 0);
    } finally {
      assert.equal(await server?.stop(), 0);
    }
  });

  for (const runtime of RUNTIME_NAMES) {
    test(`${runtime} serves the archive given by BASEMAP`, async () => {
      let server: RunningServer | undefined;
      try {
        const path = join(reachableBy(runtime, dir), 'lisbon.pmtiles');
        writeFileSync(path, vectorBytes);
        server = await startServer(runtime, [], 60_000, { BASEMAP: path });
        const json = await (await fetch(`${server.base}/basemap.json`)).json() as { tiles: string[] };
        assert.match(json.tiles[0], /\/basemap\/\{z\}\/\{x\}\/\{y\}\.mvt$/);
        const [z, x, y] = tilesCovering(LISBON_BOUNDS, 14, 14)[5];
        const res = await fetch(`${server.base}/basemap/${z}/${x}/${y}.mvt`);
        assert.equal(res.status, 200);
        assert.ok(new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer()))).layers.roads.length > 0);
        assert.doesNotMatch(server.output(), /not the Protomaps basemap's/);
      } finally {
        assert.equal(await server?.stop(), 0);
      }
    });
  }
});
