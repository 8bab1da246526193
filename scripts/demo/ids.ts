/** Deterministic ids, PRNG and time helpers for the demo bundle generator. */
import { createHash } from 'node:crypto';

/** UUIDv5-style id from a stable name: SHA-1 of `${space}:${name}`, version 5, RFC 4122 variant. */
export function nameUuid(space: string, name: string): string {
  const h = createHash('sha1').update(`${space}:${name}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The demo's ids: stable names in the 'demo' space. */
export const uuid = (name: string): string => nameUuid('demo', name);

/** Hex SHA-256 of a string. */
export function sha256hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** mulberry32 seeded PRNG. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;
export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
export const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
export function pickN<T>(r: Rng, xs: readonly T[], n: number): T[] {
  const pool = [...xs];
  const out: T[] = [];
  while (out.length < n && pool.length > 0) out.push(pool.splice(Math.floor(r() * pool.length), 1)[0]);
  return out;
}

export const ANCHOR = '2026-11-01T00:00:00Z';
export const ANCHOR_MS = Date.parse(ANCHOR);
export const END_MS = Date.parse('2028-12-31T23:59:59Z');
const DAY = 86_400_000;

/** ISO string without milliseconds, always Z. */
export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Lisbon UTC offset in hours for a date (WET/WEST: last Sunday of March to last Sunday of October). */
export function lisbonOffset(y: number, m: number, d: number): number {
  const lastSun = (month: number) => {
    const last = new Date(Date.UTC(y, month + 1, 0));
    return last.getUTCDate() - last.getUTCDay();
  };
  const t = Date.UTC(y, m - 1, d);
  const start = Date.UTC(y, 2, lastSun(2));
  const end = Date.UTC(y, 9, lastSun(9));
  return t >= start && t < end ? 1 : 0;
}

/** UTC ms of a Lisbon local wall time (y, month 1-12, day, hour, minute). */
export function lisbon(y: number, m: number, d: number, h: number, min = 0): number {
  return Date.UTC(y, m - 1, d, h - lisbonOffset(y, m, d), min);
}

/** Days from a ms timestamp. */
export const addDays = (ms: number, days: number): number => ms + days * DAY;
export const DAY_MS = DAY;

/** A created_at some days before a start (never after the anchor-ish date). */
export function createdBefore(r: Rng, startMs: number): string {
  const back = int(r, 10, 120);
  return iso(Math.floor((startMs - back * DAY) / 60000) * 60000);
}
