/**
 * "Which events are here and now": spatial indexes per time slab. Slab s of length L holds the events that
 * overlap [s * L, (s + 1) * L) and a KDBush index over their anchor points. A short window is answered from
 * the slabs it spans, so a query visits the anchor points of the events in the area during those slabs, not every
 * POI in the area (most of which have nothing in the window) and not every event in the window.
 *
 * Within a slab, events are numbered in keyset order (0, 1, …), and what a query reads per point (the event's
 * number, start and end) lies in small arrays. An event is reported by the first slab of the window it overlaps
 * (its start's slab, or the window's first), and a bitmap over a slab's numbers drops the repeats of an event
 * with several points in the area; scanning that bitmap in order gives the slab's events in keyset order, and
 * the slabs in turn give the whole answer in keyset order: nothing is sorted.
 *
 * Slabs are made the first time a query needs them (tens of milliseconds each on a million events) and the least
 * recently used go past their size's `kept`.
 */
import { TreePoints, type Area } from '../../geo/point-index.ts';
import type { EventTable } from './event-table.ts';
import { runNow } from './steps.ts';

/** A length of time slab, the most of them one query walks, and the most kept per map. */
export interface SlabSize { ms: number; perQuery: number; kept: number }

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Two weeks, for windows up to about ten weeks (the default window is 30 days). A query walks a few slabs: each
 * slab walked is an index cold in the processor's caches. A longer window is answered from the POIs' event lists,
 * which measured as fast on 1M events for near 2 km over a year (218 us of CPU a question either way, against 27
 * two-week slabs at 480-580 us and five thirteen-week slabs at 218 us, which also cost 7 MB each per thread).
 */
export const SLAB_SIZE: SlabSize = { ms: 14 * DAY_MS, perQuery: 6, kept: 32 };

/** One slab: its events by number, and their anchor points. */
class Slab {
  /** Points tagged with their event's number in the slab. */
  readonly points: TreePoints;
  /** Event number -> its position in the table (ascending). */
  readonly positions: Int32Array;
  /**
   * Each point's event's start and end, by the point's tree position: read in the order the index finds points,
   * next to their coordinates, rather than by event number all over the slab (a cache miss a point).
   */
  readonly startMs: Float64Array;
  readonly endMs: Float64Array;

  constructor(points: TreePoints, positions: Int32Array, startMs: Float64Array, endMs: Float64Array) {
    this.points = points;
    this.positions = positions;
    this.startMs = startMs;
    this.endMs = endMs;
  }
}

/** The time slabs of one size of one table's events (see the file's comment). */
export class EventSlabs {
  readonly size: SlabSize;
  private readonly events: EventTable;
  private readonly pointsOf: (poiCode: number) => Float64Array;
  private readonly kept = new Map<number, Slab>();
  /** One bit per event number of a slab, reused by every query (all zero between queries). */
  private bits = new Uint32Array(1024);
  /** The answer being made, reused (grown as needed). */
  private out = new Int32Array(1024);

  /** `pointsOf` gives an anchored POI's points (lng, lat pairs) by its code in the table. */
  constructor(size: SlabSize, events: EventTable, pointsOf: (poiCode: number) => Float64Array) {
    this.size = size;
    this.events = events;
    this.pointsOf = pointsOf;
  }

  /** True when [fromMs, toMs] spans at most `perQuery` slabs of this size. */
  answers(fromMs: number, toMs: number): boolean {
    return Math.floor(toMs / this.size.ms) - Math.floor(fromMs / this.size.ms) + 1 <= this.size.perQuery;
  }

  /** Positions, ascending and each once, of the events that overlap [fromMs, toMs] with an anchor point in the area. */
  eventsInAreaBetween(area: Area, fromMs: number, toMs: number): Int32Array {
    const slabMs = this.size.ms;
    const firstSlab = Math.floor(fromMs / slabMs);
    const lastSlab = Math.floor(toMs / slabMs);
    let count = 0;
    for (let s = firstSlab; s <= lastSlab; s++) {
      const slab = this.slab(s);
      const n = slab.points.collect(area);
      if (n === 0) continue;
      const found = slab.points.foundPositions;
      const numbers = slab.points.tagsByTreePosition;
      const { startMs, endMs, positions } = slab;
      if (this.bits.length * 32 < positions.length) this.bits = new Uint32Array(Math.ceil(positions.length / 32));
      const bits = this.bits;
      // Reported here: in the window, and either this is the window's first slab or the event starts in this one.
      const startsFrom = s === firstSlab ? -Infinity : s * slabMs;
      let low = bits.length;
      let high = -1;
      for (let f = 0; f < n; f++) {
        const k = found[f];
        const start = startMs[k];
        if (start > toMs || start < startsFrom || endMs[k] < fromMs) continue;
        const e = numbers[k];
        const w = e >>> 5;
        bits[w] |= 1 << (e & 31);
        if (w < low) low = w;
        if (w > high) high = w;
      }
      if (high < 0) continue;
      if (count + (high - low + 1) * 32 > this.out.length) this.grow(count + (high - low + 1) * 32);
      const out = this.out;
      for (let w = low; w <= high; w++) {
        let word = bits[w];
        if (word === 0) continue;
        bits[w] = 0;
        while (word !== 0) {
          const lowest = word & -word;
          out[count++] = positions[(w << 5) + 31 - Math.clz32(lowest)];
          word ^= lowest;
        }
      }
    }
    return this.out.slice(0, count);
  }

  private grow(size: number): void {
    const grown = new Int32Array(Math.max(size, this.out.length * 2));
    grown.set(this.out);
    this.out = grown;
  }

  /** Slab s, made now if it is not kept; kept in least-recently-used order. */
  private slab(s: number): Slab {
    const kept = this.kept.get(s);
    if (kept) {
      this.kept.delete(s);
      this.kept.set(s, kept);
      return kept;
    }
    const slab = this.make(s);
    this.kept.set(s, slab);
    for (const old of this.kept.keys()) {
      if (this.kept.size <= this.size.kept) break;
      this.kept.delete(old);
    }
    return slab;
  }

  private make(s: number): Slab {
    const { events } = this;
    const from = s * this.size.ms;
    const until = (s + 1) * this.size.ms;
    const positions: number[] = [];
    const lngs: number[] = [];
    const lats: number[] = [];
    const numbers: number[] = [];
    for (let i = events.firstStartingFrom(from - events.longestEventMs); i < events.length && events.startMs[i] < until; i++) {
      if (events.endMs[i] < from) continue;
      const e = positions.length;
      positions.push(i);
      for (const k of events.anchorCodes(i)) {
        const points = this.pointsOf(k);
        for (let p = 0; p < points.length; p += 2) {
          lngs.push(points[p]);
          lats.push(points[p + 1]);
          numbers.push(e);
        }
      }
    }
    const at = Int32Array.from(positions);
    const points = runNow(TreePoints.buildSteps(lngs, lats, numbers));
    const byTree = points.tagsByTreePosition;
    return new Slab(points, at, Float64Array.from(byTree, (e) => events.startMs[at[e]]), Float64Array.from(byTree, (e) => events.endMs[at[e]]));
  }
}
