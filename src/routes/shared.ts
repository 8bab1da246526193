/**
 * Lookups and parameter pieces shared by several route families.
 */
import * as v from 'valibot';
import type { MapView, ReadModel, VersionContent } from '../content/model/read-model.ts';
import { invalidParams, notFound, type ParamError } from '../http/errors.ts';
import { ONE_LANGUAGE_ONLY, type LanguageChoice } from '../http/language.ts';
import { instant, int, optionalInt, optionalUuid, requiredInt, uuid, uuidList } from '../http/params.ts';
import { MAX_TILE_ZOOM } from '../geo/vector-tiles.ts';

/** Default window size when `end` is omitted. */
export const DEFAULT_WINDOW = 50;
/** Largest window (`end - start`). */
export const MAX_WINDOW = 500;
/** Largest `start` accepted. */
export const MAX_START = 1_000_000_000;

/** An enabled map, or 404 (a disabled map is as good as absent outside /details). */
export function findMap(model: ReadModel, mapId: string): MapView {
  const map = model.maps.get(mapId);
  if (!map) throw notFound(`Map ${mapId}`);
  return map;
}

/** The requested published version of the map (current when omitted), or 404. */
export function findVersion(map: MapView, versionId: string | undefined): VersionContent {
  const version = map.versions.get(versionId ?? map.currentVersionId);
  if (!version) throw notFound(`Published version ${versionId} of map ${map.id}`);
  return version;
}

/** An enabled map and its requested published version (current when omitted), or 404: how map routes open. */
export function findMapVersion(model: ReadModel, mapId: string, versionId?: string): { map: MapView; version: VersionContent } {
  const map = findMap(model, mapId);
  return { map, version: findVersion(map, versionId) };
}

/** The `version_id` query parameter. */
export const versionIdParam = optionalUuid('Map-version UUID: a published version of this map. Default: the current version.');

/** The optional `tags` of the other formats of a map's POIs (tiles, downloads): as on /maps/:map_id/pois, default every POI. */
export const optionalTagsParam = v.optional(uuidList('Only the POIs with any of these category/tag ids (each with the items below it), as on /maps/:map_id/pois. Default: every POI'));

/** `updated_since` of the lists (events and POIs). */
export const UPDATED_SINCE = instant('Only the records changed at or after this instant (their `updated_at`: the publish or rollback that ' +
  'last changed them, from the store\'s change tracking)');

/** The `start`/`end` window parameters. */
export const windowQuery = {
  start: int(0, MAX_START, 0, 'Zero-based index of the first item (inclusive). Default 0.'),
  end: optionalInt(0, MAX_START + MAX_WINDOW, `Index after the last item (exclusive), like Array.prototype.slice. Default start + ${DEFAULT_WINDOW}; at most start + ${MAX_WINDOW}.`),
};

/** Cross-checks of a window: `end >= start` and at most MAX_WINDOW items. */
export function checkWindow(q: { start?: number; end?: number }, bad: Set<string>): ParamError[] {
  if (bad.has('start') || bad.has('end') || q.end === undefined) return [];
  const start = q.start ?? 0;
  if (q.end < start) return [{ name: 'end', in: 'query', reason: 'must not be less than start' }];
  if (q.end - start > MAX_WINDOW) return [{ name: 'end', in: 'query', reason: `must be at most start + ${MAX_WINDOW}` }];
  return [];
}

/** Slices a window out of an ordered list: `{items, total, start, end}`, `end` being the index reached. */
export function sliceWindow<T>(all: readonly T[], start: number, end: number | undefined) {
  const items = all.slice(start, end ?? start + DEFAULT_WINDOW);
  return { items, total: all.length, start, end: start + items.length };
}

/** A publisher, or 404. */
export function findPublisher(model: ReadModel, id: string) {
  const publisher = model.publishers.get(id);
  if (!publisher) throw notFound(`Publisher ${id}`);
  return publisher;
}

/** The `z`, `x` and `y` path parameters of a tile. */
export const tilePathParams = {
  z: requiredInt(0, MAX_TILE_ZOOM, 'Zoom'),
  x: requiredInt(0, 2 ** MAX_TILE_ZOOM - 1, 'Column, from 0 at the antimeridian eastward (below 2^z)'),
  y: requiredInt(0, 2 ** MAX_TILE_ZOOM - 1, 'Row, from 0 at the north edge southward (below 2^z)'),
};

/**
 * Each of a tile's `x` and `y` that is not a column or row of its zoom's grid, as a bad path parameter that says the
 * grid's range at that zoom (none when both are in it, or when `z` is bad itself): a tile route's `pathCheck`. For a
 * coordinate the schema refused already (not a whole number from 0 to 2^22 - 1), it takes the place of that error.
 */
export function tileGridErrors(tile: { z?: number; x?: number; y?: number }, bad: Set<string>): ParamError[] {
  const { z } = tile;
  if (z === undefined || bad.has('z')) return [];
  const last = 2 ** z - 1;
  return (['x', 'y'] as const).filter((name) => bad.has(name) || (tile[name] ?? 0) > last)
    .map((name) => ({ name, in: 'path' as const, reason: `must be a whole number from 0 to ${last} at zoom ${z} (below 2^z)` }));
}

/** A map path parameter. */
export const mapIdPath = { map_id: uuid('Map UUID') };

/**
 * The one language an answer written as a whole (a page, JSON-LD, a calendar) is in: the language negotiated for
 * the map. `langs=all` gets 400: such an answer has no form that holds every language (a route that says so,
 * RouteSpec.oneLanguage, names it with its other bad parameters before the handler runs).
 */
export function oneLanguage(language: LanguageChoice, mapId: string): string {
  const served = language.forMap(mapId);
  if (served === null) {
    throw invalidParams([{ ...ONE_LANGUAGE_ONLY }]);
  }
  return served;
}
