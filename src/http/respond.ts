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
  'access-control-allow-headers': 'Authorization, If-None-Match',
  'access-control-max-age': '86400',
  allow: ALLOWED_METHODS,
};

const encoder = new TextEncoder();

/** Serialises a body once, with its length. */
export function jsonResponse(body: unknown, contentType: string, headers: Record<string, string> = {}): Response {
  const bytes = encoder.encode(JSON.stringify(body));
  return new Response(bytes, {
    status: 200,
    headers: { 'content-type': contentType, 'content-length': String(bytes.byteLength), ...headers },
  });
}

/** A request id is echoed only when it is short and plain; otherwise a new one is made. */
export function requestIdFor(req: Request): string {
  const given = req.headers.get('x-request-id');
  return given && /^[A-Za-z0-9._:@\/+=-]{1,128}$/.test(given) ? given : crypto.randomUUID();
}
