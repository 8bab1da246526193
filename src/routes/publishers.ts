/**
 * Publishers: GET /publisher/:publisher_id and /publisher/:publisher_id/maps (by proximity with lat/lng).
 */
import * as v from 'valibot';
import { compareByName, type ReadModel } from '../content/model/read-model.ts';
import { distanceM } from '../geo/point-index.ts';
import type { ParamError } from '../http/errors.ts';
import { coordinate, uuid } from '../http/params.ts';
import { defineRoute } from '../http/route.ts';
import { BrandingSchema, LText, NLText, PublisherSchema, Uuid } from './schemas.ts';
import { findPublisher } from './shared.ts';

const publisherIdPath = { publisher_id: uuid('Publisher UUID') };

/** The ids of a publisher's published maps: its answers are negotiated against their languages. */
const mapsOf = (model: ReadModel, publisherId: string) =>
  [...model.maps.values()].filter((m) => m.publisherId === publisherId).map((m) => m.id);

/** GET /publisher/:publisher_id */
export const getPublisher = defineRoute({
  path: '/publisher/:publisher_id',
  records: 'body',
  operationId: 'getPublisher',
  summary: 'One publisher',
  tag: 'Publishers',
  pathParams: publisherIdPath,
  query: {},
  response: PublisherSchema,
  errors: [404],
  handle({ params, model, language }) {
    const publisher = findPublisher(model, params.publisher_id);
    language.forMaps(mapsOf(model, params.publisher_id));
    return publisher;
  },
});

const PublisherMap = v.strictObject({
  id: Uuid, name: LText, slug: v.string(), description: NLText, time_zone: v.string(),
  center: v.strictObject({ lat: v.number(), lng: v.number() }), branding: BrandingSchema,
  distance_m: v.optional(v.pipe(v.number(), v.description('Great-circle distance from lat/lng to the map centre, in metres; only with lat/lng'))),
});

/** GET /publisher/:publisher_id/maps */
export const getPublisherMaps = defineRoute({
  path: '/publisher/:publisher_id/maps',
  records: 'maps',
  operationId: 'getPublisherMaps',
  summary: 'Published maps of a publisher, nearest first when lat and lng are given',
  description: 'Without lat/lng, maps are ordered by name. Disabled maps are left out.',
  tag: 'Publishers',
  pathParams: publisherIdPath,
  query: {
    lat: coordinate(-90, 90, 'Latitude; used together with lng'),
    lng: coordinate(-180, 180, 'Longitude; used together with lat'),
  },
  crossCheck(q, bad) {
    const errors: ParamError[] = [];
    if (q.lat !== undefined && q.lng === undefined && !bad.has('lng')) errors.push({ name: 'lng', in: 'query', reason: 'is required when lat is given' });
    if (q.lng !== undefined && q.lat === undefined && !bad.has('lat')) errors.push({ name: 'lat', in: 'query', reason: 'is required when lng is given' });
    return errors;
  },
  response: v.strictObject({ publisher_id: Uuid, maps: v.array(PublisherMap), total: v.number() }),
  errors: [404],
  handle({ params, query, model, language }) {
    const publisher = findPublisher(model, params.publisher_id);
    language.forMaps(mapsOf(model, publisher.id as string));
    const point = query.lat !== undefined && query.lng !== undefined ? { lat: query.lat, lng: query.lng } : null;
    // Sort on the exact distance; the body carries it rounded to the metre.
    const maps = [...model.maps.values()].filter((m) => m.publisherId === publisher.id).map((m) => {
      const { center } = m.doc.map_data;
      const distance = point ? distanceM(point.lat, point.lng, center.lat, center.lng) : 0;
      return { distance, map: {
        id: m.id, name: m.doc.name, slug: m.doc.slug, description: m.doc.description ?? null, time_zone: m.doc.time_zone,
        center, branding: m.doc.branding, ...(point ? { distance_m: Math.round(distance) } : {}),
      } };
    }).sort((a, b) => a.distance - b.distance || compareByName(a.map, b.map)).map((x) => x.map);
    return { publisher_id: publisher.id, maps, total: maps.length };
  },
});
