/**
 * A static spatial index over points (KDBush), each point owned by a numbered thing (here, a POI that
 * events are anchored to), answering bbox and near queries with the points inside, each with its owner.
 */
import KDBush from 'kdbush';
import { distance } from 'geokdbush';

/** A `west,south,east,north` box; `west > east` crosses the antimeridian. */
export interface Bbox { west: number; south: number; east: number; north: number }
/** A `near` query: a point and a radius in metres. */
export interface Near { lat: number; lng: number; radiusM: number }

/** Great-circle distance in metres (geokdbush's haversine, so index and brute force agree). */
export function distanceM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  return distance(lng1, lat1, lng2, lat2) * 1000;
}

const EARTH_RADIUS_KM = 6371;
const RAD = Math.PI / 180;
const haverSin = (theta: number) => Math.sin(theta / 2) ** 2;

/**
 * A test of single points against a `near` query, with exactly geokdbush's arithmetic (haversine of the
 * angle, compared with the haversine of the radius), so a point is in when `around` would return it.
 */
export function nearTest(q: Near): (lng: number, lat: number) => boolean {
  const cosLat = Math.cos(q.lat * RAD);
  const limit = haverSin(q.radiusM / 1000 / EARTH_RADIUS_KM);
  return (lng, lat) => cosLat * Math.cos(lat * RAD) * haverSin((q.lng - lng) * RAD) + haverSin((q.lat - lat) * RAD) <= limit;
}

/** A test of single points against a box, inclusive like KDBush's range; `west > east` crosses the antimeridian. */
export function bboxTest(b: Bbox): (lng: number, lat: number) => boolean {
  const crosses = b.west > b.east;
  return (lng, lat) => lat >= b.south && lat <= b.north && (crosses ? lng >= b.west || lng <= b.east : lng >= b.west && lng <= b.east);
}

/**
 * The walk's stack of (left, right, axis) ranges, shared by every walk on a thread (a walk runs to its end
 * without yielding). Each level of the tree pushes at most two ranges and pops one: 3 * 2 * 64 levels is room
 * for any index of up to 2^64 points.
 */
const STACK = new Int32Array(3 * 2 * 64);

/** An area of a spatial filter: a box, or a circle around a point. */
export type Area = { bbox: Bbox } | { near: Near };

/**
 * Points in a KDBush index, each carrying a tag (a number: the POI or the event it belongs to), with the points'
 * data laid out in the index's own (tree) order, so a query reads memory one point after another. `collect` finds
 * the points in an area; a box is tested by the index's walk itself, a circle by the unit
 * vectors (three products per point; only a point within rounding of the edge is decided by `nearTest`, so the
 * answer is exactly geokdbush's).
 */
export class TreePoints {
  private readonly index: KDBush | null;
  private readonly tags: Int32Array; // per tree position
  private readonly units: Float64Array; // per tree position: x, y, z on the unit sphere
  /** Tree positions a query found, reused from query to query (grown when an answer needs more). */
  private found = new Int32Array(256);

  private constructor(index: KDBush | null, tags: Int32Array, units: Float64Array) {
    this.index = index;
    this.tags = tags;
    this.units = units;
  }

  /**
   * Builds the index over parallel arrays (point i is (`lngs[i]`, `lats[i]`), tagged `tags[i]`), yielding every
   * `stride` points; only KDBush's sort is one piece, and none when `kdbush` gives the bytes of the same index
   * built before (see `kdbushData`).
   */
  static *buildSteps(lngs: ArrayLike<number>, lats: ArrayLike<number>, tagsOf: ArrayLike<number>, options: { stride?: number; kdbush?: ArrayBuffer } = {}):
    Generator<void, TreePoints, void> {
    const stride = options.stride ?? 4096;
    const n = lngs.length;
    let index: KDBush | null = null;
    if (n > 0 && options.kdbush) {
      index = KDBush.from(options.kdbush);
      if (index.numItems !== n) throw new Error(`a spatial index of ${index.numItems} points given for ${n} points`);
    } else if (n > 0) {
      index = new KDBush(n);
      for (let i = 0; i < n; i++) {
        index.add(lngs[i], lats[i]);
        if (i % stride === 0) yield;
      }
      index.finish();
    }
    const tags = new Int32Array(n);
    const units = new Float64Array(n * 3);
    for (let k = 0; k < n; k++) {
      const i = index!.ids[k];
      tags[k] = tagsOf[i];
      unitVector(lngs[i], lats[i], units, 3 * k);
      if (k % stride === 0) yield;
    }
    return new TreePoints(index, tags, units);
  }

  /** The KDBush index's bytes (null with no points), to build the same index elsewhere without sorting again. */
  get kdbushData(): ArrayBuffer | null {
    return (this.index?.data as ArrayBuffer | undefined) ?? null;
  }

  /**
   * Finds the points in the area and answers how many: their tree positions are then `found[0 .. count)`
   * (a buffer reused by the next query), and their tags `tags[position]`. A caller that keeps more per point
   * lays it out by tree position too, so reading it follows the same order.
   */
  collect(area: Area): number {
    const index = this.index;
    if (!index) return 0;
    if ('bbox' in area) {
      const b = area.bbox;
      if (b.west <= b.east) return this.collectBox(index, b.west, b.south, b.east, b.north, 0);
      return this.collectBox(index, -180, b.south, b.east, b.north, this.collectBox(index, b.west, b.south, 180, b.north, 0));
    }
    const q = area.near;
    // The haversine of the angle between two points is a quarter of their squared chord on the unit sphere. Both
    // ways of computing carry rounding: relative (1e-9 is far above it) and, for tiny circles, absolute, from
    // coordinates rounded to about 1e-14 degrees (an error of the chord near 1e-15, of h near sqrt(h) * 1e-15).
    const limit = haverSin(q.radiusM / 1000 / EARTH_RADIUS_KM);
    const margin = limit * 1e-9 + Math.sqrt(limit) * 1e-12;
    const surelyIn = limit - margin;
    const surelyOut = limit + margin;
    const cosLat = Math.cos(q.lat * RAD);
    const cx = cosLat * Math.cos(q.lng * RAD);
    const cy = cosLat * Math.sin(q.lng * RAD);
    const cz = Math.sin(q.lat * RAD);
    let test: ((lng: number, lat: number) => boolean) | null = null;
    const { units } = this;
    const coords = index.coords;
    let count = 0;
    for (const [w, s, e, n] of circleBoxes(q)) count = this.collectBox(index, w, s, e, n, count);
    // Keep, in place, the points of the boxes that are inside the circle.
    const found = this.found;
    let kept = 0;
    for (let f = 0; f < count; f++) {
      const k = found[f];
      const dx = units[3 * k] - cx;
      const dy = units[3 * k + 1] - cy;
      const dz = units[3 * k + 2] - cz;
      const h = (dx * dx + dy * dy + dz * dz) / 4;
      if (h <= surelyIn || (h <= surelyOut && (test ??= nearTest(q))(coords[2 * k], coords[2 * k + 1]))) found[kept++] = k;
    }
    return kept;
  }

  /** Tree positions the last `collect` found (see there). */
  get foundPositions(): Int32Array {
    return this.found;
  }

  /** The tag of each point, by tree position. */
  get tagsByTreePosition(): Int32Array {
    return this.tags;
  }

  /**
   * Appends to `found`, from `count` on, the tree positions of the points inside the box, and answers the new
   * count: KDBush's own range walk over its sorted arrays (the same visits and comparisons), keeping positions
   * rather than ids so the points' data is then read in the index's order, into a buffer reused between queries.
   */
  private collectBox(index: KDBush, minX: number, minY: number, maxX: number, maxY: number, count: number): number {
    const { coords, nodeSize } = index;
    const stack = STACK;
    stack[0] = 0;
    stack[1] = index.ids.length - 1;
    stack[2] = 0;
    let top = 3;
    // No closure and no check per point: room for a whole leaf is made before it is read.
    let found = this.found;
    while (top > 0) {
      const axis = stack[--top];
      const right = stack[--top];
      const left = stack[--top];
      if (right - left <= nodeSize) {
        if (count + (right - left + 1) > found.length) found = this.grow(count + (right - left + 1));
        for (let k = left; k <= right; k++) {
          const x = coords[2 * k];
          const y = coords[2 * k + 1];
          if (x >= minX && x <= maxX && y >= minY && y <= maxY) found[count++] = k;
        }
        continue;
      }
      const m = (left + right) >> 1;
      const x = coords[2 * m];
      const y = coords[2 * m + 1];
      if (x >= minX && x <= maxX && y >= minY && y <= maxY) {
        if (count === found.length) found = this.grow(count + 1);
        found[count++] = m;
      }
      if (axis === 0 ? minX <= x : minY <= y) {
        stack[top++] = left;
        stack[top++] = m - 1;
        stack[top++] = 1 - axis;
      }
      if (axis === 0 ? maxX >= x : maxY >= y) {
        stack[top++] = m + 1;
        stack[top++] = right;
        stack[top++] = 1 - axis;
      }
    }
    return count;
  }

  /** Makes room in `found` for at least `size` positions, keeping those found so far. */
  private grow(size: number): Int32Array<ArrayBuffer> {
    const grown = new Int32Array(Math.max(size, this.found.length * 2));
    grown.set(this.found);
    this.found = grown;
    return grown;
  }
}

/**
 * KDBush over points, each tagged with an owner number (an index into the caller's array). Points are
 * given in owner order, so each owner's own points can also be tested directly (`ownerMatches`), which is
 * cheaper than an index query when only a few owners are candidates.
 */
export class PointIndex {
  private readonly points: TreePoints;
  private readonly coords: Float64Array; // lng, lat pairs in owner order
  private readonly starts: Int32Array; // owner -> its first point; owner + 1 -> one past its last
  readonly ownerCount: number;

  private constructor(parts: { points: TreePoints; coords: Float64Array; starts: Int32Array; ownerCount: number }) {
    ({ points: this.points, coords: this.coords, starts: this.starts, ownerCount: this.ownerCount } = parts);
  }

  /**
   * Builds the index once over parallel arrays: point i is (`lngs[i]`, `lats[i]`), owned by `owners[i]`. A
   * generator that yields (nothing) every `stride` points, so the caller can let other work in between; only
   * KDBush's final sort is one piece, and none when `kdbush` gives the bytes of the same index built before.
   */
  static *buildSteps(lngs: ArrayLike<number>, lats: ArrayLike<number>, ownersOf: ArrayLike<number>, ownerCount: number,
    options: { stride?: number; kdbush?: ArrayBuffer } = {}): Generator<void, PointIndex, void> {
    const stride = options.stride ?? 4096;
    const n = lngs.length;
    const coords = new Float64Array(n * 2);
    const starts = new Int32Array(ownerCount + 1);
    for (let i = 0; i < n; i++) {
      if (i > 0 && ownersOf[i] < ownersOf[i - 1]) throw new Error('points must be given in owner order');
      coords[2 * i] = lngs[i];
      coords[2 * i + 1] = lats[i];
      starts[ownersOf[i] + 1]++;
      if (i % stride === 0) yield;
    }
    for (let o = 0; o < ownerCount; o++) starts[o + 1] += starts[o];
    const points = yield* TreePoints.buildSteps(lngs, lats, ownersOf, options);
    return new PointIndex({ points, coords, starts, ownerCount });
  }

  /** The KDBush index's bytes (null with no points), to build the same index elsewhere without sorting again. */
  get kdbushData(): ArrayBuffer | null {
    return this.points.kdbushData;
  }

  /** True when one of the owner's points passes the test. */
  ownerMatches(owner: number, test: (lng: number, lat: number) => boolean): boolean {
    for (let i = this.starts[owner]; i < this.starts[owner + 1]; i++) if (test(this.coords[2 * i], this.coords[2 * i + 1])) return true;
    return false;
  }

  /**
   * Finds the points in the area, as `TreePoints.collect`: their tree positions are then `foundPositions[0 ..
   * count)`, and their owners `ownersByTreePosition[position]` (an owner once per point of it inside).
   */
  collect(area: Area): number {
    return this.points.collect(area);
  }

  /** Tree positions the last `collect` found. */
  get foundPositions(): Int32Array {
    return this.points.foundPositions;
  }

  /** Each point's owner, by tree position. */
  get ownersByTreePosition(): Int32Array {
    return this.points.tagsByTreePosition;
  }

  /** The owner's points as lng, lat pairs. */
  pointsOfOwner(owner: number): Float64Array {
    return this.coords.subarray(2 * this.starts[owner], 2 * this.starts[owner + 1]);
  }

  /**
   * Every owner with points, each once, in the order of its first point in the index: owners near each other in
   * space come near each other in this order (what a query finds is a few runs of it).
   */
  ownersInIndexOrder(): Int32Array {
    const out: number[] = [];
    const seen = new Uint8Array(this.ownerCount);
    for (const owner of this.points.tagsByTreePosition) {
      if (seen[owner] === 1) continue;
      seen[owner] = 1;
      out.push(owner);
    }
    return Int32Array.from(out);
  }

  /** Points of the owners in [first, last), for estimating the cost of testing them one by one. */
  pointsOf(first: number, last: number): number {
    return this.starts[last] - this.starts[first];
  }
}

/** Writes the point's position on the unit sphere (x, y, z) into `out` at `at`. */
function unitVector(lng: number, lat: number, out: Float64Array, at: number): void {
  const cosLat = Math.cos(lat * RAD);
  out[at] = cosLat * Math.cos(lng * RAD);
  out[at + 1] = cosLat * Math.sin(lng * RAD);
  out[at + 2] = Math.sin(lat * RAD);
}

/**
 * Boxes `[west, south, east, north]` (degrees) that together hold every point within the query's great-circle
 * radius: its latitude band, and the longitudes the circle reaches there (all of them near a pole), split in
 * two where they cross the antimeridian. Padded by a hair: the exact test is done on each point.
 */
export function circleBoxes(q: Near): [number, number, number, number][] {
  const d = q.radiusM / 1000 / EARTH_RADIUS_KM; // angular radius
  const pad = 1e-6;
  const south = Math.max(-90, q.lat - d / RAD - pad);
  const north = Math.min(90, q.lat + d / RAD + pad);
  const cosLat = Math.cos(q.lat * RAD);
  if (d >= Math.PI / 2 || south <= -90 || north >= 90 || Math.sin(d) >= cosLat) return [[-180, south, 180, north]];
  const dLng = Math.asin(Math.sin(d) / cosLat) / RAD + pad;
  const west = q.lng - dLng;
  const east = q.lng + dLng;
  if (west < -180) return [[west + 360, south, 180, north], [-180, south, east, north]];
  if (east > 180) return [[west, south, 180, north], [-180, south, east - 360, north]];
  return [[west, south, east, north]];
}
