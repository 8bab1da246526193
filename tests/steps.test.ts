/**
 * Work in slices (src/utils/steps.ts): the serving thread builds a new version's read model in
 * slices, letting requests in between. The sliced build must give exactly what the build at once gives,
 * and the sort it uses exactly what a stable native sort gives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventT } from '../src/content/bundle/bundle-schema.ts';
import { parseBundle } from '../src/content/bundle/parse.ts';
import { inSharedMemory } from '../src/content/journey.ts';
import { buildPayload, docsBytes, loadModel, modelFromPayload } from '../src/content/model/model-cache.ts';
import { buildReadModel, eventIndexSteps, type ReadModel } from '../src/content/model/read-model.ts';
import { runNow, runSliced, sortSteps, type Steps } from '../src/utils/steps.ts';
import { contentDocs } from '../src/content/store/sql-store.ts';
import { makeFixture, mulberry32 } from './helpers/fixture.ts';
import { poiEntries } from './helpers/poi-store.ts';

test('the sort in steps gives exactly the stable native sort, for sizes around its run length and many ties', () => {
  const rand = mulberry32(7);
  for (const n of [0, 1, 2, 2047, 2048, 2049, 4096, 5000, 20_000]) {
    const items = Array.from({ length: n }, (_, seq) => ({ key: Math.floor(rand() * 50), seq }));
    const compare = (a: { key: number }, b: { key: number }) => a.key - b.key;
    const expected = [...items].sort(compare);
    assert.deepEqual(runNow(sortSteps(items, compare)), expected, `n = ${n}`);
    assert.deepEqual(items, expected, `sorted in place, n = ${n}`);
  }
});

test('work run in slices lets the event loop in between and returns what the work returns at once', async () => {
  function* work(): Steps<number> {
    let sum = 0;
    for (let piece = 0; piece < 60; piece++) {
      const until = performance.now() + 1;
      while (performance.now() < until) sum += 1;
      yield;
    }
    return 60;
  }
  let turns = 0;
  let going = true;
  const tick = () => {
    turns++;
    if (going) setImmediate(tick);
  };
  setImmediate(tick);
  const stats = { slices: 0 };
  assert.equal(await runSliced(work(), 8, stats), runNow(work()));
  going = false;
  assert.ok(stats.slices > 1, `60 ms of work ran in ${stats.slices} slice(s)`);
  assert.ok(turns >= stats.slices - 1, `the event loop ran ${turns} time(s) during ${stats.slices} slices`);
});

/** The fixture with enough POIs that their records span several lines of the payload's docs. */
function bigFixture() {
  const bundle = makeFixture({ events: 400 });
  const rand = mulberry32(3);
  const base = bundle.markers[0];
  for (let i = 0; i < 4_500; i++) {
    bundle.markers.push({ ...base, id: crypto.randomUUID(), name: `Marker ${Math.floor(rand() * 1000)}`,
      lat: base.lat + rand() / 10, lng: base.lng + rand() / 10 });
  }
  return parseBundle(JSON.stringify(bundle));
}

/** What a read model serves, as plain data: every POI record, each version's POIs, events and lists. */
function served(model: ReadModel) {
  return {
    pois: poiEntries(model.pois).map((p) => p.record),
    maps: [...model.maps.values()].map((m) => ({
      id: m.id,
      versions: [...m.versions.values()].map((v) => ({ id: v.id, pois: Array.from(v.pois, (i) => model.pois.id(i)), categories: v.categories })),
      events: Array.from({ length: m.events.length }, (_, i) => m.events.id(i)),
      lists: m.lists,
    })),
    associations: [...model.associationsFrom.entries()],
    version: model.version,
  };
}

test('a spatial index built before is refused for points it was not built over', () => {
  const model = buildReadModel(contentDocs(bigFixture(), 'x'));
  const [first, second] = [...model.maps.values()].filter((m) => m.events.length > 0);
  assert.ok(first && second, 'two maps with events');
  const parts = first.eventIndex.parts!;
  assert.throws(() => runNow(eventIndexSteps(model.pois, second.events, parts)), /spatial index of \d+ points given for \d+ points/);
});

test('a payload\'s docs are lines of records, read back exactly as they were written', () => {
  const bundle = bigFixture();
  const docs = contentDocs({ ...bundle, events: [] }, 'x');
  const bytes = docsBytes(docs);
  const text = new TextDecoder().decode(bytes);
  assert.ok(text.split('\n').length > 3, 'the POIs and their versions span several lines');
  // Read here as the format says (model-cache.ts, docsBytes), not by the service's reader: the first line holds all
  // but the long collections, each later line the next records of one of them, a POI's row alone on its line.
  const [head, ...rest] = text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown[]>);
  for (const line of rest) for (const [key, items] of Object.entries(line)) head[key].push(...items);
  assert.ok(rest.some((line) => Object.keys(line).join() === 'pois' && line.pois.length === 1), 'a POI row alone on its line');
  assert.deepEqual(head, JSON.parse(JSON.stringify(docs)));
});

test('a read model built from a payload in slices serves exactly what one built at once and one built from the records serve', async () => {
  const bundle = bigFixture();
  const head = contentDocs({ ...bundle, events: [] }, 'x');
  const pages = async (onPage: (page: EventT[]) => void) => {
    for (let i = 0; i < bundle.events.length; i += 150) onPage(bundle.events.slice(i, i + 150));
  };
  const payload = await buildPayload(head, pages, { version: 3, published_at: '2026-01-01T00:00:00.000Z' });
  const atOnce = modelFromPayload({ ...payload, tables: payload.tables.slice() });
  const sliced = await loadModel({ ...payload, tables: payload.tables.slice() });
  const fromRecords = buildReadModel(contentDocs(bundle, 'x'));
  fromRecords.version = 3;
  assert.deepEqual(served(sliced), served(atOnce));
  assert.deepEqual(served(sliced), served(fromRecords));
  // The spatial indexes came built in the payload: they find exactly what ones built here find.
  const rand = mulberry32(11);
  for (const [id, map] of fromRecords.maps) {
    const other = sliced.maps.get(id)!;
    for (let k = 0; k < 20; k++) {
      const p = bundle.markers[Math.floor(rand() * bundle.markers.length)];
      const near = { lat: p.lat, lng: p.lng, radiusM: 500 + rand() * 20_000 };
      const all = map.events.length;
      assert.deepEqual(other.eventIndex.eventsInAreaOfPois({ near }, 0, all), map.eventIndex.eventsInAreaOfPois({ near }, 0, all));
      const box = { west: p.lng - rand(), south: p.lat - rand(), east: p.lng + rand(), north: p.lat + rand() };
      assert.deepEqual(other.eventIndex.eventsInAreaOfPois({ bbox: box }, 0, all), map.eventIndex.eventsInAreaOfPois({ bbox: box }, 0, all));
    }
  }
  assert.equal(sliced.publishedAt, '2026-01-01T00:00:00.000Z');
});

test('a spatial index\'s parts made before are refused when their lists point outside the table', () => {
  const model = buildReadModel(contentDocs(bigFixture(), 'x'));
  const [map] = [...model.maps.values()].filter((m) => m.events.length > 0);
  const parts = map.eventIndex.parts!;
  const again = (changed: Partial<typeof parts>) => () => runNow(eventIndexSteps(model.pois, map.events, { ...parts, ...changed }));
  assert.doesNotThrow(again({}));
  const positions = parts.positions.slice();
  positions[positions.length - 1] = map.events.length;
  assert.throws(again({ positions }), /parts do not fit its events: positions/);
  const bounds = parts.bounds.slice();
  bounds[1] = parts.positions.length + 1;
  assert.throws(again({ bounds }), /parts do not fit its events: bounds/);
  assert.throws(again({ pointsBefore: parts.pointsBefore.subarray(1) }), /parts do not fit its events: pointsBefore/);
});

test('a read model built from a payload in shared memory views its event lookups there, as every serving thread does, rather than making its own', async () => {
  const bundle = bigFixture();
  const head = contentDocs({ ...bundle, events: [] }, 'x');
  const pages = async (onPage: (page: EventT[]) => void) => onPage(bundle.events);
  const built = await buildPayload(head, pages, { version: 1, published_at: '2026-01-01T00:00:00.000Z' });
  const payload = { ...built, docs: inSharedMemory(built.docs), tables: inSharedMemory(built.tables), places: inSharedMemory(built.places) };
  const model = modelFromPayload(payload);
  let checked = 0;
  for (const map of model.maps.values()) {
    if (map.events.length === 0) continue;
    const parts = map.eventIndex.parts!;
    for (const part of [parts.pointsBefore, parts.bounds, parts.positions]) assert.equal(part.buffer, payload.places.buffer);
    const anchored = Array.from({ length: map.events.anchorPoiCount }, (_, k) => map.events.anchorPoiId(k)).find((id) => map.events.positionsOfPoi(id).length > 0)!;
    assert.equal(map.events.positionsOfPoi(anchored).buffer, payload.tables.buffer, 'the POIs\' event lists');
    assert.equal((map.events as unknown as { poiSlots: Int32Array }).poiSlots.buffer, payload.tables.buffer, 'the POIs\' id hash');
    assert.equal(map.events.startMs.buffer, payload.tables.buffer, 'the columns');
    checked++;
  }
  assert.ok(checked >= 2, 'maps with events were checked');
});

