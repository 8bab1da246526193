/**
 * Event match lists, seen from inside the app (so in-process only): the matches of a filter set are
 * computed once, so later pages and totals reuse them, a defaulted window is cut to the whole second, and the
 * lists kept are bounded.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApp } from '../src/app.ts';
import { DIRECT_TEST_POINTS, filterKey, findMatches, MATCH_CACHE_SIZE, type EventFilter } from '../src/content/model/event-search.ts';
import { openTestApp, QUIET, readDemoBundle, type TestApp } from './helpers/app.ts';

const demo = await readDemoBundle();
const map = demo.maps.find((m) => m.enabled && m.versions.length > 2)!;

let t: TestApp;
before(async () => { t = await openTestApp(demo); });
after(async () => { await t?.close(); });

test('paging computes the matches of a filter set once: later pages and totals reuse them', async () => {
  const view = t.store.model.maps.get(map.id)!;
  view.matchCache.clear();
  const base = `/events?map_id=${map.id}&from=2026-11-01T00:00:00Z&to=2028-12-31T00:00:00Z&limit=20`;
  let { body } = await t.json(base);
  assert.equal(view.matchCache.size, 1);
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
  const timed = createApp({ store: t.store, now: () => new Date(clock), logger: QUIET });
  const get = async () => (await timed.fetch(new Request(`http://test.local/events?map_id=${map.id}`))).json() as Promise<{ total: number }>;
  view.matchCache.clear();
  const first = await get();
  clock += 800; // 10:00:00.900, the same second
  assert.deepEqual(await get(), first);
  assert.equal(view.matchCache.size, 1, 'one filter set within the second');
  assert.match([...view.matchCache.keys()][0], new RegExp(`,${Date.parse('2026-11-22T10:00:00Z')},`));
  clock += 200; // 10:00:01.000, the next second
  await get();
  assert.equal(view.matchCache.size, 2, 'a new second is a new filter set');
});

test('kept match lists are bounded by count and by positions, dropping the least recently used', () => {
  const view = t.store.model.maps.get(map.id)!;
  view.matchCache.clear();
  const day = 86_400_000;
  const filter = (d: number): EventFilter => ({ fromMs: Date.parse('2026-11-01T00:00:00Z') + d * day, toMs: Date.parse('2028-12-31T00:00:00Z'),
    types: null, tags: null, bbox: null, near: null });
  const lists = Array.from({ length: MATCH_CACHE_SIZE + 10 }, (_, d) => findMatches(view, filter(d), filterKey(view.id, filter(d))));
  assert.equal(view.matchCache.size, MATCH_CACHE_SIZE, 'at most MATCH_CACHE_SIZE lists');
  assert.ok(!view.matchCache.has(filterKey(view.id, filter(0))), 'the oldest went first');
  // A bound on positions smaller than two lists keeps only the newest.
  const limit = lists[0].length + 1;
  findMatches(view, filter(-1), filterKey(view.id, filter(-1)), true, DIRECT_TEST_POINTS, limit);
  assert.deepEqual([...view.matchCache.keys()], [filterKey(view.id, filter(-1))]);
  // One list larger than the bound is still kept: the page being served needs it.
  findMatches(view, filter(-2), filterKey(view.id, filter(-2)), true, DIRECT_TEST_POINTS, 1);
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
