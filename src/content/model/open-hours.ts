/**
 * When POIs are open. Each map's distinct `hours` rules are read once per content version (by the library, the first
 * time an answer needs them: src/content/hours.ts), and each rule's open intervals are computed a week at a time on
 * the map's wall clock and kept, so `open_at`, `open_now`, the pages and the JSON-LD evaluate by binary search over
 * kept intervals, never by reading a rule per request. A week is computed from its own dates, so clock changes and
 * public holidays fall where they fall; wall-clock intervals turn into instants only for the answer.
 *
 * Intervals are compared on the wall clock: an instant is open when its wall time lies in an open interval. In a
 * clock change's overlap both instants of a wall time answer the same; a change that falls in a gap happens when the
 * clocks jump, as RFC 5545 moves a time in a gap.
 */
import { hoursReader, type HoursPlace, type HoursReader, type ReadRule } from '../hours.ts';
import type { PoiStore } from './poi-store.ts';
import type { MapView, ReadModel } from './read-model.ts';
import { instantsOfWall, offsetAt, type WallTime } from '../../utils/zoned-time.ts';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** 1970-01-05, a Monday: weeks are counted from it on the wall clock. */
const FIRST_MONDAY = 4 * DAY_MS;
/** How far ahead the next opening or closing is looked for: a year and a day. */
const CHANGE_SEARCH_WEEKS = 53;
/** Weeks of intervals kept per map; past it they are let go and computed again when asked for. */
const KEPT_WEEKS = 50_000;

/** Where a POI stands at an instant: open or not, and when that next changes (null: not within a year). */
export interface OpenState {
  open: boolean;
  /** The next opening, when closed. */
  opensAt: number | null;
  /** The next closing, when open. */
  closesAt: number | null;
}

/** One day of a POI's week on the map's clock: its date and its open times (`10:00`–`18:00`; a time past midnight ends it). */
export interface HoursDay {
  /** `YYYY-MM-DD`. */
  date: string;
  /** 0 for Monday to 6 for Sunday. */
  weekday: number;
  /**
   * Its open times as `HH:MM` pairs: an interval that begins that day, with its end (`02:00` when it runs past
   * midnight); `00:00`–`24:00` for a day open throughout; the first day also shows the end of a night begun the day before.
   */
  open: [string, string][];
}

const hhmm = (wall: number): string => new Date(wall).toISOString().slice(11, 16);

/** The wall time of wall-clock milliseconds (`wallMs` reversed). */
function wallOf(wall: number): WallTime {
  const d = new Date(wall);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(),
    second: d.getUTCSeconds() };
}

/** The wall-clock milliseconds of instant `ms` in `timeZone`. */
const wallAt = (ms: number, timeZone: string): number => ms + offsetAt(ms, timeZone);

/**
 * The first instant after `after` whose wall time is `wall`; in an overlap the later one when the earlier is past; in
 * a gap, the instant the clocks jump over it (the wall time read with the offset before the change).
 */
function instantOfWall(wall: number, timeZone: string, after: number): number {
  const found = instantsOfWall(wallOf(wall), timeZone);
  for (const ms of found) if (ms > after) return ms;
  if (found.length > 0) return found[found.length - 1];
  return wall - offsetAt(wall - DAY_MS, timeZone);
}

/** One rule's weeks of open intervals, made when first asked for. */
class RuleWeeks {
  readonly weeks = new Map<number, number[]>();
  readonly rule: ReadRule;
  constructor(rule: ReadRule) {
    this.rule = rule;
  }
}

/** The hours of one map's POIs in one content version. */
export class MapHours {
  private readonly rules = new Map<number, RuleWeeks>();
  private keptWeeks = 0;

  private readonly reader: HoursReader;
  private readonly pois: PoiStore;
  readonly place: HoursPlace;
  readonly timeZone: string;

  constructor(reader: HoursReader, pois: PoiStore, place: HoursPlace, timeZone: string) {
    this.reader = reader;
    this.pois = pois;
    this.place = place;
    this.timeZone = timeZone;
  }

  private ruleOf(code: number): RuleWeeks {
    let rule = this.rules.get(code);
    if (!rule) this.rules.set(code, (rule = new RuleWeeks(this.reader.read(this.pois.hoursRule(code), this.place))));
    return rule;
  }

  /** Rule `code`'s open intervals in week `week` (counted from FIRST_MONDAY on the wall clock), as wall-clock pairs. */
  private week(code: number, week: number): number[] {
    const rule = this.ruleOf(code);
    let intervals = rule.weeks.get(week);
    if (intervals === undefined) {
      if (this.keptWeeks >= KEPT_WEEKS) {
        for (const r of this.rules.values()) r.weeks.clear();
        this.keptWeeks = 0;
      }
      const start = FIRST_MONDAY + week * WEEK_MS;
      intervals = rule.rule.openIntervals(start, start + WEEK_MS);
      rule.weeks.set(week, intervals);
      this.keptWeeks++;
    }
    return intervals;
  }

  /** Whether rule `code` says open at wall-clock time `wall`. */
  openAtWall(code: number, wall: number): boolean {
    const week = Math.floor((wall - FIRST_MONDAY) / WEEK_MS);
    const intervals = this.week(code, week);
    // The first interval that ends after `wall`: open when it has begun.
    let lo = 0;
    let hi = intervals.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (intervals[2 * mid + 1] <= wall) lo = mid + 1;
      else hi = mid;
    }
    return lo < intervals.length / 2 && intervals[2 * lo] <= wall;
  }

  /** How many distinct rules have been read (for tests and the warm-up). */
  get rulesRead(): number {
    return this.rules.size;
  }

  /** The wall-clock milliseconds of instant `ms` on the map's clock. */
  wallAt(ms: number): number {
    return wallAt(ms, this.timeZone);
  }

  /**
   * Where POI `i` stands at instant `ms`, or null when it has no hours: open or not, and the next change within
   * CHANGE_SEARCH_WEEKS (an interval that ends where the next week's begins is one interval).
   */
  stateAt(i: number, ms: number): OpenState | null {
    const code = this.pois.hoursCode(i);
    if (code < 0) return null;
    const wall = wallAt(ms, this.timeZone);
    const open = this.openAtWall(code, wall);
    const change = this.nextChange(code, wall, open);
    const at = change === null ? null : instantOfWall(change, this.timeZone, ms);
    return { open, opensAt: open ? null : at, closesAt: open ? at : null };
  }

  /** The wall time after `wall` at which rule `code` next closes (when `open`) or opens, or null within the search. */
  private nextChange(code: number, wall: number, open: boolean): number | null {
    const first = Math.floor((wall - FIRST_MONDAY) / WEEK_MS);
    for (let week = first; week <= first + CHANGE_SEARCH_WEEKS; week++) {
      const intervals = this.week(code, week);
      for (let k = 0; k < intervals.length; k += 2) {
        const [start, end] = [intervals[k], intervals[k + 1]];
        if (open) {
          // The end of the interval `wall` is in, or of the interval that goes on from it across a week's edge.
          if (end <= wall) continue;
          const weekEnd = FIRST_MONDAY + (week + 1) * WEEK_MS;
          if (end < weekEnd) return end;
          // Goes on into the next week only if that week's first interval begins at its start.
          const next = this.week(code, week + 1);
          if (next.length === 0 || next[0] !== weekEnd) return end;
          break;
        }
        if (start > wall) return start;
      }
    }
    return null;
  }

  /**
   * POI `i`'s open times, day by day, for `days` days from the day instant `from` falls on (the map's clock), or null
   * when it has no hours. What its page shows and its JSON-LD's `openingHoursSpecification` says.
   */
  days(i: number, from: number, days: number): HoursDay[] | null {
    const code = this.pois.hoursCode(i);
    if (code < 0) return null;
    const first = Math.floor(this.wallAt(from) / DAY_MS) * DAY_MS;
    const last = first + days * DAY_MS;
    // The intervals of the weeks the days span, as one list (an interval across a week's edge joined).
    const merged: number[] = [];
    for (let week = Math.floor((first - FIRST_MONDAY) / WEEK_MS); FIRST_MONDAY + week * WEEK_MS < last + DAY_MS; week++) {
      const intervals = this.week(code, week);
      for (let k = 0; k < intervals.length; k += 2) {
        if (merged.length > 0 && merged[merged.length - 1] === intervals[k]) merged[merged.length - 1] = intervals[k + 1];
        else merged.push(intervals[k], intervals[k + 1]);
      }
    }
    const out: HoursDay[] = [];
    for (let d = 0; d < days; d++) {
      const start = first + d * DAY_MS;
      out.push({ date: new Date(start).toISOString().slice(0, 10), weekday: (new Date(start).getUTCDay() + 6) % 7, open: [] });
    }
    for (let k = 0; k < merged.length; k += 2) {
      const [s, e] = [Math.max(merged[k], first), merged[k + 1]];
      if (s >= e || s >= last) continue;
      // Whole days first: a day inside the interval from its midnight to the next is open throughout.
      let at = s;
      while (at < e && at < last) {
        const day = Math.floor((at - first) / DAY_MS);
        const dayEnd = first + (day + 1) * DAY_MS;
        if (at === first + day * DAY_MS && e >= dayEnd) {
          out[day].open.push(['00:00', '24:00']);
          at = dayEnd;
          continue;
        }
        // The rest begins this day and ends when it ends, perhaps past midnight.
        out[day].open.push([hhmm(at), e >= dayEnd + DAY_MS ? '24:00' : hhmm(e)]);
        at = e >= dayEnd + DAY_MS ? dayEnd : e;
      }
    }
    return out;
  }
}

/** Each version's hours, by its POI store and map id. */
const versions = new WeakMap<PoiStore, Map<string, MapHours>>();

/**
 * The hours of `map`'s POIs in the model's version, made the first time they are asked for (the library is loaded
 * then, when it has not been). Evaluated where the bundle check read them: the map's country and centre.
 */
export async function hoursOfMap(model: ReadModel, map: MapView): Promise<MapHours> {
  const reader = await hoursReader();
  let maps = versions.get(model.pois);
  if (!maps) versions.set(model.pois, (maps = new Map()));
  let hours = maps.get(map.id);
  if (!hours) {
    const d = map.doc;
    const place: HoursPlace = { country: d.country ?? null, lat: d.map_data.center.lat, lng: d.map_data.center.lng };
    maps.set(map.id, (hours = new MapHours(reader, model.pois, place, d.time_zone)));
  }
  return hours;
}

/** How long after a version is served its hours are read in the background: after the first requests of a start. */
export const WARM_HOURS_DELAY_MS = 2_000;

/**
 * Reads the hours of every map of a model just served and computes this week's open intervals of each of its rules,
 * one rule at a time between requests: the first `open_at`, `open_now` or page finds them ready, and a version's
 * hours are read at publish rather than on a visitor's request. Later weeks are computed when first asked for.
 */
export async function warmHours(model: ReadModel, at = Date.now()): Promise<void> {
  for (const map of model.maps.values()) {
    const version = map.versions.get(map.currentVersionId);
    if (!version) continue;
    const codes = new Set<number>();
    for (const i of version.pois) if (model.pois.hoursCode(i) >= 0) codes.add(model.pois.hoursCode(i));
    if (codes.size === 0) continue;
    const hours = await hoursOfMap(model, map);
    const wall = hours.wallAt(at);
    for (const code of codes) {
      hours.openAtWall(code, wall);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
