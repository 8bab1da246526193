/**
 * Field selection (docs/api-conventions.md, "Field selection"): on every route that answers records, `fields` keeps
 * and `omit` drops top-level fields of each record, never of the envelope; each record kept is exactly the full
 * answer's record without the other fields, its fields' bytes as they were; names a route's records do not have are a
 * 400 naming them; `fields` with `omit` is a 400 naming both; the selection is part of the cache key; a cursor of a
 * page with fields goes on as without. OGC's `properties` follows the same rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordFieldNames } from '../../src/http/fields.ts';
import { routes } from '../../src/routes/index.ts';
import { F, makeFixture, mulberry32, uuidFor } from '../helpers/fixture.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';

const bundle = makeFixture();
let t: TestTarget;
before(async () => {
  t = await openTarget(bundle);
});
after(async () => {
  await t?.close();
});

const M = F.map;
const A = uuidFor('marker:main0');
const PATH0 = uuidFor('path:0');
const ROOT0 = uuidFor('category:root0');

/** A request for each route that answers records (and a second field to keep besides `id`). */
const SAMPLES: Record<string, string> = {
  '/maps/:map_id': `/maps/${M}?info=true&markers=true`, '/maps/:map_id/details': `/maps/${M}/details`,
  '/maps/:map_id/contents': `/maps/${M}/contents`, '/publisher/:publisher_id': `/publisher/${F.publisher}`,
  '/publisher/:publisher_id/maps': `/publisher/${F.publisher}/maps`, '/events': `/events?map_id=${M}&from=2020-01-01&to=2030-01-01&limit=20`,
  '/events/upcoming-by-poi': `/events/upcoming-by-poi?poi_ids=${A},${PATH0}&from=2020-01-01T00:00:00Z`, '/events/:id': `/events/${F.savedEvent}`,
  '/maps/:map_id/pois': `/maps/${M}/pois?tags=${ROOT0}`, '/maps/:map_id/markers': `/maps/${M}/markers`,
  '/maps/:map_id/markers/:marker_id': `/maps/${M}/markers/${A}`, '/markers/:marker_id': `/markers/${A}`,
  '/maps/:map_id/paths': `/maps/${M}/paths`, '/maps/:map_id/paths/:path_id': `/maps/${M}/paths/${PATH0}`, '/paths/:path_id': `/paths/${PATH0}`,
  '/maps/:map_id/polygons': `/maps/${M}/polygons`, '/maps/:map_id/polygons/:polygon_id': `/maps/${M}/polygons/${F.holePolygon}`,
  '/polygons/:polygon_id': `/polygons/${F.holePolygon}`, '/places-of-interest/id/:poiId': `/places-of-interest/id/${A}`,
  '/places-of-interest/icons': '/places-of-interest/icons', '/poi-associations/:poi_id': `/poi-associations/${A}`,
  '/poi-associations': `/poi-associations?poi_ids=${A},${PATH0}`, '/maps/:map_id/lists': `/maps/${M}/lists`,
  '/maps/:map_id/lists/:list_id': `/maps/${M}/lists/${F.verifiedList}`,
};

const recordRoutes = routes.filter((r) => r.records);

/** Each record of a body as the route says where they are, with a way to put a changed record back. */
function recordsOf(body: any, at: string): Record<string, unknown>[] {
  if (at === 'body') return [body];
  if (at === 'values') return Object.values(body).flat() as Record<string, unknown>[];
  const value = body[at];
  return Array.isArray(value) ? value : [value];
}

/** The full body with each record cut to what `keeps` says, as the service should answer it. */
function expected(full: any, at: string, keeps: (name: string) => boolean): string {
  const cut = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => keeps(k)));
  if (at === 'body') return JSON.stringify(cut(full));
  if (at === 'values') return JSON.stringify(Object.fromEntries(Object.entries(full).map(([k, list]) => [k, (list as any[]).map(cut)])));
  const value = full[at];
  return JSON.stringify({ ...full, [at]: Array.isArray(value) ? value.map(cut) : cut(value) });
}

describe('fields and omit', () => {
  test('every route that answers records has a sample here, and takes both parameters', () => {
    assert.deepEqual(recordRoutes.map((r) => r.path).sort(), Object.keys(SAMPLES).sort());
  });

  test('each record keeps exactly the fields asked for (or all but those omitted), its bytes as in the full answer, and the envelope stays whole', async () => {
    for (const route of recordRoutes) {
      const path = SAMPLES[route.path];
      const at = route.records!;
      const full = await t.get(path);
      assert.equal(full.status, 200, path);
      const text = await full.text();
      const body = JSON.parse(text);
      const records = recordsOf(body, at);
      assert.ok(records.length > 0, `${path} has records`);
      // Keep `id` and the record's second field; omit its second and third.
      const [, second, third] = Object.keys(records[0]);
      const join = path.includes('?') ? '&' : '?';
      for (const [param, names, keeps] of [
        ['fields', ['id', second], (k: string) => k === 'id' || k === second],
        ['omit', [second, third], (k: string) => k !== second && k !== third],
      ] as const) {
        const res = await t.get(`${path}${join}${param}=${names.join(',')}`);
        assert.equal(res.status, 200, `${path} ${param}`);
        const cutText = await res.text();
        assert.equal(cutText, expected(body, at, keeps), `${path} ${param}=${names}`);
        for (const r of recordsOf(JSON.parse(cutText), at)) {
          for (const [k, value] of Object.entries(r)) assert.ok(text.includes(`${JSON.stringify(k)}:${JSON.stringify(value)}`), `${path}: ${k} as written in full`);
        }
      }
      // Every field the records have is a name the route takes.
      const known = recordFieldNames(route.response, at);
      for (const r of records) for (const k of Object.keys(r)) assert.ok(known.includes(k), `${path}: ${k} is documented`);
    }
  });

  test('/events writes each record with only the fields kept: every single field, every field but one, and seeded subsets, in every language, are the full answer cut', async () => {
    // /events writes its records from columns with only the fields kept (EventTable.writeSelectedRecords), where the other
    // routes cut them from the answer: each way must give the full answer's records less the other fields, byte for byte.
    const base = `/events?map_id=${M}&from=2020-01-01&to=2030-01-01&limit=200&status=all`;
    const random = mulberry32(37);
    for (const language of ['', '&lang=pt', '&langs=all']) {
      const text = await (await t.get(`${base}${language}`)).text();
      const body = JSON.parse(text);
      // Every field any record of the page has (the extras of some events, the series' fields of occurrences).
      const names = [...new Set(body.events.flatMap((e: object) => Object.keys(e)))] as string[];
      assert.ok(names.length >= 20 && body.events.length >= 20, `${names.length} fields over ${body.events.length} events`);
      const subsets = [...names.map((n) => [n]), ...Array.from({ length: 12 }, () => names.filter(() => random() < 0.4))].filter((x) => x.length > 0);
      // A shorter page with the same selection (another URL: not the response cache) copies its records from the ones
      // just written (EventTable.selectedWriting), and the names in another order are the same selection.
      const shorter = base.replace('limit=200', `limit=${body.events.length - 3}`);
      for (const kept of subsets) {
        const res = await t.get(`${base}${language}&fields=${kept.join(',')}`);
        assert.equal(await res.text(), expected(body, 'events', (k) => kept.includes(k)), `fields=${kept}${language}`);
        const again = await (await t.get(`${shorter}${language}&fields=${kept.toReversed().join(',')}`)).text();
        const { next_cursor, total } = JSON.parse(again);
        assert.equal(again, expected({ ...body, events: body.events.slice(0, -3), next_cursor, total }, 'events', (k) => kept.includes(k)),
          `fields=${kept.toReversed()}${language} on a shorter page`);
      }
      for (const left of names) {
        const res = await t.get(`${base}${language}&omit=${left}`);
        assert.equal(await res.text(), expected(body, 'events', (k) => k !== left), `omit=${left}${language}`);
      }
    }
  });

  test('names the records do not have are a 400 naming them; fields with omit is a 400 naming both; an empty list is no selection', async () => {
    const res = await t.get(`/events?map_id=${M}&fields=id,titel,next_cursor`);
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.deepEqual(body.errors.map((e: any) => e.name), ['fields']);
    assert.match(body.errors[0].reason, /"titel", "next_cursor", not a field/);
    const both = await (await t.get(`/markers/${A}?fields=id&omit=name`)).json();
    assert.deepEqual(both.errors.map((e: any) => e.name).sort(), ['fields', 'omit']);
    const omitted = await (await t.get(`/markers/${A}?omit=nope`)).json();
    assert.deepEqual(omitted.errors.map((e: any) => e.name), ['omit']);
    assert.equal(await (await t.get(`/markers/${A}?fields=`)).text(), await (await t.get(`/markers/${A}`)).text());
  });

  test('the selection is part of the cache key, and a cursor goes on as without it', async () => {
    const base = `/events?map_id=${M}&from=2020-01-01&to=2030-01-01&limit=7`;
    const narrow = await (await t.get(`${base}&fields=id`)).json();
    const whole = await (await t.get(base)).json();
    assert.ok(Object.keys(whole.events[0]).length > 5, 'the full answer after a narrow one is not the narrow one kept');
    assert.deepEqual(Object.keys(narrow.events[0]), ['id']);
    // Paging with fields gives the same ids, once each, as without.
    const pages = async (extra: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await (await t.get(`${base}${extra}${cursor ? `&cursor=${cursor}` : ''}`)).json();
        ids.push(...page.events.map((e: any) => e.id));
        cursor = page.next_cursor;
      } while (cursor);
      return ids;
    };
    const withFields = await pages('&fields=id,starts_at');
    assert.deepEqual(withFields, await pages(''));
    assert.equal(new Set(withFields).size, withFields.length);
  });

  test("OGC's properties keeps exactly the properties named, in the feature's own order, and names none it has not", async () => {
    const items = `/ogc/collections/${M}-markers/items?limit=5`;
    const full = await (await t.get(items)).json();
    const some = await (await t.get(`${items}&properties=name,id`)).json();
    for (const [k, f] of some.features.entries()) {
      const order = Object.keys(full.features[k].properties).filter((p) => p === 'name' || p === 'id');
      assert.deepEqual(Object.keys(f.properties), order);
      for (const p of order) assert.deepEqual(f.properties[p], full.features[k].properties[p]);
    }
    const bad = await t.get(`${items}&properties=name,colour`);
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).errors[0].reason, /"colour", not a field of this collection's features/);
  });
});
