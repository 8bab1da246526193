/**
 * createApp: the one request handler. Routing (itty-router), method handling, CORS, HEAD, request ids,
 * caching and compression, and the single place where errors become problem+json.
 *
 * `serve` works on a runtime-neutral request and answer (AppRequest, AppResponse); `fetch` wraps it in
 * the standard Fetch Request → Response, which Bun.serve calls directly. The node:http adapter (Node, and Deno
 * through its node:http) calls `serve` itself, so it never builds a Request or a Response object per request.
 */
import { Router } from 'itty-router';
import type { ServedContent } from './content/content-store.ts';
import type { ReadModel } from './content/model/read-model.ts';
import { negotiateEncoding } from './http/compress.ts';
import { HttpError, problemAnswer } from './http/errors.ts';
import { ifRangeAllows, parseRange } from './http/ranges.ts';
import { createLogger, type Logger } from './utils/log.ts';
import { cutRecords, FieldMask } from './http/fields.ts';
import { LanguageChoice } from './http/language.ts';
import { releaseBody } from './utils/byte-writer.ts';
import { JsonBytes, matchOrder, MediaReply, parseParams, PrivateReply, queryEntries, wholeSecond, type RouteSpec } from './http/route.ts';
import { renderIn } from './content/model/local-text.ts';
import {
  addVary, ALLOWED_METHODS, CACHE_CONTROL, CORS_HEADERS, etagMatches, JSON_TYPE, PREFLIGHT_HEADERS, requestIdFor, SECURITY_HEADERS, utf8,
  type AppRequest, type AppResponse,
} from './http/respond.ts';
import { readQuery } from './http/query.ts';
import { cacheKey, PreparedBody, ResponseCache } from './http/response-cache.ts';
import { createPages, type PageOptions } from './pages/pages.ts';
import type { PmtilesArchive } from './geo/pmtiles-archive.ts';
import { routes as allRoutes } from './routes/index.ts';
import { noteRequest } from './utils/quiet.ts';

/** Longest request target (path and query) accepted before answering 414. */
export const MAX_TARGET_LENGTH = 8192;

/** The answer to a CORS preflight (OPTIONS) on any route or health check. */
const PREFLIGHT: AppResponse = { status: 204, headers: { ...PREFLIGHT_HEADERS, 'cache-control': CACHE_CONTROL.none }, body: null };

/** What the app is built from; tests pass their own. */
export interface AppDeps {
  store: ServedContent;
  /** Mount every route under this prefix, such as `/api/v1`. */
  basePath?: string;
  /** Clock for "now" defaults; tests pin it. */
  now?: () => Date;
  /** Structured logs: one access-log line per request (info) and unexpected errors. Default: info, to stdout/stderr. */
  logger?: Logger;
  /** Origins allowed by CORS: `*` (default, a public API) or a list, echoed back when the request's Origin is in it. */
  corsOrigins?: '*' | readonly string[];
  /** With `--workers`, which serving thread this app answers on (0: the main thread), shown on /readyz. */
  thread?: number;
  /** The pages for people (`/`, `/explore`, `/docs`): the kiosk map, a tile source, where their assets come from. */
  pages?: PageOptions;
  /**
   * The absolute URL clients reach the routes under, which links in answers are built from (`--public-url`);
   * default `http://localhost` and the base path. Never taken from a request's Host header.
   */
  publicUrl?: string;
  /** The operator's basemap archive (`--basemap`), served under /basemap and drawn by the pages; default none. */
  basemap?: PmtilesArchive;
  /** The routes to serve; default every route of the API and its OpenAPI document (tests give their own). */
  routes?: readonly RouteSpec[];
}

/** The handler in both forms, and the routes it serves. */
export interface App {
  fetch(req: Request): Promise<Response>;
  serve(req: AppRequest): Promise<AppResponse>;
  routes: readonly RouteSpec[];
  /**
   * Starts a graceful shutdown: from now on every answer carries `Connection: close`, so keep-alive clients
   * open a new connection (to another replica) instead of sending on one about to close, and /readyz answers
   * 503 `stopping`, so load balancers stop sending new requests.
   */
  drain(): void;
}

interface Routed { method: string; url: string; params?: Record<string, string> }
/** What the router answers for a path: the route, and its path parameters as matched (still percent-encoded). */
interface Match { spec: RouteSpec; params: Record<string, string> }

/** Paths without parameters whose match is kept (see `route` in createApp): every route's, and spellings of them. */
const STATIC_PATHS = 256;

/** A public URL without its trailing slashes, so a route path (`/events/…`) is appended as it is. */
export function normalisePublicUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Normalises a base path: leading slash, no trailing slash, '' for the root; only plain path characters. */
export function normaliseBasePath(basePath = ''): string {
  if (!/^[A-Za-z0-9._~\/-]*$/.test(basePath)) {
    throw new Error(`base path "${basePath}" may only hold letters, digits and . _ ~ - /`);
  }
  const trimmed = basePath.replace(/\/+$/, '');
  return trimmed === '' ? '' : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/**
 * The answer of one request before the per-request headers: a prepared body (with `written`, the bytes made for
 * this very request, given back once sent), or a finished answer.
 */
type Outcome = { prepared: PreparedBody; written?: Uint8Array } | { answer: AppResponse };

/**
 * What a path no route matches was most likely meant to be, said after the 404's reason: a map's vector tile asked for
 * with another suffix than `.mvt` (`.pbf`, as some map SDKs' examples write it).
 */
function notFoundHint(pathname: string): string {
  return /\/maps\/[^/]+\/tiles\/\d+\/\d+\/\d+\.(?!mvt$)[^/.]+$/.test(pathname)
    ? ' A map\'s vector tiles end in .mvt: /maps/{map_id}/tiles/{z}/{x}/{y}.mvt (its tiles.json gives the URL).' : '';
}

/** Builds the app over a content store. */
export function createApp(deps: AppDeps): App {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger ?? createLogger('info');
  const corsOrigins = deps.corsOrigins ?? '*';
  const basePath = normaliseBasePath(deps.basePath);
  const router = Router({ base: basePath });
  const routes = matchOrder(deps.routes ?? (allRoutes as readonly RouteSpec[]));
  const publicUrl = normalisePublicUrl(deps.publicUrl ?? `http://localhost${basePath}`);
  // Routes are matched on path alone; the method is decided afterwards, so a known path gets 405, not 404.
  for (const spec of routes) router.all(spec.path, (routed: Routed) => ({ spec, params: routed.params ?? {} }));
  const pages = createPages(basePath, { publicUrl, ...deps.pages, ...(deps.basemap ? { basemap: deps.basemap } : {}) });

  // The response cache belongs to one content version: a new model starts an empty one.
  let cachedModel: ReadModel | null = null;
  let cache = new ResponseCache();
  /** Cacheable answers served from the response cache (hits) and made afresh (misses), since the start: on /readyz. */
  const cacheCounts = { hits: 0, misses: 0 };
  function cacheFor(model: ReadModel): ResponseCache {
    if (model !== cachedModel) {
      cachedModel = model;
      cache = new ResponseCache();
    }
    return cache;
  }

  let draining = false;

  /**
   * The router's match for each path without parameters it matched (`/events`, `/maps`): the same every time, so
   * a path asked for again skips itty-router's URL parse, query object and regular expressions (measured on Bun,
   * together with valibot's absent parameters in route.ts: docs/decisions.md, itty-router). A match
   * depends on the path alone, but paths with parameters (`/markers/:id`, one per id) go to the router every time
   * so they cannot fill the room the busy paths need, as do paths it does not match; at most STATIC_PATHS are kept.
   */
  const staticPaths = new Map<string, Match>();
  async function route(method: string, url: URL): Promise<Match | undefined> {
    const known = staticPaths.get(url.pathname);
    if (known) return known;
    // The router is given the path alone: it would read the query into an object nobody uses (the parameters come
    // from readQuery).
    const match = (await router.fetch({ method, url: `http://localhost${url.pathname}` })) as Match | undefined;
    if (match && Object.keys(match.params).length === 0 && staticPaths.size < STATIC_PATHS) staticPaths.set(url.pathname, match);
    return match;
  }

  /** The kept answer for a key and the request headers it varies by, counted as a hit. */
  function cached(req: AppRequest, key: string): PreparedBody | undefined {
    const hit = cacheFor(deps.store.model).get(key, now().getTime(), req.header);
    if (hit) cacheCounts.hits++;
    return hit;
  }

  /** The route a request matched, so its own headers reach error responses too. */
  interface Matched { spec?: RouteSpec }

  async function handle(req: AppRequest, matched: Matched): Promise<Outcome> {
    if (req.target.length > MAX_TARGET_LENGTH) {
      throw new HttpError(414, `The request target is ${req.target.length} characters long; the limit is ${MAX_TARGET_LENGTH}.`);
    }
    const readable = req.method === 'GET' || req.method === 'HEAD';
    const health = healthAnswer(req.target);
    if (health) {
      if (readable) return { answer: health };
      if (req.method === 'OPTIONS') return { answer: PREFLIGHT };
      throw new HttpError(405, `${req.method} is not allowed; this API is read-only.`, { headers: { allow: ALLOWED_METHODS } });
    }
    // A repeated content request is answered from memory, before routing: same target, same content, same request
    // headers its answer varies by (Accept-Language, Authorization: what its Vary names), same answer.
    if (readable && deps.store.ready) {
      const hit = cached(req, req.target);
      if (hit) return { prepared: hit };
    }
    const url = targetUrl(req.target);
    const match = await route(req.method, url);
    if (!match) {
      const page = await pageOutcome(req, url, readable);
      if (page) return page;
      throw new HttpError(404, `No route matches ${url.pathname}.${notFoundHint(url.pathname)}`);
    }
    matched.spec = match.spec;
    if (req.method === 'OPTIONS') return { answer: PREFLIGHT };
    if (!readable) {
      throw new HttpError(405, `${req.method} is not allowed; this API is read-only.`, { headers: { allow: ALLOWED_METHODS } });
    }
    const { spec } = match;
    // The query is read once, and both the parameters and the cache key are made from that reading.
    const entries = readQuery(req.target);
    const { params, query } = parseParams(spec, match.params, entries);
    if (!deps.store.ready) throw new HttpError(503, 'The content is still loading; try again shortly.', { headers: { 'retry-after': '1' } });
    // One model for the whole request, so the body and X-Content-Version come from the same content version.
    const model = deps.store.model;
    // A target with parameters the route ignores shares the entry of the same request without them.
    const texts = spec.texts !== false;
    const key = cacheKey(req.target, entries, queryEntries(spec));
    if (key !== req.target) {
      const hit = cached(req, key);
      if (hit) return { prepared: hit };
    }
    // `fields` and `omit` (src/http/fields.ts): checked before any work, applied to the answer as written.
    const mask = spec.records ? FieldMask.of(query as { fields?: string[]; omit?: string[] }) : null;
    const at = now();
    const language = new LanguageChoice(model, query as { lang?: string; langs?: 'all' }, req.header('accept-language'));
    let live = false;
    const result = await spec.handle({ header: req.header, params, query, model, store: deps.store, now: at, basePath, publicUrl, language, basemap: deps.basemap ?? null,
      followsClock: () => { live = true; }, fields: mask });
    const personal = result instanceof PrivateReply;
    const cacheClass = personal ? 'private' : live ? 'live' : spec.cacheClass?.(query) ?? 'content';
    // The map the answer is about names the languages it is negotiated against, unless the handler chose already.
    const named = params.map_id ?? params.mapId ?? (query as { map_id?: string }).map_id;
    const mapId = language.mapId ?? (typeof named === 'string' ? named : null);
    if (texts && !language.decided) {
      if (mapId !== null) language.forMap(mapId);
      else language.forContent();
    }
    // An answer about one map says where that map's changes stand (the change feed's `since`).
    const changeToken = mapId === null ? null : model.changes.tokenOf(mapId.toLowerCase());
    const served = texts ? language.decided!.lang : undefined;
    const value = personal ? result.body : result;
    const whole = result instanceof JsonBytes ? result.bytes : result instanceof MediaReply ? result.body
      : served !== undefined ? renderIn(served, () => JSON.stringify(value)) : JSON.stringify(value);
    const body = mask && !(result instanceof JsonBytes && result.selected) ? cutRecords(typeof whole === 'string' ? utf8(whole) : whole, spec.records!, mask) : whole;
    // A live answer reads "now" to the whole second, so it holds until that second is over.
    const expiresAt = cacheClass === 'live' ? wholeSecond(at) + 1000 : Infinity;
    // Replicas on the same content version answer the same bytes, ETag and version number.
    const headers: Record<string, string> = { ...spec.headers, 'x-content-version': String(model.version) };
    if (changeToken !== null) headers['x-change-token'] = changeToken;
    if (texts) {
      headers['content-language'] = language.contentLanguage;
      headers.vary = addVary(headers.vary, 'Accept-Language');
    }
    const prepared = new PreparedBody(body, spec.contentType ?? JSON_TYPE, cacheClass, headers, expiresAt, { ranges: spec.ranges });
    if (cacheClass !== 'private') {
      cacheFor(model).set(key, prepared, req.header, texts && language.named);
      cacheCounts.misses++;
    }
    return { prepared, ...(result instanceof JsonBytes ? { written: result.bytes } : {}) };
  }

  /** A page or one of its assets below the base path (src/pages/), or null when the path is neither. */
  async function pageOutcome(req: AppRequest, url: URL, readable: boolean): Promise<Outcome | null> {
    const below = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) || '/' : null;
    if (below === null || !pages.has(below)) return null;
    if (req.method === 'OPTIONS') return { answer: PREFLIGHT };
    if (!readable) throw new HttpError(405, `${req.method} is not allowed; these pages are read-only.`, { headers: { allow: ALLOWED_METHODS } });
    // A page names the content (its maps, its version); the assets do not depend on it.
    if (!below.startsWith('/assets/') && !deps.store.ready) {
      throw new HttpError(503, 'The content is still loading; try again shortly.', { headers: { 'retry-after': '1' } });
    }
    const prepared = await pages.answer(below, url.searchParams, () => deps.store.model);
    return prepared && { prepared };
  }

  /** Vary: Origin with a list of origins (the CORS headers then depend on it), and Connection: close while draining. */
  function lastHeaders(headers: Record<string, string>): Record<string, string> {
    if (corsOrigins !== '*') headers.vary = addVary(headers.vary, 'Origin');
    if (draining) headers.connection = 'close';
    return headers;
  }

  /** Adds what every answer carries (CORS, the request id) and applies HEAD and If-None-Match. */
  function finish(req: AppRequest, outcome: Outcome, requestId: string, spec: RouteSpec | undefined): AppResponse {
    if ('answer' in outcome) {
      const { status, headers, body } = outcome.answer;
      return { status, headers: lastHeaders({ ...headers, ...corsHeaders(req), ...spec?.headers, ...SECURITY_HEADERS, 'x-request-id': requestId }),
        body: req.method === 'HEAD' ? null : body };
    }
    // A Range request reads the body as it is: its parts are never compressed.
    const range = outcome.prepared.ranges && req.method === 'GET' ? req.header('range') : null;
    const variant = range !== null ? outcome.prepared.whole : outcome.prepared.variant(negotiateEncoding(req.header('accept-encoding')));
    // The bytes made for this request were copied if the cache kept them, and compressed (synchronously) if a
    // coding was asked for: once the response is sent, nothing reads them.
    const written = outcome.written;
    const release = written ? () => releaseBody(written) : undefined;
    // A page brings its own Content-Security-Policy (src/pages/pages.ts); every other answer has the one for JSON.
    const headers = lastHeaders({ ...SECURITY_HEADERS, ...variant.headers, ...corsHeaders(req), 'x-request-id': requestId });
    // Conditional GET: a matching If-None-Match gets 304 with the validators and no body. A client holding the
    // first, fast-compressed bytes of a variant since compressed again still holds the same content: 304 with its tag.
    const ifNoneMatch = req.header('if-none-match');
    const previous = variant.previousEtag;
    const matched = ifNoneMatch === null ? null : etagMatches(ifNoneMatch, headers.etag) ? headers.etag
      : previous && etagMatches(ifNoneMatch, previous) ? previous : null;
    if (matched !== null) {
      const { 'content-type': _type, 'content-length': _length, 'content-encoding': _encoding, ...rest } = headers;
      return { status: 304, headers: { ...rest, etag: matched }, body: null, ...(release ? { release } : {}) };
    }
    if (range !== null && ifRangeAllows(req.header('if-range'), headers.etag)) {
      const size = variant.body.byteLength;
      const part = parseRange(range, size);
      if (part === 'unsatisfiable') {
        const problem = problemAnswer(new HttpError(416, `The range ${range.slice(0, 100)} holds no byte of the ${size} bytes.`,
          { headers: { 'content-range': `bytes */${size}` } }), req.target.split('?', 1)[0]);
        return { ...problem, headers: lastHeaders({ ...problem.headers, ...corsHeaders(req), ...SECURITY_HEADERS, 'x-request-id': requestId }),
          ...(release ? { release } : {}) };
      }
      if (part !== null) {
        const body = variant.body.subarray(part.start, part.end + 1);
        return { status: 206, headers: { ...headers, 'content-range': `bytes ${part.start}-${part.end}/${size}`, 'content-length': String(body.byteLength) },
          body, ...(release ? { release } : {}) };
      }
    }
    // HEAD: the same status and headers as GET, no body.
    return { status: 200, headers, body: req.method === 'HEAD' ? null : variant.body, ...(release ? { release } : {}) };
  }

  /** The CORS headers for a request: `*`, or its Origin when that is in the allowed list. */
  function corsHeaders(req: AppRequest): Record<string, string> {
    if (corsOrigins === '*') return CORS_HEADERS;
    const origin = req.header('origin');
    return origin !== null && corsOrigins.includes(origin) ? { ...CORS_HEADERS, 'access-control-allow-origin': origin } : {};
  }

  /** GET /healthz (the process answers) and /readyz (a content version served, and the last publish), at the root, never cached. */
  function healthAnswer(target: string): AppResponse | null {
    const path = target.split('?', 1)[0];
    if (path !== '/healthz' && path !== '/readyz') return null;
    const ready = deps.store.ready && !draining;
    const status = path === '/healthz' || ready ? 200 : 503;
    const body = utf8(JSON.stringify(path === '/healthz' ? { status: 'ok' } : readiness()));
    return { status, headers: { 'content-type': JSON_TYPE, 'content-length': String(body.byteLength), 'cache-control': CACHE_CONTROL.none }, body };
  }

  /**
   * What /readyz says: the version served (if any) and its warnings, whether it is behind the version the store
   * makes current (and which version could not be loaded, and why), and the outcome of the last publish. Behind
   * or with its database in trouble, a serving process still answers 200 ("degraded"): a 503 would empty a fleet
   * in which every replica fails the same version, while each could serve the one before.
   */
  function readiness(): Record<string, unknown> {
    const { lastPublish: last, storeCurrent, notLoaded } = deps.store;
    const lastPublish = last && { ...last, problems: last.problems.slice(0, 100), problem_count: last.problems.length };
    // A replica also says how its database is: unreachable, or refusing it.
    const database = deps.store.database && { ...deps.store.database };
    const loading = { current_version: storeCurrent?.version ?? null, not_loaded: notLoaded };
    if (draining) return { status: 'stopping' };
    // A process that cannot serve anything until a good bundle is published says so, and why, instead of `loading`.
    const unavailable = deps.store.unavailable ?? null;
    if (!deps.store.ready) {
      return { status: unavailable ? 'unavailable' : 'loading', ...(unavailable ? { reason: unavailable } : {}), ...loading, last_publish: lastPublish,
        ...(database ? { database } : {}) };
    }
    const model = deps.store.model;
    const behind = notLoaded !== null || (storeCurrent !== null && (storeCurrent.version !== model.version || storeCurrent.checksum !== model.checksum));
    const troubled = database !== null && (!database.reachable || database.error !== null);
    return { status: behind || troubled ? 'degraded' : 'ready', version: model.version, content_version: model.checksum,
      published_at: model.publishedAt, behind, ...loading, warnings: model.warnings?.first ?? null, warning_count: model.warnings?.count ?? null,
      serving_last_good: last !== null && (last.outcome === 'refused' || last.outcome === 'failed'),
      last_publish: lastPublish, ...(database ? { database } : {}), response_cache: { ...cacheCounts, ...cache.stats() },
      ...(deps.thread !== undefined ? { thread: deps.thread } : {}) };
  }

  async function serve(request: AppRequest): Promise<AppResponse> {
    const began = performance.now();
    noteRequest();
    // An absolute-form target (`GET http://host/path`) is answered as its path and query, like any other.
    const req = request.target.startsWith('/') ? request : { ...request, target: originForm(request.target) };
    const answer = await answerRequest(req);
    if (logger.enabled('info')) {
      logger.log('info', 'request', { request_id: answer.headers['x-request-id'], method: req.method, path: req.target.slice(0, 2048),
        status: answer.status, bytes: answer.body?.byteLength ?? 0, ms: Math.round((performance.now() - began) * 100) / 100,
        ...(deps.thread !== undefined ? { thread: deps.thread } : {}) });
    }
    return answer;
  }

  async function answerRequest(req: AppRequest): Promise<AppResponse> {
    const requestId = requestIdFor(req.header('x-request-id'));
    const matched: Matched = {};
    let outcome: Outcome;
    try {
      outcome = await handle(req, matched);
    } catch (err) {
      const instance = safePath(req.target);
      if (err instanceof HttpError) outcome = { answer: problemAnswer(err, instance) };
      else {
        logger.log('error', 'unexpected error', { request_id: requestId, method: req.method, path: instance,
          error: err instanceof Error ? err.stack ?? err.message : String(err) });
        outcome = { answer: problemAnswer(new HttpError(500, 'An unexpected error occurred; it has been logged with the request id.'), instance) };
      }
    }
    return finish(req, outcome, requestId, matched.spec);
  }

  async function fetch(request: Request): Promise<Response> {
    // A Request's url is absolute and normalised: the target is everything from the first slash after the host.
    // Bun leaves it relative ("/path") for an HTTP/1.0 request without Host.
    const url = request.url;
    const slash = url.startsWith('/') ? 0 : url.indexOf('/', url.indexOf('//') + 2);
    const answer = await serve({ method: request.method, target: slash < 0 ? '/' : url.slice(slash), header: (name) => request.headers.get(name) });
    const response = new Response(answer.body, { status: answer.status, headers: answer.headers });
    // A Response holds a copy of the bytes it is given (the Fetch standard's "extract a body" copies a
    // BufferSource; tests/body-release.test.ts checks it on Bun, which serves through here), so the page they were
    // written in is handed back at once. Kept, each page's block waited for the garbage collector, and Bun took a
    // new block for every block's worth of distinct /events answers (docs/decisions.md, Engineering).
    answer.release?.();
    return response;
  }

  return { fetch, serve, routes, drain: () => void (draining = true) };
}

/**
 * The URL of a request target. An origin-form target (`/path?query`) is always a path, even one starting with
 * `//`, which a URL parser would read as a host (`//` alone then fails to parse, and `//other.host/markers/1`
 * would lose its first segments); an absolute-form target (`http://host/path`, which RFC 9112 asks servers to
 * accept) keeps its path and query; anything else is a bad request.
 */
function targetUrl(target: string): URL {
  try {
    if (target.startsWith('/')) return new URL(`http://localhost${target}`);
    const url = new URL(target);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // answered below
  }
  throw new HttpError(400, 'The request target is neither a path nor an http(s) URL.');
}

/** The origin form (path and query) of an absolute-form target; a target that is not a URL is kept for handle() to refuse. */
function originForm(target: string): string {
  try {
    const url = targetUrl(target);
    return url.pathname + url.search;
  } catch {
    return target;
  }
}

function safePath(target: string): string {
  try {
    return targetUrl(target).pathname;
  } catch {
    return '/';
  }
}
