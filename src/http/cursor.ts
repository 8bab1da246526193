/**
 * Opaque event-page cursors: keyset state (the last event's start and id), the resolved time window,
 * and a key of the filters the cursor belongs to. Never an offset.
 */
import { hash53 } from '../utils/hash.ts';

/** What a cursor carries. */
export interface CursorState {
  /** Hash of the filters and the position below (see cursorKey). */
  k: string;
  /** starts_at (epoch ms) of the last event on the previous page. */
  s: number;
  /** id of that event. */
  i: string;
  /** Resolved window start and end (epoch ms), so a defaulted window stays put across pages. */
  f: number;
  t: number;
}

/** The largest time a JavaScript Date can hold; a cursor outside it was not made here. */
const MAX_TIME_MS = 8.64e15;

/** Base64url of ASCII text (a cursor's JSON: numbers, a UUID and a base-36 key). */
function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Encodes cursor state as base64url JSON. */
export function encodeCursor(state: CursorState): string {
  return toBase64Url(JSON.stringify(state));
}

const CURSOR_KEYS = 'f,i,k,s,t';
const ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isTime = (n: unknown): n is number => Number.isInteger(n) && Math.abs(n as number) <= MAX_TIME_MS;

/** Decodes a cursor; null when it is not exactly the shape this service makes. */
export function decodeCursor(cursor: string): CursorState | null {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) return null;
  try {
    const bin = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const state = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    const ok = state && typeof state === 'object' && Object.keys(state).sort().join(',') === CURSOR_KEYS &&
      typeof state.k === 'string' && /^[0-9a-z]{1,11}$/.test(state.k) && typeof state.i === 'string' && ID_RE.test(state.i) &&
      isTime(state.s) && isTime(state.f) && isTime(state.t) && state.f <= state.t;
    return ok ? { k: state.k, s: state.s, i: state.i, f: state.f, t: state.t } : null;
  } catch {
    return null;
  }
}

/**
 * The key a cursor carries: a hash of the filter set and of the keyset position, so a cursor reused
 * with other filters, or edited by hand, no longer matches.
 */
export function cursorKey(filterKey: string, state: Omit<CursorState, 'k'>): string {
  return hash53(`${filterKey}|${state.s}|${state.i}|${state.f}|${state.t}`).toString(36);
}

/**
 * A feature page's cursor (OGC API Features' `next` links): the last feature's place in its collection's order (`s`,
 * its start for events, 0 for POIs, which are in id order; and its id `i`) and a key of the query it belongs to.
 */
export interface FeatureCursor {
  k: string;
  s: number;
  i: string;
}

/** Encodes a feature cursor, its key made from the query's key and the position. */
export function encodeFeatureCursor(queryKey: string, s: number, i: string): string {
  return toBase64Url(JSON.stringify({ k: hash53(`${queryKey}|${s}|${i}`).toString(36), s, i }));
}

/** Decodes a feature cursor of the query with this key; null when it is not one this service made for that query. */
export function decodeFeatureCursor(cursor: string, queryKey: string): FeatureCursor | null {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) return null;
  try {
    const state = JSON.parse(atob(cursor.replace(/-/g, '+').replace(/_/g, '/')));
    const ok = state && typeof state === 'object' && Object.keys(state).sort().join(',') === 'i,k,s' && typeof state.i === 'string' &&
      ID_RE.test(state.i) && isTime(state.s) && state.k === hash53(`${queryKey}|${state.s}|${state.i}`).toString(36);
    return ok ? { k: state.k, s: state.s, i: state.i } : null;
  } catch {
    return null;
  }
}
