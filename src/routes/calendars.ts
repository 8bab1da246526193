/**
 * Calendars: GET /events.ics (a map's events as a feed a calendar app subscribes to) and /events/{id}.ics (one
 * event, occurrence or series, to add to a calendar). Written by src/content/model/event-calendar.ts.
 */
import * as v from 'valibot';
import { filterKey, findMatches } from '../content/model/event-search.ts';
import { feedContent, feedSeries, feedSize, MAX_FEED_EVENTS, writeCalendar, type FeedContent } from '../content/model/event-calendar.ts';
import { findEvent, findSeries } from '../content/model/read-model.ts';
import { dateAt, dayStartMs } from '../content/series-dates.ts';
import { invalidParams, notFound } from '../http/errors.ts';
import { timestamp, uuid } from '../http/params.ts';
import { defineRoute, MediaReply } from '../http/route.ts';
import { checkEventFilters, EVENT_FILTERS, eventFilter, statusesOf, statusParam } from './events.ts';
import { findMap, oneLanguage } from './shared.ts';
import type { LanguageChoice } from '../http/language.ts';

const CALENDAR_TYPE = 'text/calendar; charset=utf-8';

/** The same date a year on (29 February becomes 1 March). */
function yearAfter(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  const next = new Date(Date.UTC(y + 1, m - 1, d));
  return next.toISOString().slice(0, 10);
}

/** GET /events.ics */
export const eventsCalendar = defineRoute({
  path: '/events.ics',
  oneLanguage: true,
  operationId: 'eventsCalendar',
  summary: 'A map\'s events as an iCalendar feed',
  description: 'The events /events would list for the same filters, as iCalendar (RFC 5545) for a calendar app to subscribe to, ' +
    'over a window instead of pages: by default from the start of today on the map\'s clock to twelve months on, so the feed ' +
    'changes at most once a day unless the content does. Every status by default: a calendar must learn of a cancellation. ' +
    'An occurrence of a series brings the whole series: one VEVENT with its rule, and one per override (RECURRENCE-ID). ' +
    `A feed of more than ${MAX_FEED_EVENTS.toLocaleString('en')} VEVENTs is refused with 400: narrow the window or the filters.`,
  tag: 'Events',
  pathParams: {},
  query: {
    map_id: uuid('Map UUID'),
    from: timestamp('Window start, as /events takes it. Default: the start of today on the map\'s clock'),
    to: timestamp('Window end, as /events takes it. Default: the same time twelve months after from', 'end'),
    ...EVENT_FILTERS,
    status: statusParam('all'),
  },
  crossCheck: checkEventFilters,
  contentType: CALENDAR_TYPE,
  response: v.string(),
  errors: [404],
  // The default window follows the day.
  cacheClass: (q) => (q.from === undefined ? 'live' : 'content'),
  async handle({ query, model, now, language, publicUrl }) {
    const map = findMap(model, query.map_id);
    const zone = map.events.timeZone;
    const fromMs = query.from ?? dayStartMs(dateAt(now.getTime(), zone), zone);
    const toMs = query.to ?? dayStartMs(yearAfter(dateAt(fromMs, zone)), zone) - 1;
    if (fromMs > toMs) throw invalidParams([{ name: 'to', in: 'query', reason: `must not be earlier than from (${new Date(fromMs).toISOString()})` }]);
    const filter = eventFilter(query, fromMs, toMs, statusesOf(query.status, null));
    const content = feedContent(map, findMatches(map, filter, filterKey(map.id, filter)));
    const size = feedSize(content);
    if (size > MAX_FEED_EVENTS) {
      throw invalidParams([{ name: query.to === undefined ? 'from' : 'to', in: 'query',
        reason: `the feed would hold ${size.toLocaleString('en')} events (series and their overrides counted one by one), more than ` +
          `${MAX_FEED_EVENTS.toLocaleString('en')}: narrow the window (from, to) or the filters` }]);
    }
    return new MediaReply(await calendarOf(map.id, content, { model, language, publicUrl }));
  },
});

/** GET /events/:id.ics */
export const eventCalendar = defineRoute({
  path: '/events/:id.ics',
  oneLanguage: true,
  operationId: 'eventCalendar',
  summary: 'One event, or a whole series, as iCalendar',
  description: 'A single event, or one occurrence of a series, is one VEVENT (an occurrence on its own: its UID is its own id, not ' +
    'the series\'); the id of a series answers the whole series, its rule and every override, as /events.ics writes it.',
  tag: 'Events',
  pathParams: { id: uuid('Event or series UUID') },
  query: {},
  contentType: CALENDAR_TYPE,
  response: v.string(),
  errors: [404],
  async handle({ params, model, language, publicUrl }) {
    const found = findEvent(model, params.id);
    if (found) return new MediaReply(await calendarOf(found.map.id, { singles: [found.position], series: [] }, { model, language, publicUrl }));
    const series = findSeries(model, params.id);
    if (!series) throw notFound(`Event ${params.id}`);
    return new MediaReply(await calendarOf(series.map.id, { singles: [], series: [feedSeries(series.map, series.series)] }, { model, language, publicUrl }));
  },
});

/** The calendar of `content` of a map, in the one language negotiated for it, named after the map. */
async function calendarOf(mapId: string, content: FeedContent, ctx: { model: Parameters<typeof writeCalendar>[0]; language: LanguageChoice; publicUrl: string }): Promise<string> {
  const map = ctx.model.maps.get(mapId)!;
  const lang = oneLanguage(ctx.language, mapId);
  return writeCalendar(ctx.model, map, content, { lang: map.events.languageIndex(lang), served: lang, publicUrl: ctx.publicUrl, name: map.doc.name.in(lang) });
}
