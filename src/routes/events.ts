/**
 * Events: GET /events (filtered, cursor-paged), /events/upcoming-by-poi and /events/:id.
 */
import * as v from 'valibot';
import { filterKey, pageOfEvents, type EventFilter } from '../content/model/event-search.ts';
import { sha256Hex } from '../utils/sha256.ts';
import { cursorKey, decodeCursor, encodeCursor, type CursorState } from '../http/cursor.ts';
import { HttpError, invalidParams, notFound, type ParamError } from '../http/errors.ts';
import { bbox, int, near, oneOf, optionalInt, optionalUuid, searchQuery, someOf, textList, timestamp, uuid, uuidList } from '../http/params.ts';
import { EVENT_STATUSES, type EventStatus } from '../content/bundle/bundle-schema.ts';
import { defineRoute, JsonBytes, PrivateReply, wholeSecond, type RouteContext } from '../http/route.ts';
import { ByteWriter } from '../utils/byte-writer.ts';
import { EventSchema, PoiRecordSchema, SeriesSchema, Uuid } from './schemas.ts';
import { findMap, UPDATED_SINCE } from './shared.ts';
import { nearShape } from '../geo/near-shape.ts';
import { findEvent, findSeries, type MapView, type ReadModel } from '../content/model/read-model.ts';
import type { LanguageChoice } from '../http/language.ts';
import { seriesRecord } from '../content/model/series-record.ts';
import { SessionsUnavailableError } from '../content/sessions.ts';

/** Default window length when `to` is omitted. */
export const DEFAULT_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
/** Default page size, and the largest. */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;
/** Default and largest radius for `near`, in metres. */
export const DEFAULT_RADIUS_M = 10_000;
export const MAX_RADIUS_M = 200_000;

const BAD_CURSOR = 'is not a cursor this service issued; pass back next_cursor exactly as received';

export function checkWindowOrder(q: { from?: number; to?: number }, bad: Set<string>): ParamError[] {
  if (q.from === undefined || q.to === undefined || bad.has('from') || bad.has('to')) return [];
  return q.from > q.to ? [{ name: 'to', in: 'query', reason: 'must not be earlier than from' }] : [];
}


/** The statuses served when `status` is not given: all but cancelled, so a client that knows nothing of status never shows a cancelled event as on. */
export const DEFAULT_STATUSES: readonly EventStatus[] = EVENT_STATUSES.filter((s) => s !== 'cancelled');

/** The `status` parameter of the event lists and feeds. */
export const statusParam = (byDefault = 'every status but cancelled') => someOf(EVENT_STATUSES,
  `Comma-separated statuses (${EVENT_STATUSES.join(', ')}), or all. Default: ${byDefault}`);

/** The statuses a `status` parameter keeps: null for all of them. */
export function statusesOf(status: 'all' | EventStatus[] | undefined, byDefault: readonly EventStatus[] | null = DEFAULT_STATUSES): readonly EventStatus[] | null {
  if (status === 'all') return null;
  return status ?? byDefault;
}

/** The filters of /events that its feed (/events.ics) takes too, besides the map, the window and `status`. */
export const EVENT_FILTERS = {
  event_types: textList('Comma-separated event types (any of them), case-insensitive'),
  tags: textList('Comma-separated free-text tags, case-insensitive; an event matches when it has any of them, or all of them with tags_match=all'),
  q: searchQuery('Search by title: every word must begin a word of the title in one of the map\'s languages, case- and accent-insensitive ("jeronimos" finds "Jerónimos")'),
  tags_match: oneOf(['any', 'all'], 'How tags match: any (the default: free or outdoor) or all (free and outdoor). Requires tags'),
  bbox: bbox('west,south,east,north in degrees; west > east crosses the antimeridian'),
  near: near('lat,lng (latitude first); used with radius_m'),
  radius_m: optionalInt(1, MAX_RADIUS_M, `Radius in metres for near (or near_poi, where taken), from 1 to ${MAX_RADIUS_M}. Default ${DEFAULT_RADIUS_M}`),
};

/** Parameters of EVENT_FILTERS as parsed. */
interface FilterParams {
  from?: number; to?: number; event_types?: string[]; tags?: string[]; tags_match?: 'any' | 'all'; q?: EventFilter['q'];
  bbox?: EventFilter['bbox']; near?: { lat: number; lng: number }; radius_m?: number;
}

/** The checks across the filters: the window's order, and parameters that need another. */
export function checkEventFilters(q: FilterParams & { near_poi?: string }, bad: Set<string>): ParamError[] {
  const errors = checkWindowOrder(q, bad);
  // `near_poi` (on /events only) is a place too: radius_m goes with either, and one place at a time.
  const takesPoi = 'near_poi' in q || bad.has('near_poi');
  if (q.radius_m !== undefined && q.near === undefined && q.near_poi === undefined && !bad.has('near') && !bad.has('near_poi')) {
    errors.push({ name: 'radius_m', in: 'query', reason: takesPoi ? 'requires near or near_poi' : 'requires near' });
  }
  if (q.near !== undefined && q.near_poi !== undefined) {
    errors.push({ name: 'near_poi', in: 'query', reason: 'cannot be given with near: ask about one place at a time' });
  }
  if (q.tags_match !== undefined && q.tags === undefined && !bad.has('tags')) {
    errors.push({ name: 'tags_match', in: 'query', reason: 'requires tags' });
  }
  return errors;
}

/** The filter the parameters of EVENT_FILTERS make, over a window and statuses. */
export function eventFilter(q: FilterParams, fromMs: number, toMs: number, statuses: readonly EventStatus[] | null): EventFilter {
  return {
    fromMs, toMs, types: q.event_types ?? null, tags: q.tags ?? null, tagsMatch: q.tags_match ?? 'any', bbox: q.bbox ?? null, q: q.q ?? null,
    near: q.near ? { ...q.near, radiusM: q.radius_m ?? DEFAULT_RADIUS_M } : null, statuses,
  };
}

/** `near_poi`: a POI whose place the events or POIs are near. */
export const NEAR_POI = optionalUuid('A marker, path or polygon: only what lies within radius_m of it (of a path\'s segments, of a ' +
  `polygon's outline or inside it). Default radius ${DEFAULT_RADIUS_M} m`);

/** The place `near_poi` names, within `radiusM` (default DEFAULT_RADIUS_M): a 404 when it names no public POI. */
export function nearPoiShape(model: ReadModel, id: string, radiusM = DEFAULT_RADIUS_M): NonNullable<EventFilter['nearShape']> {
  const poi = model.pois.get(id);
  if (!poi) throw notFound(`POI ${id}`);
  return { key: `${id}|${radiusM}`, ...nearShape(poi.geometry, radiusM) };
}

function nextCursor(key: string, position: Omit<CursorState, 'k'>): string {
  return encodeCursor({ k: cursorKey(key, position), ...position });
}

/** GET /events */
export const listEvents = defineRoute({
  path: '/events',
  records: 'events',
  operationId: 'listEvents',
  summary: 'Events of a map, filtered and cursor-paged',
  description: 'An event matches the window when it overlaps it (starts_at <= to and ends_at >= from). ' +
    'Spatial filters match when any anchor point (a marker\'s point, every vertex of a path or polygon) lies in the box ' +
    'or within the radius; events with no anchored POI never match a spatial filter. Cancelled events are left out unless ' +
    '`status` asks for them. Pages are ordered by starts_at, then id.',
  tag: 'Events',
  pathParams: {},
  query: {
    map_id: uuid('Map UUID'),
    from: timestamp('Window start, RFC 3339 date-time with Z or an offset, or a date (00:00 UTC). Default: now, to the whole second'),
    to: timestamp('Window end, as from; a date alone means the end of that day (23:59:59.999 UTC). Default: 30 days after from', 'end'),
    ...EVENT_FILTERS,
    status: statusParam('every status but cancelled; every status with updated_since'),
    updated_since: UPDATED_SINCE,
    near_poi: NEAR_POI,
    limit: int(1, MAX_LIMIT, DEFAULT_LIMIT, `Page size, 1 to ${MAX_LIMIT}. Default ${DEFAULT_LIMIT}`),
    cursor: v.optional(v.pipe(
      v.string(),
      v.check((c) => decodeCursor(c) !== null, BAD_CURSOR),
      v.transform((c) => decodeCursor(c)!),
      v.description('next_cursor from the previous page, bound to the same filters'),
    )),
  },
  crossCheck: checkEventFilters,
  response: v.strictObject({
    events: v.array(EventSchema),
    next_cursor: v.pipe(v.nullable(v.string()), v.description('Pass as cursor for the next page; null on the last page')),
    total: v.pipe(v.number(), v.description('Events matching the filters across all pages')),
  }),
  errors: [404],
  // A cursor carries its window, so only a first page with a defaulted `from` depends on the clock.
  cacheClass: (q) => (q.from === undefined && q.cursor === undefined ? 'live' : 'content'),
  handle({ query, model, now, language, fields }) {
    const map = findMap(model, query.map_id);
    const lang = map.events.languageIndex(language.forMap(map.id));
    let fromMs = query.from;
    let toMs = query.to;
    const state = query.cursor ?? null;
    // A defaulted window comes from the cursor, so "now" does not move between pages.
    fromMs ??= state?.f ?? wholeSecond(now);
    toMs ??= state?.t ?? fromMs + DEFAULT_WINDOW_MS;
    if (fromMs > toMs) {
      throw invalidParams([{ name: 'to', in: 'query', reason: `must not be earlier than from (${new Date(fromMs).toISOString()})` }]);
    }
    // An app that syncs must learn of a cancellation: with updated_since, every status unless `status` says.
    const since = query.updated_since;
    const filter: EventFilter = {
      ...eventFilter(query, fromMs, toMs, statusesOf(query.status, since === undefined ? DEFAULT_STATUSES : null)),
      changedSince: since === undefined ? null : { ms: since, test: model.changes.eventsChangedSince(map, since) },
      nearShape: query.near_poi === undefined ? null : nearPoiShape(model, query.near_poi, query.radius_m),
    };
    const key = filterKey(map.id, filter);
    if (state && state.k !== cursorKey(key, state)) {
      throw invalidParams([{ name: 'cursor', in: 'query',
        reason: 'belongs to a different set of filters, or was altered; repeat the filters of the page it came from' }]);
    }
    // The matches of updated_since are kept per account of the changes (a rollback to the version served is a change).
    const page = pageOfEvents(map, filter, since === undefined ? key : `${key}|${model.changes.latest}`, state, query.limit);
    const cursor = page.next ? nextCursor(key, { ...page.next, f: fromMs, t: toMs }) : null;
    // The records are copied as JSON bytes from their columns (EventTable.writeRecords): no string and no object
    // per event on the busiest route; each language's texts are bytes of their own.
    // With `fields` or `omit`, each record is written with only the fields kept (less to write than the whole).
    const head = pageWriter.reset().ascii('{"events":');
    const w = fields ? map.events.writeSelectedRecords(page.positions, head, lang, fields.bytes())
      : map.events.writeRecords(page.positions, head, lang);
    return new JsonBytes(w.ascii(`,"next_cursor":${JSON.stringify(cursor)},"total":${page.total}}`).take(), fields !== null);
  },
});

/** Where a page of /events is written (one request at a time runs on a thread; the page is copied out). */
const pageWriter = new ByteWriter();

/** GET /events/upcoming-by-poi */
export const upcomingByPoi = defineRoute({
  path: '/events/upcoming-by-poi',
  records: 'values',
  operationId: 'upcomingEventsByPoi',
  summary: 'Upcoming events grouped by POI',
  description: 'Every requested id is a key, in request order. An event is upcoming when it has not ended by `from` ' +
    '(default now, to the whole second) and, when `to` is given, starts by `to`; cancelled events are left out unless `status` ' +
    'asks for them. An unknown or non-public POI maps to an empty array.',
  tag: 'Events',
  pathParams: {},
  query: {
    poi_ids: uuidList('Comma-separated marker, path or polygon UUIDs (at most 100)'),
    from: timestamp('Window start. Default: now, to the whole second'),
    to: timestamp('Window end; a date alone means the end of that day (23:59:59.999 UTC). Default: none', 'end'),
    limit_per_poi: int(1, 20, 5, 'Maximum events per POI, 1 to 20. Default 5'),
    status: statusParam(),
  },
  crossCheck: checkWindowOrder,
  cacheClass: (q) => (q.from === undefined ? 'live' : 'content'),
  response: v.pipe(v.record(Uuid, v.array(EventSchema)), v.description('Requested POI id -> its upcoming events, by starts_at then id')),
  errors: [],
  handle({ query, model, now, language }) {
    const fromMs = query.from ?? wholeSecond(now);
    const toMs = query.to ?? Infinity;
    if (fromMs > toMs) throw invalidParams([{ name: 'to', in: 'query', reason: 'must not be earlier than from (default now)' }]);
    // POIs of several maps: negotiated against their maps' languages; a map without the language served gives its default.
    const served = language.forMaps(query.poi_ids.flatMap((id) => model.pois.mapOf(id) ?? []));
    const body: Record<string, unknown[]> = {};
    const statuses = statusesOf(query.status);
    for (const id of query.poi_ids) {
      const mapId = model.pois.mapOf(id);
      const events = mapId === undefined ? undefined : model.maps.get(mapId)?.events;
      body[id] = events ? events.upcomingAt(id, fromMs, toMs, query.limit_per_poi, events.languageIndex(served), statuses && events.statusMask(statuses)) : [];
    }
    return body;
  },
});

/**
 * What GET /events/{id} answers for an event or occurrence (its record and its anchored POIs' records) or for a
 * series (seriesRecord), with the ids whose saving marks it saved (an occurrence's own and its series'); null for an
 * id that is no public event or series.
 */
export async function eventAnswer({ model, now, language, followsClock }: Pick<RouteContext<unknown, unknown>, 'model' | 'now' | 'language' | 'followsClock'>,
  id: string): Promise<{ body: Record<string, unknown>; savedIds: string[]; map: MapView } | null> {
  const found = findEvent(model, id);
  if (found) {
    const { map, position } = found;
    const lang = map.events.languageIndex(language.forMap(map.id));
    const body = { ...map.events.summary(position, lang), pois: map.events.poiIds(position).map((poiId) => model.pois.get(poiId)!.record) };
    const series = map.events.seriesOf(position);
    return { body, savedIds: series === null ? [id] : [id, series], map };
  }
  const series = findSeries(model, id);
  if (!series) return null;
  // Its next occurrences are counted from now.
  followsClock();
  const served = language.forMap(series.map.id);
  const body = await seriesRecord(model, series.map, series.series, now.getTime(), series.map.events.languageIndex(served), served);
  return { body, savedIds: [id], map: series.map };
}

const BEARER_RE = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;

/** GET /events/:id */
export const getEvent = defineRoute({
  path: '/events/:id',
  records: 'body',
  operationId: 'getEvent',
  summary: 'One event with all of its anchored POIs, or a recurring series with its next occurrences',
  description: 'An occurrence of a series is an event like any other, with `series_id` and `original_start`; the id of the ' +
    'series itself answers the series: its record, its `recurrence` (the rule as RRULE and in words) and its `next_occurrences`. ' +
    'With `Authorization: Bearer <token>` of a valid account session the body adds `is_saved` (an occurrence is saved when it ' +
    'or its series is) and is `Cache-Control: private`. An invalid or expired token gets 401.',
  tag: 'Events',
  pathParams: { id: uuid('Event UUID') },
  query: {},
  headers: { vary: 'Authorization' },
  response: v.union([
    v.strictObject({
      ...EventSchema.entries,
      pois: v.pipe(v.array(PoiRecordSchema), v.description('Full records of the anchored POIs')),
      is_saved: v.optional(v.pipe(v.boolean(), v.description('Only for account-session callers'))),
    }),
    v.strictObject({
      ...SeriesSchema.entries,
      pois: v.pipe(v.array(PoiRecordSchema), v.description('Full records of the anchored POIs')),
      is_saved: v.optional(v.pipe(v.boolean(), v.description('Only for account-session callers'))),
    }),
  ]),
  errors: [401, 404, 503],
  async handle(ctx) {
    const { header, params, store, now } = ctx;
    const answer = await eventAnswer(ctx, params.id);
    if (!answer) throw notFound(`Event ${params.id}`);
    const { body, savedIds } = answer;
    const auth = header('authorization');
    if (auth === null) return body;
    const token = BEARER_RE.exec(auth.trim())?.[1];
    let session: Awaited<ReturnType<typeof store.lookupSession>> = null;
    try {
      session = token ? await store.lookupSession(sha256Hex(token), savedIds, now) : null;
    } catch (err) {
      // Never a guess at is_saved: the caller may try again.
      if (err instanceof SessionsUnavailableError) throw new HttpError(503, 'Account sessions cannot be checked right now; try again shortly.', { headers: { 'retry-after': '5' } });
      throw err;
    }
    if (!session) {
      throw new HttpError(401, 'The account session token is invalid or has expired.', {
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      });
    }
    body.is_saved = session.is_saved;
    return new PrivateReply(body);
  },
});
