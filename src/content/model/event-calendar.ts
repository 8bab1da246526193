/**
 * Events as iCalendar (RFC 5545), for GET /events.ics and /events/{id}.ics: written with `ical-generator`, each
 * time zone's VTIMEZONE from `timezones-ical-library`, from the version's read model (nothing from the store).
 *
 * - A single event is one VEVENT, its UID the event's id.
 * - A series is one VEVENT with its whole rule (RRULE, RDATE, EXDATE as the bundle gives them), its UID the series'
 *   id, and one more VEVENT per override with the same UID and a RECURRENCE-ID (its original start): calendars tie
 *   them by UID and RECURRENCE-ID. A cancelled occurrence is an override with STATUS:CANCELLED, never also an EXDATE
 *   (readers disagree on the pair).
 * - SEQUENCE is the store's number of the change in which that record last changed, LAST-MODIFIED and DTSTAMP that
 *   change's time (src/content/model/record-changes.ts): they move only when the event changed, so the bytes, and
 *   the ETag, of a feed stay the same until something in it changes.
 * - Times are on the map's clock (`TZID`), as the rule is; an all-day event's are dates (DTEND the day after its last).
 * - GEO and LOCATION come from the anchored POIs (the first one's point; every name, and the first address), URL is
 *   the event's own or else its record in this API, ORGANIZER its organizer when it has an email address.
 */
import { eventPageUrl } from './structured-data.ts';
import ical, { ICalCalendarMethod, ICalEventStatus, type ICalCalendar, type ICalEventData } from 'ical-generator';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import type { EventStatus } from '../bundle/bundle-schema.ts';
import { addDaysToDate, occurrenceId, ruleOf } from '../series-dates.ts';
import { icalWall, wallTimeAt } from '../../utils/zoned-time.ts';
import { LocalText, localText } from './local-text.ts';
import { tailOf } from './event-table.ts';
import type { RecordChanged } from './record-changes.ts';
import type { MapView, ReadModel, SeriesDoc } from './read-model.ts';

/** How often a calendar app should fetch a feed again (REFRESH-INTERVAL and X-PUBLISHED-TTL), in seconds. */
export const REFRESH_SECONDS = 6 * 60 * 60;

/** The most VEVENTs one answer holds (a series counts one, and one more per override): a longer feed is refused. */
export const MAX_FEED_EVENTS = 5_000;

/** Temporal: the runtime's own (Bun, Deno), else the polyfill (Node 24 has none). Loaded on first use. */
type TemporalApi = typeof import('temporal-polyfill').Temporal;
let temporal: TemporalApi | null = null;

async function loadTemporal(): Promise<TemporalApi> {
  temporal ??= (globalThis as { Temporal?: TemporalApi }).Temporal ?? (await import('temporal-polyfill')).Temporal;
  return temporal;
}

/** A series in a feed: its record, and each override's original start and the position of the occurrence it makes. */
export interface FeedSeries {
  series: SeriesDoc;
  overrides: { originalStart: string; position: number }[];
}

/** What a feed is made of: events that are not in a series, and series (each whole, with every override). */
export interface FeedContent {
  singles: number[];
  series: FeedSeries[];
}

/** How many VEVENTs a feed of `content` holds. */
export function feedSize(content: FeedContent): number {
  return content.series.reduce((n, s) => n + 1 + s.overrides.length, content.singles.length);
}

/**
 * The singles and the series of events at `positions` of `map`'s table: an occurrence stands for its whole series,
 * which is in the feed once (in the order its first occurrence comes).
 */
export function feedContent(map: MapView, positions: Iterable<number>): FeedContent {
  const singles: number[] = [];
  const series = new Map<string, FeedSeries>();
  for (const i of positions) {
    const id = map.events.seriesOf(i);
    if (id === null) singles.push(i);
    else if (!series.has(id)) series.set(id, feedSeries(map, map.series.get(id)!));
  }
  return { singles, series: [...series.values()] };
}

/** How a feed is written: its language (a map language index of the event table, and the tag), and where links point. */
export interface FeedOptions {
  lang: number;
  served: string;
  publicUrl: string;
  /** The calendar's name (X-WR-CALNAME). */
  name: string;
}

/** Series `s` of `map` as a feed writes it: with each override and the position of the occurrence it makes. */
export function feedSeries(map: MapView, s: SeriesDoc): FeedSeries {
  const overrides: FeedSeries['overrides'] = [];
  for (const o of s.doc.overrides ?? []) {
    const position = map.events.positionOf(occurrenceId(s.doc.id.toLowerCase(), o.original_start));
    if (position >= 0) overrides.push({ originalStart: o.original_start, position });
  }
  return { series: s, overrides };
}

/** iCalendar's STATUS for a schema.org event status: a postponed event has no date yet, so it is tentative. */
function icalStatus(status: EventStatus): ICalEventStatus {
  if (status === 'cancelled') return ICalEventStatus.CANCELLED;
  if (status === 'postponed') return ICalEventStatus.TENTATIVE;
  return ICalEventStatus.CONFIRMED;
}

/** Writes a feed of `content` of `map` as an iCalendar file. */
export async function writeCalendar(model: ReadModel, map: MapView, content: FeedContent, o: FeedOptions): Promise<string> {
  const Temporal = await loadTemporal();
  const zone = map.events.timeZone;
  const cal: ICalCalendar = ical({
    name: o.name, method: ICalCalendarMethod.PUBLISH, ttl: REFRESH_SECONDS,
    prodId: { company: 'destination map content service', product: 'events', language: o.served.toUpperCase() },
    // No calendar-wide zone: DTSTAMP, CREATED and LAST-MODIFIED stay in UTC; each event's TZID gets its VTIMEZONE.
    timezone: { name: null, generator: (tz: string) => tzlib_get_ical_block(tz)[0] },
  });
  const instant = (iso: string) => Temporal.Instant.from(iso).toZonedDateTimeISO(zone);
  const date = (d: string) => Temporal.PlainDate.from(d);
  const stampOf = (madeAt: string | null) => instant(madeAt ?? model.publishedAt);
  const poiFields = (ids: readonly string[]): Partial<ICalEventData> => {
    const pois = ids.map((id) => model.pois.get(id.toLowerCase())).filter((p) => p !== undefined);
    if (pois.length === 0) return {};
    const lang = o.served;
    // A POI's texts may be translated (LocalText) or plain.
    const inLang = (value: unknown) => (value instanceof LocalText ? value.in(lang) : typeof value === 'string' ? value : null);
    const address = pois.map((p) => inLang(p.record.address)).find((a) => a !== null && a !== '');
    const { lat, lng } = pois[0].summary;
    return { location: { title: pois.map((p) => p.record.name.in(lang)).join(', '), ...(address ? { address } : {}), geo: { lat, lon: lng } } };
  };
  /** The fields of an event record as /events serves it (an occurrence's or a single event's). */
  const fromRecord = (r: Record<string, unknown>): ICalEventData => {
    const allDay = r.all_day === true;
    const organizer = r.organizer as { name: string; email: string | null } | null;
    return {
      summary: r.title as string, description: (r.description as string | null) ?? null,
      status: icalStatus(r.status as EventStatus),
      created: instant(r.created_at as string),
      url: (r.url as string | null) ?? eventPageUrl(o.publicUrl, r.id as string),
      ...(organizer?.email ? { organizer: { name: organizer.name, email: organizer.email } } : {}),
      categories: [{ name: r.event_type as string }],
      ...(allDay
        ? { allDay: true, start: date(r.start_date as string), end: date(addDaysToDate(r.end_date as string, 1)) }
        : { timezone: zone, start: instant(r.starts_at as string), end: instant(r.ends_at as string) }),
      ...poiFields((r.anchors as { id: string }[]).map((a) => a.id)),
    };
  };

  /** SEQUENCE, DTSTAMP and LAST-MODIFIED of a record that last changed in `changed`. */
  const changedIn = (changed: RecordChanged): Partial<ICalEventData> => ({ sequence: changed.change, stamp: stampOf(changed.madeAt), lastModified: stampOf(changed.madeAt) });
  const text = (value: Parameters<typeof localText>[0]) => localText(value, map.languages.default, map.languages.offered)?.in(o.served) ?? null;

  for (const i of content.singles) {
    const r = map.events.summary(i, o.lang);
    cal.createEvent({ ...fromRecord(r), id: r.id as string, ...changedIn(model.changes.ofEvent(map, i)) });
  }
  for (const { series: { doc }, overrides } of content.series) {
    const id = doc.id.toLowerCase();
    const allDay = doc.all_day === true;
    const recurrence = doc.recurrence!;
    // The rule as the bundle gives it, on the map's clock from DTSTART; RDATE and EXDATE in the same form as DTSTART.
    const local = (d: string) => (allDay ? d.replace(/-/g, '') : icalWall(wallTimeAt(Date.parse(d), zone)));
    const dates = (name: string, list: readonly string[] | undefined) => (list?.length
      ? [`${name}${allDay ? ';VALUE=DATE' : `;TZID=${zone}`}:${list.map(local).join(',')}`] : []);
    // The series' own record in the shape of an event's (its first occurrence's start and end, or days).
    const record = { id, title: text(doc.title) ?? '', description: text(doc.description), event_type: doc.event_type, created_at: doc.created_at,
      ...tailOf(doc, text), start_date: doc.starts_at, end_date: doc.ends_at, starts_at: doc.starts_at, ends_at: doc.ends_at,
      anchors: doc.poi_ids.map((poi) => ({ id: poi })) };
    cal.createEvent({
      ...fromRecord(record), id, ...changedIn(model.changes.ofRecord(id)),
      repeating: [`RRULE:${ruleOf(recurrence)}`, ...dates('RDATE', recurrence.rdates), ...dates('EXDATE', recurrence.exdates)].join('\r\n'),
    });
    for (const { originalStart, position } of overrides) {
      const data: ICalEventData = { ...fromRecord(map.events.summary(position, o.lang)), id, ...changedIn(model.changes.ofEvent(map, position)) };
      // ical-generator writes RECURRENCE-ID as a time: an all-day occurrence's is its date, written as such.
      if (allDay) data.x = [['RECURRENCE-ID;VALUE=DATE', originalStart.replace(/-/g, '')]];
      else data.recurrenceId = instant(originalStart);
      cal.createEvent(data);
    }
  }
  return cal.toString();
}
