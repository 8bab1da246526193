/**
 * schema.org structured data (JSON-LD) of an event, a series and a place, as `/events/{id}.jsonld` and
 * `/markers/{id}.jsonld` (paths, polygons) answer it and the record pages embed it: what search engines and event
 * aggregators read. Made from the records the JSON routes answer, their texts already in the language served.
 */
import { isoWithOffset } from '../../utils/zoned-time.ts';
import { dateAt } from '../series-dates.ts';
import type { HoursDay, OpenState } from './open-hours.ts';

/** An event record as /events/{id} answers it, its texts strings in one language. */
export interface EventView {
  id: string; map_id: string; title: string; description: string | null; event_type: string; tags: string[];
  starts_at: string; ends_at: string; time_zone: string; url: string | null; image_url: string | null; price: string | null;
  status: 'scheduled' | 'cancelled' | 'postponed' | 'rescheduled' | 'moved_online'; previous_start: string | null;
  organizer: { name: string; url: string | null; email: string | null; phone: string | null } | null;
  offers: { free: boolean | null; price: number | null; currency: string | null; booking_url: string | null; availability: string | null } | null;
  attendance_mode: 'offline' | 'online' | 'mixed' | null; online_url: string | null; capacity: number | null; accessibility: string[];
  series_id: string | null; original_start: string | null; all_day: boolean; start_date: string | null; end_date: string | null;
  anchors: { id: string; type: string }[];
  /** A series only. */
  recurrence?: { rule: string; text: string; rdates: string[]; exdates: string[]; occurrence_count: number; last_start: string | null };
  next_occurrences?: EventView[];
}

/** A POI record as /markers/{id} (paths, polygons) answers it, its texts strings in one language. */
export interface PlaceView {
  id: string; map_id: string; type: 'marker' | 'path' | 'polygon'; name: string; description: string | null; category_ids: string[];
  image_url: string | null; website: string | null;
  hours: string | null;
  lat?: number; lng?: number; address?: string | null; phone?: string | null; opening_hours?: string | null;
  geometry?: { type: string; coordinates: unknown };
  difficulty?: string | null; duration_min?: number | null;
}

/** A place with its representative point (a marker's own; a path's or polygon's as events and lists give it). */
export interface AnchoredPlace {
  record: PlaceView;
  lat: number;
  lng: number;
  /** Where it stands now by its `hours`, and its open times day by day from today (src/content/model/open-hours.ts). */
  hours?: { state: OpenState; days: HoursDay[]; timeZone: string };
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/**
 * A place's open times as schema.org's `openingHoursSpecification`, one per open time of each day, each valid that day
 * only (holidays fall where they fall): a time past midnight closes the next day, as schema.org reads a `closes` before
 * its `opens`; a day open throughout is 00:00 to 23:59; a closed day opens and closes at 00:00.
 */
function openingHoursSpecification(days: readonly HoursDay[]): Record<string, unknown>[] {
  return days.flatMap((d) => (d.open.length > 0 ? d.open : [['00:00', '00:00']]).map(([opens, closes]) => ({
    '@type': 'OpeningHoursSpecification', dayOfWeek: schema(WEEKDAYS[d.weekday]), opens, closes: closes === '24:00' ? '23:59' : closes,
    validFrom: d.date, validThrough: d.date,
  })));
}

/** Where the links of the structured data point. */
export interface LinkContext {
  /** The service's public URL, no trailing slash. */
  publicUrl: string;
  /** The language served (BCP 47). */
  lang: string;
}

/** The page of an event and of a POI: what structured data, feeds and QR codes link to. */
export const eventPageUrl = (publicUrl: string, id: string): string => `${publicUrl}/events/${id}.html`;
export const placePageUrl = (publicUrl: string, type: string, id: string): string => `${publicUrl}/${type}s/${id}.html`;

const STATUS = {
  scheduled: 'EventScheduled', cancelled: 'EventCancelled', postponed: 'EventPostponed', rescheduled: 'EventRescheduled',
  moved_online: 'EventMovedOnline',
} as const;
const ATTENDANCE = { offline: 'OfflineEventAttendanceMode', online: 'OnlineEventAttendanceMode', mixed: 'MixedEventAttendanceMode' } as const;
const AVAILABILITY: Record<string, string> = {
  in_stock: 'InStock', limited_availability: 'LimitedAvailability', sold_out: 'SoldOut', pre_order: 'PreOrder',
};
const DAYS: Record<string, string> = {
  MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday',
};
const FREQUENCY: Record<string, string> = {
  SECONDLY: 'PT{n}S', MINUTELY: 'PT{n}M', HOURLY: 'PT{n}H', DAILY: 'P{n}D', WEEKLY: 'P{n}W', MONTHLY: 'P{n}M', YEARLY: 'P{n}Y',
};

const schema = (name: string) => `https://schema.org/${name}`;

/** An object without its null, undefined and empty-array members: schema.org has no null. */
function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0)));
}

/** An instant of an event as schema.org dates are written: on its map's clock with the offset. */
const instant = (iso: string, zone: string) => isoWithOffset(Date.parse(iso), zone);

/** The attendance mode an event states, else what it implies: online when moved online, in person when it has a place. */
export function attendanceOf(e: EventView, places: number): 'offline' | 'online' | 'mixed' | null {
  return e.attendance_mode ?? (e.status === 'moved_online' ? 'online' : places > 0 ? 'offline' : null);
}

/** A place as an event's `location`, or in a list of places. */
function placeOf(p: AnchoredPlace, ctx: LinkContext): Record<string, unknown> {
  const page = placePageUrl(ctx.publicUrl, p.record.type, p.record.id);
  return compact({
    '@type': 'Place', '@id': `${page}#place`, name: p.record.name, url: page, address: p.record.address ?? null,
    geo: { '@type': 'GeoCoordinates', latitude: p.lat, longitude: p.lng },
  });
}

/**
 * The schema.org `Schedule` of a series' rule: its frequency and interval, `BYDAY` (a plain day as a DayOfWeek, one
 * with an ordinal as iCalendar's text, as schema.org allows), `BYMONTH`, `BYMONTHDAY`, `COUNT`, `UNTIL`, the
 * occurrences' local start and end time and length, and the excluded dates. Parts Schedule has no property for
 * (`BYSETPOS`, `BYWEEKNO`, `BYYEARDAY`, `BYHOUR`…) are not in it: the rule in words is in the record's page.
 */
export function scheduleOf(e: EventView): Record<string, unknown> {
  const zone = e.time_zone;
  const parts = new Map(e.recurrence!.rule.split(';').map((p) => p.split('=') as [string, string]));
  const n = parts.get('INTERVAL') ?? '1';
  const byDay = parts.get('BYDAY')?.split(',').map((d) => (DAYS[d] ? schema(DAYS[d]) : d));
  const ints = (name: string) => parts.get(name)?.split(',').map(Number);
  // UNTIL is a UTC date-time (the bundle's check holds it to 20271231T235959Z): its day on the map's clock.
  const until = parts.get('UNTIL');
  const untilDate = until === undefined ? null : dateAt(Date.parse(until.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z')), zone);
  const first = Date.parse(e.starts_at);
  const lengthMin = Math.round((Date.parse(e.ends_at) - first) / 60_000);
  const wall = (iso: string) => isoWithOffset(Date.parse(iso), zone).slice(11, 19);
  return compact({
    '@type': 'Schedule',
    repeatFrequency: FREQUENCY[parts.get('FREQ') ?? '']?.replace('{n}', n) ?? null,
    byDay: byDay && byDay.length === 1 ? byDay[0] : byDay, byMonth: ints('BYMONTH'), byMonthDay: ints('BYMONTHDAY'),
    repeatCount: parts.has('COUNT') ? Number(parts.get('COUNT')) : null,
    startDate: e.all_day ? e.start_date : dateAt(first, zone),
    // A rule with a count ends on its last occurrence; one without an end has no end date.
    endDate: untilDate ?? (parts.has('COUNT') && e.recurrence!.last_start ? dateAt(Date.parse(e.recurrence!.last_start), zone) : null),
    startTime: e.all_day ? null : wall(e.starts_at), endTime: e.all_day ? null : wall(e.ends_at),
    duration: e.all_day ? `P${Math.round(lengthMin / 1440)}D` : `PT${Math.floor(lengthMin / 60)}H${lengthMin % 60}M`,
    scheduleTimezone: zone,
    exceptDate: e.recurrence!.exdates.map((d) => (e.all_day ? dateAt(Date.parse(d), zone) : instant(d, zone))),
  });
}

/**
 * An event, an occurrence or a series as a schema.org `Event`: status, the start it had before, attendance mode,
 * location (its places, and a `VirtualLocation` when it is online), offers, organizer, and for a series its
 * `eventSchedule`; an occurrence names its series as `superEvent`.
 */
export function eventJsonLd(e: EventView, places: readonly AnchoredPlace[], ctx: LinkContext): Record<string, unknown> {
  const zone = e.time_zone;
  const page = eventPageUrl(ctx.publicUrl, e.id);
  const mode = attendanceOf(e, places.length);
  const locations = [
    ...(mode === 'online' ? [] : places.map((p) => placeOf(p, ctx))),
    ...(e.online_url && mode !== 'offline' ? [{ '@type': 'VirtualLocation', url: e.online_url }] : []),
  ];
  const o = e.offers;
  const offer = o && (o.price !== null || o.free === true || o.booking_url !== null || o.availability !== null) ? compact({
    '@type': 'Offer', price: o.free === true ? 0 : o.price, priceCurrency: o.currency, url: o.booking_url,
    availability: o.availability ? schema(AVAILABILITY[o.availability]) : null,
  }) : null;
  return compact({
    '@context': 'https://schema.org', '@type': 'Event', '@id': `${page}#event`, name: e.title, description: e.description,
    url: e.url ?? page, image: e.image_url,
    startDate: e.all_day ? e.start_date : instant(e.starts_at, zone),
    endDate: e.all_day ? e.end_date : instant(e.ends_at, zone),
    eventStatus: schema(STATUS[e.status]),
    previousStartDate: e.previous_start === null ? null : e.all_day ? dateAt(Date.parse(e.previous_start), zone) : instant(e.previous_start, zone),
    eventAttendanceMode: mode ? schema(ATTENDANCE[mode]) : null,
    location: locations.length === 1 ? locations[0] : locations,
    offers: offer,
    isAccessibleForFree: o?.free ?? null,
    organizer: e.organizer ? compact({ '@type': 'Organization', name: e.organizer.name, url: e.organizer.url, email: e.organizer.email,
      telephone: e.organizer.phone }) : null,
    maximumAttendeeCapacity: e.capacity,
    accessibilityFeature: e.accessibility,
    keywords: e.tags.length > 0 ? e.tags.join(', ') : null,
    inLanguage: ctx.lang,
    eventSchedule: e.recurrence ? scheduleOf(e) : null,
    superEvent: e.series_id ? { '@type': 'Event', '@id': `${eventPageUrl(ctx.publicUrl, e.series_id)}#event`, url: eventPageUrl(ctx.publicUrl, e.series_id) } : null,
  });
}

/** "lat lng lat lng …", as schema.org's GeoShape writes a line or a polygon. */
const shapeText = (positions: readonly (readonly number[])[]) => positions.map(([lng, lat]) => `${lat} ${lng}`).join(' ');

/**
 * A POI as a schema.org `TouristAttraction` (a `Place`): its point (`GeoCoordinates`) for a marker, its line or outer
 * ring (`GeoShape`) for a path or a polygon; its categories as keywords; its upcoming events.
 */
export function placeJsonLd(p: AnchoredPlace, categories: readonly string[], events: readonly EventView[], ctx: LinkContext): Record<string, unknown> {
  const r = p.record;
  const page = placePageUrl(ctx.publicUrl, r.type, r.id);
  const geo = r.type === 'marker' ? { '@type': 'GeoCoordinates', latitude: p.lat, longitude: p.lng }
    : r.type === 'path' ? { '@type': 'GeoShape', line: shapeText(r.geometry!.coordinates as number[][]) }
    : { '@type': 'GeoShape', polygon: shapeText((r.geometry!.coordinates as number[][][])[0]) };
  return compact({
    '@context': 'https://schema.org', '@type': 'TouristAttraction', '@id': `${page}#place`, name: r.name, description: r.description,
    url: page, sameAs: r.website, image: r.image_url, address: r.address ?? null, telephone: r.phone ?? null, geo,
    keywords: categories.length > 0 ? categories.join(', ') : null,
    openingHoursSpecification: p.hours ? openingHoursSpecification(p.hours.days) : null,
    event: events.map((e) => compact({
      '@type': 'Event', '@id': `${eventPageUrl(ctx.publicUrl, e.id)}#event`, name: e.title, url: eventPageUrl(ctx.publicUrl, e.id),
      startDate: e.all_day ? e.start_date : instant(e.starts_at, e.time_zone), endDate: e.all_day ? e.end_date : instant(e.ends_at, e.time_zone),
      eventStatus: schema(STATUS[e.status]),
    })),
  });
}
