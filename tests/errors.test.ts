/**
 * The one error funnel: an unexpected failure is a 500 that leaks nothing and is logged with the
 * request id, and a store with no content yet answers 503.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp } from '../src/app.ts';
import { createLogger } from '../src/utils/log.ts';
import { recordErrors } from './helpers/app.ts';
import type { ContentStore } from '../src/content/content-store.ts';

const MAP = '/maps/6f1c1d59-2f43-4a53-9d52-b6dfc1a2d0a1';

test('an unexpected error becomes a 500 problem that leaks nothing and is logged with the request id', async () => {
  const logged: Record<string, unknown>[] = [];
  const broken = {
    ready: true,
    get model(): never { throw new Error('SELECT doc FROM maps WHERE secret = 1'); },
  } as unknown as ContentStore;
  const app = createApp({ store: broken, logger: recordErrors(logged) });
  const res = await app.fetch(new Request(`http://x${MAP}`, { headers: { 'x-request-id': 'req-42' } }));
  assert.equal(res.status, 500);
  assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  assert.equal(res.headers.get('x-request-id'), 'req-42');
  const text = await res.text();
  assert.doesNotMatch(text, /SELECT|secret|at .*\.ts/);
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body).sort(), ['detail', 'instance', 'status', 'title', 'type']);
  assert.equal(body.status, 500);
  assert.equal(logged.length, 1);
  assert.equal(logged[0].request_id, 'req-42');
  assert.match(String(logged[0].error), /secret/);
});

test('before content is loaded every route answers 503 with Retry-After', async () => {
  const empty = { ready: false } as unknown as ContentStore;
  const app = createApp({ store: empty, logger: createLogger('error', () => assert.fail('a 503 is not an unexpected error')) });
  const res = await app.fetch(new Request(`http://x${MAP}`));
  assert.equal(res.status, 503);
  assert.equal(res.headers.get('retry-after'), '1');
  assert.equal((await res.json()).status, 503);
});
