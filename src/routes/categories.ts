/**
 * Categories, tags, icons and orders: /places-of-interest/items/:map_id, /places-of-interest/icons and
 * /places-of-interest/tags-pois-orders.
 */
import * as v from 'valibot';
import { compareByName, poiEntries, type CategoryRecord, type VersionContent } from '../content/model/read-model.ts';
import { notFound, type ParamError } from '../http/errors.ts';
import { flag, oneOf, optionalUuid, uuid } from '../http/params.ts';
import { defineRoute } from '../http/route.ts';
import { categoryTree } from './maps.ts';
import { CategoryNode, CategorySchema, LText, PoiSummarySchema, Uuid } from './schemas.ts';
import { findMapVersion, mapIdPath, versionIdParam } from './shared.ts';

/** Alphabetical sibling order: name, then id. */
const alphabetical = (a: CategoryRecord, b: CategoryRecord) => compareByName(a, b);

function popularity(version: VersionContent) {
  return (a: CategoryRecord, b: CategoryRecord) =>
    version.subtreePois.get(b.id)!.length - version.subtreePois.get(a.id)!.length || compareByName(a, b);
}

/** GET /places-of-interest/items/:map_id */
export const listCategoryItems = defineRoute({
  path: '/places-of-interest/items/:map_id',
  operationId: 'listCategoryItems',
  summary: 'The category and tag hierarchy of a map',
  description: 'sort_type orders siblings at every level: custom (the map\'s sort_order, the default), alphabetical ' +
    '(by name), or popularity (most POIs first). Counts are POIs assigned to an item or any descendant, in the version.',
  tag: 'Categories',
  pathParams: mapIdPath,
  query: {
    sort_type: oneOf(['alphabetical', 'popularity', 'custom'], 'Sibling order: alphabetical, popularity or custom. Default custom'),
    version_id: versionIdParam,
    include_counts: flag('`true` adds each item\'s POI count'),
  },
  response: v.strictObject({
    map_id: Uuid, version_id: Uuid, sort_type: v.picklist(['alphabetical', 'popularity', 'custom']), items: v.array(CategoryNode),
  }),
  errors: [404],
  handle({ params, query, model }) {
    const { map, version } = findMapVersion(model, params.map_id, query.version_id);
    const sortType = query.sort_type ?? 'custom';
    // Children are stored in custom order already; only the other orders need a sort.
    const sort = sortType === 'popularity' ? popularity(version) : sortType === 'alphabetical' ? alphabetical : undefined;
    return { map_id: map.id, version_id: version.id, sort_type: sortType, items: categoryTree(version, { sort, counts: query.include_counts }) };
  },
});

/** GET /places-of-interest/icons */
export const listIcons = defineRoute({
  path: '/places-of-interest/icons',
  records: 'icons',
  operationId: 'listIcons',
  summary: 'The icon vocabulary for categories and tags',
  tag: 'Categories',
  pathParams: {},
  query: {},
  response: v.strictObject({
    icons: v.array(v.strictObject({ id: Uuid, name: LText, url: v.string(), color: v.nullable(v.string()), maki: v.nullable(v.string()) })),
  }),
  errors: [],
  handle: ({ model }) => ({ icons: model.icons }),
});

const OrderedPoi = v.strictObject({ ...PoiSummarySchema.entries, position: v.pipe(v.number(), v.description('1-based position in the category order')) });

/** GET /places-of-interest/tags-pois-orders */
export const tagsPoisOrders = defineRoute({
  path: '/places-of-interest/tags-pois-orders',
  operationId: 'getCategoryOrder',
  summary: 'Map-specific category order',
  description: 'type=keywords returns the top-level order; path_id returns the children and the ordered POIs under that ' +
    'category (its curated poi_order first, then the rest by name). Give exactly one of type and path_id. Current version.',
  tag: 'Categories',
  pathParams: {},
  query: {
    map_id: uuid('Map UUID'),
    type: oneOf(['keywords'], '`keywords` returns the top-level category order; required when path_id is omitted'),
    path_id: optionalUuid('Category UUID; returns its child categories and ordered POIs; required when type is omitted'),
  },
  crossCheck(q, bad) {
    const errors: ParamError[] = [];
    if (bad.has('type') || bad.has('path_id')) return errors;
    if (q.type === undefined && q.path_id === undefined) {
      errors.push({ name: 'type', in: 'query', reason: 'is required when path_id is omitted (type=keywords)' });
    } else if (q.type !== undefined && q.path_id !== undefined) {
      errors.push({ name: 'path_id', in: 'query', reason: 'cannot be combined with type; give one of them' });
    }
    return errors;
  },
  response: v.union([
    v.strictObject({ map_id: Uuid, type: v.literal('keywords'), categories: v.array(CategorySchema) }),
    v.strictObject({ map_id: Uuid, path_id: Uuid, category: CategorySchema, children: v.array(CategorySchema), pois: v.array(OrderedPoi) }),
  ]),
  errors: [404],
  handle({ query, model }) {
    const { map, version } = findMapVersion(model, query.map_id);
    if (query.type === 'keywords') return { map_id: map.id, type: 'keywords', categories: version.children.get(null) ?? [] };
    const pathId = query.path_id!;
    const category = version.categories.find((c) => c.id === pathId);
    if (!category) throw notFound(`Category ${pathId} in map ${map.id}`);
    // The category's POIs are in name order already: its curated order first, then the rest of them.
    const under = new Set(version.subtreePois.get(pathId)!);
    const curated = [...new Set((map.categoryPoiOrder.get(pathId) ?? []).map((id) => model.pois.indexOf(id)))].filter((i) => under.has(i));
    const first = new Set(curated);
    const rest = [...under].filter((i) => !first.has(i));
    const pois = poiEntries(model, [...curated, ...rest]).map((p, i) => ({ ...p.summary, position: i + 1 }));
    return { map_id: map.id, path_id: pathId, category, children: version.children.get(pathId) ?? [], pois };
  },
});
