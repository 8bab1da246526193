/**
 * Content built ahead (the single binary's built-in demo, src/content/prebuilt-publisher.ts): a bundle of that content
 * is served from the payload without opening a store, as if published; the same bundle again is unchanged; the
 * sessions answer exactly as a store's; and a bundle of any other content, or a bad one, goes to a real publisher,
 * opened then, with the sessions handed over.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { SessionT } from '../src/content/bundle/bundle-schema.ts';
import { BundleError } from '../src/content/bundle/validate-bundle.ts';
import { ContentStore } from '../src/content/content-store.ts';
import type { ModelPayload } from '../src/content/model/model-cache.ts';
import { PrebuiltPublisher } from '../src/content/prebuilt-publisher.ts';
import { Publisher, type PublisherPort } from '../src/content/publisher.ts';
import { parseSessions } from '../src/content/sessions.ts';
import { DEMO_BUNDLE_PATH, DEMO_SESSIONS_PATH } from '../src/serve/config.ts';
import { emptyDatabase } from './helpers/store.ts';

describe('content built ahead', () => {
  let demo: string;
  let sessions: SessionT[];
  let payload: ModelPayload;
  let opened: PublisherPort[];
  let store: ContentStore;

  before(async () => {
    demo = await readFile(DEMO_BUNDLE_PATH, 'utf8');
    sessions = parseSessions(await readFile(DEMO_SESSIONS_PATH, 'utf8'));
    // Built as scripts/build-binary.ts builds it: the service's own publisher, in memory.
    const builder = await Publisher.open({ emptyDatabase: await emptyDatabase() });
    await builder.stage(demo);
    payload = (await builder.prepare()).payload;
    await builder.commit();
    await builder.close();
    opened = [];
    store = await ContentStore.open({ publisher: new PrebuiltPublisher({ payload }, async () => {
      const real = await Publisher.open({ emptyDatabase: await emptyDatabase() });
      opened.push(real);
      return real;
    }) });
  });
  after(async () => {
    await store?.close();
  });

  test('a bundle of that content is served from it as published, and opens no store', async () => {
    await store.setSessions(sessions);
    const staged = await store.stage(demo);
    assert.equal(staged.problems, null);
    assert.equal(staged.current, null, 'nothing served yet');
    const model = await store.commitStaged('built-in demo', staged);
    assert.equal(model.checksum, payload.checksum);
    assert.equal(model.version, payload.version);
    assert.equal(store.lastPublish?.outcome, 'published');
    assert.equal(store.payload?.docs, payload.docs, 'the model is built from the payload itself');
    assert.equal(opened.length, 0, 'no store was opened');
    assert.equal((await store.opened()).mode, 'memory');
  });

  test('the same bundle again is unchanged, and still opens no store', async () => {
    const model = await store.publish(demo, 'built-in demo');
    assert.equal(store.lastPublish?.outcome, 'unchanged');
    assert.equal(model.checksum, payload.checksum);
    assert.equal(opened.length, 0);
  });

  test('sessions answer exactly as a store keeps them: by token, saved events per account, ids in lower case', async () => {
    // Two sessions of one account with different saved events, ids in upper case, besides the demo's.
    const [first] = sessions;
    const more: SessionT[] = [...sessions,
      { token_sha256: 'f'.repeat(64), account_id: first.account_id.toUpperCase(), expires_at: '2098-01-01T00:00:00+02:00',
        saved_event_ids: [JSON.parse(demo).events[5].id.toUpperCase()] },
      { token_sha256: '0'.repeat(64), account_id: 'AAAAAAAA-0000-4000-8000-000000000000', expires_at: '2097-06-01T00:00:00Z', saved_event_ids: [] }];
    const reference = await Publisher.open({ emptyDatabase: await emptyDatabase() });
    try {
      await reference.replaceSessions(more);
      const prebuilt = new PrebuiltPublisher({ payload }, () => Promise.reject(new Error('not to be opened')));
      await prebuilt.replaceSessions(more);
      assert.deepEqual(await prebuilt.readSessions(), await reference.readSessions());
    } finally {
      await reference.close();
    }
  });

  test('a bundle of other content opens a real store, with the sessions, and serves it; a bad one is refused as anywhere', async () => {
    const token = sessions[0].token_sha256;
    const event = sessions[0].saved_event_ids[0];
    const before = await store.lookupSession(token, [event], new Date());
    assert.equal(before?.is_saved, true);
    const edited = JSON.parse(demo);
    edited.events[0].title = `${edited.events[0].title} (edited)`;
    const model = await store.publish(JSON.stringify(edited), 'edited');
    assert.equal(opened.length, 1, 'the real publisher opened, once');
    assert.notEqual(model.checksum, payload.checksum);
    assert.equal(store.lastPublish?.outcome, 'published');
    assert.deepEqual(await store.lookupSession(token, [event], new Date()), before, 'the sessions went to the real store');
    assert.equal((await opened[0].readSessions()).length, sessions.length);

    await assert.rejects(store.publish('{"format": "nope"}', 'bad'), BundleError);
    assert.equal(store.model.checksum, model.checksum, 'the served version stays');
    // The demo's own content now goes through the real store too.
    await store.publish(demo, 'built-in demo');
    assert.equal(store.model.checksum, payload.checksum);
    assert.equal(opened.length, 1);
  });
});
