/**
 * The one reading of a request's query. The response cache's key (`cacheKey`) and the route's parameters
 * (`parseParams`) are both made from it, so they never read the same target differently: were they read by two
 * parsers, a target on which they disagree would store the answer to one question under the key of another.
 */

/** One parameter of a query: the part as sent (between `&`s), and its name and value as URLSearchParams decodes them. */
export interface QueryEntry {
  readonly raw: string;
  readonly name: string;
  readonly value: string;
}

const NO_ENTRIES: readonly QueryEntry[] = [];

/**
 * Where a target's path ends: at its first `?` or `#`, else at its end. The query runs from there (after a `?`)
 * to the first `#`; a `#` before any `?` leaves no query, and what follows a `#` (a fragment, which node:http
 * passes on as sent) is never part of it.
 */
export function pathEnd(target: string): number {
  for (let i = 0; i < target.length; i++) {
    const c = target.charCodeAt(i);
    if (c === 0x3f || c === 0x23) return i;
  }
  return target.length;
}

/**
 * The parameters of a target's query, in the order sent: its parts between `&`s, empty ones skipped, each
 * split at its first `=` and decoded as application/x-www-form-urlencoded (URLSearchParams): `+` is a space,
 * percent escapes are UTF-8 bytes, an escape that is not one (`%zz`, a lone `%`) stays as it is, and bytes
 * that are not UTF-8 become U+FFFD.
 */
export function readQuery(target: string): readonly QueryEntry[] {
  const q = pathEnd(target);
  if (q === target.length || target.charCodeAt(q) !== 0x3f) return NO_ENTRIES;
  let end = target.indexOf('#', q + 1);
  if (end < 0) end = target.length;
  const entries: QueryEntry[] = [];
  for (let start = q + 1; start < end;) {
    let amp = target.indexOf('&', start);
    if (amp < 0 || amp > end) amp = end;
    if (amp > start) {
      const raw = target.slice(start, amp);
      const eq = raw.indexOf('=');
      entries.push(eq < 0 ? { raw, name: formDecode(raw), value: '' } : { raw, name: formDecode(raw.slice(0, eq)), value: formDecode(raw.slice(eq + 1)) });
    }
    start = amp + 1;
  }
  return entries;
}

/** A name or value as application/x-www-form-urlencoded decodes it (see readQuery). */
function formDecode(s: string): string {
  const spaced = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!spaced.includes('%')) return spaced;
  try {
    // Equal to the lenient decoding below wherever it succeeds: every escape well formed, the bytes UTF-8.
    return decodeURIComponent(spaced);
  } catch {
    return lenientDecode(spaced);
  }
}

const encoder = new TextEncoder();
/** UTF-8 decode "without BOM" (a leading U+FEFF is kept), bad bytes as U+FFFD. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Percent-decoding of the string's UTF-8 bytes, an escape that is not one kept as it is (the URL Standard's). */
function lenientDecode(s: string): string {
  const bytes = encoder.encode(s);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const high = i + 2 < bytes.length && bytes[i] === 0x25 ? hexValue(bytes[i + 1]) : -1;
    const low = high < 0 ? -1 : hexValue(bytes[i + 2]);
    if (low < 0) bytes[n++] = bytes[i];
    else {
      bytes[n++] = high * 16 + low;
      i += 2;
    }
  }
  return decoder.decode(bytes.subarray(0, n));
}

/** The value of an ASCII hex digit, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}
