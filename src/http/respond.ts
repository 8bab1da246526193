/**
 * Response building: the runtime-neutral request and response the app works with, the headers every
 * response carries, cache lifetimes, ETags and content negotiation.
 */
import { hash53, hashBytes53 } from '../utils/hash.ts';

/** JSON content type. */
export const JSON_TYPE = 'application/json; charset=utf-8';
/** GeoJSON content type (RFC 7946). */
export const GEOJSON_TYPE = 'application/geo+json; charset=utf-8';
/** problem+json content type (RFC 9457). */
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** Methods every route answers. */
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

/** CORS headers on every response: this is a public, anonymous API. */
/**
 * Sent with every answer the app makes: no content sniffing, a Content-Security-Policy fit for JSON (nothing
 * may load or frame it), no Referer sent onwards. HSTS belongs to the TLS proxy in front (see the README).
 */
export const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, X-Request-Id, Link, X-Change-Token',
};

/** Extra headers answering a CORS preflight. */
export const PREFLIGHT_HEADERS: Record<string, string> = {
  'access-control-allow-methods': 'GET, HEAD',
  'access-control-allow-headers': 'Authorization, If-None-Match, X-Request-Id',
  'access-control-max-age': '86400',
  allow: ALLOWED_METHODS,
};

/**
 * Cache lifetimes (Cache-Control) by kind of answer:
 * - `content`: depends only on the content version and the request. Fresh for 5 minutes, then served stale
 *   for up to a day while the cache revalidates (a 304 costs next to nothing).
 * - `live`: depends on "now" as well (event windows that default to the current time): fresh for 30 seconds.
 * - `private`: carries the caller's own data (`is_saved`): only the caller's browser may keep it, and it
 *   must revalidate every time.
 * - `none`: errors, health checks and preflights are not stored.
 * - `page`: the HTML pages (and an asset asked for without its fingerprint): kept, but revalidated every time.
 * - `asset`: an asset asked for with its fingerprint (`?v=`): the same URL always names the same bytes.
 */
export const CACHE_CONTROL = {
  content: 'public, max-age=300, s-maxage=60, stale-while-revalidate=86400',
  live: 'public, max-age=30, s-maxage=30, stale-while-revalidate=30',
  private: 'private, no-cache',
  none: 'no-store',
  page: 'no-cache',
  asset: 'public, max-age=31536000, immutable',
} as const;

/** A kind of cache lifetime. */
export type CacheClass = keyof typeof CACHE_CONTROL;

/** The parts of a request the app reads. Built from a Fetch Request, or directly by the Node adapter. */
export interface AppRequest {
  method: string;
  /** The request target: the path and query exactly as received (`/maps/x?info=true`). */
  target: string;
  /** A request header by lower-case name; null when absent. */
  header(name: string): string | null;
}

/** An answer: status, headers and body bytes (null for no body). */
export interface AppResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | null;
  /**
   * Called by an adapter once nothing reads the body any more (the response was handed to the client, or copied
   * into a Response): the bytes the answer was written into (a view of ByteWriter's blocks) may then be written over. Optional: an adapter that cannot tell when the
   * runtime is done with a body never calls it, and the garbage collector frees those bytes instead.
   */
  release?: () => void;
}

const encoder = new TextEncoder();

/** Encodes text as UTF-8. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/**
 * A strong ETag: a hash of the exact body bytes and what describes them (their media type, and for an answer in a
 * language its Content-Language: the same bytes served as another language, a text with no translation, are another
 * representation). Not the content version: an answer whose bytes a publish did not change keeps its tag, so a
 * calendar app or a CDN polling it gets 304 after a publish that changed something else. Each content coding gets its
 * own tag (`-zstd`, `-br`, `-gzip`).
 */
export function makeEtag(body: Uint8Array, contentType: string, contentLanguage?: string): string {
  const bodyHash = hashBytes53(body);
  const hash = hash53(`${contentType}\u0000${contentLanguage ?? ''}\u0000${bodyHash}`);
  return `"${hash.toString(36)}"`;
}

/**
 * The ETag of a body sent in a content coding: the identity tag, the coding, and a hash of the encoded bytes
 * (compressors differ between runtimes and versions, and a strong tag must name the exact bytes).
 */
export function encodedEtag(etag: string, encoding: string, encoded: Uint8Array): string {
  return `${etag.slice(0, -1)}-${encoding}-${hashBytes53(encoded).toString(36)}"`;
}

/** True when an If-None-Match value matches the ETag (weak comparison, as RFC 9110 asks for GET). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => bare(tag) === bare(etag));
}

/** A request id is echoed only when it is short and plain; otherwise a new one is made. */
export function requestIdFor(given: string | null): string {
  return given && given.length <= 128 && /^[A-Za-z0-9._:@\/+=-]+$/.test(given) ? given : crypto.randomUUID();
}

/** Adds a token to a Vary header value (case-insensitively, once). */
export function addVary(current: string | undefined, token: string): string {
  if (!current) return token;
  const key = `${current}\n${token}`;
  let joined = varyJoined.get(key);
  if (joined === undefined) {
    joined = current.split(',').some((t) => t.trim().toLowerCase() === token.toLowerCase()) ? current : `${current}, ${token}`;
    // Routes have a few Vary values: the map stays small; a header value from elsewhere is not kept.
    if (varyJoined.size < 256) varyJoined.set(key, joined);
  }
  return joined;
}

/** addVary's answers for the pairs asked lately (every answer of a route asks the same). */
const varyJoined = new Map<string, string>();
