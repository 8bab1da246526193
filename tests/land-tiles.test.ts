/**
 * The pages' land tiles (src/geo/land-tiles.ts): the 1:10m topology read without JSON.parse of its arcs agrees with
 * topojson-client's reading of it, point for point, on whether a place is land, inside the regions of two maps
 * (Lisbon: the city is land, the Tagus and the Atlantic are water) and at the world scale from 1:110m; rings are
 * clipped to a box as a brute force says; overlapping regions become one.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { MultiPolygon, Polygon } from 'geojson';
import { clipRing, LandTiles, mergeRegions, regionOf, type Box } from '../src/geo/land-tiles.ts';

const read = (name: string) => readFileSync(new URL(`../node_modules/world-atlas/${name}`, import.meta.url), 'utf8');
const texts = { world: read('land-110m.json'), detailed: read('land-10m.json') };
const LISBON = regionOf({ lat: 38.72, lng: -9.14 }, [-9.23, 38.67, -9.085, 38.795]);
const NEW_YORK = regionOf({ lat: 40.71, lng: -74.0 });
const land = new LandTiles(texts, [LISBON, NEW_YORK]);

/** Even-odd point in rings. */
function inRings(rings: readonly (readonly { x: number; y: number }[])[], x: number, y: number): boolean {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const a = ring[i];
      const b = ring[j];
      if ((a.y > y) !== (b.y > y) && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
    }
  }
  return inside;
}

/** Whether the land tiles say a place is land at zoom z. */
function tileSaysLand(lng: number, lat: number, z: number): boolean {
  const n = 2 ** z;
  const fx = (lng / 360 + 0.5) * n;
  const sin = Math.sin((lat * Math.PI) / 180);
  const fy = (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * n;
  const [x, y] = [Math.floor(fx), Math.floor(fy)];
  const bytes = land.tile(z, x, y);
  if (bytes.length === 0) return false;
  const layer = new VectorTile(new PbfReader(bytes)).layers.land;
  const rings = [];
  for (let i = 0; i < layer.length; i++) rings.push(...layer.feature(i).loadGeometry());
  return inRings(rings, (fx - x) * layer.extent, (fy - y) * layer.extent);
}

/** Whether topojson-client's reading of a topology says a place is land. */
function referenceSaysLand(text: string, lng: number, lat: number): boolean {
  const topology = JSON.parse(text) as Topology<{ land: GeometryCollection }>;
  const polygons = feature(topology, topology.objects.land).features.flatMap((f) => {
    const g = f.geometry as Polygon | MultiPolygon;
    return g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  });
  return polygons.some((rings) => inRings(rings.map((ring) => ring.map(([x, y]) => ({ x, y }))), lng, lat));
}

describe('land tiles', () => {
  test('around a map, 1:10m land as topojson-client reads it: the city is land, the Tagus and the ocean are water', () => {
    const places: [string, number, number, boolean][] = [
      ['Baixa, Lisbon', -9.1393, 38.7139, true], ['the Tagus off the Terreiro do Paço', -9.1300, 38.6990, false],
      ['the Mar da Palha', -9.0500, 38.7200, false], ['Almada', -9.1600, 38.6790, true], ['the Atlantic off Cascais', -9.5500, 38.6200, false],
      ['Manhattan', -73.9712, 40.7831, true], ['the Upper Bay', -74.0450, 40.6650, false],
    ];
    for (const [name, lng, lat, isLand] of places) {
      assert.equal(referenceSaysLand(texts.detailed, lng, lat), isLand, `${name}: the reference`);
      for (const z of [8, 11, 13]) assert.equal(tileSaysLand(lng, lat, z), isLand, `${name} at zoom ${z}`);
    }
  });

  test('far from every map and zoomed out, the world at 1:110m', () => {
    for (const [lng, lat] of [[10, 50], [-60, -10], [135, -25], [-40, 30], [0, 0], [100, 60]]) {
      for (const z of [2, 6]) assert.equal(tileSaysLand(lng, lat, z), referenceSaysLand(texts.world, lng, lat), `${lng},${lat} at zoom ${z}`);
    }
    assert.equal(land.tile(15, 15_000, 12_000).length, 0, 'none beyond zoom 14');
  });

  test('a ring clipped to a box keeps exactly the points of the ring inside it, and the box\'s corners inside the ring', () => {
    const ring = [[0, 0], [10, 0], [10, 10], [5, 4], [0, 10], [0, 0]];
    const box: Box = [2, 2, 8, 12];
    const clipped = clipRing(ring, box);
    assert.deepEqual(clipped[0], clipped.at(-1));
    // A grid that never falls on the box's edges.
    for (let x = 0.125; x <= 10; x += 0.25) {
      for (let y = 0.125; y <= 12; y += 0.25) {
        const inBox = x > box[0] && x < box[2] && y > box[1] && y < box[3];
        const pts = (r: number[][]) => r.map(([px, py]) => ({ x: px, y: py }));
        if (Math.abs(y - 4 - (x <= 5 ? (x - 5) * -1.2 : (x - 5) * 1.2)) < 0.3) continue; // too close to an edge to judge
        assert.equal(inRings([pts(clipped)], x, y), inBox && inRings([pts(ring)], x, y), `${x},${y}`);
      }
    }
    assert.deepEqual(clipRing(ring, [20, 20, 30, 30]), []);
  });

  test('regions that overlap become one box', () => {
    assert.deepEqual(mergeRegions([[0, 0, 10, 10], [20, 20, 30, 30], [5, 5, 25, 25]]), [[0, 0, 30, 30]]);
    assert.deepEqual(mergeRegions([[0, 0, 1, 1], [2, 2, 3, 3]]), [[0, 0, 1, 1], [2, 2, 3, 3]]);
  });
});
