/**
 * POI associations: GET /poi-associations/:poi_id and the batch GET /poi-associations.
 */
import * as v from 'valibot';
import { compareAssociations, type AssociationRecord, type ReadModel } from '../content/model/read-model.ts';
import { notFound } from '../http/errors.ts';
import { flag, optionalUuid, uuid, uuidList } from '../http/params.ts';
import { defineRoute } from '../http/route.ts';
import { AssociationSchema, PoiTypeSchema, Uuid } from './schemas.ts';

/** GET /poi-associations/:poi_id */
export const getPoiAssociations = defineRoute({
  path: '/poi-associations/:poi_id',
  records: 'associations',
  operationId: 'getPoiAssociations',
  summary: 'Universal associations of one POI',
  description: 'Associations where the POI is the source and no list scopes them, ordered by sort_order, then created_at, then id.',
  tag: 'Associations',
  pathParams: { poi_id: uuid('Marker, path or polygon UUID') },
  query: {},
  response: v.strictObject({ poi_id: Uuid, poi_type: PoiTypeSchema, associations: v.array(AssociationSchema) }),
  errors: [404],
  handle({ params, model, language }) {
    const poi = model.pois.get(params.poi_id);
    if (!poi) throw notFound(`POI ${params.poi_id}`);
    language.forMap(poi.record.map_id);
    const associations = (model.associationsFrom.get(poi.record.id) ?? []).filter((a) => a.list_id === null);
    return { poi_id: poi.record.id, poi_type: poi.record.type, associations };
  },
});

/** GET /poi-associations */
export const batchPoiAssociations = defineRoute({
  path: '/poi-associations',
  records: 'values',
  operationId: 'batchPoiAssociations',
  summary: 'Associations grouped by each requested POI',
  description: 'Every requested id is a key, in request order; an unknown or non-public POI maps to an empty array. ' +
    'Universal associations always; with list_id also those visible from that (verified) list; with include_reverse=true ' +
    'also mutual associations where the requested POI is the associated one (direction "reverse").',
  tag: 'Associations',
  pathParams: {},
  query: {
    poi_ids: uuidList('Comma-separated marker, path or polygon UUIDs (at most 100)'),
    list_id: optionalUuid('List UUID; also includes associations visible from this list'),
    include_reverse: flag('`true` also returns mutual associations where a requested POI is the associated POI'),
  },
  response: v.pipe(v.record(Uuid, v.array(AssociationSchema)), v.description('Requested POI id -> its associations')),
  errors: [404],
  handle({ query, model, language }) {
    if (query.list_id !== undefined && !model.lists.has(query.list_id)) throw notFound(`List ${query.list_id}`);
    // A list names its map; POIs alone may be of several maps (the content's languages, then).
    if (query.list_id !== undefined) language.forMap(model.lists.get(query.list_id)!.mapId);
    else language.forMaps(query.poi_ids.flatMap((id) => model.pois.mapOf(id) ?? []));
    const body: Record<string, AssociationRecord[]> = {};
    for (const id of query.poi_ids) body[id] = associationsOf(model, id, query.list_id, query.include_reverse);
    return body;
  },
});

/**
 * A POI's associations as the batch answers them: the universal ones and, with `listId`, those of that list; with
 * `reverse` also the mutual ones where it is the associated POI (seen from it); in association order.
 */
export function associationsOf(model: ReadModel, poiId: string, listId: string | undefined, reverse: boolean): AssociationRecord[] {
  const visible = (a: AssociationRecord) => a.list_id === null || a.list_id === listId;
  const out = (model.associationsFrom.get(poiId) ?? []).filter(visible);
  if (reverse) out.push(...(model.associationsTo.get(poiId) ?? []).filter(visible));
  return out.sort(compareAssociations);
}
