/**
 * The page and the structured data of each event and place: GET /events/{id}.html and .jsonld, /markers, /paths and
 * /polygons/{id}.html and .jsonld, on the demo. Every event of the main map over half a year (series, a cancelled, a
 * rescheduled, a postponed and a moved-online occurrence, an all-day festival) and every series: its JSON-LD says what
 * its JSON record says (status, previous start, dates on the map's clock with their offset, places and their points,
 * offers, organizer, schedule); every POI of the map: its type, point or shape, categories and next events, against
 * /events/upcoming-by-poi. Each page embeds exactly its JSON-LD, has its Open Graph tags, the pages' CSP, loads
 * nothing but the service's style sheet, and is in the negotiated language; the visibility rules and the 400s hold.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { BundleT } from '../../src/content/bundle/bundle-schema.ts';
import { pageCsp } from '../../src/http/page-policy.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { makeFixture } from '../helpers/fixture.ts';

const text = await readFile(new URL('../../data/demo-bundle.json', import.meta.url), 'utf8');
const demo = JSON.parse(text) as BundleT;
const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const DISABLED = 'ab5ec4f4-3cf5-5e4a-afbb-a3625e23ecbb';
const NONE = '00000000-0000-4000-8000-000000000000';
const STATUS: Record<string, string> = {
  scheduled: 'EventScheduled', cancelled: 'EventCancelled', postponed: 'EventPostponed', rescheduled: 'EventRescheduled', moved_online: 'EventMovedOnline',
};
const DAY_NAMES: Record<string, string> = { MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday' };

let t: TestTarget;
before(async () => { t = await openTarget(text); });
after(async () => { await t.close(); });

/** A link's path: the public URL is http://localhost (and a port) unless --public-url says otherwise. */
function pathOf(url: string): string {
  const m = /^http:\/\/localhost(?::\d+)?(\/.*)$/.exec(url);
  assert.ok(m, `${url} is under the public URL`);
  return m[1];
}

/** "+01:00" or "+00:00": Lisbon's offset at an instant, as ISO 8601 writes it. */
function lisbonOffset(iso: string): string {
  const name = new Intl.DateTimeFormat('en', { timeZone: 'Europe/Lisbon', timeZoneName: 'longOffset' }).formatToParts(new Date(iso))
    .find((p) => p.type === 'timeZoneName')!.value;
  return name === 'GMT' ? '+00:00' : name.slice(3);
}

/** The wall time in Lisbon, HH:MM:SS. */
const lisbonTime = (iso: string) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Lisbon', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
const lisbonDate = (iso: string) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Lisbon' }).format(new Date(iso));

/** An instant written on Lisbon's clock with its offset: the same instant, and the offset in force then. */
function assertLisbonInstant(actual: string, expected: string, what: string): void {
  assert.equal(Date.parse(actual), Date.parse(expected), what);
  assert.ok(actual.endsWith(lisbonOffset(expected)), `${what}: ${actual} has Lisbon's offset then (${lisbonOffset(expected)})`);
}

/** The JSON-LD a page embeds, parsed. */
function embedded(html: string): any {
  const blocks = [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)];
  assert.equal(blocks.length, 1, 'one JSON-LD block');
  return JSON.parse(blocks[0][1]);
}

/** The content of an Open Graph tag, or undefined. */
const meta = (html: string, property: string) => [...html.matchAll(/<meta property="([^"]+)" content="([^"]*)">/g)].find((m) => m[1] === property)?.[2];
const unescape = (s: string) => s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));

/** Every event of the main map over a window, every status, paged. */
async function eventsOf(from: string, to: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const { body }: { body: any } = await t.json(`/events?map_id=${MAIN}&from=${from}&to=${to}&status=all&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    out.push(...body.events);
    cursor = body.next_cursor;
  } while (cursor);
  return out;
}

/** Checks the JSON-LD of event record `r` (as /events/{id} answers it, with its `pois`) against the record. */
function assertEventLd(ld: any, r: any, lang = 'en'): void {
  const what = `${r.id} (${r.status})`;
  assert.equal(ld['@context'], 'https://schema.org');
  assert.equal(ld['@type'], 'Event', what);
  assert.equal(pathOf(ld['@id']), `/events/${r.id}.html#event`);
  assert.equal(ld.name, r.title, what);
  assert.equal(ld.description, r.description ?? undefined, what);
  assert.equal(ld.eventStatus, `https://schema.org/${STATUS[r.status]}`, what);
  assert.equal(ld.inLanguage, lang);
  if (r.url) assert.equal(ld.url, r.url);
  else assert.equal(pathOf(ld.url), `/events/${r.id}.html`);
  if (r.all_day) {
    assert.equal(ld.startDate, r.start_date, what);
    assert.equal(ld.endDate, r.end_date, what);
  } else {
    assertLisbonInstant(ld.startDate, r.starts_at, `${what} startDate`);
    assertLisbonInstant(ld.endDate, r.ends_at, `${what} endDate`);
  }
  if (r.previous_start === null) assert.equal(ld.previousStartDate, undefined, what);
  else if (r.all_day) assert.equal(ld.previousStartDate, lisbonDate(r.previous_start), what);
  else assertLisbonInstant(ld.previousStartDate, r.previous_start, `${what} previousStartDate`);
  // Where: its places (none when it moved online), and where to attend online.
  const mode = r.attendance_mode ?? (r.status === 'moved_online' ? 'online' : r.pois.length > 0 ? 'offline' : null);
  assert.equal(ld.eventAttendanceMode, mode ? `https://schema.org/${{ offline: 'Offline', online: 'Online', mixed: 'Mixed' }[mode as string]}EventAttendanceMode` : undefined, what);
  const locations = ld.location === undefined ? [] : [ld.location].flat();
  const places = locations.filter((l: any) => l['@type'] === 'Place');
  assert.deepEqual(places.map((p: any) => pathOf(p['@id'])), mode === 'online' ? [] : r.pois.map((p: any) => `/${p.type}s/${p.id}.html#place`), what);
  for (const [k, p] of places.entries()) {
    const poi = r.pois[k];
    assert.equal(p.name, poi.name);
    if (poi.type === 'marker') assert.deepEqual([p.geo.latitude, p.geo.longitude], [poi.lat, poi.lng], what);
    assert.equal(p.address, poi.address ?? undefined);
  }
  const virtual = locations.filter((l: any) => l['@type'] === 'VirtualLocation');
  assert.deepEqual(virtual.map((v: any) => v.url), r.online_url && mode !== 'offline' ? [r.online_url] : [], what);
  // Offers, organizer, the rest.
  const o = r.offers;
  if (o && (o.price !== null || o.free === true || o.booking_url !== null || o.availability !== null)) {
    assert.equal(ld.offers['@type'], 'Offer');
    assert.equal(ld.offers.price, o.free === true ? 0 : o.price ?? undefined, what);
    assert.equal(ld.offers.priceCurrency, o.currency ?? undefined);
    assert.equal(ld.offers.url, o.booking_url ?? undefined);
  } else assert.equal(ld.offers, undefined, what);
  assert.equal(ld.isAccessibleForFree, o?.free ?? undefined, what);
  assert.equal(ld.organizer?.name, r.organizer?.name, what);
  assert.equal(ld.organizer?.email, r.organizer?.email ?? undefined);
  assert.equal(ld.maximumAttendeeCapacity, r.capacity ?? undefined);
  assert.deepEqual(ld.accessibilityFeature ?? [], r.accessibility);
  if (r.series_id) assert.equal(pathOf(ld.superEvent['@id']), `/events/${r.series_id}.html#event`);
  else assert.equal(ld.superEvent, undefined);
}

describe('an event\'s JSON-LD', () => {
  test('says what its record says, for every event of the main map over half a year, every status', async () => {
    const events = await eventsOf('2026-12-01', '2027-05-31');
    const statuses = new Set(events.map((e) => e.status));
    assert.deepEqual([...statuses].sort(), ['cancelled', 'moved_online', 'postponed', 'rescheduled', 'scheduled']);
    assert.ok(events.some((e) => e.all_day) && events.some((e) => e.series_id) && events.some((e) => e.organizer && e.offers));
    for (const e of events) {
      const res = await t.get(`/events/${e.id}.jsonld`);
      assert.equal(res.status, 200, e.id);
      assert.equal(res.headers.get('content-type'), 'application/ld+json; charset=utf-8');
      assertEventLd(await res.json(), (await t.json(`/events/${e.id}`)).body);
    }
  });

  test('a series has its schedule: frequency, days, times on the map\'s clock, its end', async () => {
    const series = demo.events.filter((e) => e.map_id === MAIN && e.recurrence);
    assert.ok(series.length >= 5);
    for (const s of series) {
      const r = (await t.json(`/events/${s.id}`)).body;
      const ld = (await t.json(`/events/${s.id}.jsonld`)).body;
      assertEventLd(ld, r);
      const rule = new Map(r.recurrence.rule.split(';').map((p: string) => p.split('=')));
      const schedule = ld.eventSchedule;
      assert.equal(schedule['@type'], 'Schedule');
      const unit = { DAILY: 'D', WEEKLY: 'W', MONTHLY: 'M', YEARLY: 'Y' }[rule.get('FREQ') as string];
      assert.equal(schedule.repeatFrequency, `P${rule.get('INTERVAL') ?? 1}${unit}`, s.id);
      const days = (rule.get('BYDAY') as string).split(',').map((d) => (DAY_NAMES[d] ? `https://schema.org/${DAY_NAMES[d]}` : d));
      assert.deepEqual([schedule.byDay].flat(), days, s.id);
      assert.equal(schedule.scheduleTimezone, 'Europe/Lisbon');
      assert.equal(schedule.startDate, lisbonDate(r.starts_at));
      assert.equal(schedule.startTime, lisbonTime(r.starts_at), s.id);
      assert.equal(schedule.endTime, lisbonTime(r.ends_at), s.id);
      const until = rule.get('UNTIL') as string;
      assert.equal(schedule.endDate, lisbonDate(`${until.slice(0, 4)}-${until.slice(4, 6)}-${until.slice(6, 8)}T${until.slice(9, 11)}:${until.slice(11, 13)}:${until.slice(13, 15)}Z`));
    }
  });
});

describe('a place\'s JSON-LD', () => {
  test('every POI of the main map: its type, its point or shape, its categories and its next events', async () => {
    const names = new Map(demo.categories.map((c) => [c.id, typeof c.name === 'string' ? c.name : c.name.en]));
    let checked = 0;
    for (const kind of ['markers', 'paths', 'polygons'] as const) {
      const { body } = await t.json(`/maps/${MAIN}/${kind}`);
      for (const r of body[kind]) {
        const ld = (await t.json(`/${kind}/${r.id}.jsonld`)).body;
        assert.equal(ld['@type'], 'TouristAttraction', r.id);
        assert.equal(pathOf(ld.url), `/${kind}/${r.id}.html`);
        assert.equal(ld.name, r.name);
        assert.equal(ld.sameAs, r.website ?? undefined);
        assert.equal(ld.keywords, r.category_ids.length > 0 ? r.category_ids.map((id: string) => names.get(id)).join(', ') : undefined, r.id);
        if (kind === 'markers') {
          assert.deepEqual(ld.geo, { '@type': 'GeoCoordinates', latitude: r.lat, longitude: r.lng });
          assert.equal(ld.address, r.address ?? undefined);
        } else {
          const positions = kind === 'paths' ? r.geometry.coordinates : r.geometry.coordinates[0];
          const shape = (ld.geo[kind === 'paths' ? 'line' : 'polygon'] as string).split(' ').map(Number);
          assert.deepEqual(shape, positions.flatMap(([lng, lat]: number[]) => [lat, lng]), r.id);
        }
        // Its next events, every status, as /events/upcoming-by-poi gives them.
        const upcoming = (await t.json(`/events/upcoming-by-poi?poi_ids=${r.id}&limit_per_poi=10&status=all`)).body[r.id];
        assert.deepEqual((ld.event ?? []).map((e: any) => pathOf(e.url)), upcoming.map((e: any) => `/events/${e.id}.html`), r.id);
        for (const [k, e] of (ld.event ?? []).entries()) assert.equal(e.eventStatus, `https://schema.org/${STATUS[upcoming[k].status]}`);
        checked++;
      }
    }
    assert.ok(checked > 50, `${checked} POIs`);
  });
});

describe('the pages', () => {
  /** The demo's events that show each thing a page says. */
  async function specials(): Promise<any[]> {
    const events = await eventsOf('2026-12-01', '2027-06-30');
    const pick = (f: (e: any) => boolean) => events.find(f)!;
    return [pick((e) => e.status === 'cancelled'), pick((e) => e.status === 'rescheduled'), pick((e) => e.status === 'postponed'),
      pick((e) => e.status === 'moved_online'), pick((e) => e.all_day), pick((e) => e.organizer && e.offers), pick((e) => !e.series_id)];
  }

  test('an event\'s page embeds its JSON-LD, has its title, dates, status and links, Open Graph tags, and the pages\' CSP', async () => {
    for (const e of await specials()) {
      const res = await t.get(`/events/${e.id}.html`);
      assert.equal(res.status, 200, e.id);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(res.headers.get('content-security-policy'), pageCsp());
      assert.equal(res.headers.get('content-language'), 'en');
      const html = await res.text();
      assert.deepEqual(embedded(html), (await t.json(`/events/${e.id}.jsonld`)).body, e.id);
      assert.match(html, /^<!doctype html>\n<html lang="en">/);
      assert.equal(unescape(/<h1>(.*?)<\/h1>/.exec(html)![1]), e.title);
      assert.equal(unescape(meta(html, 'og:title')!), e.title);
      assert.equal(pathOf(meta(html, 'og:url')!), `/events/${e.id}.html`);
      assert.equal(meta(html, 'og:image'), e.image_url ?? undefined);
      assert.equal(pathOf(/<link rel="canonical" href="([^"]+)">/.exec(html)![1]), `/events/${e.id}.html`);
      if (e.all_day) assert.ok(html.includes(`<time datetime="${e.start_date}">`), e.id);
      else assert.ok(html.includes(`<time datetime="${e.starts_at}">`) && html.includes(`<time datetime="${e.ends_at}">`), e.id);
      if (e.status !== 'scheduled') assert.match(html, new RegExp(`<p class="event-status status-${e.status}">`));
      if (e.previous_start) assert.ok(html.includes(`<time datetime="${e.previous_start}">`), `${e.id}: its old start`);
      // Links to its calendar, its JSON, its places' pages; nothing loaded from anywhere but the service's style sheet.
      const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => unescape(m[1]));
      for (const wanted of [`/events/${e.id}.ics`, `/events/${e.id}`, `/events/${e.id}.jsonld`, `/explore?map=${MAIN}`]) {
        assert.ok(links.some((l) => l.endsWith(wanted)), `${e.id} links ${wanted}`);
      }
      for (const a of e.anchors) assert.ok(e.status === 'moved_online' || links.some((l) => l.endsWith(`/${a.type}s/${a.id}.html`)), `${e.id} links its place`);
      assert.doesNotMatch(html, /\ssrc=/, 'no script, image or frame to load');
      assert.deepEqual([...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]), ['/assets/site.css']);
    }
  });

  test('a series\' page gives its rule in words and links its next dates; an occurrence links its series', async () => {
    const s = demo.events.find((e) => e.map_id === MAIN && e.recurrence && e.overrides?.some((o) => o.status === 'cancelled'))!;
    const r = (await t.json(`/events/${s.id}`)).body;
    const html = await (await t.get(`/events/${s.id}.html`)).text();
    assert.ok(html.includes(r.recurrence.text.replace(/'/g, '&#39;')), 'the rule in words');
    const next = html.slice(html.indexOf('<h2>Next dates</h2>'));
    const linked = [...next.slice(0, next.indexOf('</ol>')).matchAll(/href="([^"]+)"/g)].map((m) => pathOf(m[1]));
    assert.deepEqual(linked, r.next_occurrences.map((o: any) => `/events/${o.id}.html`));
    assert.ok(r.next_occurrences.length > 0);
    const occurrence = await (await t.get(`/events/${r.next_occurrences[0].id}.html`)).text();
    assert.ok([...occurrence.matchAll(/href="([^"]+)"/g)].some((m) => m[1].endsWith(`/events/${s.id}.html`)), 'the occurrence links its series');
  });

  test('in the negotiated language: lang, Accept-Language; the words of the page too', async () => {
    const cancelled = (await eventsOf('2026-12-01', '2027-06-30')).find((e) => e.status === 'cancelled')!;
    for (const init of [{ path: `/events/${cancelled.id}.html?lang=pt` }, { path: `/events/${cancelled.id}.html`, headers: { 'accept-language': 'pt-PT,pt;q=0.9' } }]) {
      const res = await t.get(init.path, init.headers ? { headers: init.headers } : undefined);
      assert.equal(res.headers.get('content-language'), 'pt');
      const html = await res.text();
      const pt = (await t.json(`/events/${cancelled.id}?lang=pt`)).body;
      assert.match(html, /<html lang="pt">/);
      assert.equal(unescape(/<h1>(.*?)<\/h1>/.exec(html)![1]), pt.title);
      assert.match(html, /status-cancelled">Cancelado</);
      assert.equal(embedded(html).inLanguage, 'pt');
      assertEventLd(embedded(html), pt, 'pt');
    }
  });

  test('a place\'s page embeds its JSON-LD, names its kind and categories and lists its next events', async () => {
    for (const kind of ['markers', 'paths', 'polygons'] as const) {
      const { body } = await t.json(`/maps/${MAIN}/${kind}`);
      // Of (at most) a batch's worth of them, the one with the most events coming up.
      const some = body[kind].slice(0, 100);
      const upcoming = (await t.json(`/events/upcoming-by-poi?poi_ids=${some.map((p: any) => p.id).join(',')}&limit_per_poi=10&status=all`)).body;
      const r = some.sort((a: any, b: any) => upcoming[b.id].length - upcoming[a.id].length)[0];
      const res = await t.get(`/${kind}/${r.id}.html`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-security-policy'), pageCsp());
      const html = await res.text();
      assert.deepEqual(embedded(html), (await t.json(`/${kind}/${r.id}.jsonld`)).body);
      assert.equal(unescape(/<h1>(.*?)<\/h1>/.exec(html)![1]), r.name);
      const list = html.slice(html.indexOf('<h2>Coming up here</h2>'), html.indexOf('<h2>Links</h2>'));
      assert.deepEqual([...list.matchAll(/href="([^"]+)"/g)].map((m) => pathOf(m[1])), upcoming[r.id].map((e: any) => `/events/${e.id}.html`), kind);
      assert.doesNotMatch(html, /\ssrc=/);
    }
  });

  test('a conditional request gets 304; the page is live (it follows the clock)', async () => {
    const path = `/markers/${demo.markers.find((m) => m.map_id === MAIN)!.id}.html`;
    const first = await t.get(path);
    assert.match(first.headers.get('cache-control')!, /max-age=\d+/);
    const again = await t.get(path, { headers: { 'if-none-match': first.headers.get('etag')! } });
    assert.equal(again.status, 304);
  });
});

describe('what is not public, and bad requests', () => {
  test('an unknown id, another kind\'s id and a disabled map\'s event or place are 404 on every page and JSON-LD route', async () => {
    const marker = demo.markers.find((m) => m.map_id === MAIN)!.id;
    const hidden = { event: demo.events.find((e) => e.map_id === DISABLED)!.id, marker: demo.markers.find((m) => m.map_id === DISABLED)!.id };
    const cases = [
      ...['events', 'markers', 'paths', 'polygons'].map((kind) => `/${kind}/${NONE}`),
      `/paths/${marker}`, `/polygons/${marker}`, `/events/${marker}`, `/events/${hidden.event}`, `/markers/${hidden.marker}`,
    ];
    for (const path of cases) {
      for (const suffix of ['.html', '.jsonld']) {
        const { status, body } = await t.json(`${path}${suffix}`);
        assert.equal(status, 404, `${path}${suffix}`);
        assert.equal(body.status, 404);
      }
    }
  });

  test('langs=all is refused (a page, JSON-LD or calendar is in one language), and so is an id that is no UUID, each named', async () => {
    const marker = demo.markers.find((m) => m.map_id === MAIN)!.id;
    for (const path of [`/markers/${marker}.html?langs=all`, `/markers/${marker}.jsonld?langs=all`, `/events/${demo.events[0].id}.html?langs=all`,
      `/events/${demo.events[0].id}.jsonld?langs=all`, `/events/${demo.events[0].id}.ics?langs=all`, `/events.ics?map_id=${MAIN}&langs=all`]) {
      const { status, body } = await t.json(path);
      assert.equal(status, 400, path);
      assert.deepEqual(body.errors.map((e: any) => e.name), ['langs'], path);
    }
    const { status, body } = await t.json('/events/not-a-uuid.html?lang=pt_BR');
    assert.equal(status, 400);
    assert.deepEqual(body.errors.map((e: any) => e.name).sort(), ['id', 'lang']);
    // langs=all is named in the same 400 as every other bad parameter.
    for (const [path, names] of [['/events/not-a-uuid.html?langs=all', ['id', 'langs']], ['/markers/not-a-uuid.jsonld?langs=all', ['id', 'langs']],
      ['/events/not-a-uuid.ics?langs=all', ['id', 'langs']], ['/events.ics?map_id=not-a-uuid&langs=all', ['langs', 'map_id']]] as const) {
      const answer = await t.json(path);
      assert.equal(answer.status, 400, path);
      assert.deepEqual(answer.body.errors.map((e: any) => e.name).sort(), names, path);
    }
  });
});

describe('what links to the pages', () => {
  test('a feed\'s URL of an event with none of its own is its page', async () => {
    const fixture = makeFixture();
    const target = await openTarget(fixture);
    try {
      const e = fixture.events.find((x) => !x.url && !x.recurrence)!;
      const ics = await (await target.get(`/events/${e.id}.ics`)).text();
      const url = /^URL[^:]*:(.*)$/m.exec(ics.replace(/\r\n /g, ''))![1].trim();
      assert.equal(pathOf(url), `/events/${e.id.toLowerCase()}.html`);
      assert.equal((await target.get(pathOf(url))).status, 200);
    } finally {
      await target.close();
    }
  });
});
