/**
 * The spatial index over anchor points: near and bbox queries give exactly the owners a direct test of every
 * point gives (geokdbush's haversine for near), points on the very edge of the circle included, where the
 * index's cheaper unit-vector test hands over to the exact one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bboxTest, nearTest, PointIndex, TreePoints, type Area } from '../src/geo/point-index.ts';
import { runNow } from '../src/utils/steps.ts';
import { mulberry32 } from './helpers/fixture.ts';

const EARTH_RADIUS_M = 6_371_000;

/** The point at `distanceM` from (lat, lng) towards `bearing` (radians), on the sphere. */
function destination(lat: number, lng: number, distanceM: number, bearing: number): [number, number] {
  const rad = Math.PI / 180;
  const d = distanceM / EARTH_RADIUS_M;
  const lat1 = lat * rad;
  const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(bearing));
  const lng2 = lng * rad + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
  return [((lng2 / rad + 540) % 360) - 180, lat2 / rad];
}

/** Owners (each with 1 to 3 points) in owner order, some of their points on the edge of the query's circle. */
function pointsAround(random: () => number, lat: number, lng: number, radiusM: number, owners: number) {
  const lngs: number[] = [];
  const lats: number[] = [];
  const ownerOf: number[] = [];
  const edge: boolean[] = [];
  for (let o = 0; o < owners; o++) {
    const points = 1 + Math.floor(random() * 3);
    for (let p = 0; p < points; p++) {
      // On the edge give or take a few parts in a trillion, or anywhere up to twice the radius.
      const onEdge = random() < 0.5;
      const scale = onEdge ? 1 + (random() - 0.5) * 1e-11 : random() * 2;
      edge.push(onEdge);
      const [x, y] = destination(lat, lng, radiusM * scale, random() * 2 * Math.PI);
      lngs.push(x);
      lats.push(y);
      ownerOf.push(o);
    }
  }
  return { lngs, lats, ownerOf, edge };
}

/** The owners, each once and ascending, of the points `collect` finds in the area. */
function ownersFound(index: PointIndex, area: Area): number[] {
  const count = index.collect(area);
  const owners = new Set<number>();
  for (let f = 0; f < count; f++) owners.add(index.ownersByTreePosition[index.foundPositions[f]]);
  return [...owners].sort((a, b) => a - b);
}

test('near and bbox queries give exactly the owners a direct test of every point gives, edges of the circle included', () => {
  const random = mulberry32(11);
  const edgeCases = { in: 0, out: 0 };
  for (let round = 0; round < 60; round++) {
    const lat = round % 10 === 0 ? 89.9 : (random() - 0.5) * 170;
    const lng = round % 7 === 0 ? 179.99 : (random() - 0.5) * 360;
    const radiusM = [1, 2, 7, 50, 5_000, 200_000][round % 6];
    const owners = 300;
    const { lngs, lats, ownerOf, edge } = pointsAround(random, lat, lng, radiusM, owners);
    const index = runNow(PointIndex.buildSteps(lngs, lats, ownerOf, owners, { stride: 64 }));
    const q = { lat, lng, radiusM };
    const inside = nearTest(q);
    const expected = [...new Set(ownerOf.filter((_, i) => inside(lngs[i], lats[i])))].sort((a, b) => a - b);
    assert.deepEqual(ownersFound(index, { near: q }), expected, `near ${JSON.stringify(q)}`);
    for (let i = 0; i < lngs.length; i++) if (edge[i]) edgeCases[inside(lngs[i], lats[i]) ? 'in' : 'out']++;
    const box = { west: lng - 0.01, south: lat - 0.01, east: lng + 0.02, north: Math.min(90, lat + 0.02) };
    const inBox = bboxTest(box);
    const boxExpected = [...new Set(ownerOf.filter((_, i) => inBox(lngs[i], lats[i])))].sort((a, b) => a - b);
    assert.deepEqual(ownersFound(index, { bbox: box }), boxExpected, `bbox ${JSON.stringify(box)}`);
  }
  assert.ok(edgeCases.in > 1000 && edgeCases.out > 1000, `points on the edge fall both ways: ${JSON.stringify(edgeCases)}`);
});

test('the owners in index order are every owner with points, each once', () => {
  const random = mulberry32(5);
  const { lngs, lats, ownerOf } = pointsAround(random, 38.7, -9.1, 10_000, 500);
  const index = runNow(PointIndex.buildSteps(lngs, lats, ownerOf, 502, {}));
  const order = [...index.ownersInIndexOrder()];
  assert.equal(order.length, 500, 'owners 500 and 501 have no points');
  assert.deepEqual([...order].sort((a, b) => a - b), Array.from({ length: 500 }, (_, o) => o));
});

test('regions of the tree wholly inside a circle or a box are taken whole, points across the edge tested, with or without a time window: exactly the brute-force answer', () => {
  const random = mulberry32(29);
  // Dense clusters (tens of thousands of points, a few per leaf), so that many regions lie wholly in the area.
  const centres = [[-9.14, 38.72], [-3.70, 40.42], [179.95, -16.5]];
  const n = 30_000;
  const lngs: number[] = [];
  const lats: number[] = [];
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const [x, y] = centres[i % centres.length];
    lngs.push(((x + (random() - 0.5) * 0.8 + 540) % 360) - 180);
    lats.push(y + (random() - 0.5) * 0.6);
    starts[i] = Math.floor(random() * 1000);
    ends[i] = starts[i] + Math.floor(random() * 100);
  }
  let wholly = 0;
  for (const leaf of [4, 64]) {
    const points = runNow(TreePoints.buildSteps(lngs, lats, Array.from({ length: n }, (_, i) => i), { nodeSize: leaf }));
    // The times, by tree position (as a caller lays them out).
    const byTree = points.tagsByTreePosition;
    const times = new Int32Array(2 * n);
    byTree.forEach((i, k) => { times[2 * k] = starts[i]; times[2 * k + 1] = ends[i]; });
    for (let round = 0; round < 120; round++) {
      const [x, y] = centres[round % centres.length];
      const lng = x + (random() - 0.5) * 0.4;
      const lat = y + (random() - 0.5) * 0.4;
      const area: Area = round % 2 === 0 ? { near: { lat, lng, radiusM: 100 + Math.floor(random() * 30_000) } }
        : { bbox: { west: ((lng - random() * 0.2 + 540) % 360) - 180, south: lat - random() * 0.2, east: ((lng + random() * 0.2 + 540) % 360) - 180,
          north: lat + random() * 0.2 } };
      const inArea = 'near' in area ? nearTest(area.near) : bboxTest(area.bbox);
      const timed = round % 3 !== 0;
      const fromMs = Math.floor(random() * 1000);
      const toMs = fromMs + Math.floor(random() * 300);
      const startsFrom = random() < 0.5 ? -Infinity : fromMs + Math.floor(random() * 50);
      const inWindow = (i: number) => !timed || (starts[i] <= toMs && starts[i] >= startsFrom && ends[i] >= fromMs);
      const expected = Array.from({ length: n }, (_, i) => i).filter((i) => inArea(lngs[i], lats[i]) && inWindow(i));
      const count = points.collect(area, timed ? { times, startsFrom, fromMs, toMs } : null);
      const got = Array.from(points.foundPositions.subarray(0, count), (k) => byTree[k]).sort((a, b) => a - b);
      assert.deepEqual(got, expected, `${JSON.stringify(area)} ${timed ? `${fromMs}..${toMs} from ${startsFrom}` : 'any time'} (leaves of ${leaf})`);
      wholly += points.takenWhole;
    }
  }
  assert.ok(wholly > 100_000, `regions were taken whole: ${wholly} points`);
});

test('circles about one centre, each radius after the other and from several indexes in turn (as a query walks its time slabs), give each its own points', () => {
  const random = mulberry32(23);
  const [lat, lng] = [38.7223, -9.1393];
  const indexes = [0, 1, 2].map(() => {
    const { lngs, lats, ownerOf } = pointsAround(random, lat, lng, 3_000, 400);
    return { index: runNow(PointIndex.buildSteps(lngs, lats, ownerOf, 400)), lngs, lats, ownerOf };
  });
  for (const radiusM of [3_000, 1_000, 3_000, 2_999, 3_001, 500, 6_000, 6_000]) {
    for (const { index, lngs, lats, ownerOf } of indexes) {
      const test = nearTest({ lat, lng, radiusM });
      const expected = [...new Set(ownerOf.filter((_, i) => test(lngs[i], lats[i])))].sort((a, b) => a - b);
      assert.deepEqual(ownersFound(index, { near: { lat, lng, radiusM } }), expected, `radius ${radiusM}`);
    }
  }
});
