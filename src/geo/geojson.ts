/**
 * GeoJSON helpers: RFC 7946 winding and coordinate rounding, applied once when the read model is built.
 */

/** A GeoJSON position, `[lng, lat]`. */
export type Position = [number, number];
/** The geometries the service serves. */
export type Geometry =
  | { type: 'Point'; coordinates: Position }
  | { type: 'LineString'; coordinates: Position[] }
  | { type: 'Polygon'; coordinates: Position[][] };

/** Rounds a coordinate to 7 decimals (about 1 cm), as the conventions require. */
export function round7(x: number): number {
  return Math.round(x * 1e7) / 1e7;
}

/** Rounds both members of a position. */
export function roundPosition(p: readonly number[]): Position {
  return [round7(p[0]), round7(p[1])];
}

/** Twice the signed area of a ring in lng/lat; positive means counter-clockwise. */
export function ringSignedArea(ring: readonly (readonly number[])[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    sum += (ring[j][0] - ring[i][0]) * (ring[i][1] + ring[j][1]);
  }
  return sum;
}

/** Rounds a polygon and orients it per RFC 7946: outer ring counter-clockwise, holes clockwise. */
export function rewindPolygon(rings: readonly (readonly number[])[][]): Position[][] {
  return rings.map((ring, i) => {
    const out = ring.map(roundPosition);
    // Measured on lng/lat as written, as a flat client draws it: a ring across the antimeridian (check warns; the
    // bundle format asks for two POIs) is oriented as the band round the world, not the area across 180° meant.
    const ccw = ringSignedArea(out) > 0;
    // Outer ring (i = 0) must be CCW, holes CW; reverse whichever is the wrong way round.
    return (i === 0) !== ccw ? out.reverse() : out;
  });
}

/** Every vertex of a geometry, outer ring and holes alike. */
export function geometryVertices(g: Geometry): Position[] {
  if (g.type === 'Point') return [g.coordinates];
  if (g.type === 'LineString') return g.coordinates;
  return g.coordinates.flat();
}

/** A representative point for a geometry: the point itself, or the centre of its bounding box. */
export function representativePoint(g: Geometry): { lat: number; lng: number } {
  if (g.type === 'Point') return { lng: g.coordinates[0], lat: g.coordinates[1] };
  const pts = geometryVertices(g);
  const box = (shift: boolean) => {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const [x0, y] of pts) {
      const x = shift && x0 < 0 ? x0 + 360 : x0;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    return { minX, minY, maxX, maxY };
  };
  // A shape spanning more than 180 degrees of longitude is taken to cross the antimeridian: measure it in [0, 360).
  let b = box(false);
  if (b.maxX - b.minX > 180) b = box(true);
  const lng = (b.minX + b.maxX) / 2;
  return { lng: round7(lng > 180 ? lng - 360 : lng), lat: round7((b.minY + b.maxY) / 2) };
}
