/**
 * The POIs of a read model (src/content/model/poi-store.ts): held compactly, each record made from its row when
 * asked for. From a payload a row is its JSON in the shared docs bytes, parsed only then; records made that way
 * are exactly those of a model built from the bundle's records; a small version keeps every record its build made,
 * a larger one the entries made lately (boundedly), and a listing of a whole map keeps none it made.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventT } from '../src/content/bundle/bundle-schema.ts';
import { buildPayload, modelFromPayload } from '../src/content/model/model-cache.ts';
import { KEPT_ENTRIES, parsedRows, PoiStore, type PoiRow } from '../src/content/model/poi-store.ts';
import { runNow } from '../src/utils/steps.ts';
import { buildReadModel, poiRecords } from '../src/content/model/read-model.ts';
import { contentDocs } from '../src/content/store/sql-store.ts';
import { makeFixture } from './helpers/fixture.ts';
import { poiIds } from './helpers/poi-store.ts';

async function models() {
  const bundle = makeFixture();
  const pages = async (onPage: (page: EventT[]) => void) => onPage(bundle.events);
  const payload = await buildPayload(contentDocs({ ...bundle, events: [] }, 'x'), pages, { version: 1, published_at: '2026-01-01T00:00:00.000Z' });
  return { bundle, fromPayload: modelFromPayload(payload), fromRecords: buildReadModel(contentDocs(bundle, 'x')) };
}

test('every public POI is found by id, with its type, map and vertices, and its record made from its JSON row is the one made from the bundle\'s record', async () => {
  const { bundle, fromPayload, fromRecords } = await models();
  const ids = poiIds(fromRecords.pois).sort();
  assert.ok(ids.length > 50);
  assert.deepEqual(poiIds(fromPayload.pois).sort(), ids);
  for (const id of ids) {
    const i = fromPayload.pois.indexOf(id);
    const entry = fromPayload.pois.get(id)!;
    const expected = fromRecords.pois.get(id)!;
    assert.deepEqual(JSON.stringify(entry.record), JSON.stringify(expected.record), id);
    assert.deepEqual(entry.summary, expected.summary);
    assert.deepEqual(entry.geometry, expected.geometry);
    assert.equal(fromPayload.pois.type(i), entry.record.type);
    assert.equal(fromPayload.pois.mapId(i), entry.record.map_id);
    assert.equal(fromPayload.pois.mapOf(id), entry.record.map_id);
    assert.equal(fromPayload.pois.id(i), id);
    const flat = (g: typeof entry.geometry) => (g.type === 'Point' ? [g.coordinates] : g.type === 'LineString' ? g.coordinates : g.coordinates.flat()).flat();
    assert.deepEqual([...fromPayload.pois.verticesOf(i)], flat(entry.geometry));
  }
  // A POI only in drafts, and an id of nothing at all, are not found.
  const draftOnly = [...bundle.markers, ...bundle.paths, ...bundle.polygons].map((p) => p.id).filter((id) => !ids.includes(id));
  assert.ok(draftOnly.length > 0, 'the fixture has POIs that are not public');
  for (const id of [...draftOnly, '00000000-0000-4000-8000-000000000000']) {
    assert.equal(fromPayload.pois.indexOf(id), -1);
    assert.equal(fromPayload.pois.get(id), undefined);
    assert.equal(fromPayload.pois.mapOf(id), undefined);
  }
  // Each version's POIs are in name order (then id), as the records say.
  for (const map of fromPayload.maps.values()) {
    for (const version of map.versions.values()) {
      const records = poiRecords(fromPayload, version.pois);
      const names = records.map((r) => String(r.name));
      const sorted = [...records].sort((a, b) => new Intl.Collator('en', { sensitivity: 'base', numeric: true }).compare(String(a.name), String(b.name)) ||
        (a.id < b.id ? -1 : 1));
      assert.deepEqual(names, sorted.map((r) => String(r.name)));
      assert.ok(records.every((r) => (r.version_ids as string[]).includes(version.id) && r.map_id === map.id));
    }
  }
});

test('a small version keeps every record the build made; otherwise the entries made lately are kept, the least recently used let go past the bound, and a listing keeps none it made', async () => {
  const { fromPayload } = await models();
  const store = fromPayload.pois;
  assert.ok(store.size <= KEPT_ENTRIES);
  assert.equal(store.keptEntries, store.size, 'a version of at most KEPT_ENTRIES POIs keeps every entry the build made');
  const first = store.get(store.id(0))!;
  assert.equal(store.get(store.id(0)), first, 'asked again: the same entry');
  assert.equal(store.listed(0), first, 'a listing takes the kept entry');
  assert.notEqual(store.fresh(0), first, 'made afresh');
  assert.ok(KEPT_ENTRIES >= 1000);

  // A store that keeps three: asking for a fourth lets the least recently asked for go.
  const rows = Array.from({ length: 5 }, (_, k) => ({ poi_type: 'marker' as const, doc: { id: `0000000${k}-0000-4000-8000-000000000000` } as never }));
  const facts = rows.map((r, k) => ({ row: k, id: (r.doc as { id: string }).id, type: 'marker' as const, mapId: 'm', vertices: [[k, k]], hours: null }));
  let made = 0;
  const make = (row: PoiRow) => ({ record: { id: (row.doc as { id: string }).id, serial: made++ } }) as never;
  // Five POIs for a bound of three: none of the build's entries is kept.
  const small = runNow(PoiStore.buildSteps(parsedRows(rows), facts, make, 3, rows.map(make)));
  assert.equal(small.keptEntries, 0, 'more POIs than the bound: the build keeps none');
  made = 0;
  const serial = (k: number) => (small.entry(k).record as unknown as { serial: number }).serial;
  const a = serial(0);
  serial(1);
  serial(2);
  assert.equal(serial(0), a, 'kept: asking again refreshes it');
  serial(3);
  assert.equal(small.keptEntries, 3);
  assert.equal(serial(0), a, 'the most recently used stays');
  assert.notEqual(serial(1), 1, 'the least recently used was let go and is made again');
  // A listing of all five keeps none of those it made.
  const listed = Array.from({ length: 5 }, (_, k) => (small.listed(k).record as unknown as { serial: number }).serial);
  assert.equal(small.keptEntries, 3);
  assert.equal(listed[0], a, 'a kept entry is listed as it is');
  assert.equal(small.indexOf(facts[4].id), 4);
  assert.deepEqual([...small.verticesOf(4)], [4, 4]);
});
