/**
 * Land as vector tiles, for the pages' offline base when no basemap is served, from Natural Earth in world-atlas:
 * one layer `land` (water is what lies between). The world at 1:110m for zooms up to WORLD_LAND_MAX_ZOOM; closer in,
 * 1:10m land around the enabled maps (their regions: each map's box or centre and REGION_DEGREES around it, which a
 * visitor's views of the map stay inside), in the tiles wholly inside a region, down to LAND_MAX_ZOOM, beyond which
 * Natural Earth is off by more than a street; in every other tile 1:110m again.
 *
 * The 1:10m topology is 3 MB of JSON that JSON.parse and topojson-client would make into 400,000 small arrays
 * (a quarter of a gigabyte of RSS on Node): it is read here without either, its arcs scanned straight into one
 * Int32Array, and only the polygons around the regions are made into coordinates, each ring clipped to the regions.
 */
import type { Feature, Polygon } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { encodeTile, SHAPE_EXTENT, ShapeIndex, tileBox } from './vector-tiles.ts';

/** The closest zoom land is served for. */
export const LAND_MAX_ZOOM = 14;
/** The closest zoom the world's 1:110m land is served for everywhere. */
export const WORLD_LAND_MAX_ZOOM = 4;
/** Degrees around a map's box (or centre) its region reaches, in longitude and latitude. */
export const REGION_DEGREES = 15;

/** A box: [west, south, east, north] in degrees. */
export type Box = [number, number, number, number];

const intersects = (a: Box, b: Box) => a[0] <= b[2] && a[2] >= b[0] && a[1] <= b[3] && a[3] >= b[1];

/** The region around a map: its box, else its centre, grown by REGION_DEGREES (latitudes kept within ±85). */
export function regionOf(center: { lat: number; lng: number }, bounds?: readonly number[]): Box {
  const [w, s, e, n] = bounds ?? [center.lng, center.lat, center.lng, center.lat];
  return [Math.max(-180, w - REGION_DEGREES), Math.max(-85, s - REGION_DEGREES), Math.min(180, e + REGION_DEGREES), Math.min(85, n + REGION_DEGREES)];
}

/** Regions that overlap made one (their common box), so no land is drawn twice. */
export function mergeRegions(regions: readonly Box[]): Box[] {
  const out: Box[] = regions.map((r) => [...r] as Box);
  for (let merged = true; merged;) {
    merged = false;
    for (let i = 0; i < out.length && !merged; i++) {
      for (let j = i + 1; j < out.length && !merged; j++) {
        if (!intersects(out[i], out[j])) continue;
        out[i] = [Math.min(out[i][0], out[j][0]), Math.min(out[i][1], out[j][1]), Math.max(out[i][2], out[j][2]), Math.max(out[i][3], out[j][3])];
        out.splice(j, 1);
        merged = true;
      }
    }
  }
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** The 1:10m topology's arcs (quantized and delta-coded, as in the file) and polygons (rings of arc indices). */
interface ScannedTopology {
  points: Int32Array;
  /** Arc i is points[2 * arcStart[i] .. 2 * arcStart[i + 1]) as x, y pairs. */
  arcStart: Uint32Array;
  polygons: number[][][];
  scale: [number, number];
  translate: [number, number];
}

/** The end (exclusive) of the JSON array or object starting at `at` (no strings in it hold brackets here). */
function closing(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) depth++;
    else if ((c === 93 || c === 125) && --depth === 0) return i + 1;
  }
  throw new Error('the land topology ends inside a bracket');
}

/** Reads world-atlas' land topology: its objects with JSON.parse (small), its arcs scanned into typed arrays. */
function scanTopology(text: string): ScannedTopology {
  const objectsAt = text.indexOf('{', text.indexOf('"objects"'));
  const objectsEnd = closing(text, objectsAt);
  const objects = JSON.parse(text.slice(objectsAt, objectsEnd)) as { land: { geometries: { type: string; arcs: number[][] | number[][][] }[] } };
  const polygons: number[][][] = [];
  for (const g of objects.land.geometries) {
    if (g.type === 'Polygon') polygons.push(g.arcs as number[][]);
    else for (const p of g.arcs as number[][][]) polygons.push(p);
  }
  const transform = JSON.parse(/"transform":(\{[^}]*\})/.exec(text)![1]) as { scale: [number, number]; translate: [number, number] };
  const arcsAt = text.indexOf('[', text.indexOf('"arcs":', objectsEnd));
  const arcsEnd = closing(text, arcsAt);
  let points = new Int32Array(1 << 20);
  let count = 0;
  const starts: number[] = [];
  let depth = 0;
  let value = 0;
  let sign = 1;
  let inNumber = false;
  for (let i = arcsAt; i < arcsEnd; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) { value = value * 10 + (c - 48); inNumber = true; continue; }
    if (c === 45) { sign = -1; continue; }
    if (inNumber) {
      if (count === points.length) { const grown = new Int32Array(points.length * 2); grown.set(points); points = grown; }
      points[count++] = sign * value;
      value = 0; sign = 1; inNumber = false;
    }
    if (c === 91) { depth++; if (depth === 2) starts.push(count / 2); } else if (c === 93) depth--;
  }
  starts.push(count / 2);
  return { points: points.subarray(0, count), arcStart: Uint32Array.from(starts), polygons, scale: transform.scale, translate: transform.translate };
}

/** A ring's positions (lng, lat) from its arcs (a negative index ~i is arc i reversed), each shared point once. */
function ringOf(topology: ScannedTopology, arcs: readonly number[]): number[][] {
  const ring: number[][] = [];
  const { points, arcStart, scale, translate } = topology;
  for (const index of arcs) {
    const arc = index < 0 ? ~index : index;
    const positions: number[][] = [];
    let x = 0;
    let y = 0;
    for (let k = arcStart[arc]; k < arcStart[arc + 1]; k++) {
      x += points[2 * k];
      y += points[2 * k + 1];
      positions.push([x * scale[0] + translate[0], y * scale[1] + translate[1]]);
    }
    if (index < 0) positions.reverse();
    for (let k = ring.length > 0 ? 1 : 0; k < positions.length; k++) ring.push(positions[k]);
  }
  return ring;
}

/** The box of a ring's arcs, decoded without making its positions. */
function ringBox(topology: ScannedTopology, arcs: readonly number[]): Box {
  const { points, arcStart, scale, translate } = topology;
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const index of arcs) {
    const arc = index < 0 ? ~index : index;
    let x = 0;
    let y = 0;
    for (let k = arcStart[arc]; k < arcStart[arc + 1]; k++) {
      x += points[2 * k];
      y += points[2 * k + 1];
      if (x < w) w = x;
      if (x > e) e = x;
      if (y < s) s = y;
      if (y > n) n = y;
    }
  }
  return [w * scale[0] + translate[0], s * scale[1] + translate[1], e * scale[0] + translate[0], n * scale[1] + translate[1]];
}

/** A closed ring clipped to a box (Sutherland–Hodgman, one edge of the box at a time); empty when none of it is inside. */
export function clipRing(ring: readonly number[][], [w, s, e, n]: Box): number[][] {
  const edges: [(p: number[]) => boolean, (a: number[], b: number[]) => number[]][] = [
    [(p) => p[0] >= w, (a, b) => [w, a[1] + ((b[1] - a[1]) * (w - a[0])) / (b[0] - a[0])]],
    [(p) => p[0] <= e, (a, b) => [e, a[1] + ((b[1] - a[1]) * (e - a[0])) / (b[0] - a[0])]],
    [(p) => p[1] >= s, (a, b) => [a[0] + ((b[0] - a[0]) * (s - a[1])) / (b[1] - a[1]), s]],
    [(p) => p[1] <= n, (a, b) => [a[0] + ((b[0] - a[0]) * (n - a[1])) / (b[1] - a[1]), n]],
  ];
  let out = ring.slice(0, -1);
  for (const [inside, cross] of edges) {
    const input = out;
    out = [];
    for (let i = 0; i < input.length; i++) {
      const current = input[i];
      const previous = input[(i + input.length - 1) % input.length];
      if (inside(current)) {
        if (!inside(previous)) out.push(cross(previous, current));
        out.push(current);
      } else if (inside(previous)) out.push(cross(previous, current));
    }
    if (out.length === 0) return [];
  }
  return out.length >= 3 ? [...out, out[0]] : [];
}

/** The land polygons of the 1:10m topology around `regions`, each clipped to each region it lies in. */
function regionalLand(topology: ScannedTopology, regions: readonly Box[]): Feature<Polygon>[] {
  const out: Feature<Polygon>[] = [];
  for (const polygon of topology.polygons) {
    const box = ringBox(topology, polygon[0]);
    if (!regions.some((region) => intersects(box, region))) continue;
    const rings = polygon.map((arcs) => ringOf(topology, arcs));
    for (const region of regions) {
      if (!intersects(box, region)) continue;
      const clipped = rings.map((ring) => clipRing(ring, region)).filter((ring, k) => k === 0 ? true : ring.length > 0);
      if (clipped[0].length > 0) out.push({ type: 'Feature', geometry: { type: 'Polygon', coordinates: clipped }, properties: {} });
    }
  }
  return out;
}

/** Land tiles from world-atlas' `land-110m` and `land-10m` topologies' texts, for the regions of some maps. */
export class LandTiles {
  private readonly world: ShapeIndex;
  private readonly detailed: ShapeIndex;
  private readonly regions: readonly Box[];

  constructor(texts: { world: string; detailed: string }, regions: readonly Box[]) {
    const world = JSON.parse(texts.world) as Topology<{ land: GeometryCollection }>;
    const worldLand = feature(world, world.objects.land);
    this.world = new ShapeIndex(worldLand.features.map((f, index) => ({ geometry: f.geometry, index })), LAND_MAX_ZOOM, { indexMaxZoom: 0 });
    this.regions = mergeRegions(regions);
    const detailed = this.regions.length > 0 ? regionalLand(scanTopology(texts.detailed), this.regions) : [];
    this.detailed = new ShapeIndex(detailed.map((f, index) => ({ geometry: f.geometry, index })), LAND_MAX_ZOOM, { indexMaxZoom: 0 });
  }

  /** Tile z/x/y as MVT bytes (empty at sea and beyond LAND_MAX_ZOOM). */
  tile(z: number, x: number, y: number): Uint8Array<ArrayBuffer> {
    if (z > LAND_MAX_ZOOM) return new Uint8Array(0);
    const box = tileBox(z, x, y);
    // A tile wholly inside a region is cut from its 1:10m land; any other from the world's, so none shows a region's edge.
    const inside = (r: Box) => box[0] >= r[0] && box[2] <= r[2] && box[1] >= r[1] && box[3] <= r[3];
    const index = z > WORLD_LAND_MAX_ZOOM && this.regions.some(inside) ? this.detailed : this.world;
    const features = index.tile(z, x, y).map((part) => ({ type: part.type, geometry: part.geometry, values: [] }));
    return encodeTile([{ name: 'land', extent: SHAPE_EXTENT, keys: [], features }]);
  }
}
