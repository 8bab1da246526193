/**
 * Where a map's events are: a KDBush index over the vertices of the POIs its events are anchored to, and
 * the table's POI -> events lists to turn the POIs an area holds into the events it holds. Many events
 * share a POI (a million events over a hundred thousand POIs), so the index holds each vertex once,
 * not once per event.
 */
import { PointIndex, type Area, type Bbox, type Near } from '../../geo/point-index.ts';
import { EventSlabs, SLAB_SIZE } from './event-slabs.ts';
import { MarkedBits } from '../../utils/marked-bits.ts';
import type { EventTable } from './event-table.ts';
import { runNow, STRIDE, type Steps } from '../../utils/steps.ts';

/**
 * What an index is made of besides its events and its POIs' points: made once, by the publisher, and carried in
 * the payload (model-cache.ts), so every serving thread views the same bytes instead of making its own.
 */
export interface IndexParts {
  /** The KDBush index over the anchored POIs' vertices (see `PointIndex.kdbushData`). */
  kdbush: ArrayBuffer;
  /** Event i -> anchor vertices of the events before it. */
  pointsBefore: Float64Array;
  /** See EventIndex's `nearby`. */
  bounds: Uint32Array;
  positions: Int32Array;
}

/**
 * The longest list of a POI's events scanned from its start for a window's first event; a longer one is
 * binary-searched. Most POIs have few events (docs/decisions.md, Longer windows).
 */
const SCANNED_LIST = 16;

export class EventIndex {
  private readonly events: EventTable;
  private readonly pois: PointIndex; // owners: the table's anchor POI codes
  private readonly pointsBefore: Float64Array; // event i -> anchor vertices of the events before it
  /**
   * Each anchored POI's events (positions, ascending), laid out POI after POI in the spatial index's order, so
   * the lists of the POIs one area holds lie together in memory: a query reads a few runs, not a list per cache miss.
   */
  private readonly nearby: {
    /** Per point of the POIs' index, by tree position: its POI's list is positions[bounds[2k] .. bounds[2k + 1]). */
    bounds: Uint32Array;
    positions: Int32Array;
  };

  private constructor(events: EventTable, pois: PointIndex, pointsBefore: Float64Array, nearby: EventIndex['nearby']) {
    this.events = events;
    this.pois = pois;
    this.pointsBefore = pointsBefore;
    this.nearby = nearby;
    this.seenPois = new Uint32Array(Math.ceil(pois.ownerCount / 32));
  }

  /**
   * `verticesOf` gives a POI's vertices as lng, lat pairs. `parts`, the `parts` of an index built before
   * over the same table and POIs, save sorting the points and making the lists again (they are checked, not trusted).
   */
  static build(events: EventTable, verticesOf: (poiId: string) => ArrayLike<number>, parts?: IndexParts): EventIndex {
    return runNow(EventIndex.buildSteps(events, verticesOf, parts));
  }

  /** `build`, yielding as it goes. */
  static *buildSteps(events: EventTable, verticesOf: (poiId: string) => ArrayLike<number>, parts?: IndexParts): Steps<EventIndex> {
    const lngs: number[] = [];
    const lats: number[] = [];
    const owners: number[] = [];
    const anchored = events.anchorPoiCount;
    for (let k = 0; k < anchored; k++) {
      const vertices = verticesOf(events.anchorPoiId(k));
      for (let v = 0; v < vertices.length; v += 2) {
        lngs.push(vertices[v]);
        lats.push(vertices[v + 1]);
        owners.push(k);
      }
      if ((k & (STRIDE - 1)) === 0) yield;
    }
    const pois = yield* PointIndex.buildSteps(lngs, lats, owners, anchored, parts ? { kdbush: parts.kdbush } : {});
    yield;
    if (parts) {
      yield* checkParts(events, pois, parts);
      return new EventIndex(events, pois, parts.pointsBefore, { bounds: parts.bounds, positions: parts.positions });
    }
    const { anchorStart, anchorPoi } = events.anchorColumns;
    const pointsBefore = new Float64Array(events.length + 1);
    for (let i = 0; i < events.length; i++) {
      let points = 0;
      for (let a = anchorStart[i]; a < anchorStart[i + 1]; a++) points += pois.pointsOf(anchorPoi[a], anchorPoi[a] + 1);
      pointsBefore[i + 1] = pointsBefore[i] + points;
      if ((i & (STRIDE - 1)) === 0) yield;
    }
    const start = new Uint32Array(anchored);
    const end = new Uint32Array(anchored);
    const positions = new Int32Array(anchorPoi.length);
    let at = 0;
    const order = pois.ownersInIndexOrder();
    for (let r = 0; r < order.length; r++) {
      const list = events.positionsOfCode(order[r]);
      start[order[r]] = at;
      positions.set(list, at);
      at += list.length;
      end[order[r]] = at;
      if ((r & (STRIDE - 1)) === 0) yield;
    }
    // The bounds again per point, in the index's order: a query reads them next to the points it finds.
    const treeOwners = pois.ownersByTreePosition;
    const bounds = new Uint32Array(2 * treeOwners.length);
    for (let k = 0; k < treeOwners.length; k++) {
      bounds[2 * k] = start[treeOwners[k]];
      bounds[2 * k + 1] = end[treeOwners[k]];
    }
    return new EventIndex(events, pois, pointsBefore, { bounds, positions: positions.subarray(0, at) });
  }

  /** The time slabs' spatial indexes (event-slabs.ts), made as queries need them. */
  private slabs: EventSlabs | null = null;

  /**
   * The positions, ascending and each once, of the events that overlap [fromMs, toMs] with an anchor point in the
   * area, from the time slabs (a view the next query writes over); null when the window spans too many of them (the
   * POIs' lists answer those).
   */
  eventsInAreaBetween(area: Area, fromMs: number, toMs: number): Int32Array | null {
    this.slabs ??= new EventSlabs(SLAB_SIZE, this.events, (k) => this.pois.pointsOfOwner(k));
    return this.slabs.answers(fromMs, toMs) ? this.slabs.eventsInAreaBetween(area, fromMs, toMs) : null;
  }

  /** What `build` can be given to make this index again without sorting or counting (null with no points). */
  get parts(): IndexParts | null {
    const kdbush = this.pois.kdbushData;
    return kdbush && { kdbush, pointsBefore: this.pointsBefore, ...this.nearby };
  }

  /** Anchor vertices of the events in [first, last), for estimating the cost of testing them one by one. */
  pointsOf(first: number, last: number): number {
    return this.pointsBefore[last] - this.pointsBefore[first];
  }

  /** True when a vertex of one of event i's anchored POIs passes the test. */
  eventMatches(i: number, test: (lng: number, lat: number) => boolean): boolean {
    for (const k of this.events.anchorCodes(i)) if (this.pois.ownerMatches(k, test)) return true;
    return false;
  }

  /**
   * The positions in [first, end) of the events anchored to a POI with a vertex in the area, ascending, each once
   * (with `window`, only those overlapping it):
   * each POI's events are in keyset order, so a binary search finds where its window starts. The cost follows
   * the POIs' points in the area and their events in the window, never the table's size. A POI with several
   * points inside is looked at once per point (marking its events again changes nothing).
   */
  eventsInAreaOfPois(area: Area, first: number, end: number, window?: { startsInWindow: number; fromMs: number }): Int32Array {
    const { bounds, positions: list } = this.nearby;
    // With `window`, an event starting before `startsInWindow` is kept only if it ends at `fromMs` or later.
    const startsIn = window?.startsInWindow ?? first;
    const fromMs = window?.fromMs ?? -Infinity;
    const endMs = this.events.endMs;
    const found = this.pois.collect(area);
    const points = this.pois.foundPositions;
    // Found positions are marked in a bitmap over [first, end), then read in order: sorted and each once, with no
    // sort (a typed array's sort of the events near a point in a year was a large part of the search).
    const marks = this.marks;
    marks.fit(end - first);
    // A POI with several points in the area (a path's or a polygon's vertices) is looked at once.
    const owners = this.pois.ownersByTreePosition;
    const seen = this.seenPois;
    let count = 0;
    for (let f = 0; f < found; f++) {
      const k = points[f];
      const owner = owners[k];
      const bit = 1 << (owner & 31);
      if ((seen[owner >>> 5] & bit) !== 0) continue;
      seen[owner >>> 5] |= bit;
      // The POI's first event at or after `first` (a short list is scanned: its one mispredicted branch is at the
      // end, where a binary search has one a step), then those before `end`.
      let a = bounds[2 * k];
      const last = bounds[2 * k + 1];
      if (last - a > SCANNED_LIST) {
        let hi = last;
        while (a < hi) {
          const mid = (a + hi) >>> 1;
          if (list[mid] < first) a = mid + 1;
          else hi = mid;
        }
      } else {
        while (a < last && list[a] < first) a++;
      }
      for (; a < last && list[a] < end; a++) {
        if (list[a] < startsIn && endMs[list[a]] < fromMs) continue;
        marks.mark(list[a] - first);
        count++;
      }
    }
    for (let f = 0; f < found; f++) seen[owners[points[f]] >>> 5] = 0;
    const out = new Int32Array(count);
    return out.subarray(0, marks.drain(out, 0, null, first));
  }

  /** Where `eventsInAreaOfPois` marks the positions it finds (reused). */
  private readonly marks = new MarkedBits();
  /** One bit per anchored POI, set while `eventsInAreaOfPois` has looked at its list (all zero between queries). */
  private readonly seenPois: Uint32Array;
}

/** Throws unless parts made before fit these events and points: lengths, and every list within its table. */
function* checkParts(events: EventTable, pois: PointIndex, parts: IndexParts): Steps<void> {
  const fail = (what: string) => { throw new Error(`the spatial index's parts do not fit its events: ${what}`); };
  const { pointsBefore, bounds, positions } = parts;
  if (pointsBefore.length !== events.length + 1 || pointsBefore[0] !== 0) fail('pointsBefore');
  if (bounds.length !== 2 * pois.ownersByTreePosition.length) fail('bounds');
  if (positions.length > events.anchorColumns.anchorPoi.length) fail('positions');
  for (let k = 0; k < bounds.length; k += 2) {
    if (bounds[k] > bounds[k + 1] || bounds[k + 1] > positions.length) fail('bounds');
    if ((k & (STRIDE - 1)) === 0) yield;
  }
  for (let a = 0; a < positions.length; a++) {
    if (positions[a] < 0 || positions[a] >= events.length) fail('positions');
    if ((a & (STRIDE - 1)) === 0) yield;
  }
}
