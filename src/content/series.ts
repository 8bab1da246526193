/**
 * Recurring series: an event of the bundle with a `recurrence` (RFC 5545's RRULE, RDATE and EXDATE) is expanded
 * into its occurrences, each an event of its own, once per content version when it is published, never per request
 * (docs/bundle-format.md, Recurring series). The rule runs on the map's local clock (`rrule-temporal`): 10:00 every
 * Sunday in Lisbon stays 10:00 across both clock changes, and an occurrence the rule makes inside a clock change's
 * gap is left out, as RFC 5545 says. A series without an end (no COUNT, no UNTIL) is expanded up to its horizon:
 * `horizonDays` after the publish in which the series last changed (`anchorMs`), so a publish that leaves it alone
 * adds no occurrence to it.
 *
 * An occurrence's id is the version 5 UUID of its original start (RFC 3339, UTC, to the second or millisecond as
 * `toUtc` writes it) in the namespace of the series id, so it stays the same from publish to publish; an override
 * (`overrides[]`, by original start, as RECURRENCE-ID does) changes one occurrence's start, end, texts, status or
 * anchors and keeps its id.
 */
import { RRuleTemporal } from 'rrule-temporal';
import type { EventT, StoredEvent } from './bundle/bundle-schema.ts';
import { statusRules } from './bundle/event-rules.ts';
import { toUtc } from './rfc3339.ts';
import { icalWall, instantsOfWall, offsetAt, wallTimeAt } from '../utils/zoned-time.ts';
import { addDaysToDate, allDayBounds, dayStartMs, hasEnd, occurrenceId, ruleOf, SERIES_HORIZON_DAYS } from './series-dates.ts';

export { addDaysToDate, allDayBounds, dayStartMs, hasEnd, occurrenceId, parseHorizonDays, ruleOf, SERIES_HORIZON_DAYS } from './series-dates.ts';

const DAY_MS = 86_400_000;

/** The most occurrences one series may have: a rule that makes more is refused (give it an end, or a later start). */
export const MAX_OCCURRENCES = 5_000;

/** `check` warns about a series whose occurrences end this soon after it is published (days). */
export const HORIZON_WARNING_DAYS = 90;

/** An all-day event as stored and served: its days' bounds as instants in `timeZone`, and its dates beside them. */
function allDayEvent<T extends StoredEvent>(doc: T, startDate: string, endDate: string, timeZone: string): T {
  return { ...doc, ...allDayBounds(startDate, endDate, timeZone), all_day: true, start_date: startDate, end_date: endDate };
}

/**
 * The events stored for event `doc` of a map in `timeZone`: a series' occurrences (`expandSeries`), an all-day
 * event with its days' bounds, any other event as it is. Throws on a series `check` would refuse.
 */
export function storedEvents(doc: EventT, timeZone: string, anchorMs: number, horizonDays = SERIES_HORIZON_DAYS): StoredEvent[] {
  if (doc.recurrence) {
    const expansion = expandSeries(doc, timeZone, anchorMs, horizonDays);
    if (expansion.problems.length > 0) throw new Error(`series ${doc.id}: ${expansion.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
    return expansion.occurrences;
  }
  return doc.all_day ? [allDayEvent(doc, doc.starts_at, doc.ends_at, timeZone)] : [doc];
}

/** A problem or warning about a part of a series, by its path inside the event (`recurrence.rule`, `overrides[2].original_start`). */
export interface SeriesFinding { path: string; message: string }

/** What expanding a series gives. */
export interface Expansion {
  /** The occurrences as events of their own (no `recurrence`, no `overrides`), by original start. */
  occurrences: StoredEvent[];
  /** What makes the series wrong: with any, `occurrences` is empty. */
  problems: SeriesFinding[];
  /** What readers of the series may disagree on, or what ends soon. */
  warnings: SeriesFinding[];
  /** Where the expansion of a series without an end stops; null for a series with one. */
  horizonEndMs: number | null;
}

const RULE_PARTS = new Set(['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYSECOND', 'BYMINUTE', 'BYHOUR', 'BYDAY', 'BYMONTHDAY', 'BYYEARDAY',
  'BYWEEKNO', 'BYMONTH', 'BYSETPOS', 'WKST']);
const FREQS = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY', 'MINUTELY', 'SECONDLY'];
const WEEKDAY = '(MO|TU|WE|TH|FR|SA|SU)';
/** Each numeric part's range (RFC 5545 §3.3.10), signed where the RFC allows counting from the end. */
const NUMBER_PARTS: Record<string, [number, number, boolean]> = {
  BYSECOND: [0, 60, false], BYMINUTE: [0, 59, false], BYHOUR: [0, 23, false], BYMONTHDAY: [1, 31, true], BYYEARDAY: [1, 366, true],
  BYWEEKNO: [1, 53, true], BYMONTH: [1, 12, false], BYSETPOS: [1, 366, true],
};

/** What is wrong with an RRULE value, part by part (empty when nothing is). */
export function ruleProblems(rule: string): string[] {
  const out: string[] = [];
  const text = rule.replace(/^RRULE:/i, '');
  const parts = new Map<string, string>();
  for (const piece of text.split(';')) {
    const m = /^([A-Za-z]+)=(.+)$/.exec(piece.trim());
    if (!m) { out.push(`"${piece}" is not a NAME=VALUE part`); continue; }
    const name = m[1].toUpperCase();
    if (!RULE_PARTS.has(name)) { out.push(`${name} is not a part of RFC 5545's RRULE (${[...RULE_PARTS].join(', ')})`); continue; }
    if (parts.has(name)) out.push(`${name} is given twice`);
    parts.set(name, m[2].toUpperCase());
  }
  const freq = parts.get('FREQ');
  if (freq === undefined) out.push('FREQ is required (YEARLY, MONTHLY, WEEKLY, DAILY, …)');
  else if (!FREQS.includes(freq)) out.push(`FREQ=${freq} is not one of ${FREQS.join(', ')}`);
  if (parts.has('COUNT') && parts.has('UNTIL')) out.push('COUNT and UNTIL are given together: RFC 5545 allows one of them');
  for (const name of ['COUNT', 'INTERVAL']) {
    const value = parts.get(name);
    if (value !== undefined && !/^[1-9]\d{0,5}$/.test(value)) out.push(`${name}=${value} must be a whole number of at least 1`);
  }
  const until = parts.get('UNTIL');
  if (until !== undefined && !/^\d{8}T\d{6}Z$/.test(until)) {
    out.push(`UNTIL=${until} must be a UTC date-time such as 20271231T235959Z (RFC 5545: UTC when the start has a time zone)`);
  }
  const byday = parts.get('BYDAY');
  if (byday !== undefined) {
    for (const day of byday.split(',')) {
      if (!new RegExp(`^([+-]?([1-9]|[1-4][0-9]|5[0-3]))?${WEEKDAY}$`).test(day)) {
        out.push(`BYDAY has "${day}": each day is MO, TU, WE, TH, FR, SA or SU, with an optional ordinal (1FR, -1SU)`);
      }
    }
  }
  const wkst = parts.get('WKST');
  if (wkst !== undefined && !new RegExp(`^${WEEKDAY}$`).test(wkst)) out.push(`WKST=${wkst} must be one of MO, TU, WE, TH, FR, SA, SU`);
  for (const [name, [min, max, signed]] of Object.entries(NUMBER_PARTS)) {
    const value = parts.get(name);
    if (value === undefined) continue;
    for (const item of value.split(',')) {
      const n = Number(item);
      const ok = /^[+-]?\d+$/.test(item) && Math.abs(n) >= min && Math.abs(n) <= max && (signed ? n !== 0 : n >= 0);
      if (!ok) out.push(`${name} has "${item}": each value is ${signed ? `${min} to ${max}, or -${max} to -${min} from the end` : `${min} to ${max}`}`);
    }
  }
  return out;
}

/** What `check` says of a series whose horizon (null: it has an end) ends within HORIZON_WARNING_DAYS of `nowMs`; null when it does not. */
export function horizonWarning(horizonEndMs: number | null, horizonDays: number, nowMs: number): string | null {
  if (horizonEndMs === null || horizonEndMs - nowMs >= HORIZON_WARNING_DAYS * DAY_MS) return null;
  return `has no end, and its occurrences stop at its horizon, ${toUtc(horizonEndMs)} (${horizonDays} days after the publish in which the ` +
    'series last changed): publish the series changed to move it, or give the rule an end';
}

/**
 * The starts (ms) the rule `rruleString` (DTSTART and RRULE lines) makes from `fromMs`: all of them for a rule with an
 * end, else up to `horizonEndMs`; null, with the problem in `problems`, for a rule that cannot be read or makes too
 * many. A rule with an end is expanded by all() without a callback (a callback makes it ten times slower); the
 * library's own bound on the periods it walks, or the count checked after, stops one that makes too many.
 */
function ruleStarts(rruleString: string, fromMs: number, horizonEndMs: number | null, problems: SeriesFinding[]): number[] | null {
  let starts: number[];
  try {
    const rr = new RRuleTemporal({ rruleString, cache: false });
    starts = (horizonEndMs === null ? rr.all() : rr.between(new Date(fromMs), new Date(horizonEndMs), true)).map((d) => d.epochMilliseconds);
  } catch (err) {
    // The library's own bound on its work: a rule that makes that many candidates makes too many occurrences.
    const message = (err as Error).message;
    problems.push({ path: 'recurrence.rule', message: /Maximum (iterations|candidate)/i.test(message) ? tooMany(horizonEndMs) : `cannot be read: ${message}` });
    return null;
  }
  if (starts.length <= MAX_OCCURRENCES) return starts;
  problems.push({ path: 'recurrence.rule', message: tooMany(horizonEndMs) });
  return null;
}

/** A series' overrides by their original start (`keyOf`), each once and each an occurrence of `all`; the others are `problems`. */
function overridesByStart(doc: EventT, keyOf: (originalStart: string) => number, all: ReadonlySet<number>, describe: (originalStart: string) => string,
  problems: SeriesFinding[]): Map<number, { o: NonNullable<EventT['overrides']>[number]; k: number }> {
  const overrides = new Map<number, { o: NonNullable<EventT['overrides']>[number]; k: number }>();
  (doc.overrides ?? []).forEach((o, k) => {
    const ms = keyOf(o.original_start);
    if (!all.has(ms)) problems.push({ path: `overrides[${k}].original_start`, message: `${describe(o.original_start)} is no occurrence of the series` });
    else if (overrides.has(ms)) problems.push({ path: `overrides[${k}].original_start`, message: `${o.original_start} is overridden twice (first by overrides[${overrides.get(ms)!.k}])` });
    else overrides.set(ms, { o, k });
  });
  return overrides;
}

/** Why a rule that makes too many occurrences is refused. */
const tooMany = (horizonEndMs: number | null) => `makes more than ${MAX_OCCURRENCES.toLocaleString('en')} occurrences` +
  `${horizonEndMs === null ? '' : ` before its horizon (${toUtc(horizonEndMs)})`}: give it an end (COUNT or UNTIL) or a coarser frequency`;

/** Whether a series breaks the rules between status and visitor fields itself (reported at the series, once). */
function breaksStatusRules(doc: EventT): boolean {
  let broken = false;
  statusRules(doc, '', () => { broken = true; });
  return broken;
}

/**
 * The rules between status and visitor fields (event-rules.ts) on an occurrence as its override made it, each problem
 * at the override; not when the series breaks them already (then every occurrence would repeat the series' problem).
 */
function occurrenceRules(occurrence: StoredEvent, k: number, seriesBreaks: boolean, problems: SeriesFinding[]): void {
  if (!seriesBreaks) statusRules(occurrence, `overrides[${k}]`, (path, message) => problems.push({ path, message }));
}

/** The whole event of a series as its occurrences carry it: everything but the recurrence and the overrides. */
function seriesFields(doc: EventT): Omit<EventT, 'recurrence' | 'overrides'> {
  const { recurrence: _r, overrides: _o, ...rest } = doc;
  return rest;
}

/** The wall time of `ms` in `timeZone`, written as people read it: `2027-03-28 01:30`. */
function wallText(ms: number, timeZone: string): string {
  const w = wallTimeAt(ms, timeZone);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${w.year}-${p(w.month)}-${p(w.day)} ${p(w.hour)}:${p(w.minute)}${w.second ? `:${p(w.second)}` : ''}`;
}

/**
 * Expands series `doc` (an event with a `recurrence`) on the local clock of `timeZone`; a series without an end up
 * to `anchorMs` plus `horizonDays`. Checks as it goes what `check` refuses and warns about (see the file's comment).
 */
export function expandSeries(doc: EventT, timeZone: string, anchorMs: number, horizonDays = SERIES_HORIZON_DAYS, checkOnly = false): Expansion {
  const problems: SeriesFinding[] = [];
  const warnings: SeriesFinding[] = [];
  const none = (horizonEndMs: number | null = null): Expansion => ({ occurrences: [], problems, warnings, horizonEndMs });
  const recurrence = doc.recurrence!;
  for (const message of ruleProblems(recurrence.rule)) problems.push({ path: 'recurrence.rule', message: `is not a rule RFC 5545 allows: ${message}` });
  if (doc.all_day) return expandAllDay(doc, timeZone, anchorMs, horizonDays, problems, warnings, checkOnly);
  const startMs = Date.parse(doc.starts_at);
  const durationMs = Date.parse(doc.ends_at) - startMs;
  const wall = wallTimeAt(startMs, timeZone);
  if (instantsOfWall(wall, timeZone).length > 1) {
    problems.push({ path: 'starts_at', message: `is ${wallText(startMs, timeZone)} in ${timeZone}, a time the clocks pass twice that day: ` +
      'readers of the rule disagree on which is meant; start the series at a time that occurs once' });
  }
  if (problems.length > 0) return none();
  const rule = ruleOf(recurrence);
  const horizonEndMs = hasEnd(rule) ? null : anchorMs + horizonDays * DAY_MS;
  const starts = ruleStarts(`DTSTART;TZID=${timeZone}:${icalWall(wall)}\nRRULE:${rule}`, startMs, horizonEndMs, problems);
  if (starts === null) return none(horizonEndMs);
  if (starts[0] !== startMs) {
    problems.push({ path: 'starts_at', message: `(${wallText(startMs, timeZone)} in ${timeZone}) is not an occurrence of the rule ` +
      `${rule}: start the series on its first occurrence (readers disagree on counting a start the rule does not make)` });
    return none(horizonEndMs);
  }
  const all = new Set(starts);
  (recurrence.rdates ?? []).forEach((d) => all.add(Date.parse(d)));
  (recurrence.exdates ?? []).forEach((d, k) => {
    const ms = Date.parse(d);
    if (!all.delete(ms)) {
      warnings.push({ path: `recurrence.exdates[${k}]`, message: `${d} (${wallText(ms, timeZone)} in ${timeZone}) is no occurrence of the series: it excludes nothing` });
    }
  });
  const originals = [...all].sort((a, b) => a - b);
  if (originals.length === 0) {
    problems.push({ path: 'recurrence', message: `leaves the series no occurrence${horizonEndMs === null ? '' : ` before its horizon (${toUtc(horizonEndMs)})`}` });
    return none(horizonEndMs);
  }
  const overrides = overridesByStart(doc, Date.parse, all, (d) => `${d} (${wallText(Date.parse(d), timeZone)} in ${timeZone})`, problems);
  const base = seriesFields(doc);
  const seriesBreaks = breaksStatusRules(doc);
  const occurrences: StoredEvent[] = [];
  for (const original of originals) {
    // Checking alone (`checkOnly`, as check does) makes only the overridden occurrences, the ones it tests.
    if (checkOnly && !overrides.has(original)) continue;
    const occurrence: StoredEvent = { ...base, id: occurrenceId(doc.id, original), starts_at: toUtc(original), ends_at: toUtc(original + durationMs),
      series_id: doc.id, original_start: toUtc(original) };
    const found = overrides.get(original);
    if (found) {
      const { o, k } = found;
      const { original_start: _, starts_at, ends_at, ...fields } = o;
      Object.assign(occurrence, fields);
      if (starts_at !== undefined) {
        occurrence.starts_at = starts_at;
        if (ends_at === undefined) occurrence.ends_at = toUtc(Date.parse(starts_at) + durationMs);
      }
      if (ends_at !== undefined) occurrence.ends_at = ends_at;
      if (Date.parse(occurrence.ends_at) < Date.parse(occurrence.starts_at)) {
        problems.push({ path: `overrides[${k}].ends_at`, message: `${occurrence.ends_at} is earlier than the occurrence's start ${occurrence.starts_at}` });
      }
      // A rescheduled occurrence had its original start before.
      if (occurrence.status === 'rescheduled' && occurrence.previous_start === undefined) occurrence.previous_start = toUtc(original);
      occurrenceRules(occurrence, k, seriesBreaks, problems);
    }
    occurrences.push(occurrence);
  }
  if (problems.length > 0) return none(horizonEndMs);
  warnings.push(...clockChangeWarnings(rule, wall, timeZone, startMs, originals[originals.length - 1]));
  const soon = horizonWarning(horizonEndMs, horizonDays, Date.now());
  if (soon) warnings.push({ path: 'recurrence.rule', message: soon });
  return { occurrences, problems, warnings, horizonEndMs };
}

/**
 * `expandSeries` for an all-day series: the rule counts days (on a clock with no changes), and each occurrence is
 * its days, from the start of its first to the start of the day after its last in `timeZone`.
 */
function expandAllDay(doc: EventT, timeZone: string, anchorMs: number, horizonDays: number, problems: SeriesFinding[], warnings: SeriesFinding[],
  checkOnly: boolean): Expansion {
  const recurrence = doc.recurrence!;
  const notDate = (path: string, value: string) => problems.push({ path, message: `${value} must be a date (YYYY-MM-DD): the series is all-day` });
  (recurrence.rdates ?? []).forEach((d, k) => { if (d.length !== 10) notDate(`recurrence.rdates[${k}]`, d); });
  (recurrence.exdates ?? []).forEach((d, k) => { if (d.length !== 10) notDate(`recurrence.exdates[${k}]`, d); });
  (doc.overrides ?? []).forEach((o, k) => {
    for (const field of ['original_start', 'starts_at', 'ends_at'] as const) if (o[field] !== undefined && o[field]!.length !== 10) notDate(`overrides[${k}].${field}`, o[field]!);
  });
  const rule = ruleOf(recurrence);
  const horizonEndMs = hasEnd(rule) ? null : anchorMs + horizonDays * DAY_MS;
  const none = (): Expansion => ({ occurrences: [], problems, warnings, horizonEndMs });
  if (problems.length > 0) return none();
  const dateMs = (date: string) => Date.parse(`${date}T00:00:00Z`);
  const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const firstMs = dateMs(doc.starts_at);
  const days = Math.round((dateMs(doc.ends_at) - firstMs) / DAY_MS) + 1;
  const starts = ruleStarts(`DTSTART;TZID=UTC:${doc.starts_at.replace(/-/g, '')}T000000\nRRULE:${rule}`, firstMs, horizonEndMs, problems);
  if (starts === null) return none();
  if (starts[0] !== firstMs) {
    problems.push({ path: 'starts_at', message: `(${doc.starts_at}) is not a day of the rule ${rule}: start the series on its first occurrence` });
    return none();
  }
  const all = new Set(starts);
  (recurrence.rdates ?? []).forEach((d) => all.add(dateMs(d)));
  (recurrence.exdates ?? []).forEach((d, k) => {
    if (!all.delete(dateMs(d))) warnings.push({ path: `recurrence.exdates[${k}]`, message: `${d} is no day of the series: it excludes nothing` });
  });
  const originals = [...all].sort((a, b) => a - b);
  if (originals.length === 0) {
    problems.push({ path: 'recurrence', message: 'leaves the series no occurrence' });
    return none();
  }
  const overrides = overridesByStart(doc, dateMs, all, (d) => d, problems);
  const base = seriesFields(doc);
  const seriesBreaks = breaksStatusRules(doc);
  const occurrences: StoredEvent[] = (checkOnly ? originals.filter((o) => overrides.has(o)) : originals).map((original) => {
    const date = dateOf(original);
    let startDate = date;
    let endDate = addDaysToDate(date, days - 1);
    const found = overrides.get(original);
    const fields: Partial<StoredEvent> = {};
    if (found) {
      const { original_start: _, starts_at, ends_at, ...rest } = found.o;
      Object.assign(fields, rest);
      if (starts_at !== undefined) [startDate, endDate] = [starts_at, ends_at ?? addDaysToDate(starts_at, days - 1)];
      else if (ends_at !== undefined) endDate = ends_at;
      if (endDate < startDate) problems.push({ path: `overrides[${found.k}].ends_at`, message: `${endDate} is before the occurrence's first day ${startDate}` });
      if (fields.status === 'rescheduled' && fields.previous_start === undefined) fields.previous_start = toUtc(dayStartMs(date, timeZone));
    }
    const occurrence = allDayEvent({ ...base, ...fields, id: occurrenceId(doc.id, date), series_id: doc.id, original_start: date } as StoredEvent, startDate, endDate, timeZone);
    if (found) occurrenceRules(occurrence, found.k, seriesBreaks, problems);
    return occurrence;
  });
  if (problems.length > 0) return none();
  return { occurrences, problems, warnings, horizonEndMs };
}

/**
 * Warnings for the clock changes within [fromMs, toMs] where the rule's local time falls in the gap (the service
 * leaves the occurrence out, as RFC 5545 says; ical.js and some calendars keep it an hour later) or in the overlap
 * (the service serves the first of the two times).
 */
function clockChangeWarnings(rule: string, wall: ReturnType<typeof wallTimeAt>, timeZone: string, fromMs: number, toMs: number): SeriesFinding[] {
  const out: SeriesFinding[] = [];
  let floating: RRuleTemporal | null = null;
  // A rule that sets no time of day (no BYHOUR, BYMINUTE, BYSECOND, nor a frequency under a day) keeps its start's:
  // only a change whose skipped or repeated hour holds that time can touch it.
  const timeOfDay = /(^|;)(BYHOUR|BYMINUTE|BYSECOND)=|FREQ=(HOURLY|MINUTELY|SECONDLY)/.test(rule) ? null : (wall.hour * 60 + wall.minute) * 60_000 + wall.second * 1000;
  for (const change of clockChanges(timeZone, fromMs, toMs)) {
    if (timeOfDay !== null) {
      const local = change.atMs + change.before;
      const [low, high] = [local + Math.min(0, change.after - change.before), local + Math.max(0, change.after - change.before)];
      const day = Math.floor(low / DAY_MS) * DAY_MS;
      const at = day + timeOfDay;
      const atNext = at + DAY_MS;
      if (!((at >= low && at < high) || (atNext >= low && atNext < high))) continue;
    }
    // The rule on a clock with no changes (UTC standing in for the local clock): the local times it asks for that day.
    floating ??= new RRuleTemporal({ rruleString: `DTSTART;TZID=UTC:${icalWall(wall)}\nRRULE:${rule}`, cache: false });
    const localChange = change.atMs + change.before;
    const asked = floating.between(new Date(localChange - DAY_MS), new Date(localChange + DAY_MS), true).map((d) => d.epochMilliseconds);
    const [low, high] = [localChange + Math.min(0, change.after - change.before), localChange + Math.max(0, change.after - change.before)];
    for (const local of asked) {
      if (local < low || local >= high) continue;
      // On the clock with no changes an instant's UTC reading is the local time asked for.
      const when = wallText(local, 'UTC');
      out.push({ path: 'recurrence.rule', message: change.after > change.before
        ? `asks for ${when} in ${timeZone}, which the clocks skip: that occurrence is left out (RFC 5545); some calendars (ical.js) show it an hour later`
        : `asks for ${when} in ${timeZone}, which the clocks pass twice: the service serves the first; calendars may differ` });
    }
  }
  return out;
}

/** Clock changes of a zone: the instant, and the offsets before and after (ms). */
interface ClockChange { atMs: number; before: number; after: number }

const changesKept = new Map<string, ClockChange[]>();

/** The clock changes of `timeZone` between two instants, found a day at a time and kept per zone and year. */
function clockChanges(timeZone: string, fromMs: number, toMs: number): ClockChange[] {
  const out: ClockChange[] = [];
  const firstYear = new Date(fromMs).getUTCFullYear();
  const lastYear = new Date(toMs).getUTCFullYear();
  for (let year = firstYear; year <= lastYear; year++) {
    const key = `${timeZone} ${year}`;
    let changes = changesKept.get(key);
    if (!changes) {
      changes = [];
      const start = Date.UTC(year, 0, 1);
      const end = Date.UTC(year + 1, 0, 1);
      let previous = offsetAt(start, timeZone);
      for (let t = start + DAY_MS; t <= end; t += DAY_MS) {
        const offset = offsetAt(t, timeZone);
        if (offset === previous) continue;
        // The change lies in (t - 1 day, t]: halve the day down to the second.
        let [lo, hi] = [t - DAY_MS, t];
        while (hi - lo > 1000) {
          const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
          if (offsetAt(mid, timeZone) === previous) lo = mid;
          else hi = mid;
        }
        changes.push({ atMs: hi, before: previous, after: offset });
        previous = offset;
      }
      changesKept.set(key, changes);
    }
    out.push(...changes.filter((c) => c.atMs >= fromMs - DAY_MS && c.atMs <= toMs + DAY_MS));
  }
  return out;
}
