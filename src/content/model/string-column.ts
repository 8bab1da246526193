/**
 * Strings packed as UTF-8 in one byte array, and a hash table over them: ids found by their bytes with no string
 * and no Map entry per id, in memory the garbage collector never traces (the event tables' ids, the POIs' ids).
 */
import { runNow, STRIDE, type Steps } from '../../utils/steps.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Strings packed as UTF-8 in one byte array; string i is bytes[offsets[i], offsets[i + 1]). */
export class StringColumn {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;

  constructor(bytes: Uint8Array, offsets: Uint32Array) {
    this.bytes = bytes;
    this.offsets = offsets;
  }

  /** A column of these strings. */
  static of(strings: readonly string[]): StringColumn {
    return runNow(StringColumn.ofSteps(strings));
  }

  /**
   * `of`, yielding as it goes: on a serving thread, a large version's POI ids encoded at once (an array made per
   * string) held every request (docs/decisions.md). Each string's UTF-8 length is counted first, then it is
   * written in place: an ASCII string (ids are) byte by byte, any other with `encodeInto`.
   */
  static *ofSteps(strings: readonly string[]): Steps<StringColumn> {
    const n = strings.length;
    const offsets = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) {
      offsets[i + 1] = offsets[i] + utf8Length(strings[i]);
      if ((i & (STRIDE - 1)) === 0) yield;
    }
    const bytes = new Uint8Array(offsets[n]);
    for (let i = 0; i < n; i++) {
      const s = strings[i];
      const at = offsets[i];
      if (offsets[i + 1] - at === s.length) for (let k = 0; k < s.length; k++) bytes[at + k] = s.charCodeAt(k);
      else encoder.encodeInto(s, bytes.subarray(at, offsets[i + 1]));
      if ((i & (STRIDE - 1)) === 0) yield;
    }
    return new StringColumn(bytes, offsets);
  }

  get(i: number): string {
    return decoder.decode(this.bytes.subarray(this.offsets[i], this.offsets[i + 1]));
  }

  /** True when string i has exactly these UTF-8 bytes. */
  equals(i: number, utf8: Uint8Array): boolean {
    const start = this.offsets[i];
    if (this.offsets[i + 1] - start !== utf8.length) return false;
    for (let k = 0; k < utf8.length; k++) if (this.bytes[start + k] !== utf8[k]) return false;
    return true;
  }

  /** FNV-1a over string i's bytes. */
  hash(i: number): number {
    return fnv1a(this.bytes, this.offsets[i], this.offsets[i + 1]);
  }
}

/** The length of `s` in UTF-8, as TextEncoder writes it (a lone surrogate becomes U+FFFD, three bytes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && k + 1 < s.length && (s.charCodeAt(k + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      k++;
    } else n += 3;
  }
  return n;
}

function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let k = start; k < end; k++) h = Math.imul(h ^ bytes[k], 0x01000193);
  return h >>> 0;
}

/** The size of the hash table over n strings: a power of two, at least twice n. */
export function slotCount(n: number): number {
  let size = 1;
  while (size < n * 2) size *= 2;
  return size;
}

/**
 * An open-addressing hash table over the column's first n strings (distinct): slot -> position + 1, 0 empty.
 * Yields as it goes.
 */
export function* slotsSteps(column: StringColumn, n: number): Steps<Int32Array> {
  const size = slotCount(n);
  const slots = new Int32Array(size);
  for (let i = 0; i < n; i++) {
    let slot = column.hash(i) & (size - 1);
    while (slots[slot] !== 0) slot = (slot + 1) & (size - 1);
    slots[slot] = i + 1;
    if ((i & (STRIDE - 1)) === 0) yield;
  }
  return slots;
}

/** The position of the string `s` in the column through its hash table (`slotsSteps`), or -1. */
export function findString(slots: Int32Array, column: StringColumn, s: string): number {
  const utf8 = encoder.encode(s);
  const mask = slots.length - 1;
  for (let slot = fnv1a(utf8, 0, utf8.length) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
    const i = slots[slot] - 1;
    if (column.equals(i, utf8)) return i;
  }
  return -1;
}
