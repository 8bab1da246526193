/**
 * Route declarations. One declaration holds the path, the valibot schemas of its path and query
 * parameters and of its response, and the handler; the router, the 400s, the OpenAPI document and
 * the test-time response checks are all derived from it.
 */
import * as v from 'valibot';
import type { ServedContent } from '../content/content-store.ts';
import type { ReadModel } from '../content/model/read-model.ts';
import { invalidParams, type ParamError } from './errors.ts';
import { fieldListParam, recordFieldNames, type FieldMask, type RecordsAt } from './fields.ts';
import { languageQuery, oneLanguageQuery, type LanguageChoice } from './language.ts';
import type { QueryEntry } from './query.ts';
import type { CacheClass } from './respond.ts';
import type { PmtilesArchive } from '../geo/pmtiles-archive.ts';

type Entries = v.ObjectEntries;
/** The typed output of a set of parameter schemas. */
export type ParamsOf<E extends Entries> = v.InferOutput<v.ObjectSchema<E, undefined>>;

/** What a handler gets. */
export interface RouteContext<P, Q> {
  /** A request header by lower-case name; null when absent. */
  header(name: string): string | null;
  params: P;
  query: Q;
  model: ReadModel;
  store: ServedContent;
  now: Date;
  /** The base path the routes are mounted under ('' for the root). */
  basePath: string;
  /**
   * The absolute URL clients reach the routes under (`--public-url`; default `http://localhost:PORT` and the base
   * path), with no trailing slash: every absolute link an answer holds is built from it (`publicUrl + '/events/…'`),
   * never from the request's Host header, which a client controls and the response cache would pass on to others.
   */
  publicUrl: string;
  /** The operator's basemap archive (`--basemap`), or null when none is served. */
  basemap: PmtilesArchive | null;
  /**
   * The language of the answer (`lang`, `langs`, Accept-Language). A handler that writes text itself (event
   * records) or whose map is not in its parameters calls `forMap`; otherwise the app negotiates after it.
   */
  language: LanguageChoice;
  /**
   * Marks this answer as following the clock (`live`), for a route where only some answers do (the id of a series
   * answers its next occurrences from now; the id of an event answers no clock): `cacheClass` says it of a whole query.
   */
  followsClock(): void;
  /**
   * The fields `fields` or `omit` keep of each record (null: every field), on a route that answers records. The app
   * cuts them from the answer; a handler that writes its records with only these (JsonBytes `selected`) saves that.
   */
  fields: FieldMask | null;
}

/** A body that carries the caller's own data: `Cache-Control: private`, never kept by the response cache. */
export class PrivateReply {
  readonly body: unknown;
  constructor(body: unknown) {
    this.body = body;
  }
}

/**
 * A body already written as JSON bytes (a page of records copied from their columns), sent as it is. `selected`: its
 * records hold only the fields the request keeps (RouteContext.fields), so the app does not cut them again.
 */
export class JsonBytes {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly selected: boolean;
  constructor(bytes: Uint8Array<ArrayBuffer>, selected = false) {
    this.bytes = bytes;
    this.selected = selected;
  }
}

/**
 * A body in the route's own media type other than JSON (`contentType`: iCalendar, HTML, GPX, KML, a vector tile, an
 * image, a file read by byte range): its text or bytes, sent as they are, with the same validation, ETag, 304,
 * compression and response cache as a JSON answer.
 */
export class MediaReply {
  readonly body: string | Uint8Array<ArrayBuffer>;
  constructor(body: string | Uint8Array<ArrayBuffer>) {
    this.body = body;
  }
}

/** The path suffix that chooses a route's format (`/events.ics`, `/tiles/{z}/{x}/{y}.mvt`), or null for none. */
export function formatSuffix(path: string): string | null {
  return /\.([a-z0-9]+)$/i.exec(path)?.[1] ?? null;
}

/**
 * Routes in the order they are matched: a route whose format is chosen by a path suffix before the others
 * (`/events/:id.ics` before `/events/:id`, whose UUID check would refuse `<uuid>.ics`); otherwise as given.
 */
export function matchOrder(routes: readonly RouteSpec[]): RouteSpec[] {
  return [...routes.filter((r) => formatSuffix(r.path) !== null), ...routes.filter((r) => formatSuffix(r.path) === null)];
}

/** One GET route. */
export interface RouteSpec<P extends Entries = Entries, Q extends Entries = Entries> {
  /** itty-router path, relative to the base path: `/maps/:map_id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** OpenAPI tag (resource family). */
  tag: string;
  pathParams: P;
  query: Q;
  /**
   * True when a query parameter the route does not take is an error (400 naming it), as OGC API Features requires;
   * every other route ignores such parameters (docs/api-conventions.md).
   */
  strictQuery?: boolean;
  /** Checks across parameters; each check skips parameters already reported bad. */
  crossCheck?: (query: Partial<ParamsOf<Q>>, bad: Set<string>) => ParamError[];
  /**
   * True when every answer is written in one language (a page, JSON-LD, a calendar, a tile, a download, an OGC
   * collection or feature): `langs=all` is then a bad parameter (`oneLanguageQuery`), named in one 400 with the others.
   */
  oneLanguage?: boolean;
  /**
   * Checks across path parameters (a tile's x and y below 2^z), made with the others so one 400 names every bad one; an
   * error it gives for a parameter the schema refused takes the place of the schema's (it knows more).
   */
  pathCheck?: (params: Partial<ParamsOf<P>>, bad: Set<string>) => ParamError[];
  /**
   * Schema of the 200 body. A route of another media type than JSON declares what its handler answers (`v.string()`
   * for text, `v.instance(Uint8Array)` for bytes); OpenAPI documents its body as text or binary of that type.
   */
  response: v.GenericSchema;
  /**
   * The media type of the 200 body. Default `application/json; charset=utf-8`. Another type is chosen by the path's
   * suffix (`/events.ics`: one format rule for every output), and its handler answers a MediaReply.
   */
  contentType?: string;
  /**
   * Answers `Range` requests (RFC 9110 §14) with 206, or 416 when no byte of the range exists: a file a client reads
   * in parts, such as a PMTiles archive. The parts are of the body as it is, never compressed.
   */
  ranges?: boolean;
  /** Headers on every response of the route, errors included (`Vary: Authorization`, say). */
  headers?: Record<string, string>;
  /**
   * `live` when the answer to this query depends on the current time (a window defaulting to now, taken to
   * the whole second with `wholeSecond`): a short Cache-Control lifetime, and the response cache keeps it only
   * until that second is over. Default `content`: depends only on the content and the request.
   */
  cacheClass?: (query: ParamsOf<Q>) => 'content' | 'live';
  /** Error statuses the route can answer besides 400 (listed in OpenAPI). */
  errors: number[];
  /**
   * Where the route's records are in its JSON body (src/http/fields.ts): the route then takes `fields` and `omit`,
   * naming the top-level fields of each record its response schema documents there.
   */
  records?: RecordsAt;
  /**
   * False for a route whose answer holds no human-readable text (the OpenAPI document). Every other route takes
   * `lang` and `langs`, and answers with Content-Language and `Vary: Accept-Language`.
   */
  texts?: boolean;
  handle(ctx: RouteContext<ParamsOf<P>, ParamsOf<Q>>): unknown | Promise<unknown>;
}

/**
 * "Now" as a default window start, to the whole second. Every request in the same second then shares one
 * filter set and one answer: the match list is computed at most twice (it is kept from its second computation),
 * and a `live` answer can be kept until the second is over (see `cacheClass`).
 */
export function wholeSecond(now: Date): number {
  return Math.floor(now.getTime() / 1000) * 1000;
}

/** Declares a route with full typing of its parameters. */
export function defineRoute<P extends Entries, Q extends Entries>(spec: RouteSpec<P, Q>): RouteSpec<P, Q> {
  return spec;
}

const withLanguage = new WeakMap<RouteSpec, Entries>();

/**
 * The query parameters a route takes: its own, `lang` and `langs` when it serves text, and `fields` and `omit` when it
 * answers records.
 */
export function queryEntries(spec: RouteSpec): Entries {
  if (spec.texts === false && !spec.records) return spec.query;
  let entries = withLanguage.get(spec);
  if (!entries) {
    const language = spec.texts === false ? {} : spec.oneLanguage ? oneLanguageQuery : languageQuery;
    withLanguage.set(spec, (entries = { ...spec.query, ...language, ...fieldQuery(spec) }));
  }
  return entries;
}

/** `fields` and `omit` over a route's records' fields (none for a route without records). */
function fieldQuery(spec: RouteSpec): Entries {
  if (!spec.records) return {};
  const names = recordFieldNames(spec.response, spec.records);
  const what = spec.records === 'body' ? 'the record' : 'each record';
  return {
    fields: fieldListParam('fields', names, `Comma-separated top-level fields of ${what} to keep (every other is left out); not with omit`),
    omit: fieldListParam('omit', names, `Comma-separated top-level fields of ${what} to leave out; not with fields`),
  };
}

/**
 * What each schema made lately of a value (absent: its default, or undefined), when that succeeded with a plain
 * value (a string, a number, a boolean, null or undefined: nothing a handler could change): the same every time, so
 * a request pays valibot for the values no request sent lately (a point of its own), not for every parameter its
 * route declares (/events declares fourteen) nor for the map id, radius or window most requests repeat. At most
 * KEPT_PARSES values per schema; when full, it starts over.
 */
const parsedValues = new WeakMap<Entries[string], Map<string | undefined, unknown>>();
const KEPT_PARSES = 256;

/** Parses each parameter on its own (skipping those already in `bad`), so one 400 can name every bad one. */
function parseEntries(entries: Entries, raw: (name: string) => string | undefined, where: 'path' | 'query',
  errors: ParamError[], bad: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(entries)) {
    if (bad.has(name)) continue;
    const input = raw(name);
    let kept = parsedValues.get(schema);
    if (kept?.has(input)) {
      out[name] = kept.get(input);
      continue;
    }
    const result = v.safeParse(schema, input);
    if (result.success && (result.output === null || (typeof result.output !== 'object' && typeof result.output !== 'function'))) {
      if (!kept) parsedValues.set(schema, (kept = new Map()));
      if (kept.size >= KEPT_PARSES) kept.clear();
      kept.set(input, result.output);
    }
    if (result.success) out[name] = result.output;
    else {
      errors.push({ name, in: where, reason: result.issues[0].message });
      bad.add(name);
    }
  }
  return out;
}

/**
 * Parses and validates path and query parameters; throws a 400 naming every bad one. `query` is the request's
 * query as `readQuery` read it, the reading its cache key is made from too.
 */
export function parseParams<P extends Entries, Q extends Entries>(spec: RouteSpec<P, Q>, pathParams: Record<string, string>,
  query: readonly QueryEntry[]): { params: ParamsOf<P>; query: ParamsOf<Q> } {
  const errors: ParamError[] = [];
  const bad = new Set<string>();
  const params = parseEntries(spec.pathParams, (name) => safeDecode(pathParams[name]), 'path', errors, bad);
  // A check across path parameters may say more about one the schema refused: its error then takes that one's place.
  if (spec.pathCheck) {
    for (const error of spec.pathCheck(params as Partial<ParamsOf<P>>, bad)) {
      const at = errors.findIndex((e) => e.in === error.in && e.name === error.name);
      if (at >= 0) errors[at] = error;
      else errors.push(error);
      bad.add(error.name);
    }
  }
  // Repeats of a declared parameter are ambiguous; repeats of unknown ones are ignored like the rest of them.
  const queryParams = queryEntries(spec as unknown as RouteSpec);
  const values = new Map<string, string>();
  let repeated: Set<string> | undefined;
  for (const { name, value } of query) {
    if (!Object.hasOwn(queryParams, name)) {
      if (spec.strictQuery && !bad.has(name)) {
        errors.push({ name, in: 'query', reason: 'is not a parameter of this route' });
        bad.add(name);
      }
      continue;
    }
    if (values.has(name)) (repeated ??= new Set()).add(name);
    else values.set(name, value);
  }
  if (repeated) {
    for (const name of Object.keys(queryParams)) {
      if (repeated.has(name)) {
        errors.push({ name, in: 'query', reason: 'must be given at most once (put list items in one comma-separated value)' });
        bad.add(name);
      }
    }
  }
  const parsed = parseEntries(queryParams, (name) => values.get(name), 'query', errors, bad);
  if (spec.crossCheck) errors.push(...spec.crossCheck(parsed as Partial<ParamsOf<Q>>, bad));
  if (errors.length > 0) throw invalidParams(errors);
  return { params: params as ParamsOf<P>, query: parsed as ParamsOf<Q> };
}

function safeDecode(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
