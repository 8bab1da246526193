/**
 * Maps: GET /maps/:map_id (with its 13 optional sections), /maps/:map_id/details and /maps/:map_id/contents.
 */
import * as v from 'valibot';
import { poiRecords, type CategoryRecord, type MapView, type VersionContent } from '../content/model/read-model.ts';
import { toUtc } from '../content/rfc3339.ts';
import { flag } from '../http/params.ts';
import { defineRoute } from '../http/route.ts';
import {
  BrandingSchema, CategoryNode, type CategoryNodeT, CategorySchema, ContentBlockSchema, MarkerRecord, PathRecord,
  LText, NLText, PolygonRecord, PublisherSchema, Time, Uuid, VersionSchema,
} from './schemas.ts';
import { findMap, findMapVersion, findVersion, mapIdPath, versionIdParam } from './shared.ts';

/** The map's identity fields, present in every map body. */
function mapIdentity(map: MapView, version: VersionContent) {
  const d = map.doc;
  const ver = map.versionDocs.get(version.id)!;
  return {
    id: d.id, publisher_id: d.publisher_id, name: d.name, slug: d.slug, enabled: true as const,
    description: d.description ?? null, time_zone: d.time_zone, country: d.country?.toUpperCase() ?? null, created_at: toUtc(Date.parse(d.created_at)),
    current_version_id: map.currentVersionId,
    version: { id: ver.id, name: ver.name, status: 'published' as const,
      published_at: ver.published_at ? toUtc(Date.parse(ver.published_at)) : null, notes: ver.notes ?? null },
    branding: d.branding,
  };
}

/**
 * A map's record as its export and change feed carry it: its identity (GET /maps/:map_id with no section) and its
 * unversioned sections: info, map_data, contact, map_sponsors.
 */
export function mapRecord(map: MapView): Record<string, unknown> {
  const d = map.doc;
  return { ...mapIdentity(map, findVersion(map, undefined)), info: d.info, map_data: d.map_data, contact: d.contact, map_sponsors: map.sponsors };
}

/** Builds the category tree of a version; `keep` prunes items, `sort` orders siblings, `counts` adds POI counts. */
export function categoryTree(version: VersionContent, options: {
  sort?: (a: CategoryRecord, b: CategoryRecord) => number; counts?: boolean; keep?: (c: CategoryRecord) => boolean;
} = {}): CategoryNodeT[] {
  const build = (parent: string | null): CategoryNodeT[] => {
    const kids = (version.children.get(parent) ?? []).filter((c) => !options.keep || options.keep(c));
    if (options.sort) kids.sort(options.sort);
    return kids.map((c) => ({
      ...c as unknown as CategoryNodeT,
      ...(options.counts ? { count: version.subtreePois.get(c.id)!.length } : {}),
      children: build(c.id),
    }));
  };
  return build(null);
}

/** POI counts of every category and tag of a version. */
export function tagCounts(version: VersionContent) {
  return version.categories.map((c) => ({ id: c.id, kind: c.kind, count: version.subtreePois.get(c.id)!.length }));
}

const SECTIONS = {
  info: 'Map information: summary, languages, website, season',
  all_categories: 'Every category and tag of the version, flat, in custom order',
  categories: 'The category tree, pruned to items with at least one POI in the version',
  markers: 'Markers of the version',
  paths: 'Paths of the version',
  polygons: 'Polygons of the version',
  publisher: 'The publisher that maintains the map',
  map_data: 'Centre, zoom levels, bounds and basemap',
  contact: 'Contact data',
  map_sponsors: 'Sponsors credited on the map',
  tag_counts: 'POI count of every category and tag in the version',
  contents: 'Content blocks, in their sort order',
} as const;

const Country = v.pipe(v.nullable(v.string()), v.description('ISO 3166-1 alpha-2, upper case: whose public holidays `PH` in its POIs\' hours means; null when it declares none'));

const MapBody = v.strictObject({
  id: Uuid, publisher_id: Uuid, name: LText, slug: v.string(), enabled: v.literal(true), description: NLText,
  time_zone: v.string(), country: Country, created_at: Time, current_version_id: Uuid,
  version: v.pipe(VersionSchema, v.description('The version the versioned sections come from')),
  branding: BrandingSchema,
  info: v.optional(v.object({ summary: v.optional(LText), languages: v.optional(v.array(v.string())), website: v.optional(v.string()), opening_season: v.optional(LText) })),
  all_categories: v.optional(v.array(CategorySchema)),
  categories: v.optional(v.array(CategoryNode)),
  markers: v.optional(v.array(MarkerRecord)),
  paths: v.optional(v.array(PathRecord)),
  polygons: v.optional(v.array(PolygonRecord)),
  publisher: v.optional(PublisherSchema),
  map_data: v.optional(v.object({ center: v.object({ lat: v.number(), lng: v.number() }), zoom: v.number(), min_zoom: v.optional(v.number()), max_zoom: v.optional(v.number()), bounds: v.optional(v.array(v.number())), basemap_url: v.optional(v.string()) })),
  contact: v.optional(v.object({ email: v.optional(v.string()), phone: v.optional(v.string()), website: v.optional(v.string()), address: v.optional(v.string()), social: v.optional(v.record(v.string(), v.string())) })),
  map_sponsors: v.optional(v.array(v.strictObject({ name: v.string(), url: v.nullable(v.string()), logo_url: v.nullable(v.string()), tier: v.nullable(v.picklist(['gold', 'silver', 'bronze', 'partner'])) }))),
  tag_counts: v.optional(v.array(v.strictObject({ id: Uuid, kind: v.picklist(['category', 'tag']), count: v.number() }))),
  contents: v.optional(v.array(ContentBlockSchema)),
});

/** A map's record in the export and the change feed (`mapRecord`). */
export const MapRecordSchema = v.strictObject({
  ...v.omit(MapBody, ['all_categories', 'categories', 'markers', 'paths', 'polygons', 'publisher', 'tag_counts', 'contents']).entries,
  info: MapBody.entries.info.wrapped, map_data: MapBody.entries.map_data.wrapped, contact: MapBody.entries.contact.wrapped,
  map_sponsors: MapBody.entries.map_sponsors.wrapped,
});

const flags = Object.fromEntries(Object.entries(SECTIONS).map(([name, what]) => [name, flag(`\`true\` includes: ${what}`)])) as
  { [K in keyof typeof SECTIONS]: ReturnType<typeof flag> };

/** GET /maps/:map_id */
export const getMap = defineRoute({
  path: '/maps/:map_id',
  records: 'body',
  operationId: 'getMap',
  summary: 'A map plus the requested sections',
  description: 'Each section flag set to `true` adds that section; versioned sections (all_categories, categories, ' +
    'markers, paths, polygons, tag_counts) come from `version_id` or the current version.',
  tag: 'Maps',
  pathParams: mapIdPath,
  query: { ...flags, version_id: versionIdParam },
  response: MapBody,
  errors: [404],
  handle({ params, query, model }) {
    const { map, version } = findMapVersion(model, params.map_id, query.version_id);
    const d = map.doc;
    const body: Record<string, unknown> = mapIdentity(map, version);
    if (query.info) body.info = d.info;
    if (query.all_categories) body.all_categories = version.categories;
    if (query.categories) body.categories = categoryTree(version, { keep: (c) => version.subtreePois.get(c.id)!.length > 0 });
    if (query.markers) body.markers = poiRecords(model, version.pois, 'marker');
    if (query.paths) body.paths = poiRecords(model, version.pois, 'path');
    if (query.polygons) body.polygons = poiRecords(model, version.pois, 'polygon');
    if (query.publisher) body.publisher = model.publishers.get(map.publisherId);
    if (query.map_data) body.map_data = d.map_data;
    if (query.contact) body.contact = d.contact;
    if (query.map_sponsors) body.map_sponsors = map.sponsors;
    if (query.tag_counts) body.tag_counts = tagCounts(version);
    if (query.contents) body.contents = map.contentBlocks;
    return body;
  },
});

const DetailsBody = v.union([
  v.strictObject({
    id: Uuid, publisher_id: Uuid, name: LText, slug: v.string(), enabled: v.literal(true), description: NLText,
    time_zone: v.string(), country: Country, created_at: Time, current_version_id: Uuid, version: VersionSchema, branding: BrandingSchema,
  }),
  v.pipe(v.strictObject({ id: Uuid, publisher_id: Uuid, name: LText, slug: v.string(), enabled: v.literal(false), branding: BrandingSchema }),
    v.description('A disabled map: limited identity and branding only')),
]);

/** GET /maps/:map_id/details */
export const getMapDetails = defineRoute({
  path: '/maps/:map_id/details',
  records: 'body',
  operationId: 'getMapDetails',
  summary: 'Identity and presentation details of a map (limited identity and branding for a disabled map)',
  tag: 'Maps',
  pathParams: mapIdPath,
  query: {},
  response: DetailsBody,
  errors: [404],
  handle({ params, model }) {
    const disabled = model.disabledMaps.get(params.map_id);
    if (disabled) return { ...disabled, enabled: false };
    const map = findMap(model, params.map_id);
    return mapIdentity(map, findVersion(map, undefined));
  },
});

/** GET /maps/:map_id/contents */
export const getMapContents = defineRoute({
  path: '/maps/:map_id/contents',
  records: 'content_blocks',
  operationId: 'getMapContents',
  summary: 'Content blocks of a map, in their sort order',
  tag: 'Maps',
  pathParams: mapIdPath,
  query: {},
  response: v.strictObject({ map_id: Uuid, content_blocks: v.array(ContentBlockSchema) }),
  errors: [404],
  handle({ params, model }) {
    const map = findMap(model, params.map_id);
    return { map_id: map.id, content_blocks: map.contentBlocks };
  },
});
