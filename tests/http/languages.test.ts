/**
 * Languages (docs: api-conventions.md, "Languages"): every endpoint that serves text answers in the language
 * negotiated from `lang`, else Accept-Language, against its map's languages (a region tag falls back to its base
 * language, anything not offered to the map's default), says so in Content-Language, varies by Accept-Language,
 * and never mixes languages; `langs=all` gives every text as an object; the response cache and ETags keep the
 * languages apart; cursors work in every language.
 *
 * The fixture's maps offer pt (the default), en and es; every text is translated, en and es marked by a prefix,
 * so the language of each string of an answer is known. One marker's name has no es: it falls back to pt.
 * A second fixture offers regional and script tags (zh-Hant, pt-BR, es-419, sr-Cyrl, ...) for CLDR best fit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BundleT } from '../../src/content/bundle/bundle-schema.ts';
import { F, makeFixture, uuidFor } from '../helpers/fixture.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { type BundleText, mapTexts, stringsOf, textLanguages } from '../helpers/texts.ts';

const LANGS = ['pt', 'en', 'es'] as const;
const M = F.map;
const A = uuidFor('marker:main0');
const B = uuidFor('marker:main1');
const PATH0 = uuidFor('path:0');
const ROOT0 = uuidFor('category:root0');

/** The fixture with every text in pt, en and es (B's name without es), and every map offering the three. */
function translatedFixture(): BundleT {
  const b = makeFixture();
  for (const m of b.maps) Object.assign(m, { default_language: 'pt', languages: [...LANGS] });
  mapTexts(b as unknown as Record<string, unknown>, (value) => {
    const pt = value as string;
    return { pt, en: `EN ${pt}`, es: `ES ${pt}` };
  });
  const marker = b.markers.find((m) => m.id === B)!;
  const name = marker.name as Record<string, string>;
  marker.name = { pt: name.pt, en: name.en };
  return b;
}

const bundle = translatedFixture();
const languagesOf = textLanguages(bundle as unknown as Record<string, unknown>, 'pt');
const B_PT = (bundle.markers.find((m) => m.id === B)!.name as Record<string, string>).pt;

/** Every endpoint that serves text (the 27 of the spec). */
const SAMPLES = [
  `/maps/${M}?info=true&all_categories=true&categories=true&markers=true&paths=true&polygons=true&publisher=true&map_data=true&contact=true&map_sponsors=true&tag_counts=true&contents=true`,
  `/maps/${M}/details`, `/maps/${F.disabled}/details`, `/maps/${M}/contents`, `/publisher/${F.publisher}`,
  `/publisher/${F.publisher}/maps`, `/events?map_id=${M}`, `/events/upcoming-by-poi?poi_ids=${A},${B}&from=2026-11-01`, `/events/${F.savedEvent}`,
  `/maps/${M}/pois?tags=${ROOT0}`, `/maps/${M}/markers`, `/maps/${M}/markers/${A}`, `/markers/${B}`,
  `/maps/${M}/paths`, `/maps/${M}/paths/${PATH0}`, `/paths/${PATH0}`, `/maps/${M}/polygons`,
  `/maps/${M}/polygons/${F.holePolygon}`, `/polygons/${F.holePolygon}`, `/places-of-interest/items/${M}`,
  `/places-of-interest/map/${M}`, `/places-of-interest/id/${A}`, '/places-of-interest/icons',
  `/places-of-interest/tags-pois-orders?map_id=${M}&type=keywords`, `/poi-associations/${A}`, `/poi-associations?poi_ids=${A},${B}`,
  `/maps/${M}/lists`, `/maps/${M}/lists/${F.verifiedList}`,
];

let t: TestTarget;
before(async () => { t = await openTarget(bundle); });
after(async () => { await t?.close(); });

const withParam = (path: string, param: string) => `${path}${path.includes('?') ? '&' : '?'}${param}`;

/** Checks that every text of a body is in `lang` (B's pt name stands in for its missing es); answers how many texts it saw. */
function assertIn(body: unknown, lang: string, what: string): number {
  let seen = 0;
  for (const s of stringsOf(body)) {
    const langs = languagesOf.get(s);
    if (!langs) continue;
    seen++;
    const fallback = lang === 'es' && s === B_PT;
    assert.ok(langs.has(lang) || fallback, `${what}: "${s}" is in ${[...langs].join('/')}, not ${lang}`);
  }
  return seen;
}

/** The headers every answer in a language carries. */
function assertLanguageHeaders(res: Response, lang: string, what: string): void {
  assert.equal(res.headers.get('content-language'), lang, `${what}: Content-Language`);
  const vary = (res.headers.get('vary') ?? '').split(',').map((x) => x.trim().toLowerCase());
  assert.ok(vary.includes('accept-language'), `${what}: Vary ${res.headers.get('vary')}`);
}

describe('every endpoint in every language', () => {
  test('lang=… answers in that language, with Content-Language and Vary: Accept-Language, mixing none', async () => {
    for (const path of SAMPLES) {
      for (const lang of LANGS) {
        const target = withParam(path, `lang=${lang}`);
        const res = await t.get(target);
        assert.equal(res.status, 200, target);
        assertLanguageHeaders(res, lang, target);
        const seen = assertIn(await res.json(), lang, target);
        assert.ok(seen > 0, `${target}: no text to check`);
      }
    }
  });

  test('Accept-Language alone does the same, and no header gets the default language (pt)', async () => {
    for (const path of SAMPLES) {
      for (const lang of [...LANGS, null]) {
        const res = await t.get(path, lang ? { headers: { 'accept-language': lang } } : {});
        assert.equal(res.status, 200, path);
        assertLanguageHeaders(res, lang ?? 'pt', `${path} ${lang}`);
        assertIn(await res.json(), lang ?? 'pt', `${path} Accept-Language: ${lang}`);
      }
    }
  });

  test('a text with no translation in the language asked for is served in the default language', async () => {
    const en = (await t.json(`/markers/${B}?lang=en`)).body;
    const es = (await t.json(`/markers/${B}?lang=es`)).body;
    assert.equal(en.name, `EN ${B_PT}`);
    assert.equal(es.name, B_PT);
    assertIn(es, 'es', 'the other texts of the record are still in es');
  });
});

describe('negotiation', () => {
  const cases: [Record<string, string>, string, string][] = [
    [{ 'accept-language': 'en-US,en;q=0.9' }, '', 'en'],
    [{ 'accept-language': 'pt-BR' }, '', 'pt'],
    [{ 'accept-language': 'es-MX, en;q=0.5' }, '', 'es'],
    [{ 'accept-language': 'fr' }, '', 'pt'],
    [{ 'accept-language': 'fr, es;q=0.5' }, '', 'es'],
    [{ 'accept-language': 'es;q=0.2, en;q=0.8' }, '', 'en'],
    [{ 'accept-language': 'en;q=0, es;q=0.1' }, '', 'es'],
    [{ 'accept-language': 'en;q=0' }, '', 'pt'],
    [{ 'accept-language': '*' }, '', 'pt'],
    [{ 'accept-language': 'de, *;q=0.1' }, '', 'pt'],
    [{ 'accept-language': ';;garbage,,' }, '', 'pt'],
    [{ 'accept-language': 'en' }, 'lang=es', 'es'],
    [{}, 'lang=pt-BR', 'pt'],
    [{}, 'lang=EN-gb', 'en'],
    [{}, 'lang=zh-Hant-TW', 'pt'],
    [{ 'accept-language': 'en' }, 'lang=ja', 'pt'],
  ];
  test('q-values, region tags to their base language, unsupported languages to the default, lang over the header', async () => {
    for (const [headers, param, served] of cases) {
      for (const path of [`/maps/${M}/contents`, '/places-of-interest/icons', `/events/${F.savedEvent}`]) {
        const target = param ? withParam(path, param) : path;
        const res = await t.get(target, { headers });
        assert.equal(res.status, 200, target);
        assertLanguageHeaders(res, served, `${target} ${JSON.stringify(headers)}`);
        assertIn(await res.json(), served, `${target} ${JSON.stringify(headers)}`);
      }
    }
  });

  test('a lang that is not a BCP 47 tag, or a langs other than all, gets 400 naming each', async () => {
    for (const [query, names] of [['lang=not_a_tag!', ['lang']], ['lang=', ['lang']], ['langs=every', ['langs']],
      ['lang=x-y-z-too-long-subtag-here&langs=pt', ['lang', 'langs']], ['lang=en&lang=es', ['lang']]] as const) {
      const { status, body, res } = await t.json(`/maps/${M}/contents?${query}`);
      assert.equal(status, 400, query);
      assert.match(res.headers.get('content-type')!, /^application\/problem\+json/);
      assert.deepEqual(body.errors.map((e: { name: string }) => e.name), names, query);
    }
  });
});

describe('langs=all', () => {
  test('every text is the object of its languages, and Content-Language lists the map\'s', async () => {
    const map = bundle.maps.find((m) => m.id === M)!;
    const { body, res } = await t.json(`/maps/${M}?info=true&contents=true&langs=all`);
    assert.equal(res.headers.get('content-language'), 'pt, en, es');
    assert.deepEqual(body.name, map.name);
    assert.deepEqual(body.info.summary, map.info.summary);
    const titles = (xs: BundleText[]) => xs.map((x) => JSON.stringify(x)).sort();
    assert.deepEqual(titles(body.contents.map((c: { title: BundleText }) => c.title)), titles(map.content_blocks.map((c) => c.title)));
    const marker = (await t.json(`/markers/${B}?langs=all&lang=en`)).body;
    assert.deepEqual(marker.name, bundle.markers.find((m) => m.id === B)!.name, 'only the languages it has');
    const events = (await t.json(`/events?map_id=${M}&langs=all`)).body.events;
    assert.ok(events.length > 0);
    for (const e of events) assert.deepEqual(e.title, bundle.events.find((x) => x.id === e.id)!.title);
  });
});

describe('caching', () => {
  const path = `/maps/${M}/contents`;
  test('the response cache keeps each language apart: one language asked again and again, then another', async () => {
    for (let k = 0; k < 3; k++) assertIn((await t.json(path, { headers: { 'accept-language': 'en' } })).body, 'en', 'en');
    for (const lang of ['es', 'pt']) {
      for (const target of [path, `${path}?utm=1`]) {
        const res = await t.get(target, { headers: { 'accept-language': lang } });
        assertLanguageHeaders(res, lang, `${target} ${lang}`);
        assertIn(await res.json(), lang, `${target} ${lang}`);
      }
    }
    const noHeader = await t.get(`${path}?lang=es`, { headers: { 'accept-language': 'en' } });
    assertLanguageHeaders(noHeader, 'es', 'lang=es over Accept-Language: en');
  });

  test('ETags differ per language, and If-None-Match answers 304 only for the same language', async () => {
    const tags = new Map<string, string>();
    for (const lang of LANGS) tags.set(lang, (await t.get(path, { headers: { 'accept-language': lang } })).headers.get('etag')!);
    assert.equal(new Set(tags.values()).size, 3, [...tags.values()].join(' '));
    for (const asked of LANGS) {
      for (const held of LANGS) {
        const res = await t.get(path, { headers: { 'accept-language': asked, 'if-none-match': tags.get(held)! } });
        assert.equal(res.status, asked === held ? 304 : 200, `asked ${asked} holding ${held}`);
        if (res.status === 304) assert.equal(res.headers.get('content-language'), asked);
      }
    }
    // The same bytes in another language are another representation: a map offering one text in every language
    // still tags them apart (B's name in es is its pt name).
    const ptTag = (await t.get(`/markers/${B}?lang=pt`)).headers.get('etag');
    assert.notEqual((await t.get(`/markers/${B}?lang=es`)).headers.get('etag'), ptTag);
  });
});

describe('cursors', () => {
  test('a walk through the pages in each language visits the same events, each page in its language', async () => {
    const walk = async (lang: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const q = new URLSearchParams({ map_id: M, from: '2026-11-01', to: '2028-12-31', limit: '37' });
        if (cursor) q.set('cursor', cursor);
        const { status, body, res } = await t.json(`/events?${q}`, { headers: { 'accept-language': lang } });
        assert.equal(status, 200);
        assertLanguageHeaders(res, lang, `page ${ids.length}`);
        assertIn(body, lang, `events page in ${lang}`);
        ids.push(...body.events.map((e: { id: string }) => e.id));
        cursor = body.next_cursor;
      } while (cursor);
      return ids;
    };
    const pt = await walk('pt');
    assert.ok(pt.length > 37);
    for (const lang of ['en', 'es']) assert.deepEqual(await walk(lang), pt, lang);
  });
});

describe('best fit across regions and scripts', () => {
  // The main map offers regional and script tags, el its default; the Pacific map offers en (default) and pt; the
  // disabled map (its /details still answers) offers en (default), pt-PT and zh-Hans. Each text is "<tag> <name>"
  // in each tag, the plain name in a map's default.
  const OFFERED: Record<string, string[]> = {
    [M]: ['el', 'zh-Hant', 'zh-Hans', 'pt-BR', 'es-419', 'es-ES', 'sr-Cyrl', 'en-GB'],
    [F.pacific]: ['en', 'pt'],
    [F.disabled]: ['en', 'pt-PT', 'zh-Hans'],
  };
  const fixture = makeFixture();
  for (const m of fixture.maps) Object.assign(m, { default_language: OFFERED[m.id][0], languages: OFFERED[m.id] });
  const names = new Map(fixture.maps.map((m) => [m.id, m.name as string]));
  mapTexts(fixture as unknown as Record<string, unknown>, (value) => {
    const plain = value as string;
    const tags = new Set(Object.values(OFFERED).flat());
    return Object.fromEntries([...tags].map((tag) => [tag, ['el', 'en'].includes(tag) ? plain : `${tag} ${plain}`]));
  });
  let regional: TestTarget;
  before(async () => { regional = await openTarget(fixture); });
  after(async () => { await regional?.close(); });

  /** Checks that `/maps/<map>/details` asked with `param` and `headers` is served in `served`, header and name. */
  async function assertServed(map: string, param: string, headers: Record<string, string>, served: string): Promise<void> {
    const target = `/maps/${map}/details${param ? `?${param}` : ''}`;
    const what = `${target} ${JSON.stringify(headers)}`;
    const { status, body, res } = await regional.json(target, { headers });
    assert.equal(status, 200, what);
    assertLanguageHeaders(res, served, what);
    const name = names.get(map)!;
    assert.equal(body.name, ['el', 'en'].includes(served) ? name : `${served} ${name}`, what);
  }

  const cases: [string, string, Record<string, string>, string][] = [
    // A longer tag is served the offered tag it shortens to, by lang and by Accept-Language alike.
    [M, 'lang=zh-Hant-TW', {}, 'zh-Hant'],
    [M, '', { 'accept-language': 'zh-Hant-TW' }, 'zh-Hant'],
    [M, '', { 'accept-language': 'zh-TW' }, 'zh-Hant'],
    [M, '', { 'accept-language': 'zh-HK' }, 'zh-Hant'],
    [M, '', { 'accept-language': 'zh-CN' }, 'zh-Hans'],
    // Another region of the same language is served before the default: pt-PT reads pt-BR.
    [M, 'lang=pt-PT', {}, 'pt-BR'],
    [M, '', { 'accept-language': 'pt-PT' }, 'pt-BR'],
    [M, '', { 'accept-language': 'pt' }, 'pt-BR'],
    [M, '', { 'accept-language': 'es-MX' }, 'es-419'],
    [M, '', { 'accept-language': 'es-AR' }, 'es-419'],
    [M, '', { 'accept-language': 'es' }, 'es-ES'],
    [M, '', { 'accept-language': 'en' }, 'en-GB'],
    [M, '', { 'accept-language': 'en-US' }, 'en-GB'],
    // Serbian readers read both scripts (CLDR); Chinese ones are not served the other script.
    [M, '', { 'accept-language': 'sr-Latn' }, 'sr-Cyrl'],
    [F.disabled, '', { 'accept-language': 'zh-TW' }, 'en'],
    [F.disabled, 'lang=zh-Hant', {}, 'en'],
    [F.disabled, '', { 'accept-language': 'zh-Hant, pt;q=0.5' }, 'pt-PT'],
    // A base language is served the regional tag offered; the region of the old rules still holds.
    [F.disabled, '', { 'accept-language': 'pt' }, 'pt-PT'],
    [F.disabled, 'lang=pt-BR', {}, 'pt-PT'],
    [F.pacific, '', { 'accept-language': 'pt-BR' }, 'pt'],
    // Another language is never served, however close CLDR calls it (ca reads es, nb reads da, gl reads pt).
    [M, '', { 'accept-language': 'fr' }, 'el'],
    [M, '', { 'accept-language': 'ca' }, 'el'],
    [F.pacific, 'lang=fr', {}, 'en'],
    [F.pacific, '', { 'accept-language': 'fr' }, 'en'],
    [F.pacific, '', { 'accept-language': 'gl' }, 'en'],
    [F.pacific, '', { 'accept-language': 'fr-FR, fr;q=0.9' }, 'en'],
    // q-values: the best-liked language with an offered tag wins, near match or not; ties keep header order.
    [M, '', { 'accept-language': 'fr, pt-PT;q=0.5, en;q=0.8' }, 'en-GB'],
    [M, '', { 'accept-language': 'en;q=0.5, pt-PT;q=0.6' }, 'pt-BR'],
    [M, '', { 'accept-language': 'pt-PT, en-GB;q=0.9' }, 'pt-BR'],
    [M, '', { 'accept-language': 'en;q=0.5, pt;q=0.5' }, 'en-GB'],
    [M, '', { 'accept-language': 'pt;q=0.5, en;q=0.5' }, 'pt-BR'],
    [F.pacific, '', { 'accept-language': 'fr, pt;q=0.1' }, 'pt'],
    // q=0 is never chosen: it refuses the tags it covers, and the next language is tried.
    [M, '', { 'accept-language': 'pt;q=0, en;q=0.1' }, 'en-GB'],
    [M, '', { 'accept-language': 'pt-BR;q=0, pt-PT' }, 'el'],
    [M, '', { 'accept-language': 'es-ES;q=0, es' }, 'es-419'],
    [M, '', { 'accept-language': 'zh;q=0, zh-TW, en;q=0.1' }, 'en-GB'],
    [F.pacific, '', { 'accept-language': 'pt;q=0' }, 'en'],
    // `*` is the default, or the first offered tag no other range names.
    [M, '', { 'accept-language': '*' }, 'el'],
    [M, '', { 'accept-language': 'fr, *;q=0.5' }, 'el'],
    [M, '', { 'accept-language': 'el;q=0, *' }, 'zh-Hant'],
    [F.pacific, '', { 'accept-language': 'en;q=0, *' }, 'pt'],
    // lang wins over the header; a malformed header, or a malformed entry of one, is ignored.
    [M, 'lang=pt-PT', { 'accept-language': 'en' }, 'pt-BR'],
    [M, 'lang=fr', { 'accept-language': 'en' }, 'el'],
    [M, '', { 'accept-language': ';;garbage,,' }, 'el'],
    [M, '', { 'accept-language': 'pt_PT, en;q=x, zh-TW;q=0.5' }, 'zh-Hant'],
  ];
  test('regional and script tags are matched by best fit, within the language asked for, in the order asked', async () => {
    for (const [map, param, headers, served] of cases) await assertServed(map, param, headers, served);
  });

  test('the same preference again is answered alike (negotiations are kept)', async () => {
    for (let k = 0; k < 2; k++) {
      await assertServed(M, '', { 'accept-language': 'zh-Hant-TW' }, 'zh-Hant');
      await assertServed(F.pacific, '', { 'accept-language': 'zh-Hant-TW' }, 'en');
      await assertServed(M, 'lang=pt-PT', {}, 'pt-BR');
      // A header is not taken for a lang that spells the same (lpt is a language of its own, not offered).
      await assertServed(M, '', { 'accept-language': 'lpt-PT' }, 'el');
    }
  });
});

describe('a bundle that declares no languages', () => {
  let plain: TestTarget;
  const fixture = makeFixture();
  before(async () => { plain = await openTarget(fixture); });
  after(async () => { await plain?.close(); });

  test('is served in en, its texts as strings as before, whatever is asked for', async () => {
    for (const headers of [{}, { 'accept-language': 'pt-PT, pt;q=0.9' }] as Record<string, string>[]) {
      const { body, res } = await plain.json(`/maps/${M}/details`, { headers });
      assertLanguageHeaders(res, 'en', JSON.stringify(headers));
      assert.equal(body.name, fixture.maps.find((m) => m.id === M)!.name);
    }
    const all = await plain.json(`/maps/${M}/details?langs=all`);
    assert.equal(all.res.headers.get('content-language'), 'en');
    assert.deepEqual(all.body.name, { en: fixture.maps.find((m) => m.id === M)!.name });
  });
});
