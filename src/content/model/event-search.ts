/**
 * Event search over one map: time window, types, tags and the KDBush spatial filters, with keyset
 * paging. The full match list of a filter set is computed once and cached on the map's view (one
 * view per content version, so a new bundle starts with an empty cache); every page, and `total`,
 * then costs a binary search and a slice.
 */
import { bboxTest, nearTest, type Bbox, type Near } from '../../geo/point-index.ts';
import type { EventTable } from './event-table.ts';
import type { MapView } from './read-model.ts';

/** A resolved event filter. */
export interface EventFilter {
  fromMs: number;
  toMs: number;
  types: string[] | null; // lowercase
  tags: string[] | null; // lowercase
  bbox: Bbox | null;
  near: Near | null;
}

/** Up to this many candidate anchor points, a spatial filter tests candidates directly instead of querying the index. */
export const DIRECT_TEST_POINTS = 200_000;

/** Filter sets whose match lists are kept per map. */
export const MATCH_CACHE_SIZE = 256;

/** Positions the kept match lists of a map may hold in all (64 MB): broad filters over a million events are 4 MB each. */
export const MATCH_CACHE_POSITIONS = 16 * 2 ** 20;

/** A canonical string for a filter set: equal filters (lists in any order), equal keys. */
export function filterKey(mapId: string, f: EventFilter): string {
  const sorted = (xs: string[] | null) => xs && [...xs].sort();
  return JSON.stringify([mapId, f.fromMs, f.toMs, sorted(f.types), sorted(f.tags),
    f.bbox && [f.bbox.west, f.bbox.south, f.bbox.east, f.bbox.north], f.near && [f.near.lat, f.near.lng, f.near.radiusM]]);
}

/**
 * Positions (in `map.events`) of every event matching the filter, in keyset order. `key` is
 * filterKey(map.id, f). With `cache` a match list already cached is returned, and a new one is kept for the
 * pages that follow; without it the list is always computed afresh (the benchmark times that, the tests check
 * it). `directTestPoints` is where testing candidates one by one gives way to the index (tests force each way);
 * `cachePositions` bounds the positions all kept lists hold.
 */
export function findMatches(map: MapView, f: EventFilter, key: string, cache = true, directTestPoints = DIRECT_TEST_POINTS,
  cachePositions = MATCH_CACHE_POSITIONS): Int32Array {
  const cached = cache ? map.matchCache.get(key) : undefined;
  if (cached) {
    // Re-insert to keep the Map in least-recently-used order.
    map.matchCache.delete(key);
    map.matchCache.set(key, cached);
    return cached;
  }
  const events = map.events;
  // Candidates: events starting by `to`, and none that started so long before `from` that they must be over.
  const first = firstStartingFrom(events, f.fromMs - events.longestEventMs);
  const end = firstStartingFrom(events, f.toMs + 1);
  const spatialTests = [f.bbox && bboxTest(f.bbox), f.near && nearTest(f.near)].filter((t) => t !== null);
  // Testing each candidate's own points costs their number; an index query costs the points in the area
  // over all time. Few candidates: test them directly; many: ask the index for a mask.
  let spatial: Uint8Array | null = null;
  const direct = spatialTests.length > 0 && map.eventIndex.pointsOf(first, Math.max(first, end)) <= directTestPoints;
  if (spatialTests.length > 0 && !direct) {
    if (f.bbox) spatial = map.eventIndex.eventsInBbox(f.bbox);
    if (f.near) {
      const near = map.eventIndex.eventsNear(f.near);
      if (spatial) for (let i = 0; i < near.length; i++) spatial[i] &= near[i];
      else spatial = near;
    }
  }
  const types = f.types && events.typeMask(f.types);
  const tags = f.tags && events.tagMask(f.tags);
  const out: number[] = [];
  for (let i = first; i < end; i++) {
    if (events.endMs[i] < f.fromMs) continue;
    if (types && !events.hasType(i, types)) continue;
    if (tags && !events.hasTag(i, tags)) continue;
    if (spatial && !spatial[i]) continue;
    if (direct && !spatialTests.every((test) => map.eventIndex.eventMatches(i, test))) continue;
    out.push(i);
  }
  const matches = Int32Array.from(out);
  if (!cache) return matches;
  map.matchCache.set(key, matches);
  // Drop the least recently used lists while over either bound (the newest list always stays).
  let positions = 0;
  for (const list of map.matchCache.values()) positions += list.length;
  for (const [oldKey, list] of map.matchCache) {
    if (map.matchCache.size <= 1 || (map.matchCache.size <= MATCH_CACHE_SIZE && positions <= cachePositions)) break;
    map.matchCache.delete(oldKey);
    positions -= list.length;
  }
  return matches;
}

/** Index of the first event (in start order) starting at or after `ms`. */
function firstStartingFrom(events: EventTable, ms: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events.startMs[mid] < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Keyset order: starts_at, then id. */
function after(events: EventTable, i: number, startMs: number, id: string): boolean {
  return events.startMs[i] > startMs || (events.startMs[i] === startMs && events.id(i) > id);
}

/** Index in `matches` of the first event strictly after the keyset position (binary search). */
export function seekAfter(map: MapView, matches: Int32Array, startMs: number, id: string): number {
  let lo = 0;
  let hi = matches.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (after(map.events, matches[mid], startMs, id)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
