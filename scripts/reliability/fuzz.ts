/**
 * The fuzz probe: a seeded generator of raw HTTP/1.1 requests over every path template of the running service's
 * /openapi.json, sent over a small pool of keep-alive node:net sockets, every answer checked.
 *
 * Requests mix real ids of the demo with mutated path values (bad UUIDs, percent-encoding, overlong, unicode,
 * `..`, empty), mutated query values per declared parameter (wrong types, out-of-range numbers, huge lists,
 * repeated, unknown and empty keys), odd methods, odd headers (a huge header, Accept-Encoding variants,
 * If-None-Match and Authorization junk, Origin) and, now and then, raw bytes in the target. The same seed
 * always makes the same requests, in the same order.
 *
 * The checks: an answer carrying `x-request-id` was made by the service (the app sets it on every answer),
 * one without it by the runtime's HTTP parser before the app saw the request (e.g. Node's bare 400). The service
 * must never answer 5xx, and every 4xx it makes must be `application/problem+json` with a JSON body holding
 * type, title, status (equal to the answer's) and detail. Runtime answers and requests that got no answer are
 * counted apart. Used by scripts/reliability.ts (100,000 requests per runtime) and tests/reliability-fuzz.test.ts
 * (2,000); run alone against a running service with
 *
 *   node scripts/reliability/fuzz.ts --port 8787 [--count 5000] [--seed 1] [--sockets 16]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { mulberry32, type Rng } from '../demo/ids.ts';
import { NoAnswerError, RawConnection, requestBytes, type NoAnswer, type RawAnswer } from './raw-http.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The demo bundle the ids come from. */
export const DEMO_BUNDLE = `${ROOT}data/demo-bundle.json`;

// ---------------------------------------------------------------------------------------------------------------
// What to fuzz: the path templates and parameters of /openapi.json, and the demo's real ids

/** One declared parameter (path, query or header) and its JSON schema. */
export interface FuzzParam { name: string; in: string; schema: Record<string, unknown> }

/** One path template (`/maps/{map_id}`) and its parameters. */
export interface FuzzTemplate { path: string; params: FuzzParam[] }

/** The templates of an OpenAPI document's GET operations, plus the unlisted health checks. */
export function templatesFromOpenApi(doc: { paths: Record<string, Record<string, { parameters?: FuzzParam[] }>> }): FuzzTemplate[] {
  const templates: FuzzTemplate[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    const op = ops.get;
    if (!op) continue;
    templates.push({ path, params: (op.parameters ?? []).map((p) => ({ name: p.name, in: p.in, schema: p.schema ?? {} })) });
  }
  for (const path of ['/healthz', '/readyz']) templates.push({ path, params: [] });
  return templates;
}

/** Reads the running service's /openapi.json and returns its templates. */
export async function loadTemplates(base: string): Promise<FuzzTemplate[]> {
  const res = await fetch(`${base}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET ${base}/openapi.json answered ${res.status}`);
  return templatesFromOpenApi(await res.json() as Parameters<typeof templatesFromOpenApi>[0]);
}

/** Real ids of the demo, by parameter name (`map_id`, `marker_id`, ...); `any` holds them all. */
export type DemoIds = Record<string, string[]>;

/** Reads the demo bundle's ids, keyed by the parameter names that take them. */
export function loadDemoIds(bundlePath = DEMO_BUNDLE): DemoIds {
  type Item = { id: string };
  const b = JSON.parse(readFileSync(bundlePath, 'utf8')) as Record<string, Item[]>;
  const ids = (key: string) => (b[key] ?? []).map((x) => x.id);
  const pois = [...ids('markers'), ...ids('paths'), ...ids('polygons')];
  return {
    map_id: ids('maps'), mapId: ids('maps'), publisher_id: ids('publishers'), id: ids('events'), marker_id: ids('markers'),
    path_id: ids('paths'), polygon_id: ids('polygons'), poiId: pois, poi_id: pois, list_id: ids('lists'),
    any: [...ids('maps'), ...ids('publishers'), ...ids('events'), ...pois, ...ids('lists'), ...ids('categories')],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The generator

/** One generated request. */
export interface FuzzRequest {
  /** Its sequence number from the seed. */
  index: number;
  method: string;
  /** The request's bytes as sent. */
  bytes: Buffer;
  /** What was mutated, e.g. `GET /maps/{map_id} path:bad-uuid query:out-of-range header:accept-encoding`. */
  label: string;
  /**
   * Broken at the HTTP level (raw bytes in the target, a header past the runtimes' size limits, conflicting
   * framing, a lowercase method): a runtime may rightly answer it itself or close the connection.
   */
  malformed: boolean;
}

const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const chance = (r: Rng, p: number): boolean => r() < p;

/** A v4-shaped random UUID from the PRNG (so it is seeded too). */
function randomUuid(r: Rng): string {
  const hex = Array.from({ length: 32 }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A real id for a parameter name (an unknown random one when the demo has none of that kind). */
function realId(r: Rng, ids: DemoIds, name: string): string {
  const pool = ids[name];
  return pool && pool.length > 0 && chance(r, 0.9) ? pick(r, pool) : chance(r, 0.5) ? pick(r, ids.any) : randomUuid(r);
}

/** Percent-encodes every byte of a string's UTF-8. */
const encodeAll = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Mutations of a path segment: [name, make]. */
const PATH_MUTATIONS: [string, (r: Rng, id: string) => string][] = [
  ['bad-uuid', (r, id) => pick(r, [id.slice(0, -1), `${id}0`, id.replace(/-/g, ''), id.replace(/[0-9a-f]/, 'g'), `{${id}}`,
    '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'not-a-uuid', '123', '-1', 'null', 'undefined'])],
  ['upper-uuid', (_r, id) => id.toUpperCase()],
  ['percent', (r, id) => pick(r, [encodeAll(id), `${id}%00`, `%zz${id}`, `${id}%2F..`, '%', '%%', '%C0%AF', '%ED%A0%80', '%FF%FE', `${id}%20`])],
  ['overlong', (r, id) => id.repeat(pick(r, [30, 250, 2000]))],
  ['unicode', (r, id) => pick(r, [encodeAll('é🗺️'), encodeAll('\u202e') + id, encodeAll('ｍａｐ'), encodeURIComponent('日本語'), `${id}${encodeAll('\u0000')}`])],
  ['dot-dot', (r) => pick(r, ['..', '.', '%2e%2e', '%2E%2E%2F%2E%2E', '..%2f..%2fetc%2fpasswd', '...'])],
  ['empty', () => ''],
  ['other-kind', (r) => randomUuid(r)],
];

/** Valid and mutated values of a query parameter, by its name and schema. */
function validValue(r: Rng, p: FuzzParam, ids: DemoIds): string {
  const s = p.schema;
  if (Array.isArray(s.enum)) return String(pick(r, s.enum as unknown[]));
  if (s.type === 'integer') {
    const min = Number(s.minimum ?? 0);
    const max = Number(s.maximum ?? 1000);
    return String(chance(r, 0.7) ? int(r, min, Math.min(max, min + 100)) : int(r, min, max));
  }
  if (typeof s.pattern === 'string' && s.pattern.includes('[0-9a-fA-F]{8}')) return realId(r, ids, p.name);
  switch (p.name) {
    case 'lat': return (38.7 + (r() - 0.5) * 0.2).toFixed(5);
    case 'lng': return (-9.14 + (r() - 0.5) * 0.2).toFixed(5);
    case 'from': case 'to': return new Date(Date.UTC(2026, int(r, 0, 23), int(r, 1, 28), int(r, 0, 23))).toISOString().replace('.000', '');
    case 'near': return `${(38.7 + (r() - 0.5) * 0.2).toFixed(5)},${(-9.14 + (r() - 0.5) * 0.2).toFixed(5)}`;
    case 'bbox': return '-9.2,38.68,-9.1,38.76';
    case 'tags': return pick(r, ['free', 'outdoor', 'free,outdoor', 'family']);
    case 'event_types': return pick(r, ['market', 'concert', 'market,concert', 'festival']);
    case 'poi_ids': return Array.from({ length: int(r, 1, 20) }, () => realId(r, ids, 'poi_id')).join(',');
    case 'cursor': return Buffer.from(JSON.stringify({ o: int(r, 0, 100) })).toString('base64url');
    default: return 'x';
  }
}

/** Mutations of a query value: [name, make]. */
const QUERY_MUTATIONS: [string, (r: Rng, p: FuzzParam, valid: string) => string][] = [
  ['wrong-type', (r) => pick(r, ['abc', 'true', '1.5', '0x10', '1e3', '[]', '{}', 'null', 'NaN', 'Infinity', '-0', '%201', '+1', '1,2', 'ﾠ'])],
  ['out-of-range', (r, p) => {
    const min = Number(p.schema.minimum ?? 0);
    const max = Number(p.schema.maximum ?? 1e9);
    return pick(r, [String(min - 1), String(max + 1), '1e308', '-1e308', '9007199254740993', '99999999999999999999999', '-9223372036854775808',
      '91,181', '-91,0', '0,-181', 'NaN,NaN', '1e400,0', '1,2,3', ',', '9,9,8,8', '-180,-90,180,90', '1,1,1,1',
      '2026-13-45', '2026-02-30T00:00:00Z', '+275760-09-13T00:00:01Z', '-000001-01-01T00:00:00Z', '0000-01-01', '2026-01-01T00:00:00+25:00', 'now']);
  }],
  ['huge-list', (r, p, valid) => Array.from({ length: pick(r, [200, 1000, 5000]) }, () => (p.name === 'poi_ids' ? valid.split(',')[0] : valid)).join(',')],
  ['huge-value', (r) => 'a'.repeat(pick(r, [1000, 8000, 9000]))],
  ['empty', () => ''],
  ['percent', (r) => pick(r, ['%', '%zz', '%00', '%C0%AF', '%FF', '%ED%A0%80', encodeAll('☃'), '%2C%2C', '+', ';', '&', '=', '%26%3D'])],
  ['cursor-junk', (r) => pick(r, ['AAAA', '!!!', Buffer.from('{"o":-1}').toString('base64url'), Buffer.from('{"__proto__":{"x":1}}').toString('base64url'),
    Buffer.from('[1,2,3]').toString('base64url'), 'eyJ'.repeat(500)])],
];

/** Unknown query keys, some of them names an object's prototype has. */
const UNKNOWN_KEYS = ['z', 'zz', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', 'MAP_ID', 'limit[]', 'a.b', '%00', encodeURIComponent('日本')];

/** Accept-Encoding variants. */
const ACCEPT_ENCODINGS = ['br', 'gzip', 'deflate', 'zstd', 'identity', 'identity;q=0', '*;q=0', '*', 'br;q=abc', 'gzip, br;q=1.5', 'gzip;q=0, br;q=0',
  'x-unknown', '', ',,,', 'br, gzip, deflate, zstd, compress, x-gzip, '.repeat(50), 'BR', 'gzip;q=0.000001'];
/** If-None-Match junk. */
const IF_NONE_MATCH = ['"junk"', '*', 'W/"x"', '"unterminated', 'W/', '""', Array.from({ length: 300 }, (_, i) => `"${i}"`).join(', '), '"a", *', ',,,'];
/** Authorization junk. */
const AUTHORIZATION = ['Bearer ', 'Bearer x.y.z', 'Basic !!!', 'Basic ' + Buffer.from('admin:admin').toString('base64'), '', 'Negotiate ' + 'A'.repeat(4000),
  'Bearer ' + 'a'.repeat(200)];
/** Origins. */
const ORIGINS = ['https://evil.example', 'null', 'http://127.0.0.1', 'https://' + 'a'.repeat(3000) + '.example', 'file://', '*', ''];
/** Odd methods (GET otherwise). */
const METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'get', 'FOO'];

/** A seeded generator of fuzz requests against `host` (the Host header's value). */
export function fuzzGenerator(templates: readonly FuzzTemplate[], ids: DemoIds, seed: number, host: string): () => FuzzRequest {
  const r = mulberry32(seed);
  let index = 0;
  return () => {
    const labels: string[] = [];
    let malformed = false;
    // The method: GET mostly.
    const method = chance(r, 0.85) ? 'GET' : pick(r, METHODS);
    if (method === 'get') malformed = true;
    const template = chance(r, 0.03) ? { path: pick(r, ['/', '/nope', '/maps', '/events/', '/api/v1/events', '*', '/MAPS/x']), params: [] } : pick(r, templates);
    labels.push(`${method} ${template.path}`);

    // The path: real ids, or one value mutated.
    const mutatePath = chance(r, 0.35);
    const pathParams = template.params.filter((p) => p.in === 'path');
    const mutated = mutatePath && pathParams.length > 0 ? pick(r, pathParams).name : null;
    let path = template.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
      const id = realId(r, ids, name);
      if (name !== mutated) return id;
      const [what, make] = pick(r, PATH_MUTATIONS);
      labels.push(`path:${what}`);
      return make(r, id);
    });
    if (chance(r, 0.02)) {
      const [what, make] = pick(r, [['trailing-slash', (p: string) => `${p}/`], ['double-slash', (p: string) => `/${p}`],
        ['dot-segment', (p: string) => `/maps/..${p}`], ['fragment', (p: string) => `${p}#frag`], ['absolute-form', (p: string) => `http://${host}${p}`],
        ['matrix', (p: string) => `${p};jsessionid=1`], ['scheme-relative', (p: string) => `//evil.example${p}`]] as const);
      labels.push(`path:${what}`);
      path = make(path);
    }

    // The query: some declared parameters, valid or mutated; unknown, repeated and empty keys.
    const pairs: string[] = [];
    const queryParams = template.params.filter((p) => p.in === 'query');
    for (const p of queryParams) {
      if (!chance(r, 0.3)) continue;
      const valid = validValue(r, p, ids);
      if (chance(r, 0.5)) {
        pairs.push(`${p.name}=${valid}`);
        continue;
      }
      const [what, make] = pick(r, QUERY_MUTATIONS);
      labels.push(`query:${what}`);
      pairs.push(`${p.name}=${make(r, p, valid)}`);
      if (chance(r, 0.1)) {
        labels.push('query:repeated');
        pairs.push(`${p.name}=${valid}`);
      }
    }
    if (chance(r, 0.1)) {
      labels.push('query:unknown');
      pairs.push(`${pick(r, UNKNOWN_KEYS)}=${pick(r, ['1', '', String(int(r, 0, 1e9)), 'x'.repeat(100)])}`);
    }
    if (chance(r, 0.04)) {
      labels.push('query:empty-keys');
      pairs.push(pick(r, ['', '=', '=x', '&&', 'a', 'a=', '==', '&=&']));
    }
    let target = pairs.length > 0 || chance(r, 0.02) ? `${path}?${pairs.join('&')}` : path;
    if (template.path === '*') target = '*';

    // The headers: Host, and now and then odd ones.
    const headers: [string, string][] = [['Host', host]];
    let body: Buffer | undefined;
    if (chance(r, 0.15)) {
      const kind = pick(r, ['huge-header', 'accept-encoding', 'if-none-match', 'authorization', 'origin', 'preflight', 'request-id', 'framing',
        'misc', 'no-host', 'bad-header'] as const);
      labels.push(`header:${kind}`);
      switch (kind) {
        case 'huge-header': {
          // Node's limit for all headers is 16 KB: under it the app sees the header, over it the runtime answers 431.
          const size = pick(r, [4000, 12000, 20000, 70000]);
          if (size > 16000) malformed = true;
          headers.push([pick(r, ['X-Pad', 'Cookie', 'User-Agent', 'Accept-Language']), 'x'.repeat(size)]);
          break;
        }
        case 'accept-encoding': headers.push(['Accept-Encoding', pick(r, ACCEPT_ENCODINGS)]); break;
        case 'if-none-match': headers.push(['If-None-Match', pick(r, IF_NONE_MATCH)]); break;
        case 'authorization': headers.push(['Authorization', pick(r, AUTHORIZATION)]); break;
        case 'origin': headers.push(['Origin', pick(r, ORIGINS)]); break;
        case 'preflight':
          headers.push(['Origin', pick(r, ORIGINS)], ['Access-Control-Request-Method', pick(r, ['GET', 'DELETE', 'FOO', ''])],
            ['Access-Control-Request-Headers', pick(r, ['authorization', 'x-a, x-b', '*', 'a'.repeat(500)])]);
          break;
        case 'request-id': headers.push(['X-Request-Id', pick(r, ['', 'abc', 'x'.repeat(5000), '\u00e9', 'a b c', '../../etc'])]); break;
        case 'framing': {
          const which = pick(r, ['content-length', 'chunked', 'both', 'bad-length', 'expect']);
          const payload = Buffer.from('{"a":1}');
          if (which === 'content-length') { headers.push(['Content-Length', String(payload.length)]); body = payload; }
          else if (which === 'chunked') { headers.push(['Transfer-Encoding', 'chunked']); body = Buffer.from(`${payload.length.toString(16)}\r\n${payload}\r\n0\r\n\r\n`); }
          else if (which === 'both') {
            // Request smuggling's shape: runtimes must refuse it (RFC 9112 §6.1).
            malformed = true;
            headers.push(['Content-Length', '5'], ['Transfer-Encoding', 'chunked']);
            body = Buffer.from('0\r\n\r\n');
          } else if (which === 'bad-length') { malformed = true; headers.push(['Content-Length', pick(r, ['abc', '-1', '1, 2', '99999999999999999999'])]); }
          else headers.push(['Expect', '100-continue'], ['Content-Length', '0']);
          labels.push(`framing:${which}`);
          break;
        }
        case 'misc':
          headers.push(pick(r, [['Range', 'bytes=junk'], ['Range', 'bytes=0-0,1-1,2-2'], ['Accept', 'text/html;q=abc'], ['Accept', '*/*;q=0'],
            ['If-Modified-Since', 'yesterday'], ['Content-Type', 'multipart/form-data; boundary='], ['X-Forwarded-For', '1.2.3.4, ' + 'a'.repeat(300)],
            ['Connection', 'close'], ['Connection', 'upgrade, keep-alive'], ['Cache-Control', 'no-cache, max-age=-1'], ['Accept-Language', '*;q=2']] as [string, string][]));
          break;
        case 'no-host':
          // HTTP/1.1 requires Host (RFC 9112 §3.2): a runtime may refuse it before the app.
          malformed = true;
          headers.shift();
          break;
        case 'bad-header':
          malformed = true;
          headers.push(pick(r, [['X Bad', 'v'], ['X-A', 'v\r\n folded'], ['Host', 'second.example'], ['', 'v'], ['X-Nul', 'a\u0000b']] as [string, string][]));
          break;
      }
    }
    if (body === undefined && (method === 'POST' || method === 'PUT' || method === 'PATCH')) {
      body = Buffer.from(JSON.stringify({ fuzz: index }));
      headers.push(['Content-Type', 'application/json'], ['Content-Length', String(body.length)]);
    }

    // Now and then raw bytes (control characters, spaces, high bytes) in the target.
    let targetBytes: string | Buffer = target;
    if (chance(r, 0.02)) {
      malformed = true;
      labels.push('target:raw-bytes');
      const raw = Buffer.from(target, 'utf8');
      const at = int(r, 1, raw.length);
      const junk = Buffer.from(Array.from({ length: int(r, 1, 4) }, () => pick(r, [0x00, 0x01, 0x09, 0x0b, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xff, 0x22, 0x3c, 0x5c])));
      targetBytes = Buffer.concat([raw.subarray(0, at), junk, raw.subarray(at)]);
    }
    const bytes = requestBytes(method, targetBytes, headers, body);
    // A request line and headers past 16 KB exceed the runtimes' own limits (Node's --max-http-header-size default).
    if (bytes.length - (body?.length ?? 0) > 16 * 1024 && !malformed) {
      malformed = true;
      labels.push('oversize');
    }
    return { index: index++, method, bytes, label: labels.join(' '), malformed };
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The checks

/** Decodes a body by its Content-Encoding (problem bodies are expected plain, but a coded one is still read). */
function decode(body: Buffer, coding: string | undefined): Buffer {
  switch ((coding ?? '').trim().toLowerCase()) {
    case '': case 'identity': return body;
    case 'br': return brotliDecompressSync(body);
    case 'gzip': case 'x-gzip': return gunzipSync(body);
    case 'deflate': return inflateSync(body);
    case 'zstd': {
      const zstd = (zlib as unknown as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync;
      if (!zstd) throw new Error('zstd is not available to decode this body');
      return zstd(body);
    }
    default: throw new Error(`unknown content-encoding ${coding}`);
  }
}

/** Whether the service made an answer: the app sets x-request-id on every one; a runtime's own answers lack it. */
export const fromService = (a: RawAnswer): boolean => a.headers['x-request-id'] !== undefined;

/**
 * What is wrong with a service 4xx as problem+json (null when nothing): the content-type, and a JSON body
 * with string type, title and detail and a numeric status equal to the answer's. A HEAD answer has no body to read.
 */
export function problemViolation(a: RawAnswer, method: string): string | null {
  const type = a.headers['content-type'] ?? '';
  if (!/^application\/problem\+json\b/i.test(type)) return `content-type ${JSON.stringify(type)}, not application/problem+json`;
  if (method.toUpperCase() === 'HEAD') return null;
  let body: unknown;
  try {
    body = JSON.parse(decode(a.body, a.headers['content-encoding']).toString('utf8'));
  } catch (err) {
    return `the body is not JSON (${(err as Error).message.slice(0, 80)}): ${JSON.stringify(a.body.subarray(0, 80).toString('latin1'))}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not a JSON object';
  const b = body as Record<string, unknown>;
  const missing = ['type', 'title', 'detail'].filter((k) => typeof b[k] !== 'string');
  if (missing.length > 0) return `the body lacks string ${missing.join(', ')}`;
  if (b.status !== a.status) return `the body's status ${JSON.stringify(b.status)} is not the answer's ${a.status}`;
  return null;
}

/** One kept example of a request and what became of it. */
export interface FuzzSample { index: number; label: string; request: string; status: number | null; detail: string }

/** What a fuzz run found. */
export interface FuzzResult {
  seed: number;
  /** Requests asked for, and sent (fewer when the time limit or a dead server stopped the run). */
  requested: number;
  sent: number;
  seconds: number;
  rps: number;
  sockets: number;
  /** Answers by status: made by the service (x-request-id) and by the runtime itself. */
  service: Record<string, number>;
  runtime: Record<string, number>;
  /** Service answers >= 500 (target 0). */
  service5xx: number;
  /** Service 4xx answers that are not well-formed problem+json (target 0). */
  problemViolations: number;
  /** Requests that got no answer, by why, split by whether the request was malformed at the HTTP level. */
  noAnswer: { wellFormed: Partial<Record<NoAnswer, number>>; malformed: Partial<Record<NoAnswer, number>> };
  /** Well-formed requests with no answer, by method (a runtime may drop a method it does not know). */
  noAnswerByMethod: Record<string, number>;
  /** New connections the pool opened (the first `sockets`, then one per connection the server closed). */
  connectionsOpened: number;
  /** Examples: service 5xx and problem violations, runtime answers, requests with no answer. */
  samples: { violations: FuzzSample[]; runtime: FuzzSample[]; noAnswer: FuzzSample[] };
  /** Why the run ended before every request was sent, or null. */
  stoppedEarly: string | null;
}

/** How the pool runs. */
export interface FuzzOptions {
  port: number;
  count: number;
  seed: number;
  templates: readonly FuzzTemplate[];
  ids: DemoIds;
  /** Keep-alive sockets in the pool (16). */
  sockets?: number;
  /** Longest wait for one answer (10 s). */
  timeoutMs?: number;
  /** Stop sending after this many seconds, whatever the count (600). */
  maxSeconds?: number;
  /** Called every 5 s with the requests sent so far. */
  onProgress?: (sent: number) => void;
}

/** The first bytes of a request, readable (control and high bytes escaped). */
function showRequest(bytes: Buffer): string {
  const text = bytes.subarray(0, 300).toString('latin1').replace(/[^\x20-\x7e]/g, (c) => (c === '\r' ? '' : c === '\n' ? '⏎' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
  return bytes.length > 300 ? `${text}… (${bytes.length} bytes)` : text;
}

/** Keeps up to `max` samples, at most 3 of any one label (so one recurring case does not crowd out the rest). */
function keep(list: FuzzSample[], sample: FuzzSample, max = 20): void {
  if (list.length >= max) return;
  if (list.filter((s) => s.label === sample.label).length >= 3) return;
  list.push(sample);
}

/**
 * Sends `count` generated requests over `sockets` keep-alive connections, one request at a time on each,
 * reconnecting whenever the server closes one, and checks every answer.
 */
export async function runFuzz(o: FuzzOptions): Promise<FuzzResult> {
  const sockets = o.sockets ?? 16;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const deadline = performance.now() + (o.maxSeconds ?? 600) * 1000;
  const next = fuzzGenerator(o.templates, o.ids, o.seed, `127.0.0.1:${o.port}`);
  const result: FuzzResult = {
    seed: o.seed, requested: o.count, sent: 0, seconds: 0, rps: 0, sockets, service: {}, runtime: {}, service5xx: 0, problemViolations: 0,
    noAnswer: { wellFormed: {}, malformed: {} }, noAnswerByMethod: {}, connectionsOpened: 0, samples: { violations: [], runtime: [], noAnswer: [] }, stoppedEarly: null,
  };
  const bump = (m: Record<string, number>, k: string) => { m[k] = (m[k] ?? 0) + 1; };
  let refusedInARow = 0;
  const began = performance.now();
  const progress = o.onProgress ? setInterval(() => o.onProgress!(result.sent), 5000) : null;

  /** A connected socket, or null when the server no longer accepts connections. */
  async function connectOnce(): Promise<RawConnection | null> {
    for (;;) {
      const c = new RawConnection(o.port);
      try {
        await c.connected();
        result.connectionsOpened++;
        refusedInARow = 0;
        return c;
      } catch {
        c.destroy();
        // A few refusals in a row across the pool: the server is gone (or out of descriptors); stop rather than spin.
        if (++refusedInARow >= 50) {
          result.stoppedEarly ??= 'the server refused 50 connections in a row';
          return null;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  async function worker(): Promise<void> {
    let conn: RawConnection | null = null;
    while (result.sent < o.count && result.stoppedEarly === null) {
      if (performance.now() > deadline) {
        result.stoppedEarly = `the ${o.maxSeconds ?? 600} s time limit`;
        break;
      }
      if (!conn || !conn.open) {
        conn = await connectOnce();
        if (!conn) break;
        // Another worker may have taken the last request while this one connected.
        if (result.sent >= o.count) break;
      }
      const req = next();
      result.sent++;
      try {
        const answer = await conn.send(req.bytes, req.method, timeoutMs);
        const status = String(answer.status);
        if (fromService(answer)) {
          bump(result.service, status);
          if (answer.status >= 500) {
            result.service5xx++;
            keep(result.samples.violations, { index: req.index, label: req.label, request: showRequest(req.bytes), status: answer.status,
              detail: `service ${answer.status}: ${answer.body.subarray(0, 200).toString('utf8')}` });
          } else if (answer.status >= 400) {
            const problem = problemViolation(answer, req.method);
            if (problem) {
              result.problemViolations++;
              keep(result.samples.violations, { index: req.index, label: req.label, request: showRequest(req.bytes), status: answer.status, detail: problem });
            }
          }
        } else {
          bump(result.runtime, status);
          keep(result.samples.runtime, { index: req.index, label: req.label, request: showRequest(req.bytes), status: answer.status,
            detail: `${answer.headers['content-type'] ?? 'no content-type'}: ${answer.body.subarray(0, 120).toString('utf8')}` });
        }
      } catch (err) {
        if (!(err instanceof NoAnswerError)) throw err;
        bump(req.malformed ? result.noAnswer.malformed : result.noAnswer.wellFormed, err.reason);
        if (!req.malformed) bump(result.noAnswerByMethod, req.method);
        keep(result.samples.noAnswer, { index: req.index, label: `${req.malformed ? 'malformed' : 'well-formed'}: ${req.label}`,
          request: showRequest(req.bytes), status: null, detail: err.message });
        conn.destroy();
        conn = null;
      }
    }
    conn?.destroy();
  }

  try {
    await Promise.all(Array.from({ length: sockets }, () => worker()));
  } finally {
    if (progress) clearInterval(progress);
  }
  result.seconds = Math.round(performance.now() - began) / 1000;
  result.rps = Math.round(result.sent / Math.max(result.seconds, 0.001));
  return result;
}

/** The total of a count map. */
export const total = (m: Partial<Record<string, number>>): number => Object.values(m).reduce<number>((s, x) => s + (x ?? 0), 0);

if (import.meta.main) {
  const { values } = parseArgs({ options: { port: { type: 'string' }, count: { type: 'string' }, seed: { type: 'string' }, sockets: { type: 'string' } } });
  const port = Number(values.port ?? 8787);
  const templates = await loadTemplates(`http://127.0.0.1:${port}`);
  const r = await runFuzz({ port, count: Number(values.count ?? 5000), seed: Number(values.seed ?? 1), sockets: Number(values.sockets ?? 16),
    templates, ids: loadDemoIds(), onProgress: (sent) => console.error(`sent ${sent}`) });
  console.log(JSON.stringify(r, null, 1));
}

// ---------------------------------------------------------------------------------------------------------------
// The probe, as scripts/reliability.ts runs it

/** The seed of the report's fuzz runs. */
export const FUZZ_SEED = 20261124;

/** Counts as `400×12, 404×3`. */
export const showCounts = (m: Partial<Record<string, number>>): string =>
  Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}×${v}`).join(', ') || 'none';
