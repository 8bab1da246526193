/**
 * Events: GET /events, /events/upcoming-by-poi and /events/:id against a linear-scan reference over the
 * synthetic fixture, with randomized queries from fixed seeds plus the edges (antimeridian, poles,
 * exactly-on-boundary points, cursors, limits, sessions).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as v from 'valibot';
import { gunzipSync } from 'node:zlib';
import { getEvent, listEvents, upcomingByPoi } from '../../src/routes/events.ts';
import { EVENT_STATUSES, type BundleT } from '../../src/content/bundle/bundle-schema.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { F, makeFixture, mulberry32, uuidFor } from '../helpers/fixture.ts';
import {
  buildReference, filterEvents, haversineM, upcomingForPoi, type RefBbox, type RefEventQuery, type Reference,
} from '../helpers/brute-force.ts';

const DAY = 86_400_000;
const NOW = F.now.getTime();
const WINDOW_30D = 30 * DAY;
const RANGE_START = Date.parse('2026-10-01T00:00:00Z');
const RANGE_END = Date.parse('2029-02-01T00:00:00Z');
const TYPES = ['concert', 'market', 'festival', 'tour', 'sport'];
const TAGS = ['Free', 'outdoor', 'family', 'night', 'art'];
const EDGE_ROUND = uuidFor('marker:edge-round'); // exactly 38.75, -9.2
const EDGE_NORTH = uuidFor('marker:edge-north'); // 89.99, 10
const EDGE_SOUTH = uuidFor('marker:edge-south'); // -89.99, -170
const PAC_180 = uuidFor('marker:pac0'); // lng exactly 180
const PAC_MINUS_180 = uuidFor('marker:pac1'); // lng exactly -180
const DRAFT_ANCHOR_EVENT = uuidFor('event:draft-anchor');
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

let t: TestTarget;
let bundle: BundleT;
let ref: Reference;

before(async () => {
  bundle = makeFixture();
  ref = buildReference(bundle);
  t = await openTarget(bundle);
});
after(async () => {
  await t?.close();
});

type Params = [string, string][];

/** Builds a query string, encoding every value. */
function qs(params: Params): string {
  return params.map(([k, val]) => `${k}=${encodeURIComponent(val)}`).join('&');
}

/** Formats epoch ms as an RFC 3339 date-time at the given offset (minutes east of UTC). */
function formatAt(ms: number, offsetMin: number): string {
  if (offsetMin === 0) return new Date(ms).toISOString();
  const local = new Date(ms + offsetMin * 60_000).toISOString().slice(0, 23);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id);

/** Asserts a 200 body matches the response schema its route declares. */
function assertDeclared(schema: v.GenericSchema, body: unknown, label: string): void {
  const result = v.safeParse(schema, body);
  assert.ok(result.success, `${label}: body does not match the declared schema: ${JSON.stringify(result.issues?.[0]?.message)} at ${
    JSON.stringify(result.issues?.[0]?.path?.map((x) => x.key))}`);
}

interface EventsPage { events: { id: string; [k: string]: unknown }[]; next_cursor: string | null; total: number }
interface Problem { type: string; title: string; status: number; detail: string; errors?: { name: string; in: string; reason: string }[] }

/** Asserts a 400 problem that names `name` among its bad parameters, and returns that error. */
async function expect400(path: string, name: string, init?: RequestInit) {
  const { status, body, res } = await t.json<Problem>(path, init);
  assert.equal(status, 400, `${path} should be 400, got ${status}: ${JSON.stringify(body)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(body.status, 400);
  const found = body.errors?.find((e) => e.name === name);
  assert.ok(found, `${path}: errors should name ${name}: ${JSON.stringify(body.errors)}`);
  return found;
}

/**
 * Walks every page of /events for `params`, checking each page against the expected ids; returns the
 * concatenated ids. `limitFor(page)` picks each page's limit (undefined = the default).
 */
async function walkAndCheck(params: Params, expected: readonly string[], limitFor: (page: number) => number | undefined,
  label = qs(params)): Promise<string[]> {
  const got: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    assert.ok(page <= expected.length + 1, `${label}: too many pages`);
    const limit = limitFor(page);
    const p: Params = [...params];
    if (limit !== undefined) p.push(['limit', String(limit)]);
    if (cursor !== null) p.push(['cursor', cursor]);
    const { status, body } = await t.json<EventsPage>(`/events?${qs(p)}`);
    assert.equal(status, 200, `${label} page ${page}: ${JSON.stringify(body)}`);
    assertDeclared(listEvents.response, body, label);
    assert.equal(body.total, expected.length, `${label} page ${page}: total`);
    const size = limit ?? 50;
    assert.ok(body.events.length <= size, `${label} page ${page}: page longer than limit`);
    got.push(...ids(body.events));
    const last = got.length >= expected.length;
    assert.equal(body.next_cursor === null, last, `${label} page ${page}: next_cursor must be null exactly on the last page`);
    if (!last) assert.equal(body.events.length, size, `${label} page ${page}: a page before the last is full`);
    if (body.next_cursor === null) break;
    cursor = body.next_cursor;
  }
  assert.deepEqual(got, expected, `${label}: concatenated pages`);
  return got;
}

/** Random helpers over one seeded generator. */
function randomTools(seed: number) {
  const rand = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const chance = (p: number) => rand() < p;
  const subset = <T>(xs: readonly T[]) => xs.filter(() => chance(0.4));
  const randomCase = (s: string) => (chance(0.3) ? s.toUpperCase() : chance(0.3) ? s[0].toUpperCase() + s.slice(1) : s);
  const pad = (s: string) => `${chance(0.3) ? ' ' : ''}${s}${chance(0.3) ? '  ' : ''}`;
  return { rand, int, pick, chance, subset, randomCase, pad };
}

type Tools = ReturnType<typeof randomTools>;

/** All anchor points of the visible events of a map. */
function anchorPointsOf(mapId: string): [number, number][] {
  return ref.events.filter((e) => e.mapId === mapId).flatMap((e) => e.points);
}

/** A random bbox for the map, covering the edges the conventions name. */
function randomBbox(r: Tools, mapId: string): RefBbox {
  const pts = anchorPointsOf(mapId);
  // The Pacific map straddles the dateline, so it gets crossing boxes most of the time.
  const kind = mapId === F.pacific && r.chance(0.7) ? r.pick([3, 3, 4]) : r.int(0, 8);
  const clampLat = (x: number) => Math.max(-90, Math.min(90, x));
  const clampLng = (x: number) => Math.max(-180, Math.min(180, x));
  if (kind === 0) return { west: -180, south: -90, east: 180, north: 90 }; // huge
  if (kind === 1) {
    // Edges passing exactly through the round edge marker (38.75, -9.2).
    return r.pick([
      { west: -9.2, south: 38.75, east: -9.1, north: 38.8 },
      { west: -9.3, south: 38.7, east: -9.2, north: 38.75 },
      { west: -9.2, south: 38.75, east: -9.2, north: 38.75 },
      { west: -9.3, south: 38.7, east: -9.2000001, north: 38.75 },
      { west: -9.1999999, south: 38.75, east: -9.1, north: 38.8 },
    ]);
  }
  if (kind === 2) {
    // Near a pole.
    const north = r.chance(0.5);
    const lo = r.rand() * 180 - 180;
    return north
      ? { west: r.chance(0.5) ? -180 : lo, south: 89.9 + r.rand() * 0.09, east: r.chance(0.5) ? 180 : lo + r.rand() * 180, north: 90 }
      : { west: r.chance(0.5) ? -180 : lo, south: -90, east: r.chance(0.5) ? 180 : lo + r.rand() * 180, north: -89.9 - r.rand() * 0.09 };
  }
  if (kind === 3) {
    // Crossing the antimeridian.
    const south = -19 + r.rand() * 2;
    return { west: 178 + r.rand() * 2, south, east: -180 + r.rand() * 2, north: south + r.rand() * 3 };
  }
  if (kind === 4) {
    // Exactly the dateline on both sides (west = 180 > east = -180).
    return { west: 180, south: -20, east: -180, north: -15 };
  }
  if (kind === 5) {
    // Anywhere at all.
    const a = r.rand() * 360 - 180;
    const b = r.rand() * 360 - 180;
    const s = r.rand() * 180 - 90;
    return { west: a, south: s, east: b, north: clampLat(s + r.rand() * (90 - s)) };
  }
  // Around a random anchor point: tiny to a few degrees.
  const [lng, lat] = pts.length ? r.pick(pts) : [0, 0];
  const w = 10 ** (-4 + r.rand() * 4.5);
  const h = 10 ** (-4 + r.rand() * 4.5);
  return {
    west: clampLng(lng - w * r.rand()), east: clampLng(lng + w * r.rand()),
    south: clampLat(lat - h * r.rand()), north: clampLat(lat + h * r.rand()),
  };
}

/** A random near point (radius undefined means the default 10000 m). */
function randomNear(r: Tools, mapId: string): { lat: number; lng: number; radius: number | undefined } {
  const pts = anchorPointsOf(mapId);
  const radius = r.pick([undefined, 1, 200_000, r.int(1, 200_000), Math.round(10 ** (r.rand() * 5.3)) || 1]);
  const kind = r.int(0, 5);
  if (kind === 0) return { lat: r.pick([90, 89.995, -90, -89.995]), lng: r.rand() * 360 - 180, radius };
  if (kind === 1) return { lat: -17.5 + r.rand() - 0.5, lng: r.pick([180, -180, 179.999, -179.999]), radius };
  if (kind === 2) return { lat: r.rand() * 180 - 90, lng: r.rand() * 360 - 180, radius };
  const [lng, lat] = pts.length ? r.pick(pts) : [0, 0];
  const jitter = r.chance(0.3) ? 0 : 10 ** (-5 + r.rand() * 4);
  return {
    lat: Math.max(-90, Math.min(90, lat + (r.rand() - 0.5) * jitter)),
    lng: Math.max(-180, Math.min(180, lng + (r.rand() - 0.5) * jitter)),
    radius,
  };
}

/** A random window: params to send and the resolved [from, to] the reference uses. */
function randomWindow(r: Tools, mapId: string): { params: Params; fromMs: number; toMs: number } {
  const mapEvents = ref.events.filter((e) => e.mapId === mapId);
  const offset = () => r.pick([0, 0, 60, -300, 330, -570]);
  const randomMs = () => (r.chance(0.25) && mapEvents.length
    ? (r.chance(0.5) ? r.pick(mapEvents).startMs : r.pick(mapEvents).endMs) // exactly on an event boundary
    : RANGE_START + Math.floor(r.rand() * (RANGE_END - RANGE_START)));
  const mode = r.int(0, 11);
  if (mode === 0) return { params: [], fromMs: NOW, toMs: NOW + WINDOW_30D };
  if (mode >= 10) {
    // The whole fixture range, so unfiltered queries span many pages.
    return { params: [['from', formatAt(RANGE_START, offset())], ['to', formatAt(RANGE_END, offset())]], fromMs: RANGE_START, toMs: RANGE_END };
  }
  if (mode === 1) {
    const from = randomMs();
    return { params: [['from', formatAt(from, offset())]], fromMs: from, toMs: from + WINDOW_30D };
  }
  if (mode === 2) {
    const from = Math.floor(randomMs() / DAY) * DAY;
    return { params: [['from', new Date(from).toISOString().slice(0, 10)]], fromMs: from, toMs: from + WINDOW_30D };
  }
  if (mode === 3) {
    const to = NOW + Math.floor(r.rand() * 400 * DAY);
    return { params: [['to', formatAt(to, offset())]], fromMs: NOW, toMs: to };
  }
  const from = randomMs();
  const span = r.pick([0, 1000, DAY, 7 * DAY, 90 * DAY, 900 * DAY]) * r.rand();
  const to = r.chance(0.15) ? from : Math.floor(from + span);
  return { params: [['from', formatAt(from, offset())], ['to', formatAt(to, offset())]], fromMs: from, toMs: to };
}

/** A random /events query: the params and the reference query they mean. */
function randomEventQuery(r: Tools): { params: Params; q: RefEventQuery } {
  const mapId = r.chance(0.4) ? F.pacific : F.map;
  const win = randomWindow(r, mapId);
  const params: Params = [['map_id', r.chance(0.2) ? mapId.toUpperCase() : mapId], ...win.params];
  const q: RefEventQuery = { mapId, fromMs: win.fromMs, toMs: win.toMs };
  if (r.chance(0.35)) {
    const chosen = r.subset([...TYPES, 'no-such-type']);
    if (chosen.length === 0) chosen.push(r.pick(TYPES));
    const sent = chosen.map(r.randomCase);
    if (r.chance(0.2)) sent.push(sent[0]);
    params.push(['event_types', sent.map(r.pad).join(',')]);
    q.types = chosen;
  }
  if (r.chance(0.35)) {
    const chosen = r.subset([...TAGS, 'no-such-tag']);
    if (chosen.length === 0) chosen.push(r.pick(TAGS));
    const sent = chosen.map(r.randomCase);
    params.push(['tags', sent.map(r.pad).join(r.chance(0.2) ? ',,' : ',')]);
    q.tags = chosen;
  }
  const spatial = r.rand();
  const withBbox = spatial >= 0.35 && spatial < 0.6 || spatial >= 0.8;
  if (spatial >= 0.6) {
    const n = randomNear(r, mapId);
    params.push(['near', `${n.lat},${n.lng}`]);
    if (n.radius !== undefined) params.push(['radius_m', String(n.radius)]);
    q.near = { lat: n.lat, lng: n.lng, radiusM: n.radius ?? 10_000 };
  }
  if (withBbox) {
    let b = randomBbox(r, mapId);
    if (q.near && r.chance(0.6)) {
      // A box around the near point, so both filters together often still match something.
      const d = 10 ** (-2 + r.rand() * 2);
      const { lat, lng } = q.near;
      b = { west: Math.max(-180, lng - d * r.rand()), east: Math.min(180, lng + d * r.rand()),
        south: Math.max(-90, lat - d * r.rand()), north: Math.min(90, lat + d * r.rand()) };
    }
    params.push(['bbox', `${b.west},${b.south},${b.east},${b.north}`]);
    q.bbox = b;
  }
  return { params, q };
}

/**
 * True when some anchor point of the map lies within a relative 1e-6 of the radius. The service compares
 * haversine values (geokdbush) and the reference compares metres, so rounding could legitimately differ
 * at such a distance; those few queries are regenerated rather than compared.
 */
function onRadiusBoundary(q: RefEventQuery): boolean {
  if (!q.near) return false;
  const near = q.near;
  return ref.events.some((e) => e.mapId === q.mapId &&
    e.points.some(([lng, lat]) => Math.abs(haversineM(near.lat, near.lng, lat, lng) - near.radiusM) <= near.radiusM * 1e-6));
}

describe('GET /events against brute force', () => {
  test('200 random queries return exactly the brute-force events, in order, across all pages', async () => {
    const r = randomTools(0xe7e7);
    const stats = { nonEmpty: 0, big: 0, bbox: 0, near: 0, both: 0, crossing: 0, pages: 0, skipped: 0 };
    for (let n = 0; n < 200; n++) {
      const { params, q } = randomEventQuery(r);
      if (onRadiusBoundary(q)) { stats.skipped++; n--; continue; }
      const expected = ids(filterEvents(ref, q));
      const limit = r.chance(0.3) ? r.int(1, 20) : r.int(1, 200);
      const varyLimit = r.chance(0.2);
      await walkAndCheck(params, expected, () => (varyLimit ? r.int(1, 200) : limit));
      if (expected.length > 0) {
        stats.nonEmpty++;
        if (q.bbox && !q.near) stats.bbox++;
        if (q.near && !q.bbox) stats.near++;
        if (q.near && q.bbox) stats.both++;
        if (q.bbox && q.bbox.west > q.bbox.east) stats.crossing++;
      }
      if (expected.length > 200) stats.big++;
      if (expected.length > limit) stats.pages++;
    }
    // The inputs must exercise something: non-empty answers of every spatial kind, and multi-page walks.
    assert.ok(stats.nonEmpty >= 80, `too few non-empty answers: ${JSON.stringify(stats)}`);
    assert.ok(stats.big >= 3, `too few answers over 200 events: ${JSON.stringify(stats)}`);
    assert.ok(stats.pages >= 20, `too few multi-page walks: ${JSON.stringify(stats)}`);
    for (const k of ['bbox', 'near', 'both', 'crossing'] as const) assert.ok(stats[k] >= 3, `too few non-empty ${k}: ${JSON.stringify(stats)}`);
    assert.ok(stats.skipped <= 5, `too many boundary skips: ${stats.skipped}`);
  });

  test('a wide window lists every visible event of the map, including one anchored only to a draft POI', async () => {
    const q = { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END };
    const expected = ids(filterEvents(ref, q));
    assert.ok(expected.includes(DRAFT_ANCHOR_EVENT));
    assert.ok(!expected.includes(F.disabledEvent));
    assert.equal(expected.length, ref.events.filter((e) => e.mapId === F.map && e.status !== 'cancelled').length);
    await walkAndCheck([['map_id', F.map], ['from', new Date(RANGE_START).toISOString()], ['to', new Date(RANGE_END).toISOString()]],
      expected, () => 200);
    // Cancelled events too, with status=all: every visible event of the map.
    const every = ids(filterEvents(ref, { ...q, statuses: null }));
    assert.equal(every.length, ref.events.filter((e) => e.mapId === F.map).length);
    assert.ok(every.length > expected.length, 'the fixture cancels some events');
    await walkAndCheck([['map_id', F.map], ['from', new Date(RANGE_START).toISOString()], ['to', new Date(RANGE_END).toISOString()], ['status', 'all']],
      every, () => 200);
  });

  test('an event with no public anchor never matches a spatial filter', async () => {
    const all = [['map_id', F.map], ['from', '2027-03-01T12:00:00Z'], ['to', '2027-03-01T13:00:00Z']] as Params;
    const plain = await t.json<EventsPage>(`/events?${qs(all)}`);
    assert.ok(ids(plain.body.events).includes(DRAFT_ANCHOR_EVENT));
    const { body } = await t.json<EventsPage>(`/events?${qs([...all, ['bbox', '-180,-90,180,90']])}`);
    assert.ok(!ids(body.events).includes(DRAFT_ANCHOR_EVENT));
    const near = await t.json<EventsPage>(`/events?${qs([...all, ['near', '38.71,-9.11'], ['radius_m', '200000']])}`);
    assert.ok(!ids(near.body.events).includes(DRAFT_ANCHOR_EVENT));
  });

  test('a bbox crossing the antimeridian returns events on both sides of it', async () => {
    const b = { west: 179, south: -19, east: -179, north: -16 };
    const expected = filterEvents(ref, { mapId: F.pacific, fromMs: RANGE_START, toMs: RANGE_END, bbox: b });
    const east = expected.filter((e) => e.points.some(([lng]) => lng > 0 && lng >= 179));
    const west = expected.filter((e) => e.points.some(([lng]) => lng < 0 && lng <= -179));
    assert.ok(east.length > 0 && west.length > 0, 'the fixture has events on both sides');
    assert.ok(expected.length < filterEvents(ref, { mapId: F.pacific, fromMs: RANGE_START, toMs: RANGE_END }).length,
      'the box leaves some events out');
    await walkAndCheck([['map_id', F.pacific], ['from', new Date(RANGE_START).toISOString()], ['to', new Date(RANGE_END).toISOString()],
      ['bbox', '179,-19,-179,-16']], ids(expected), () => 37);
  });

  test('a bbox from 180 to -180 contains the markers lying exactly on the dateline', async () => {
    const expected = filterEvents(ref, { mapId: F.pacific, fromMs: RANGE_START, toMs: RANGE_END,
      bbox: { west: 180, south: -20, east: -180, north: -15 } });
    const onLine = ref.events.filter((e) => e.mapId === F.pacific && e.anchors.some((a) => a.id === PAC_180 || a.id === PAC_MINUS_180));
    assert.ok(onLine.length > 0, 'the fixture anchors events to the dateline markers');
    for (const e of onLine) assert.ok(ids(expected).includes(e.id));
    await walkAndCheck([['map_id', F.pacific], ['from', new Date(RANGE_START).toISOString()], ['to', new Date(RANGE_END).toISOString()],
      ['bbox', '180,-20,-180,-15']], ids(expected), () => 200);
  });

  test('a bbox whose edges pass exactly through a marker includes that marker, and one 1e-7 degrees away does not', async () => {
    const window: Params = [['map_id', F.map], ['from', new Date(RANGE_START).toISOString()], ['to', new Date(RANGE_END).toISOString()]];
    const anchored = ref.events.filter((e) => e.anchors.some((a) => a.id === EDGE_ROUND));
    assert.ok(anchored.length > 0, 'the fixture anchors events to the edge marker');
    for (const box of ['-9.2,38.75,-9.2,38.75', '-9.2,38.75,-9.1,38.8', '-9.3,38.7,-9.2,38.75']) {
      const [west, south, east, north] = box.split(',').map(Number);
      const expected = ids(filterEvents(ref, { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END, bbox: { west, south, east, north } }));
      for (const e of anchored) assert.ok(expected.includes(e.id));
      await walkAndCheck([...window, ['bbox', box]], expected, () => 200);
    }
    let dropped = 0;
    for (const box of ['-9.3,38.7,-9.2000001,38.75', '-9.2,38.7500001,-9.1,38.8']) {
      const [west, south, east, north] = box.split(',').map(Number);
      const expected = ids(filterEvents(ref, { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END, bbox: { west, south, east, north } }));
      const got = await walkAndCheck([...window, ['bbox', box]], expected, () => 200);
      // Events whose only in-box point was the edge marker disappear; others may still match through another anchor.
      dropped += anchored.filter((e) => !got.includes(e.id)).length;
    }
    assert.ok(dropped > 0, 'moving an edge by 1e-7 degrees drops some event anchored to the edge marker');
  });

  test('bbox and near close to the poles find the events anchored near those poles', async () => {
    const window: Params = [['map_id', F.map], ['from', new Date(RANGE_START).toISOString()], ['to', new Date(RANGE_END).toISOString()]];
    const cases: [Params, RefEventQuery, string][] = [
      [[['bbox', '-180,89.9,180,90']], { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END, bbox: { west: -180, south: 89.9, east: 180, north: 90 } }, EDGE_NORTH],
      [[['bbox', '170,-90,-160,-89.9']], { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END, bbox: { west: 170, south: -90, east: -160, north: -89.9 } }, EDGE_SOUTH],
      [[['near', '90,0'], ['radius_m', '2000']], { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END, near: { lat: 90, lng: 0, radiusM: 2000 } }, EDGE_NORTH],
      // Across the pole: 89.99,-170 is the same point as the marker seen from the other side of the pole.
      [[['near', '-89.995,10']], { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END, near: { lat: -89.995, lng: 10, radiusM: 10_000 } }, EDGE_SOUTH],
    ];
    for (const [extra, q, marker] of cases) {
      const expected = filterEvents(ref, q);
      const anchored = ref.events.filter((e) => e.mapId === F.map && e.status !== 'cancelled' && e.anchors.some((a) => a.id === marker));
      assert.ok(anchored.length > 0, `the fixture anchors events to ${marker}`);
      for (const e of anchored) assert.ok(ids(expected).includes(e.id));
      await walkAndCheck([...window, ...extra], ids(expected), () => 50);
    }
  });

  test('near a point by the antimeridian finds events on the far side of the dateline', async () => {
    const q = { mapId: F.pacific, fromMs: RANGE_START, toMs: RANGE_END, near: { lat: -17.5, lng: 179.99, radiusM: 60_000 } };
    const expected = filterEvents(ref, q);
    assert.ok(expected.some((e) => e.points.some(([lng]) => lng < 0)), 'some matches lie west of the dateline');
    await walkAndCheck([['map_id', F.pacific], ['from', new Date(RANGE_START).toISOString()], ['to', new Date(RANGE_END).toISOString()],
      ['near', '-17.5,179.99'], ['radius_m', '60000']], ids(expected), () => 200);
  });
});

test('pages asked many at once are each byte for byte the page asked alone (the memory of sent pages is used again)', async () => {
  // Distinct windows, so no answer comes from the cache while they are asked together; together they fill many
  // of the blocks pages are written into (ByteWriter), which the adapter on Node writes over once a page is sent
  // (on Bun and Deno nothing is written over: the same pages must come back all the same).
  const r = randomTools(0xb10c);
  const targets = Array.from({ length: 400 }, (_, n) => {
    const from = new Date(RANGE_START + n * DAY + r.int(0, DAY / 1000) * 1000).toISOString();
    return `/events?${qs([['map_id', F.map], ['from', from], ['to', new Date(Date.parse(from) + 400 * DAY).toISOString()], ['limit', String(r.int(20, 60))]])}`;
  });
  // Some asked compressed (the page is compressed, then given back), some with HEAD (no body sent at all).
  const together = new Map<string, string>();
  let gzipped = 0;
  for (let at = 0; at < targets.length; at += 64) {
    await Promise.all(targets.slice(at, at + 64).map(async (target, k) => {
      const way = (at + k) % 5;
      if (way === 4) {
        const head = await t.get(target, { method: 'HEAD' });
        assert.equal(head.status, 200);
        return;
      }
      const res = await t.get(target, way === 3 ? { headers: { 'accept-encoding': 'gzip' } } : {});
      assert.equal(res.status, 200);
      const bytes = Buffer.from(await res.arrayBuffer());
      if (res.headers.get('content-encoding') === 'gzip') gzipped++;
      together.set(target, (res.headers.get('content-encoding') === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8'));
    }));
  }
  let bytes = 0;
  for (const target of targets) {
    const alone = await (await t.get(target)).text();
    if (together.has(target)) assert.equal(together.get(target), alone, target);
    assert.ok((JSON.parse(alone) as { events: unknown[] }).events.length > 0, `${target} lists events`);
    bytes += alone.length;
  }
  assert.ok(bytes > 4 * 512 * 1024, `the pages filled several blocks (${bytes} bytes)`);
  assert.ok(gzipped >= 60, `${gzipped} pages were sent compressed`);
});

describe('GET /events cursors', () => {
  const base: Params = [['map_id', F.map], ['from', '2027-01-01T00:00:00Z'], ['to', '2027-12-31T00:00:00Z'], ['tags', 'free,art']];

  async function firstCursor(params: Params, limit = 3): Promise<string> {
    const { status, body } = await t.json<EventsPage>(`/events?${qs([...params, ['limit', String(limit)]])}`);
    assert.equal(status, 200);
    assert.ok(body.next_cursor, 'the first page has a next page');
    return body.next_cursor;
  }

  test('a cursor reused with different filters gets 400 naming cursor', async () => {
    const cursor = await firstCursor(base);
    const variants: Params[] = [
      [['map_id', F.map], ['from', '2027-01-01T00:00:00Z'], ['to', '2027-12-31T00:00:00Z'], ['tags', 'free']],
      [...base, ['bbox', '-180,-90,180,90']],
      [['map_id', F.map], ['from', '2027-01-02T00:00:00Z'], ['to', '2027-12-31T00:00:00Z'], ['tags', 'free,art']],
      [['map_id', F.map], ['from', '2027-01-01T00:00:00Z'], ['to', '2027-12-30T00:00:00Z'], ['tags', 'free,art']],
      [...base, ['event_types', 'concert']],
      [...base, ['near', '38.7,-9.1']],
      [['map_id', F.pacific], ['from', '2027-01-01T00:00:00Z'], ['to', '2027-12-31T00:00:00Z'], ['tags', 'free,art']],
    ];
    for (const params of variants) {
      const err = await expect400(`/events?${qs([...params, ['cursor', cursor]])}`, 'cursor');
      assert.equal(err.in, 'query');
    }
    const withBox = [...base, ['bbox', '-10,38,-9,39']] as Params;
    const boxCursor = await firstCursor(withBox);
    await expect400(`/events?${qs([...base, ['bbox', '-10,38,-9,39.5'], ['cursor', boxCursor]])}`, 'cursor');
    const nearCursor = await firstCursor([...base, ['near', '38.7,-9.1'], ['radius_m', '50000']]);
    await expect400(`/events?${qs([...base, ['near', '38.7,-9.1'], ['cursor', nearCursor]])}`, 'cursor');
  });

  test('the same filters written differently (case, spaces, order of repeats) keep the cursor valid', async () => {
    const cursor = await firstCursor(base);
    const { status, body } = await t.json<EventsPage>(
      `/events?${qs([['map_id', F.map.toUpperCase()], ['from', '2027-01-01T01:00:00+01:00'], ['to', '2027-12-31T01:00:00+01:00'], ['tags', ' FREE , art,free'], ['cursor', cursor]])}`);
    assert.equal(status, 200, JSON.stringify(body));
    const expected = ids(filterEvents(ref, { mapId: F.map, fromMs: Date.parse('2027-01-01T00:00:00Z'), toMs: Date.parse('2027-12-31T00:00:00Z'), tags: ['free', 'art'] }));
    assert.deepEqual(ids(body.events), expected.slice(3, 3 + 50));
  });

  test('the same tags and event types listed in another order keep the cursor valid', async () => {
    const params: Params = [...base, ['event_types', 'concert,market,tour']];
    const cursor = await firstCursor(params, 1);
    const reordered: Params = [['map_id', F.map], ['from', '2027-01-01T00:00:00Z'], ['to', '2027-12-31T00:00:00Z'],
      ['tags', 'art,free'], ['event_types', 'tour,concert,market'], ['cursor', cursor]];
    const { status, body } = await t.json<EventsPage>(`/events?${qs(reordered)}`);
    assert.equal(status, 200, JSON.stringify(body));
    const expected = ids(filterEvents(ref, { mapId: F.map, fromMs: Date.parse('2027-01-01T00:00:00Z'),
      toMs: Date.parse('2027-12-31T00:00:00Z'), tags: ['free', 'art'], types: ['concert', 'market', 'tour'] }));
    assert.deepEqual(ids(body.events), expected.slice(1, 1 + 50));
  });

  test('a cursor edited by hand (position or window) gets 400 naming cursor', async () => {
    const cursor = await firstCursor(base);
    const state = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const edits = [{ ...state, i: uuidFor('some-other-event') }, { ...state, s: state.s + 1 }, { ...state, extra: 1 },
      { ...state, i: 'zzz' }, { ...state, f: state.f - 1 }];
    for (const edited of edits) {
      await expect400(`/events?${qs([...base, ['cursor', Buffer.from(JSON.stringify(edited)).toString('base64url')]])}`, 'cursor');
    }
    // Edits of the window with the window left to the cursor are refused too.
    const defaulted: Params = [['map_id', F.map], ['tags', 'free,art']];
    const c2 = JSON.parse(Buffer.from(await firstCursor(defaulted), 'base64url').toString());
    await expect400(`/events?${qs([...defaulted, ['cursor', Buffer.from(JSON.stringify({ ...c2, t: c2.t + 1 })).toString('base64url')]])}`, 'cursor');
  });

  test('an empty event_types or tags value is the same as leaving it out', async () => {
    const window: Params = [['map_id', F.map], ['from', '2027-01-01T00:00:00Z'], ['to', '2027-06-30T00:00:00Z']];
    const all = (await t.json<EventsPage>(`/events?${qs(window)}`)).body.total;
    assert.ok(all > 0);
    for (const extra of [[['tags', '']], [['event_types', ',']], [['tags', ' , ']], [['event_types', ''], ['tags', '']]] as Params[]) {
      const { status, body } = await t.json<EventsPage>(`/events?${qs([...window, ...extra])}`);
      assert.equal(status, 200);
      assert.equal(body.total, all, JSON.stringify(extra));
    }
  });

  test('tags_match=all keeps only events with every tag; any (the default) those with one of them; cursors bind to it', async () => {
    const window: Params = [['map_id', F.map], ['from', '2027-01-01T00:00:00Z'], ['to', '2027-12-31T00:00:00Z']];
    const range = { mapId: F.map, fromMs: Date.parse('2027-01-01T00:00:00Z'), toMs: Date.parse('2027-12-31T00:00:00Z') };
    // Pairs of tags that some event has together, and one pair no event has.
    const pairs = [...new Set(ref.events.filter((e) => e.mapId === F.map && e.tags.length > 1).map((e) => e.tags.slice(0, 2).join(',')))].slice(0, 3);
    assert.ok(pairs.length > 0);
    for (const pair of [...pairs, 'free,no-such-tag']) {
      const tags = pair.split(',');
      const all = ids(filterEvents(ref, { ...range, tags, tagsMatch: 'all' }));
      const any = ids(filterEvents(ref, { ...range, tags }));
      assert.ok(all.length < any.length, `${pair}: all (${all.length}) narrows any (${any.length})`);
      await walkAndCheck([...window, ['tags', pair.toUpperCase()], ['tags_match', 'all']], all, () => 7);
      await walkAndCheck([...window, ['tags', pair], ['tags_match', 'any']], any, () => 50);
      await walkAndCheck([...window, ['tags', pair]], any, () => 50);
    }
    const [pair] = pairs;
    const cursor = await firstCursor([...window, ['tags', pair], ['tags_match', 'all']], 1);
    await expect400(`/events?${qs([...window, ['tags', pair], ['cursor', cursor]])}`, 'cursor');
    // With one tag, all and any are the same question.
    const one = (await t.json<EventsPage>(`/events?${qs([...window, ['tags', 'free'], ['tags_match', 'all']])}`)).body;
    assert.equal(one.total, filterEvents(ref, { ...range, tags: ['free'] }).length);
    await expect400(`/events?${qs([...window, ['tags_match', 'all']])}`, 'tags_match');
    await expect400(`/events?${qs([...window, ['tags', 'free'], ['tags_match', 'both']])}`, 'tags_match');
  });

  test('a malformed cursor gets 400 naming cursor', async () => {
    const good = await firstCursor(base);
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    const bad = [
      'garbage!!', 'not a cursor', '', good.slice(0, good.length - 5), good.slice(0, 10), `${good}$`,
      b64('not json at all'), b64('{"k":"abc"'), b64('[1,2,3]'), b64('null'), b64('{"k":1,"s":1,"i":"x","f":1,"t":2}'),
      b64('{"k":"x","s":"soon","i":"x","f":1,"t":2}'), 'x'.repeat(3000),
    ];
    for (const c of bad) {
      const err = await expect400(`/events?${qs([...base, ['cursor', c]])}`, 'cursor');
      assert.equal(err.in, 'query');
    }
  });

  test('changing limit between pages is allowed and continues where the previous page ended', async () => {
    const expected = ids(filterEvents(ref, { mapId: F.map, fromMs: Date.parse('2027-01-01T00:00:00Z'), toMs: Date.parse('2027-12-31T00:00:00Z'), tags: ['free', 'art'] }));
    assert.ok(expected.length > 20);
    const limits = [1, 7, 2, 200];
    await walkAndCheck(base, expected, (page) => limits[Math.min(page, limits.length - 1)]);
  });

  test('a defaulted window is carried by the cursor, so page 2 continues page 1 even after "now" has moved', async () => {
    const fixedWindow = ids(filterEvents(ref, { mapId: F.map, fromMs: NOW, toMs: NOW + WINDOW_30D }));
    const movedWindow = ids(filterEvents(ref, { mapId: F.map, fromMs: NOW + 12 * DAY, toMs: NOW + 42 * DAY }));
    assert.ok(fixedWindow.length > 8);
    assert.notDeepEqual(fixedWindow, movedWindow, 'the clock move changes the answer');
    const page1 = await t.json<EventsPage>(`/events?map_id=${F.map}&limit=4`);
    assert.deepEqual(ids(page1.body.events), fixedWindow.slice(0, 4));
    // The same content served with a clock 12 days later.
    const later = await openTarget(bundle, { now: new Date(NOW + 12 * DAY) });
    try {
      const res = await later.get(`/events?map_id=${F.map}&limit=200&cursor=${page1.body.next_cursor}`);
      assert.equal(res.status, 200);
      const page2 = (await res.json()) as EventsPage;
      assert.deepEqual(ids(page2.events), fixedWindow.slice(4));
      assert.equal(page2.total, fixedWindow.length);
      assert.equal(page2.next_cursor, null);
      // Without a cursor the later clock does use its own window.
      const fresh = (await later.json<EventsPage>(`/events?map_id=${F.map}&limit=200`)).body;
      assert.deepEqual(ids(fresh.events), movedWindow);
    } finally {
      await later.close();
    }
  });
});

describe('GET /events limits and defaults', () => {
  const wide: Params = [['map_id', F.map], ['from', new Date(RANGE_START).toISOString()], ['to', new Date(RANGE_END).toISOString()]];

  test('limit defaults to 50, and 1 and 200 are accepted', async () => {
    const expected = ids(filterEvents(ref, { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END }));
    assert.ok(expected.length > 200);
    const dflt = await t.json<EventsPage>(`/events?${qs(wide)}`);
    assert.deepEqual(ids(dflt.body.events), expected.slice(0, 50));
    for (const limit of [1, 200]) {
      const { status, body } = await t.json<EventsPage>(`/events?${qs([...wide, ['limit', String(limit)]])}`);
      assert.equal(status, 200);
      assert.deepEqual(ids(body.events), expected.slice(0, limit));
      assert.equal(body.total, expected.length);
    }
  });

  test('limit outside 1..200 or not a base-10 integer gets 400 naming limit and stating the range', async () => {
    for (const bad of ['0', '201', '1.5', 'abc', '-1', '', '1e2', '0x10']) {
      const err = await expect400(`/events?${qs([...wide, ['limit', bad]])}`, 'limit');
      assert.match(err.reason, /1 to 200/);
    }
  });

  test('radius_m accepts 1 and 200000, rejects 0 and 200001, and requires near', async () => {
    for (const radius of ['1', '200000']) {
      const { status } = await t.json(`/events?${qs([...wide, ['near', '38.7,-9.1'], ['radius_m', radius]])}`);
      assert.equal(status, 200);
    }
    for (const bad of ['0', '200001', '2.5', 'far']) {
      const err = await expect400(`/events?${qs([...wide, ['near', '38.7,-9.1'], ['radius_m', bad]])}`, 'radius_m');
      assert.match(err.reason, /1 to 200000/);
    }
    await expect400(`/events?${qs([...wide, ['radius_m', '500']])}`, 'radius_m');
  });

  test('near without radius_m uses 10000 m', async () => {
    const [lng, lat] = ref.pois.get(EDGE_ROUND)!.points[0];
    const q = { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END, near: { lat, lng, radiusM: 10_000 } };
    const expected = ids(filterEvents(ref, q));
    const smaller = ids(filterEvents(ref, { ...q, near: { ...q.near, radiusM: 3_000 } }));
    const larger = ids(filterEvents(ref, { ...q, near: { ...q.near, radiusM: 30_000 } }));
    assert.ok(smaller.length < expected.length || expected.length < larger.length, 'the default radius is distinguishable');
    await walkAndCheck([...wide, ['near', `${lat},${lng}`]], expected, () => 200);
  });

  test('to defaults to 30 days after from: an event starting exactly then is in, one second later is out', async () => {
    const e = ref.events.find((x) => x.mapId === F.map && x.startMs > NOW + 60 * DAY && x.startMs - x.endMs === 0) ??
      ref.events.find((x) => x.mapId === F.map && x.startMs > NOW + 60 * DAY)!;
    const inFrom = e.startMs - WINDOW_30D;
    const outFrom = inFrom - 1000;
    const walk = async (fromMs: number) => {
      const expected = ids(filterEvents(ref, { mapId: F.map, fromMs, toMs: fromMs + WINDOW_30D }));
      return walkAndCheck([['map_id', F.map], ['from', new Date(fromMs).toISOString()]], expected, () => 200);
    };
    assert.ok((await walk(inFrom)).includes(e.id));
    assert.ok(!(await walk(outFrom)).includes(e.id));
  });

  test('with no window the default is [now, now + 30 days], which includes an event starting exactly now', async () => {
    const expected = ids(filterEvents(ref, { mapId: F.map, fromMs: NOW, toMs: NOW + WINDOW_30D }));
    assert.ok(expected.includes(DRAFT_ANCHOR_EVENT));
    await walkAndCheck([['map_id', F.map]], expected, () => 10);
  });

  test('from later than to gets 400, including a to earlier than the default from', async () => {
    const { status, body } = await t.json<Problem>(`/events?${qs([['map_id', F.map], ['from', '2027-05-02T00:00:00Z'], ['to', '2027-05-01T00:00:00Z']])}`);
    assert.equal(status, 400);
    assert.ok(body.errors?.some((e) => e.name === 'to' || e.name === 'from'), JSON.stringify(body));
    const early = await t.json<Problem>(`/events?${qs([['map_id', F.map], ['to', '2027-02-01T00:00:00Z']])}`);
    assert.equal(early.status, 400);
    assert.ok(early.body.errors?.some((e) => e.name === 'to' || e.name === 'from'), JSON.stringify(early.body));
  });

  test('a local time without an offset gets 400 naming the parameter', async () => {
    await expect400(`/events?${qs([['map_id', F.map], ['from', '2027-03-01T12:00:00']])}`, 'from');
    await expect400(`/events?${qs([['map_id', F.map], ['from', '2027-03-01T00:00:00Z'], ['to', '2027-03-05T12:00']])}`, 'to');
    for (const bad of ['tomorrow', '2027-02-30', '2027-13-01T00:00:00Z', '2027-03-01T25:00:00Z', '1709294400']) {
      await expect400(`/events?${qs([['map_id', F.map], ['from', bad]])}`, 'from');
    }
  });

  test('a date alone means 00:00 UTC that day', async () => {
    const fromMs = Date.UTC(2027, 4, 10);
    const expected = ids(filterEvents(ref, { mapId: F.map, fromMs, toMs: fromMs + WINDOW_30D }));
    const dateOnly = await walkAndCheck([['map_id', F.map], ['from', '2027-05-10']], expected, () => 200);
    const explicit = await walkAndCheck([['map_id', F.map], ['from', '2027-05-10T00:00:00Z']], expected, () => 200);
    assert.deepEqual(dateOnly, explicit);
    // The boundary matters: an event is in when from is the UTC date it ends on, and out from the next date on,
    // which a local-time or end-of-day reading of the date would get wrong for events ending early or late in the day.
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const probes = ref.events.filter((e) => e.mapId === F.map && e.endMs > NOW && e.status !== 'cancelled').slice(0, 40);
    for (const e of probes) {
      const endDay = Math.floor(e.endMs / DAY) * DAY;
      const onDay = await t.json<EventsPage>(`/events?${qs([['map_id', F.map], ['from', day(endDay)], ['limit', '200']])}`);
      assert.ok(ids(onDay.body.events).includes(e.id), `${e.id} ends ${new Date(e.endMs).toISOString()}, from ${day(endDay)}`);
      const next = await t.json<EventsPage>(`/events?${qs([['map_id', F.map], ['from', day(endDay + DAY)], ['limit', '200']])}`);
      assert.ok(!ids(next.body.events).includes(e.id), `${e.id} ends ${new Date(e.endMs).toISOString()}, from ${day(endDay + DAY)}`);
    }
  });

  test('a date alone in to means the end of that day, so from=D&to=D is the whole of day D', async () => {
    const dayMs = Date.UTC(2027, 4, 10);
    const whole = ids(filterEvents(ref, { mapId: F.map, fromMs: dayMs, toMs: dayMs + DAY - 1 }));
    assert.ok(whole.length > 0, 'the fixture has events on the day');
    const sameDay = await walkAndCheck([['map_id', F.map], ['from', '2027-05-10'], ['to', '2027-05-10']], whole, () => 200);
    const explicit = await walkAndCheck([['map_id', F.map], ['from', '2027-05-10T00:00:00Z'], ['to', '2027-05-10T23:59:59.999Z']], whole, () => 200);
    assert.deepEqual(sameDay, explicit);
    // Events starting late in the day are in; 00:00 the next day is not.
    const late = ref.events.filter((e) => e.mapId === F.map && e.startMs > dayMs + 12 * 3600_000 && e.startMs < dayMs + DAY);
    for (const e of late) assert.ok(whole.includes(e.id), `${e.id} starts ${new Date(e.startMs).toISOString()}`);
    const nextMidnight = ids(filterEvents(ref, { mapId: F.map, fromMs: dayMs, toMs: dayMs + DAY }));
    const startingAtMidnight = nextMidnight.filter((id) => !whole.includes(id));
    for (const id of startingAtMidnight) assert.equal(ref.events.find((e) => e.id === id)!.startMs, dayMs + DAY);
    // upcoming-by-poi reads to the same way.
    const poi = ref.events.find((e) => e.mapId === F.map && e.anchors.length > 0 && e.startMs > dayMs + 12 * 3600_000 && e.startMs < dayMs + DAY);
    assert.ok(poi, 'the fixture has an anchored event late on the day');
    const { body } = await t.json<Record<string, { id: string }[]>>(`/events/upcoming-by-poi?poi_ids=${poi.anchors[0].id}&from=2027-05-10&to=2027-05-10&limit_per_poi=20`);
    assert.ok(body[poi.anchors[0].id].some((x) => x.id === poi.id), 'an event late on the day is upcoming by the day');
  });

  test('an offset such as +01:00 is accepted, encoded or as the unencoded plus that arrives as a space', async () => {
    const fromMs = Date.parse('2027-04-10T12:00:00Z');
    const expected = ids(filterEvents(ref, { mapId: F.map, fromMs, toMs: fromMs + WINDOW_30D }));
    await walkAndCheck([['map_id', F.map], ['from', '2027-04-10T13:00:00+01:00']], expected, () => 200);
    const raw = await t.json<EventsPage>(`/events?map_id=${F.map}&from=2027-04-10T13:00:00+01:00&limit=200`);
    assert.equal(raw.status, 200, JSON.stringify(raw.body));
    assert.deepEqual(ids(raw.body.events), expected.slice(0, 200));
    const minus = await t.json<EventsPage>(`/events?map_id=${F.map}&from=2027-04-10T06:30:00-05:30&limit=200`);
    assert.equal(minus.status, 200);
    assert.deepEqual(ids(minus.body.events), expected.slice(0, 200));
  });

  test('a malformed, out-of-range or upside-down bbox gets 400 naming bbox', async () => {
    for (const bad of ['a,b,c,d', '1,2,3', '1,2,3,4,5', '-181,0,0,10', '0,0,181,10', '0,-91,10,0', '0,0,10,91', '0,10,10,5', '', ',,,']) {
      await expect400(`/events?${qs([...wide, ['bbox', bad]])}`, 'bbox');
    }
  });

  test('near with longitude first (out of range as a latitude) or out of range gets 400 naming near', async () => {
    for (const bad of ['-170.5,38.7', '91,0', '-91,0', '38.7,-180.5', '38.7,181', '38.7', 'here', '38.7,-9.1,3']) {
      await expect400(`/events?${qs([...wide, ['near', bad]])}`, 'near');
    }
  });

  test('a 400 names every bad parameter at once', async () => {
    const { status, body } = await t.json<Problem>(`/events?${qs([['map_id', 'nope'], ['limit', '0'], ['bbox', '1,2,3'], ['near', '99,0'], ['from', 'soon']])}`);
    assert.equal(status, 400);
    const names = new Set(body.errors?.map((e) => e.name));
    for (const n of ['map_id', 'limit', 'bbox', 'near', 'from']) assert.ok(names.has(n), `${n} in ${JSON.stringify(body.errors)}`);
  });

  test('every 400 about bbox or near gives both coordinate orders, and says when a point looks swapped', async () => {
    const both = /bbox is west,south,east,north \(longitude first\)/;
    const nearFirst = /near is lat,lng \(latitude first\)/;
    const reasons = async (params: Params) => {
      const { status, body } = await t.json<Problem>(`/events?${qs([['map_id', F.map], ...params])}`);
      assert.equal(status, 400, JSON.stringify(body));
      return body.errors!.map((e) => `${e.name}: ${e.reason}`);
    };
    for (const bad of ['1,2,3', '-10,38,-9', 'a,b,c,d', '-200,38,-9,39', '-10,95,-9,96', '-10,39,-9,38']) {
      const [reason] = await reasons([['bbox', bad]]);
      assert.match(reason, both, bad);
      assert.match(reason, nearFirst, bad);
    }
    for (const bad of ['38.7', '38.7,-9.1,0', '91,0', '0,181']) {
      const [reason] = await reasons([['near', bad]]);
      assert.match(reason, both, bad);
      assert.match(reason, nearFirst, bad);
    }
    // [lng, lat] sent as near: the "latitude" is out of range and the "longitude" would be a latitude.
    assert.match((await reasons([['near', '-122.4,37.8']]))[0], /Were latitude and longitude swapped\?/);
    assert.doesNotMatch((await reasons([['near', '100,120']]))[0], /swapped/);
    // A box written south,west,north,east, its latitudes out of range where longitudes go.
    assert.match((await reasons([['bbox', '37.7,-122.5,37.8,-122.3']]))[0], /Were latitude and longitude swapped\?/);
  });

  test('map_id is required, must be a UUID, and names an enabled map', async () => {
    await expect400('/events', 'map_id');
    await expect400('/events?map_id=123', 'map_id');
    for (const id of [uuidFor('map:nowhere'), F.disabled, F.disabled.toUpperCase()]) {
      const { status, body, res } = await t.json<Problem>(`/events?map_id=${id}`);
      assert.equal(status, 404, JSON.stringify(body));
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    }
  });

  test('a repeated limit gets 400 naming limit', async () => {
    await expect400(`/events?map_id=${F.map}&limit=1&limit=2`, 'limit');
  });
});

describe('event status', () => {
  const wide: Params = [['map_id', F.map], ['from', new Date(RANGE_START).toISOString()], ['to', new Date(RANGE_END).toISOString()]];
  const q = { mapId: F.map, fromMs: RANGE_START, toMs: RANGE_END };

  test('the lists leave cancelled events out unless status asks for them; status takes a list or all, as brute force says', async () => {
    const cases: [string | null, readonly string[] | null | undefined][] = [
      [null, undefined], ['', undefined], ['all', null], ['cancelled', ['cancelled']], [' Postponed, rescheduled ,', ['postponed', 'rescheduled']],
      ['scheduled,scheduled', ['scheduled']], ['moved_online', ['moved_online']], ['ALL', null],
    ];
    for (const [value, statuses] of cases) {
      const expected = ids(filterEvents(ref, { ...q, statuses }));
      const got = await walkAndCheck(value === null ? wide : [...wide, ['status', value]], expected, () => 200);
      if (value === 'cancelled') assert.ok(got.length > 0, 'the fixture cancels some events');
    }
    // Every event is in exactly one status: the lists of each add up to all of them.
    const all = filterEvents(ref, { ...q, statuses: null }).length;
    const each = EVENT_STATUSES.map((s) => filterEvents(ref, { ...q, statuses: [s] }).length);
    assert.equal(each.reduce((a, b) => a + b, 0), all);
  });

  test('a record says its status, and a rescheduled or postponed one the start it had before', async () => {
    const { body } = await t.json<EventsPage>(`/events?${qs([...wide, ['status', 'postponed,rescheduled'], ['limit', '200']])}`);
    assert.ok(body.events.length > 0);
    for (const e of body.events) {
      const doc = bundle.events.find((d) => d.id === e.id)!;
      assert.equal(e.status, doc.status);
      assert.equal(Date.parse(e.previous_start as string), Date.parse(doc.previous_start!));
    }
  });

  test('a status the service does not know gets 400 naming status, the value and the statuses it takes', async () => {
    for (const [bad, said] of [['canceled', /"canceled" is not one of scheduled, cancelled, postponed, rescheduled, moved_online/],
      ['all,cancelled', /all stands alone/], ['live,gone', /"live", "gone" are not one of/]] as const) {
      const { status, body } = await t.json<Problem>(`/events?${qs([...wide, ['status', bad]])}`);
      assert.equal(status, 400, bad);
      const reason = body.errors?.find((e) => e.name === 'status')?.reason ?? '';
      assert.match(reason, said, bad);
    }
    await expect400(`/events/upcoming-by-poi?poi_ids=${F.disabledMarker}&status=over`, 'status');
  });

  test('a cursor is bound to the statuses it was made with', async () => {
    const page = await t.json<EventsPage>(`/events?${qs([...wide, ['status', 'all'], ['limit', '5']])}`);
    assert.ok(page.body.next_cursor);
    await expect400(`/events?${qs([...wide, ['limit', '5'], ['cursor', page.body.next_cursor!]])}`, 'cursor');
    const same = await t.json<EventsPage>(`/events?${qs([...wide, ['status', 'ALL'], ['limit', '5'], ['cursor', page.body.next_cursor!]])}`);
    assert.equal(same.status, 200);
  });

  test('upcoming-by-poi leaves cancelled events out unless status asks for them', async () => {
    const cancelled = ref.events.find((e) => e.status === 'cancelled' && e.anchors.length > 0 && e.endMs >= NOW)!;
    const poi = cancelled.anchors[0].id;
    for (const [value, statuses] of [[null, undefined], ['all', null], ['cancelled', ['cancelled']]] as const) {
      const { status, body } = await t.json<Record<string, { id: string }[]>>(
        `/events/upcoming-by-poi?poi_ids=${poi}&limit_per_poi=20${value ? `&status=${value}` : ''}`);
      assert.equal(status, 200);
      assert.deepEqual(ids(body[poi]), ids(upcomingForPoi(ref, poi, NOW, null, 20, statuses)), String(value));
      assert.equal(ids(body[poi]).includes(cancelled.id), value !== null, String(value));
    }
  });
});

describe('GET /events/upcoming-by-poi', () => {
  interface Upcoming { [poiId: string]: { id: string; [k: string]: unknown }[] }

  test('random batches match brute force: keys in request order, per-POI upcoming events, limits', async () => {
    const r = randomTools(0xb00c);
    const publicIds = [...ref.pois.keys()];
    const unknown = Array.from({ length: 5 }, (_, i) => uuidFor(`poi:unknown:${i}`));
    const special = [F.draftMarker, F.disabledMarker, F.v1OnlyMarker, EDGE_NORTH, PAC_180];
    let nonEmpty = 0;
    let clipped = 0;
    for (let n = 0; n < 150; n++) {
      const count = r.int(1, 12);
      const requested: string[] = [];
      for (let k = 0; k < count; k++) {
        const kind = r.rand();
        const id = kind < 0.6 ? r.pick(publicIds) : kind < 0.75 ? r.pick(unknown) : kind < 0.9 ? r.pick(special)
          : requested.length ? r.pick(requested) : r.pick(publicIds);
        requested.push(r.chance(0.25) ? id.toUpperCase() : id);
      }
      const params: Params = [['poi_ids', requested.map(r.pad).join(r.chance(0.15) ? ',,' : ',')]];
      let fromMs = NOW;
      let toMs: number | null = null;
      if (r.chance(0.6)) {
        fromMs = RANGE_START + Math.floor(r.rand() * (RANGE_END - RANGE_START));
        params.push(['from', formatAt(fromMs, r.pick([0, 60, -240]))]);
      }
      if (r.chance(0.5)) {
        toMs = fromMs + Math.floor(r.rand() * r.pick([DAY, 30 * DAY, 400 * DAY]));
        params.push(['to', new Date(toMs).toISOString()]);
      }
      let limit = 5;
      if (r.chance(0.6)) {
        limit = r.int(1, 20);
        params.push(['limit_per_poi', String(limit)]);
      }
      const { status, body } = await t.json<Upcoming>(`/events/upcoming-by-poi?${qs(params)}`);
      assert.equal(status, 200, `${qs(params)}: ${JSON.stringify(body)}`);
      assertDeclared(upcomingByPoi.response, body, qs(params));
      const keys = [...new Set(requested.map((x) => x.toLowerCase()))];
      assert.deepEqual(Object.keys(body), keys, `${qs(params)}: keys`);
      for (const id of keys) {
        const expected = upcomingForPoi(ref, id, fromMs, toMs, limit);
        assert.deepEqual(ids(body[id]), ids(expected), `${qs(params)}: ${id}`);
        if (expected.length > 0) nonEmpty++;
        if (upcomingForPoi(ref, id, fromMs, toMs, 1000).length > limit) clipped++;
      }
    }
    assert.ok(nonEmpty > 200 && clipped > 20, `inputs too weak: nonEmpty=${nonEmpty} clipped=${clipped}`);
  });

  test('unknown, draft-only and disabled-map POIs map to empty arrays, not errors', async () => {
    const unknown = uuidFor('poi:unknown:x');
    const { status, body } = await t.json<Upcoming>(
      `/events/upcoming-by-poi?poi_ids=${[unknown, F.draftMarker, F.disabledMarker].join(',')}&from=2026-01-01T00:00:00Z`);
    assert.equal(status, 200);
    assert.deepEqual(body, { [unknown]: [], [F.draftMarker]: [], [F.disabledMarker]: [] });
    // The raw bundle does anchor events to the draft and disabled markers, so emptiness is the visibility rule at work.
    assert.ok(bundle.events.some((e) => e.poi_ids.includes(F.draftMarker)));
    assert.ok(bundle.events.some((e) => e.poi_ids.includes(F.disabledMarker)));
  });

  test('uppercase ids are accepted and emitted lowercase, with repeats collapsed', async () => {
    const id = [...ref.pois.keys()].find((p) => upcomingForPoi(ref, p, NOW, null, 5).length > 0)!;
    const { status, body } = await t.json<Upcoming>(`/events/upcoming-by-poi?poi_ids=${id.toUpperCase()}, ${id} ,${id.toUpperCase()}`);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body), [id]);
    assert.deepEqual(ids(body[id]), ids(upcomingForPoi(ref, id, NOW, null, 5)));
  });

  test('an event that has not ended by from counts as upcoming even if it started earlier', async () => {
    const mid = (e: { startMs: number; endMs: number }) => e.startMs + Math.floor((e.endMs - e.startMs) / 2);
    const candidates = ref.events.filter((x) => x.anchors.length > 0 && x.endMs - x.startMs >= 7 * DAY &&
      upcomingForPoi(ref, x.anchors[0].id, mid(x), null, 20).some((y) => y.id === x.id) &&
      upcomingForPoi(ref, x.anchors[0].id, x.endMs, null, 20).some((y) => y.id === x.id));
    assert.ok(candidates.length > 0, 'the fixture has a long event that is among its POI\'s first 20 upcoming');
    for (const e of candidates.slice(0, 10)) {
      const poi = e.anchors[0].id;
      const at = (fromMs: number) => t.json<Upcoming>(`/events/upcoming-by-poi?poi_ids=${poi}&from=${new Date(fromMs).toISOString()}&limit_per_poi=20`);
      assert.ok(ids((await at(mid(e))).body[poi]).includes(e.id), 'started before from, still running');
      assert.ok(ids((await at(e.endMs)).body[poi]).includes(e.id), 'ends exactly at from');
      assert.ok(!ids((await at(e.endMs + 1000)).body[poi]).includes(e.id), 'ended a second before from');
    }
  });

  test('limit_per_poi is 1 to 20 (default 5); 0, 21 and non-integers get 400 naming it', async () => {
    const counts = [...ref.pois.keys()].map((p) => [p, upcomingForPoi(ref, p, RANGE_START, null, 1000).length] as const);
    const [poi, most] = counts.reduce((a, b) => (b[1] > a[1] ? b : a));
    assert.ok(most > 5, 'a POI with more than 5 events');
    for (const [limit, n] of [[undefined, 5], ['1', 1], ['20', Math.min(20, most)]] as const) {
      const { status, body } = await t.json<Upcoming>(`/events/upcoming-by-poi?poi_ids=${poi}&from=2026-01-01${limit ? `&limit_per_poi=${limit}` : ''}`);
      assert.equal(status, 200);
      assert.equal(body[poi].length, n);
    }
    for (const bad of ['0', '21', '2.5', 'many']) {
      const err = await expect400(`/events/upcoming-by-poi?poi_ids=${poi}&limit_per_poi=${bad}`, 'limit_per_poi');
      assert.match(err.reason, /1 to 20/);
    }
  });

  test('poi_ids is required, takes at most 100 ids, and every item must be a UUID', async () => {
    await expect400('/events/upcoming-by-poi', 'poi_ids');
    await expect400('/events/upcoming-by-poi?poi_ids=', 'poi_ids');
    const hundred = Array.from({ length: 100 }, (_, i) => uuidFor(`poi:many:${i}`));
    const ok = await t.json<Upcoming>(`/events/upcoming-by-poi?poi_ids=${hundred.join(',')}`);
    assert.equal(ok.status, 200);
    assert.deepEqual(Object.keys(ok.body), hundred);
    await expect400(`/events/upcoming-by-poi?poi_ids=${[...hundred, uuidFor('poi:many:100')].join(',')}`, 'poi_ids');
    await expect400(`/events/upcoming-by-poi?poi_ids=${F.v1OnlyMarker},not-a-uuid`, 'poi_ids');
    await expect400(`/events/upcoming-by-poi?poi_ids=${F.v1OnlyMarker.replace(/-/g, '')}`, 'poi_ids');
  });

  test('from later than to gets 400, and local times without offset get 400', async () => {
    const poi = F.v1OnlyMarker;
    const { status } = await t.json(`/events/upcoming-by-poi?poi_ids=${poi}&from=2027-05-02T00:00:00Z&to=2027-05-01T00:00:00Z`);
    assert.equal(status, 400);
    const early = await t.json(`/events/upcoming-by-poi?poi_ids=${poi}&to=2027-02-01T00:00:00Z`);
    assert.equal(early.status, 400);
    await expect400(`/events/upcoming-by-poi?poi_ids=${poi}&from=2027-05-02T00:00:00`, 'from');
  });
});

describe('GET /events/:id', () => {
  interface EventBody { id: string; map_id: string; anchors: { id: string; type: string }[]; pois: { id: string; type: string; map_id: string }[];
    is_saved?: boolean; [k: string]: unknown }
  const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });

  test('every visible event returns all of its public anchored POIs, as brute force says', async () => {
    const docs = new Map(bundle.events.map((e) => [e.id.toLowerCase(), e]));
    for (const e of ref.events) {
      const { status, body } = await t.json<EventBody>(`/events/${e.id}`);
      assert.equal(status, 200, e.id);
      assertDeclared(getEvent.response, body, e.id);
      assert.equal(body.id, e.id);
      assert.equal(body.map_id, e.mapId);
      assert.deepEqual(body.pois.map((p) => [p.id, p.type]), e.anchors.map((a) => [a.id, a.type]), e.id);
      assert.deepEqual(body.anchors.map((p) => [p.id, p.type]), e.anchors.map((a) => [a.id, a.type]), e.id);
      const doc = docs.get(e.id)!;
      assert.equal(body.title, doc.title);
      assert.equal(body.event_type, doc.event_type);
      assert.equal(body.status, doc.status ?? 'scheduled');
      assert.deepEqual(body.tags, doc.tags);
      assert.equal(body.time_zone, e.timeZone);
      assert.equal(Date.parse(body.starts_at as string), e.startMs);
      assert.equal(Date.parse(body.ends_at as string), e.endMs);
      assert.ok(!('is_saved' in body));
    }
  });

  test('an event anchored to draft and public POIs lists only the public ones', async () => {
    const draftAnchored = await t.json<EventBody>(`/events/${DRAFT_ANCHOR_EVENT}`);
    assert.equal(draftAnchored.status, 200);
    assert.deepEqual(draftAnchored.body.pois, []);
    assert.deepEqual(draftAnchored.body.anchors, []);
  });

  test('an uppercase event id is accepted and the body is lowercase', async () => {
    const { status, body } = await t.json<EventBody>(`/events/${F.savedEvent.toUpperCase()}`);
    assert.equal(status, 200);
    assert.equal(body.id, F.savedEvent);
  });

  test('an event of a disabled map, and an unknown event, get 404; a non-UUID gets 400 naming id', async () => {
    for (const id of [F.disabledEvent, uuidFor('event:nowhere')]) {
      const { status, res } = await t.json(`/events/${id}`);
      assert.equal(status, 404);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    }
    const err = await expect400('/events/not-a-uuid', 'id');
    assert.equal(err.in, 'path');
  });

  test('a valid account session adds is_saved, true for a saved event and false otherwise, privately cached', async () => {
    const other = ref.events.find((e) => e.id !== F.savedEvent)!.id;
    for (const [id, saved] of [[F.savedEvent, true], [other, false]] as const) {
      const { status, body, res } = await t.json<EventBody>(`/events/${id}`, bearer(F.sessionToken));
      assert.equal(status, 200);
      assertDeclared(getEvent.response, body, id);
      assert.equal(body.is_saved, saved);
      assert.match(res.headers.get('cache-control') ?? '', /\bprivate\b/);
      assert.match(res.headers.get('vary') ?? '', /\bAuthorization\b/i);
    }
    const anon = await t.json<EventBody>(`/events/${F.savedEvent}`);
    assert.ok(!('is_saved' in anon.body));
    assert.doesNotMatch(anon.res.headers.get('cache-control') ?? '', /\bprivate\b/);
  });

  test('an expired, unknown or non-Bearer token gets 401 with WWW-Authenticate and a problem body', async () => {
    const cases: RequestInit[] = [
      bearer(F.expiredToken), bearer('garbage-token'), { headers: { authorization: 'Basic xyz' } },
      { headers: { authorization: 'Bearer' } }, { headers: { authorization: `${F.sessionToken}` } },
    ];
    for (const init of cases) {
      const { status, body, res } = await t.json<Problem>(`/events/${F.savedEvent}`, init);
      assert.equal(status, 401, JSON.stringify(init.headers));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(body.status, 401);
      assert.ok(!('is_saved' in body));
    }
  });

  test('other endpoints ignore a bad Authorization header', async () => {
    const init = bearer('garbage-token');
    for (const path of [`/events?map_id=${F.map}`, `/maps/${F.map}`, `/events/upcoming-by-poi?poi_ids=${F.v1OnlyMarker}`]) {
      const res = await t.get(path, init);
      assert.equal(res.status, 200, path);
      await res.body?.cancel();
    }
  });
});

describe('event records', () => {
  test('every event carries its map IANA time zone and RFC 3339 UTC timestamps with Z', async () => {
    const zones = new Map(bundle.maps.map((m) => [m.id, m.time_zone]));
    let seen = 0;
    for (const mapId of [F.map, F.pacific]) {
      const expected = filterEvents(ref, { mapId, fromMs: RANGE_START, toMs: RANGE_END });
      let cursor: string | null = null;
      do {
        const res = await t.get(`/events?map_id=${mapId}&from=2026-01-01&to=2030-01-01&limit=200&status=all${cursor ? `&cursor=${cursor}` : ''}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
        const body = (await res.json()) as EventsPage;
        for (const e of body.events) {
          seen++;
          const r = ref.eventsById.get(e.id)!;
          assert.equal(e.time_zone, zones.get(mapId));
          for (const field of ['starts_at', 'ends_at', 'created_at']) assert.match(e[field] as string, RFC3339_UTC, `${e.id} ${field}`);
          if (e.previous_start !== null) assert.match(e.previous_start as string, RFC3339_UTC, `${e.id} previous_start`);
          assert.equal(e.status, r.status);
          assert.equal(Date.parse(e.starts_at as string), r.startMs);
          assert.equal(Date.parse(e.ends_at as string), r.endMs);
        }
        cursor = body.next_cursor;
      } while (cursor);
      assert.ok(expected.length > 0);
    }
    assert.equal(seen, ref.events.length);
    const upcoming = await t.json<Record<string, { time_zone: string; starts_at: string }[]>>(`/events/upcoming-by-poi?poi_ids=${PAC_180}&from=2026-01-01`);
    assert.ok(upcoming.body[PAC_180].length > 0);
    for (const e of upcoming.body[PAC_180]) {
      assert.equal(e.time_zone, 'Pacific/Fiji');
      assert.match(e.starts_at, RFC3339_UTC);
    }
  });
});
