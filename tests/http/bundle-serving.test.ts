/**
 * How a bundle's content is served: the same bundle written with upper-case UUIDs answers byte for byte
 * like the lowercase one, and an item without version_ids is in every published version of its map.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { F, makeFixture, upperCaseIds } from '../helpers/fixture.ts';

const bundle = makeFixture();
const bearer = { headers: { authorization: `Bearer ${F.sessionToken}` } };
const probes = [
  `/maps/${F.map}?info=true&all_categories=true&categories=true&markers=true&paths=true&polygons=true&publisher=true&map_data=true&contact=true&map_sponsors=true&tag_counts=true&contents=true`,
  `/maps/${F.map}?markers=true&version_id=${F.v1}`,
  `/events?map_id=${F.map}&from=2026-01-01T00:00:00Z&to=2029-01-01T00:00:00Z&limit=200`,
  `/places-of-interest/items/${F.map}?include_counts=true`,
  `/places-of-interest/map/${F.pacific}`,
  `/maps/${F.map}/lists`,
  `/maps/${F.disabled}/details`,
  `/publisher/${F.publisher}/maps`,
];

/** Status and body of every probe, plus the session-dependent event (a database read at request time). */
async function snapshot(target: TestTarget): Promise<string[]> {
  const out: string[] = [];
  for (const path of probes) {
    const res = await target.get(path);
    out.push(`${path} ${res.status} ${await res.text()}`);
  }
  const res = await target.get(`/events/${F.savedEvent}`, bearer);
  out.push(`session ${res.status} ${await res.text()}`);
  return out;
}

let t: TestTarget;
before(async () => { t = await openTarget(bundle); });
after(async () => { await t?.close(); });

test('the same bundle with upper-case UUIDs is served byte for byte like the lowercase one, also from its data snapshot', async () => {
  const lower = await snapshot(t);
  assert.ok(lower.every((line) => / 200 /.test(line)), 'every probe answers 200');
  assert.match(lower[lower.length - 1], /"is_saved":true/);
  // Over HTTP the first service loads the bundle (unless an earlier run left its data snapshot), and the
  // second, started while the first runs, reopens (a copy of) the data snapshot the first one wrote.
  const first = await openTarget(upperCaseIds(bundle));
  const second = await openTarget(upperCaseIds(bundle)).catch(async (err) => { await first.close(); throw err; });
  try {
    for (const [name, upper] of [['first', first], ['second', second]] as const) {
      assert.deepEqual(await snapshot(upper), lower, `${name} service`);
      const { status, body } = await upper.json(`/markers/${F.v1OnlyMarker.toUpperCase()}`);
      assert.equal(status, 200, `${name} service`);
      assert.equal(body.id, F.v1OnlyMarker);
      assert.deepEqual(body.version_ids, [F.v1]);
    }
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
});

test('an item without version_ids is served in every published version of its map', async () => {
  const marker = bundle.markers.find((m) => m.map_id === F.map && m.version_ids === undefined)!;
  const { body } = await t.json(`/markers/${marker.id}`);
  assert.deepEqual(body.version_ids, [F.v1, F.v2].sort());
  for (const version of [F.v1, F.v2]) {
    const { status, body: list } = await t.json(`/maps/${F.map}/markers?version_id=${version}`);
    assert.equal(status, 200);
    assert.ok(list.markers.some((m: { id: string }) => m.id === marker.id), `in ${version}`);
  }
  const v2Only = bundle.markers.find((m) => m.version_ids?.length === 1 && m.version_ids[0] === F.v2)!;
  const { body: v1List } = await t.json(`/maps/${F.map}/markers?version_id=${F.v1}`);
  assert.ok(!v1List.markers.some((m: { id: string }) => m.id === v2Only.id), 'a v2-only marker is not in v1');
});
