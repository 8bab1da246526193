/**
 * The first stage of the pipeline: a bundle's bytes, their checksum, and the validated bundle, whole or in
 * pieces. A large bundle is split rather than parsed whole: its bytes are scanned once for the top-level
 * `events` array and the bounds of each event in it; everything else (the head) is parsed at once, and the
 * events are parsed a chunk at a time when they are needed, so the bundle's text never exists as one string
 * and its events never all exist as objects.
 */
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../utils/sha256.ts';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { BundleT } from './bundle-schema.ts';
import { BundleError, validateBundle } from './validate-bundle.ts';

export { sha256Hex };

/** A bundle file, read only as far as needed: streamed through the hash when the store has its content. */
export interface BundleFile { path: string }

/** A bundle as text, as UTF-8 bytes, or as a file. */
export type BundleSource = string | Uint8Array | BundleFile;


/** The SHA-256 of a bundle's UTF-8 bytes; a file is streamed, never held whole. */
export async function checksumOf(source: BundleSource): Promise<string> {
  if (typeof source === 'string' || source instanceof Uint8Array) return sha256Hex(source);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(source.path)) hash.update(chunk as Uint8Array);
  return hash.digest('hex');
}

/** A bundle's bytes, read whole, and the checksum of exactly those bytes (the file may have changed since `checksumOf`). */
export async function readBundleBytes(source: BundleSource): Promise<{ checksum: string; bytes: Uint8Array }> {
  const bytes = typeof source === 'string' ? new TextEncoder().encode(source) : source instanceof Uint8Array ? source : await readFile(source.path);
  return { checksum: sha256Hex(bytes), bytes };
}

/** Parses and validates a bundle; BundleError lists every problem. */
export function parseBundle(source: string | Uint8Array): BundleT {
  let input: unknown;
  try {
    input = JSON.parse(typeof source === 'string' ? source : new TextDecoder().decode(source));
  } catch (err) {
    throw new BundleError([{ path: '$', message: `not valid JSON: ${(err as Error).message}` }]);
  }
  return validateBundle(input);
}

/** A bundle split for validation and writing in chunks: see `splitBundle`. */
export interface SplitBundle {
  /** The bundle with `events` replaced by an empty array, parsed. */
  head: unknown;
  /** How many elements the events array has. */
  eventCount: number;
  /** The events parsed, `size` at a time, with the position of the first. */
  chunks(size: number): Generator<{ offset: number; items: unknown[] }>;
}

const Ch = { Quote: 0x22, Backslash: 0x5c, OpenBrace: 0x7b, CloseBrace: 0x7d, OpenBracket: 0x5b, CloseBracket: 0x5d, Comma: 0x2c, Colon: 0x3a } as const;
const EVENTS_KEY = new TextEncoder().encode('"events"');
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Splits a bundle's UTF-8 bytes into its head and its events. Null when the bytes are not a JSON object with
 * one top-level `events` array the scanner can follow: the caller then parses the whole text, which reports
 * what is wrong with it exactly as a plain parse does. Any JSON error inside the events array shows when that
 * chunk is parsed (`JSON.parse` throws); callers parse the whole text then for the same report.
 */
export function splitBundle(bytes: Uint8Array): SplitBundle | null {
  let p = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let depth = 0;
  let inString = false;
  let lastKey = -1; // start of the last string at depth 1 that was followed by a colon
  let lastString = -1;
  let eventsOpen = -1;
  let eventsClose = -1;
  let starts = new Uint32Array(1024);
  let ends = new Uint32Array(1024);
  let count = 0;
  let elementStart = -1;
  let lastNonSpace = -1;
  for (; p < bytes.length; p++) {
    const c = bytes[p];
    if (inString) {
      if (c === Ch.Backslash) p++;
      else if (c === Ch.Quote) { inString = false; lastNonSpace = p; }
      continue;
    }
    if (isSpace(c)) continue;
    if (depth === 2 && eventsOpen >= 0 && eventsClose < 0) {
      if (c === Ch.Comma || c === Ch.CloseBracket) {
        if (elementStart >= 0) {
          if (count === starts.length) {
            const grow = (a: Uint32Array) => { const b = new Uint32Array(a.length * 2); b.set(a); return b; };
            starts = grow(starts);
            ends = grow(ends);
          }
          starts[count] = elementStart;
          ends[count++] = lastNonSpace + 1;
          elementStart = -1;
        }
      } else if (elementStart < 0) elementStart = p;
    }
    if (c === Ch.Quote) {
      inString = true;
      if (depth === 1) lastString = p;
    } else if (c === Ch.Colon) {
      if (depth === 1) lastKey = lastString;
    } else if (c === Ch.OpenBrace || c === Ch.OpenBracket) {
      depth++;
      if (depth === 2 && c === Ch.OpenBracket && lastKey >= 0 && isEventsKey(bytes, lastKey)) {
        if (eventsOpen >= 0) return null; // a repeated key: the plain parse decides which one counts
        eventsOpen = p;
      }
    } else if (c === Ch.CloseBrace || c === Ch.CloseBracket) {
      depth--;
      if (depth === 1 && eventsOpen >= 0 && eventsClose < 0 && c === Ch.CloseBracket) eventsClose = p;
      if (depth < 0) return null;
    } else if (depth === 1 && c !== Ch.Comma) {
      lastKey = -1;
    }
    lastNonSpace = p;
  }
  if (eventsOpen < 0 || eventsClose < 0 || depth !== 0 || inString) return null;
  let head: unknown;
  try {
    const text = decoder.decode(bytes.subarray(0, eventsOpen + 1)) + decoder.decode(bytes.subarray(eventsClose));
    head = JSON.parse(text);
  } catch {
    return null;
  }
  return {
    head,
    eventCount: count,
    *chunks(size: number) {
      for (let i = 0; i < count; i += size) {
        const last = Math.min(i + size, count) - 1;
        yield { offset: i, items: JSON.parse(`[${decoder.decode(bytes.subarray(starts[i], ends[last]))}]`) as unknown[] };
      }
    },
  };
}

const decoder = new TextDecoder();

function isEventsKey(bytes: Uint8Array, at: number): boolean {
  for (let k = 0; k < EVENTS_KEY.length; k++) if (bytes[at + k] !== EVENTS_KEY[k]) return false;
  return true;
}
