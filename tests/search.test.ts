/**
 * Search by name (`q`) on /events and /maps/:map_id/pois, over the demo (real Portuguese names and titles), in
 * process: every answer is the brute-force answer over the same bundle (helpers/brute-force.ts, written apart
 * from the service's text-search.ts), with every page walked, `total` checked, and q combined with the other
 * filters. Accents and case do not matter: "jeronimos" finds "Mosteiro dos Jerónimos". A name matches in any of
 * its map's languages (the demo's: en, pt, and es on the main map), whatever language the answer is in. Folding
 * in other scripts drops accents only, never a mark that tells words apart (the folding tests at the end).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { foldedWords, matchesQuery, searchable } from '../src/content/model/text-search.ts';
import { buildReference, filterEvents, nameMatches, type Reference } from './helpers/brute-force.ts';
import { openTestApp, readDemoBundle, type TestApp } from './helpers/app.ts';
import { mulberry32 } from './helpers/fixture.ts';
import { textsOf } from './helpers/texts.ts';

const demo = await readDemoBundle();
const MAP = demo.maps.find((m) => m.enabled && demo.events.some((e) => e.map_id === m.id))!.id;
const FROM = '2026-01-01T00:00:00Z';
const TO = '2029-12-31T00:00:00Z';
let t: TestApp;
let ref: Reference;

before(async () => {
  t = await openTestApp(demo);
  ref = buildReference(demo);
});
after(async () => {
  await t?.close();
});

/** Drops accents and shuffles case, as a visitor typing on any keyboard would. */
function typed(word: string, rand: () => number): string {
  const plain = word.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  return [...(rand() < 0.5 ? plain : word)].map((c) => (rand() < 0.3 ? c.toUpperCase() : c.toLowerCase())).join('');
}

/** Every event of every page of /events for `params`, and the total each page reported. */
async function walk(params: Record<string, string>): Promise<{ ids: string[]; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const qs: URLSearchParams = new URLSearchParams({ ...params, limit: '7', ...(cursor ? { cursor } : {}) });
    const { status, body }: { status: number; body: any } = await t.json(`/events?${qs}`);
    assert.equal(status, 200, JSON.stringify(body));
    ids.push(...body.events.map((e: { id: string }) => e.id));
    totals.push(body.total);
    cursor = body.next_cursor;
    if (!cursor) return { ids, totals };
  }
  throw new Error('too many pages');
}

describe('q on /events', () => {
  test('"jeronimos", "SAO JOAO" and "arraial graca" find the accented titles', async () => {
    for (const [q, title] of [['sao joao', 'Arraial de São João na Graça 2027'], ['arraial graca', 'Arraial de São João na Graça 2028'], ['BELEM summer', 'Belém Summer Nights']]) {
      const { ids } = await walk({ map_id: MAP, from: FROM, to: TO, q });
      const titled = ref.events.filter((e) => e.title === title).map((e) => e.id);
      assert.ok(titled.length > 0, title);
      for (const id of titled) assert.ok(ids.includes(id), `${q} finds "${title}"`);
    }
  });

  test('200 seeded queries, alone and with tags, types, bbox or near, page by page: the brute-force answer and total', async () => {
    const rand = mulberry32(13);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
    const events = ref.events.filter((e) => e.mapId === MAP);
    let nonEmpty = 0;
    for (let n = 0; n < 200; n++) {
      const e = pick(events);
      // Words of the title in one of its languages.
      const words = pick(e.titles).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
      // One or two words of a real title, cut to a prefix, typed with or without accents; now and then a word no title has.
      const chosen = [pick(words), ...(rand() < 0.4 ? [pick(words)] : [])].map((w) => typed(w.slice(0, 2 + Math.floor(rand() * w.length)), rand));
      if (rand() < 0.1) chosen.push('zzqx');
      const q = chosen.join(rand() < 0.5 ? ' ' : ', ');
      const params: Record<string, string> = { map_id: MAP, from: FROM, to: TO, q };
      const filters: Parameters<typeof filterEvents>[1] = { mapId: MAP, fromMs: Date.parse(FROM), toMs: Date.parse(TO), q };
      const extra = rand();
      if (extra < 0.2 && e.tags.length > 0) { params.tags = e.tags[0]; filters.tags = [e.tags[0]]; }
      else if (extra < 0.35) { params.event_types = e.type; filters.types = [e.type]; }
      else if (extra < 0.5 && e.points.length > 0) {
        const [lng, lat] = e.points[0];
        params.near = `${lat},${lng}`;
        params.radius_m = '1500';
        filters.near = { lat, lng, radiusM: 1500 };
      } else if (extra < 0.6 && e.points.length > 0) {
        const [lng, lat] = e.points[0];
        params.bbox = `${lng - 0.01},${lat - 0.01},${lng + 0.01},${lat + 0.01}`;
        filters.bbox = { west: lng - 0.01, south: lat - 0.01, east: lng + 0.01, north: lat + 0.01 };
      }
      const expected = filterEvents(ref, filters).map((x) => x.id);
      const { ids, totals } = await walk(params);
      assert.deepEqual(ids, expected, JSON.stringify(params));
      assert.ok(totals.every((x) => x === expected.length), `${JSON.stringify(params)}: totals ${totals}`);
      if (expected.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty > 120, `${nonEmpty} of 200 queries found something`);
  });

  test('words of a title in any language find it, and the answer is in the language asked for', async () => {
    for (const [q, lang, title] of [['rastro', 'pt', 'Feira da Ladra'], ['sardinha', 'en', 'Sardine Festival 2027'],
      ['verbena san juan', 'en', 'Arraial de São João na Graça 2027'], ['fiestas lisboa', 'pt', 'Festas de Lisboa 2027']] as const) {
      const { status, body, res } = await t.json(`/events?${new URLSearchParams({ map_id: MAP, from: FROM, to: TO, q, lang, limit: '200' })}`);
      assert.equal(status, 200);
      assert.equal(res.headers.get('content-language'), lang);
      assert.ok(body.events.some((e: { title: string }) => e.title === title), `${q} (${lang}) finds "${title}"`);
      const expected = filterEvents(ref, { mapId: MAP, fromMs: Date.parse(FROM), toMs: Date.parse(TO), q }).map((x) => x.id);
      assert.deepEqual(body.events.map((e: { id: string }) => e.id), expected.slice(0, 200), q);
      assert.equal(body.total, expected.length, q);
    }
  });

  test('every word must match in the same language: Spanish and Portuguese words together find nothing', async () => {
    const both = await t.json(`/events?${new URLSearchParams({ map_id: MAP, from: FROM, to: TO, q: 'verbena joao' })}`);
    assert.equal(both.body.total, 0);
    assert.ok((await t.json(`/events?${new URLSearchParams({ map_id: MAP, from: FROM, to: TO, q: 'verbena juan' })}`)).body.total > 0);
  });

  test('a cursor is bound to its q, and a bad q gets 400 naming q', async () => {
    const first = await t.json(`/events?${new URLSearchParams({ map_id: MAP, from: FROM, to: TO, q: 'arraial', limit: '1' })}`);
    assert.ok(first.body.next_cursor);
    const other = await t.json(`/events?${new URLSearchParams({ map_id: MAP, from: FROM, to: TO, q: 'feira', limit: '1', cursor: first.body.next_cursor })}`);
    assert.equal(other.status, 400);
    assert.deepEqual(other.body.errors.map((e: { name: string }) => e.name), ['cursor']);
    for (const [q, reason] of [['', /at least one letter or digit/], ['!!! ??', /at least one letter or digit/],
      ['a b c d e f g h i j k', /at most 10 words/], ['x'.repeat(201), /at most 200 characters/]] as const) {
      const res = await t.json(`/events?${new URLSearchParams({ map_id: MAP, q })}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.errors[0].name, 'q');
      assert.match(res.body.errors[0].reason, reason);
    }
  });
});

describe('q on /maps/:map_id/pois', () => {
  const roots = () => demo.categories.filter((c) => c.map_id === MAP && c.parent_id === null).map((c) => c.id);

  test('"jeronimos" finds "Mosteiro dos Jerónimos", and "praca" both squares', async () => {
    const tags = roots().join(',');
    const names = async (q: string) => (await t.json(`/maps/${MAP}/pois?${new URLSearchParams({ tags, q, end: '500' })}`)).body.items.map((p: { name: string }) => p.name);
    assert.ok((await names('jeronimos')).includes('Mosteiro dos Jerónimos'));
    const squares = await names('PRACA');
    for (const name of ['Praça do Comércio', 'Praça do Rossio']) assert.ok(squares.includes(name), name);
  });

  test('a name in another language finds the POI: "parada tranvia" finds the Tram 28 stops, answered in English', async () => {
    const tags = roots().join(',');
    const { body, res } = await t.json(`/maps/${MAP}/pois?${new URLSearchParams({ tags, q: 'parada tranvia', end: '500' })}`);
    assert.equal(res.headers.get('content-language'), 'en');
    const names = body.items.map((p: { name: string }) => p.name);
    assert.ok(names.length >= 8 && names.every((n: string) => n.startsWith('Tram 28 stop – ')), names.join(', '));
  });

  test('for seeded queries and tags, the window is the tagged POIs whose names match, in order, with their total', async () => {
    const rand = mulberry32(29);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
    const categories = demo.categories.filter((c) => c.map_id === MAP).map((c) => c.id);
    const names = demo.markers.filter((m) => m.map_id === MAP).flatMap((m) => textsOf(m.name));
    // Every POI's name in each of its languages: a name matches in any of them.
    const namesOf = new Map([...demo.markers, ...demo.paths, ...demo.polygons].map((p) => [p.id, textsOf(p.name)]));
    for (let n = 0; n < 60; n++) {
      const tags = rand() < 0.5 ? roots().join(',') : [pick(categories), pick(categories)].join(',');
      const words = pick(names).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
      const q = typed(pick(words).slice(0, 1 + Math.floor(rand() * 6)), rand);
      const all = (await t.json(`/maps/${MAP}/pois?${new URLSearchParams({ tags, end: '500' })}`)).body;
      const expected = all.items.filter((p: { id: string }) => namesOf.get(p.id)!.some((name) => nameMatches(name, q))).map((p: { id: string }) => p.id);
      const got: string[] = [];
      for (let start = 0; ; start += 5) {
        const { status, body } = await t.json(`/maps/${MAP}/pois?${new URLSearchParams({ tags, q, start: String(start), end: String(start + 5) })}`);
        assert.equal(status, 200);
        assert.equal(body.total, expected.length, `${tags} ${q}`);
        got.push(...body.items.map((p: { id: string }) => p.id));
        if (body.end >= body.total) break;
      }
      assert.deepEqual(got, expected, `${tags} ${q}`);
    }
  });
});

describe('folding: accents go, marks that tell words apart stay', () => {
  /** True when the query finds the name, both folded by text-search.ts as the routes fold them. */
  const finds = (query: string, name: string) => matchesQuery(searchable(name), foldedWords(query));

  test('Japanese voicing marks stay: "バス" (bus) finds "バス停", not "ハス池" (lotus pond); half-width "ﾊﾞｽ" is "バス"', () => {
    assert.ok(finds('バス', 'バス停'));
    assert.ok(!finds('バス', 'ハス池'));
    assert.ok(finds('ハス', 'ハス池'));
    // A bare ハ does not begin バ: the kept mark is part of its letter, not a letter after it.
    assert.ok(!finds('ハ', 'バス停'));
    assert.ok(!finds('ハン', 'パン屋'));
    assert.ok(finds('ﾊﾞｽ', 'バス'));
    assert.ok(finds('ﾊﾟﾝ', 'パン屋'));
    assert.ok(finds('バス', 'ﾊﾞｽ停'));
    assert.ok(finds('ばす', 'ばす停') && !finds('ばす', 'はす池'), 'hiragana alike');
    assert.deepEqual(foldedWords('ﾊﾞｽ'), ['バス']);
  });

  test('Latin, Greek and Cyrillic accents fold, both ways, and full-width letters are plain ones', () => {
    assert.ok(finds('jeronimos', 'Mosteiro dos Jerónimos'));
    assert.ok(finds('Jerónimos', 'Mosteiro dos Jeronimos'));
    assert.ok(finds('ακροπολη', 'Ακρόπολη'));
    assert.ok(finds('ΑΚΡΌΠΟΛΗ', 'Μουσείο Ακρόπολης'));
    assert.ok(finds('елка', 'Ёлка'));
    assert.ok(finds('istanbul', 'İstanbul'));
    assert.ok(finds('ｔｏｋｙｏ', 'Tokyo Tower'));
    // Final sigma is σ: "ΟΔΟΣ" typed in capitals begins a longer word.
    assert.ok(finds('ΟΔΟΣ', 'Οδοστρωτήρας'));
  });

  test('Arabic harakat, hamza marks and tatweel, and Hebrew niqqud, fold: they are usually left out in writing', () => {
    assert.ok(finds('مكتبة', 'مَكْتَبَة'));
    assert.ok(finds('مَكْتَبَة', 'مكتبة'));
    assert.ok(finds('احمد', 'أحمد'));
    assert.ok(finds('مكتبة', 'مكـتـبة'));
    assert.ok(!finds('مكتبة', 'كتاب'));
    assert.ok(finds('שלום', 'שָׁלוֹם'));
    assert.ok(finds('שָׁלוֹם', 'שלום'));
  });

  test('Indic vowel signs and viramas stay: "हिन्दी" finds "हिन्दी", its bare consonants "हनद" do not', () => {
    assert.ok(finds('हिन्दी', 'हिन्दी भाषा'));
    assert.ok(finds('भाषा', 'हिन्दी भाषा'), 'the marks belong to their word: a name is not split at them');
    assert.ok(!finds('हनद', 'हिन्दी'));
    assert.deepEqual(foldedWords('हिन्दी भाषा'), ['हिन्दी', 'भाषा']);
    assert.ok(finds('தமிழ்', 'தமிழ் நாடு') && !finds('தமழ', 'தமிழ்'), 'Tamil alike');
  });

  test('Thai vowel and tone marks stay: "ไม่" (not) does not find "ไม้" (wood)', () => {
    assert.ok(finds('ไม้', 'ไม้'));
    assert.ok(!finds('ไม่', 'ไม้'));
    assert.ok(!finds('ไม้', 'ไม่'));
    assert.ok(finds('กรุงเทพ', 'กรุงเทพมหานคร'));
    assert.ok(!finds('กรงเทพ', 'กรุงเทพมหานคร'));
  });

  test('Hangul matches by syllable whether either side is written in syllables or in jamo', () => {
    assert.ok(finds('서울', '서울역'));
    assert.ok(finds('서울'.normalize('NFD'), '서울역'));
    assert.ok(finds('서울', '서울역'.normalize('NFD')));
    assert.ok(finds('ㅅ', 'ㅅ'), 'compatibility jamo');
    assert.ok(!finds('설', '서울역'));
    assert.ok(!finds('부산', '서울역'));
  });
});
