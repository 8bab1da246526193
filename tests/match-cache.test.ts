/**
 * Event match lists, seen from inside the app (so in-process only): the matches of a filter set computed a
 * second time are kept, so later pages and totals reuse them, a filter set asked once keeps nothing, a defaulted
 * window is cut to the whole second, and the lists kept are bounded.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApp } from '../src/app.ts';
import { DIRECT_TEST_POINTS, filterKey, findMatches, MATCH_CACHE_POSITIONS, MATCH_CACHE_SIZE, type EventFilter } from '../src/content/model/event-search.ts';
import { openTestApp, QUIET, readDemoBundle, type TestApp } from './helpers/app.ts';

const demo = await readDemoBundle();
const map = demo.maps.find((m) => m.enabled && m.versions.length > 2)!;

let t: TestApp;
before(async () => { t = await openTestApp(demo); });
after(async () => { await t?.close(); });

test('paging computes the matches of a filter set twice: pages 1 and 2, and later pages and totals reuse them', async () => {
  const view = t.store.model.maps.get(map.id)!;
  view.matchCache.clear();
  const base = `/events?map_id=${map.id}&from=2026-11-01T00:00:00Z&to=2028-12-31T00:00:00Z&limit=20`;
  let { body } = await t.json(base);
  assert.equal(view.matchCache.size, 0, 'a filter set computed once is not kept');
  body = (await t.json(`${base}&cursor=${body.next_cursor}`)).body;
  assert.equal(view.matchCache.size, 1, 'computed again for page 2, it is kept');
  const cached = [...view.matchCache.values()][0];
  assert.equal(cached.length, body.total);
  for (let page = 0; page < 5 && body.next_cursor; page++) {
    body = (await t.json(`${base}&cursor=${body.next_cursor}`)).body;
    assert.equal(view.matchCache.size, 1);
    assert.equal([...view.matchCache.values()][0], cached, 'the same match list, not a recomputed one');
  }
});

test('a defaulted window starts at "now" to the whole second, so requests within a second share one match list', async () => {
  const view = t.store.model.maps.get(map.id)!;
  let clock = Date.parse('2026-11-22T10:00:00.100Z');
  // An app of its own each time, so that no answer comes from a response cache: every request computes.
  const get = async () => (await createApp({ store: t.store, now: () => new Date(clock), logger: QUIET })
    .fetch(new Request(`http://test.local/events?map_id=${map.id}`))).json() as Promise<{ total: number }>;
  view.matchCache.clear();
  const first = await get();
  clock += 800; // 10:00:00.900, the same second
  assert.deepEqual(await get(), first);
  assert.equal(view.matchCache.size, 1, 'one filter set within the second, computed twice, so kept');
  assert.match([...view.matchCache.keys()][0], new RegExp(`,${Date.parse('2026-11-22T10:00:00Z')},`));
  clock += 200; // 10:00:01.000, the next second
  await get();
  await get();
  assert.equal(view.matchCache.size, 2, 'a new second is a new filter set');
});

test('kept match lists are bounded by count and by positions, dropping the least recently used', () => {
  const view = t.store.model.maps.get(map.id)!;
  view.matchCache.clear();
  const day = 86_400_000;
  const filter = (d: number): EventFilter => ({ fromMs: Date.parse('2026-11-01T00:00:00Z') + d * day, toMs: Date.parse('2028-12-31T00:00:00Z'),
    types: null, tags: null, bbox: null, near: null });
  // Each filter set computed twice, so it is kept.
  const twice = (f: EventFilter, ...rest: [boolean, number, number]) => {
    findMatches(view, f, filterKey(view.id, f), ...rest);
    return findMatches(view, f, filterKey(view.id, f), ...rest);
  };
  const lists = Array.from({ length: MATCH_CACHE_SIZE + 10 }, (_, d) => twice(filter(d), true, DIRECT_TEST_POINTS, MATCH_CACHE_POSITIONS));
  assert.equal(view.matchCache.size, MATCH_CACHE_SIZE, 'at most MATCH_CACHE_SIZE lists');
  assert.ok(!view.matchCache.has(filterKey(view.id, filter(0))), 'the oldest went first');
  // A bound on positions smaller than two lists keeps only the newest.
  const limit = lists[0].length + 1;
  twice(filter(-1), true, DIRECT_TEST_POINTS, limit);
  assert.deepEqual([...view.matchCache.keys()], [filterKey(view.id, filter(-1))]);
  // One list larger than the bound is still kept: the page being served needs it.
  twice(filter(-2), true, DIRECT_TEST_POINTS, 1);
  assert.equal(view.matchCache.size, 1);
});

test('without caching, a match list is computed afresh even when one is cached, and none is kept', () => {
  const view = t.store.model.maps.get(map.id)!;
  view.matchCache.clear();
  const f: EventFilter = { fromMs: Date.parse('2026-11-01T00:00:00Z'), toMs: Date.parse('2028-12-31T00:00:00Z'),
    types: null, tags: null, bbox: null, near: null };
  const key = filterKey(view.id, f);
  const kept = findMatches(view, f, key);
  const fresh = findMatches(view, f, key, false);
  assert.notEqual(fresh, kept, 'not the cached list');
  assert.deepEqual([...fresh], [...kept]);
  view.matchCache.clear();
  findMatches(view, f, key, false);
  assert.equal(view.matchCache.size, 0);
});

test('distinct filter sets, each computed once (every visitor near another point), keep no match list', async () => {
  const view = t.store.model.maps.get(map.id)!;
  view.matchCache.clear();
  const markers = demo.markers.filter((m) => m.map_id === map.id).slice(0, 40);
  let nonEmpty = 0;
  for (const [k, { lat, lng }] of markers.entries()) {
    const { status, body } = await t.json(`/events?map_id=${map.id}&near=${lat},${lng}&radius_m=${1000 + k}&from=2026-11-01T00:00:00Z&to=2028-12-31T00:00:00Z`);
    assert.equal(status, 200);
    if (body.total > 0) nonEmpty++;
  }
  assert.ok(nonEmpty >= 10, `${nonEmpty} of the questions found events`);
  assert.equal(view.matchCache.size, 0);
});

test('a kept list from the time slabs is a copy of its own: later searches, whose answers are written over the last, leave it as it was', () => {
  const view = t.store.model.maps.get(map.id)!;
  view.matchCache.clear();
  const markers = demo.markers.filter((m) => m.map_id === map.id);
  const week = 7 * 86_400_000;
  // Four-week windows near a marker (the slabs answer them; -1 makes the index answer however few points the window holds).
  const near = (k: number, weeks: number): EventFilter => {
    const fromMs = Date.parse('2026-11-02T00:00:00Z') + weeks * week;
    return { fromMs, toMs: fromMs + 4 * week, types: null, tags: null, bbox: null, near: { lat: markers[k].lat, lng: markers[k].lng, radiusM: 20_000 } };
  };
  const search = (f: EventFilter, cache = false) => findMatches(view, f, filterKey(view.id, f), cache, -1);
  const k = markers.findIndex((_, j) => search(near(j, 0)).length > 0);
  assert.ok(k >= 0, 'a marker with events near it in the window');
  const f = near(k, 0);
  const expected = [...search(f)];
  search(f, true);
  const kept = search(f, true);
  assert.equal(view.matchCache.get(filterKey(view.id, f)), kept, 'computed twice, kept');
  let differing = 0;
  for (let weeks = 1; weeks <= 40; weeks++) {
    const other = [...search(near(k, weeks))];
    if (other.length > 0 && other.join() !== expected.join()) differing++;
  }
  assert.ok(differing > 0, 'later searches found other events');
  assert.deepEqual([...kept], expected);
  assert.deepEqual([...search(f, true)], expected, 'the kept list, as it was');
});
