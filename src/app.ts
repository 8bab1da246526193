/**
 * createApp: the one standards-only Fetch handler. Routing (itty-router), method handling, CORS,
 * HEAD, request ids and the single place where errors become problem+json.
 */
import { Router } from 'itty-router';
import type { ContentStore } from './content/store.ts';
import { HttpError, problemResponse } from './http/errors.ts';
import { parseParams, Reply, type RouteSpec } from './http/route.ts';
import { ALLOWED_METHODS, CORS_HEADERS, JSON_TYPE, PREFLIGHT_HEADERS, etagMatches, jsonResponse, requestIdFor } from './http/respond.ts';
import { routes as allRoutes } from './routes/index.ts';

/** Longest request target (path and query) accepted before answering 414. */
export const MAX_TARGET_LENGTH = 8192;

/** What the app is built from; tests pass their own. */
export interface AppDeps {
  store: ContentStore;
  /** Mount every route under this prefix, such as `/api/v1`. */
  basePath?: string;
  /** Clock for "now" defaults; tests pin it. */
  now?: () => Date;
  /** Where unexpected errors are logged (with the request id); default stderr as JSON. */
  logError?: (entry: Record<string, unknown>) => void;
}

/** The Fetch handler and the routes it serves. */
export interface App {
  fetch(req: Request): Promise<Response>;
  routes: readonly RouteSpec[];
}

interface Routed { method: string; url: string; params?: Record<string, string> }

/** Normalises a base path: leading slash, no trailing slash, '' for the root; only plain path characters. */
export function normaliseBasePath(basePath = ''): string {
  if (!/^[A-Za-z0-9._~\/-]*$/.test(basePath)) {
    throw new Error(`base path "${basePath}" may only hold letters, digits and . _ ~ - /`);
  }
  const trimmed = basePath.replace(/\/+$/, '');
  return trimmed === '' ? '' : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** Builds the app over a content store. */
export function createApp(deps: AppDeps): App {
  const now = deps.now ?? (() => new Date());
  const logError = deps.logError ?? ((entry) => console.error(JSON.stringify(entry)));
  const basePath = normaliseBasePath(deps.basePath);
  const router = Router({ base: basePath });
  const routes = allRoutes as readonly RouteSpec[];
  // Routes are matched on path alone; the method is decided afterwards, so a known path gets 405, not 404.
  for (const spec of routes) router.all(spec.path, (routed: Routed) => ({ spec, params: routed.params ?? {} }));

  /** The route a request matched, so its own headers reach error responses too. */
  interface Matched { spec?: RouteSpec }

  async function handle(req: Request, matched: Matched): Promise<Response> {
    const url = new URL(req.url);
    const target = url.pathname.length + url.search.length;
    if (target > MAX_TARGET_LENGTH) {
      throw new HttpError(414, `The request target is ${target} characters long; the limit is ${MAX_TARGET_LENGTH}.`);
    }
    const match = (await router.fetch({ method: req.method, url: req.url })) as
      { spec: RouteSpec; params: Record<string, string> } | undefined;
    if (!match) throw new HttpError(404, `No route matches ${url.pathname}.`);
    matched.spec = match.spec;
    if (req.method === 'OPTIONS') return new Response(null, { status: 204, headers: PREFLIGHT_HEADERS });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new HttpError(405, `${req.method} is not allowed; this API is read-only.`, { headers: { allow: ALLOWED_METHODS } });
    }
    const { spec } = match;
    const { params, query } = parseParams(spec, match.params, url.searchParams);
    if (!deps.store.ready) throw new HttpError(503, 'The content is still loading; try again shortly.', { headers: { 'retry-after': '1' } });
    // One model for the whole request, so the body and its ETag come from the same content version.
    const model = deps.store.model;
    const result = await spec.handle({ req, params, query, model, store: deps.store, now: now(), basePath });
    const reply = result instanceof Reply ? result : new Reply(result, {});
    return jsonResponse(reply.body, spec.contentType ?? JSON_TYPE, model.checksum, reply.headers);
  }

  async function fetch(req: Request): Promise<Response> {
    const requestId = requestIdFor(req);
    const matched: Matched = {};
    let res: Response;
    try {
      res = await handle(req, matched);
    } catch (err) {
      const instance = safePath(req.url);
      if (err instanceof HttpError) res = problemResponse(err, instance);
      else {
        logError({ level: 'error', request_id: requestId, method: req.method, path: instance,
          error: err instanceof Error ? err.stack ?? err.message : String(err) });
        res = problemResponse(new HttpError(500, 'An unexpected error occurred; it has been logged with the request id.'), instance);
      }
    }
    const headers = new Headers(res.headers);
    for (const [k, val] of Object.entries({ ...CORS_HEADERS, ...matched.spec?.headers })) headers.set(k, val);
    headers.set('x-request-id', requestId);
    // Conditional GET: a matching If-None-Match gets 304 with the validators and no body.
    const ifNoneMatch = req.headers.get('if-none-match');
    const etag = headers.get('etag');
    if (res.status === 200 && ifNoneMatch !== null && etag !== null && etagMatches(ifNoneMatch, etag)) {
      headers.delete('content-type');
      headers.delete('content-length');
      return new Response(null, { status: 304, headers });
    }
    // HEAD: the same status and headers as GET, no body.
    const body = req.method === 'HEAD' ? null : res.body;
    return new Response(body, { status: res.status, headers });
  }

  return { fetch, routes };
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '/';
  }
}
