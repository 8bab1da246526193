/**
 * Opaque event-page cursors: keyset state (the last event's start and id), the resolved time window,
 * and a key of the filters the cursor belongs to. Never an offset.
 */

/** What a cursor carries. */
export interface CursorState {
  /** Filter key the cursor is bound to. */
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

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Encodes cursor state as base64url JSON. */
export function encodeCursor(state: CursorState): string {
  return toBase64Url(JSON.stringify(state));
}

/** Decodes a cursor; null when it is not one this service made. */
export function decodeCursor(cursor: string): CursorState | null {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) return null;
  try {
    const bin = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const state = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    const ok = state && typeof state === 'object' && typeof state.k === 'string' && typeof state.i === 'string' &&
      [state.s, state.f, state.t].every((n) => Number.isFinite(n) && Math.abs(n) <= MAX_TIME_MS) && state.f <= state.t;
    return ok ? { k: state.k, s: state.s, i: state.i, f: state.f, t: state.t } : null;
  } catch {
    return null;
  }
}

/** A short, stable hash (FNV-1a, 32-bit, hex) of a filter key, so cursors stay small. */
export function hashKey(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
