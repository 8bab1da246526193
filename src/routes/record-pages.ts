/**
 * A page and structured data for each event and place: GET /events/{id}.html and .jsonld, /markers/{id}.html and
 * .jsonld (paths, polygons). Written by src/content/model/record-pages.ts and structured-data.ts from the records the
 * JSON routes answer.
 */
import * as v from 'valibot';
import { eventPageHtml, placePageHtml, type PageContext } from '../content/model/record-pages.ts';
import { eventJsonLd, placeJsonLd, type AnchoredPlace, type EventView, type PlaceView } from '../content/model/structured-data.ts';
import { renderIn } from '../content/model/local-text.ts';
import type { MapView, PoiType, ReadModel } from '../content/model/read-model.ts';
import { notFound } from '../http/errors.ts';
import { pageCsp } from '../http/page-policy.ts';
import { uuid } from '../http/params.ts';
import { defineRoute, MediaReply, wholeSecond, type RouteContext, type RouteSpec } from '../http/route.ts';
import { eventAnswer } from './events.ts';
import { findPoi } from './pois.ts';
import { hoursOfMap } from '../content/model/open-hours.ts';
import { oneLanguage } from './shared.ts';

const HTML_TYPE = 'text/html; charset=utf-8';
const JSON_LD_TYPE = 'application/ld+json; charset=utf-8';
/** How many of a place's next events its page and JSON-LD list. */
export const PLACE_EVENTS = 10;

/** A value with its texts (LocalTexts) written in `lang`, as a JSON route would answer it. */
const plainIn = <T>(lang: string, value: unknown): T => JSON.parse(renderIn(lang, () => JSON.stringify(value))) as T;

/** Records of POIs with their representative points (a marker's own; a path's or polygon's as events and lists give it). */
function anchored(model: ReadModel, records: readonly PlaceView[]): AnchoredPlace[] {
  return records.map((record) => {
    const { lat, lng } = model.pois.get(record.id)!.summary;
    return { record, lat, lng };
  });
}

type Ctx = RouteContext<{ id: string }, Record<string, never>>;

/** An event, occurrence or series in one language, with its anchored places, and the page context; 404 when it is none. */
async function eventOf(c: Ctx) {
  const { params, model, language, publicUrl, basePath } = c;
  const answer = await eventAnswer(c, params.id);
  if (!answer) throw notFound(`Event ${params.id}`);
  const lang = oneLanguage(language, answer.map.id);
  const { pois, ...event } = plainIn<EventView & { pois: PlaceView[] }>(lang, answer.body);
  return { event, places: anchored(model, pois), ctx: pageContext(answer.map, lang, publicUrl, basePath) };
}

function pageContext(map: MapView, lang: string, publicUrl: string, basePath: string): PageContext {
  return { lang, publicUrl, basePath, mapName: map.doc.name.in(lang) };
}

/** How many days of a place's open times its page and JSON-LD show, from today. */
export const PLACE_HOURS_DAYS = 7;

/**
 * A POI of `type` in one language, its categories' names, its next events (every status) and, when it has `hours`,
 * where it stands now and its open times for PLACE_HOURS_DAYS days; 404 when it is none.
 */
async function placeOf(type: PoiType, { params, model, now, language, publicUrl, basePath }: Ctx) {
  const poi = findPoi(model, params.id, type);
  const i = model.pois.indexOf(poi.record.id);
  const map = model.maps.get(poi.record.map_id)!;
  const lang = oneLanguage(language, map.id);
  const record = plainIn<PlaceView>(lang, poi.record);
  const names = new Map(map.versions.get(map.currentVersionId)!.categories.map((c) => [c.id, c.name]));
  const categories = record.category_ids.flatMap((id) => names.get(id)?.in(lang) ?? []);
  const events = map.events.upcomingAt(record.id, wholeSecond(now), Infinity, PLACE_EVENTS, map.events.languageIndex(lang)) as unknown as EventView[];
  const at = wholeSecond(now);
  const hours = model.pois.hoursCode(i) >= 0 ? await hoursOfMap(model, map) : null;
  const place: AnchoredPlace = { record, lat: poi.summary.lat, lng: poi.summary.lng,
    ...(hours ? { hours: { state: hours.stateAt(i, at)!, days: hours.days(i, at, PLACE_HOURS_DAYS)!, timeZone: map.doc.time_zone } } : {}) };
  return { place, categories, events, ctx: pageContext(map, lang, publicUrl, basePath) };
}

const PAGE_HEADERS = { 'content-security-policy': pageCsp() };
const JsonLd = v.looseObject({ '@context': v.literal('https://schema.org'), '@type': v.string() });

/** GET /events/:id.html */
export const eventPage = defineRoute({
  path: '/events/:id.html',
  oneLanguage: true,
  operationId: 'eventPage',
  summary: 'The page of an event, an occurrence or a series',
  description: 'Small HTML written on the server in the negotiated language, readable with scripts off: title, when (for a series ' +
    'its rule in words and its next dates), status, where, offers and booking, organizer, links to its calendar, the explorer ' +
    'and its JSON. It embeds the schema.org JSON-LD of /events/{id}.jsonld and Open Graph tags; what a QR code or a shared ' +
    'link points to. A series\' page follows the clock (its next dates).',
  tag: 'Pages',
  pathParams: { id: uuid('Event, occurrence or series UUID') },
  query: {},
  contentType: HTML_TYPE,
  headers: PAGE_HEADERS,
  response: v.string(),
  errors: [404],
  async handle(c) {
    const { event, places, ctx } = await eventOf(c as Ctx);
    return new MediaReply(eventPageHtml(event, places, ctx));
  },
});

/** GET /events/:id.jsonld */
export const eventJsonLdRoute = defineRoute({
  path: '/events/:id.jsonld',
  oneLanguage: true,
  operationId: 'eventJsonLd',
  summary: 'An event, an occurrence or a series as schema.org JSON-LD',
  description: 'A schema.org Event: eventStatus, previousStartDate, eventAttendanceMode, location (a Place with geo and address ' +
    'per anchored POI, a VirtualLocation when online), offers, organizer, isAccessibleForFree, inLanguage, url; a series has ' +
    'its eventSchedule, an occurrence its series as superEvent. The same object its page embeds.',
  tag: 'Pages',
  pathParams: { id: uuid('Event, occurrence or series UUID') },
  query: {},
  contentType: JSON_LD_TYPE,
  response: JsonLd,
  errors: [404],
  async handle(c) {
    const { event, places, ctx } = await eventOf(c as Ctx);
    return eventJsonLd(event, places, ctx);
  },
});

/** The page and the JSON-LD of one POI kind. */
function placeRoutes(type: PoiType): RouteSpec[] {
  const plural = `${type}s`;
  const page = defineRoute({
    path: `/${plural}/:id.html`,
    oneLanguage: true,
    operationId: `${type}Page`,
    summary: `The page of a ${type}`,
    description: 'Small HTML written on the server in the negotiated language, readable with scripts off: name, categories, ' +
      'details, where, whether it is open now and its open times for the next ${PLACE_HOURS_DAYS} days (from its \`hours\`), the next events anchored to it (every status), links to the explorer and its JSON. It embeds the ' +
      `schema.org JSON-LD of /${plural}/{id}.jsonld and Open Graph tags. It follows the clock (the next events, open now).`,
    tag: 'Pages',
    pathParams: { id: uuid(`${type[0].toUpperCase()}${type.slice(1)} UUID`) },
    query: {},
    contentType: HTML_TYPE,
    headers: PAGE_HEADERS,
    response: v.string(),
    errors: [404],
    cacheClass: () => 'live',
    async handle(c) {
      const { place, categories, events, ctx } = await placeOf(type, c as Ctx);
      return new MediaReply(placePageHtml(place, categories, events, ctx));
    },
  });
  const jsonLd = defineRoute({
    path: `/${plural}/:id.jsonld`,
    oneLanguage: true,
    operationId: `${type}JsonLd`,
    summary: `A ${type} as schema.org JSON-LD`,
    description: `A schema.org TouristAttraction: geo (${type === 'marker' ? 'GeoCoordinates' : 'a GeoShape'}), address, ` +
      'telephone, its website as sameAs, its categories as keywords, its open times for the next 7 days as ' +
      'openingHoursSpecification (from its `hours`, each valid on its date), its next events. The same object its page embeds.',
    tag: 'Pages',
    pathParams: { id: uuid(`${type[0].toUpperCase()}${type.slice(1)} UUID`) },
    query: {},
    contentType: JSON_LD_TYPE,
    response: JsonLd,
    errors: [404],
    cacheClass: () => 'live',
    async handle(c) {
      const { place, categories, events, ctx } = await placeOf(type, c as Ctx);
      return placeJsonLd(place, categories, events, ctx);
    },
  });
  return [page, jsonLd] as unknown as RouteSpec[];
}

/** The pages and JSON-LD of events and of the three POI kinds (8 routes). */
export const recordPageRoutes: RouteSpec[] = [
  eventPage, eventJsonLdRoute, ...(['marker', 'path', 'polygon'] as const).flatMap(placeRoutes),
] as unknown as RouteSpec[];
