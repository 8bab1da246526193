/**
 * Conditional GET: every 200 carries a strong ETag, If-None-Match answers 304 with no body, and the
 * tag changes when the answer's bytes change, and only then (not with every publish).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { F, makeFixture } from '../helpers/fixture.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';

let t: TestTarget;
before(async () => { t = await openTarget(); });
after(async () => { await t?.close(); });

const MAP = `/maps/${F.map}?info=true&markers=true`;

test('every 200 carries a strong ETag, stable for the same request and content', async () => {
  const a = await t.get(MAP);
  const b = await t.get(MAP);
  const etag = a.headers.get('etag');
  assert.match(etag!, /^"[0-9a-z]+"$/);
  assert.equal(b.headers.get('etag'), etag);
  const other = await t.get(`/maps/${F.map}?info=true`);
  assert.notEqual(other.headers.get('etag'), etag);
});

test('If-None-Match with the current tag gets 304, no body, and the validators', async () => {
  const etag = (await t.get(MAP)).headers.get('etag')!;
  for (const value of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
    for (const method of ['GET', 'HEAD']) {
      const res = await t.get(MAP, { method, headers: { 'if-none-match': value } });
      assert.equal(res.status, 304, `${method} ${value}`);
      assert.equal(res.headers.get('etag'), etag);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.ok(res.headers.get('x-request-id'));
      assert.equal(res.headers.get('content-type'), null);
      assert.equal((await res.arrayBuffer()).byteLength, 0);
    }
  }
});

test('a stale or foreign tag gets the full 200', async () => {
  const res = await t.get(MAP, { headers: { 'if-none-match': '"stale-tag"' } });
  assert.equal(res.status, 200);
  assert.ok((await res.json()).markers.length > 0);
});

test('errors carry no ETag and never answer 304', async () => {
  const res = await t.get(`/maps/${F.disabled}`, { headers: { 'if-none-match': '*' } });
  assert.equal(res.status, 404);
  assert.equal(res.headers.get('etag'), null);
});

test('the tag changes when the content version changes, and an old tag then gets 200', async () => {
  const before = (await t.get(MAP)).headers.get('etag')!;
  const changed = makeFixture();
  changed.maps[0].info.summary = 'A new summary';
  const next = await openTarget(changed);
  try {
    const res = await next.get(MAP, { headers: { 'if-none-match': before } });
    assert.equal(res.status, 200);
    assert.notEqual(res.headers.get('etag'), before);
    assert.equal((await res.json()).info.summary, 'A new summary');
  } finally {
    await next.close();
  }
});

test('a publish that changed something else keeps the tag of an answer whose bytes it did not change: 304', async () => {
  const before = (await t.get(MAP)).headers.get('etag')!;
  const changed = makeFixture();
  const other = changed.maps.find((m) => m.id !== F.map && m.enabled)!;
  other.info.summary = 'Another map, another summary';
  const next = await openTarget(changed);
  try {
    const res = await next.get(MAP, { headers: { 'if-none-match': before } });
    assert.equal(res.status, 304, 'a calendar app or a CDN polling an unchanged answer gets 304 after an unrelated publish');
    assert.equal(res.headers.get('etag'), before);
    assert.equal((await next.get(`/maps/${other.id}?info=true`)).status, 200);
  } finally {
    await next.close();
  }
});

test('GET /events/:id varies on Authorization in every answer, errors included', async () => {
  for (const [path, headers, status] of [
    [`/events/${F.savedEvent}`, {}, 200],
    [`/events/${F.savedEvent}`, { authorization: 'Bearer nope' }, 401],
    [`/events/${F.disabledEvent}`, {}, 404],
    ['/events/not-a-uuid', {}, 400],
  ] as const) {
    const res = await t.get(path, { headers });
    assert.equal(res.status, status, path);
    assert.ok(res.headers.get('vary')?.split(',').some((t) => t.trim() === 'Authorization'), `${path} ${status}`);
  }
});
