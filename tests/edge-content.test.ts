/**
 * Content edges beyond the fixture: sub-millisecond event starts, references to draft-only categories,
 * association times that differ by milliseconds, shapes across the antimeridian, impossible years.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { representativePoint } from '../src/geo/geojson.ts';
import { BundleError, validateBundle } from '../src/content/validate-bundle.ts';
import { F, makeFixture, uuidFor } from './helpers/fixture.ts';
import { openTestApp, type TestApp } from './helpers/app.ts';

const bundle = makeFixture();
const main = bundle.markers.filter((m) => m.map_id === F.map && !m.version_ids);
// Two events in the same millisecond, ids in the opposite order of their microseconds.
const late = '00000000-0000-4000-8000-000000000002';
const early = 'ffffffff-ffff-4fff-8fff-000000000001';
bundle.events.push(
  { id: early, map_id: F.map, title: 'early', event_type: 'tour', tags: [], starts_at: '2030-01-01T10:00:00.0001Z',
    ends_at: '2030-01-01T11:00:00Z', poi_ids: [], created_at: '2026-01-01T00:00:00Z' },
  { id: late, map_id: F.map, title: 'late', event_type: 'tour', tags: [], starts_at: '2030-01-01T10:00:00.0009Z',
    ends_at: '2030-01-01T11:00:00Z', poi_ids: [], created_at: '2026-01-01T00:00:00Z' },
);
// A public marker assigned to a draft-only category, and a public category under a draft-only parent.
main[0].category_ids.push(F.draftCategory);
const orphan = uuidFor('category:under-draft');
bundle.categories.push({ id: orphan, map_id: F.map, parent_id: F.draftCategory, kind: 'tag', name: 'Under a draft', sort_order: 0 });
main[1].category_ids.push(orphan);
// Two associations with the same sort order, created half a second apart.
const [a, b, c] = [main[30].id, main[31].id, main[32].id];
bundle.associations.push(
  { id: uuidFor('assoc:ms-later'), poi_id: a, associated_poi_id: b, mutual: false, list_id: null, sort_order: -1, created_at: '2026-01-01T10:00:00.500Z' },
  { id: uuidFor('assoc:ms-earlier'), poi_id: a, associated_poi_id: c, mutual: false, list_id: null, sort_order: -1, created_at: '2026-01-01T10:00:00Z' },
);

let t: TestApp;
before(async () => { t = await openTestApp(bundle); });
after(async () => { await t?.close(); });

test('events starting within the same millisecond are each served exactly once when paged one by one', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `/events?map_id=${F.map}&from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&limit=1${cursor ? `&cursor=${cursor}` : ''}`;
    const { status, body } = await t.json(q);
    assert.equal(status, 200);
    assert.equal(body.total, 2);
    seen.push(...body.events.map((e: { id: string }) => e.id));
    cursor = body.next_cursor;
  } while (cursor);
  // Same millisecond: the id decides.
  assert.deepEqual(seen, [late, early]);
});

test('a draft-only category is named by no public record, and its public child shows at the top level', async () => {
  const marker = (await t.json(`/markers/${main[0].id}`)).body;
  assert.ok(!marker.category_ids.includes(F.draftCategory));
  const items = (await t.json(`/places-of-interest/items/${F.map}`)).body;
  const top = items.items.find((i: { id: string }) => i.id === orphan);
  assert.ok(top, 'the child of a draft-only category is listed at the top level');
  assert.equal(top.parent_id, null);
  const all = JSON.stringify((await t.json(`/maps/${F.map}?all_categories=true&markers=true&tag_counts=true`)).body);
  assert.ok(!all.includes(F.draftCategory));
});

test('associations with equal sort order are ordered by creation time, to the millisecond', async () => {
  const { body } = await t.json(`/poi-associations/${a}`);
  const ids = body.associations.map((x: { id: string }) => x.id);
  assert.ok(ids.indexOf(uuidFor('assoc:ms-earlier')) < ids.indexOf(uuidFor('assoc:ms-later')));
});

test('the representative point of a shape across the antimeridian lies on the dateline side, not near Greenwich', () => {
  const p = representativePoint({ type: 'LineString', coordinates: [[179.5, -17], [-179.5, -18]] });
  assert.ok(Math.abs(Math.abs(p.lng) - 180) < 1, JSON.stringify(p));
  assert.equal(p.lat, -17.5);
  const ordinary = representativePoint({ type: 'LineString', coordinates: [[-9.2, 38.7], [-9.1, 38.8]] });
  assert.deepEqual(ordinary, { lng: -9.15, lat: 38.75 });
});

test('a timestamp in year 0 is refused with its path, not left for the database to choke on', () => {
  const bad = makeFixture();
  bad.events[3].starts_at = '0000-06-01T00:00:00Z';
  assert.throws(() => validateBundle(bad), (err: unknown) =>
    err instanceof BundleError && err.problems.some((p) => p.path === '$.events[3].starts_at'));
});
