/**
 * HTTP caching and compression, proven over real HTTP: strong ETags and 304s, Cache-Control by kind of
 * answer, Vary, br and gzip negotiation, each cacheable body compressed once per content version, and
 * the response cache emptied when the content changes. The per-runtime part runs the real service on
 * Node, Bun and Deno.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import { createApp } from '../src/app.ts';
import { MIN_COMPRESS_BYTES, negotiateEncoding } from '../src/http/compress.ts';
import { CACHE_CONTROL } from '../src/http/respond.ts';
import { readQuery } from '../src/http/query.ts';
import { cacheKey, PreparedBody, ResponseCache } from '../src/http/response-cache.ts';
import { Doorkeeper } from '../src/utils/hash.ts';
import { openTestApp, QUIET, readDemoBundle, type TestApp } from './helpers/app.ts';
import { F, makeFixture } from './helpers/fixture.ts';
import { listen, rawRequest, type RawResponse } from './helpers/http.ts';
import { RUNTIME_NAMES, startServer, type RunningServer } from './helpers/server.ts';

const DEMO = {
  map: '8a434eb5-da02-5a4d-9418-14bc57c86c50',
  marker: 'e5810d23-f0db-5cec-8426-91a6a6cf88c2',
  event: '179d4d26-d7e6-57b7-94c3-dad40fdbcd1a',
  savedEvent: 'a8e53f5d-23b9-5801-9a77-63ddafe3fbd1',
  token: 'demo-session-token',
};
const BIG = `/maps/${DEMO.map}?info=true&markers=true&all_categories=true`;
const SMALL = `/markers/${DEMO.marker}`;

const varyTokens = (res: RawResponse) => (res.headers.vary ?? '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);

function decode(res: RawResponse): Buffer {
  const coding = res.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(res.body);
  if (coding === 'gzip') return gunzipSync(res.body);
  if (coding === 'zstd') return zstdDecompressSync(res.body);
  assert.equal(coding, undefined, `unexpected content coding ${coding}`);
  return res.body;
}

for (const runtime of RUNTIME_NAMES) {
  describe(`caching and compression on ${runtime}`, () => {
    let server: RunningServer;
    const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(`${server.base}${path}`, { method, headers });
    before(async () => { server = await startServer(runtime); });
    after(async () => { await server?.stop(); });

    test('/readyz counts the answers served from the response cache and those made afresh', async () => {
      const counts = async () => JSON.parse((await get('/readyz')).body.toString()).response_cache as { hits: number; misses: number; entries: number };
      // A value of a declared parameter no other test asks for (an unknown parameter would share the bare path's entry).
      const from = new Date(Date.UTC(2031, 0, 1) + Math.floor(Math.random() * 86_400) * 1000).toISOString().replace('.000', '');
      const path = `/events?map_id=${DEMO.map}&from=${from}`;
      const before = await counts();
      for (let i = 0; i < 3; i++) assert.equal((await get(path)).status, 200);
      assert.equal((await get(path, { authorization: `Bearer ${DEMO.token}` })).status, 200);
      const after = await counts();
      assert.equal(after.misses - before.misses, 2, 'the first two requests are made afresh: an answer is kept when asked for a second time');
      assert.equal(after.hits - before.hits, 2, 'the others are served from memory');
      assert.ok(after.entries >= 1);
    });

    test('a content answer is public with max-age, s-maxage and stale-while-revalidate, and a strong ETag', async () => {
      const res = await get(BIG);
      assert.equal(res.status, 200);
      assert.equal(res.headers['cache-control'], CACHE_CONTROL.content);
      assert.match(res.headers['cache-control'], /^public, max-age=\d+, s-maxage=\d+, stale-while-revalidate=\d+$/);
      assert.match(res.headers.etag, /^"[0-9a-z]+"$/, "strong, not W/");
      assert.equal(Number(res.headers['content-length']), res.body.length);
      const again = await get(BIG);
      assert.equal(again.headers.etag, res.headers.etag);
      assert.notEqual((await get(`/maps/${DEMO.map}?info=true`)).headers.etag, res.headers.etag, 'another request, another tag');
    });

    test('If-None-Match answers 304 with no body and the same validators, for GET and HEAD', async () => {
      const first = await get(BIG);
      for (const method of ['GET', 'HEAD']) {
        const res = await get(BIG, { 'if-none-match': first.headers.etag }, method);
        assert.equal(res.status, 304, method);
        assert.equal(res.body.length, 0);
        assert.equal(res.headers.etag, first.headers.etag);
        assert.equal(res.headers['cache-control'], CACHE_CONTROL.content);
        assert.deepEqual(varyTokens(res), varyTokens(first));
      }
      assert.equal((await get(BIG, { 'if-none-match': '"other"' })).status, 200);
    });

    test('HEAD answers the headers of GET with no body', async () => {
      const full = await get(BIG, { 'accept-encoding': 'gzip' });
      const head = await get(BIG, { 'accept-encoding': 'gzip' }, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
      for (const name of ['etag', 'cache-control', 'content-type', 'content-encoding', 'vary']) {
        assert.equal(head.headers[name], full.headers[name], name);
      }
    });

    test('bodies over 1 KiB are compressed with zstd, br or gzip as Accept-Encoding asks, with Vary: Accept-Encoding', async () => {
      const plain = await get(BIG);
      assert.ok(plain.body.length > MIN_COMPRESS_BYTES);
      assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: identity');
      assert.ok(varyTokens(plain).includes('accept-encoding'), 'the identity answer varies too');
      const tags = new Set([plain.headers.etag]);
      for (const [accept, coding] of [['gzip', 'gzip'], ['br', 'br'], ['gzip, deflate, br', 'br'], ['br;q=0, gzip', 'gzip'],
        ['gzip;q=0.5, br;q=0.8', 'br'], ['*', 'br'], ['identity', undefined], ['br;q=0, gzip;q=0', undefined], ['zstd', 'zstd'],
        ['gzip, deflate, br, zstd', 'zstd'], ['zstd;q=0.5, br', 'br']] as const) {
        const res = await get(BIG, { 'accept-encoding': accept });
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-encoding'], coding, accept);
        assert.ok(varyTokens(res).includes('accept-encoding'), accept);
        assert.deepEqual(decode(res), plain.body, `${accept}: the same bytes once decoded`);
        assert.equal(Number(res.headers['content-length']), res.body.length);
        if (coding) {
          assert.ok(res.body.length < plain.body.length / 2, `${accept} compresses`);
          tags.add(res.headers.etag);
          // Each representation has its own strong tag, and revalidates against it.
          assert.equal((await get(BIG, { 'accept-encoding': accept, 'if-none-match': res.headers.etag })).status, 304);
        }
      }
      assert.equal(new Set([...tags].map((tag) => tag.split('-').slice(0, 2).join('-'))).size, 4, 'identity, gzip, br and zstd have different ETags');
    });

    test('parameters a route does not declare make no new cache entry: the bare path\'s answer is served', async () => {
      const counts = async () => JSON.parse((await get('/readyz')).body.toString()).response_cache as { hits: number; misses: number; entries: number };
      await get(SMALL);
      const bare = await get(SMALL); // asked for twice: kept
      const before = await counts();
      for (let i = 0; i < 5; i++) {
        const res = await get(`${SMALL}?z=${crypto.randomUUID()}&utm_source=${i}`, { 'accept-encoding': 'br' });
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, bare.body);
        assert.equal(res.headers.etag, bare.headers.etag);
      }
      const after = await counts();
      assert.equal(after.misses - before.misses, 0, 'nothing made afresh');
      assert.equal(after.hits - before.hits, 5);
      assert.equal(after.entries, before.entries, 'no new entries');
    });

    for (const coding of ['br', 'zstd']) test(`a ${coding} body is made fast first, and strongly off the request path once served again; the first tag still revalidates`, async () => {
      const path = `/maps/${DEMO.map}?info=true&markers=true&all_categories=true&paths=true`;
      const plain = await get(path);
      const first = await get(path, { 'accept-encoding': coding });
      await get(path, { 'accept-encoding': coding });
      let later = first;
      for (let i = 0; i < 200 && later.headers.etag === first.headers.etag; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        later = await get(path, { 'accept-encoding': coding });
      }
      assert.notEqual(later.headers.etag, first.headers.etag, 'compressed again');
      assert.ok(later.body.length < first.body.length, `stronger: ${later.body.length} < ${first.body.length} bytes`);
      assert.deepEqual(decode(later), plain.body);
      const revalidated = await get(path, { 'accept-encoding': coding, 'if-none-match': first.headers.etag });
      assert.equal(revalidated.status, 304, 'a client holding the fast bytes still holds the same content');
      assert.equal(revalidated.headers.etag, first.headers.etag);
      assert.equal((await get(path, { 'accept-encoding': coding, 'if-none-match': later.headers.etag })).status, 304);
    });

    test('bodies of 1 KiB or less are sent as they are', async () => {
      const res = await get(SMALL, { 'accept-encoding': 'gzip, br' });
      assert.equal(res.status, 200);
      assert.ok(res.body.length <= MIN_COMPRESS_BYTES, `${res.body.length} bytes`);
      assert.equal(res.headers['content-encoding'], undefined);
      assert.ok(!varyTokens(res).includes('accept-encoding'));
    });

    test('event queries whose window defaults to now get the short lifetime; explicit windows and cursors the long one', async () => {
      const live = await get(`/events?map_id=${DEMO.map}&limit=2`);
      assert.equal(live.status, 200);
      assert.equal(live.headers['cache-control'], CACHE_CONTROL.live);
      const cursor = JSON.parse(live.body.toString()).next_cursor;
      if (cursor) assert.equal((await get(`/events?map_id=${DEMO.map}&limit=2&cursor=${cursor}`)).headers['cache-control'], CACHE_CONTROL.content);
      assert.equal((await get(`/events?map_id=${DEMO.map}&from=2027-01-01&limit=2`)).headers['cache-control'], CACHE_CONTROL.content);
      assert.equal((await get(`/events/upcoming-by-poi?poi_ids=${DEMO.marker}`)).headers['cache-control'], CACHE_CONTROL.live);
      assert.equal((await get(`/events/upcoming-by-poi?poi_ids=${DEMO.marker}&from=2027-01-01`)).headers['cache-control'], CACHE_CONTROL.content);
    });

    test('an answer with is_saved is private, varies on Authorization, and never reaches another caller', async () => {
      const path = `/events/${DEMO.savedEvent}`;
      const anonymous = await get(path);
      assert.equal(anonymous.headers['cache-control'], CACHE_CONTROL.content);
      assert.ok(varyTokens(anonymous).includes('authorization'));
      assert.equal(JSON.parse(anonymous.body.toString()).is_saved, undefined);
      const mine = await get(path, { authorization: `Bearer ${DEMO.token}` });
      assert.equal(mine.status, 200);
      assert.equal(mine.headers['cache-control'], CACHE_CONTROL.private);
      assert.match(mine.headers['cache-control'], /^private/);
      assert.ok(varyTokens(mine).includes('authorization'));
      assert.equal(JSON.parse(mine.body.toString()).is_saved, true);
      assert.notEqual(mine.headers.etag, anonymous.headers.etag);
      assert.equal(JSON.parse((await get(path)).body.toString()).is_saved, undefined, 'the private answer was not cached');
      assert.equal((await get(path, { authorization: 'Bearer wrong' })).status, 401, 'a cached public answer does not bypass the token check');
    });

    test('errors are not stored by caches', async () => {
      for (const path of [`/markers/${DEMO.event}`, '/markers/nope', '/nowhere']) {
        const res = await get(path);
        assert.ok(res.status >= 400, path);
        assert.equal(res.headers['cache-control'], CACHE_CONTROL.none, path);
        assert.equal(res.headers.etag, undefined, path);
      }
    });
  });
}

describe('the response cache', () => {
  let t: TestApp;
  before(async () => { t = await openTestApp(); });
  after(async () => { await t?.close(); });
  const MAP = `/maps/${F.map}?info=true&markers=true&paths=true&polygons=true`;
  const serve = (target: string, headers: Record<string, string> = {}) =>
    t.app.serve({ method: 'GET', target, header: (name) => headers[name] ?? null });

  test('a cacheable body is serialized and compressed once per content version', async () => {
    for (const coding of [undefined, 'gzip', 'br']) {
      const headers: Record<string, string> = coding ? { 'accept-encoding': coding } : {};
      // Kept from the second time it is asked for (the doorkeeper), then served as the very same bytes.
      const a = await serve(MAP, headers);
      const b = await serve(MAP, headers);
      const c = await serve(MAP, headers);
      assert.ok(a.body && a.body.length > MIN_COMPRESS_BYTES);
      assert.equal(a.headers['content-encoding'], coding);
      if (coding === undefined) assert.notEqual(a.body, b.body, 'asked for once, nothing was kept');
      assert.deepEqual(a.body, b.body, 'the same bytes all the same');
      assert.equal(b.body, c.body, `${coding ?? 'identity'}: the very same bytes, not a second serialization or compression`);
    }
  });

  test('an answer that depends on now is kept only until its second is over; a private one is never kept', async () => {
    let clock = 0;
    const app = createApp({ store: t.store, now: () => new Date(clock), logger: QUIET });
    const serveAt = (target: string, headers: Record<string, string> = {}) =>
      app.serve({ method: 'GET', target, header: (name) => headers[name] ?? null });
    for (const live of [`/events?map_id=${F.map}&limit=200`, `/events/upcoming-by-poi?poi_ids=${F.v1OnlyMarker}`]) {
      clock = Date.parse('2027-03-01T12:00:00.250Z');
      await serveAt(live); // asked for once: not kept (the doorkeeper)
      const first = await serveAt(live);
      assert.equal(first.headers['cache-control'], CACHE_CONTROL.live);
      clock += 700; // .950: the same second
      assert.equal((await serveAt(live)).body, first.body, `${live}: reused within the second`);
      clock += 100; // the next second
      assert.notEqual((await serveAt(live)).body, first.body, `${live}: recomputed in the next second`);
    }
    const auth = { authorization: `Bearer ${F.sessionToken}` };
    const mine = await serveAt(`/events/${F.savedEvent}`, auth);
    assert.equal(mine.headers['cache-control'], CACHE_CONTROL.private);
    assert.notEqual((await serveAt(`/events/${F.savedEvent}`, auth)).body, mine.body);
  });

  test('a new content version empties it: same request, new body and ETag, old ETag no longer matches', async () => {
    const bundle = makeFixture();
    const server = await listen(t.app);
    try {
      const target = `/markers/${bundle.markers[0].id}`;
      const before = await rawRequest(`${server.base}${target}`);
      const beforeBig = await rawRequest(`${server.base}${MAP}`, { headers: { 'accept-encoding': 'br' } });
      assert.equal(before.status, 200);
      bundle.markers[0].name = 'Renamed in the next content version';
      await t.store.publish(JSON.stringify(bundle));
      const after = await rawRequest(`${server.base}${target}`);
      assert.equal(JSON.parse(after.body.toString()).name, 'Renamed in the next content version');
      assert.notEqual(after.headers.etag, before.headers.etag);
      assert.equal((await rawRequest(`${server.base}${target}`, { headers: { 'if-none-match': before.headers.etag } })).status, 200);
      const afterBig = await rawRequest(`${server.base}${MAP}`, { headers: { 'accept-encoding': 'br' } });
      assert.notEqual(afterBig.headers.etag, beforeBig.headers.etag, 'compressed variants are rebuilt too');
      assert.match(decode(afterBig).toString(), /Renamed in the next content version/);
    } finally {
      await server.close();
      await t.store.publish(JSON.stringify(makeFixture()));
    }
  });

  test('it is bounded in entries and bytes, oldest first', () => {
    const cache = new ResponseCache({ entries: 3, bytes: 10_000 });
    const body = (n: number) => new PreparedBody(JSON.stringify('x'.repeat(n)), 'application/json', 'content', {});
    for (const key of ['a', 'b', 'c', 'd']) assert.equal(cache.set(key, body(10)), false, 'not kept when asked for once');
    assert.equal(cache.stats().entries, 0);
    for (const key of ['a', 'b', 'c', 'd']) assert.equal(cache.set(key, body(10)), true, 'kept when asked for again');
    assert.deepEqual(cache.stats().entries, 3);
    assert.equal(cache.get('a', 0), undefined);
    assert.ok(cache.get('d', 0));
    cache.set('big', body(9_000));
    cache.set('big', body(9_000));
    assert.ok(cache.stats().bytes <= 10_000);
    const grown = cache.get('big', 0)!;
    grown.variant('gzip');
    assert.ok(cache.stats().bytes <= 10_000, 'compressed variants count against the limit');
  });

  test('the doorkeeper admits a key the second time it is offered, and a flood of distinct keys never', () => {
    const cache = new ResponseCache({ entries: 100, bytes: 1e6, recent: 1024 });
    const body = () => new PreparedBody('{}', 'application/json', 'content', {});
    for (let i = 0; i < 10_000; i++) assert.equal(cache.set(`/events?near=${i}`, body()), false);
    assert.equal(cache.stats().entries, 0, 'nothing asked for once is kept');
    assert.equal(cache.set('/popular', body()), false);
    for (let i = 0; i < 100; i++) cache.set(`/other?${i}`, body());
    assert.equal(cache.set('/popular', body()), true, 'asked for again while remembered: kept');
    assert.ok(cache.get('/popular', 0));
    const keeper = new Doorkeeper(1);
    assert.equal(keeper.admit('a'), false);
    assert.equal(keeper.admit('b'), false, 'b takes the only slot');
    assert.equal(keeper.admit('a'), false, 'a was forgotten');
    assert.equal(keeper.admit('a'), true);
  });

  test('the cache key keeps the declared parameters as sent and in order, and drops the others', () => {
    const declared = { limit: 1, 'near point': 1, tags: 1 };
    const cases: [string, string][] = [
      ['/p', '/p'], ['/p?', '/p'], ['/p?z=1', '/p'], ['/p?limit=5', '/p?limit=5'], ['/p?z=1&limit=5&y', '/p?limit=5'],
      ['/p?tags=a,b&limit=05', '/p?tags=a,b&limit=05'], ['/p?limit=5&tags=a', '/p?limit=5&tags=a'], ['/p?tags=a&limit=5', '/p?tags=a&limit=5'],
      ['/p?li%6Dit=5', '/p?li%6Dit=5'], ['/p?near+point=1&near%20point=2', '/p?near+point=1&near%20point=2'], ['/p?%E0%A4%A=1', '/p'],
      ['/p?limit', '/p?limit'], ['/p?&&limit=1&&', '/p?limit=1'], ['/p?constructor=1&__proto__=2&toString', '/p'],
    ];
    for (const [target, key] of cases) assert.equal(cacheKey(target, readQuery(target), declared), key, target);
  });

  test('Accept-Encoding negotiation follows q-values and *', () => {
    const cases: [string | null, string | null][] = [
      [null, null], ['', null], ['gzip', 'gzip'], ['br', 'br'], ['gzip, br', 'br'], ['br;q=0.5, gzip', 'gzip'],
      ['br;q=0, gzip;q=0', null], ['*', 'br'], ['*;q=0', null], ['gzip;q=0, *', 'br'], ['br;q=0, *;q=0.1', 'gzip'],
      ['identity', null], ['deflate', null], ['x-gzip', 'gzip'], ['GZIP;Q=1.0', 'gzip'], ['gzip;q=2', null],
      // zstd first among codings accepted equally (every browser that names it), never for `*` alone.
      ['gzip, deflate, br, zstd', 'zstd'], ['zstd', 'zstd'], ['ZSTD', 'zstd'], ['zstd;q=0.9, br', 'br'], ['zstd, br;q=0.9', 'zstd'],
      ['zstd;q=0, *', 'br'], ['*, zstd;q=0.5', 'br'], ['gzip, zstd;q=0', 'gzip'],
    ];
    for (const [accept, expected] of cases) assert.equal(negotiateEncoding(accept), expected, String(accept));
  });
});

test('a fresh app over a fixture answers from its own cache only (apps never share one)', async () => {
  const a = await openTestApp();
  try {
    const other = createApp({ store: a.store, now: () => F.now });
    const target = `/maps/${F.map}?info=true`;
    const one = await a.app.serve({ method: 'GET', target, header: () => null });
    const two = await other.serve({ method: 'GET', target, header: () => null });
    assert.deepEqual(one.body, two.body);
    assert.notEqual(one.body, two.body);
  } finally {
    await a.close();
  }
});

test('the id of a series follows the clock (its next occurrences move as they end); the id of an event does not', async () => {
  const demo = await readDemoBundle();
  const t = await openTestApp(demo);
  try {
    const series = demo.events.find((e) => e.recurrence && !e.all_day)!;
    let clock = Date.parse('2027-03-01T12:00:00.250Z');
    const app = createApp({ store: t.store, now: () => new Date(clock), logger: QUIET });
    const serveAt = (target: string) => app.serve({ method: 'GET', target, header: () => null });
    const nextOf = async () => JSON.parse(new TextDecoder().decode((await serveAt(`/events/${series.id}`)).body!)).next_occurrences;
    for (const target of [`/events/${series.id}`, `/events/${series.id}.html`]) {
      clock = Date.parse('2027-03-01T12:00:00.250Z');
      await serveAt(target);
      const first = await serveAt(target);
      assert.equal(first.headers['cache-control'], CACHE_CONTROL.live, target);
      const before = await nextOf();
      // Past the end of its next occurrence: that one is no longer next.
      clock = Date.parse(before[0].ends_at) + 1000;
      const after = await nextOf();
      assert.equal(after[0].id, before[1].id, `${target}: the next occurrences moved on`);
      assert.notEqual((await serveAt(target)).body, first.body, `${target}: made again`);
    }
    const single = demo.events.find((e) => !e.recurrence)!;
    assert.equal((await serveAt(`/events/${single.id}`)).headers['cache-control'], CACHE_CONTROL.content);
    assert.equal((await serveAt(`/events/${single.id}.html`)).headers['cache-control'], CACHE_CONTROL.content);
  } finally {
    await t.close();
  }
});
