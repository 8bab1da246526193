/**
 * Event search answers spatial filters three ways: by the spatial indexes of the time slabs a window of up to about
 * ten weeks spans,
 * by the KDBush index of POIs (the POIs in the area, then their events in the window), or by testing each
 * time-window candidate's own anchor points. All must give exactly the brute-force answer, on random filters that
 * include the antimeridian and the poles.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { nearShape } from '../src/geo/near-shape.ts';
import { filterKey, findMatches, type EventFilter } from '../src/content/model/event-search.ts';
import { SLAB_SIZE } from '../src/content/model/event-slabs.ts';
import { EVENT_STATUSES } from '../src/content/bundle/bundle-schema.ts';
import { openTestApp, type TestApp } from './helpers/app.ts';
import { buildReference, filterEvents, type Reference } from './helpers/brute-force.ts';
import { F, mulberry32 } from './helpers/fixture.ts';

let t: TestApp;
let ref: Reference;
before(async () => {
  t = await openTestApp();
  ref = buildReference(t.bundle);
});
after(async () => { await t?.close(); });

const DAY = 86_400_000;

test('the index (by time slabs, or by the POIs\' event lists) and the direct test of candidates all give the brute-force matches, for random filters', () => {
  const rand = mulberry32(2026);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  let nonEmpty = 0;
  for (let i = 0; i < 400; i++) {
    const mapId = pick([F.map, F.pacific]);
    const map = t.store.model.maps.get(mapId)!;
    const events = ref.events.filter((e) => e.mapId === mapId);
    const anchor = pick(events.flatMap((e) => e.points));
    const fromMs = pick(events).startMs - Math.floor(rand() * 40) * DAY;
    // Windows for the time slabs, and longer ones (the POIs' lists).
    const toMs = fromMs + Math.floor(rand() * (rand() < 0.15 ? 2000 : rand() < 0.25 ? 500 : 60)) * DAY;
    const lng = (v: number) => ((v + 540) % 360) - 180;
    const lat = (v: number) => Math.max(-90, Math.min(90, v));
    const span = rand() * 20;
    const bbox = rand() < 0.5 ? null : rand() < 0.15
      ? { west: 170, south: -90, east: -170, north: 90 } // across the antimeridian, pole to pole
      : { west: lng(anchor[0] - span), south: lat(anchor[1] - span / 2), east: lng(anchor[0] + span), north: lat(anchor[1] + span / 2) };
    const near = rand() < 0.5 ? null : rand() < 0.1
      ? { lat: pick([90, -90]), lng: 0, radiusM: 200_000 }
      : { lat: anchor[1] + (rand() - 0.5), lng: anchor[0] + (rand() - 0.5), radiusM: 1 + Math.floor(rand() * 200_000) };
    // One tag, or two or three: those of one event (so that all of them can match) and now and then one more.
    const withTags = pick(events.filter((e) => e.tags.length > 1));
    const tags = rand() < 0.3 ? [pick(events.flatMap((e) => e.tags))]
      : rand() < 0.4 ? [...new Set([...withTags.tags.slice(0, 2), ...(rand() < 0.3 ? [pick(events.flatMap((e) => e.tags))] : [])])] : null;
    const tagsMatch = rand() < 0.5 ? 'all' as const : 'any' as const;
    const types = rand() < 0.2 ? [pick(events).type] : null;
    // Every status, the lists' default (all but cancelled), or one or two of them.
    const statuses = rand() < 0.4 ? null : rand() < 0.5 ? ['scheduled', 'postponed', 'rescheduled', 'moved_online'] as const
      : [...new Set([pick(EVENT_STATUSES), pick(EVENT_STATUSES)])];
    const f: EventFilter = { fromMs, toMs, types, tags, tagsMatch, bbox, near, statuses };
    const key = filterKey(map.id, f);
    const expected = filterEvents(ref, { mapId, ...f }).map((e) => e.id);
    const direct = Array.from(findMatches(map, f, key, false, Infinity), (p) => map.events.id(p));
    const viaIndex = Array.from(findMatches(map, f, key, false, -1), (p) => map.events.id(p));
    const viaPoiLists = Array.from(findMatches(map, f, key, false, -1, undefined, false), (p) => map.events.id(p));
    assert.deepEqual(direct, expected, `direct ${key}`);
    assert.deepEqual(viaIndex, expected, `index (time slabs for a short window) ${key}`);
    assert.deepEqual(viaPoiLists, expected, `index (the POIs' lists) ${key}`);
    if (expected.length > 0) nonEmpty++;
  }
  assert.ok(nonEmpty > 100, `${nonEmpty} of 400 filters matched something`);
});

test('near_poi\'s place gives the same matches by the index (time slabs, POIs\' lists) as by testing each event, with a box or not', () => {
  const rand = mulberry32(2037);
  const map = t.store.model.maps.get(F.map)!;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const ids = Array.from(t.store.model.maps.get(F.map)!.versions.get(map.currentVersionId)!.pois, (i) => t.store.model.pois.id(i));
  const events = ref.events.filter((e) => e.mapId === F.map);
  let nonEmpty = 0;
  for (let i = 0; i < 120; i++) {
    const poi = t.store.model.pois.get(pick(ids))!;
    const radiusM = 50 + Math.floor(rand() * 5_000);
    const fromMs = pick(events).startMs - Math.floor(rand() * 40) * DAY;
    const toMs = fromMs + Math.floor(rand() * (rand() < 0.2 ? 2000 : 60)) * DAY;
    const [lng, lat] = poi.geometry.type === 'Point' ? poi.geometry.coordinates : poi.geometry.type === 'LineString' ? poi.geometry.coordinates[0] : poi.geometry.coordinates[0][0];
    const bbox = rand() < 0.5 ? null : { west: lng - rand() * 0.05, south: lat - rand() * 0.05, east: lng + rand() * 0.05, north: lat + rand() * 0.05 };
    const f: EventFilter = { fromMs, toMs, types: null, tags: null, bbox, near: null, nearShape: { key: `${poi.record.id}|${radiusM}`, ...nearShape(poi.geometry, radiusM) } };
    const key = filterKey(map.id, f);
    const direct = Array.from(findMatches(map, f, key, false, Infinity), (p) => map.events.id(p));
    assert.deepEqual(Array.from(findMatches(map, f, key, false, -1), (p) => map.events.id(p)), direct, `index ${key}`);
    assert.deepEqual(Array.from(findMatches(map, f, key, false, -1, undefined, false), (p) => map.events.id(p)), direct, `POIs' lists ${key}`);
    if (direct.length > 0) nonEmpty++;
  }
  assert.ok(nonEmpty > 30, `${nonEmpty} of 120 places had events near them`);
});

test('windows that begin and end on the edges of the time slabs, a millisecond either side, give the brute-force matches (events that start before a slab and end after it included)', () => {
  const map = t.store.model.maps.get(F.map)!;
  const events = ref.events.filter((e) => e.mapId === F.map && e.points.length > 0);
  const L = SLAB_SIZE.ms;
  const long = events.filter((e) => e.endMs - e.startMs > 2 * L);
  assert.ok(long.length > 10, `${long.length} events span more than two slabs`);
  const rand = mulberry32(77);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  let nonEmpty = 0;
  for (let i = 0; i < 150; i++) {
    const e = pick(i % 2 === 0 ? long : events);
    // A slab edge at or after the event's start, then a window from it (or a millisecond off) for 0 to 9 slabs.
    const edge = (Math.floor(e.startMs / L) + Math.floor(rand() * 4)) * L;
    const fromMs = edge + pick([-1, 0, 1]);
    const toMs = Math.max(fromMs, edge + Math.floor(rand() * 10) * L + pick([-1, 0, 1]));
    const anchor = pick(e.points);
    const area = rand() < 0.5 ? { near: { lat: anchor[1], lng: anchor[0], radiusM: 1 + Math.floor(rand() * 300_000) }, bbox: null }
      : { near: null, bbox: { west: anchor[0] - 3, south: anchor[1] - 2, east: anchor[0] + 3, north: anchor[1] + 2 } };
    const f: EventFilter = { fromMs, toMs, types: null, tags: null, ...area, statuses: null };
    const expected = filterEvents(ref, { mapId: F.map, ...f }).map((x) => x.id);
    const viaSlabs = Array.from(findMatches(map, f, filterKey(map.id, f), false, -1), (p) => map.events.id(p));
    assert.deepEqual(viaSlabs, expected, `${new Date(fromMs).toISOString()}..${new Date(toMs).toISOString()} ${JSON.stringify(area)}`);
    if (expected.length > 0) nonEmpty++;
  }
  assert.ok(nonEmpty > 50, `${nonEmpty} of 150 windows matched something`);
});
