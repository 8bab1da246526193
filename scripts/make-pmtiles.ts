/**
 * `node scripts/make-pmtiles.ts --out FILE.pmtiles [--raster]`: writes a small basemap of its own for the tests and
 * the screenshots (no real extract can be fetched here): a vector archive in the Protomaps basemap's layers (`earth`,
 * `water`, `roads`, `places`) around Lisbon, drawn from generated shapes (a rough Tagus estuary, a street grid, the
 * city's name), or with `--raster` solid PNG tiles. Nothing on npm writes PMTiles, so `writePmtiles` here does:
 * PMTiles v3 (header, root directory in the first 16,384 bytes, leaf directories beyond when the root would not fit,
 * metadata, tiles gzipped (or brotli, zstd, none) and deduplicated), tile ids from the `pmtiles` package's own
 * `zxyToTileId`. `readBack` reads an archive with the `pmtiles` reader and checks every tile: the command does so before it
 * writes the file, and tests/basemap.test.ts checks what it writes the same way.
 *
 * To serve a real region instead, cut it from a public Protomaps build with the `pmtiles` tool (docs/operating.md).
 */
import { writeFile } from 'node:fs/promises';
import { brotliCompressSync, crc32, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { Feature, Geometry } from 'geojson';
import { Compression, PMTiles, TileType, zxyToTileId, type Source } from 'pmtiles';
import { uncompress } from '../src/geo/pmtiles-archive.ts';
import { encodeTile, SHAPE_EXTENT, ShapeIndex } from '../src/geo/vector-tiles.ts';

/** One tile to write. */
export interface ArchiveTile { z: number; x: number; y: number; data: Uint8Array }

/** What the archive says of itself. */
export interface ArchiveOptions {
  kind: 'mvt' | 'png';
  minZoom: number;
  maxZoom: number;
  bounds: [number, number, number, number];
  center: [number, number, number];
  metadata: Record<string, unknown>;
  /** How the tiles are compressed: default gzip for vector tiles, none for images (compressed already). */
  tileCompression?: TileCompression;
}

/** The tile compressions the writer offers, as the PMTiles header numbers them (the `pmtiles` package's enum). */
const TILE_COMPRESSION = { none: Compression.None, gzip: Compression.Gzip, br: Compression.Brotli, zstd: Compression.Zstd } as const;
export type TileCompression = keyof typeof TILE_COMPRESSION;

const COMPRESS: Record<TileCompression, (bytes: Uint8Array) => Uint8Array> = {
  none: (bytes) => bytes,
  gzip: (bytes) => gzipSync(bytes),
  br: (bytes) => brotliCompressSync(bytes),
  zstd: (bytes) => zstdCompressSync(bytes),
};

const HEADER_BYTES = 127;
const ROOT_LIMIT = 16_384 - HEADER_BYTES;
const TILE_TYPE = { mvt: TileType.Mvt, png: TileType.Png } as const;

/** A growable byte buffer of unsigned varints. */
class Varints {
  private readonly bytes: number[] = [];
  push(value: number): void {
    let v = value;
    while (v >= 0x80) {
      this.bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.bytes.push(v);
  }
  done(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

interface Entry { tileId: number; offset: number; length: number; runLength: number }

/** A directory: its entries as the spec lays them out (ids delta-coded, then run lengths, lengths, offsets), gzipped. */
function directory(entries: readonly Entry[]): Uint8Array {
  const out = new Varints();
  out.push(entries.length);
  let last = 0;
  for (const e of entries) { out.push(e.tileId - last); last = e.tileId; }
  for (const e of entries) out.push(e.runLength);
  for (const e of entries) out.push(e.length);
  entries.forEach((e, i) => {
    const prev = entries[i - 1];
    out.push(i > 0 && e.offset === prev.offset + prev.length ? 0 : e.offset + 1);
  });
  return gzipSync(out.done());
}

/** A PMTiles v3 archive of `tiles`. */
export function writePmtiles(tiles: readonly ArchiveTile[], options: ArchiveOptions): Uint8Array {
  const sorted = tiles.map((t) => ({ ...t, id: zxyToTileId(t.z, t.x, t.y) })).sort((a, b) => a.id - b.id);
  // Tile data, each distinct content once (gzipped for vector tiles by default, images as they are).
  const compression = options.tileCompression ?? (options.kind === 'mvt' ? 'gzip' : 'none');
  const chunks: Uint8Array[] = [];
  const seen = new Map<string, { offset: number; length: number }>();
  const entries: Entry[] = [];
  let size = 0;
  for (const t of sorted) {
    const data = COMPRESS[compression](t.data);
    const key = Buffer.from(data).toString('base64');
    let at = seen.get(key);
    if (!at) {
      at = { offset: size, length: data.length };
      seen.set(key, at);
      chunks.push(data);
      size += data.length;
    }
    const prev = entries.at(-1);
    if (prev && prev.offset === at.offset && prev.tileId + prev.runLength === t.id) prev.runLength++;
    else entries.push({ tileId: t.id, offset: at.offset, length: at.length, runLength: 1 });
  }
  // The root directory, or leaves of a growing size until the root of pointers to them fits.
  let root = directory(entries);
  let leaves = new Uint8Array(0);
  for (let per = 4096; root.length > ROOT_LIMIT; per *= 2) {
    const parts: Uint8Array[] = [];
    const pointers: Entry[] = [];
    let offset = 0;
    for (let i = 0; i < entries.length; i += per) {
      const leaf = directory(entries.slice(i, i + per));
      pointers.push({ tileId: entries[i].tileId, offset, length: leaf.length, runLength: 0 });
      parts.push(leaf);
      offset += leaf.length;
    }
    root = directory(pointers);
    leaves = Buffer.concat(parts);
  }
  const metadata = gzipSync(Buffer.from(JSON.stringify(options.metadata)));
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('PMTiles', 0, 'latin1');
  header.writeUInt8(3, 7);
  const rootAt = HEADER_BYTES;
  const metadataAt = rootAt + root.length;
  const leavesAt = metadataAt + metadata.length;
  const dataAt = leavesAt + leaves.length;
  const u64 = (value: number, at: number) => header.writeBigUInt64LE(BigInt(value), at);
  u64(rootAt, 8); u64(root.length, 16);
  u64(metadataAt, 24); u64(metadata.length, 32);
  u64(leavesAt, 40); u64(leaves.length, 48);
  u64(dataAt, 56); u64(size, 64);
  u64(sorted.length, 72); u64(entries.length, 80); u64(chunks.length, 88);
  header.writeUInt8(1, 96); // clustered: tiles in tile id order
  header.writeUInt8(Compression.Gzip, 97);
  header.writeUInt8(TILE_COMPRESSION[compression], 98);
  header.writeUInt8(TILE_TYPE[options.kind], 99);
  header.writeUInt8(options.minZoom, 100);
  header.writeUInt8(options.maxZoom, 101);
  const e7 = (deg: number) => Math.round(deg * 1e7);
  const [w, s, e, n] = options.bounds;
  header.writeInt32LE(e7(w), 102); header.writeInt32LE(e7(s), 106); header.writeInt32LE(e7(e), 110); header.writeInt32LE(e7(n), 114);
  header.writeUInt8(options.center[2], 118);
  header.writeInt32LE(e7(options.center[0]), 119); header.writeInt32LE(e7(options.center[1]), 123);
  return Buffer.concat([header, root, metadata, leaves, ...chunks]);
}

/** The tiles of zooms min..max that cover `bounds`. */
export function tilesCovering(bounds: [number, number, number, number], minZoom: number, maxZoom: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  const [w, s, e, n] = bounds;
  const unitY = (lat: number) => { const sin = Math.sin((lat * Math.PI) / 180); return 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI; };
  for (let z = minZoom; z <= maxZoom; z++) {
    const k = 2 ** z;
    for (let x = Math.floor((w / 360 + 0.5) * k); x <= Math.min(k - 1, Math.floor((e / 360 + 0.5) * k)); x++) {
      for (let y = Math.floor(unitY(n) * k); y <= Math.min(k - 1, Math.floor(unitY(s) * k)); y++) out.push([z, x, y]);
    }
  }
  return out;
}

/** Lisbon's box, and the demo's zooms. */
export const LISBON_BOUNDS: [number, number, number, number] = [-9.26, 38.64, -9.04, 38.8];
export const BASEMAP_ZOOMS = { min: 0, max: 14 } as const;
export const BASEMAP_ATTRIBUTION = 'Generated test basemap (not map data)';

/** The generated shapes in the Protomaps basemap's layers: land, a rough estuary, a street grid, the city's name. */
function lisbonShapes(): Record<string, Feature[]> {
  const [w, s, e, n] = LISBON_BOUNDS;
  const box = (a: number, b: number, c: number, d: number): Geometry => ({ type: 'Polygon', coordinates: [[[a, b], [c, b], [c, d], [a, d], [a, b]]] });
  const feature = (geometry: Geometry, properties: Record<string, unknown>): Feature => ({ type: 'Feature', geometry, properties });
  const estuary: Geometry = { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, 38.74], [-9.09, 38.71], [-9.13, 38.703], [-9.17, 38.695], [-9.21, 38.69], [w, 38.685], [w, s]]] };
  const roads: Feature[] = [];
  for (let lng = -9.25; lng <= -9.05; lng += 0.01) {
    roads.push(feature({ type: 'LineString', coordinates: [[lng, 38.705], [lng + 0.003, n]] }, { kind: Math.round(lng * 100) % 5 === 0 ? 'major_road' : 'minor_road', name: `Rua ${Math.round(-lng * 100)}` }));
  }
  for (let lat = 38.71; lat <= n; lat += 0.01) {
    roads.push(feature({ type: 'LineString', coordinates: [[w, lat], [e, lat + 0.002]] }, { kind: Math.round(lat * 100) % 4 === 0 ? 'major_road' : 'minor_road', name: `Avenida ${Math.round(lat * 100)}` }));
  }
  return {
    earth: [feature(box(w, s, e, n), { kind: 'earth' })],
    water: [feature(estuary, { kind: 'water', name: 'Rio Tejo' })],
    roads,
    places: [feature({ type: 'Point', coordinates: [-9.1393, 38.7223] }, { kind: 'locality', name: 'Lisboa', population_rank: 12, min_zoom: 0 })],
  };
}

/** A solid PNG of 256 × 256 in one colour (tests see it drawn). */
export function solidPng(rgb: [number, number, number]): Uint8Array {
  const size = 256;
  const row = Buffer.alloc(1 + size * 3);
  for (let i = 0; i < size; i++) row.set(rgb, 1 + i * 3);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0); ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** The `pmtiles` package's reader over an archive's bytes in memory (and the service's own uncompressing). */
export function readerOf(bytes: Uint8Array): PMTiles {
  const own = new Uint8Array(bytes);
  const source: Source = { getKey: () => 'memory', getBytes: async (offset, length) => ({ data: own.slice(offset, offset + length).buffer }) };
  return new PMTiles(source, undefined, uncompress);
}

/** Reads `bytes` back with the `pmtiles` reader: throws unless every one of `tiles` comes back as it was written. */
export async function readBack(bytes: Uint8Array, tiles: readonly ArchiveTile[]): Promise<void> {
  const reader = readerOf(bytes);
  for (const t of tiles) {
    const found = await reader.getZxy(t.z, t.x, t.y);
    if (!found || Buffer.compare(new Uint8Array(found.data), t.data) !== 0) throw new Error(`tile ${t.z}/${t.x}/${t.y} does not read back as written`);
  }
}

/** The generated Lisbon basemap's tiles and what the archive says of itself: vector tiles in the Protomaps layers, or solid PNG tiles. */
export function lisbonTiles(kind: 'mvt' | 'png' = 'mvt'): { tiles: ArchiveTile[]; options: ArchiveOptions } {
  const covering = tilesCovering(LISBON_BOUNDS, BASEMAP_ZOOMS.min, BASEMAP_ZOOMS.max);
  const options: Omit<ArchiveOptions, 'kind' | 'metadata'> = { minZoom: BASEMAP_ZOOMS.min, maxZoom: BASEMAP_ZOOMS.max, bounds: LISBON_BOUNDS, center: [-9.14, 38.72, 12] };
  if (kind === 'png') {
    const tiles = covering.map(([z, x, y]) => ({ z, x, y, data: solidPng((x + y) % 2 ? [170, 211, 223] : [242, 239, 233]) }));
    return { tiles, options: { ...options, kind, metadata: { name: 'Lisbon (generated raster)', attribution: BASEMAP_ATTRIBUTION, format: 'png' } } };
  }
  const shapes = lisbonShapes();
  const indexes = Object.entries(shapes).map(([name, features]) => ({
    name, features,
    keys: [...new Set(features.flatMap((f) => Object.keys(f.properties ?? {})))],
    index: new ShapeIndex(features.map((f, i) => ({ geometry: f.geometry, index: i })), BASEMAP_ZOOMS.max),
  }));
  const tiles: ArchiveTile[] = [];
  for (const [z, x, y] of covering) {
    const layers = indexes.map(({ name, features, keys, index }) => ({
      name, extent: SHAPE_EXTENT, keys,
      features: index.tile(z, x, y).map((part) => {
        const properties = (features[part.index].properties ?? {}) as Record<string, string | number>;
        return { type: part.type, geometry: part.geometry, values: keys.map((key) => properties[key]) };
      }),
    }));
    const data = encodeTile(layers);
    if (data.length > 0) tiles.push({ z, x, y, data });
  }
  return { tiles, options: { ...options, kind, metadata: {
    name: 'Lisbon (generated)', attribution: BASEMAP_ATTRIBUTION, format: 'pbf',
    vector_layers: Object.keys(shapes).map((id) => ({ id, fields: { kind: 'String', name: 'String' } })),
  } } };
}

/** The generated Lisbon basemap as a PMTiles archive (vector, or raster with `png`), its tiles compressed as `tileCompression` says. */
export function lisbonBasemap(kind: 'mvt' | 'png' = 'mvt', tileCompression?: TileCompression): Uint8Array {
  const { tiles, options } = lisbonTiles(kind);
  return writePmtiles(tiles, { ...options, ...(tileCompression ? { tileCompression } : {}) });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, raster: { type: 'boolean', default: false } } });
  if (!values.out) {
    console.error('usage: node scripts/make-pmtiles.ts --out FILE.pmtiles [--raster]');
    process.exit(2);
  }
  const { tiles, options } = lisbonTiles(values.raster ? 'png' : 'mvt');
  const bytes = writePmtiles(tiles, options);
  await readBack(bytes, tiles);
  await writeFile(values.out, bytes);
  console.log(`${values.out}: ${bytes.length.toLocaleString('en')} bytes, ${tiles.length.toLocaleString('en')} tiles read back as written`);
}
