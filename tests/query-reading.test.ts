/**
 * The query of a request is read once (src/http/query.ts), and both the response cache's key and the route's
 * parameters are made from that one reading. Were they read by two parsers, a target on which they disagree
 * would store the answer to one question under the key of another. Each target here is sent as it arrives from
 * node:http (fragment, escapes and all), straight to `serve`: a Request would have normalised it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import * as v from 'valibot';
import { createApp, type App } from '../src/app.ts';
import { cacheKey } from '../src/http/response-cache.ts';
import { readQuery } from '../src/http/query.ts';
import { defineRoute, type RouteSpec } from '../src/http/route.ts';
import { openTestApp, QUIET, readDemoBundle, type TestApp } from './helpers/app.ts';
import { F } from './helpers/fixture.ts';

let t: TestApp;
before(async () => { t = await openTestApp(); });
after(async () => { await t?.close(); });

const M = F.map;
const E = `/events?map_id=${M}`;

/** Spellings of the same few questions, and targets on which a second parser could read another. */
const TARGETS = [
  `${E}`, `${E}&limit=1`, `${E}&%6Cimit=1`, `${E}&li%6dit=1`, `${E}&limit=%31`, `${E}&limit=2&&`, `${E}&&limit=2`,
  `${E}&=1&limit=3`, `${E}&=&limit=3`, `${E}&limit+=1`, `${E}&limit%20=1`, `${E}&lim%zzit=1`, `${E}&limit=1%`,
  `${E}&%E0%A4%A=1&limit=4`, `${E}&%6Cimit=1&limit=1`, `${E}&q=a+b`, `${E}&q=a%2Bb`, `${E}&q=a%20b`,
  // A fragment is no part of the query (node:http passes it on as sent).
  `${E}&x=1#&limit=1`, `${E}#&limit=1`, `${E}&limit=2#`, `${E}&limit=2#x`, `/events#?map_id=${M}&limit=1`,
  `/events?#map_id=${M}`, `${E}&limit=1#&limit=2`, `${E}&lim\tit=1`, `${E}&limit=1\n`,
];

/** What a request is answered: status, ETag and (a hash of) the body, but the problem's `instance`. */
async function answer(app: App, target: string): Promise<string> {
  const res = await app.serve({ method: 'GET', target, header: () => null });
  const body = res.body ? Buffer.from(res.body).toString().replace(/"instance":"[^"]*"/, '') : '';
  return `${res.status} ${res.headers.etag ?? ''} ${createHash('sha256').update(body).digest('base64url').slice(0, 16)}`;
}

test('every answer served from the response cache is the answer the same target is given afresh', async () => {
  const fresh = new Map<string, string>();
  for (const target of TARGETS) fresh.set(target, await answer(createApp({ store: t.store, now: () => F.now, logger: QUIET }), target));
  // In both orders: a target that stores a wrong answer under another's key, or is answered from another's entry.
  for (const order of [TARGETS, [...TARGETS].reverse()]) {
    const app = createApp({ store: t.store, now: () => F.now, logger: QUIET });
    // Twice each, so each answer is kept (the doorkeeper keeps an answer asked for a second time).
    for (const target of [...order, ...order]) await answer(app, target);
    for (const target of order) assert.equal(await answer(app, target), fresh.get(target), target);
  }
});

test('the parameters and the cache key come from the same reading of the query', async () => {
  // Asked twice, an answer is kept: under the key of the reading its parameters came from.
  for (let i = 0; i < 2; i++) await t.app.serve({ method: 'GET', target: `${E}&x=1#&limit=1`, header: () => null });
  assert.equal((await t.app.serve({ method: 'GET', target: `${E}&limit=1#&limit=2`, header: () => null })).status, 200,
    'a repeat after the fragment is no repeat');
  const page = async (target: string) => {
    const res = await t.app.serve({ method: 'GET', target, header: () => null });
    assert.equal(res.status, 200, target);
    return (JSON.parse(Buffer.from(res.body!).toString()) as { events: unknown[] }).events.length;
  };
  assert.equal(await page(`${E}&limit=1`), 1);
  assert.equal(await page(`${E}&%6Cimit=1`), 1, 'a percent-encoded name is the name');
  assert.equal(await page(`${E}&x=1#&limit=1`), await page(E), 'what follows # is no parameter');
  assert.ok(await page(E) > 1);
});

test('readQuery reads entries as URLSearchParams does, keeping each raw part as sent', () => {
  const cases = [
    'a=1&b=2', 'a=1&&b=2&', '=1&=&&a', 'a+b=c+d', 'a%20b=%2B', '%6Cimit=5', 'lim%zzit=1', 'a=%', '%E0%A4%A=1', 'a=%C3%A9&%C3=1',
    'a==b', 'a=b=c', '%', '+', '&', 'a=1\tb', 'é=ü', '%EF%BB%BFa=1', '%ED%A0%80=%F0%9F%98%80%F0%9F', '%2=%%41%4G',
  ];
  for (const query of cases) {
    const read = readQuery(`/p?${query}`).map((e) => [e.name, e.value]);
    assert.deepEqual(read, [...new URLSearchParams(query)], query);
    assert.deepEqual(readQuery(`/p?${query}#f&x=1`).map((e) => [e.name, e.value]), read, `${query} with a fragment`);
  }
  assert.deepEqual(readQuery('/p?a=1&&b+=%32').map((e) => e.raw), ['a=1', 'b+=%32']);
  assert.deepEqual(readQuery('/p'), []);
  assert.deepEqual(readQuery('/p?'), []);
  assert.deepEqual(readQuery('/p#?a=1'), [], 'a ? after the fragment starts no query');
});

test('the cache key drops the fragment and keeps declared parameters as sent', () => {
  const declared = { limit: 1 };
  const cases: [string, string][] = [
    ['/p#x', '/p'], ['/p?limit=1#x', '/p?limit=1'], ['/p?z=1#&limit=1', '/p'], ['/p#?limit=1', '/p'], ['/p?%6Cimit=1', '/p?%6Cimit=1'],
    ['/p?limit=1', '/p?limit=1'],
  ];
  for (const [target, key] of cases) assert.equal(cacheKey(target, readQuery(target), declared), key, target);
});

test('whether a request names its language is read from its parameters, not from its target', async () => {
  const demo = await openTestApp(await readDemoBundle());
  try {
    const DEMO_MAP = '8a434eb5-da02-5a4d-9418-14bc57c86c50'; // offered in en, pt and es
    // A path parameter free to hold `&lang=` (no route of the API has one: theirs are UUIDs).
    const echo = defineRoute({
      path: '/echo/:word', operationId: 'echo', summary: 'echo', tag: 'Test', pathParams: { word: v.string() }, query: {},
      response: v.unknown(), errors: [],
      handle: ({ params, language }) => ({ word: params.word, lang: language.forMap(DEMO_MAP) }),
    });
    const app = createApp({ store: demo.store, now: () => F.now, logger: QUIET, routes: [echo as unknown as RouteSpec] });
    const served = async (on: App, target: string, acceptLanguage: string) => {
      const res = await on.serve({ method: 'GET', target, header: (name) => (name === 'accept-language' ? acceptLanguage : null) });
      assert.equal(res.status, 200, target);
      return res.headers['content-language'];
    };
    for (const [on, target] of [[app, '/echo/a&lang=pt'], [app, '/echo/a&lang=pt?x=1'], [demo.app, `/events?map_id=${DEMO_MAP}#&lang=pt`]] as const) {
      // Asked twice in Portuguese (so the answer is kept), then in Spanish: no `lang` parameter, so Spanish.
      assert.equal(await served(on, target, 'pt'), 'pt', target);
      assert.equal(await served(on, target, 'pt'), 'pt', target);
      assert.equal(await served(on, target, 'es'), 'es', `${target}: the Portuguese answer was kept as if it named its language`);
    }
    // A request that names its language is answered in it, whatever Accept-Language says.
    for (const acceptLanguage of ['es', 'es', 'en', 'en']) assert.equal(await served(demo.app, `/events?map_id=${DEMO_MAP}&lang=pt`, acceptLanguage), 'pt');
  } finally {
    await demo.close();
  }
});
