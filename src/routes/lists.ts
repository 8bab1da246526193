/**
 * Lists: GET /maps/:map_id/lists (verified lists, windowed) and /maps/:map_id/lists/:list_id.
 */
import * as v from 'valibot';
import { HttpError, notFound } from '../http/errors.ts';
import { uuid } from '../http/params.ts';
import { defineRoute } from '../http/route.ts';
import { ListSummarySchema, NLText, PoiSummarySchema, windowOf } from './schemas.ts';
import { checkWindow, findMap, mapIdPath, sliceWindow, windowQuery } from './shared.ts';

/** GET /maps/:map_id/lists */
export const listMapLists = defineRoute({
  path: '/maps/:map_id/lists',
  records: 'items',
  operationId: 'listMapLists',
  summary: 'Verified lists of a map',
  description: 'Ordered by name, then id. Only verified lists are public: verified=false gets 403.',
  tag: 'Lists',
  pathParams: mapIdPath,
  query: {
    verified: v.optional(v.pipe(v.picklist(['true', 'false'], 'must be true or false'), v.description('Default true. Only verified lists are public; false gets 403')), 'true'),
    ...windowQuery,
  },
  crossCheck: checkWindow,
  response: windowOf(ListSummarySchema),
  errors: [403, 404],
  handle({ params, query, model }) {
    const map = findMap(model, params.map_id);
    if (query.verified === 'false') throw new HttpError(403, 'Unverified lists are not public; only verified lists can be listed.');
    return sliceWindow(map.lists.map((l) => l.summary), query.start, query.end);
  },
});

/** GET /maps/:map_id/lists/:list_id */
export const getMapList = defineRoute({
  path: '/maps/:map_id/lists/:list_id',
  records: 'body',
  operationId: 'getMapList',
  summary: 'One verified list and its POIs, within the map',
  description: 'An unverified list is not public and answers 404, like an unknown one.',
  tag: 'Lists',
  pathParams: { ...mapIdPath, list_id: uuid('List UUID') },
  query: {},
  response: v.strictObject({
    ...ListSummarySchema.entries,
    items: v.array(v.strictObject({ ...PoiSummarySchema.entries, note: NLText })),
  }),
  errors: [404],
  handle({ params, model }) {
    const map = findMap(model, params.map_id);
    const list = model.lists.get(params.list_id);
    if (!list || list.mapId !== map.id) throw notFound(`List ${params.list_id} in map ${map.id}`);
    return { ...list.entry.summary, items: list.entry.items };
  },
});
