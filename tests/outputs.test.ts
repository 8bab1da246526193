/**
 * What every new output shares (iCalendar, JSON-LD, tiles, GPX/KML, pages, files read by range): a route of another
 * media type answers with the same validation, ETags, 304, compression and response cache as JSON; its format is
 * chosen by a path suffix, matched before a `/:id` route; a file route answers byte ranges (206, 416); the
 * response cache keys every request header the answer names in Vary; links come from the public URL, never from
 * the Host header. Proved on routes of this test's own, over a real store, in-process.
 */
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import * as v from 'valibot';
import { createApp, type App } from '../src/app.ts';
import type { ContentStore } from '../src/content/content-store.ts';
import { createLogger } from '../src/utils/log.ts';
import { parseRange } from '../src/http/ranges.ts';
import { defineRoute, MediaReply, type RouteSpec } from '../src/http/route.ts';
import { uuid } from '../src/http/params.ts';
import { openApiRoute } from '../src/routes/openapi.ts';
import { ConfigError, parseConfig, publicUrlOf } from '../src/serve/config.ts';
import { logListening } from '../src/serve/start.ts';
import { makeFixture } from './helpers/fixture.ts';
import { openEmptyStore, publishFixture } from './helpers/store.ts';

/** A pattern of bytes that compresses well (as a vector tile does), `n` long. */
const tileBytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7) % 13);
/** An archive of 100,000 bytes that do not repeat soon, read by range. */
const ARCHIVE = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 2654435761) >>> 24);

let calls = 0;
const thing = defineRoute({
  path: '/things/:id', operationId: 'getThing', summary: 'A thing as JSON', tag: 'Test', pathParams: { id: uuid('Thing UUID') }, query: {},
  response: v.object({ id: v.string() }), errors: [], texts: false,
  handle: ({ params }) => ({ id: params.id }),
});
const thingCalendar = defineRoute({
  path: '/things/:id.ics', operationId: 'getThingCalendar', summary: 'A thing as iCalendar', tag: 'Test', pathParams: { id: uuid('Thing UUID') },
  query: {}, response: v.string(), contentType: 'text/calendar; charset=utf-8', errors: [], texts: false,
  handle: ({ params, publicUrl }) => {
    calls++;
    return new MediaReply(`BEGIN:VCALENDAR\r\nUID:${params.id}\r\nURL:${publicUrl}/things/${params.id}\r\n${'X-FILL:padding\r\n'.repeat(100)}END:VCALENDAR\r\n`);
  },
});
const tile = defineRoute({
  path: '/tiles/:z/:x/:y.mvt', operationId: 'getTile', summary: 'A tile', tag: 'Test', query: {},
  pathParams: { z: v.pipe(v.string(), v.regex(/^\d+$/, 'must be an integer')), x: v.string(), y: v.string() },
  response: v.instance(Uint8Array), contentType: 'application/vnd.mapbox-vector-tile', errors: [], texts: false,
  handle: () => new MediaReply(tileBytes(5_000)),
});
const archive = defineRoute({
  path: '/basemap.pmtiles', operationId: 'getBasemap', summary: 'A file read by range', tag: 'Test', pathParams: {}, query: {},
  response: v.instance(Uint8Array), contentType: 'application/vnd.pmtiles', ranges: true, errors: [], texts: false,
  handle: () => new MediaReply(ARCHIVE),
});
const styled = defineRoute({
  path: '/styled', operationId: 'getStyled', summary: 'An answer that varies by a request header', tag: 'Test', pathParams: {}, query: {},
  response: v.object({ style: v.string() }), headers: { vary: 'X-Style' }, errors: [], texts: false,
  handle: ({ header }) => ({ style: header('x-style') ?? 'plain' }),
});
// The JSON route first: the suffix route must still be matched before it.
const TEST_ROUTES = [thing, thingCalendar, tile, archive, styled] as unknown as RouteSpec[];

const ID = '8c5f0a35-0f4e-4c2b-9d5c-1b9b7a3e2f10';
let store: ContentStore;
let app: App;
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => app.fetch(new Request(`http://test.local${path}`, { method, headers }));

before(async () => {
  store = await openEmptyStore();
  await publishFixture(store, JSON.stringify(makeFixture()));
  app = createApp({ store, routes: TEST_ROUTES, publicUrl: 'https://maps.example.org/api/', logger: createLogger('silent') });
});
after(async () => { await store.close(); });

describe('a format chosen by a path suffix', () => {
  test('the suffix route answers its media type, matched before the /:id route whose UUID check would refuse it', async () => {
    const ics = await get(`/things/${ID}.ics`);
    assert.equal(ics.status, 200);
    assert.equal(ics.headers.get('content-type'), 'text/calendar; charset=utf-8');
    assert.match(await ics.text(), new RegExp(`^BEGIN:VCALENDAR\r\nUID:${ID}\r\n`));
    const json = await get(`/things/${ID}`);
    assert.deepEqual(await json.json(), { id: ID });
    const bad = await get('/things/not-a-uuid.ics');
    assert.equal(bad.status, 400, 'the suffix route validates its parameters like any route');
    assert.deepEqual((await bad.json()).errors.map((e: { name: string }) => e.name), ['id']);
    assert.equal((await get(`/things/${ID}.icsx`)).status, 400, 'an unknown suffix is part of the id, which the JSON route refuses');
  });

  test('a text body has an ETag, 304, compression and a response cache like JSON', async () => {
    calls = 0;
    const first = await get(`/things/${ID}.ics`, { 'accept-encoding': 'gzip' });
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/);
    assert.equal(first.headers.get('content-encoding'), 'gzip');
    assert.match(first.headers.get('vary')!, /Accept-Encoding/);
    assert.match(gunzipSync(new Uint8Array(await first.arrayBuffer())).toString(), /^BEGIN:VCALENDAR/);
    const plain = await get(`/things/${ID}.ics`);
    const plainEtag = plain.headers.get('etag')!;
    assert.equal((await get(`/things/${ID}.ics`, { 'if-none-match': plainEtag })).status, 304);
    for (let i = 0; i < 3; i++) await get(`/things/${ID}.ics`);
    assert.ok(calls <= 2, `made at most twice, then kept (made ${calls} times)`);
  });

  test('a binary tile is compressed too, and its bytes come back whole', async () => {
    const br = await get('/tiles/3/4/5.mvt', { 'accept-encoding': 'br' });
    assert.equal(br.headers.get('content-type'), 'application/vnd.mapbox-vector-tile');
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.deepEqual(new Uint8Array(brotliDecompressSync(new Uint8Array(await br.arrayBuffer()))), tileBytes(5_000));
    assert.equal((await get('/tiles/x/4/5.mvt')).status, 400);
  });
});

describe('a file read by byte range', () => {
  const etagOf = async () => (await get('/basemap.pmtiles', {}, 'HEAD')).headers.get('etag')!;

  test('a range is 206 with Content-Range and exactly those bytes, never compressed', async () => {
    for (const [range, start, end] of [['bytes=0-99', 0, 99], ['bytes=99990-', 99_990, 99_999], ['bytes=-10', 99_990, 99_999],
      ['bytes=500-99999999', 500, 99_999]] as const) {
      const res = await get('/basemap.pmtiles', { range, 'accept-encoding': 'br, gzip' });
      assert.equal(res.status, 206, range);
      assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/100000`);
      assert.equal(res.headers.get('content-encoding'), null);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), ARCHIVE.subarray(start, end + 1), range);
    }
  });

  test('the whole file is 200 with Accept-Ranges, uncompressed (its tiles are compressed already)', async () => {
    const res = await get('/basemap.pmtiles', { 'accept-encoding': 'br, gzip' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    assert.equal(res.headers.get('content-encoding'), null);
    assert.equal((await res.arrayBuffer()).byteLength, 100_000);
  });

  test('a range past the end is 416 with the size; several ranges, another unit or a stale If-Range get the whole file', async () => {
    const past = await get('/basemap.pmtiles', { range: 'bytes=100000-' });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), 'bytes */100000');
    assert.match(past.headers.get('content-type')!, /^application\/problem\+json/);
    const wholes: Record<string, string>[] = [{ range: 'bytes=0-1,5-6' }, { range: 'items=0-1' }, { range: 'bytes=0-1', 'if-range': '"stale"' },
      { range: 'bytes=0-1', 'if-range': 'Wed, 21 Oct 2026 07:28:00 GMT' }];
    for (const headers of wholes) {
      const res = await get('/basemap.pmtiles', headers);
      assert.equal(res.status, 200, JSON.stringify(headers));
      assert.equal((await res.arrayBuffer()).byteLength, 100_000);
    }
    const current = await get('/basemap.pmtiles', { range: 'bytes=0-1', 'if-range': await etagOf() });
    assert.equal(current.status, 206, 'If-Range naming the current tag lets the range through');
    assert.equal((await get('/basemap.pmtiles', { range: 'bytes=0-1', 'if-none-match': await etagOf() })).status, 304, '304 comes before the range');
  });

  test('parseRange reads what RFC 9110 allows and nothing else', () => {
    assert.deepEqual(parseRange('bytes=0-0', 10), { start: 0, end: 0 });
    assert.deepEqual(parseRange('bytes = 2 - 4', 10), { start: 2, end: 4 });
    assert.deepEqual(parseRange('bytes=-20', 10), { start: 0, end: 9 });
    assert.equal(parseRange('bytes=-0', 10), 'unsatisfiable');
    assert.equal(parseRange('bytes=10-', 10), 'unsatisfiable');
    assert.equal(parseRange('bytes=0-', 0), 'unsatisfiable');
    for (const bad of ['bytes=5-4', 'bytes=-', 'bytes=a-b', 'bytes=1-2,3-4', 'pages=1-2', '']) assert.equal(parseRange(bad, 10), null, bad);
  });
});

describe('the response cache and Vary', () => {
  test('an answer is never served to a request that differs in a header its Vary names', async () => {
    for (let round = 0; round < 3; round++) {
      for (const style of ['bold', 'thin', null]) {
        const res = await get('/styled', style ? { 'x-style': style } : {});
        assert.match(res.headers.get('vary')!, /X-Style/);
        assert.deepEqual(await res.json(), { style: style ?? 'plain' }, `round ${round}, ${style}`);
      }
    }
    const ready = await (await get('/readyz')).json();
    assert.ok(ready.response_cache.hits > 0, 'the answers were kept and served again, each to its own header value');
  });
});

describe('the public URL', () => {
  test('links are built from it, whatever Host the request names', async () => {
    for (const host of ['test.local', 'evil.example', 'localhost:1']) {
      const res = await app.fetch(new Request(`http://${host}/things/${ID}.ics`));
      assert.match(await res.text(), new RegExp(`URL:https://maps\\.example\\.org/api/things/${ID}\r\n`), host);
    }
  });

  test('--public-url and PUBLIC_URL set it; without them it is http://localhost with the port and base path', () => {
    const config = (args: string[], env: Record<string, string> = {}) => parseConfig(args, env) as Exclude<ReturnType<typeof parseConfig>, 'help'>;
    assert.equal(publicUrlOf(config(['--public-url', 'https://maps.example.org/api/'])), 'https://maps.example.org/api');
    assert.equal(publicUrlOf(config([], { PUBLIC_URL: 'http://kiosk.local:8080' })), 'http://kiosk.local:8080');
    assert.equal(publicUrlOf(config(['--port', '9000', '--base-path', '/api/v1'])), 'http://localhost:9000/api/v1');
    assert.equal(publicUrlOf(config([])), 'http://localhost:8787');
    for (const bad of ['maps.example.org', 'ftp://maps.example.org', 'https://maps.example.org/?x=1', 'https://user:pw@maps.example.org', 'https://x.org/#a']) {
      assert.throws(() => config(['--public-url', bad]), ConfigError, bad);
    }
  });

  test('the listening line says it, with a warning when clients beyond this machine could not reach it', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('info', (text) => { for (const line of text.split('\n').filter(Boolean)) lines.push(JSON.parse(line)); });
    const config = (args: string[]) => parseConfig(args, {}) as Exclude<ReturnType<typeof parseConfig>, 'help'>;
    logListening(logger, 'node', config(['--host', '127.0.0.1']), 8787);
    logListening(logger, 'node', config(['--host', '0.0.0.0', '--public-url', 'https://maps.example.org']), 8787);
    assert.equal(lines.filter((l) => l.level === 'warn').length, 0);
    logListening(logger, 'node', config(['--host', '0.0.0.0']), 8787);
    logger.flush();
    assert.deepEqual(lines.filter((l) => l.msg === 'listening').map((l) => l.public_url), ['http://localhost:8787', 'https://maps.example.org', 'http://localhost:8787']);
    const warnings = lines.filter((l) => l.level === 'warn');
    assert.equal(warnings.length, 1);
    assert.match(String(warnings[0].msg), /set --public-url/);
  });
});

describe('OpenAPI', () => {
  test('routes of other media types are listed with them: text, binary, and byte ranges with 206 and 416', async () => {
    const withDoc = createApp({ store, routes: [...TEST_ROUTES, openApiRoute(TEST_ROUTES)], logger: createLogger('silent') });
    const doc = await (await withDoc.fetch(new Request('http://test.local/openapi.json'))).json();
    const ok = (path: string) => doc.paths[path]?.get?.responses;
    assert.deepEqual(ok('/things/{id}.ics')[200].content, { 'text/calendar': { schema: { type: 'string', contentMediaType: 'text/calendar' } } });
    assert.deepEqual(ok('/tiles/{z}/{x}/{y}.mvt')[200].content['application/vnd.mapbox-vector-tile'].schema,
      { type: 'string', format: 'binary', contentMediaType: 'application/vnd.mapbox-vector-tile' });
    assert.ok(ok('/basemap.pmtiles')[206], '206 for ranges');
    assert.ok(ok('/basemap.pmtiles')[416], '416 for ranges');
    assert.ok(ok('/things/{id}')[200].content['application/json'], 'JSON routes as before');
  });
});
