/**
 * Reading JSON as bytes, members at a time, without parsing it: where a string or a value ends, whether a member's key
 * is one of some names (compared as bytes, never decoded), and copying the members of a run of them that a selection
 * keeps. Field selection (src/http/fields.ts) cuts answers with it, and the event table (src/content/model/event-table.ts)
 * writes records with only the fields asked for.
 *
 * It runs over every answer a `fields` or `omit` request gets: string ends are found with the engine's own indexOf
 * (short ones in place), whitespace is tested by comparison, and nothing is decoded, so that selecting costs a small
 * share of making the answer.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * Which members a selection keeps: those whose key is one of `names` (UTF-8), or, with `keep` false, all others.
 * `key` names the selection (the same for the same names in any order), for what is kept per selection.
 */
export interface MemberSelection { readonly names: readonly Uint8Array[]; readonly keep: boolean; readonly key: string }

/** Where a selection writes: only `bytes` and `byte` are used. */
interface Writer { bytes(src: Uint8Array, start?: number, end?: number): unknown; byte(b: number): unknown }

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The index of the first byte from `i` on that is not JSON whitespace. */
export function skipWs(b: Uint8Array, i: number): number {
  while (i < b.length && isWs(b[i])) i++;
  return i;
}

/** The index just after the string whose opening quote is at `i`. */
export function skipString(b: Uint8Array, i: number): number {
  // Most strings are short (keys, ids, times): read in place; a long one (a description) is searched by the engine.
  const near = Math.min(i + 80, b.length);
  for (let k = i + 1; k < near; k++) {
    if (b[k] === QUOTE) return k + 1;
    if (b[k] === BACKSLASH) break;
  }
  for (let q = b.indexOf(QUOTE, i + 1); ; q = b.indexOf(QUOTE, q + 1)) {
    // A quote after an odd number of backslashes is escaped.
    let slashes = 0;
    while (b[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
}

/** The index just after the JSON value at `i`; a number or literal ends by `end` at the latest (a run's end). */
export function skipValue(b: Uint8Array, i: number, end = b.length): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (;;) {
      const x = b[i];
      if (x === QUOTE) {
        i = skipString(b, i);
        continue;
      }
      if (x === OPEN_OBJECT || x === OPEN_ARRAY) depth++;
      else if ((x === CLOSE_OBJECT || x === CLOSE_ARRAY) && --depth === 0) return i + 1;
      i++;
    }
  }
  while (i < end && b[i] !== COMMA && b[i] !== CLOSE_OBJECT && b[i] !== CLOSE_ARRAY && !isWs(b[i])) i++;
  return i;
}

/** Whether the key whose quotes are at `open` and `close` is one of `names`. */
export function keyIn(b: Uint8Array, open: number, close: number, names: readonly Uint8Array[]): boolean {
  const length = close - open - 1;
  for (const name of names) {
    if (name.length !== length) continue;
    let k = 0;
    while (k < length && b[open + 1 + k] === name[k]) k++;
    if (k === length) return true;
  }
  return false;
}

/** Whether a selection keeps the member named `name` (its UTF-8 bytes). */
export function selects(selection: MemberSelection, name: Uint8Array): boolean {
  return selection.names.some((n) => n.length === name.length && n.every((x, k) => x === name[k])) === selection.keep;
}

/**
 * Writes the members that `selection` keeps of a run of JSON object members separated by commas, from `start` to
 * `end` or to the `}` that closes their object, whichever comes first: each as it was, with a comma before each
 * unless `comma` is false and none was written before it here. Answers where it stopped (`end`, or that `}`).
 */
export function copyMembers(b: Uint8Array, start: number, end: number, selection: MemberSelection, w: Writer, comma: boolean): number {
  let i = skipWs(b, start);
  while (i < end && b[i] !== CLOSE_OBJECT) {
    const keyEnd = skipString(b, i);
    const valueEnd = skipValue(b, skipWs(b, skipWs(b, keyEnd) + 1), end);
    if (keyIn(b, i, keyEnd - 1, selection.names) === selection.keep) {
      if (comma) w.byte(COMMA);
      comma = true;
      w.bytes(b, i, valueEnd);
    }
    i = skipWs(b, valueEnd);
    if (b[i] === COMMA) i = skipWs(b, i + 1);
  }
  return Math.min(i, end);
}
