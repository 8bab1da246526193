/**
 * The demo in its languages, as an outside client sees it: every endpoint in each language of the demo (en,
 * the default; pt; es on the Lisbon City Guide), asked with `lang` and with Accept-Language variants. Each
 * answer says its language in Content-Language, varies by Accept-Language, and every text in it is the bundle's
 * text in that language (a proper name, a plain string, is the same in all).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { BundleT } from '../../src/content/bundle/bundle-schema.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { mapTexts, stringsOf } from '../helpers/texts.ts';

const text = await readFile(new URL('../../data/demo-bundle.json', import.meta.url), 'utf8');
const demo = JSON.parse(text) as BundleT;
const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const mainMap = demo.maps.find((m) => m.id === MAIN)!;
const foodMap = demo.maps.find((m) => m.enabled && m.id !== MAIN && m.publisher_id === mainMap.publisher_id)!;

/** Each text of the demo with the languages it is written in; `*` for a plain string (a proper name, in every language). */
const languagesOf = new Map<string, Set<string>>();
mapTexts(demo as unknown as Record<string, unknown>, (value) => {
  const entries = typeof value === 'string' ? [['*', value]] : Object.entries(value);
  for (const [lang, s] of entries) {
    if (!languagesOf.has(s)) languagesOf.set(s, new Set());
    languagesOf.get(s)!.add(lang);
  }
  return value;
});

const onMain = <T extends { map_id: string; version_ids?: string[] }>(xs: T[]) => xs.find((x) => x.map_id === MAIN && !x.version_ids)!;
const marker = onMain(demo.markers);
const path = onMain(demo.paths);
const polygon = onMain(demo.polygons);
const list = demo.lists.find((l) => l.map_id === MAIN && l.verified)!;
const root = demo.categories.find((c) => c.map_id === MAIN && c.parent_id === null && !c.version_ids)!;
const withEvents = demo.events.find((e) => e.map_id === MAIN && e.poi_ids.length > 0 && e.starts_at > '2027-01-01')!;
const anchor = withEvents.poi_ids[0];
const associated = demo.associations.find((a) => a.list_id === null)!.poi_id;

/** Every endpoint that serves text, on the main map. */
const SAMPLES = [
  `/maps/${MAIN}?info=true&all_categories=true&categories=true&markers=true&paths=true&polygons=true&publisher=true&contact=true&map_sponsors=true&contents=true`,
  `/maps/${MAIN}/details`, `/maps/${MAIN}/contents`, `/publisher/${mainMap.publisher_id}`, `/publisher/${mainMap.publisher_id}/maps`,
  `/events?map_id=${MAIN}&from=2027-06-01&to=2027-06-30&limit=200`, `/events/upcoming-by-poi?poi_ids=${anchor},${associated}&from=2027-01-01`,
  `/events/${withEvents.id}`, `/maps/${MAIN}/pois?tags=${root.id}&end=500`, `/maps/${MAIN}/markers`, `/maps/${MAIN}/markers/${marker.id}`,
  `/markers/${marker.id}`, `/maps/${MAIN}/paths`, `/maps/${MAIN}/paths/${path.id}`, `/paths/${path.id}`, `/maps/${MAIN}/polygons`,
  `/maps/${MAIN}/polygons/${polygon.id}`, `/polygons/${polygon.id}`, `/places-of-interest/items/${MAIN}?include_counts=true`,
  `/places-of-interest/map/${MAIN}`, `/places-of-interest/id/${path.id}`, '/places-of-interest/icons',
  `/places-of-interest/tags-pois-orders?map_id=${MAIN}&type=keywords`, `/places-of-interest/tags-pois-orders?map_id=${MAIN}&path_id=${root.id}`,
  `/poi-associations/${associated}`, `/poi-associations?poi_ids=${associated},${anchor}&include_reverse=true`,
  `/maps/${MAIN}/lists`, `/maps/${MAIN}/lists/${list.id}`,
];

let t: TestTarget;
before(async () => { t = await openTarget(text); });
after(async () => { await t?.close(); });

/** Checks every text of a body is in `lang` (or a proper name); answers how many translated texts it saw. */
function assertIn(body: unknown, lang: string, what: string): number {
  let translated = 0;
  for (const s of stringsOf(body)) {
    const langs = languagesOf.get(s);
    if (!langs || langs.has('*') && langs.size === 1) continue;
    assert.ok(langs.has(lang) || langs.has('*'), `${what}: "${s}" is in ${[...langs].join('/')}, not ${lang}`);
    if (!langs.has('*')) translated++;
  }
  return translated;
}

function assertHeaders(res: Response, lang: string, what: string): void {
  assert.equal(res.status, 200, what);
  assert.equal(res.headers.get('content-language'), lang, `${what}: Content-Language`);
  assert.ok((res.headers.get('vary') ?? '').toLowerCase().split(',').map((x) => x.trim()).includes('accept-language'), `${what}: Vary`);
}

describe('the demo in every language', () => {
  test('every endpoint of the main map in en, pt and es, by lang and by Accept-Language, mixes no languages', async () => {
    for (const sample of SAMPLES) {
      for (const lang of ['en', 'pt', 'es']) {
        for (const [target, headers] of [[`${sample}${sample.includes('?') ? '&' : '?'}lang=${lang}`, {}],
          [sample, { 'accept-language': `${lang}-XX, ${lang};q=0.9, de;q=0.5` }]] as const) {
          // A publisher's answers are about all its maps: in a language they all offer (its food map has no Spanish).
          const served = sample.startsWith('/publisher/') && lang === 'es' ? 'en' : lang;
          const res = await t.get(target, { headers });
          assertHeaders(res, served, `${target} ${JSON.stringify(headers)}`);
          const translated = assertIn(await res.json(), served, target);
          assert.ok(translated > 0 || sample.includes('icons'), `${target}: no translated text`);
        }
      }
    }
  });

  test('no preference, or one the map does not offer, gets English, as before languages came', async () => {
    for (const headers of [{}, { 'accept-language': 'fr-FR, fr;q=0.9' }, { 'accept-language': '*' }] as Record<string, string>[]) {
      const res = await t.get(`/maps/${MAIN}?info=true&contents=true`, { headers });
      assertHeaders(res, 'en', JSON.stringify(headers));
      const body = await res.json();
      assert.equal(body.name, (mainMap.name as Record<string, string>).en);
      assertIn(body, 'en', JSON.stringify(headers));
    }
  });

  test('a map without Spanish answers in English for es, and Portuguese for pt-BR', async () => {
    const es = await t.get(`/maps/${foodMap.id}/contents`, { headers: { 'accept-language': 'es' } });
    assertHeaders(es, 'en', 'food map, es');
    assertIn(await es.json(), 'en', 'food map, es');
    const pt = await t.get(`/maps/${foodMap.id}/contents?lang=pt-BR`);
    assertHeaders(pt, 'pt', 'food map, pt-BR');
    assertIn(await pt.json(), 'pt', 'food map, pt-BR');
  });

  test('langs=all gives the bundle\'s texts', async () => {
    const res = await t.get(`/maps/${MAIN}/details?langs=all`);
    assert.equal(res.headers.get('content-language'), 'en, pt, es');
    assert.deepEqual((await res.json()).name, mainMap.name);
  });
});
