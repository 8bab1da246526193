/**
 * Brute forces of the tests' own for opening hours (tests/http/opening-hours.test.ts, tests/opening-hours-zones.test.ts):
 * the `opening_hours` library asked directly at an instant's wall time (computed here with Intl), and a linear scan of
 * the open intervals the service precomputes for the instant's week; the instants that matter (midnight, both clock
 * changes of both zones, public holidays).
 */
import OpeningHours from 'opening_hours';
import type { HoursReader } from '../../src/content/hours.ts';
import { HOURS, HOURS_RULES, hoursBundle } from './small-bundles.ts';

const bundle = hoursBundle();
export const DAY = 86_400_000;
export const MAPS = {
  lisbon: { zone: 'Europe/Lisbon', country: 'pt', center: bundle.maps[0].map_data.center },
  newyork: { zone: 'America/New_York', country: 'us', center: bundle.maps[1].map_data.center },
} as const;
export type Key = keyof typeof MAPS;

/** The rule of every POI with hours, by id. */
export const RULES = new Map<string, { key: Key; rule: string }>();
for (const key of Object.keys(MAPS) as Key[]) {
  HOURS_RULES.forEach((rule, i) => RULES.set(HOURS.marker(key, i), { key, rule }));
  RULES.set(HOURS.park(key), { key, rule: 'Mo-Su 07:00-21:00' });
}

/** The wall time of instant `ms` in `zone` as milliseconds (UTC fields = wall clock), from Intl alone. */
export function wall(ms: number, zone: string): number {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric',
    day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(ms).map((p) => [p.type, p.value]));
  return Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second) + (ms % 1000 + 1000) % 1000;
}

/** Every instant whose wall time in `zone` is `w`, found by trying each offset of the day around it. */
export function instantsOf(w: number, zone: string): number[] {
  const offsets = new Set([-DAY, 0, DAY].map((d) => wall(w + d, zone) - (w + d)));
  return [...offsets].map((o) => w - o).filter((ms) => wall(ms, zone) === w).sort((a, b) => a - b);
}

/** The first instant after `after` at wall time `w`; in a gap, when the clocks jump over it. */
export function instantAfter(w: number, zone: string, after: number): number {
  const found = instantsOf(w, zone);
  return found.find((ms) => ms > after) ?? found.at(-1) ?? w - (wall(w - DAY, zone) - (w - DAY));
}

const libraries = new Map<string, OpeningHours>();
export function library(key: Key, rule: string): OpeningHours {
  const m = MAPS[key];
  const memo = `${key} ${rule}`;
  if (!libraries.has(memo)) libraries.set(memo, new OpeningHours(rule, { lat: m.center.lat, lon: m.center.lng, address: { country_code: m.country, state: '' } }, { mode: 0 } as never));
  return libraries.get(memo)!;
}

/** Open at `ms` as the library says it, asked directly at the wall time (unknown is not open). */
export function libraryOpen(key: Key, rule: string, ms: number): boolean {
  const at = new Date(wall(ms, MAPS[key].zone));
  const oh = library(key, rule);
  return oh.getState(at) && !oh.getUnknown(at);
}

/** The library's next change after `ms`, as an instant (null: none within a year). */
export function libraryNextChange(key: Key, rule: string, ms: number): number | null {
  const { zone } = MAPS[key];
  const oh = library(key, rule);
  let at = new Date(wall(ms, zone));
  const open = libraryOpen(key, rule, ms);
  const limit = at.getTime() + 366 * DAY;
  // The library also changes between open and unknown, and at midnight now and then: skip to a change of "open".
  for (;;) {
    const next = oh.getNextChange(at, new Date(limit));
    if (!next || next.getTime() >= limit) return null;
    if ((oh.getState(next) && !oh.getUnknown(next)) !== open) return instantAfter(next.getTime(), zone, ms);
    at = next;
  }
}

let reader: HoursReader;
/** Gives the brute force over the precomputed intervals the reader it scans with (loaded by the test). */
export function setReader(r: HoursReader): void {
  reader = r;
}
/** Open at `ms` by a linear scan of the intervals precomputed for the instant's week (Monday to Monday, wall clock). */
export function intervalsOpen(key: Key, rule: string, ms: number): boolean {
  const m = MAPS[key];
  const w = wall(ms, m.zone);
  const monday = Math.floor((w - 4 * DAY) / (7 * DAY)) * 7 * DAY + 4 * DAY;
  const intervals = reader.read(rule, { country: m.country, lat: m.center.lat, lng: m.center.lng }).openIntervals(monday, monday + 7 * DAY);
  for (let k = 0; k < intervals.length; k += 2) if (intervals[k] <= w && w < intervals[k + 1]) return true;
  return false;
}

/** Instants of a day in `zone`: every `stepHours` in UTC, and the wall times around midnight, the changes and the rules' edges. */
export function instantsAround(date: string, zone: string, stepHours = 1): number[] {
  const out = new Set<number>();
  const base = Date.parse(`${date}T00:00:00Z`);
  for (let h = -6; h < 30; h += stepHours) out.add(base + h * 3_600_000);
  for (const t of ['00:00:00', '00:00:01', '01:29:59', '01:30:00', '01:59:59', '02:00:00', '02:00:01', '02:29:59', '02:30:00', '03:00:00',
    '07:00:00', '09:59:59', '10:00:00', '12:00:00', '13:00:00', '17:59:59', '18:00:00', '19:30:00', '20:59:59', '21:00:00', '23:59:59']) {
    for (const ms of instantsOf(Date.parse(`${date}T${t}Z`), zone)) out.add(ms);
  }
  return [...out].sort((a, b) => a - b);
}

/** Days that matter: clock changes, public holidays, a Monday, and the nights either side. */
export const DATES: Record<Key, string[]> = {
  lisbon: ['2027-03-27', '2027-03-28', '2027-03-29', '2027-10-30', '2027-10-31', '2026-12-24', '2026-12-25', '2027-01-01', '2026-12-08', '2027-06-10'],
  newyork: ['2027-03-13', '2027-03-14', '2027-11-06', '2027-11-07', '2026-11-26', '2026-12-25', '2027-01-01', '2027-07-05', '2027-03-15'],
};

