/**
 * Strings packed as UTF-8 in one byte array, and a hash table over them: ids found by their bytes with no string
 * and no Map entry per id, in memory the garbage collector never traces (the event tables' ids, the POIs' ids).
 */
import { STRIDE, type Steps } from './steps.ts';

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
    const parts = strings.map((s) => encoder.encode(s));
    const offsets = new Uint32Array(parts.length + 1);
    for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i] + parts[i].length;
    const bytes = new Uint8Array(offsets[parts.length]);
    for (let i = 0; i < parts.length; i++) bytes.set(parts[i], offsets[i]);
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
