/**
 * Wall-clock time in an IANA time zone, from Intl alone (Node runs without Temporal): the wall time of an instant,
 * and the instants of a wall time, none in a clock change's gap, two in its overlap.
 */

/** A wall-clock date and time, month 1 to 12, to the second. */
export interface WallTime { year: number; month: number; day: number; hour: number; minute: number; second: number }

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short' });
    formats.set(timeZone, f);
  }
  return f;
}

/** The wall time of instant `ms` in `timeZone` (milliseconds dropped). */
export function wallTimeAt(ms: number, timeZone: string): WallTime {
  const parts: Record<string, string> = {};
  for (const p of formatIn(timeZone).formatToParts(ms)) parts[p.type] = p.value;
  const year = Number(parts.year);
  return { year: parts.era === 'BC' || parts.era === 'B' ? 1 - year : year, month: Number(parts.month), day: Number(parts.day),
    hour: Number(parts.hour), minute: Number(parts.minute), second: Number(parts.second) };
}

/** The wall time as if it were UTC, in milliseconds: the arithmetic form of a wall time. */
export function wallMs(w: WallTime): number {
  const d = new Date(Date.UTC(2000, w.month - 1, w.day, w.hour, w.minute, w.second));
  d.setUTCFullYear(w.year);
  return d.getTime();
}

/** The zone's offset from UTC at instant `ms`, in milliseconds (positive east of Greenwich). */
export function offsetAt(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallMs(wallTimeAt(whole, timeZone)) - whole;
}

/**
 * The instants whose wall time in `timeZone` is `w`, ascending: one, none when `w` falls in a clock change's gap
 * (the clocks skip it), two in an overlap (the clocks pass it twice).
 */
export function instantsOfWall(w: WallTime, timeZone: string): number[] {
  const local = wallMs(w);
  // The offsets in force a day either side cover any clock change near the wall time.
  const candidates = new Set([offsetAt(local - 86_400_000, timeZone), offsetAt(local, timeZone), offsetAt(local + 86_400_000, timeZone)]);
  const out: number[] = [];
  for (const offset of candidates) {
    const ms = local - offset;
    if (wallMs(wallTimeAt(ms, timeZone)) === local && !out.includes(ms)) out.push(ms);
  }
  return out.sort((a, b) => a - b);
}

/** `w` as iCalendar's local form, `YYYYMMDDTHHMMSS`. */
export function icalWall(w: WallTime): string {
  const p = (n: number, size = 2) => String(n).padStart(size, '0');
  return `${p(w.year, 4)}${p(w.month)}${p(w.day)}T${p(w.hour)}${p(w.minute)}${p(w.second)}`;
}

/** Instant `ms` as ISO 8601 on the wall clock of `timeZone` with its offset (`2026-06-12T21:00:00+01:00`), as schema.org dates are written. */
export function isoWithOffset(ms: number, timeZone: string): string {
  const w = wallTimeAt(ms, timeZone);
  const p = (n: number, size = 2) => String(n).padStart(size, '0');
  const offset = Math.round(offsetAt(ms, timeZone) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const zone = `${sign}${p(Math.floor(Math.abs(offset) / 60))}:${p(Math.abs(offset) % 60)}`;
  return `${p(w.year, 4)}-${p(w.month)}-${p(w.day)}T${p(w.hour)}:${p(w.minute)}:${p(w.second)}${zone}`;
}
