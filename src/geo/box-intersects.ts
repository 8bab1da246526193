/**
 * Whether a geometry intersects a box, exactly, in plain lng/lat (as GeoJSON and OGC API Features' `bbox` read it):
 * a point on the box's edge intersects it, a path that crosses the box without a vertex in it does, and so does a
 * polygon that holds the whole box. A box whose west is east of its east crosses the antimeridian: it is the two
 * boxes on either side. A spatial index narrows the candidates first (by their boxes); this decides.
 */
import type { Geometry, Position } from './geojson.ts';
import type { Bbox } from './point-index.ts';

/** A box as [west, south, east, north], west <= east. */
export type Box = readonly [number, number, number, number];

/** The boxes a bbox is: itself, or its two halves when it crosses the antimeridian. */
export function boxesOf(b: Bbox): Box[] {
  return b.west <= b.east ? [[b.west, b.south, b.east, b.north]]
    : [[b.west, b.south, 180, b.north], [-180, b.south, b.east, b.north]];
}

/** Whether point (x, y) lies in the box, its edges included. */
export function pointInBox(x: number, y: number, [w, s, e, n]: Box): boolean {
  return x >= w && x <= e && y >= s && y <= n;
}

/**
 * Whether the segment from (x0, y0) to (x1, y1) meets the box (Liang and Barsky's clipping: the part of the segment's
 * parameter range inside each of the four half-planes; they meet when what is left of [0, 1] is not empty).
 */
export function segmentMeetsBox(x0: number, y0: number, x1: number, y1: number, [w, s, e, n]: Box): boolean {
  let t0 = 0;
  let t1 = 1;
  const dx = x1 - x0;
  const dy = y1 - y0;
  // Each pair: p * t <= q keeps the segment on the inside of one edge.
  for (const [p, q] of [[-dx, x0 - w], [dx, e - x0], [-dy, y0 - s], [dy, n - y0]]) {
    if (p === 0) {
      if (q < 0) return false; // parallel to this edge and outside it
      continue;
    }
    const t = q / p;
    if (p < 0) {
      if (t > t1) return false;
      if (t > t0) t0 = t;
    } else {
      if (t < t0) return false;
      if (t < t1) t1 = t;
    }
  }
  return t0 <= t1;
}

/** Whether the line through `line`'s positions meets the box (a single position: whether it lies in it). */
function lineMeetsBox(line: readonly Position[], box: Box): boolean {
  if (line.length === 1) return pointInBox(line[0][0], line[0][1], box);
  for (let k = 1; k < line.length; k++) {
    if (segmentMeetsBox(line[k - 1][0], line[k - 1][1], line[k][0], line[k][1], box)) return true;
  }
  return false;
}

/** Whether (x, y) lies inside the polygon's rings by the even-odd rule (inside the outer ring and in no hole). */
export function pointInRings(x: number, y: number, rings: readonly (readonly Position[])[]): boolean {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i];
      const [xj, yj] = ring[j];
      if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

/** Whether the geometry intersects any of the boxes (see the module's comment). */
export function geometryMeetsBoxes(geometry: Geometry, boxes: readonly Box[]): boolean {
  return boxes.some((box) => {
    switch (geometry.type) {
      case 'Point':
        return pointInBox(geometry.coordinates[0], geometry.coordinates[1], box);
      case 'LineString':
        return lineMeetsBox(geometry.coordinates, box);
      case 'Polygon':
        // An edge of the polygon meets the box, or the box lies wholly inside the polygon (then any corner of it does).
        return geometry.coordinates.some((ring) => lineMeetsBox(ring, box)) || pointInRings(box[0], box[1], geometry.coordinates);
    }
  });
}
