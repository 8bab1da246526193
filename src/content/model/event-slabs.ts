/**
 * "Which events are here and now": spatial indexes per time slab. Slab s holds the events that overlap
 * [s * SLAB_MS, (s + 1) * SLAB_MS) and a KDBush index over their anchor points. A short window is answered from
 * the slabs it spans, so a query visits the anchor points of the events in the area during those slabs, not every
 * POI in the area (most of which have nothing in the window) and not every event in the window.
 *
 * Within a slab, events are numbered in keyset order (0, 1, …), and what a query reads per point (the event's
 * number, start and end) lies in small arrays. An event is reported by the first slab of the window it overlaps
 * (its start's slab, or the window's first), and a bitmap over a slab's numbers drops the repeats of an event
 * with several points in the area; scanning that bitmap in order gives the slab's events in keyset order, and
 * the slabs in turn give the whole answer in keyset order: nothing is sorted.
 *
 * Slabs are made the first time a query needs them (a few milliseconds each on a million events) and the least
 * recently used go past MAX_SLABS_KEPT.
 */
import { TreePoints, type Area } from '../../geo/point-index.ts';
import type { EventTable } from './event-table.ts';
import { runNow } from './steps.ts';

/** The length of a time slab: two weeks. */
export const SLAB_MS = 14 * 24 * 60 * 60 * 1000;
/**
 * A window spanning more slabs than this (about ten weeks) is answered from the POIs' event lists instead: a
 * query over many slabs walks many indexes, each cold in the processor's caches (measured on 1M events, near
 * 2 km over a year: 480-580 us by 27 slabs, about 200 us by the POIs' lists).
 */
export const MAX_SLABS_PER_QUERY = 6;
/** Slabs kept per map: on the 1M-event dataset (about 13,000 events a slab) each holds about 1.1 MB. */
export const MAX_SLABS_KEPT = 32;

/** One slab: its events by number, and their anchor points. */
class Slab {
  /** Points tagged with their event's number in the slab. */
  readonly points: TreePoints;
  /** Event number -> its position in the table (ascending). */
  readonly positions: Int32Array;
  /** Event number -> its start and end. */
  readonly startMs: Float64Array;
  readonly endMs: Float64Array;

  constructor(points: TreePoints, positions: Int32Array, startMs: Float64Array, endMs: Float64Array) {
    this.points = points;
    this.positions = positions;
    this.startMs = startMs;
    this.endMs = endMs;
  }
}

/** The time slabs of one table's events (see the file's comment). */
export class EventSlabs {
  private readonly events: EventTable;
  private readonly pointsOf: (poiCode: number) => Float64Array;
  private readonly kept = new Map<number, Slab>();
  /** One bit per event number of a slab, reused by every query (all zero between queries). */
  private bits = new Uint32Array(1024);
  /** The answer being made, reused (grown as needed). */
  private out = new Int32Array(1024);

  /** `pointsOf` gives an anchored POI's points (lng, lat pairs) by its code in the table. */
  constructor(events: EventTable, pointsOf: (poiCode: number) => Float64Array) {
    this.events = events;
    this.pointsOf = pointsOf;
  }

  /** How many slabs [fromMs, toMs] spans. */
  static spanned(fromMs: number, toMs: number): number {
    return Math.floor(toMs / SLAB_MS) - Math.floor(fromMs / SLAB_MS) + 1;
  }

  /** Positions, ascending and each once, of the events that overlap [fromMs, toMs] with an anchor point in the area. */
  eventsInAreaBetween(area: Area, fromMs: number, toMs: number): Int32Array {
    const firstSlab = Math.floor(fromMs / SLAB_MS);
    const lastSlab = Math.floor(toMs / SLAB_MS);
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
      const startsFrom = s === firstSlab ? -Infinity : s * SLAB_MS;
      let low = bits.length;
      let high = -1;
      for (let f = 0; f < n; f++) {
        const e = numbers[found[f]];
        const start = startMs[e];
        if (start > toMs || start < startsFrom || endMs[e] < fromMs) continue;
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
      if (this.kept.size <= MAX_SLABS_KEPT) break;
      this.kept.delete(old);
    }
    return slab;
  }

  private make(s: number): Slab {
    const { events } = this;
    const from = s * SLAB_MS;
    const until = (s + 1) * SLAB_MS;
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
    return new Slab(runNow(TreePoints.buildSteps(lngs, lats, numbers)), at, Float64Array.from(at, (i) => events.startMs[i]),
      Float64Array.from(at, (i) => events.endMs[i]));
  }
}
