/**
 * Open now: `open_at` and `open_now` on /maps/{map_id}/pois, the open state each answer carries, and the week of hours
 * on the pages and in the JSON-LD, over two maps (Lisbon with Portugal's holidays, New York with the United States')
 * whose POIs have rules past midnight, closed on holidays, around both clock changes, by the sun, and unknown.
 *
 * Every answer is compared with two brute forces of the test's own: the `opening_hours` library asked directly at the
 * instant's wall time (computed here with Intl), and a linear scan of the open intervals the service precomputes for
 * the instant's week (the reader's `openIntervals`). The instants are around midnight, both clock changes of both
 * zones and public holidays; `opens_at`/`closes_at` are the library's next change, turned into an instant here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hoursReader } from '../../src/content/hours.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { HOURS, HOURS_RULES, hoursBundle } from '../helpers/small-bundles.ts';
import { DATES, DAY, instantsAround, intervalsOpen, library, libraryNextChange, libraryOpen, MAPS, RULES, setReader, type Key } from '../helpers/hours-oracle.ts';

const bundle = hoursBundle();

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const NOW = new Date('2026-12-23T12:00:00Z');

let t: TestTarget;
before(async () => {
  setReader(await hoursReader());
  t = await openTarget(bundle, { now: NOW });
});
after(async () => { await t.close(); });

/** Every POI open at `at` on map `key` (open_at, in windows of 4 to prove the windows count only those). */
async function openAt(key: Key, at: number) {
  const path = `/maps/${HOURS.map(key)}/pois?tags=${HOURS.category(key)}&open_at=${iso(at)}`;
  const { status, body } = await t.json(`${path}&end=500`);
  assert.equal(status, 200, JSON.stringify(body));
  return body as { items: { id: string; type: string; hours: string | null; open_now: boolean; opens_at: string | null; closes_at: string | null }[]; total: number };
}

describe('open_at on /maps/{map_id}/pois', () => {
  for (const key of Object.keys(MAPS) as Key[]) {
    test(`${key}: the POIs open at each instant around midnight, clock changes and holidays, as the library and the week's intervals say`, async () => {
      let compared = 0;
      let openSeen = 0;
      for (const date of DATES[key]) {
        for (const at of instantsAround(date, MAPS[key].zone)) {
          const body = await openAt(key, at);
          const got = body.items.map((p) => p.id).sort();
          const byLibrary = [...RULES].filter(([, r]) => r.key === key && libraryOpen(key, r.rule, at)).map(([id]) => id).sort();
          const byIntervals = [...RULES].filter(([, r]) => r.key === key && intervalsOpen(key, r.rule, at)).map(([id]) => id).sort();
          assert.deepEqual(got, byLibrary, `${key} ${iso(at)}: open_at against the library`);
          assert.deepEqual(got, byIntervals, `${key} ${iso(at)}: open_at against the precomputed intervals`);
          assert.equal(body.total, got.length);
          for (const p of body.items) {
            assert.equal(p.open_now, true);
            assert.equal(p.opens_at, null);
            const next = libraryNextChange(key, RULES.get(p.id)!.rule, at);
            assert.equal(p.closes_at, next === null ? null : iso(next), `${key} ${iso(at)} ${p.hours}: closes_at`);
          }
          compared++;
          openSeen += got.length;
        }
      }
      assert.ok(compared > 250 && openSeen > 700, `${compared} instants, ${openSeen} open answers`);
    });
  }

  test('a rule past midnight is open after it, a holiday closes a PH off rule, and the gap and overlap hours answer by the wall clock', async () => {
    const ids = async (at: string) => new Set((await openAt('lisbon', Date.parse(at))).items.map((p) => p.id));
    assert.ok((await ids('2026-12-24T01:30:00Z')).has(HOURS.marker('lisbon', 0)), '19:30-02:00 is open at 01:30 the next day');
    assert.ok(!(await ids('2026-12-24T02:00:00Z')).has(HOURS.marker('lisbon', 0)), 'and closed at 02:00');
    assert.ok((await ids('2026-12-24T12:00:00Z')).has(HOURS.marker('lisbon', 1)), 'Tu-Su 10-18 on Thursday 24 December');
    assert.ok(!(await ids('2026-12-25T12:00:00Z')).has(HOURS.marker('lisbon', 1)), 'PH off on Christmas Day');
    assert.ok(!(await ids('2026-12-25T12:00:00Z')).has(HOURS.marker('lisbon', 7)), 'Dec 25 off');
    assert.ok(!(await ids('2027-01-01T12:00:00Z')).has(HOURS.marker('lisbon', 7)), 'Jan 01 13:00-20:00: closed at noon');
    assert.ok((await ids('2027-01-01T13:00:00Z')).has(HOURS.marker('lisbon', 7)), 'and open at 13:00');
    // 28 March 2027: Lisbon's clocks go from 01:00 to 02:00 (UTC 01:00). 01:30-02:30 is open from 02:00 local (01:00Z) to 02:30 (01:30Z).
    assert.ok(!(await ids('2027-03-28T00:59:59Z')).has(HOURS.marker('lisbon', 4)), 'before the jump (00:59:59 local)');
    assert.ok((await ids('2027-03-28T01:00:00Z')).has(HOURS.marker('lisbon', 4)), 'the clocks jump into the open interval');
    assert.ok(!(await ids('2027-03-28T01:30:00Z')).has(HOURS.marker('lisbon', 4)), 'closed at 02:30 local');
    // 31 October 2027: 01:00-02:00 local happens twice (00:00Z-01:00Z at +01:00, 01:00Z-02:00Z at +00:00): open both times from 01:30.
    for (const at of ['2027-10-31T00:30:00Z', '2027-10-31T01:30:00Z']) assert.ok((await ids(at)).has(HOURS.marker('lisbon', 4)), at);
    assert.ok(!(await ids('2027-10-31T01:00:00Z')).has(HOURS.marker('lisbon', 4)), '01:00 local, the second time: not yet');
  });

  test('POIs without hours are never listed; "by appointment" (unknown) is never open; total and windows count only the open', async () => {
    const at = '2026-12-28T10:30:00Z'; // a Monday
    const path = `/maps/${HOURS.map('lisbon')}/pois?tags=${HOURS.category('lisbon')}&open_at=${at}`;
    const all = await t.json(`${path}&end=500`);
    const ids: string[] = all.body.items.map((p: { id: string }) => p.id);
    assert.ok(!ids.includes(HOURS.trail('lisbon')) && !ids.includes(HOURS.marker('lisbon', 6)));
    const seen: string[] = [];
    for (let start = 0; start < all.body.total; start += 4) {
      const page = await t.json(`${path}&start=${start}&end=${start + 4}`);
      assert.equal(page.body.total, all.body.total);
      seen.push(...page.body.items.map((p: { id: string }) => p.id));
    }
    assert.deepEqual(seen, ids, 'every open POI exactly once, in name order, over windows of 4');
    const without = await t.json(`/maps/${HOURS.map('lisbon')}/pois?tags=${HOURS.category('lisbon')}&end=500`);
    assert.equal(without.body.total, HOURS_RULES.length + 2, 'without open_at every tagged POI, the trail too');
    assert.ok(without.body.items.every((p: Record<string, unknown>) => !('open_now' in p) && 'hours' in p), 'and no open state');
    assert.equal(without.body.items.find((p: { id: string }) => p.id === HOURS.trail('lisbon')).hours, null);
  });

  test('open_now is open_at the clock\'s now, and a live answer', async () => {
    const base = `/maps/${HOURS.map('newyork')}/pois?tags=${HOURS.category('newyork')}&end=500`;
    const now = await t.get(`${base}&open_now=true`);
    const at = await t.get(`${base}&open_at=${iso(NOW.getTime())}`);
    assert.deepEqual(await now.json(), await at.json());
    assert.notEqual(now.headers.get('cache-control'), at.headers.get('cache-control'), 'open_now follows the clock; open_at does not');
    const live = await t.get(`/events?map_id=${HOURS.map('newyork')}`);
    assert.equal(now.headers.get('cache-control'), live.headers.get('cache-control'), 'the cache class of a live answer');
  });

  test('a map serves its country upper case, whatever the case the bundle gives it in (New York\'s is "us")', async () => {
    for (const [key, country] of [['lisbon', 'PT'], ['newyork', 'US']] as const) {
      assert.equal((await t.json(`/maps/${HOURS.map(key)}/details`)).body.country, country);
    }
  });

  test('bad open_at and open_now are 400s naming them', async () => {
    const base = `/maps/${HOURS.map('lisbon')}/pois?tags=${HOURS.category('lisbon')}`;
    for (const [query, name] of [['open_at=2026-12-24', 'open_at'], ['open_at=2026-12-24T10:00:00', 'open_at'], ['open_at=tomorrow', 'open_at'],
      ['open_now=yes', 'open_now'], ['open_now=true&open_at=2026-12-24T10:00:00Z', 'open_now']]) {
      const { status, body } = await t.json(`${base}&${query}`);
      assert.equal(status, 400, query);
      assert.deepEqual(body.errors.map((e: { name: string }) => e.name), [name], query);
    }
    assert.equal((await t.json(`${base}&open_now=false`)).body.total, HOURS_RULES.length + 2, 'open_now=false asks nothing');
  });
});

describe('the week of hours on the pages and in the JSON-LD', () => {
  test('openingHoursSpecification gives each of the next 7 days its open times, as the library gives them, a holiday closed', async () => {
    for (const i of [0, 1, 2, 7]) {
      const id = HOURS.marker('lisbon', i);
      const { status, body } = await t.json(`/markers/${id}.jsonld`);
      assert.equal(status, 200);
      const specs = body.openingHoursSpecification as { dayOfWeek: string; opens: string; closes: string; validFrom: string; validThrough: string }[];
      const rule = HOURS_RULES[i];
      const oh = library('lisbon', rule);
      for (let d = 0; d < 7; d++) {
        const date = new Date(Date.parse('2026-12-23') + d * DAY).toISOString().slice(0, 10);
        const mine = specs.filter((s) => s.validFrom === date);
        assert.ok(mine.length > 0 && mine.every((s) => s.validThrough === date), `${rule} ${date}`);
        // The library's open intervals starting that day (the first day: also the end of the night before).
        const from = Date.parse(`${date}T00:00:00Z`);
        const intervals = oh.getOpenIntervals(new Date(from - DAY), new Date(from + 3 * DAY)).filter(([s, e, unknown]) => !unknown
          && s.getTime() < from + DAY && (s.getTime() >= from || (d === 0 && e.getTime() > from)));
        const hhmm = (x: Date) => x.toISOString().slice(11, 16);
        const expected = intervals.length === 0 ? [['00:00', '00:00']] : intervals.map(([s, e]) => [
          hhmm(new Date(Math.max(s.getTime(), from))), e.getTime() >= from + DAY && s.getTime() <= from ? '23:59' : hhmm(e)]);
        if (rule === '24/7') assert.deepEqual(mine.map((s) => [s.opens, s.closes]), [['00:00', '23:59']], date);
        else assert.deepEqual(mine.map((s) => [s.opens, s.closes]), expected, `${rule} ${date}`);
      }
    }
    const christmas = (await t.json(`/markers/${HOURS.marker('lisbon', 1)}.jsonld`)).body.openingHoursSpecification
      .filter((s: { validFrom: string }) => s.validFrom === '2026-12-25');
    assert.deepEqual(christmas.map((s: { opens: string; closes: string }) => [s.opens, s.closes]), [['00:00', '00:00']], 'closed on Christmas Day');
  });

  test('the page says whether it is open now and until when, and lists the week; a POI without hours has none', async () => {
    const page = await (await t.get(`/markers/${HOURS.marker('lisbon', 1)}.html`)).text();
    assert.match(page, /<strong class="open">Open now<\/strong>, until <time datetime="2026-12-23T18:00:00Z">/);
    assert.match(page, /<table class="hours">/);
    assert.match(page, /Friday[^<]*25[^<]*<\/th><td>Closed<\/td>/);
    assert.match(page, /Monday[^<]*28[^<]*<\/th><td>Closed<\/td>/);
    assert.match(page, /Thursday[^<]*24[^<]*<\/th><td>10:00–18:00<\/td>/);
    const night = await (await t.get(`/markers/${HOURS.marker('lisbon', 0)}.html`)).text();
    assert.match(night, /<strong class="closed">Closed now<\/strong>, opens <time datetime="2026-12-23T19:30:00Z">/);
    assert.match(night, /Wednesday[^<]*23[^<]*<\/th><td>00:00–02:00, 19:30–02:00<\/td>/);
    const always = await (await t.get(`/markers/${HOURS.marker('lisbon', 2)}.html`)).text();
    assert.match(always, /<strong class="open">Open now<\/strong><br>/, '24/7: open, no closing within a year');
    assert.match(always, /<td>Open all day<\/td>/);
    const park = await (await t.get(`/polygons/${HOURS.park('lisbon')}.html`)).text();
    assert.match(park, /<table class="hours">/, 'a polygon has hours too');
    const trail = await (await t.get(`/paths/${HOURS.trail('lisbon')}.html`)).text();
    assert.doesNotMatch(trail, /class="hours"|Open now|Closed now/);
    assert.equal((await t.json(`/paths/${HOURS.trail('lisbon')}.jsonld`)).body.openingHoursSpecification, undefined);
  });
});
