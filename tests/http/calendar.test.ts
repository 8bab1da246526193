/**
 * Calendars: GET /events.ics and /events/{id}.ics on the demo, read back by ical.js as a calendar app would. The
 * feed, its series expanded by ical.js with their overrides, is exactly /events?status=all over windows that cross
 * both clock changes (series, a cancelled, a rescheduled and a moved-online occurrence, an all-day festival); every
 * TZID has its VTIMEZONE; the feed refuses to grow past its cap, naming the parameter to narrow.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import ICAL from 'ical.js';
import type { BundleT } from '../../src/content/bundle/bundle-schema.ts';
import { occurrenceId } from '../../src/content/series-dates.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { makeFixture, F } from '../helpers/fixture.ts';

const text = await readFile(new URL('../../data/demo-bundle.json', import.meta.url), 'utf8');
const demo = JSON.parse(text) as BundleT;
const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const DAY = 86_400_000;

/** One occurrence as both sides give it: id, when (instants, or days for an all-day one), and iCalendar's status. */
interface Occurrence { id: string; start: string; end: string; status: string }

/** iCalendar's STATUS for each status /events serves. */
const ICAL_STATUS: Record<string, string> = { scheduled: 'CONFIRMED', rescheduled: 'CONFIRMED', moved_online: 'CONFIRMED', postponed: 'TENTATIVE', cancelled: 'CANCELLED' };

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const dateOf = (t: ICAL.Time) => `${t.year}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;

/** The instant a day begins in Lisbon (its clock changes at 01:00 and 02:00, never at midnight). */
function lisbonMidnight(date: string): number {
  const utc = Date.parse(`${date}T00:00:00Z`);
  const name = new Intl.DateTimeFormat('en', { timeZone: 'Europe/Lisbon', timeZoneName: 'longOffset' }).formatToParts(new Date(utc))
    .find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? utc - (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : utc;
}

/** A parsed calendar, its time zones registered with ical.js (as an app does with the VTIMEZONEs it is sent). */
function parse(body: string): ICAL.Component {
  const cal = new ICAL.Component(ICAL.parse(body));
  for (const zone of cal.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  return cal;
}

/** Every occurrence a calendar app would show of `body` overlapping [fromMs, toMs], as ical.js expands it. */
function expand(body: string, fromMs: number, toMs: number): Occurrence[] {
  const cal = parse(body);
  const masters = new Map<string, ICAL.Event>();
  const singles: ICAL.Event[] = [];
  const exceptions: ICAL.Event[] = [];
  for (const c of cal.getAllSubcomponents('vevent')) {
    const e = new ICAL.Event(c);
    if (c.hasProperty('recurrence-id')) exceptions.push(e);
    else if (c.hasProperty('rrule') || c.hasProperty('rdate')) masters.set(e.uid, e);
    else singles.push(e);
  }
  for (const x of exceptions) {
    assert.ok(masters.has(x.uid), `override ${x.uid} has its series in the feed`);
    masters.get(x.uid)!.relateException(x);
  }
  const out: Occurrence[] = [];
  const add = (id: string, start: ICAL.Time, end: ICAL.Time, status: string) => {
    if (start.isDate) {
      // Days, on the map's clock (Lisbon's): the DTEND of an all-day event is the day after its last.
      const last = end.clone();
      last.adjust(-1, 0, 0, 0);
      if (lisbonMidnight(dateOf(start)) <= toMs && lisbonMidnight(dateOf(end)) >= fromMs) out.push({ id, start: dateOf(start), end: dateOf(last), status });
      return;
    }
    const [s, e] = [start.toJSDate().getTime(), end.toJSDate().getTime()];
    if (s <= toMs && e >= fromMs) out.push({ id, start: iso(s), end: iso(e), status });
  };
  for (const e of singles) add(e.uid, e.startDate, e.endDate, e.component.getFirstPropertyValue('status') as string);
  for (const [uid, master] of masters) {
    const it = master.iterator();
    // Occurrences come by their original start; an override may move one by days, so look a month past the window.
    for (let next = it.next(); next && next.toJSDate().getTime() <= toMs + 31 * DAY; next = it.next()) {
      const d = master.getOccurrenceDetails(next);
      const original = next.isDate ? dateOf(next) : iso(next.toJSDate().getTime());
      add(occurrenceId(uid, original), d.startDate, d.endDate, d.item.component.getFirstPropertyValue('status') as string);
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

let t: TestTarget;
before(async () => { t = await openTarget(text); });
after(async () => { await t?.close(); });

/** Every event /events lists for a window, every status, walked page by page. */
async function listAll(query: string): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  let cursor: string | null = null;
  do {
    const { status, body }: { status: number; body: { events: Record<string, any>[]; next_cursor: string | null } } =
      await t.json(`/events?${query}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(status, 200);
    out.push(...body.events);
    cursor = body.next_cursor;
  } while (cursor);
  return out;
}

describe('the feed of a map', () => {
  const windows = [
    ['2026-12-20T00:00:00Z', '2027-01-12T00:00:00Z'], // a cancelled fado night, a rescheduled market day
    ['2027-03-15T00:00:00Z', '2027-04-15T00:00:00Z'], // spring forward, a postponed and a moved-online night
    ['2027-10-10T00:00:00Z', '2027-11-10T00:00:00Z'], // fall back
    ['2027-06-01T00:00:00Z', '2027-07-01T00:00:00Z'], // the all-day festival
  ];
  for (const [from, to] of windows) {
    test(`expanded by ical.js, it is /events?status=all from ${from} to ${to}`, async () => {
      const res = await t.get(`/events.ics?map_id=${MAIN}&from=${from}&to=${to}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/calendar; charset=utf-8');
      const body = await res.text();
      const [fromMs, toMs] = [Date.parse(from), Date.parse(to)];
      const listed = await listAll(`map_id=${MAIN}&from=${from}&to=${to}&status=all`);
      assert.ok(listed.length > 20, `${listed.length} events`);
      const expected: Occurrence[] = listed.map((e) => ({ id: e.id, start: e.all_day ? e.start_date : e.starts_at, end: e.all_day ? e.end_date : e.ends_at,
        status: ICAL_STATUS[e.status] })).sort((a, b) => (a.id < b.id ? -1 : 1));
      assert.deepEqual(expand(body, fromMs, toMs), expected);
      assert.ok(listed.some((e) => e.series_id) && listed.some((e) => !e.series_id), 'series and single events');
    });
  }

  test('names every time zone it uses in a VTIMEZONE, and says when to fetch it again', async () => {
    const body = await (await t.get(`/events.ics?map_id=${MAIN}&from=2026-12-01&to=2027-12-31`)).text();
    const cal = parse(body);
    const zones = new Set(cal.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid') as string));
    const used = new Set([...body.matchAll(/;TZID=([^:;]+)[:;]/g)].map((m) => m[1]));
    assert.ok(used.size > 0);
    for (const tz of used) assert.ok(zones.has(tz), `VTIMEZONE for ${tz}`);
    assert.match(body, /\r\nREFRESH-INTERVAL;VALUE=DURATION:PT6H\r\n/);
    assert.match(body, /\r\nX-WR-CALNAME:Lisbon City Guide\r\n/);
    // Every line is folded to 75 octets, every VEVENT has a UID, DTSTAMP in UTC and a SEQUENCE.
    for (const line of body.split('\r\n')) assert.ok(new TextEncoder().encode(line).length <= 75, line);
    for (const e of cal.getAllSubcomponents('vevent')) {
      assert.ok(e.getFirstPropertyValue('uid'));
      assert.match(String(e.getFirstProperty('dtstamp')!.toICALString()), /^DTSTAMP:\d{8}T\d{6}Z$/);
      assert.equal(typeof e.getFirstPropertyValue('sequence'), 'number');
    }
  });

  test('is the same bytes and ETag whenever asked, and its default window starts today on the map\'s clock', async () => {
    const [a, b] = [await t.get(`/events.ics?map_id=${MAIN}`), await t.get(`/events.ics?map_id=${MAIN}`)];
    assert.equal(a.status, 200);
    const body = await a.text();
    assert.equal(body, await b.text());
    assert.equal(a.headers.get('etag'), b.headers.get('etag'));
    const again = await t.get(`/events.ics?map_id=${MAIN}`, { headers: { 'if-none-match': a.headers.get('etag')! } });
    assert.equal(again.status, 304);
    // The target's clock is F.now (1 March 2027, 12:00 UTC and in Lisbon): today began at midnight, and the window
    // runs to the same midnight a year on (2028 is a leap year).
    assert.equal(F.now.toISOString(), '2027-03-01T12:00:00.000Z');
    const explicit = await (await t.get(`/events.ics?map_id=${MAIN}&from=2027-03-01T00:00:00Z&to=2028-02-29T23:59:59.999Z`)).text();
    assert.equal(body, explicit);
  });

  test('takes the filters of /events, and refuses what /events refuses, naming each parameter', async () => {
    const near = '38.7075,-9.1364';
    const body = await (await t.get(`/events.ics?map_id=${MAIN}&from=2027-06-01&to=2027-06-30&near=${near}&radius_m=1500`)).text();
    const listed = await listAll(`map_id=${MAIN}&from=2027-06-01&to=2027-06-30&near=${near}&radius_m=1500&status=all`);
    const uids = new Set(parse(body).getAllSubcomponents('vevent').map((e) => e.getFirstPropertyValue('uid') as string));
    // A single event by its own id, an occurrence by its series'.
    assert.deepEqual(uids, new Set(listed.map((e) => e.series_id ?? e.id)));
    // `status` narrows the feed's default (every status): a cancelled occurrence brings its series.
    const cancelled = await listAll(`map_id=${MAIN}&from=2026-12-01&to=2027-04-30&status=cancelled`);
    assert.ok(cancelled.length > 0);
    const only = parse(await (await t.get(`/events.ics?map_id=${MAIN}&from=2026-12-01&to=2027-04-30&status=cancelled`)).text());
    assert.deepEqual(new Set(only.getAllSubcomponents('vevent').map((e) => e.getFirstPropertyValue('uid') as string)),
      new Set(cancelled.map((e) => e.series_id ?? e.id)));
    const { status, body: problem } = await t.json(`/events.ics?map_id=${MAIN}&from=2027-06-30&to=2027-06-01&radius_m=5&status=later`);
    assert.equal(status, 400);
    assert.deepEqual(problem.errors.map((p: { name: string }) => p.name).sort(), ['radius_m', 'status', 'to']);
    assert.equal((await t.get('/events.ics?map_id=00000000-0000-4000-8000-000000000000')).status, 404);
  });
});

describe('one event as a calendar', () => {
  const series = demo.events.find((e) => e.recurrence && e.overrides?.some((o) => o.status === 'cancelled'))!;

  test('an occurrence is one VEVENT of its own, a series its rule and every override', async () => {
    const { body: occurrences } = await t.json(`/events/${series.id}`);
    const one = occurrences.next_occurrences[0];
    const single = parse(await (await t.get(`/events/${one.id}.ics`)).text()).getAllSubcomponents('vevent');
    assert.equal(single.length, 1);
    assert.equal(single[0].getFirstPropertyValue('uid'), one.id);
    assert.equal(single[0].hasProperty('rrule'), false);
    const whole = parse(await (await t.get(`/events/${series.id}.ics`)).text()).getAllSubcomponents('vevent');
    assert.equal(whole.length, 1 + series.overrides!.length);
    assert.ok(whole.every((e) => e.getFirstPropertyValue('uid') === series.id));
    assert.equal(String(whole[0].getFirstPropertyValue('rrule')), series.recurrence!.rule);
    const cancelled = whole.filter((e) => e.getFirstPropertyValue('status') === 'CANCELLED');
    assert.ok(cancelled.length >= 1 && cancelled.every((e) => e.hasProperty('recurrence-id')), 'a cancellation is an override, not an EXDATE');
    assert.equal((await t.get('/events/00000000-0000-4000-8000-000000000000.ics')).status, 404);
  });

  test('an event with places has their names and the first one\'s point; its URL is its own or its page here', async () => {
    const e = demo.events.find((x) => x.map_id === MAIN && !x.recurrence && demo.markers.some((m) => m.id === x.poi_ids[0]))!;
    const vevent = parse(await (await t.get(`/events/${e.id}.ics`)).text()).getFirstSubcomponent('vevent')!;
    const marker = demo.markers.find((m) => m.id === e.poi_ids[0])!;
    assert.deepEqual(vevent.getFirstPropertyValue('geo'), [marker.lat, marker.lng]);
    const names = e.poi_ids.map((id) => [...demo.markers, ...demo.paths, ...demo.polygons].find((p) => p.id === id)!.name);
    // Every place's name, then the first address there is on a line of its own.
    assert.equal(String(vevent.getFirstPropertyValue('location')).split('\n')[0], names.map((n) => (typeof n === 'string' ? n : n.en)).join(', '));
    // Its own URL, else its page under the public URL (http://localhost:<port> unless --public-url says otherwise).
    if (e.url) assert.equal(vevent.getFirstPropertyValue('url'), e.url);
    else assert.match(String(vevent.getFirstPropertyValue('url')), new RegExp(`^http://localhost(:\\d+)?/events/${e.id}\\.html$`));
  });
});

describe('the organizer', () => {
  test('is an ORGANIZER only when it has an email address (iCalendar names an organizer by address)', async () => {
    const fado = demo.events.find((e) => e.map_id === MAIN && e.recurrence && e.organizer)!;
    assert.equal(fado.organizer!.email, undefined, 'the demo\'s fado organizer has no address');
    const without = parse(await (await t.get(`/events/${fado.id}.ics`)).text()).getAllSubcomponents('vevent');
    assert.ok(without.length > 0 && without.every((v) => !v.hasProperty('organizer')));
    const edited = structuredClone(demo);
    const event = edited.events.find((e) => e.id === fado.id)!;
    event.organizer = { ...event.organizer!, email: 'fado@example.org' };
    const target = await openTarget(edited);
    try {
      const withEmail = parse(await (await target.get(`/events/${fado.id}.ics`)).text()).getAllSubcomponents('vevent');
      for (const v of withEmail) {
        const organizer = v.getFirstProperty('organizer')!;
        assert.equal(organizer.getFirstValue(), 'mailto:fado@example.org');
        assert.equal(organizer.getParameter('cn'), typeof event.organizer.name === 'string' ? event.organizer.name : event.organizer.name.en);
      }
    } finally {
      await target.close();
    }
  });
});

describe('the cap', () => {
  test(`a feed of more VEVENTs than the cap is refused with 400 naming the window`, async () => {
    const big = makeFixture({ events: 6000 });
    const target = await openTarget(big);
    try {
      const mapId = F.map;
      const { status, body } = await target.json(`/events.ics?map_id=${mapId}&from=2020-01-01&to=2030-01-01&status=all`);
      assert.equal(status, 400);
      assert.equal(body.errors[0].name, 'to');
      assert.match(body.errors[0].reason, /more than 5,000: narrow the window \(from, to\) or the filters/);
      assert.equal((await target.get(`/events.ics?map_id=${mapId}&from=2027-01-01&to=2027-01-02`)).status, 200);
    } finally {
      await target.close();
    }
  });
});
