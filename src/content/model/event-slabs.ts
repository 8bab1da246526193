/**
 * "Which events are here and now": spatial indexes per time slab. Slab s of length L holds the events that
 * overlap [s * L, (s + 1) * L) and a KDBush index over their anchor points. A short window is answered from
 * the slabs it spans, so a query visits the anchor points of the events in the area during those slabs, not every
 * POI in the area (most of which have nothing in the window) and not every event in the window.
 *
 * Within a slab, events are numbered in keyset order (0, 1, …), and what a query reads per point (the event's
 * number, start and end) lies in small arrays by the index's order. The walk of the index tests each point it
 * finds against the window as it goes (TreePoints.collect's times): an event is reported by the first slab of the
 * window it overlaps (its start's slab, or the window's first). A bitmap over a slab's numbers drops the repeats
 * of an event with several points in the area, and a bitmap of its marked words lets the scan skip the empty ones;
 * scanning in order gives the slab's events in keyset order, and the slabs in turn give the whole answer in keyset
 * order: nothing is sorted.
 *
 * Slabs are made the first time a query needs them (each is a pass over its events and an index to sort) and the
 * least recently used go past their size's `kept`.
 */
import { TreePoints, type Area } from '../../geo/point-index.ts';
import type { EventTable } from './event-table.ts';
import { Lru } from '../../utils/lru.ts';
import { MarkedBits } from '../../utils/marked-bits.ts';
import { runNow } from '../../utils/steps.ts';

/** A length of time slab, the most of them one query walks, and the most kept per map. */
export interface SlabSize { ms: number; perQuery: number; kept: number }

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * One week, for windows up to twelve weeks (the default window is 30 days: five slabs). A slab holds every event
 * overlapping its week, so a window walks the events of the weeks it touches, not only its own days: the shorter
 * the slab, the fewer points outside the window a query tests, and the more indexes it walks. Shorter slabs were no
 * faster, longer ones slower. A longer window is answered from the POIs' event lists: walking a year's slabs cost
 * more than the lists, and slabs long enough to tie them cost memory in every thread (docs/decisions.md, time slabs).
 */
export const SLAB_SIZE: SlabSize = { ms: 7 * DAY_MS, perQuery: 12, kept: 32 };

/**
 * Points per leaf of a slab's KDBush index (KDBush's default is 64). A query takes whole the regions of the tree
 * inside its area and tests each point of the leaves across its edge: smaller leaves test fewer points for a few
 * more nodes (docs/decisions.md, Regions taken whole).
 */
const SLAB_LEAF_POINTS = 32;

/** One slab: its events by number, and their anchor points. */
class Slab {
  /** Points tagged with their event's number in the slab. */
  readonly points: TreePoints;
  /** Event number -> its position in the table (ascending). */
  readonly positions: Int32Array;
  /**
   * Each point's event's start and end side by side, by the point's tree position (`PointTimes.times`): read in the
   * order the index finds points, next to their coordinates, rather than by event number all over the slab (a cache
   * miss a point). In milliseconds from the slab's start, clamped to [-1, L] (L, the slab's length, is below 2^31):
   * a start before the slab is -1, an end after it L. The walk compares a start with `toMs` and `startsFrom`, and an
   * end with `fromMs`, counted from the same origin; a window that asks the slab overlaps it (`toMs` >= 0, `fromMs`
   * < L) and `startsFrom` is -∞ or 0, so a clamped time compares as its true time does (a start before the slab is
   * at or below `toMs` and below 0, an end after it at or above `fromMs`): the answer is exact.
   */
  readonly times: Int32Array;

  constructor(points: TreePoints, positions: Int32Array, times: Int32Array) {
    this.points = points;
    this.positions = positions;
    this.times = times;
  }
}

/** The time slabs of one size of one table's events (see the file's comment). */
export class EventSlabs {
  readonly size: SlabSize;
  private readonly events: EventTable;
  private readonly pointsOf: (poiCode: number) => Float64Array;
  /** The slabs made lately, the least recently used let go past `size.kept`. */
  private readonly kept: Lru<number, Slab>;
  /** The events a slab's points found, by their numbers in the slab (reused by every query). */
  private readonly marks = new MarkedBits();
  /** The answer being made, reused (grown as needed). */
  private out = new Int32Array(1024);

  /** `pointsOf` gives an anchored POI's points (lng, lat pairs) by its code in the table. */
  constructor(size: SlabSize, events: EventTable, pointsOf: (poiCode: number) => Float64Array) {
    if (!(size.ms > 0 && size.ms < 2 ** 31 - 1)) throw new Error(`a time slab of ${size.ms} ms: its times are 32-bit milliseconds from its start`);
    this.size = size;
    this.events = events;
    this.pointsOf = pointsOf;
    this.kept = new Lru(size.kept);
  }

  /** True when [fromMs, toMs] spans at most `perQuery` slabs of this size. */
  answers(fromMs: number, toMs: number): boolean {
    return Math.floor(toMs / this.size.ms) - Math.floor(fromMs / this.size.ms) + 1 <= this.size.perQuery;
  }

  /**
   * Positions, ascending and each once, of the events that overlap [fromMs, toMs] with an anchor point in the area:
   * a view of memory the next query writes over (what keeps it copies it; see `findMatches`).
   */
  eventsInAreaBetween(area: Area, fromMs: number, toMs: number): Int32Array {
    const slabMs = this.size.ms;
    const firstSlab = Math.floor(fromMs / slabMs);
    const lastSlab = Math.floor(toMs / slabMs);
    let count = 0;
    for (let s = firstSlab; s <= lastSlab; s++) {
      const slab = this.kept.get(s, (n) => this.make(n));
      const { times, positions } = slab;
      // Reported here: in the window, and either this is the window's first slab or the event starts in this one.
      // The slab's times count from its start (see `Slab.times`).
      const origin = s * slabMs;
      const n = slab.points.collect(area, { times, fromMs: fromMs - origin, toMs: toMs - origin, startsFrom: s === firstSlab ? -Infinity : 0 });
      if (n === 0) continue;
      const found = slab.points.foundPositions;
      const numbers = slab.points.tagsByTreePosition;
      const marks = this.marks;
      marks.fit(positions.length);
      for (let f = 0; f < n; f++) marks.mark(numbers[found[f]]);
      // At most one event a point: room for them all is made before they are read.
      if (count + n > this.out.length) this.grow(count + n);
      count = marks.drain(this.out, count, positions);
    }
    return this.out.subarray(0, count);
  }

  private grow(size: number): void {
    const grown = new Int32Array(Math.max(size, this.out.length * 2));
    grown.set(this.out);
    this.out = grown;
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
    const points = runNow(TreePoints.buildSteps(lngs, lats, numbers, { nodeSize: SLAB_LEAF_POINTS }));
    const byTree = points.tagsByTreePosition;
    const times = new Int32Array(2 * byTree.length);
    for (let k = 0; k < byTree.length; k++) {
      times[2 * k] = Math.max(events.startMs[at[byTree[k]]], from - 1) - from;
      times[2 * k + 1] = Math.min(events.endMs[at[byTree[k]]], until) - from;
    }
    return new Slab(points, at, times);
  }
}
