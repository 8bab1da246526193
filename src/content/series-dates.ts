/**
 * What a series' answer, the settings and the store need of series without running a rule (src/content/series.ts
 * runs them with rrule-temporal, which the serving threads then never load): the horizon setting, occurrence ids,
 * the days of all-day events, and reading a rule's end.
 */
import type { EventT } from './bundle/bundle-schema.ts';
import { toUtc } from './rfc3339.ts';
import { makeUuidV5 } from '../utils/uuid.ts';
import { instantsOfWall, wallTimeAt } from '../utils/zoned-time.ts';

const DAY_MS = 86_400_000;

/** How far a series without an end is expanded, in days after the publish in which it last changed (`--series-horizon-days`). */
export const SERIES_HORIZON_DAYS = 730;

/** The horizon setting (`--series-horizon-days`, SERIES_HORIZON_DAYS) read from its text, or why it cannot be. */
export function parseHorizonDays(text: string): number | string {
  const days = Number(text);
  return /^\d{1,4}$/.test(text) && days >= 1 && days <= 3650 ? days : `must be a whole number of days from 1 to 3650, not "${text}"`;
}

/**
 * The id of the occurrence of series `seriesId` whose original start is `original`: an instant (written as `toUtc`
 * writes it), or the date of an all-day series' occurrence (`2027-06-12`).
 */
export function occurrenceId(seriesId: string, original: number | string): string {
  return makeUuidV5(seriesId, typeof original === 'number' ? toUtc(original) : original);
}

/** The calendar date `days` after `date` (both `YYYY-MM-DD`). */
export function addDaysToDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The date (`YYYY-MM-DD`) of instant `ms` on the clock of `timeZone`. */
export function dateAt(ms: number, timeZone: string): string {
  const w = wallTimeAt(ms, timeZone);
  return `${String(w.year).padStart(4, '0')}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** The instant day `date` begins in `timeZone`: its midnight, or, where the clocks skip midnight, the first time it has. */
export function dayStartMs(date: string, timeZone: string): number {
  const [year, month, day] = date.split('-').map(Number);
  for (let minutes = 0; minutes < 24 * 60; minutes += 15) {
    const found = instantsOfWall({ year, month, day, hour: Math.floor(minutes / 60), minute: minutes % 60, second: 0 }, timeZone);
    if (found.length > 0) return found[0];
  }
  throw new Error(`day ${date} has no time in ${timeZone}`);
}

/** The instants the days from `startDate` to `endDate` span in `timeZone`: the start of the first, the start of the day after the last. */
export function allDayBounds(startDate: string, endDate: string, timeZone: string): { starts_at: string; ends_at: string } {
  return { starts_at: toUtc(dayStartMs(startDate, timeZone)), ends_at: toUtc(dayStartMs(addDaysToDate(endDate, 1), timeZone)) };
}

/** A recurrence's rule as RRULE's value: upper case, without a leading `RRULE:`. */
export const ruleOf = (recurrence: NonNullable<EventT['recurrence']>): string => recurrence.rule.replace(/^RRULE:/i, '').toUpperCase();

/** True when a rule (`ruleOf`) has an end (COUNT or UNTIL): it is expanded whole, with no horizon. */
export const hasEnd = (rule: string): boolean => /(^|;)(COUNT|UNTIL)=/.test(rule);
