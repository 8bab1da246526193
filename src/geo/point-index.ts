/**
 * A static spatial index over points (KDBush), each point owned by a numbered thing (here, a POI that
 * events are anchored to), answering bbox and near queries with the owners that have a point inside.
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
 * KDBush over points, each tagged with an owner number (an index into the caller's array). Points are
 * given in owner order, so each owner's own points can also be tested directly (`ownerMatches`), which is
 * cheaper than an index query when only a few owners are candidates.
 */
export class PointIndex {
  private readonly index: KDBush | null;
  private readonly coords: Float64Array; // lng, lat pairs in owner order
  /** Per point in the index's own (tree) order: its owner, and its x, y, z on the unit sphere (`near` without trigonometry). */
  private readonly treeOwners: Int32Array;
  private readonly treeUnits: Float64Array;
  /** Tree positions a query found, reused from query to query (grown when an answer needs more). */
  private found = new Int32Array(1024);
  private readonly starts: Int32Array; // owner -> its first point; owner + 1 -> one past its last
  readonly ownerCount: number;
  /** Per owner, the query that last found it: each owner is reported once per query, with no allocation per query. */
  private readonly seen: Uint32Array;
  private epoch = 0;

  private constructor(parts: { index: KDBush | null; coords: Float64Array; treeOwners: Int32Array; treeUnits: Float64Array;
    starts: Int32Array; ownerCount: number }) {
    ({ index: this.index, coords: this.coords, treeOwners: this.treeOwners, treeUnits: this.treeUnits, starts: this.starts,
      ownerCount: this.ownerCount } = parts);
    this.seen = new Uint32Array(this.ownerCount);
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
    const owners = new Int32Array(n);
    const coords = new Float64Array(n * 2);
    const starts = new Int32Array(ownerCount + 1);
    for (let i = 0; i < n; i++) {
      owners[i] = ownersOf[i];
      if (i > 0 && owners[i] < owners[i - 1]) throw new Error('points must be given in owner order');
      coords[2 * i] = lngs[i];
      coords[2 * i + 1] = lats[i];
      starts[owners[i] + 1]++;
      if (i % stride === 0) yield;
    }
    for (let o = 0; o < ownerCount; o++) starts[o + 1] += starts[o];
    let index: KDBush | null = null;
    if (n > 0 && options.kdbush) {
      // Built elsewhere over the same points in the same order (`kdbushData`): only checked to fit.
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
    // The points again in the index's order, so a query reads them one after another, not all over memory.
    const treeOwners = new Int32Array(n);
    const treeUnits = new Float64Array(n * 3);
    for (let k = 0; k < n; k++) {
      const i = index!.ids[k];
      treeOwners[k] = owners[i];
      unitVector(coords[2 * i], coords[2 * i + 1], treeUnits, 3 * k);
      if (k % stride === 0) yield;
    }
    return new PointIndex({ index, coords, treeOwners, treeUnits, starts, ownerCount });
  }

  /** The KDBush index's bytes (null with no points), to build the same index elsewhere without sorting again. */
  get kdbushData(): ArrayBuffer | null {
    return (this.index?.data as ArrayBuffer | undefined) ?? null;
  }

  /** True when one of the owner's points passes the test. */
  ownerMatches(owner: number, test: (lng: number, lat: number) => boolean): boolean {
    for (let i = this.starts[owner]; i < this.starts[owner + 1]; i++) if (test(this.coords[2 * i], this.coords[2 * i + 1])) return true;
    return false;
  }

  /**
   * Every owner with points, each once, in the order of its first point in the index: owners near each other in
   * space come near each other in this order (what a query finds is a few runs of it).
   */
  ownersInIndexOrder(): Int32Array {
    const out: number[] = [];
    const epoch = this.nextEpoch();
    for (let k = 0; k < this.treeOwners.length; k++) {
      const owner = this.treeOwners[k];
      if (this.seen[owner] === epoch) continue;
      this.seen[owner] = epoch;
      out.push(owner);
    }
    return Int32Array.from(out);
  }

  /** Points of the owners in [first, last), for estimating the cost of testing them one by one. */
  pointsOf(first: number, last: number): number {
    return this.starts[last] - this.starts[first];
  }

  /**
   * Every owner with a point inside the box, each once, in no particular order. The cost follows the points in
   * the box, not the index's size.
   */
  ownersInBbox(b: Bbox): Int32Array {
    if (!this.index) return new Int32Array(0);
    const ranges: [number, number][] = b.west <= b.east ? [[b.west, b.east]] : [[b.west, 180], [-180, b.east]];
    let count = 0;
    for (const [w, e] of ranges) count = this.collectBox(this.index, w, b.south, e, b.north, count);
    const owners: number[] = [];
    const epoch = this.nextEpoch();
    for (let f = 0; f < count; f++) this.addOwner(this.treeOwners[this.found[f]], epoch, owners);
    return Int32Array.from(owners);
  }

  /**
   * Every owner with a point within `radiusM` metres (great-circle) of the point, each once, in no particular
   * order. The points in the boxes that bound the circle are tested with `nearTest` (geokdbush's arithmetic), so
   * nothing is sorted by distance: the cost follows the points near the circle.
   */
  ownersNear(q: Near): Int32Array {
    if (!this.index) return new Int32Array(0);
    const test = nearTest(q);
    // The haversine of the angle between two points is a quarter of their squared chord on the unit sphere: three
    // products instead of three trigonometric calls per point. Only a point within rounding error of the circle's
    // edge is decided by `test` itself, so the answer is exactly `test`'s.
    const limit = haverSin(q.radiusM / 1000 / EARTH_RADIUS_KM);
    // Both ways of computing carry rounding: relative (1e-9 is far above it) and, for tiny circles, absolute, from
    // coordinates rounded to about 1e-14 degrees (an error of the chord near 1e-15, of h near sqrt(h) * 1e-15).
    const margin = limit * 1e-9 + Math.sqrt(limit) * 1e-12;
    const surelyIn = limit - margin;
    const surelyOut = limit + margin;
    const center = new Float64Array(3);
    unitVector(q.lng, q.lat, center, 0);
    const [cx, cy, cz] = center;
    const { treeUnits: units, treeOwners } = this;
    const coords = this.index.coords;
    let count = 0;
    for (const [w, s, e, n] of circleBoxes(q)) count = this.collectBox(this.index, w, s, e, n, count);
    const owners: number[] = [];
    const epoch = this.nextEpoch();
    for (let f = 0; f < count; f++) {
      const k = this.found[f];
      const dx = units[3 * k] - cx;
      const dy = units[3 * k + 1] - cy;
      const dz = units[3 * k + 2] - cz;
      const h = (dx * dx + dy * dy + dz * dz) / 4;
      if (h <= surelyIn || (h <= surelyOut && test(coords[2 * k], coords[2 * k + 1]))) this.addOwner(treeOwners[k], epoch, owners);
    }
    return Int32Array.from(owners);
  }

  /** A new mark for `seen`: owners marked with it were added by this query. */
  private nextEpoch(): number {
    if (++this.epoch === 0xffffffff) {
      this.seen.fill(0);
      this.epoch = 1;
    }
    return this.epoch;
  }

  /**
   * Appends to `found`, from `count` on, the tree positions of the points inside the box, and answers the new
   * count: KDBush's own range walk over its sorted arrays (the same visits and comparisons), keeping positions
   * rather than ids so the points' data is then read in the index's order, into a buffer reused between queries.
   */
  private collectBox(index: KDBush, minX: number, minY: number, maxX: number, maxY: number, count: number): number {
    const { coords, nodeSize } = index;
    const stack = [0, index.ids.length - 1, 0];
    const keep = (k: number) => {
      if (count === this.found.length) {
        const grown = new Int32Array(this.found.length * 2);
        grown.set(this.found);
        this.found = grown;
      }
      this.found[count++] = k;
    };
    while (stack.length > 0) {
      const axis = stack.pop()!;
      const right = stack.pop()!;
      const left = stack.pop()!;
      if (right - left <= nodeSize) {
        for (let k = left; k <= right; k++) {
          const x = coords[2 * k];
          const y = coords[2 * k + 1];
          if (x >= minX && x <= maxX && y >= minY && y <= maxY) keep(k);
        }
        continue;
      }
      const m = (left + right) >> 1;
      const x = coords[2 * m];
      const y = coords[2 * m + 1];
      if (x >= minX && x <= maxX && y >= minY && y <= maxY) keep(m);
      if (axis === 0 ? minX <= x : minY <= y) stack.push(left, m - 1, 1 - axis);
      if (axis === 0 ? maxX >= x : maxY >= y) stack.push(m + 1, right, 1 - axis);
    }
    return count;
  }

  private addOwner(owner: number, epoch: number, out: number[]): void {
    if (this.seen[owner] === epoch) return;
    this.seen[owner] = epoch;
    out.push(owner);
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
