/**
 * The service's MVT writer (src/geo/vector-tiles.ts) against @maplibre/vt-pbf, the reference encoder: the same layers
 * of points, lines and polygons (rings closed or not, holes, ids, string, integer, negative, fractional and boolean
 * values) decode with @mapbox/vector-tile to the same features, properties and geometry; and the shapes' zoom rule.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VectorTile, type VectorTileLayer } from '@mapbox/vector-tile';
import { fromVectorTileJs, GeoJSONWrapper } from '@maplibre/vt-pbf';
import { PbfReader } from 'pbf';
import { mulberry32 } from '../scripts/demo/ids.ts';
import { CUT_AFRESH_MAX_VERTICES, encodeTile, ShapeIndex, SizedShapeIndex, type ShapePart, type TileFeature, type TileLayer } from '../src/geo/vector-tiles.ts';

/** Every feature of a layer as plain data. */
function read(layer: VectorTileLayer) {
  const out = [];
  for (let i = 0; i < layer.length; i++) {
    const f = layer.feature(i);
    out.push({ type: f.type, id: f.id, properties: f.properties, geometry: f.loadGeometry().map((ring) => ring.map((p) => [p.x, p.y])) });
  }
  return { name: layer.name, extent: layer.extent, version: layer.version, features: out };
}

const KEYS = ['key0', 'key1', 'key2', 'key3', 'key4', 'key5'];

function randomLayers(seed: number): TileLayer[] {
  const random = mulberry32(seed);
  const coord = () => Math.floor(random() * 4200) - 50;
  const value = (k: number) => [`name ${Math.floor(random() * 5)}`, Math.floor(random() * 1000), -Math.floor(random() * 50) - 1, random() * 10, random() < 0.5][k % 5];
  // Each feature has some of the layer's six keys, in no fixed order of first use.
  const props = () => {
    const values: (string | number | boolean | undefined)[] = Array.from({ length: KEYS.length }, () => undefined);
    for (let k = 0, n = 1 + Math.floor(random() * 4); k < n; k++) values[Math.floor(random() * KEYS.length)] = value(Math.floor(random() * 5));
    return values;
  };
  const points: TileFeature[] = Array.from({ length: 40 }, (_, i) => ({ type: 1, geometry: [[coord(), coord()]], values: props(), ...(i % 3 === 0 ? { id: i } : {}) }));
  const lines: TileFeature[] = Array.from({ length: 10 }, () => ({ type: 2, geometry: Array.from({ length: 1 + Math.floor(random() * 2) }, () =>
    Array.from({ length: 2 + Math.floor(random() * 6) }, () => [coord(), coord()])), values: props() }));
  const polygons: TileFeature[] = Array.from({ length: 10 }, (_, i) => {
    const ring = (cx: number, cy: number, r: number) => {
      const pts = [[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]];
      return i % 2 ? [...pts, pts[0]] : pts; // closed or not
    };
    const [cx, cy] = [coord(), coord()];
    return { type: 3, geometry: [ring(cx, cy, 200), ring(cx, cy, 50).reverse()], values: props() };
  });
  return [{ name: 'markers', extent: 512, keys: KEYS, features: points }, { name: 'paths', extent: 4096, keys: KEYS, features: lines },
    { name: 'polygons', extent: 4096, keys: KEYS, features: polygons }];
}

test('tiles decode as vt-pbf\'s do: the same features, ids, properties and geometry, each layer with its own extent', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const layers = randomLayers(seed);
    const ours = new VectorTile(new PbfReader(encodeTile(layers))).layers;
    const wrapped = Object.fromEntries(layers.map((l) => {
      const w = new GeoJSONWrapper(l.features.map((f) => ({ type: f.type, geometry: f.geometry, tags: Object.fromEntries(l.keys.flatMap((key, k) => (f.values[k] === undefined ? [] : [[key, f.values[k]]]))), ...(f.id === undefined ? {} : { id: f.id }) })) as never,
        { version: 2, extent: l.extent });
      w.name = l.name;
      return [l.name, w];
    }));
    const reference = new VectorTile(new PbfReader(fromVectorTileJs({ layers: wrapped }))).layers;
    assert.deepEqual(Object.keys(ours), Object.keys(reference));
    for (const name of Object.keys(reference)) assert.deepEqual(read(ours[name]), read(reference[name]), `${name}, seed ${seed}`);
  }
  assert.equal(encodeTile([{ name: 'markers', extent: 512, keys: [], features: [] }]).length, 0, 'nothing in it: an empty body');
});

test('a path or polygon is drawn from the zoom at which its box spans a 64th of a tile', () => {
  // A square of 0.005 degrees at the equator: 0.005 / 360 of the world, so a 64th of a tile from zoom ceil(log2(360 / (0.005 * 64))).
  const square = { type: 'Polygon' as const, coordinates: [[[0, 0], [0.005, 0], [0.005, 0.005], [0, 0.005], [0, 0]]] };
  const first = Math.ceil(Math.log2(360 / (0.005 * 64)));
  const index = new SizedShapeIndex([{ geometry: square, index: 7 }], 22, 1 / 64);
  for (let z = first - 3; z <= first + 3; z++) {
    const n = 2 ** z;
    const parts = index.tile(z, Math.floor(n / 2), Math.floor(n / 2) - 1);
    assert.equal(parts.some((p) => p.index === 7), z >= first, `zoom ${z}`);
  }
});

test('a shape index made again from its shapes once it keeps too many tiles cuts the same parts; a sized one keeps numbers, not geometry', () => {
  const line = { type: 'LineString' as const, coordinates: [[-9.2, 38.7], [-9.1, 38.75], [-9.0, 38.72]] };
  let asked = 0;
  const index = new ShapeIndex(() => {
    asked++;
    return [{ geometry: line, index: 3 }];
  }, 22, { keep: 3 });
  const tiles: [number, number, number][] = [[10, 486, 392], [12, 1945, 1569], [14, 7781, 6278], [16, 31126, 25113]];
  const first = tiles.map(([z, x, y]) => JSON.stringify(index.tile(z, x, y)));
  assert.equal(asked > 1, true, 'made again after more than 3 tiles were kept');
  assert.deepEqual(tiles.map(([z, x, y]) => JSON.stringify(index.tile(z, x, y))), first);
  assert.ok(first.some((parts) => parts.includes('"index":3')), 'the line is in the tiles it crosses');
  // A line of more than CUT_AFRESH_MAX_VERTICES vertices is in a band's index: its geometry is asked for again.
  const long = { type: 'LineString' as const, coordinates: Array.from({ length: CUT_AFRESH_MAX_VERTICES + 1 }, (_, k) => [-9.2 + k * 0.0008, 38.7 + (k % 2) * 0.0001]) };
  const again = new ShapeIndex([{ geometry: long, index: 3 }], 22);
  const sized = new SizedShapeIndex([{ geometry: long, index: 3 }], 22, 1 / 64, (i) => {
    assert.equal(i, 3);
    asked++;
    return long;
  });
  const before = asked;
  assert.deepEqual(sized.tile(12, 1945, 1569), again.tile(12, 1945, 1569));
  assert.ok(sized.tile(12, 1945, 1569).length > 0);
  assert.equal(asked, before + 1, 'the geometry asked for again when the band\'s index is made');
});

/** Twice a ring's area (shoelace). */
const ringArea = (ring: number[][]) => ring.reduce((sum, p, i) => sum + (ring[(i + ring.length - 1) % ring.length][0] - p[0]) * (p[1] + ring[(i + ring.length - 1) % ring.length][1]), 0);

/**
 * A tile's parts as comparable text, as they are drawn: each ring without its closing vertex and without the vertices
 * on a straight line between their neighbours (a cut may run along the buffer's edge and back), from its smallest vertex
 * on (cuts may start a ring anywhere); a polygon's rings without area left out, and a polygon left with none.
 */
function partsText(parts: readonly ShapePart[]): string[] {
  const ringText = (ring: number[][], closed: boolean) => {
    let open = closed && ring.length > 1 && ring[0][0] === ring.at(-1)![0] && ring[0][1] === ring.at(-1)![1] ? ring.slice(0, -1) : ring;
    if (!closed) return JSON.stringify(open);
    const straight = (a: number[], b: number[], c: number[]) => (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) === 0;
    for (let k = 0; open.length > 2 && k < open.length;) {
      if (straight(open[(k + open.length - 1) % open.length], open[k], open[(k + 1) % open.length])) {
        open = [...open.slice(0, k), ...open.slice(k + 1)];
        k = 0;
      } else k++;
    }
    let from = 0;
    for (let k = 1; k < open.length; k++) if (open[k][0] < open[from][0] || (open[k][0] === open[from][0] && open[k][1] < open[from][1])) from = k;
    return JSON.stringify([...open.slice(from), ...open.slice(0, from)]);
  };
  return parts.map((p) => ({ ...p, geometry: p.type === 3 ? (p.geometry as number[][][]).filter((ring) => ringArea(ring) !== 0) : p.geometry }))
    .filter((p) => p.geometry.length > 0)
    .map((p) => `${p.index} ${p.type} ${(p.geometry as number[][][]).map((ring) => ringText(ring, p.type === 3)).join(' ')}`).sort();
}

test('small shapes cut for each tile afresh give the parts a geojson-vt index cuts, across the antimeridian too', () => {
  const random = mulberry32(35);
  // Lines and polygons (some with a hole) of up to 40 vertices around Lisbon and on both sides of the antimeridian.
  const shapes = Array.from({ length: 400 }, (_, index) => {
    const [lng0, lat0] = index % 4 === 0 ? [179.9 + random() * 0.19 - 0.19 * (index % 8 === 0 ? 1 : 0), -17] : [-9.2 + random() * 0.3, 38.6 + random() * 0.2];
    const size = 0.0005 + random() * 0.05;
    // Convex rings, and stars (every other vertex pulled in: concave, leaving a tile and coming back into it).
    const star = index % 2 === 1;
    const ring = (s: number) => {
      const n = (star ? 6 : 3) + Math.floor(random() * 12);
      const pts = Array.from({ length: n }, (_, k) => {
        const a = (2 * Math.PI * k) / n;
        const r = star && k % 2 === 1 ? s * (0.15 + random() * 0.3) : s;
        const x = Math.max(-180, Math.min(180, lng0 + Math.cos(a) * r));
        return [x, lat0 + Math.sin(a) * r];
      });
      return [...pts, pts[0]];
    };
    if (index % 3 === 0) return { geometry: { type: 'LineString' as const, coordinates: Array.from({ length: 2 + Math.floor(random() * 38) }, () => [Math.max(-180, Math.min(180, lng0 + (random() - 0.5) * size)), lat0 + (random() - 0.5) * size]) }, index };
    const outer = ring(size);
    return { geometry: { type: 'Polygon' as const, coordinates: index % 5 === 0 ? [outer, ring(size / 3).reverse()] : [outer] }, index };
  });
  // A U open to the east whose arms pass above and below tile 16/31112/25100 (a cut straight to it leaves a sliver
  // along the buffer's edge, without area), and a line near the pole, beyond Web Mercator's edge.
  shapes.push({ geometry: { type: 'Polygon' as const, coordinates: [[[-9.1, 38.773], [-9.085, 38.773], [-9.085, 38.772], [-9.099, 38.772],
    [-9.099, 38.7665], [-9.085, 38.7665], [-9.085, 38.7655], [-9.1, 38.7655], [-9.1, 38.773]]] }, index: 400 });
  shapes.push({ geometry: { type: 'LineString' as const, coordinates: [[10, 86], [11, 89]] }, index: 401 });
  // Every shape drawn from zoom 0, so each tile holds what the index's does.
  const afresh = new SizedShapeIndex(shapes, 22, 0);
  const indexed = new ShapeIndex(shapes, 22);
  const tileOf = (z: number, lng: number, lat: number): [number, number, number] => {
    const n = 2 ** z;
    const sin = Math.sin((lat * Math.PI) / 180);
    return [z, Math.min(n - 1, Math.floor(((lng + 180) / 360) * n)), Math.floor((0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * n)];
  };
  const tiles: [number, number, number][] = [[0, 0, 0], [1, 0, 1], [1, 1, 1], [16, 31112, 25100], [17, 62225, 50201], [15, 15556, 12550],
    [21, 1109741, 0], [22, 2219483, 0]];
  for (let z = 2; z <= 18; z++) {
    for (const [lng, lat] of [[-9.1, 38.7], [-9.05, 38.72], [179.95, -17], [-179.999, -17], [179.999, -17.01]]) {
      const [, x, y] = tileOf(z, lng, lat);
      for (const dx of [-1, 0, 1]) tiles.push([z, (x + dx + 2 ** z) % 2 ** z, y]);
    }
  }
  assert.deepEqual(afresh.tile(16, 31112, 25100).filter((p) => p.index === 400), [], 'the U leaves no sliver in the tile between its arms');
  assert.ok(afresh.tile(21, 1109741, 0).some((p) => p.index === 401), 'the line near the pole is in the top row');
  let nonEmpty = 0;
  for (const [z, x, y] of tiles) {
    const parts = afresh.tile(z, x, y);
    for (const p of parts) {
      if (p.type !== 3) continue;
      for (const ring of p.geometry as number[][][]) {
        assert.notEqual(ringArea(ring), 0, `a ring with area, tile ${z}/${x}/${y}`);
        // No spike: no vertex the ring reaches and leaves straight back along the same line.
        const open = ring.slice(0, -1);
        for (let k = 0; k < open.length; k++) {
          const [a, b, c] = [open[(k + open.length - 1) % open.length], open[k], open[(k + 1) % open.length]];
          const [ux, uy, wx, wy] = [b[0] - a[0], b[1] - a[1], c[0] - b[0], c[1] - b[1]];
          assert.ok(!(ux * wy - uy * wx === 0 && ux * wx + uy * wy <= 0), `a spike at ${JSON.stringify(b)}, tile ${z}/${x}/${y}`);
        }
      }
    }
    const got = partsText(parts);
    assert.deepEqual(got, partsText(indexed.tile(z, x, y)), `tile ${z}/${x}/${y}`);
    if (got.length > 0) nonEmpty++;
    // Kept by number (a tile's tags): only those are cut, and they are cut the same.
    const even = (index: number) => index % 2 === 0;
    assert.deepEqual(partsText(afresh.tile(z, x, y, even)), partsText(afresh.tile(z, x, y).filter((p) => even(p.index))), `tile ${z}/${x}/${y}, kept`);
  }
  assert.ok(nonEmpty > tiles.length / 2, `most tiles hold parts (${nonEmpty} of ${tiles.length})`);
});

test('a tile\'s paths and polygons come in the order of the zoom each is drawn from, larger first, then as given', () => {
  const square = (lng: number, lat: number, size: number) => ({ type: 'Polygon' as const, coordinates: [[[lng, lat], [lng + size, lat], [lng + size, lat + size], [lng, lat + size], [lng, lat]]] });
  // A park (drawn from a low zoom), a detailed pond in it of more than CUT_AFRESH_MAX_VERTICES vertices, and small squares.
  const pond = { type: 'Polygon' as const, coordinates: [Array.from({ length: CUT_AFRESH_MAX_VERTICES + 2 }, (_, k) => {
    const a = (2 * Math.PI * (k % (CUT_AFRESH_MAX_VERTICES + 1))) / (CUT_AFRESH_MAX_VERTICES + 1);
    return [-9.15 + 0.004 * Math.cos(a), 38.72 + 0.004 * Math.sin(a)];
  })] };
  const shapes = [
    ...Array.from({ length: 12 }, (_, k) => ({ geometry: square(-9.158 + (k % 4) * 0.004, 38.712 + Math.floor(k / 4) * 0.004, 0.001 + (k % 3) * 0.0004), index: 20 + k })),
    { geometry: pond, index: 2 },
    { geometry: square(-9.17, 38.70, 0.04), index: 1 },
  ];
  const index = new SizedShapeIndex(shapes, 22, 1 / 64);
  const zoomOf = (g: { coordinates: number[][][] }) => {
    const xs = g.coordinates[0].map((p) => p[0]);
    return Math.ceil(Math.log2(((1 / 64) * 360) / (Math.max(...xs) - Math.min(...xs))));
  };
  const order = [...shapes].map((s, k) => ({ ...s, k, zoom: zoomOf(s.geometry) })).sort((a, b) => a.zoom - b.zoom || Number(a.geometry === pond ? 0 : 1) - Number(b.geometry === pond ? 0 : 1) || a.k - b.k);
  const [z, x, y] = [14, Math.floor(((-9.15 + 180) / 360) * 2 ** 14), 0];
  const sin = Math.sin((38.72 * Math.PI) / 180);
  const row = Math.floor((0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * 2 ** 14);
  const got = index.tile(z, x, row + y).map((p) => p.index);
  const drawn = order.filter((s) => s.zoom <= z).map((s) => s.index).filter((i) => got.includes(i));
  assert.ok(got.length >= 5, `the tile holds the park, the pond and squares (${got.join(',')})`);
  assert.deepEqual(got, drawn);
});
