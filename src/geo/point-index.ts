/**
 * A static spatial index over event anchor points (KDBush), answering bbox and near queries with
 * the ids of the owners (events) that have at least one point inside.
 */
import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';

/** A `west,south,east,north` box; `west > east` crosses the antimeridian. */
export interface Bbox { west: number; south: number; east: number; north: number }
/** A `near` query: a point and a radius in metres. */
export interface Near { lat: number; lng: number; radiusM: number }

/** Great-circle distance in metres (geokdbush's haversine, so index and brute force agree). */
export function distanceM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  return distance(lng1, lat1, lng2, lat2) * 1000;
}

/** KDBush over points, each tagged with an owner number (an index into the caller's array). */
export class PointIndex {
  private readonly index: KDBush | null;
  private readonly owners: Int32Array;
  readonly ownerCount: number;

  /** Builds the index once over parallel arrays: point i is (`lngs[i]`, `lats[i]`), owned by `owners[i]`. */
  constructor(lngs: ArrayLike<number>, lats: ArrayLike<number>, owners: ArrayLike<number>, ownerCount: number) {
    this.ownerCount = ownerCount;
    this.owners = Int32Array.from(owners);
    if (lngs.length === 0) { this.index = null; return; }
    const index = new KDBush(lngs.length);
    for (let i = 0; i < lngs.length; i++) index.add(lngs[i], lats[i]);
    index.finish();
    this.index = index;
  }

  /** Marks (in a fresh byte mask) every owner with a point inside the box. */
  ownersInBbox(b: Bbox): Uint8Array {
    const mask = new Uint8Array(this.ownerCount);
    if (!this.index) return mask;
    const ranges: [number, number][] = b.west <= b.east ? [[b.west, b.east]] : [[b.west, 180], [-180, b.east]];
    for (const [w, e] of ranges) {
      for (const slot of this.index.range(w, b.south, e, b.north)) mask[this.owners[slot]] = 1;
    }
    return mask;
  }

  /** Marks every owner with a point within `radiusM` metres (great-circle) of the point. */
  ownersNear(q: Near): Uint8Array {
    const mask = new Uint8Array(this.ownerCount);
    if (!this.index) return mask;
    // geokdbush searches in kilometres and returns the slots within the radius, nearest first.
    for (const slot of around(this.index, q.lng, q.lat, Infinity, q.radiusM / 1000)) mask[this.owners[slot]] = 1;
    return mask;
  }
}
