/**
 * Response building and the headers every response carries.
 */

/** JSON content type. */
export const JSON_TYPE = 'application/json; charset=utf-8';
/** GeoJSON content type (RFC 7946). */
export const GEOJSON_TYPE = 'application/geo+json; charset=utf-8';

/** Methods every route answers. */
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

/** CORS headers on every response: this is a public, anonymous API. */
export const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, X-Request-Id, Link',
};

/** Extra headers answering a CORS preflight. */
export const PREFLIGHT_HEADERS: Record<string, string> = {
  'access-control-allow-methods': 'GET, HEAD',
  'access-control-allow-headers': 'Authorization, If-None-Match, X-Request-Id',
  'access-control-max-age': '86400',
  allow: ALLOWED_METHODS,
};

import { hash53 } from './hash.ts';

const encoder = new TextEncoder();

/**
 * Serialises a body once, with its length and a strong ETag: the content version and a hash of the
 * exact bytes, so equal bodies share a tag and any change of content or answer changes it.
 */
export function jsonResponse(body: unknown, contentType: string, contentVersion: string, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(body);
  const bytes = encoder.encode(text);
  const etag = `"${contentVersion.slice(0, 12)}-${hash53(text).toString(36)}"`;
  return new Response(bytes, {
    status: 200,
    headers: { 'content-type': contentType, 'content-length': String(bytes.byteLength), etag, ...headers },
  });
}

/** True when an If-None-Match value matches the ETag (weak comparison, as RFC 9110 asks for GET). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => bare(tag) === bare(etag));
}

/** A request id is echoed only when it is short and plain; otherwise a new one is made. */
export function requestIdFor(req: Request): string {
  const given = req.headers.get('x-request-id');
  return given && /^[A-Za-z0-9._:@\/+=-]{1,128}$/.test(given) ? given : crypto.randomUUID();
}
