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
 * The walk's stack of (left, right, axis) ranges, and of the bounds of each range's region, shared by every walk on
 * a thread (a walk runs to its end without yielding). Each level of the tree pushes at most two ranges and pops
 * one: 2 * 64 frames is room for any index of up to 2^64 points.
 */
const STACK = new Int32Array(3 * 2 * 64);
const REGIONS = new Float64Array(4 * 2 * 64);

/** An area of a spatial filter: a box, or a circle around a point. */
export type Area = { bbox: Bbox } | { near: Near };

/**
 * A time filter `collect` applies to the points it finds, when their owners have times: a point is kept when its
 * start is in [startsFrom, toMs] and its end at `fromMs` or later. `times` holds each point's start and end side by
 * side, by tree position (`times[2k]`, `times[2k + 1]`), as 32-bit numbers: the caller counts them and the bounds
 * from an origin of its own (a time slab's start), so a point's times take 8 bytes next to its coordinates' 16.
 */
export interface PointTimes { times: Int32Array; startsFrom: number; fromMs: number; toMs: number }

/** What a walk without times reads in their place (never, as `timed` is false). */
const UNTIMED: PointTimes = { times: new Int32Array(0), startsFrom: 0, fromMs: 0, toMs: 0 };

/**
 * A `near` circle as the walk tests it, from the point's longitude and latitude alone (no trigonometry per point):
 * the haversine of the angle, h = sin²(Δφ/2) + cos φ₁ · cos φ · sin²(Δλ/2), lies between bounds made with
 * t - t³/6 ≤ sin t ≤ t and the least and greatest cos φ over the circle's latitude band. A point whose upper
 * bound is inside the radius (less a margin for rounding) is in, one whose lower bound is beyond it (plus the
 * margin) is out; only one within the bounds' spread of the edge (about a metre on a 5 km circle) is decided by
 * `nearTest`, so the answer is exactly geokdbush's. A whole region of the tree whose upper bound is inside is
 * taken without testing its points.
 */
interface Circle {
  lng: number;
  lat: number;
  /** cos φ₁ times the greatest and the least cos φ over the band. */
  highCos: number;
  lowCos: number;
  surelyIn: number;
  surelyOut: number;
  /** Made when a point within rounding of the edge needs it. */
  exact: ((lng: number, lat: number) => boolean) | null;
  near: Near;
}

/** |Δλ| in degrees, the shorter way round (sin²(Δλ/2) is the same either way). */
function lngGap(a: number, b: number): number {
  const d = Math.abs(a - b);
  return d > 180 ? 360 - d : d;
}

/** Half an angle in degrees, in radians. */
const HALF_RAD = RAD / 2;

/** True when the point is within the circle (see `Circle`). */
function inCircle(c: Circle, lng: number, lat: number): boolean {
  const a = Math.abs(lat - c.lat) * HALF_RAD;
  const b = lngGap(lng, c.lng) * HALF_RAD;
  if (a * a + c.highCos * b * b <= c.surelyIn) return true;
  const sa = a - (a * a * a) / 6;
  const sb = b - (b * b * b) / 6;
  if (sa * sa + c.lowCos * sb * sb > c.surelyOut) return false;
  return (c.exact ??= nearTest(c.near))(lng, lat);
}

/**
 * True when every point of the region [x0, x1] × [y0, y1] (inside the circle's band and box) is within the circle:
 * the upper bound at its farthest latitude and longitude. Where the region holds the meridian opposite the centre,
 * the farthest longitude is half a turn away.
 */
function regionInCircle(c: Circle, x0: number, y0: number, x1: number, y1: number): boolean {
  const a = Math.max(Math.abs(y0 - c.lat), Math.abs(y1 - c.lat)) * HALF_RAD;
  const opposite = c.lng > 0 ? c.lng - 180 : c.lng + 180;
  const b = (x0 <= opposite && opposite <= x1 ? 180 : Math.max(lngGap(x0, c.lng), lngGap(x1, c.lng))) * HALF_RAD;
  return a * a + c.highCos * b * b <= c.surelyIn;
}

/** The last circle made (`circleOf`): a query walks several indexes (one per time slab) with the same one. */
let lastCircle: { lat: number; lng: number; radiusM: number; circle: Circle; boxes: [number, number, number, number][] } | null = null;

/** A `near` query as the walk tests it, and the boxes that hold it (`circleBoxes`); made again only for another circle. */
function circleOf(q: Near): { circle: Circle; boxes: [number, number, number, number][] } {
  const last = lastCircle;
  if (last !== null && last.lat === q.lat && last.lng === q.lng && last.radiusM === q.radiusM) return last;
  const boxes = circleBoxes(q);
  // The haversine's rounding, relative (1e-9 is far above it) and, for tiny circles, absolute (coordinates
  // rounded to about 1e-14 degrees).
  const limit = haverSin(q.radiusM / 1000 / EARTH_RADIUS_KM);
  const margin = limit * 1e-9 + Math.sqrt(limit) * 1e-12;
  // The band's least and greatest cos φ: at its latitude farthest from the equator, and nearest (the equator itself within it).
  const south = boxes[0][1];
  const north = boxes[0][3];
  const cosQ = Math.cos(q.lat * RAD);
  const near = { lat: q.lat, lng: q.lng, radiusM: q.radiusM };
  const circle: Circle = {
    lng: q.lng, lat: q.lat, near, exact: null, surelyIn: limit - margin, surelyOut: limit + margin,
    highCos: cosQ * (south <= 0 && north >= 0 ? 1 : Math.cos(Math.min(Math.abs(south), Math.abs(north)) * RAD)),
    lowCos: cosQ * Math.max(0, Math.cos(Math.max(Math.abs(south), Math.abs(north)) * RAD)),
  };
  lastCircle = { ...near, circle, boxes };
  return lastCircle;
}

/**
 * Points in a KDBush index, each carrying a tag (a number: the POI or the event it belongs to), with the points'
 * data laid out in the index's own (tree) order, so a query reads memory one point after another. `collect` finds
 * the points in an area, walking KDBush's sorted arrays itself: a region of the tree (the bounds its splits give it)
 * that lies wholly in the area is taken as it is, with no test per point; a point of a region across the area's
 * edge is tested (a box by its coordinates, a circle as `Circle` says).
 */
export class TreePoints {
  private readonly index: KDBush | null;
  private readonly tags: Int32Array; // per tree position
  /** Tree positions a query found, reused from query to query (grown when an answer needs more). */
  private found = new Int32Array(256);
  /** Points the last `collect` took with the whole region they lie in, none tested on its own (tests read it). */
  takenWhole = 0;

  private constructor(index: KDBush | null, tags: Int32Array) {
    this.index = index;
    this.tags = tags;
  }

  /**
   * Builds the index over parallel arrays (point i is (`lngs[i]`, `lats[i]`), tagged `tags[i]`), yielding every
   * `stride` points; only KDBush's sort is one piece, and none when `kdbush` gives the bytes of the same index
   * built before (see `kdbushData`). `nodeSize`: points per leaf (KDBush's default, 64, when not given).
   */
  static *buildSteps(lngs: ArrayLike<number>, lats: ArrayLike<number>, tagsOf: ArrayLike<number>,
    options: { stride?: number; kdbush?: ArrayBuffer; nodeSize?: number } = {}): Generator<void, TreePoints, void> {
    const stride = options.stride ?? 4096;
    const n = lngs.length;
    let index: KDBush | null = null;
    if (n > 0 && options.kdbush) {
      index = KDBush.from(options.kdbush);
      if (index.numItems !== n) throw new Error(`a spatial index of ${index.numItems} points given for ${n} points`);
    } else if (n > 0) {
      index = new KDBush(n, options.nodeSize);
      for (let i = 0; i < n; i++) {
        index.add(lngs[i], lats[i]);
        if (i % stride === 0) yield;
      }
      index.finish();
    }
    const tags = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      tags[k] = tagsOf[index!.ids[k]];
      if (k % stride === 0) yield;
    }
    return new TreePoints(index, tags);
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
  collect(area: Area, times: PointTimes | null = null): number {
    const index = this.index;
    this.takenWhole = 0;
    if (!index) return 0;
    if ('bbox' in area) {
      const b = area.bbox;
      if (b.west <= b.east) return this.walk(index, b.west, b.south, b.east, b.north, null, times, 0);
      return this.walk(index, -180, b.south, b.east, b.north, null, times, this.walk(index, b.west, b.south, 180, b.north, null, times, 0));
    }
    const { circle, boxes } = circleOf(area.near);
    let count = 0;
    for (const [w, s, e, n] of boxes) count = this.walk(index, w, s, e, n, circle, times, count);
    return count;
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
   * Appends to `found`, from `count` on, the tree positions of the points inside the box (and, with `circle`, the
   * circle; with `times`, in its window), and answers the new count. KDBush's own range walk over its sorted arrays
   * (the same visits), keeping positions rather than ids, and the bounds of each range's region: the splits above a
   * range bound its points, so a region inside the area is taken whole, its points tested only for their times.
   */
  private walk(index: KDBush, minX: number, minY: number, maxX: number, maxY: number, circle: Circle | null, times: PointTimes | null,
    count: number): number {
    const { coords, nodeSize } = index;
    const timed = times !== null;
    const { times: se, startsFrom, fromMs, toMs } = times ?? UNTIMED;
    const stack = STACK;
    const regions = REGIONS;
    stack[0] = 0;
    stack[1] = index.ids.length - 1;
    stack[2] = 0;
    regions[0] = -Infinity;
    regions[1] = -Infinity;
    regions[2] = Infinity;
    regions[3] = Infinity;
    let top = 1;
    let found = this.found;
    while (top > 0) {
      top--;
      const left = stack[3 * top];
      const right = stack[3 * top + 1];
      const axis = stack[3 * top + 2];
      const x0 = regions[4 * top];
      const y0 = regions[4 * top + 1];
      const x1 = regions[4 * top + 2];
      const y1 = regions[4 * top + 3];
      // Room for the whole range is made before it is read: no check per point.
      if (count + (right - left + 1) > found.length) found = this.grow(count + (right - left + 1));
      if (x0 >= minX && x1 <= maxX && y0 >= minY && y1 <= maxY && (circle === null || regionInCircle(circle, x0, y0, x1, y1))) {
        this.takenWhole += right - left + 1;
        if (!timed) {
          for (let k = left; k <= right; k++) found[count++] = k;
          continue;
        }
        for (let k = left; k <= right; k++) {
          const start = se[2 * k];
          if (start <= toMs && start >= startsFrom && se[2 * k + 1] >= fromMs) found[count++] = k;
        }
        continue;
      }
      if (right - left <= nodeSize) {
        for (let k = left; k <= right; k++) {
          const x = coords[2 * k];
          const y = coords[2 * k + 1];
          if (x < minX || x > maxX || y < minY || y > maxY) continue;
          if (timed && (se[2 * k] > toMs || se[2 * k] < startsFrom || se[2 * k + 1] < fromMs)) continue;
          if (circle === null || inCircle(circle, x, y)) found[count++] = k;
        }
        continue;
      }
      const m = (left + right) >> 1;
      const x = coords[2 * m];
      const y = coords[2 * m + 1];
      if (x >= minX && x <= maxX && y >= minY && y <= maxY && (!timed || (se[2 * m] <= toMs && se[2 * m] >= startsFrom && se[2 * m + 1] >= fromMs)) &&
        (circle === null || inCircle(circle, x, y))) found[count++] = m;
      // The points before m are at or below its coordinate on the axis, those after at or above it.
      if (axis === 0 ? minX <= x : minY <= y) {
        stack[3 * top] = left;
        stack[3 * top + 1] = m - 1;
        stack[3 * top + 2] = 1 - axis;
        regions[4 * top] = x0;
        regions[4 * top + 1] = y0;
        regions[4 * top + 2] = axis === 0 ? x : x1;
        regions[4 * top + 3] = axis === 0 ? y1 : y;
        top++;
      }
      if (axis === 0 ? maxX >= x : maxY >= y) {
        stack[3 * top] = m + 1;
        stack[3 * top + 1] = right;
        stack[3 * top + 2] = 1 - axis;
        regions[4 * top] = axis === 0 ? x : x0;
        regions[4 * top + 1] = axis === 0 ? y0 : y;
        regions[4 * top + 2] = x1;
        regions[4 * top + 3] = y1;
        top++;
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
