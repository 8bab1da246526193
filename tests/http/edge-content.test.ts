/**
 * Content edges beyond the fixture, as served: sub-millisecond event starts, references to draft-only
 * categories, association times that differ by milliseconds, Japanese names searched with `q`. (Shapes across the antimeridian and
 * impossible years: tests/edge-content.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { F, makeFixture, uuidFor } from '../helpers/fixture.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';

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
// Japanese names that differ only by a voicing mark: バス (bus) and ハス (lotus).
const kana = uuidFor('category:kana');
bundle.categories.push({ id: kana, map_id: F.map, parent_id: null, kind: 'category', name: 'Kana', sort_order: 0 });
const [busStop, lotusPond] = ['バス停', 'ハス池'].map((name, i) => {
  const id = uuidFor(`marker:kana${i}`);
  bundle.markers.push({ id, map_id: F.map, name, lat: 38.7, lng: -9.1, category_ids: [kana], created_at: '2026-01-01T00:00:00Z' });
  bundle.events.push({ id: uuidFor(`event:kana${i}`), map_id: F.map, title: `${name}まつり`, event_type: 'tour', tags: [],
    starts_at: '2030-02-01T10:00:00Z', ends_at: '2030-02-01T11:00:00Z', poi_ids: [id], created_at: '2026-01-01T00:00:00Z' });
  return id;
});

let t: TestTarget;
before(async () => { t = await openTarget(bundle); });
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

test('q=バス finds the bus stop and its event, not the lotus pond; half-width ﾊﾞｽ finds them too', async () => {
  for (const q of ['バス', 'ﾊﾞｽ']) {
    const pois = await t.json(`/maps/${F.map}/pois?${new URLSearchParams({ tags: kana, q })}`);
    assert.equal(pois.status, 200);
    assert.deepEqual(pois.body.items.map((p: { id: string }) => p.id), [busStop], q);
    const events = await t.json(`/events?${new URLSearchParams({ map_id: F.map, from: '2030-02-01', to: '2030-02-01', q })}`);
    assert.equal(events.status, 200);
    assert.deepEqual(events.body.events.map((e: { title: string }) => e.title), ['バス停まつり'], q);
  }
  const lotus = await t.json(`/maps/${F.map}/pois?${new URLSearchParams({ tags: kana, q: 'ハス' })}`);
  assert.deepEqual(lotus.body.items.map((p: { id: string }) => p.id), [lotusPond]);
});
