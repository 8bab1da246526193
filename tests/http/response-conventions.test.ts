/**
 * Response conventions over the demo: snake_case names, UTC timestamps with Z, objects at the top
 * level. (That `total` does not rerun the whole query for every page: tests/match-cache.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readDemoBundle } from '../helpers/app.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';

const demo = await readDemoBundle();
const map = demo.maps.find((m) => m.enabled && m.versions.length > 2)!;
const markers = demo.markers.filter((m) => m.map_id === map.id && !m.version_ids);
const path = demo.paths.find((p) => p.map_id === map.id && !p.version_ids)!;
const polygon = demo.polygons.find((p) => p.map_id === map.id && !p.version_ids)!;
const list = demo.lists.find((l) => l.map_id === map.id && l.verified)!;
const root = demo.categories.find((c) => c.map_id === map.id && c.parent_id === null && !c.version_ids)!;
const event = demo.events.find((e) => e.map_id === map.id && e.poi_ids.length > 1)!;
const ids = markers.slice(0, 20).map((m) => m.id).join(',');
const all = 'info=true&all_categories=true&categories=true&markers=true&paths=true&polygons=true&publisher=true&map_data=true&contact=true&map_sponsors=true&tag_counts=true&contents=true';

const TARGETS = [
  `/maps/${map.id}?${all}`, `/maps/${map.id}/details`, `/maps/${map.id}/contents`, `/publisher/${map.publisher_id}`,
  `/publisher/${map.publisher_id}/maps?lat=38.7&lng=-9.1`, `/events?map_id=${map.id}&from=2027-01-01&limit=200`,
  `/events/${event.id}`, `/maps/${map.id}/pois?tags=${root.id}&end=500`, `/maps/${map.id}/markers`, `/markers/${markers[0].id}`,
  `/maps/${map.id}/paths/${path.id}`, `/polygons/${polygon.id}`, `/places-of-interest/items/${map.id}?include_counts=true`,
  `/places-of-interest/map/${map.id}`, `/places-of-interest/id/${path.id}`, `/places-of-interest/icons`,
  `/places-of-interest/tags-pois-orders?map_id=${map.id}&path_id=${root.id}`, `/poi-associations/${markers[0].id}`,
  `/maps/${map.id}/lists`, `/maps/${map.id}/lists/${list.id}`,
];
const BATCHES = [`/events/upcoming-by-poi?poi_ids=${ids}&from=2026-11-01`, `/poi-associations?poi_ids=${ids}&include_reverse=true`];

let t: TestTarget;
before(async () => { t = await openTarget(demo); });
after(async () => { await t?.close(); });

/** Every key of every object in a JSON value, and every string value. */
function walk(value: unknown, keys: Set<string>, strings: string[]): void {
  if (Array.isArray(value)) for (const v of value) walk(v, keys, strings);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) { keys.add(k); walk(v, keys, strings); }
  } else if (typeof value === 'string') strings.push(value);
}

test('every name in every response is snake_case and every timestamp is UTC with Z', async () => {
  const keys = new Set<string>();
  const strings: string[] = [];
  for (const target of TARGETS) {
    const { status, body } = await t.json(target);
    assert.equal(status, 200, target);
    assert.ok(body && typeof body === 'object' && !Array.isArray(body), target);
    walk(body, keys, strings);
  }
  for (const target of BATCHES) {
    const { status, body } = await t.json(target);
    assert.equal(status, 200, target);
    // The batch routes are keyed by the requested ids; everything below them follows the rule.
    assert.deepEqual(Object.keys(body), ids.split(','));
    for (const value of Object.values(body)) walk(value, keys, strings);
  }
  const bad = [...keys].filter((k) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(k));
  assert.deepEqual(bad, []);
  assert.ok(keys.has('next_cursor') && keys.has('external_id') && keys.has('time_zone'));
  const times = strings.filter((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s));
  assert.ok(times.length > 500, `only ${times.length} timestamps seen`);
  assert.deepEqual(times.filter((s) => !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/.test(s)), []);
});
