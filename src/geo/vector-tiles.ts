/**
 * Vector tiles, typed: clustering points (`supercluster`), cutting and simplifying lines and polygons per zoom
 * (`@maplibre/geojson-vt`), and encoding layers as Mapbox Vector Tile 2.1 (with `pbf`'s writer, below). Under this
 * project's module resolution the `@maplibre` type files resolve to `any`, so every call to them goes through the
 * typed functions here and nowhere else.
 *
 * Tile coordinates are Web Mercator's (XYZ, y down). Each layer is written with its own extent (supercluster's 512
 * and geojson-vt's 4096 differ, and a tile encoded with the wrong one moves its points by up to a tile), as MVT
 * version 2. The encoder is this module's, not `@maplibre/vt-pbf`'s: vt-pbf keys each value of a layer's table by a
 * string it builds per feature and property, which took most of a distinct tile's time here (docs/decisions.md).
 */
import Supercluster from 'supercluster';
import { GeoJSONVT, geoJSONToTile } from '@maplibre/geojson-vt';
import Flatbush from 'flatbush';
import { PbfWriter } from 'pbf';
import type { Feature as GeoFeature, Geometry } from 'geojson';

/** The deepest zoom a tile is served for (a map's tiles, the basemap's, the pages' land). */
export const MAX_TILE_ZOOM = 22;

/** The media type of a Mapbox Vector Tile. */
export const MVT_TYPE = 'application/vnd.mapbox-vector-tile';

/** A property value a tile can hold. */
export type TileValue = string | number | boolean;

/** A feature of a tile, in the tile's own coordinates (0..extent, y down). */
export interface TileFeature {
  /** 1 point, 2 line, 3 polygon. */
  type: 1 | 2 | 3;
  /** Points: [[x, y]]; lines: each line's positions; polygons: each ring's positions. */
  geometry: number[][] | number[][][];
  /** Its properties: a value for each of its layer's `keys`, in their order (undefined: it has none of that key). */
  values: readonly (TileValue | undefined)[];
  /** A numeric feature id (MVT ids are unsigned integers), or none. */
  id?: number;
}

/** One layer of a tile: its name, its extent, the names of its features' properties, and its features. */
export interface TileLayer {
  name: string;
  extent: number;
  keys: readonly string[];
  features: readonly TileFeature[];
}

/** The extent of the points layers, supercluster's (the cluster radius is relative to it). */
export const POINT_EXTENT = 512;
/** The extent of the lines and polygons layers, geojson-vt's. */
export const SHAPE_EXTENT = 4096;

/**
 * The buffer tiles are written into, kept from one tile to the next (and grown when a tile needs more): a tile is
 * written in one go on one thread, and a writer that started small would grow it a dozen times per tile.
 */
let scratchBuffer: Uint8Array = new Uint8Array(64 * 1024);

/** Encodes the layers (an empty one left out) as one MVT 2.1 tile; no layer with a feature gives an empty body. */
export function encodeTile(layers: readonly TileLayer[]): Uint8Array<ArrayBuffer> {
  if (layers.every((layer) => layer.features.length === 0)) return new Uint8Array(0);
  const pbf = new PbfWriter(scratchBuffer);
  for (const layer of layers) if (layer.features.length > 0) pbf.writeMessage(3, writeLayer, layer);
  scratchBuffer = pbf.buf;
  // The tile's own copy of its bytes, so the cache keeps only them.
  return pbf.buf.slice(0, pbf.pos) as Uint8Array<ArrayBuffer>;
}

/** What one feature is written from: the feature, its tags and its geometry commands (arrays reused per layer). */
interface FeatureScratch { feature: TileFeature; tags: number[]; geometry: number[] }

/**
 * One layer (MVT 2.1 §4.1): version, name, extent, its features, then the keys and values their tags index. Keys are
 * the layer's own (those no feature has are left out); values are interned per type in Maps (a tile's ids and names
 * are mostly distinct, its categories, colours and icons few).
 */
function writeLayer(layer: TileLayer, pbf: PbfWriter): void {
  pbf.writeVarintField(15, 2);
  pbf.writeStringField(1, layer.name);
  pbf.writeVarintField(5, layer.extent);
  // A key's index in the tile's key table, by its place in `layer.keys` (-1: not used yet).
  const keyIndex = new Int32Array(layer.keys.length).fill(-1);
  const usedKeys: string[] = [];
  const strings = new Map<string, number>();
  const numbers = new Map<number, number>();
  const booleans = [-1, -1];
  const values: TileValue[] = [];
  const scratch: FeatureScratch = { feature: layer.features[0], tags: [], geometry: [] };
  for (const feature of layer.features) {
    const tags = scratch.tags;
    tags.length = 0;
    const featureValues = feature.values;
    for (let k = 0; k < featureValues.length; k++) {
      const value = featureValues[k];
      if (value === undefined) continue;
      if (keyIndex[k] < 0) keyIndex[k] = usedKeys.push(layer.keys[k]) - 1;
      let v: number | undefined;
      if (typeof value === 'string') {
        v = strings.get(value);
        if (v === undefined) strings.set(value, (v = values.push(value) - 1));
      } else if (typeof value === 'number') {
        v = numbers.get(value);
        if (v === undefined) numbers.set(value, (v = values.push(value) - 1));
      } else {
        v = booleans[value ? 1 : 0];
        if (v < 0) booleans[value ? 1 : 0] = v = values.push(value) - 1;
      }
      tags.push(keyIndex[k], v);
    }
    scratch.feature = feature;
    encodeGeometry(feature, scratch.geometry);
    pbf.writeMessage(2, writeFeature, scratch);
  }
  for (const key of usedKeys) pbf.writeStringField(3, key);
  for (const value of values) pbf.writeMessage(4, writeValue, value);
}

function writeFeature(scratch: FeatureScratch, pbf: PbfWriter): void {
  if (scratch.feature.id !== undefined) pbf.writeVarintField(1, scratch.feature.id);
  pbf.writePackedVarint(2, scratch.tags);
  pbf.writeVarintField(3, scratch.feature.type);
  pbf.writePackedVarint(4, scratch.geometry);
}

function writeValue(value: TileValue, pbf: PbfWriter): void {
  if (typeof value === 'string') pbf.writeStringField(1, value);
  else if (typeof value === 'boolean') pbf.writeBooleanField(7, value);
  else if (!Number.isInteger(value)) pbf.writeDoubleField(3, value);
  else if (value < 0) pbf.writeSVarintField(6, value);
  else pbf.writeVarintField(5, value);
}

const command = (id: number, count: number) => (count << 3) | id;
const zigzag = (n: number) => (n << 1) ^ (n >> 31);

/** A feature's geometry as MVT commands (§4.3): MoveTo, LineTo and ClosePath with zigzag deltas, into `out`. */
function encodeGeometry(feature: TileFeature, out: number[]): void {
  out.length = 0;
  let x = 0;
  let y = 0;
  const moveBy = (p: number[]) => {
    out.push(zigzag(p[0] - x), zigzag(p[1] - y));
    x = p[0];
    y = p[1];
  };
  if (feature.type === 1) {
    const points = feature.geometry as number[][];
    out.push(command(1, points.length));
    for (const p of points) moveBy(p);
    return;
  }
  for (const ring of feature.geometry as number[][][]) {
    // A polygon's ring is written without its closing point (ClosePath draws it).
    const last = ring.length - 1;
    const count = feature.type === 3 && last > 0 && ring[last][0] === ring[0][0] && ring[last][1] === ring[0][1] ? last : ring.length;
    if (count < (feature.type === 3 ? 3 : 2)) continue;
    out.push(command(1, 1));
    moveBy(ring[0]);
    out.push(command(2, count - 1));
    for (let i = 1; i < count; i++) moveBy(ring[i]);
    if (feature.type === 3) out.push(command(7, 1));
  }
}

/** A point to cluster: where it is, and the number it is known by. */
export interface ClusterPoint { lng: number; lat: number; index: number }

/** A cluster or a single point in a tile, in the tile's coordinates (POINT_EXTENT). */
export type ClusteredFeature<A> =
  | { cluster: true; x: number; y: number; clusterId: number; count: number; sum: A }
  | { cluster: false; x: number; y: number; index: number };

/** The options of a cluster index. */
export interface ClusterOptions<A> {
  /** The cluster radius in tile pixels (of POINT_EXTENT). */
  radius: number;
  /** The highest zoom with clusters; above it every point is a feature of its own. */
  maxZoom: number;
  /** What a single point brings to its cluster's sum. */
  start(index: number): A;
  /**
   * The sum of `a` and `b`, as a new value: supercluster copies a cluster's properties shallowly into the cluster it
   * joins at the zoom below, so a sum changed in place would change the smaller cluster's too.
   */
  add(a: A, b: A): A;
}

/** Points clustered per zoom (supercluster). */
export class ClusterIndex<A> {
  private readonly index: Supercluster<{ i: number }, { sum: A }>;

  constructor(points: readonly ClusterPoint[], options: ClusterOptions<A>) {
    this.index = new Supercluster<{ i: number }, { sum: A }>({
      radius: options.radius, extent: POINT_EXTENT, maxZoom: options.maxZoom, minZoom: 0,
      map: (props) => ({ sum: options.start(props.i) }),
      reduce: (a, b) => { a.sum = options.add(a.sum, b.sum); },
    });
    this.index.load(points.map((p) => ({ type: 'Feature' as const, geometry: { type: 'Point' as const, coordinates: [p.lng, p.lat] }, properties: { i: p.index } })));
  }

  /** The clusters and points of tile z/x/y, with those within the buffer (radius / extent of the tile) around it. */
  tile(z: number, x: number, y: number): ClusteredFeature<A>[] {
    const tile = this.index.getTile(z, x, y);
    if (!tile) return [];
    return tile.features.map((f) => {
      const [[px, py]] = f.geometry as [number, number][];
      const tags = f.tags as Record<string, unknown>;
      return tags.cluster === true
        ? { cluster: true as const, x: px, y: py, clusterId: Number(tags.cluster_id), count: Number(tags.point_count), sum: tags.sum as A }
        : { cluster: false as const, x: px, y: py, index: (tags as { i: number }).i };
    });
  }
}

/** A shape to cut into tiles (a line or polygon; points are kept whole), and the number it is known by. */
export interface Shape { geometry: Geometry; index: number }

/** A shape's part in a tile: its kind, its geometry in tile coordinates (SHAPE_EXTENT) and its number. */
export interface ShapePart { type: 1 | 2 | 3; geometry: number[][] | number[][][]; index: number }

/**
 * Tiles a shape index keeps before it starts afresh: geojson-vt keeps every tile it has cut, those it cut on the way
 * down to the one asked for too (four at each zoom: one pass of the benchmark's 301-tile mix kept about 8,000, some 2 KB
 * each, when its 10,000 paths and polygons were all in such indexes), and a crawler asks for many. A SizedShapeIndex
 * shares it among the bands of its large shapes.
 */
export const KEPT_SHAPE_TILES = 20_000;

type GeoJsonVtIndex = {
  /** geojson-vt's tile index: `tileCoords` lists every tile it keeps (its `total` counts them only when debugging). */
  tileIndex: { tileCoords: readonly unknown[] };
  getTile(z: number, x: number, y: number): { features: { type: number; geometry: number[][] | number[][][]; tags: { i: number } }[] } | null;
};

/**
 * Lines and polygons cut into tiles and simplified per zoom (geojson-vt), down to `maxZoom` (geojson-vt cuts no tile
 * deeper than its own maxZoom); tiles are cut when first asked for and kept, up to `keep` of them. The shapes are
 * asked of `shapes` when the index is made (and made again once it keeps too many tiles), so that a caller whose
 * shapes live elsewhere (a map's, in the content's store) need not keep them twice.
 */
export class ShapeIndex {
  private readonly shapes: () => readonly Shape[];
  private readonly empty: boolean;
  private readonly maxZoom: number;
  private readonly keep: number;
  private readonly indexMaxZoom: number;
  private index: GeoJsonVtIndex | null = null;

  /**
   * `keep`: the tiles kept (KEPT_SHAPE_TILES); `indexMaxZoom`: the zoom down to which every tile is cut at once
   * (geojson-vt's, default 5; deeper tiles are cut when asked for).
   */
  constructor(shapes: readonly Shape[] | (() => readonly Shape[]), maxZoom: number, options: { keep?: number; indexMaxZoom?: number } = {}) {
    this.shapes = typeof shapes === 'function' ? shapes : () => shapes;
    this.empty = typeof shapes !== 'function' && shapes.length === 0;
    this.maxZoom = maxZoom;
    this.keep = options.keep ?? KEPT_SHAPE_TILES;
    this.indexMaxZoom = options.indexMaxZoom ?? 5;
  }

  /** The tiles it keeps now. */
  get kept(): number {
    return this.index?.tileIndex.tileCoords.length ?? 0;
  }

  /** Lets go of every tile kept (the index is made again when next asked). */
  reset(): void {
    this.index = null;
  }

  /** The parts of tile z/x/y (each shape cut at the tile's edges and a buffer of 64/4096 beyond them). */
  tile(z: number, x: number, y: number): ShapePart[] {
    if (this.empty) return [];
    if (!this.index || this.index.tileIndex.tileCoords.length > this.keep) {
      const features: GeoFeature[] = this.shapes().map((s) => ({ type: 'Feature', geometry: s.geometry, properties: { i: s.index } }));
      this.index = new GeoJSONVT({ type: 'FeatureCollection', features },
        { extent: SHAPE_EXTENT, maxZoom: this.maxZoom, indexMaxZoom: this.indexMaxZoom, buffer: 64, tolerance: 3 }) as unknown as GeoJsonVtIndex;
    }
    const tile = this.index.getTile(z, x, y);
    if (!tile) return [];
    return tile.features.map((f) => ({ type: f.type as 1 | 2 | 3, geometry: f.geometry, index: f.tags.i }));
  }
}

/** A shape with at most this many vertices is cut for each tile afresh; a larger one from an index that keeps its cuts. */
export const CUT_AFRESH_MAX_VERTICES = 256;

/** The buffer around a tile that shapes are cut with, in units of the tile's width (geojson-vt's 64 of 4096). */
const SHAPE_BUFFER = 64;

/** How geojson-vt cuts one tile of the small shapes: as the indexes do, clipped to the tile and its buffer, wrapped at 180°. */
const CUT_OPTIONS = { extent: SHAPE_EXTENT, buffer: SHAPE_BUFFER, tolerance: 3, clip: true, wrap: true };

type CutTile = { features: { type: number; geometry: number[][] | number[][][]; tags: { i: number; z: number; k: number } }[] } | null;
/** geojson-vt's one-tile cut, typed (its type files resolve to `any` here). */
const cutOneTile = geoJSONToTile as unknown as (data: { type: 'FeatureCollection'; features: GeoFeature[] }, z: number, x: number, y: number,
  options: typeof CUT_OPTIONS & { maxZoom: number }) => CutTile;

/**
 * Shapes drawn from the zoom at which they span `minSize` of a tile (its width or height, in Web Mercator): a park
 * across town from about zoom 12, a 300 m trail from zoom 15; below it a shape is a few pixels of noise that every
 * tile around a city would otherwise carry.
 *
 * Most shapes are small (a park, a trail: a few dozen vertices). Those of up to CUT_AFRESH_MAX_VERTICES are cut for
 * each tile afresh: a `flatbush` index of their boxes finds those that meet the tile, and geojson-vt cuts that tile of
 * them alone (`geoJSONToTile`). Nothing is kept between tiles, and a tile never asked for costs nothing: a geojson-vt
 * index cuts its way down from the deepest tile it keeps (at first zoom 0 on a city's map: it cuts ahead only tiles of
 * more than 100,000 vertices) and keeps the tiles on the way (four at each zoom), which made a tile in a part of the
 * map not asked for before several times as slow (docs/decisions.md). The index keeps a copy of their vertices in one
 * Float64Array (16 bytes a vertex), not their GeoJSON. Larger shapes, whose every tile would repeat their simplification, are in
 * geojson-vt indexes, one per zoom they are drawn from (so a tile cuts only the shapes it draws), which together keep
 * about KEPT_SHAPE_TILES tiles; `geometryOf` gives such a shape's geometry again when its band's index is made (the
 * index keeps its number, not its geometry).
 */
export class SizedShapeIndex {
  private readonly bands: { minZoom: number; index: ShapeIndex }[];
  private readonly small: SmallShapes | null;

  constructor(shapes: readonly Shape[], maxZoom: number, minSize: number, geometryOf?: (index: number) => Geometry) {
    const byZoom = new Map<number, Shape[]>();
    const small: { shape: Shape; box: [number, number, number, number]; minZoom: number }[] = [];
    for (const shape of shapes) {
      const box = mercatorBox(shape.geometry);
      const zoom = Math.min(maxZoom, Math.max(0, Math.ceil(Math.log2(minSize / Math.max(box[2] - box[0], box[3] - box[1], 0)))));
      if (cutAfresh(shape.geometry)) {
        small.push({ shape, box, minZoom: zoom });
        continue;
      }
      let band = byZoom.get(zoom);
      if (!band) byZoom.set(zoom, (band = []));
      band.push(shape);
    }
    this.small = small.length > 0 ? new SmallShapes(small, maxZoom) : null;
    // The bands share the budget (see `tile`): no band lets go of its tiles on its own.
    const keep = Infinity;
    this.bands = [...byZoom].sort((a, b) => a[0] - b[0]).map(([minZoom, band]) => {
      if (!geometryOf) return { minZoom, index: new ShapeIndex(band, maxZoom, { keep }) };
      const numbers = Int32Array.from(band, (shape) => shape.index);
      const again = () => Array.from(numbers, (index) => ({ geometry: geometryOf(index), index }));
      return { minZoom, index: new ShapeIndex(again, maxZoom, { keep }) };
    });
  }

  /**
   * The parts of tile z/x/y of the shapes drawn at zoom z (those `keep` keeps, by number, when given), in the order of
   * the zoom each is drawn from, so the larger first (a map draws the smaller over them), then as the shapes were
   * given (a large shape's before a small one's of the same zoom); then, past KEPT_SHAPE_TILES, the band keeping most
   * lets go.
   */
  tile(z: number, x: number, y: number, keep?: (index: number) => boolean): ShapePart[] {
    const small = this.small ? this.small.tile(z, x, y, keep) : [];
    if (this.bands.length === 0) return small.map((s) => s.part);
    const parts: ShapePart[] = [];
    let next = 0;
    let kept = 0;
    let largest = this.bands[0];
    for (const band of this.bands) {
      while (next < small.length && small[next].minZoom < band.minZoom) parts.push(small[next++].part);
      if (band.minZoom <= z) for (const part of band.index.tile(z, x, y)) if (!keep || keep(part.index)) parts.push(part);
      kept += band.index.kept;
      if (band.index.kept > largest.index.kept) largest = band;
    }
    while (next < small.length) parts.push(small[next++].part);
    if (kept > KEPT_SHAPE_TILES) largest.index.reset();
    return parts;
  }
}

/** Whether a shape is cut for each tile afresh: a line or a polygon of at most CUT_AFRESH_MAX_VERTICES vertices. */
function cutAfresh(geometry: Geometry): boolean {
  if (geometry.type === 'LineString') return geometry.coordinates.length <= CUT_AFRESH_MAX_VERTICES;
  if (geometry.type !== 'Polygon') return false;
  let vertices = 0;
  for (const ring of geometry.coordinates) vertices += ring.length;
  return vertices <= CUT_AFRESH_MAX_VERTICES;
}

/**
 * Small lines and polygons, each cut for every tile it meets afresh: their boxes (Web Mercator) in a `flatbush`
 * index, the zoom each is drawn from, and their rings' vertices (lng, lat) in one array.
 */
class SmallShapes {
  private readonly boxes: Flatbush;
  private readonly numbers: Int32Array;
  private readonly minZooms: Uint8Array;
  private readonly polygon: Uint8Array;
  /** Shape k's rings are rings firstRing[k] .. firstRing[k + 1]; ring r's vertices are ringStart[r] .. ringStart[r + 1] (pairs). */
  private readonly firstRing: Uint32Array;
  private readonly ringStart: Uint32Array;
  private readonly coords: Float64Array;
  /** Marks of the shapes found for one tile (a tile across the antimeridian searches twice). */
  private readonly found: Uint8Array;
  /** The deepest zoom cut (geojson-vt simplifies nothing there). */
  private readonly maxZoom: number;

  constructor(shapes: readonly { shape: Shape; box: readonly number[]; minZoom: number }[], maxZoom: number) {
    const n = shapes.length;
    this.maxZoom = maxZoom;
    this.boxes = new Flatbush(n);
    this.numbers = new Int32Array(n);
    this.minZooms = new Uint8Array(n);
    this.polygon = new Uint8Array(n);
    this.firstRing = new Uint32Array(n + 1);
    this.found = new Uint8Array(n);
    const rings: (readonly number[][])[] = [];
    shapes.forEach(({ shape, box, minZoom }, k) => {
      this.boxes.add(box[0], box[1], box[2], box[3]);
      this.numbers[k] = shape.index;
      this.minZooms[k] = minZoom;
      const g = shape.geometry as { type: 'LineString'; coordinates: number[][] } | { type: 'Polygon'; coordinates: number[][][] };
      this.polygon[k] = g.type === 'Polygon' ? 1 : 0;
      for (const ring of g.type === 'Polygon' ? g.coordinates : [g.coordinates]) rings.push(ring);
      this.firstRing[k + 1] = rings.length;
    });
    this.boxes.finish();
    this.ringStart = new Uint32Array(rings.length + 1);
    for (let r = 0; r < rings.length; r++) this.ringStart[r + 1] = this.ringStart[r] + rings[r].length;
    this.coords = new Float64Array(2 * this.ringStart[rings.length]);
    let at = 0;
    for (const ring of rings) for (const p of ring) {
      this.coords[at++] = p[0];
      this.coords[at++] = p[1];
    }
  }

  /**
   * The parts of tile z/x/y (with its buffer, across the antimeridian too) of the shapes drawn at zoom z that `keep`
   * keeps (only those are cut), each with the zoom it is drawn from, in that order, then as the shapes were given.
   * Where a concave shape leaves the tile and comes back, a cut straight to the tile runs along the buffer's edge and
   * back: those spikes are taken out of its rings, a ring then without area is left out, and a polygon left with no
   * ring (a geojson-vt index, cutting its way down zoom by zoom, makes none of them).
   */
  tile(z: number, x: number, y: number, keep: ((index: number) => boolean) | undefined): { part: ShapePart; minZoom: number }[] {
    const size = 2 ** -z;
    const buffer = (SHAPE_BUFFER / SHAPE_EXTENT) * size;
    const [west, north, east, south] = [x * size - buffer, y * size - buffer, (x + 1) * size + buffer, (y + 1) * size + buffer];
    const hits = this.boxes.search(west, north, east, south);
    // geojson-vt's wrap copies shapes within its buffer of the far side of the antimeridian: find them too.
    if (west < 0) hits.push(...this.boxes.search(1 + west, north, 1, south));
    if (east > 1) hits.push(...this.boxes.search(0, north, east - 1, south));
    const chosen: number[] = [];
    for (const k of hits) {
      if (this.found[k] === 1 || this.minZooms[k] > z || (keep && !keep(this.numbers[k]))) continue;
      this.found[k] = 1;
      chosen.push(k);
    }
    for (const k of hits) this.found[k] = 0;
    if (chosen.length === 0) return [];
    const features: GeoFeature[] = chosen.map((k) => ({ type: 'Feature', geometry: this.geometry(k), properties: { i: this.numbers[k], z: this.minZooms[k], k } }));
    const tile = cutOneTile({ type: 'FeatureCollection', features }, z, x, y, { ...CUT_OPTIONS, maxZoom: this.maxZoom });
    const out: { part: ShapePart; minZoom: number; k: number }[] = [];
    for (const f of tile?.features ?? []) {
      let geometry = f.geometry;
      if (f.type === 3) {
        geometry = (geometry as number[][][]).map(withoutSpikes).filter((ring) => ringArea(ring) !== 0);
        if (geometry.length === 0) continue;
      }
      out.push({ part: { type: f.type as 1 | 2 | 3, geometry, index: f.tags.i }, minZoom: f.tags.z, k: f.tags.k });
    }
    // In the order of the zoom each is drawn from, then as given (the search finds them in its own order).
    return out.sort((a, b) => a.minZoom - b.minZoom || a.k - b.k);
  }

  /** Shape k's geometry as GeoJSON. */
  private geometry(k: number): Geometry {
    const rings: number[][][] = [];
    for (let r = this.firstRing[k]; r < this.firstRing[k + 1]; r++) {
      const ring: number[][] = [];
      for (let at = 2 * this.ringStart[r]; at < 2 * this.ringStart[r + 1]; at += 2) ring.push([this.coords[at], this.coords[at + 1]]);
      rings.push(ring);
    }
    return this.polygon[k] === 1 ? { type: 'Polygon', coordinates: rings } : { type: 'LineString', coordinates: rings[0] };
  }
}

/** Whether b is a spike between a and c: the ring goes from a to b and straight back toward a (or b repeats a or c). */
function isSpike(a: readonly number[], b: readonly number[], c: readonly number[]): boolean {
  const [ux, uy, wx, wy] = [b[0] - a[0], b[1] - a[1], c[0] - b[0], c[1] - b[1]];
  return ux * wy - uy * wx === 0 && ux * wx + uy * wy <= 0;
}

/** A closed ring without its spikes (see isSpike), closed again; fewer than three vertices left when it had no area. */
function withoutSpikes(ring: readonly number[][]): number[][] {
  const out: number[][] = [];
  for (const p of ring.slice(0, -1)) {
    out.push(p);
    while (out.length >= 3 && isSpike(out[out.length - 3], out[out.length - 2], out[out.length - 1])) out.splice(out.length - 2, 1);
  }
  // Where the ring closes: its last vertices before its first, its first after its last.
  for (let changed = true; changed && out.length >= 3;) {
    changed = false;
    if (isSpike(out[out.length - 2], out[out.length - 1], out[0])) out.pop();
    else if (isSpike(out[out.length - 1], out[0], out[1])) out.shift();
    else continue;
    changed = true;
  }
  return out.length > 0 ? [...out, out[0]] : out;
}

/** Twice a ring's signed area, in its own coordinates (the shoelace formula). */
function ringArea(ring: readonly number[][]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) sum += (ring[j][0] - ring[i][0]) * (ring[i][1] + ring[j][1]);
  return sum;
}

/**
 * A geometry's box in Web Mercator's unit square (x east, y south from the north edge): [west, north, east, south].
 * Projected as geojson-vt projects (y kept within the square), so a shape near a pole is found by the tiles it is cut into.
 */
function mercatorBox(geometry: Geometry): [number, number, number, number] {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (c: unknown): void => {
    if (typeof (c as number[])[0] === 'number') {
      const [lng, lat] = c as number[];
      const x = lng / 360 + 0.5;
      const sin = Math.sin((lat * Math.PI) / 180);
      const y = Math.min(1, Math.max(0, 0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)));
      w = Math.min(w, x); e = Math.max(e, x); s = Math.min(s, y); n = Math.max(n, y);
    } else for (const inner of c as unknown[]) visit(inner);
  };
  if ('coordinates' in geometry) visit(geometry.coordinates);
  return w <= e ? [w, s, e, n] : [0, 0, 0, 0];
}

/** The coordinates of tile z/x/y that lie beyond its zoom's grid (`x` or `y` at or past 2^z), by name. */
export function beyondGrid(tile: { z: number; x: number; y: number }): ('x' | 'y')[] {
  return (['x', 'y'] as const).filter((name) => tile[name] >= 2 ** tile.z);
}

/** The tile's box in degrees: [west, south, east, north]. */
export function tileBox(z: number, x: number, y: number): [number, number, number, number] {
  const n = 2 ** z;
  const lng = (tx: number) => (tx / n) * 360 - 180;
  const lat = (ty: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * ty) / n))) * 180) / Math.PI;
  return [lng(x), lat(y + 1), lng(x + 1), lat(y)];
}
