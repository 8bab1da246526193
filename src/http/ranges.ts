/**
 * Byte ranges (RFC 9110 §14): what part of a body a `Range` header asks for. One range is answered with 206;
 * a header of another unit, several ranges or one that cannot be read is ignored (the whole body, 200, as the RFC
 * allows); a range that starts past the end is unsatisfiable (416). PMTiles clients read an archive this way.
 */

/** One range of bytes, both ends included. */
export interface ByteRange { start: number; end: number }

/** The range a `Range` header asks of a body of `size` bytes: one range, `unsatisfiable`, or null for the whole body. */
export function parseRange(header: string, size: number): ByteRange | 'unsatisfiable' | null {
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    // A suffix: the last n bytes.
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const last = m[2] === '' ? Infinity : Number(m[2]);
  if (!Number.isSafeInteger(start) || last < start || (last !== Infinity && !Number.isSafeInteger(last))) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}

/**
 * True when an `If-Range` value lets a range be sent: it names the current representation's entity tag, strongly
 * (a date, or any other tag, asks for the whole body).
 */
export function ifRangeAllows(ifRange: string | null, etag: string): boolean {
  if (ifRange === null) return true;
  const tag = ifRange.trim();
  return !tag.startsWith('W/') && tag === etag;
}
