/**
 * Strict RFC 3339 parsing shared by the bundle format and the query parameters: real calendar
 * dates only (no 30 February, no 24:00), unlike Date.parse, which rolls such values over.
 */
import { ByteWriter } from '../utils/byte-writer.ts';

const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:([Zz])|([+\- ])(\d{2}):(\d{2})))?$/;

/**
 * Parses an RFC 3339 date-time with `Z` or an offset, or a date alone (00:00 UTC that day), to epoch ms.
 * A space where the offset sign belongs is read as `+`, since an unencoded `+` arrives as a space.
 */
export function parseTimestamp(s: string): number | null {
  const m = DATE_TIME_RE.exec(s);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(utc(year, month, 0)).getUTCDate();
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth) return null;
  if (m[4] === undefined) return utc(year, month - 1, day);
  const [h, min, sec] = [Number(m[4]), Number(m[5]), Number(m[6])];
  if (h > 23 || min > 59 || sec > 59) return null;
  const ms = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  let offsetMin = 0;
  if (!m[8]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return utc(year, month - 1, day, h, min, sec, ms) - offsetMin * 60_000;
}

const DAY_MS = 86_400_000;
/** `YYYY-MM-DDT` of the days formatted lately (an event page's times fall on few days); cleared when large. */
const dayPrefixes = new Map<number, string>();

/**
 * Formats a timestamp as RFC 3339 UTC with `Z`, dropping zero milliseconds. A whole second is written from
 * its day's cached prefix and the time of day (`writeUtc`), then read as one flat string: a template literal
 * made a string of six pieces, which a read model keeps per POI, list and association, in every thread
 * (docs/decisions.md). Anything else goes through Date.toISOString, which gives the same text.
 */
export function toUtc(ms: number): string {
  if (!isWholeSecond(ms)) return new Date(ms).toISOString().replace('.000Z', 'Z');
  writeUtc(ms, utcText.reset());
  return String.fromCharCode.apply(null, utcText.view(0) as unknown as number[]);
}

const utcText = new ByteWriter(64);

/** `toUtc(ms)` written as bytes (ASCII) to `w`, with no string made for a whole second. */
export function writeUtc(ms: number, w: ByteWriter): void {
  if (!isWholeSecond(ms)) {
    w.ascii(toUtc(ms));
    return;
  }
  const day = Math.floor(ms / DAY_MS);
  const seconds = (ms - day * DAY_MS) / 1000;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor(seconds / 60) % 60;
  const s = seconds % 60;
  w.ascii(dayPrefix(day)).byte(48 + Math.floor(h / 10)).byte(48 + (h % 10)).byte(58).byte(48 + Math.floor(m / 10)).byte(48 + (m % 10))
    .byte(58).byte(48 + Math.floor(s / 10)).byte(48 + (s % 10)).byte(90);
}

/** True for a whole second within Date's range (written from its day's prefix and the time of day). */
function isWholeSecond(ms: number): boolean {
  return ms % 1000 === 0 && Math.abs(ms) <= 8.64e15;
}

/** `YYYY-MM-DDT` of a day (days since the epoch), cached. */
function dayPrefix(day: number): string {
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= 4096) dayPrefixes.clear();
    prefix = new Date(day * DAY_MS).toISOString().slice(0, -13);
    dayPrefixes.set(day, prefix);
  }
  return prefix;
}

/** Date.UTC without its two-digit-year quirk (Date.UTC(50, 0) is 1950). */
function utc(year: number, month: number, day: number, h = 0, min = 0, sec = 0, ms = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(h, min, sec, ms);
  return d.getTime();
}
