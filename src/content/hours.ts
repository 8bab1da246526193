/**
 * Opening hours in OpenStreetMap's `opening_hours` syntax (a POI's `hours`), read with the `opening_hours` library
 * (LGPL-3.0-only). It is loaded only when content has hours: importing it takes 70-100 ms, which no start without
 * hours should pay.
 *
 * The library evaluates in the process's own time zone. The service gives it the wall-clock times of the map's zone
 * as if they were UTC and reads its answers the same way, which holds only while the process zone is UTC, with no
 * clock changes of its own: loading the library pins the process zone (`TZ=UTC`) and checks that it took, so hours
 * are right whatever `TZ` the server was started with (every other time the service computes names its zone).
 */
import type OpeningHours from 'opening_hours';

/** Where a map's hours are evaluated: its country's public holidays (`PH`) and the point sunrise and sunset are at. */
export interface HoursPlace {
  /** ISO 3166-1 alpha-2, any case; null when the map declares none (then `PH` is refused). */
  country: string | null;
  lat: number;
  lng: number;
}

/** A rule the library reads: its open intervals between two wall-clock times. */
export interface ReadRule {
  /**
   * The intervals in which the rule says open between wall-clock times `from` and `to` (milliseconds, wall clock as
   * if UTC), as [start, end) pairs, ascending, clipped to the span. Unknown and comment-only intervals (`unknown`,
   * `"by appointment"`) are not open: the library's own `getState` says the same.
   */
  openIntervals(from: number, to: number): number[];
}

type Library = typeof OpeningHours;

let loading: Promise<HoursReader> | null = null;
let loaded: HoursReader | null = null;

/** The reader of hours, the library loaded (once) and the process zone pinned to UTC. */
export function hoursReader(): Promise<HoursReader> {
  return (loading ??= (async () => {
    const onUtc = pinProcessZone();
    const library = (await import('opening_hours')).default as Library;
    return (loaded = new HoursReader(library, onUtc));
  })());
}

/**
 * The reader once `hoursReader` has loaded it, for code that cannot wait (bundle validation); throws when it has not
 * been, which is a bug of the caller: whatever validates a bundle with hours loads the reader first.
 */
export function loadedHoursReader(): HoursReader {
  if (!loaded) throw new Error('POIs with hours need the hours reader: await hoursReader() before validating them');
  return loaded;
}

/** Whether any POI of a bundle (parsed JSON, valid or not) has a field named `field`. */
export function anyPoiHas(input: unknown, field: 'hours' | 'opening_hours'): boolean {
  if (typeof input !== 'object' || input === null) return false;
  const b = input as Record<string, unknown>;
  return ['markers', 'paths', 'polygons'].some((key) => Array.isArray(b[key])
    && (b[key] as unknown[]).some((p) => typeof p === 'object' && p !== null && (p as Record<string, unknown>)[field] !== undefined));
}

/**
 * Whether checking a bundle reads hours: its POIs' `hours`, or a marker's `opening_hours` text, which the check tries
 * to read as hours to suggest them (src/content/bundle/check.ts).
 */
export const needsHoursReader = (input: unknown): boolean => anyPoiHas(input, 'hours') || anyPoiHas(input, 'opening_hours');

/** Loads the reader when checking a bundle needs it (`needsHoursReader`): a bundle without hours never loads the library. */
export async function readerFor(input: unknown): Promise<void> {
  if (needsHoursReader(input)) await hoursReader();
}

/**
 * Makes the process zone UTC when it is not (the entries already have: src/serve/utc-clock.ts); false when it cannot
 * be made so (a thread cannot change it), where rules can still be checked but not evaluated.
 */
function pinProcessZone(): boolean {
  const isUtc = () => [Date.UTC(2026, 2, 29, 1, 30), Date.UTC(2026, 9, 25, 1, 30), Date.UTC(2026, 6, 1, 12)]
    .every((ms) => new Date(ms).getHours() === new Date(ms).getUTCHours() && new Date(ms).getTimezoneOffset() === 0);
  if (isUtc()) return true;
  process.env.TZ = 'UTC';
  return isUtc();
}

/** Whether a rule uses public holidays (`PH`), outside its comments. */
const usesHolidays = (rule: string): boolean => /\bPH\b/.test(rule.replace(/"[^"]*"/g, ''));

/** The library's message, without the advice to file a pull request it adds to errors of its own evaluation. */
function libraryMessage(error: unknown): string {
  const text = String(error instanceof Error ? error.message : error).trim();
  return text.replace(/^An error occurred during evaluation of the value "[^"]*"\. Please submit a pull request: \S+\./, '').trim();
}

const DAY_MS = 86_400_000;

export class HoursReader {
  private readonly library: Library;
  /** The process zone is UTC: rules can be evaluated, not only checked. */
  private readonly onUtc: boolean;

  constructor(library: Library, onUtc: boolean) {
    this.library = library;
    this.onUtc = onUtc;
  }

  private parse(rule: string, place: HoursPlace): OpeningHours {
    const nominatim = { lat: place.lat, lon: place.lng, address: { country_code: (place.country ?? '').toLowerCase(), state: '' } };
    // Mode 0: time ranges only (points in time such as `Mo 12:00` belong to other OSM keys).
    return new this.library(rule, nominatim, { mode: 0 } as never);
  }

  /** A rule read for evaluation (throws the library's message when it cannot be: `check` refuses such rules first). */
  read(rule: string, place: HoursPlace): ReadRule {
    if (!this.onUtc) throw new Error('opening hours are evaluated only in a process on UTC: start it with TZ=UTC (src/serve/utc-clock.ts)');
    const oh = this.parse(rule, place);
    return {
      openIntervals(from, to) {
        const out: number[] = [];
        for (const [start, end, unknown] of oh.getOpenIntervals(new Date(from), new Date(to))) {
          if (unknown) continue;
          const s = start.getTime();
          const e = end.getTime();
          // The library splits at midnight now and then: an interval that goes on where the last ended is one.
          if (out.length > 0 && out[out.length - 1] === s) out[out.length - 1] = e;
          else out.push(s, e);
        }
        return out;
      },
    };
  }

  /**
   * What is wrong with a rule, in the library's own words with its pointer (`Mo-X <--- (Unexpected token …)`), or
   * null. `at` is a wall-clock time a week from which the rule is tried (the library finds some errors only then).
   */
  problem(rule: string, place: HoursPlace, at: number): string | null {
    if (usesHolidays(rule) && !place.country) {
      return 'uses public holidays (PH): give its map a "country" (ISO 3166-1 alpha-2, such as "PT") to say whose';
    }
    try {
      this.parse(rule, place).getOpenIntervals(new Date(at), new Date(at + 8 * DAY_MS));
      return null;
    } catch (error) {
      return libraryMessage(error);
    }
  }

  /** What the library warns about in a rule it reads (each with its pointer). */
  warnings(rule: string, place: HoursPlace): string[] {
    try {
      return this.parse(rule, place).getWarnings().map((w) => w.replace(/\s+/g, ' ').trim());
    } catch {
      return [];
    }
  }

  /**
   * The OSM form of a text the library can read as hours (`Daily 19:30–02:00` → `Mo-Su 19:30-02:00`), or null when it
   * cannot (`Trams every 10–15 min`).
   */
  suggestion(text: string, place: HoursPlace): string | null {
    if (usesHolidays(text) && !place.country) return null;
    try {
      return this.parse(text, place).prettifyValue();
    } catch {
      return null;
    }
  }
}
