/**
 * Recurring series. The service's occurrences are compared with an independent reader (ical.js, its own RRULE
 * engine) on rules that cross both clock changes, with EXDATE, RDATE, COUNT, UNTIL and BYSETPOS, in three zones;
 * with a brute force of our own at the times a clock change skips or repeats (where ical.js keeps what RFC 5545 says
 * to leave out); then over HTTP on a real store: every occurrence an event in /events (filters, cursors, total),
 * upcoming-by-poi and /events/{id}; the series at /events/{series id}; a saved series saves its occurrences; and a
 * publish that leaves a series alone leaves its occurrences (ids, horizon, ETags) alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import ICAL from 'ical.js';
import type { BundleT, EventT } from '../src/content/bundle/bundle-schema.ts';
import { BundleError, validateBundle } from '../src/content/bundle/validate-bundle.ts';
import { checkBundle } from '../src/content/bundle/check.ts';
import { expandSeries, MAX_OCCURRENCES, occurrenceId, ruleProblems, SERIES_HORIZON_DAYS, storedEvents } from '../src/content/series.ts';
import { instantsOfWall, wallTimeAt, type WallTime } from '../src/utils/zoned-time.ts';
import { makeUuidV5 } from '../src/utils/uuid.ts';
import { runId } from '../src/serve/id.ts';
import { openTestApp, type TestApp } from './helpers/app.ts';
import { emptyDatabase } from './helpers/store.ts';
import { openDb } from '../src/db/pglite.ts';
import { SqlStore } from '../src/content/store/sql-store.ts';
import { buildReference, filterEvents, upcomingForPoi } from './helpers/brute-force.ts';
import { F, makeFixture, mulberry32, uuidFor } from './helpers/fixture.ts';

const DAY = 86_400_000;

/** VTIMEZONEs of the zones tested, with their rules of today (ical.js needs them; the service reads the IANA zones). */
const VTIMEZONES: Record<string, string> = {
  'Europe/Lisbon': `BEGIN:VTIMEZONE
TZID:Europe/Lisbon
BEGIN:DAYLIGHT
TZOFFSETFROM:+0000
TZOFFSETTO:+0100
DTSTART:19700329T010000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0100
TZOFFSETTO:+0000
DTSTART:19701025T020000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE`,
  'America/New_York': `BEGIN:VTIMEZONE
TZID:America/New_York
BEGIN:DAYLIGHT
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
DTSTART:19700308T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
DTSTART:19701101T020000
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
END:STANDARD
END:VTIMEZONE`,
  'Australia/Sydney': `BEGIN:VTIMEZONE
TZID:Australia/Sydney
BEGIN:STANDARD
TZOFFSETFROM:+1100
TZOFFSETTO:+1000
DTSTART:19700405T030000
RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU
END:STANDARD
BEGIN:DAYLIGHT
TZOFFSETFROM:+1000
TZOFFSETTO:+1100
DTSTART:19701004T020000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU
END:DAYLIGHT
END:VTIMEZONE`,
};

const p2 = (n: number) => String(n).padStart(2, '0');
const icalWall = (w: WallTime) => `${w.year}${p2(w.month)}${p2(w.day)}T${p2(w.hour)}${p2(w.minute)}${p2(w.second)}`;
const icalUtc = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** The starts ical.js gives a series (at most `limit`, none after `untilMs`), in ms. */
function icalStarts(tz: string, startMs: number, rule: string, rdates: number[], exdates: number[], untilMs: number, limit = 2000): number[] {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//series//EN', VTIMEZONES[tz], 'BEGIN:VEVENT', 'UID:x', 'DTSTAMP:20260101T000000Z',
    `DTSTART;TZID=${tz}:${icalWall(wallTimeAt(startMs, tz))}`, `RRULE:${rule}`, ...rdates.map((d) => `RDATE:${icalUtc(d)}`),
    ...exdates.map((d) => `EXDATE:${icalUtc(d)}`), 'END:VEVENT', 'END:VCALENDAR'];
  const calendar = new ICAL.Component(ICAL.parse(lines.join('\r\n')));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const event = new ICAL.Event(calendar.getFirstSubcomponent('vevent')!);
  const it = event.iterator();
  const out: number[] = [];
  for (let next = it.next(); next && out.length < limit; next = it.next()) {
    const ms = next.toJSDate().getTime();
    if (ms > untilMs) break;
    out.push(ms);
  }
  return out.sort((a, b) => a - b);
}

const MAP = '00000000-0000-4000-8000-00000000a001';
const series = (over: Partial<EventT> & Pick<EventT, 'starts_at' | 'ends_at' | 'recurrence'>): EventT => ({
  id: '00000000-0000-4000-8000-00000000b001', map_id: MAP, title: 'Series', event_type: 'market', tags: [], poi_ids: [],
  created_at: '2026-01-01T00:00:00Z', ...over,
});
const ANCHOR = Date.parse('2026-11-28T00:00:00Z');

describe('expansion against ical.js, across both clock changes', () => {
  const cases: { tz: string; start: string; rule: string; rdates?: string[]; exdates?: string[] }[] = [
    { tz: 'Europe/Lisbon', start: '2026-12-01T09:00:00Z', rule: 'FREQ=WEEKLY;BYDAY=TU,SA' },
    { tz: 'Europe/Lisbon', start: '2027-01-03T10:00:00Z', rule: 'FREQ=WEEKLY;BYDAY=SU;COUNT=60' },
    { tz: 'Europe/Lisbon', start: '2027-01-02T20:30:00Z', rule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=SA;UNTIL=20281231T235959Z',
      rdates: ['2027-01-05T20:30:00Z', '2027-07-07T19:30:00Z'], exdates: ['2027-03-27T20:30:00Z', '2027-10-30T20:30:00Z'] },
    { tz: 'America/New_York', start: '2027-01-29T23:00:00Z', rule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=30' },
    { tz: 'America/New_York', start: '2027-01-01T14:30:00Z', rule: 'FREQ=DAILY;INTERVAL=3;UNTIL=20280301T000000Z', exdates: ['2027-03-15T13:30:00Z'] },
    { tz: 'Australia/Sydney', start: '2027-01-01T07:30:00Z', rule: 'FREQ=DAILY;UNTIL=20271231T000000Z' },
    { tz: 'Australia/Sydney', start: '2027-01-30T22:00:00Z', rule: 'FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=24' },
    { tz: 'Europe/Lisbon', start: '2027-06-13T18:00:00Z', rule: 'FREQ=YEARLY;BYMONTH=6;BYMONTHDAY=13;COUNT=5' },
  ];
  for (const c of cases) {
    test(`${c.tz} from ${c.start}: ${c.rule}`, async () => {
      const startMs = Date.parse(c.start);
      const doc = series({ starts_at: c.start, ends_at: new Date(startMs + 2 * 3_600_000).toISOString(), recurrence: { rule: c.rule, rdates: c.rdates, exdates: c.exdates } });
      const got = expandSeries(doc, c.tz, ANCHOR);
      assert.deepEqual(got.problems, []);
      const horizon = got.horizonEndMs ?? Infinity;
      const expected = icalStarts(c.tz, startMs, c.rule, (c.rdates ?? []).map(Date.parse), (c.exdates ?? []).map(Date.parse), horizon);
      const starts = got.occurrences.map((o) => Date.parse(o.starts_at));
      assert.deepEqual(starts.map((ms) => new Date(ms).toISOString()), expected.map((ms) => new Date(ms).toISOString()));
      assert.ok(starts.length >= 5);
      // Every occurrence lasts as long as the series' first, and is named by its original start.
      for (const o of got.occurrences) {
        assert.equal(Date.parse(o.ends_at) - Date.parse(o.starts_at), 2 * 3_600_000);
        assert.equal(o.id, makeUuidV5(doc.id, o.original_start!));
        // As docs/bundle-format.md says: the id subcommand, in the series' namespace, makes it from the original start.
        if (o === got.occurrences[0]) assert.equal(runId(['--namespace', doc.id, o.original_start!]).message, o.id);
        assert.equal(o.series_id, doc.id);
      }
      // Local time is kept across the changes: every occurrence of a rule without BYHOUR starts at the first's wall time.
      const wall = wallTimeAt(startMs, c.tz);
      const rdates = new Set((c.rdates ?? []).map(Date.parse));
      for (const ms of starts) {
        if (rdates.has(ms)) continue;
        const w = wallTimeAt(ms, c.tz);
        assert.deepEqual([w.hour, w.minute], [wall.hour, wall.minute], new Date(ms).toISOString());
      }
    });
  }
});

describe('times a clock change skips or repeats, against a brute force', () => {
  /** Daily at a wall time from a date, by brute force: a time the clocks skip is left out (and not counted), one they repeat is its first instant. */
  function bruteDaily(tz: string, first: WallTime, count: number): number[] {
    const out: number[] = [];
    for (let d = 0; out.length < count; d++) {
      const day = new Date(Date.UTC(first.year, first.month - 1, first.day + d));
      const instants = instantsOfWall({ ...first, year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate() }, tz);
      if (instants.length > 0) out.push(instants[0]);
    }
    return out;
  }
  const cases = [
    { tz: 'Europe/Lisbon', start: '2027-03-25T01:30:00Z', gapDay: '2027-03-28' },
    { tz: 'Europe/Lisbon', start: '2027-10-28T00:30:00Z', overlapDay: '2027-10-31' },
    { tz: 'America/New_York', start: '2027-03-11T07:30:00Z', gapDay: '2027-03-14' },
    { tz: 'America/New_York', start: '2027-11-04T05:30:00Z', overlapDay: '2027-11-07' },
    { tz: 'Australia/Sydney', start: '2027-09-30T16:30:00Z', gapDay: '2027-10-03' },
  ];
  for (const c of cases) {
    test(`${c.tz} daily from ${c.start}`, async () => {
      const startMs = Date.parse(c.start);
      const doc = series({ starts_at: c.start, ends_at: new Date(startMs + 1_800_000).toISOString(), recurrence: { rule: 'FREQ=DAILY;COUNT=8' } });
      const got = expandSeries(doc, c.tz, ANCHOR);
      assert.deepEqual(got.problems, []);
      const expected = bruteDaily(c.tz, wallTimeAt(startMs, c.tz), 8);
      assert.deepEqual(got.occurrences.map((o) => o.starts_at), expected.map((ms) => new Date(ms).toISOString().replace('.000Z', 'Z')));
      // check warns about the day, and says what the service does there.
      const day = (c.gapDay ?? c.overlapDay)!;
      const warning = got.warnings.find((w) => w.message.includes(day));
      assert.ok(warning, JSON.stringify(got.warnings));
      assert.match(warning.message, c.gapDay ? /skip: that occurrence is left out/ : /twice: the service serves the first/);
      if (c.gapDay) {
        // ical.js keeps the skipped day (an hour later): the readers disagree there, as the warning says.
        const ical = icalStarts(c.tz, startMs, 'FREQ=DAILY;COUNT=8', [], [], Infinity);
        assert.ok(ical.some((ms) => !expected.includes(ms)), 'ical.js keeps an occurrence the service leaves out');
      }
    });
  }
});

describe('what check refuses and warns about in a series', () => {
  const bundleWith = (...events: Partial<EventT>[]): BundleT => {
    const b = makeFixture({ events: 20 });
    const base = b.events[0];
    b.events.push(...events.map((e, i) => ({ ...base, id: uuidFor(`series:check:${i}`), recurrence: undefined, ...e }) as EventT));
    return b;
  };
  const problemsOf = (b: BundleT) => {
    try {
      validateBundle(b);
    } catch (err) {
      assert.ok(err instanceof BundleError);
      return err.problems;
    }
    return [];
  };
  const at = (b: BundleT, k: number) => `$.events[${b.events.length - k}]`;

  test('rule parts, the start, the horizon and overrides are refused at their paths, saying what is wrong', async () => {
    const b = bundleWith(
      { starts_at: '2027-01-05T09:00:00Z', ends_at: '2027-01-05T10:00:00Z', recurrence: { rule: 'FREQ=WEEKLY;BYDAY=TU,XX' } },
      { starts_at: '2027-01-05T09:00:00Z', ends_at: '2027-01-05T10:00:00Z', recurrence: { rule: 'FREQ=WEEKLY;COUNT=3;UNTIL=20270301T000000Z' } },
      { starts_at: '2027-01-07T09:00:00Z', ends_at: '2027-01-07T10:00:00Z', recurrence: { rule: 'FREQ=WEEKLY;BYDAY=TU,SA' } },
      { starts_at: '2027-10-31T00:30:00Z', ends_at: '2027-10-31T01:00:00Z', recurrence: { rule: 'FREQ=DAILY;COUNT=3' } },
      { starts_at: '2027-01-05T09:00:00Z', ends_at: '2027-01-05T10:00:00Z', recurrence: { rule: 'FREQ=DAILY;COUNT=1', exdates: ['2027-01-05T09:00:00Z'] } },
      { starts_at: '2027-01-05T09:00:00Z', ends_at: '2027-01-05T10:00:00Z', recurrence: { rule: 'FREQ=WEEKLY' },
        overrides: [{ original_start: '2027-01-06T09:00:00Z', status: 'cancelled' }, { original_start: '2027-01-12T09:00:00Z', ends_at: '2027-01-12T08:00:00Z' }] },
      { starts_at: '2027-01-05T09:00:00Z', ends_at: '2027-01-05T10:00:00Z', overrides: [{ original_start: '2027-01-05T09:00:00Z' }] },
      { starts_at: '2027-01-05T09:00:00Z', ends_at: '2027-01-05T10:00:00Z', recurrence: { rule: 'FREQ=MINUTELY' } },
      { starts_at: '2027-01-05T09:00:00Z', ends_at: '2027-01-05T10:00:00Z', recurrence: { rule: 'FREQ=SOMETIMES;BYMONTHDAY=0;WKST=XX' } },
    );
    const problems = problemsOf(b);
    const expect = (path: string, message: RegExp) => assert.ok(problems.some((p) => p.path === path && message.test(p.message)),
      `${path} ~ ${message}\n${problems.map((p) => `${p.path}: ${p.message}`).join('\n')}`);
    expect(`${at(b, 9)}.recurrence.rule`, /BYDAY has "XX": each day is MO, TU/);
    expect(`${at(b, 8)}.recurrence.rule`, /COUNT and UNTIL are given together/);
    expect(`${at(b, 7)}.starts_at`, /is not an occurrence of the rule FREQ=WEEKLY;BYDAY=TU,SA/);
    expect(`${at(b, 6)}.starts_at`, /2027-10-31 01:30 in Europe\/Lisbon, a time the clocks pass twice/);
    expect(`${at(b, 5)}.recurrence`, /leaves the series no occurrence/);
    expect(`${at(b, 4)}.overrides[0].original_start`, /is no occurrence of the series/);
    expect(`${at(b, 4)}.overrides[1].ends_at`, /earlier than the occurrence's start/);
    expect(`${at(b, 3)}.overrides`, /only for a series/);
    expect(`${at(b, 2)}.recurrence.rule`, new RegExp(`more than ${MAX_OCCURRENCES.toLocaleString('en')} occurrences`));
    expect(`${at(b, 1)}.recurrence.rule`, /FREQ=SOMETIMES is not one of/);
    expect(`${at(b, 1)}.recurrence.rule`, /BYMONTHDAY has "0"/);
    expect(`${at(b, 1)}.recurrence.rule`, /WKST=XX/);
    // Each message names the event it is about.
    for (const p of problems) assert.match(p.message, /^event "/, p.message);
  });

  test('a rule that asks for a time the clocks skip, and an EXDATE that excludes nothing, are warnings, not problems', async () => {
    const b = bundleWith({ starts_at: '2027-03-25T01:30:00Z', ends_at: '2027-03-25T02:00:00Z',
      recurrence: { rule: 'FREQ=DAILY;COUNT=7', exdates: ['2027-03-26T09:00:00Z'] } });
    const report = await checkBundle(JSON.stringify(b));
    assert.equal(report.ok, true, JSON.stringify(report.problems));
    const path = at(b, 1);
    assert.ok(report.warnings.some((w) => w.path === `${path}.recurrence.rule` && /2027-03-28 01:30 in Europe\/Lisbon, which the clocks skip/.test(w.message)),
      JSON.stringify(report.warnings));
    assert.ok(report.warnings.some((w) => w.path === `${path}.recurrence.exdates[0]` && /excludes nothing/.test(w.message)));
  });

  test('an occurrence overridden twice, or moved online without a URL, is refused at the override; all-day overrides name days', async () => {
    const weekly = series({ starts_at: '2027-01-05T09:00:00Z', ends_at: '2027-01-05T10:00:00Z', recurrence: { rule: 'FREQ=WEEKLY;COUNT=5' },
      overrides: [{ original_start: '2027-01-12T09:00:00Z', title: 'A' }, { original_start: '2027-01-12T09:00:00Z', title: 'B' },
        { original_start: '2027-01-19T09:00:00Z', status: 'moved_online' }] });
    assert.deepEqual(expandSeries(weekly, 'Europe/Lisbon', ANCHOR).problems.map((p) => [p.path, p.message.replace(/:.*/, '')]), [
      ['overrides[1].original_start', '2027-01-12T09'],
      ['overrides[2].online_url', 'is required when the status is moved_online'],
    ]);
    assert.match(expandSeries(weekly, 'Europe/Lisbon', ANCHOR).problems[0].message, /is overridden twice \(first by overrides\[0\]\)/);
    const online = { ...weekly, overrides: [{ original_start: '2027-01-19T09:00:00Z', status: 'moved_online' as const, online_url: 'https://example.org/live' }] };
    assert.deepEqual(expandSeries(online, 'Europe/Lisbon', ANCHOR).problems, []);
    const days = series({ starts_at: '2027-01-05', ends_at: '2027-01-05', all_day: true, recurrence: { rule: 'FREQ=WEEKLY;COUNT=2' },
      overrides: [{ original_start: '2027-01-06' }, { original_start: '2027-01-12T09:00:00Z' }] });
    assert.deepEqual(expandSeries(days, 'Europe/Lisbon', ANCHOR).problems.map((p) => p.path), ['overrides[1].original_start']);
    assert.deepEqual(expandSeries({ ...days, overrides: [{ original_start: '2027-01-06' }] }, 'Europe/Lisbon', ANCHOR).problems.map((p) => [p.path, p.message]),
      [['overrides[0].original_start', '2027-01-06 is no occurrence of the series']]);
  });

  test('an overridden occurrence is held to the rules between status and visitor fields, at its override, and a series that breaks them is told once', async () => {
    const weekly = series({ starts_at: '2027-01-05T09:00:00Z', ends_at: '2027-01-05T10:00:00Z', recurrence: { rule: 'FREQ=WEEKLY;COUNT=5' }, attendance_mode: 'offline',
      overrides: [
        { original_start: '2027-01-12T09:00:00Z', status: 'rescheduled' }, // not moved: its previous start would be its start
        { original_start: '2027-01-19T09:00:00Z', status: 'scheduled', previous_start: '2027-01-18T09:00:00Z' },
        { original_start: '2027-01-26T09:00:00Z', online_url: 'https://example.org/live' }, // offline, yet a URL
        { original_start: '2027-02-02T09:00:00Z', status: 'rescheduled', starts_at: '2027-02-03T09:00:00Z' }, // fine
      ] });
    assert.deepEqual(expandSeries(weekly, 'Europe/Lisbon', ANCHOR).problems.map((p) => [p.path, p.message.replace(/:.*/, '')]), [
      ['overrides[0].previous_start', '"2027-01-12T09'],
      ['overrides[1].previous_start', 'is only for an event rescheduled, postponed or cancelled, not scheduled'],
      ['overrides[2].online_url', 'is given for an event whose attendance_mode is offline'],
    ]);
    assert.match(expandSeries(weekly, 'Europe/Lisbon', ANCHOR).problems[0].message, /is starts_at itself: a rescheduled event has a new start/);
    // The series itself online without a URL: one problem, at the series (validate-bundle's), none at its overrides.
    const online = { ...weekly, attendance_mode: 'online' as const, overrides: [{ original_start: '2027-01-12T09:00:00Z', title: 'A' }] };
    assert.deepEqual(expandSeries(online, 'Europe/Lisbon', ANCHOR).problems, []);
    const b = bundleWith({ starts_at: online.starts_at, ends_at: online.ends_at, recurrence: online.recurrence, attendance_mode: 'online', overrides: online.overrides });
    assert.deepEqual(problemsOf(b).map((p) => p.path), [`${at(b, 1)}.online_url`]);
    // An all-day occurrence rescheduled to another day is fine; one left on its day is not.
    const days = series({ starts_at: '2027-01-05', ends_at: '2027-01-05', all_day: true, recurrence: { rule: 'FREQ=WEEKLY;COUNT=3' },
      overrides: [{ original_start: '2027-01-12', status: 'rescheduled', starts_at: '2027-01-13' }, { original_start: '2027-01-19', status: 'rescheduled' }] });
    assert.deepEqual(expandSeries(days, 'Europe/Lisbon', ANCHOR).problems.map((p) => p.path), ['overrides[1].previous_start']);
  });

  test('the rule checker knows every part of RFC 5545\'s RRULE and nothing else', async () => {
    assert.deepEqual(ruleProblems('FREQ=MONTHLY;INTERVAL=2;BYDAY=-1FR,2MO;BYMONTH=1,12;BYSETPOS=-1;WKST=SU;BYHOUR=9;BYMINUTE=30;BYSECOND=0'), []);
    assert.deepEqual(ruleProblems('FREQ=YEARLY;BYYEARDAY=-366,1;BYWEEKNO=53;UNTIL=20301231T000000Z'), []);
    assert.match(ruleProblems('FREQ=WEEKLY;DTSTART=20270101').join(), /DTSTART is not a part of RFC 5545's RRULE/);
    assert.match(ruleProblems('BYDAY=MO').join(), /FREQ is required/);
    assert.match(ruleProblems('FREQ=WEEKLY;COUNT=0').join(), /COUNT=0 must be a whole number of at least 1/);
    assert.match(ruleProblems('FREQ=WEEKLY;UNTIL=2027-01-01').join(), /UTC date-time/);
    assert.match(ruleProblems('FREQ=WEEKLY;FREQ=DAILY').join(), /FREQ is given twice/);
  });
});

describe('series over HTTP, on a real store', () => {
  const MARKET = uuidFor('series:market');
  const TOUR = uuidFor('series:tour');
  const FADO = uuidFor('series:fado');
  let t: TestApp;
  let bundle: BundleT;

  /** The fixture with three series on its main map: endless, counted with overrides, and one with an end, RDATE and EXDATE. */
  function withSeries(): BundleT {
    const b = makeFixture();
    const pois = [...new Set(b.events.filter((e) => e.map_id === F.map).flatMap((e) => e.poi_ids))];
    const base = { map_id: F.map, tags: ['free', 'outdoor'], created_at: '2026-06-01T00:00:00Z' };
    b.events.push(
      { ...base, id: MARKET, title: { en: 'Sunday market', pt: 'Mercado de domingo' }, event_type: 'market', poi_ids: [pois[0]],
        starts_at: '2026-11-29T10:00:00Z', ends_at: '2026-11-29T14:00:00Z', recurrence: { rule: 'FREQ=WEEKLY;BYDAY=SU' } },
      { ...base, id: TOUR, title: 'River tour', event_type: 'tour', poi_ids: [pois[1], pois[2]], tags: ['family'],
        starts_at: '2027-02-01T15:00:00Z', ends_at: '2027-02-01T16:30:00Z', recurrence: { rule: 'FREQ=DAILY;INTERVAL=2;COUNT=200' },
        overrides: [
          { original_start: '2027-02-03T15:00:00Z', status: 'cancelled' },
          { original_start: '2027-02-05T15:00:00Z', starts_at: '2027-02-05T17:00:00Z', status: 'rescheduled' },
          { original_start: '2027-02-07T15:00:00Z', title: 'River tour at sunset', poi_ids: [pois[3]] },
        ] },
      { ...base, id: FADO, title: 'Fado night', event_type: 'concert', poi_ids: [pois[4]], tags: ['night'],
        starts_at: '2027-01-08T21:00:00Z', ends_at: '2027-01-08T23:00:00Z',
        recurrence: { rule: 'FREQ=MONTHLY;BYDAY=2FR;UNTIL=20281231T235959Z', rdates: ['2027-06-12T20:00:00Z'], exdates: ['2027-08-13T20:00:00Z'] } },
    );
    b.sessions![0].saved_event_ids.push(FADO);
    b.maps.find((m) => m.id === F.map)!.languages = ['en', 'pt', 'es'];
    return b;
  }

  let anchors: Map<string, number>;
  before(async () => {
    bundle = withSeries();
    t = await openTestApp(bundle);
    anchors = new Map();
    // Only the series without an end has a horizon; the others say null.
    for (const id of [MARKET, TOUR, FADO]) {
      const from = (await t.json(`/events/${id}`)).body.recurrence.expanded_from;
      assert.equal(from === null, id !== MARKET, id);
      if (from !== null) anchors.set(id, Date.parse(from));
    }
  });
  after(async () => { await t?.close(); });

  test('every occurrence is an event in /events: random filters and windows, walked by cursor, match the brute force over the expanded series', async () => {
    const ref = buildReference(bundle, anchors);
    const rand = mulberry32(31);
    const occurrences = ref.events.filter((e) => [MARKET, TOUR, FADO].some((s) => e.id === occurrenceId(s, e.startMs)) || e.title.startsWith('River'));
    assert.ok(occurrences.length > 250, `${occurrences.length} occurrences`);
    let seen = 0;
    for (let i = 0; i < 60; i++) {
      const e = occurrences[Math.floor(rand() * occurrences.length)];
      const fromMs = e.startMs - Math.floor(rand() * 20) * DAY;
      const toMs = fromMs + Math.floor(1 + rand() * 90) * DAY;
      const params = new URLSearchParams({ map_id: F.map, from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), limit: String(1 + Math.floor(rand() * 30)) });
      const q: Parameters<typeof filterEvents>[1] = { mapId: F.map, fromMs, toMs };
      const point = e.points[0];
      if (point && rand() < 0.4) {
        params.set('near', `${point[1]},${point[0]}`);
        params.set('radius_m', '3000');
        q.near = { lat: point[1], lng: point[0], radiusM: 3000 };
      }
      if (rand() < 0.3) { params.set('event_types', e.type); q.types = [e.type]; }
      if (rand() < 0.3) { params.set('status', 'all'); q.statuses = null; }
      if (rand() < 0.2) { params.set('q', 'river'); q.q = 'river'; }
      const expected = filterEvents(ref, q).map((x) => x.id);
      const got: string[] = [];
      let cursor: string | null = null;
      do {
        if (cursor) params.set('cursor', cursor);
        const { status, body } = await t.json(`/events?${params}`);
        assert.equal(status, 200, JSON.stringify(body));
        assert.equal(body.total, expected.length, params.toString());
        got.push(...body.events.map((x: { id: string }) => x.id));
        cursor = body.next_cursor;
      } while (cursor);
      assert.deepEqual(got, expected, params.toString());
      seen += got.filter((id) => occurrences.some((o) => o.id === id)).length;
    }
    assert.ok(seen > 100, `${seen} occurrences seen`);
  });

  test('an occurrence is an event of its own: its id, series, original start, and the overrides applied', async () => {
    const first = await t.json(`/events/${occurrenceId(TOUR, Date.parse('2027-02-01T15:00:00Z'))}`);
    assert.equal(first.status, 200);
    assert.equal(first.body.series_id, TOUR);
    assert.equal(first.body.original_start, '2027-02-01T15:00:00Z');
    assert.equal(first.body.status, 'scheduled');
    assert.deepEqual(first.body.pois.map((p: { id: string }) => p.id), bundle.events.find((e) => e.id === TOUR)!.poi_ids);
    const cancelled = await t.json(`/events/${occurrenceId(TOUR, Date.parse('2027-02-03T15:00:00Z'))}`);
    assert.equal(cancelled.body.status, 'cancelled');
    const moved = await t.json(`/events/${occurrenceId(TOUR, Date.parse('2027-02-05T15:00:00Z'))}`);
    assert.deepEqual([moved.body.starts_at, moved.body.ends_at, moved.body.status, moved.body.previous_start, moved.body.original_start],
      ['2027-02-05T17:00:00Z', '2027-02-05T18:30:00Z', 'rescheduled', '2027-02-05T15:00:00Z', '2027-02-05T15:00:00Z']);
    const renamed = await t.json(`/events/${occurrenceId(TOUR, Date.parse('2027-02-07T15:00:00Z'))}`);
    assert.equal(renamed.body.title, 'River tour at sunset');
    assert.equal(renamed.body.pois.length, 1);
    // The cancelled occurrence is left out of the list by default, like any cancelled event.
    const list = await t.json(`/events?map_id=${F.map}&from=2027-02-01&to=2027-02-08&event_types=tour&limit=200`);
    const ids = list.body.events.map((e: { id: string }) => e.id);
    assert.ok(!ids.includes(cancelled.body.id));
    assert.ok(ids.includes(moved.body.id));
  });

  test('the series id answers the series: its rule as RRULE and in words, its dates, and its next occurrences', async () => {
    const { status, body } = await t.json(`/events/${FADO}`);
    assert.equal(status, 200);
    assert.equal(body.id, FADO);
    assert.equal(body.series_id, null);
    assert.equal(body.recurrence.rule, 'FREQ=MONTHLY;BYDAY=2FR;UNTIL=20281231T235959Z');
    assert.match(body.recurrence.text, /month/);
    assert.deepEqual(body.recurrence.rdates, ['2027-06-12T20:00:00Z']);
    assert.deepEqual(body.recurrence.exdates, ['2027-08-13T20:00:00Z']);
    const all = expandSeries(bundle.events.find((e) => e.id === FADO)!, 'Europe/Lisbon', anchors.get(FADO)!).occurrences;
    assert.equal(body.recurrence.occurrence_count, all.length);
    const upcoming = all.filter((o) => Date.parse(o.ends_at) >= F.now.getTime()).slice(0, 10).map((o) => o.id);
    assert.deepEqual(body.next_occurrences.map((o: { id: string }) => o.id), upcoming);
    // In Portuguese, the map's other language: its texts in Portuguese, the rule's words in English (rrule-temporal has no Portuguese).
    const market = await t.json(`/events/${MARKET}?lang=pt`);
    assert.equal(market.body.title, 'Mercado de domingo');
    assert.equal(market.body.next_occurrences[0].title, 'Mercado de domingo');
    assert.equal(market.body.recurrence.text, 'every week on Sunday at 10 AM');
    const es = await t.json(`/events/${MARKET}?lang=es`);
    assert.equal(es.body.title, 'Sunday market');
    assert.match(es.body.recurrence.text, /cada semana en domingo/);
  });

  test('upcoming-by-poi lists the occurrences anchored to a place', async () => {
    const ref = buildReference(bundle, anchors);
    const poi = bundle.events.find((e) => e.id === MARKET)!.poi_ids[0];
    const { body } = await t.json(`/events/upcoming-by-poi?poi_ids=${poi}&limit_per_poi=20`);
    assert.deepEqual(body[poi].map((e: { id: string }) => e.id), upcomingForPoi(ref, poi, F.now.getTime(), null, 20).map((e) => e.id));
    assert.ok(body[poi].some((e: { series_id: string | null }) => e.series_id === MARKET));
  });

  test('a saved series marks every occurrence of it saved', async () => {
    const auth = { headers: { authorization: `Bearer ${F.sessionToken}` } };
    const occurrence = occurrenceId(FADO, Date.parse('2027-02-12T21:00:00Z'));
    assert.equal((await t.json(`/events/${occurrence}`, auth)).body.is_saved, true);
    assert.equal((await t.json(`/events/${FADO}`, auth)).body.is_saved, true);
    assert.equal((await t.json(`/events/${occurrenceId(MARKET, Date.parse('2026-12-06T10:00:00Z'))}`, auth)).body.is_saved, false);
  });
});

describe('a series is expanded once per version, its horizon counted from the publish in which it last changed', () => {
  test('an unrelated publish leaves its occurrences, horizon and ETags alone; a change to it moves them', async () => {
    const b = makeFixture({ events: 30 });
    const id = uuidFor('series:horizon');
    b.events.push({ id, map_id: F.map, title: 'Weekly walk', event_type: 'tour', tags: [], poi_ids: [], created_at: '2026-06-01T00:00:00Z',
      starts_at: '2026-12-02T10:00:00Z', ends_at: '2026-12-02T11:00:00Z', recurrence: { rule: 'FREQ=WEEKLY' } });
    const t = await openTestApp(b);
    try {
      const first = await t.json(`/events/${id}`);
      const expandedFrom = first.body.recurrence.expanded_from;
      assert.ok(Math.abs(Date.parse(expandedFrom) - Date.now()) < 120_000, expandedFrom);
      assert.equal(first.body.recurrence.occurrence_count, expandSeries(b.events.at(-1)!, 'Europe/Lisbon', Date.parse(expandedFrom)).occurrences.length);
      const occurrence = `/events/${occurrenceId(id, Date.parse('2027-03-10T10:00:00Z'))}`;
      const etag = (await t.get(occurrence)).headers.get('etag');
      await new Promise((r) => setTimeout(r, 20));
      // Another event's title changes: the series is the same.
      await t.store.publish(JSON.stringify({ ...b, sessions: undefined, events: b.events.map((e, i) => (i === 0 ? { ...e, title: 'Changed' } : e)) }));
      const second = await t.json(`/events/${id}`);
      assert.equal(second.body.recurrence.expanded_from, expandedFrom);
      assert.equal(second.body.recurrence.last_start, first.body.recurrence.last_start);
      assert.equal((await t.get(occurrence)).headers.get('etag'), etag);
      // The series changes: counted from this publish.
      await t.store.publish(JSON.stringify({ ...b, sessions: undefined, events: b.events.map((e) => (e.id === id ? { ...e, title: 'Weekly walk, longer' } : e)) }));
      const third = await t.json(`/events/${id}`);
      assert.ok(Date.parse(third.body.recurrence.expanded_from) > Date.parse(expandedFrom));
      assert.notEqual((await t.get(occurrence)).headers.get('etag'), etag);
      assert.equal((await t.json(occurrence)).body.title, 'Weekly walk, longer');
    } finally {
      await t.close();
    }
  });

  test('a series carried over from an earlier publish is warned about when its horizon nears, with the time it counts from', async () => {
    const db = await openDb({ snapshot: await emptyDatabase() });
    const store = await SqlStore.open(db);
    try {
      const b = validateBundle(makeFixture({ events: 10 }));
      const id = uuidFor('series:near-horizon');
      b.events.push({ ...b.events[0], id, title: 'Daily walk', starts_at: '2026-12-01T10:00:00Z', ends_at: '2026-12-01T11:00:00Z', recurrence: { rule: 'FREQ=DAILY' } });
      const t0 = Date.parse('2026-11-28T00:00:00Z');
      const stage = async (nowMs: number, checksum: string) => {
        const warnings: string[] = [];
        const version = await store.stageVersion(b, [b.events], { nowMs, seriesHorizonDays: 120, onWarning: (f) => warnings.push(f.message) });
        await store.commitVersion(version, checksum, b.format);
        return warnings;
      };
      assert.deepEqual(await stage(t0, 'first'), [], 'new: its horizon is 120 days away');
      // Published again 40 days on, unchanged: its horizon still counts from the first publish, 80 days away.
      const later = await stage(t0 + 40 * DAY, 'second');
      assert.equal(later.length, 1);
      assert.match(later[0], new RegExp(`series ${id} \\(Daily walk\\) has no end, and its occurrences stop at its horizon, 2027-03-28T00:00:00Z`));
    } finally {
      await db.close();
    }
  });

  test('a series without an end stops at its horizon: two years by default', async () => {
    const doc = series({ starts_at: '2026-12-01T09:00:00Z', ends_at: '2026-12-01T10:00:00Z', recurrence: { rule: 'FREQ=DAILY' } });
    const got = expandSeries(doc, 'Europe/Lisbon', ANCHOR);
    assert.equal(got.horizonEndMs, ANCHOR + SERIES_HORIZON_DAYS * DAY);
    const last = Date.parse(got.occurrences.at(-1)!.starts_at);
    assert.ok(last <= got.horizonEndMs! && last > got.horizonEndMs! - DAY);
    const short = expandSeries(doc, 'Europe/Lisbon', ANCHOR, 30);
    // 1 to 27 December at 09:00: the horizon is 28 December 00:00 UTC.
    assert.equal(short.occurrences.length, 27);
    assert.ok(short.warnings.some((w) => /stop at its horizon/.test(w.message)), 'a horizon within 90 days is warned about');
  });
});

describe('all-day events', () => {
  test('a single all-day event spans its days in its map\'s zone, and a series of them keeps to local midnight across the clock changes', async () => {
    const single = storedEvents(series({ starts_at: '2027-03-27', ends_at: '2027-03-28', all_day: true, recurrence: undefined }), 'Europe/Lisbon', ANCHOR);
    assert.deepEqual(single.map((e) => [e.starts_at, e.ends_at, e.all_day, e.start_date, e.end_date]),
      // Two days: the clocks go forward in the second, so it ends at 23:00 UTC.
      [['2027-03-27T00:00:00Z', '2027-03-28T23:00:00Z', true, '2027-03-27', '2027-03-28']]);
    const yearly = expandSeries(series({ starts_at: '2027-06-01', ends_at: '2027-06-30', all_day: true, recurrence: { rule: 'FREQ=YEARLY;COUNT=3' },
      overrides: [{ original_start: '2028-06-01', starts_at: '2028-06-03', ends_at: '2028-06-29' }] }), 'Europe/Lisbon', ANCHOR);
    assert.deepEqual(yearly.problems, []);
    assert.deepEqual(yearly.occurrences.map((o) => [o.original_start, o.start_date, o.end_date, o.starts_at, o.ends_at, o.id === occurrenceId(o.series_id!, o.original_start!)]), [
      ['2027-06-01', '2027-06-01', '2027-06-30', '2027-05-31T23:00:00Z', '2027-06-30T23:00:00Z', true],
      ['2028-06-01', '2028-06-03', '2028-06-29', '2028-06-02T23:00:00Z', '2028-06-29T23:00:00Z', true],
      ['2029-06-01', '2029-06-01', '2029-06-30', '2029-05-31T23:00:00Z', '2029-06-30T23:00:00Z', true],
    ]);
    // Weekly all-day, both changes crossed: every occurrence starts at local midnight.
    const weekly = expandSeries(series({ starts_at: '2027-01-02', ends_at: '2027-01-02', all_day: true, recurrence: { rule: 'FREQ=WEEKLY;COUNT=52' } }), 'Europe/Lisbon', ANCHOR);
    for (const o of weekly.occurrences) {
      const w = wallTimeAt(Date.parse(o.starts_at), 'Europe/Lisbon');
      assert.deepEqual([w.hour, w.minute, `${w.year}-${p2(w.month)}-${p2(w.day)}`], [0, 0, o.start_date], o.starts_at);
    }
    assert.equal(weekly.occurrences.length, 52);
  });

  test('check wants dates for an all-day event and times for any other, and dates in an all-day series', async () => {
    const b = makeFixture({ events: 10 });
    const base = b.events[0];
    b.events.push({ ...base, id: uuidFor('allday:1'), all_day: true, starts_at: '2027-06-01T10:00:00Z', ends_at: '2027-06-02' },
      { ...base, id: uuidFor('allday:2'), starts_at: '2027-06-01', ends_at: '2027-06-02' },
      { ...base, id: uuidFor('allday:3'), all_day: true, starts_at: '2027-06-01', ends_at: '2027-06-01',
        recurrence: { rule: 'FREQ=WEEKLY', exdates: ['2027-06-08T00:00:00Z'] } });
    let problems: { path: string; message: string }[] = [];
    try { validateBundle(b); } catch (err) { problems = (err as BundleError).problems; }
    const n = b.events.length;
    const expect = (path: string, message: RegExp) => assert.ok(problems.some((p) => p.path === path && message.test(p.message)),
      `${path} ~ ${message}\n${problems.map((p) => `${p.path}: ${p.message}`).join('\n')}`);
    expect(`$.events[${n - 3}].starts_at`, /must be a date \(YYYY-MM-DD\): the event is all-day/);
    expect(`$.events[${n - 2}].starts_at`, /is a date alone: give a time/);
    expect(`$.events[${n - 1}].recurrence.exdates[0]`, /must be a date \(YYYY-MM-DD\): the series is all-day/);
  });

  test('over HTTP: an all-day event and an all-day series are served with their days, and windows match them as brute force says', async () => {
    const b = makeFixture();
    const pois = b.events.find((e) => e.map_id === F.map && e.poi_ids.length > 0)!.poi_ids;
    const FESTIVAL = uuidFor('allday:festival');
    const FAIR = uuidFor('allday:fair');
    b.events.push({ id: FESTIVAL, map_id: F.map, title: 'Summer festival', event_type: 'festival', tags: [], poi_ids: pois, created_at: '2026-06-01T00:00:00Z',
      all_day: true, starts_at: '2027-06-01', ends_at: '2027-06-30', recurrence: { rule: 'FREQ=YEARLY;COUNT=2' } },
    { id: FAIR, map_id: F.map, title: 'Book fair', event_type: 'market', tags: [], poi_ids: pois, created_at: '2026-06-01T00:00:00Z',
      all_day: true, starts_at: '2027-03-27', ends_at: '2027-03-28' });
    const t = await openTestApp(b);
    try {
      const fair = await t.json(`/events/${FAIR}`);
      assert.deepEqual([fair.body.all_day, fair.body.start_date, fair.body.end_date, fair.body.starts_at, fair.body.ends_at],
        [true, '2027-03-27', '2027-03-28', '2027-03-27T00:00:00Z', '2027-03-28T23:00:00Z']);
      const festival = await t.json(`/events/${FESTIVAL}`);
      assert.deepEqual([festival.body.all_day, festival.body.start_date, festival.body.starts_at, festival.body.recurrence.text],
        [true, '2027-06-01', '2027-05-31T23:00:00Z', 'every year for 2 times']);
      const ref = buildReference(b);
      for (const [from, to] of [['2027-03-28T22:00:00Z', '2027-03-28T22:59:00Z'], ['2027-03-28T23:00:00Z', '2027-03-29'], ['2027-06-30', '2027-07-01'],
        ['2028-05-31T22:59:59Z', '2028-06-01T00:00:00Z']]) {
        const { body } = await t.json(`/events?map_id=${F.map}&from=${from}&to=${to}&limit=200`);
        const expected = filterEvents(ref, { mapId: F.map, fromMs: Date.parse(from), toMs: Date.parse(to.length === 10 ? `${to}T23:59:59.999Z` : to) }).map((e) => e.id);
        assert.deepEqual(body.events.map((e: { id: string }) => e.id), expected, `${from}..${to}`);
      }
    } finally {
      await t.close();
    }
  });
});
