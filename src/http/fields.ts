/**
 * Field selection: `fields=` (keep these) and `omit=` (drop these) name top-level fields of each record a route
 * answers (each event, each POI; never the envelope's `next_cursor` or `total`), so a list screen can leave the
 * descriptions behind. A route says where its records are (`RecordsAt`); the names it takes are its records' fields as
 * its response schema documents them, and a name it has not is a 400 naming it. OGC API Features' `properties` is the
 * same mechanism over a feature's properties (src/routes/ogc.ts).
 *
 * A record keeps its fields' bytes exactly as the full answer has them: the answer is written whole, then each
 * record's members not kept are cut out of its JSON bytes (`cutRecords`), with no second rendering.
 */
import * as v from 'valibot';
import { invalidParams } from './errors.ts';
import { splitList } from './params.ts';
import { ByteWriter } from '../utils/byte-writer.ts';
import { copyMembers, keyIn, skipString, skipValue, skipWs, type MemberSelection } from '../utils/json-members.ts';

/**
 * Where a route's records are in its JSON body: `body`, the body is one record (a detail route); `values`, each
 * top-level member's value is an array of records (a batch keyed by id); otherwise the name of the top-level member
 * that holds the records (an array of them, or one).
 */
export type RecordsAt = 'body' | 'values' | string;

/** Which fields of a record a request keeps. */
export class FieldMask {
  private readonly names: ReadonlySet<string>;
  private readonly keep: boolean;
  private encoded: MemberSelection | null = null;

  private constructor(names: readonly string[], keep: boolean) {
    this.names = new Set(names);
    this.keep = keep;
  }

  /**
   * The mask `fields` or `omit` asks for (null when neither names a field: an empty list is the parameter left out).
   * Both at once is a 400 naming both.
   */
  static of(query: { fields?: string[]; omit?: string[] }): FieldMask | null {
    const fields = query.fields?.length ? query.fields : null;
    const omit = query.omit?.length ? query.omit : null;
    if (fields && omit) {
      const reason = 'cannot be given with the other: name the fields to keep, or those to drop';
      throw invalidParams([{ name: 'fields', in: 'query', reason }, { name: 'omit', in: 'query', reason }]);
    }
    if (fields) return new FieldMask(fields, true);
    return omit ? new FieldMask(omit, false) : null;
  }

  /** A mask keeping exactly these names. */
  static keeping(names: readonly string[]): FieldMask {
    return new FieldMask(names, true);
  }

  /** The names as UTF-8 bytes (made once), and whether they are kept or left out. */
  bytes(): MemberSelection {
    this.encoded ??= { names: [...this.names].map((n) => encoder.encode(n)), keep: this.keep,
      key: `${this.keep ? 'fields' : 'omit'}=${[...this.names].sort().join(',')}` };
    return this.encoded;
  }

  /** Whether a field of this name is kept. */
  keeps(name: string): boolean {
    return this.names.has(name) === this.keep;
  }

  /** The record with only the fields kept, in its own order. */
  pick<T extends Record<string, unknown>>(record: T): Partial<T> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(record)) if (this.keeps(name)) out[name] = value;
    return out as Partial<T>;
  }
}

/**
 * The schema of a `fields` or `omit` parameter over records with these field names: a comma-separated list, each
 * name one of them (a 400 names those that are not, and lists the fields there are).
 */
export function fieldListParam(param: 'fields' | 'omit' | 'properties', known: readonly string[], description: string) {
  const set = new Set(known);
  return v.optional(v.pipe(
    v.string(),
    v.transform(splitList),
    v.check((names) => names.every((n) => set.has(n)), (issue) => {
      const unknown = (issue.input as string[]).filter((n) => !set.has(n));
      return `names ${unknown.map((n) => `"${n}"`).join(', ')}, not a field of ${param === 'properties' ? 'this collection\'s features' : 'these records'} (${known.join(', ')})`;
    }),
    v.description(description),
  ));
}

/** Throws the 400 `fieldListParam` would for `names` not among `known`. */
export function checkFieldNames(param: string, names: readonly string[], known: readonly string[], of: string): void {
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    throw invalidParams([{ name: param, in: 'query', reason: `names ${unknown.map((n) => `"${n}"`).join(', ')}, not a field of ${of} (${known.join(', ')})` }]);
  }
}

/** The field names of the records at `at` in a response schema (every option of a union). */
export function recordFieldNames(response: v.GenericSchema, at: RecordsAt): string[] {
  const names = new Set<string>();
  const walk = (schema: unknown, depth: number): void => {
    const s = schema as { type?: string; entries?: Record<string, unknown>; options?: unknown[]; wrapped?: unknown; item?: unknown; value?: unknown };
    if (!s || depth > 8) return;
    if (s.options) for (const o of s.options) walk(o, depth + 1);
    else if (s.wrapped) walk(s.wrapped, depth + 1);
    else if (s.item) walk(s.item, depth + 1);
    else if (s.entries) for (const name of Object.keys(s.entries)) names.add(name);
  };
  const inner = (schema: unknown): unknown[] => {
    const s = schema as { options?: unknown[]; entries?: Record<string, unknown>; value?: unknown; wrapped?: unknown };
    if (s.options) return s.options.flatMap(inner);
    if (s.wrapped) return inner(s.wrapped);
    if (at === 'body') return [s];
    if (at === 'values') return s.value ? [s.value] : [];
    return s.entries?.[at] ? [s.entries[at]] : [];
  };
  for (const schema of inner(response)) walk(schema, 0);
  return [...names];
}

const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const encoder = new TextEncoder();

/** Writes the record (a JSON object) at `i` with only the members `mask` keeps; answers the index after it. */
function cutObject(b: Uint8Array, i: number, mask: FieldMask, w: ByteWriter): number {
  if (b[i] !== OPEN_OBJECT) {
    const end = skipValue(b, i);
    w.bytes(b, i, end);
    return end;
  }
  w.byte(OPEN_OBJECT);
  const close = copyMembers(b, i + 1, b.length, mask.bytes(), w, false);
  w.byte(CLOSE_OBJECT);
  return close + 1;
}

/** Calls `member` for each member of the object at `i` (where its member and value start and end, and whether its key is `key`). */
function eachMember(b: Uint8Array, i: number, key: Uint8Array, member: (isKey: boolean, start: number, valueStart: number, end: number) => void): void {
  i = skipWs(b, i + 1);
  while (b[i] !== CLOSE_OBJECT) {
    const start = i;
    const keyEnd = skipString(b, i);
    const valueStart = skipWs(b, skipWs(b, keyEnd) + 1);
    const end = skipValue(b, valueStart);
    member(keyIn(b, start, keyEnd - 1, [key]), start, valueStart, end);
    i = skipWs(b, end);
    if (b[i] === COMMA) i = skipWs(b, i + 1);
  }
}

/** Writes the value at `i`, an array of records (or one), each cut; answers the index after it. */
function cutRecordsValue(b: Uint8Array, i: number, mask: FieldMask, w: ByteWriter): number {
  if (b[i] !== OPEN_ARRAY) return cutObject(b, i, mask, w);
  w.byte(OPEN_ARRAY);
  i = skipWs(b, i + 1);
  let first = true;
  while (b[i] !== CLOSE_ARRAY) {
    if (!first) w.byte(COMMA);
    first = false;
    i = skipWs(b, cutObject(b, i, mask, w));
    if (b[i] === COMMA) i = skipWs(b, i + 1);
  }
  w.byte(CLOSE_ARRAY);
  return i + 1;
}

/** A JSON body with each record at `at` keeping only the fields `mask` keeps, every other byte as it was. */
export function cutRecords(body: Uint8Array, at: RecordsAt, mask: FieldMask): Uint8Array<ArrayBuffer> {
  const w = cutWriter.reset();
  const start = skipWs(body, 0);
  if (at === 'body') cutObject(body, start, mask, w);
  else {
    w.byte(OPEN_OBJECT);
    let first = true;
    eachMember(body, start, encoder.encode(at), (isAt, memberStart, valueStart, end) => {
      if (!first) w.byte(COMMA);
      first = false;
      if (at !== 'values' && !isAt) {
        w.bytes(body, memberStart, end);
        return;
      }
      w.bytes(body, memberStart, valueStart);
      cutRecordsValue(body, valueStart, mask, w);
    });
    w.byte(CLOSE_OBJECT);
  }
  const cut = w.view(0).slice();
  w.reset();
  return cut;
}

/** Where answers are cut (one at a time on a thread; the answer is copied out). */
const cutWriter = new ByteWriter();
