/**
 * "Within this distance of a place" for `near_poi`: of a marker's point, of a path's segments (along the trail, not
 * only its vertices), of a polygon's outline or anywhere inside it. Distances to a segment are measured on a plane
 * tangent at the point tested (metres east and north of it), which differs from the great circle by about 0.1% at
 * 10 km (up to 2% at 200 km, the largest radius); to a marker's point, by the same haversine as `near`.
 */
import type { Geometry } from './geojson.ts';
import { pointInRings } from './box-intersects.ts';
import { nearTest, type Bbox } from './point-index.ts';

const RAD = Math.PI / 180;
/** Metres in a degree of latitude (the mean Earth radius geokdbush uses: 6,371 km). */
const M_PER_DEG = (6_371_000 * Math.PI) / 180;

/** Whether point (x, y) lies within `r` of the segment from (ax, ay) to (bx, by), all in metres on a plane. */
function segmentWithin(ax: number, ay: number, bx: number, by: number, r: number): boolean {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  // The point is the origin: the segment's nearest point to it, clamped to the segment.
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
  const x = ax + t * dx;
  const y = ay + t * dy;
  return x * x + y * y <= r * r;
}

/** Whether (lng, lat) lies within `r` metres of a line through `line`'s positions. */
function lineWithin(line: readonly (readonly number[])[], lng: number, lat: number, r: number): boolean {
  const cos = Math.cos(lat * RAD);
  const east = (p: readonly number[]) => (p[0] - lng) * M_PER_DEG * cos;
  const north = (p: readonly number[]) => (p[1] - lat) * M_PER_DEG;
  for (let k = 1; k < line.length; k++) {
    if (segmentWithin(east(line[k - 1]), north(line[k - 1]), east(line[k]), north(line[k]), r)) return true;
  }
  return line.length === 1 && segmentWithin(east(line[0]), north(line[0]), east(line[0]), north(line[0]), r);
}

/**
 * The test of points within `radiusM` of a geometry, and a box that holds every such point (for a spatial index to
 * narrow the candidates first).
 */
export function nearShape(geometry: Geometry, radiusM: number): { box: Bbox; test: (lng: number, lat: number) => boolean } {
  const positions = geometry.type === 'Point' ? [geometry.coordinates] : geometry.type === 'LineString' ? geometry.coordinates : geometry.coordinates.flat();
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of positions) {
    w = Math.min(w, x); e = Math.max(e, x); s = Math.min(s, y); n = Math.max(n, y);
  }
  const dLat = radiusM / M_PER_DEG;
  const south = Math.max(-90, s - dLat);
  const north = Math.min(90, n + dLat);
  // A degree of longitude is shortest at the latitude farthest from the equator the box reaches.
  const cos = Math.cos(Math.min(89.9, Math.max(Math.abs(south), Math.abs(north))) * RAD);
  const dLng = radiusM / (M_PER_DEG * cos);
  const box = { west: Math.max(-180, w - dLng), south, east: Math.min(180, e + dLng), north };
  const inBox = (lng: number, lat: number) => lng >= box.west && lng <= box.east && lat >= box.south && lat <= box.north;
  let exact: (lng: number, lat: number) => boolean;
  switch (geometry.type) {
    case 'Point':
      exact = nearTest({ lng: geometry.coordinates[0], lat: geometry.coordinates[1], radiusM });
      break;
    case 'LineString':
      exact = (lng, lat) => lineWithin(geometry.coordinates, lng, lat, radiusM);
      break;
    case 'Polygon':
      exact = (lng, lat) => pointInRings(lng, lat, geometry.coordinates) || geometry.coordinates.some((ring) => lineWithin(ring, lng, lat, radiusM));
      break;
  }
  return { box, test: (lng, lat) => inBox(lng, lat) && exact(lng, lat) };
}
