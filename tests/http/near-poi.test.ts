/**
 * `near_poi` with `radius_m` on /events and /maps/{map_id}/pois, against a brute force of the test's own: the
 * distance from each anchor point (each POI's vertices) to the place named, a marker's point, a path's segments, a
 * polygon's outline or inside, measured by sampling each segment finely with the haversine (points within a hair
 * of the radius are left out of the comparison: the two measures differ there by centimetres).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { F, makeFixture, mulberry32, uuidFor } from '../helpers/fixture.ts';
import { flat, haversineM, type Geometry, type Position } from '../helpers/brute-force.ts';

const WIDE = 'from=2000-01-01&to=2100-01-01&status=all';

/** Metres from (lng, lat) to a geometry, sampled: every segment cut in 400 pieces; 0 inside a polygon. */
function distanceTo(g: Geometry, [lng, lat]: Position): number {
  const at = (p: Position) => haversineM(lat, lng, p[1], p[0]);
  const lines = g.type === 'Point' ? [[g.coordinates]] : g.type === 'LineString' ? [g.coordinates] : g.type === 'Polygon' ? g.coordinates : [g.coordinates];
  if (g.type === 'Polygon') {
    let inside = false;
    for (const ring of g.coordinates) {
      for (let k = 0; k + 1 < ring.length; k++) {
        const [a, b] = [ring[k], ring[k + 1]];
        if ((a[1] > lat) !== (b[1] > lat) && lng < a[0] + ((lat - a[1]) / (b[1] - a[1])) * (b[0] - a[0])) inside = !inside;
      }
    }
    if (inside) return 0;
  }
  let best = Infinity;
  for (const line of lines) {
    if (line.length === 1) best = Math.min(best, at(line[0]));
    for (let k = 1; k < line.length; k++) {
      const [a, b] = [line[k - 1], line[k]];
      for (let s = 0; s <= 400; s++) best = Math.min(best, at([a[0] + ((b[0] - a[0]) * s) / 400, a[1] + ((b[1] - a[1]) * s) / 400]));
    }
  }
  return best;
}

describe('near_poi', () => {
  let t: TestTarget;
  const places = new Map<string, Geometry>();
  const anchorsElsewhere = new Map<string, Geometry>();
  let events: { id: string; anchors: { id: string }[] }[] = [];
  before(async () => {
    t = await openTarget(makeFixture());
    for (const kind of ['markers', 'paths', 'polygons']) {
      const { body } = await t.json(`/maps/${F.map}/${kind}`);
      for (const r of body[kind]) places.set(r.id, kind === 'markers' ? { type: 'Point', coordinates: [r.lng, r.lat] } : r.geometry);
    }
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const { body }: { body: any } = await t.json(`/events?map_id=${F.map}&${WIDE}&limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      events.push(...body.events);
      cursor = body.next_cursor;
    }
    // An event's anchor may be a POI of another published version than the current one: public, and a place too.
    for (const id of new Set(events.flatMap((e) => e.anchors.map((a) => a.id)))) {
      if (places.has(id)) continue;
      const { status, body } = await t.json(`/places-of-interest/id/${id}`);
      if (status === 200) anchorsElsewhere.set(id, body.type === 'marker' ? { type: 'Point', coordinates: [body.record.lng, body.record.lat] } : body.record.geometry);
    }
  });
  after(() => t.close());

  /** Each case: a place of each kind and a radius, with what a brute force keeps and what lies on the edge. */
  function cases() {
    const rand = mulberry32(37);
    const ids = [...places.keys()];
    const byKind = (type: string) => ids.filter((id) => places.get(id)!.type === type);
    return ['Point', 'LineString', 'Polygon'].flatMap((type) => byKind(type).slice(0, 4).map((id) => ({ id, radius: Math.round(200 + rand() * 3000) })));
  }

  /** Whether a POI's vertices come within `radius` of the place (true, false, or null on the edge). */
  function near(place: Geometry, poi: Geometry, radius: number): boolean | null {
    const d = Math.min(...flat(poi).map((p) => distanceTo(place, p)));
    if (Math.abs(d - radius) < 0.5) return null;
    return d <= radius;
  }

  test('/events: exactly the events with an anchor point within radius_m of the place', async () => {
    let nonEmpty = 0;
    for (const { id, radius } of cases()) {
      const place = places.get(id)!;
      const verdicts = events.map((e) => {
        const anchors = e.anchors.map((a) => places.get(a.id) ?? anchorsElsewhere.get(a.id)).filter((g) => g !== undefined);
        const each = anchors.map((g) => near(place, g, radius));
        return { id: e.id, near: each.includes(true) ? true : each.includes(null) ? null : false };
      });
      const got: string[] = [];
      for (let cursor: string | null = null, first = true; first || cursor; first = false) {
        const { status, body }: { status: number; body: any } = await t.json(`/events?map_id=${F.map}&${WIDE}&near_poi=${id}&radius_m=${radius}&limit=200${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(status, 200);
        got.push(...body.events.map((e: { id: string }) => e.id));
        cursor = body.next_cursor;
      }
      const edge = new Set(verdicts.filter((v) => v.near === null).map((v) => v.id));
      const want = verdicts.filter((v) => v.near === true).map((v) => v.id).sort();
      assert.deepEqual(got.filter((x) => !edge.has(x)).sort(), want, `${place.type} ${id} within ${radius} m`);
      if (want.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty >= 6, `most places have events near them (${nonEmpty})`);
  });

  test('/maps/{map_id}/pois: exactly the POIs with a vertex within radius_m of the place, with tags as always', async () => {
    const { body: map } = await t.json(`/places-of-interest/items/${F.map}`);
    const roots = JSON.stringify(map).match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)!.filter((x) => x !== F.map);
    const tags = [...new Set(roots)].slice(0, 100).join(',');
    const { body: all } = await t.json(`/maps/${F.map}/pois?tags=${tags}&end=500`);
    const tagged: string[] = all.items.map((p: { id: string }) => p.id);
    assert.ok(tagged.length > 20);
    for (const { id, radius } of cases()) {
      const place = places.get(id)!;
      const { status, body } = await t.json(`/maps/${F.map}/pois?tags=${tags}&near_poi=${id}&radius_m=${radius}&end=500`);
      assert.equal(status, 200);
      const verdict = new Map(tagged.map((p) => [p, near(place, places.get(p)!, radius)]));
      const got = body.items.map((p: { id: string }) => p.id).filter((p: string) => verdict.get(p) !== null);
      assert.deepEqual(got, tagged.filter((p) => verdict.get(p) === true), `${place.type} ${id} within ${radius} m`);
      assert.ok(got.includes(id) || !tagged.includes(id), 'a place is near itself');
    }
  });

  test('bad combinations get 400 naming the parameter; a near_poi that names no public POI gets 404', async () => {
    const marker = [...places.keys()][0];
    for (const [path, name] of [
      [`/events?map_id=${F.map}&radius_m=500`, 'radius_m'],
      [`/events?map_id=${F.map}&near=38.7,-9.1&near_poi=${marker}`, 'near_poi'],
      [`/events?map_id=${F.map}&near_poi=nope`, 'near_poi'],
      [`/maps/${F.map}/pois?tags=${marker}&radius_m=500`, 'radius_m'],
    ] as const) {
      const { status, body } = await t.json(path);
      assert.equal(status, 400, path);
      assert.deepEqual(body.errors.map((e: { name: string }) => e.name), [name], path);
    }
    // A POI of another map names a place like any other.
    const { body: pacific } = await t.json(`/maps/${F.pacific}/markers`);
    assert.equal((await t.get(`/events?map_id=${F.map}&near_poi=${pacific.markers[0].id}`)).status, 200);
    for (const hidden of [uuidFor('nothing'), F.draftMarker, F.disabledMarker]) {
      assert.equal((await t.get(`/events?map_id=${F.map}&near_poi=${hidden}`)).status, 404, hidden);
      assert.equal((await t.get(`/maps/${F.map}/pois?tags=${marker}&near_poi=${hidden}`)).status, 404, hidden);
    }
  });
});
