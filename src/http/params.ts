/**
 * Shared valibot pieces for path and query parameters. Each turns the raw string (or undefined) into
 * a typed value, or fails with a reason that reads after the parameter's name ("limit must be ...").
 */
import * as v from 'valibot';
import { foldedWords, MAX_QUERY_LENGTH, MAX_QUERY_WORDS } from '../content/model/text-search.ts';
import { parseTimestamp } from '../content/rfc3339.ts';
import type { Bbox, Near } from '../geo/point-index.ts';

/** Canonical 8-4-4-4-12 hex form, any letter case. */
export const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** At most this many items in one comma-separated parameter. */
export const MAX_LIST_ITEMS = 100;

const UUID_REASON = 'must be a UUID in the 8-4-4-4-12 hex form';
const REQUIRED = 'is required';

/** A required UUID, emitted lowercase. */
export function uuid(description: string) {
  return v.pipe(v.string(REQUIRED), v.regex(UUID_RE, UUID_REASON), v.toLowerCase(), v.description(description));
}

/** An optional UUID. */
export function optionalUuid(description: string) {
  return v.optional(uuid(description));
}

/** A section flag: `true` asks for it, `false` or absence does not, anything else is an error. */
export function flag(description: string) {
  return v.optional(
    v.pipe(v.picklist(['true', 'false'], 'must be true or false'), v.transform((s) => s === 'true'), v.description(description)),
    'false',
  );
}

function intSchema(min: number, max: number, description: string) {
  const reason = `must be an integer from ${min} to ${max}`;
  return v.pipe(
    v.string(),
    // What OpenAPI shows: the value as an integer, not the string it arrives as (see routes/openapi-document.ts).
    v.metadata({ openapi: { type: 'integer', minimum: min, maximum: max } }),
    v.regex(/^-?\d+$/, reason),
    v.transform(Number),
    v.minValue(min, reason),
    v.maxValue(max, reason),
    v.description(description),
  );
}

/** A required base-10 integer in [min, max] (a path parameter). */
export function requiredInt(min: number, max: number, description: string) {
  return intSchema(min, max, description);
}

/** A base-10 integer in [min, max], `fallback` when absent. */
export function int(min: number, max: number, fallback: number, description: string) {
  return v.optional(intSchema(min, max, description), String(fallback));
}

/** An optional base-10 integer in [min, max]. */
export function optionalInt(min: number, max: number, description: string) {
  return v.optional(intSchema(min, max, description));
}

const LOCAL_TIME_RE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** A date with no time: `2026-12-24`. */
const DATE_ONLY_RE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * An optional RFC 3339 timestamp, parsed to epoch milliseconds. A date alone is 00:00 UTC that day where the
 * timestamp starts a window (`edge: 'start'`), and the day's last millisecond (23:59:59.999 UTC) where it ends
 * one (`edge: 'end'`), so `from=D&to=D` is the whole of day D, as people read it.
 */
export function timestamp(description: string, edge: 'start' | 'end' = 'start') {
  return v.optional(
    v.pipe(
      v.string(),
      v.check((s) => parseTimestamp(s) !== null, (issue) => LOCAL_TIME_RE.test(String(issue.input))
        ? 'has no time zone offset; add Z or an offset such as +01:00'
        : 'must be an RFC 3339 date-time with Z or an offset (2026-12-24T18:00:00Z), or a date (2026-12-24)'),
      v.transform((s) => parseTimestamp(s)! + (edge === 'end' && DATE_ONLY_RE.test(s) ? DAY_MS - 1 : 0)),
      v.description(description),
    ),
  );
}

/** An optional instant: an RFC 3339 date-time with Z or an offset (a date alone names no instant), as epoch milliseconds. */
export function instant(description: string) {
  return v.optional(
    v.pipe(
      v.string(),
      v.check((s) => parseTimestamp(s) !== null && !DATE_ONLY_RE.test(s), (issue) => LOCAL_TIME_RE.test(String(issue.input))
        ? 'has no time zone offset; add Z or an offset such as +01:00'
        : 'must be an RFC 3339 date-time with Z or an offset, such as 2026-12-24T18:00:00Z'),
      v.transform((s) => parseTimestamp(s)!),
      v.description(description),
    ),
  );
}

/**
 * An optional search by name (`q`): its words, folded (case and accents dropped; text-search.ts), repeats
 * collapsed. At most MAX_QUERY_LENGTH characters and MAX_QUERY_WORDS words, with at least one letter or digit.
 */
export function searchQuery(description: string) {
  return v.optional(v.pipe(
    v.string(),
    v.maxLength(MAX_QUERY_LENGTH, `must be at most ${MAX_QUERY_LENGTH} characters`),
    v.transform((s) => [...new Set(foldedWords(s))]),
    v.check((words) => words.length > 0, 'must hold at least one letter or digit'),
    v.check((words) => words.length <= MAX_QUERY_WORDS, `must have at most ${MAX_QUERY_WORDS} words`),
    v.description(description),
  ));
}

/** Splits a comma list: spaces trimmed, empty items dropped, repeats collapsed in first-seen order. */
export function splitList(s: string): string[] {
  return [...new Set(s.split(',').map((x) => x.trim()).filter((x) => x.length > 0))];
}

/** A required comma-separated list of UUIDs (lowercased, at least one). */
export function uuidList(description: string) {
  return v.pipe(
    v.string(REQUIRED),
    // Lowercase first, so the same id in another letter case is a repeat, collapsed before counting.
    v.transform((s) => splitList(s.toLowerCase())),
    v.check((xs) => xs.length > 0, 'must list at least one UUID'),
    v.check((xs) => xs.length <= MAX_LIST_ITEMS, `must have at most ${MAX_LIST_ITEMS} items`),
    v.check((xs) => xs.every((x) => UUID_RE.test(x)), (issue) => {
      const bad = (issue.input as string[]).find((x) => !UUID_RE.test(x));
      return `must be a comma-separated list of UUIDs; "${bad}" is not one`;
    }),
    v.description(description),
  );
}

/**
 * An optional comma-separated list of free-text values, compared case-insensitively. A value with no
 * items (`tags=`) is the same as leaving the parameter out: no filter.
 */
export function textList(description: string) {
  return v.optional(v.pipe(
    v.string(),
    v.transform((s) => splitList(s.toLowerCase())),
    v.check((xs) => xs.length <= MAX_LIST_ITEMS, `must have at most ${MAX_LIST_ITEMS} items`),
    v.transform((xs) => (xs.length > 0 ? xs : undefined)),
    v.description(description),
  ));
}

const NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function parseNumbers(s: string, count: number): number[] | null {
  const parts = s.split(',').map((x) => x.trim());
  if (parts.length !== count || !parts.every((x) => NUMBER_RE.test(x))) return null;
  return parts.map(Number);
}

/** The two coordinate orders, named in every message about either: they differ, and people mix them up. */
const BBOX_ORDER = 'bbox is west,south,east,north (longitude first), while near is lat,lng (latitude first)';
const NEAR_ORDER = 'near is lat,lng (latitude first), while bbox is west,south,east,north (longitude first)';

/**
 * An OGC API `bbox`: four numbers as `bbox` takes them, or six with heights (`west,south,min height,east,north,max
 * height`, as OGC API Features allows), whose heights are read and left aside (every feature here lies on the ground).
 */
export function ogcBbox(description: string) {
  const flat = (s: string): string => {
    const parts = s.split(',');
    return parts.length === 6 ? [parts[0], parts[1], parts[3], parts[4]].join(',') : s;
  };
  const problem = (s: string): string | null => {
    if (s.split(',').length === 6 && !parseNumbers(s, 6)) return `must be four numbers, or six with heights: ${BBOX_ORDER}`;
    return bboxProblem(flat(s));
  };
  return v.optional(v.pipe(
    v.string(),
    v.check((s) => problem(s) === null, (issue) => problem(String(issue.input))!),
    v.transform((s): Bbox => {
      const [west, south, east, north] = parseNumbers(flat(s), 4)!;
      return { west, south, east, north };
    }),
    v.description(description),
  ));
}

/** Why a bbox string is invalid, or null when it is valid. */
export function bboxProblem(s: string): string | null {
  const n = parseNumbers(s, 4);
  if (!n) return `must be four numbers: ${BBOX_ORDER}`;
  const [w, so, e, no] = n;
  if ([w, e].some((x) => x < -180 || x > 180)) return `longitudes (west, east) must be within [-180, 180]; ${BBOX_ORDER}`;
  if ([so, no].some((x) => x < -90 || x > 90)) {
    const swapped = [w, e].every((x) => x >= -90 && x <= 90);
    return `latitudes (south, north) must be within [-90, 90]; ${BBOX_ORDER}${swapped ? '. Were latitude and longitude swapped?' : ''}`;
  }
  if (so > no) return `south must not be greater than north; ${BBOX_ORDER}`;
  return null;
}

/** An optional `west,south,east,north` box; `west > east` crosses the antimeridian. */
export function bbox(description: string) {
  return v.optional(v.pipe(
    v.string(),
    v.check((s) => bboxProblem(s) === null, (issue) => bboxProblem(String(issue.input))!),
    v.transform((s): Bbox => {
      const [west, south, east, north] = parseNumbers(s, 4)!;
      return { west, south, east, north };
    }),
    v.description(description),
  ));
}

/** Why a near string is invalid, or null when it is valid. */
export function nearProblem(s: string): string | null {
  const n = parseNumbers(s, 2);
  if (!n) return `must be two numbers: ${NEAR_ORDER}`;
  if (n[0] < -90 || n[0] > 90) {
    const swapped = n[1] >= -90 && n[1] <= 90;
    return `latitude must be within [-90, 90]; ${NEAR_ORDER}${swapped ? '. Were latitude and longitude swapped?' : ''}`;
  }
  if (n[1] < -180 || n[1] > 180) return `longitude must be within [-180, 180]; ${NEAR_ORDER}`;
  return null;
}

/** An optional `lat,lng` point. */
export function near(description: string) {
  return v.optional(v.pipe(
    v.string(),
    v.check((s) => nearProblem(s) === null, (issue) => nearProblem(String(issue.input))!),
    v.transform((s): Omit<Near, 'radiusM'> => {
      const [lat, lng] = parseNumbers(s, 2)!;
      return { lat, lng };
    }),
    v.description(description),
  ));
}

/** An optional decimal coordinate within [min, max] (publisher maps' lat and lng). */
export function coordinate(min: number, max: number, description: string) {
  const reason = `must be a number from ${min} to ${max}`;
  return v.optional(v.pipe(
    v.string(),
    v.regex(NUMBER_RE, reason),
    v.transform(Number),
    v.minValue(min, reason),
    v.maxValue(max, reason),
    v.description(description),
  ));
}

/** An optional value from a fixed set. */
/**
 * A comma list of some of `values` (case-insensitive; spaces, empty items and repeats dropped as in every list), or
 * `all` alone for every one of them: the list, or the word `all`. A value not among them names itself and the values
 * allowed.
 */
export function someOf<const T extends readonly [string, ...string[]]>(values: T, description: string) {
  return v.optional(v.pipe(
    v.string(),
    v.transform((s) => splitList(s.toLowerCase())),
    v.check((xs) => xs.length <= MAX_LIST_ITEMS, `must have at most ${MAX_LIST_ITEMS} items`),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const list = dataset.value;
      if (list.includes('all') && list.length > 1) addIssue({ message: 'all stands alone: it already means every one of them' });
      const unknown = [...new Set(list.filter((x) => x !== 'all' && !values.includes(x)))];
      if (unknown.length > 0) addIssue({ message: `${unknown.map((x) => JSON.stringify(x)).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not one of ${values.join(', ')} (or all)` });
    }),
    // An empty list (`status=`) is the parameter left out, as for the other lists.
    v.transform((xs): 'all' | T[number][] | undefined => (xs.length === 0 ? undefined : xs[0] === 'all' ? 'all' : xs as T[number][])),
    v.description(description),
  ));
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T, description: string) {
  return v.optional(v.pipe(v.picklist(values, `must be one of ${values.join(', ')}`), v.description(description)));
}

/** A time interval in epoch milliseconds, ends included; an open end is -Infinity or Infinity. */
export interface Interval { from: number; to: number }

const INTERVAL_FORM = 'must be an RFC 3339 date-time with Z or an offset, a date, or an interval of them such as ' +
  '2026-06-01T00:00:00Z/2026-06-30T23:59:59Z, with .. (or nothing) for an open end';

/** An OGC API `datetime` value as an interval, or why it is not one. A date alone is that whole day (UTC). */
function readInterval(s: string): Interval | string {
  const parts = s.split('/');
  if (parts.length > 2) return INTERVAL_FORM;
  const edge = (part: string, end: boolean): number | string => {
    if (parts.length === 2 && (part === '..' || part === '')) return end ? Infinity : -Infinity;
    const ms = parseTimestamp(part);
    if (ms === null) return LOCAL_TIME_RE.test(part) ? `has no time zone offset in "${part}"; add Z or an offset such as +01:00` : INTERVAL_FORM;
    return ms + (end && DATE_ONLY_RE.test(part) ? DAY_MS - 1 : 0);
  };
  const from = edge(parts[0], false);
  const to = edge(parts[parts.length - 1], true);
  if (typeof from === 'string') return from;
  if (typeof to === 'string') return to;
  return from <= to ? { from, to } : 'must not end before it starts';
}

/** An optional `datetime` (OGC API Features): an instant, a date, or an interval with `..` for an open end. */
export function datetimeInterval(description: string) {
  return v.optional(v.pipe(
    v.string(),
    // Read once: the interval and the text (for the links that repeat the query), or why it is none.
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const read = readInterval(dataset.value);
      if (typeof read === 'string') {
        addIssue({ message: read });
        return NEVER;
      }
      return { ...read, text: dataset.value };
    }),
    v.description(description),
  ));
}
