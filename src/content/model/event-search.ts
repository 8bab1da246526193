/**
 * Event search over one map: time window, types, tags and the KDBush spatial filters, with keyset
 * paging. The full match list of a filter set is cached on the map's view from its second computation (one
 * view per content version, so a new bundle starts with an empty cache); every later page, and `total`,
 * then costs a binary search and a slice.
 *
 * A spatial filter is answered from where the events are, not from the window. A window of up to about ten
 * weeks is answered by the time slabs it spans (event-slabs.ts): spatial indexes over the anchor points of the
 * events of each two weeks, which give the events there and then, in keyset order. A longer window asks the
 * POIs' index for the POIs in the area, and each POI's events (kept in keyset order) give, by binary search,
 * those in the window. Either way the cost follows the events in the area and the window, never the table or
 * the window's size, and nothing the size of the table is allocated. A window small enough is scanned instead,
 * testing each event's own anchor points.
 */
import { bboxTest, nearTest, type Bbox, type Near } from '../../geo/point-index.ts';
import { Doorkeeper } from '../../utils/hash.ts';
import type { EventTable } from './event-table.ts';
import type { EventStatus } from '../bundle/bundle-schema.ts';
import type { MapView } from './read-model.ts';

/** A resolved event filter. */
export interface EventFilter {
  fromMs: number;
  toMs: number;
  types: string[] | null; // lowercase
  tags: string[] | null; // lowercase, distinct
  /** `any` (the default): an event with any of the tags matches; `all`: only one with every one of them. */
  tagsMatch?: 'any' | 'all';
  bbox: Bbox | null;
  near: Near | null;
  /**
   * `near_poi`: within a distance of a POI's geometry (src/geo/near-shape.ts): what names it in the filter's key (the
   * POI's id and the radius), the box that holds every point within it, and the exact test. Null or absent: none.
   */
  nearShape?: { key: string; box: Bbox; test: (lng: number, lat: number) => boolean } | null;
  /** Search by name: folded words that must each begin a word of the title (text-search.ts); null or absent: any title. */
  q?: string[] | null;
  /** The statuses kept (GET /events leaves cancelled events out unless asked); null or absent: every status. */
  statuses?: readonly EventStatus[] | null;
  /**
   * `updated_since`: the instant (epoch ms), and the test of an event's position that says whether it changed since
   * (the model's account of the changes, RecordChanges). Null or absent: any event.
   */
  changedSince?: { ms: number; test: (i: number) => boolean } | null;
}

/** Up to this many anchor points of the events in the window, a spatial filter tests them directly instead of asking the index. */
export const DIRECT_TEST_POINTS = 2_000;

/** Filter sets whose match lists are kept per map. */
export const MATCH_CACHE_SIZE = 256;

/** Positions the kept match lists of a map may hold in all (64 MB): broad filters over a million events are 4 MB each. */
export const MATCH_CACHE_POSITIONS = 16 * 2 ** 20;

/**
 * Filter sets whose matches were computed lately (this thread, every map): a match list is kept only when its
 * filter set is computed a second time, as the response cache keeps an answer. A cursor walk computes its list
 * twice (pages 1 and 2), then reuses it; a distinct question asked once (a visitor near their own point) keeps
 * nothing. Keeping every list held each for only a few hundred requests, long enough to be copied by the young
 * generation's collections, and made frequent full collections under distinct `near` questions, a slower p99 and
 * fewer answers (docs/decisions.md, Match lists cached per filter set).
 */
const computedOnce = new Doorkeeper(1 << 16);

/** A canonical string for a filter set: equal filters (lists in any order), equal keys. */
export function filterKey(mapId: string, f: EventFilter): string {
  const sorted = (xs: string[] | null) => xs && [...xs].sort();
  return JSON.stringify([mapId, f.fromMs, f.toMs, sorted(f.types), sorted(f.tags), f.tags && f.tags.length > 1 ? f.tagsMatch ?? 'any' : 'any',
    f.bbox && [f.bbox.west, f.bbox.south, f.bbox.east, f.bbox.north], f.near && [f.near.lat, f.near.lng, f.near.radiusM],
    f.q && f.q.length > 0 ? [...new Set(f.q)].sort() : null, ...(f.statuses ? [[...new Set(f.statuses)].sort()] : []),
    ...(f.changedSince ? [{ since: f.changedSince.ms }] : []), ...(f.nearShape ? [{ nearPoi: f.nearShape.key }] : [])]);
}

/**
 * Positions (in `map.events`) of every event matching the filter, in keyset order: read them before the next
 * search on the thread, which may write over them (a list kept in the match cache is a copy of its own). `key` is
 * filterKey(map.id, f). With `cache` a match list already cached is returned, and a new one is kept for the
 * pages that follow once its filter set is computed a second time (`computedOnce`); without it the list is
 * always computed afresh (the benchmark times that, the tests check
 * it). `directTestPoints` is where testing candidates one by one gives way to the index (tests force each way);
 * `cachePositions` bounds the positions all kept lists hold;
 * `slabs` false answers a short window from the POIs' lists too (tests check both).
 */
export function findMatches(map: MapView, f: EventFilter, key: string, cache = true, directTestPoints = DIRECT_TEST_POINTS,
  cachePositions = MATCH_CACHE_POSITIONS, slabs = true): Int32Array {
  const cached = cache ? map.matchCache.get(key) : undefined;
  if (cached) {
    // Re-insert to keep the Map in least-recently-used order.
    map.matchCache.delete(key);
    map.matchCache.set(key, cached);
    return cached;
  }
  const events = map.events;
  // Candidates: events starting by `to`, and none that started so long before `from` that they must be over.
  const first = events.firstStartingFrom(f.fromMs - events.longestEventMs);
  const end = events.firstStartingFrom(f.toMs + 1);
  const types = f.types && events.typeMask(f.types);
  const tags = f.tags && events.tagMask(f.tags);
  const q = f.q && f.q.length > 0 ? f.q : null;
  const all = f.tagsMatch === 'all' && f.tags !== null && f.tags.length > 1;
  // A status filter that every event of the map passes (most maps cancel nothing) costs nothing.
  const statusMask = f.statuses ? events.statusMask(f.statuses) : null;
  const statuses = statusMask && !events.allHaveStatus(statusMask) ? statusMask : null;
  const changed = f.changedSince?.test ?? null;
  // An event starting in the window needs no test of its end: only those before `from` (from `first` on) do.
  const startsInWindow = events.firstStartingFrom(f.fromMs);
  const keep = (i: number) => (i >= startsInWindow || events.endMs[i] >= f.fromMs) && (!types || events.hasType(i, types)) &&
    (!tags || (all ? events.hasAllTags(i, tags, f.tags!.length) : events.hasTag(i, tags))) && (!q || events.titleMatches(i, q)) &&
    (!statuses || events.hasStatus(i, statuses)) && (!changed || changed(i));
  const out: number[] = [];
  const shape = f.nearShape ?? null;
  const spatialTests = [f.bbox && bboxTest(f.bbox), f.near && nearTest(f.near), shape && shape.test].filter((t) => t !== null);
  if (spatialTests.length > 0 && map.eventIndex.pointsOf(first, Math.max(first, end)) > directTestPoints) {
    // The POIs in one area (near, or near_poi's box: the smaller one usually), then their events in the window; the
    // other filters of place, if any, are tested on each of those events.
    const area = f.near ? { near: f.near } : shape ? { bbox: shape.box } : { bbox: f.bbox! };
    // Each is met by some anchor point of the event, as when every event is tested (below).
    const others = [f.near && f.bbox && bboxTest(f.bbox), shape && shape.test, !f.near && shape && f.bbox && bboxTest(f.bbox)].filter((t) => !!t) as
      ((lng: number, lat: number) => boolean)[];
    // The time slabs' indexes give the events there and then; a window too long for them: the POIs there, then theirs.
    const fromSlabs = slabs ? map.eventIndex.eventsInAreaBetween(area, f.fromMs, f.toMs) : null;
    const candidates = fromSlabs ?? map.eventIndex.eventsInAreaOfPois(area, first, end, { startsInWindow, fromMs: f.fromMs });
    // Either answer is exactly the window and the area: with no other filter it is the answer.
    if (!types && !tags && !q && !statuses && !changed && others.length === 0) return keepList(map, key, candidates, cache, cachePositions, fromSlabs !== null);
    for (let c = 0; c < candidates.length; c++) {
      const i = candidates[c];
      if (keep(i) && others.every((test) => map.eventIndex.eventMatches(i, test))) out.push(i);
    }
  } else {
    for (let i = first; i < end; i++) {
      if (!keep(i)) continue;
      if (spatialTests.length > 0 && !spatialTests.every((test) => map.eventIndex.eventMatches(i, test))) continue;
      out.push(i);
    }
  }
  return keepList(map, key, Int32Array.from(out), cache, cachePositions);
}

/** Positions the lists of each match cache hold in all (counted as lists come and go, not summed each time). */
const heldPositions = new WeakMap<Map<string, Int32Array>, number>();

/**
 * Keeps a new match list in the map's cache (with `cache`, and when its filter set was computed before: see
 * `computedOnce`), dropping the least recently used past either bound. Answers the list, or the copy kept.
 */
function keepList(map: MapView, key: string, found: Int32Array, cache: boolean, cachePositions: number, reused = false): Int32Array {
  if (!cache || !computedOnce.admit(key)) return found;
  // `reused`: a view of memory the next query writes over (the slabs' answer), copied to be kept.
  const matches = reused ? found.slice() : found;
  map.matchCache.set(key, matches);
  // Drop the least recently used lists while over either bound (the newest list always stays).
  let positions = (map.matchCache.size === 1 ? 0 : heldPositions.get(map.matchCache) ?? 0) + matches.length;
  for (const [oldKey, list] of map.matchCache) {
    if (map.matchCache.size <= 1 || (map.matchCache.size <= MATCH_CACHE_SIZE && positions <= cachePositions)) break;
    map.matchCache.delete(oldKey);
    positions -= list.length;
  }
  heldPositions.set(map.matchCache, positions);
  return matches;
}

/** Keyset order: starts_at, then id. */
function after(events: EventTable, i: number, startMs: number, id: string): boolean {
  return events.startMs[i] > startMs || (events.startMs[i] === startMs && events.id(i) > id);
}

/** A keyset position in a map's events: a start time and an event id (what a cursor carries). */
export interface KeysetPosition { s: number; i: string }

/** A page of the events that match a filter: their positions in the map's table, how many match in all, and where the next page starts. */
export interface EventPage { positions: Int32Array; total: number; next: KeysetPosition | null }

/**
 * The page of a map's events matching a filter (`key`: its `filterKey`), after the keyset position `after` (the
 * previous page's last; null for the first page), at most `limit` events: what GET /events asks of the model.
 */
export function pageOfEvents(map: MapView, filter: EventFilter, key: string, after: KeysetPosition | null, limit: number): EventPage {
  const matches = findMatches(map, filter, key);
  const first = after ? seekAfter(map, matches, after.s, after.i) : 0;
  const positions = matches.subarray(first, first + limit);
  const last = positions.length > 0 ? positions[positions.length - 1] : -1;
  const more = first + positions.length < matches.length;
  return { positions, total: matches.length, next: more && last >= 0 ? { s: map.events.startMs[last], i: map.events.id(last) } : null };
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
