/**
 * The publisher's thread started early (src/content/warm-publisher.ts): a store that opens one takes it and gives it
 * its options, and it publishes and serves like a thread started with them; a store that opens none ends it; one
 * that is never started leaves the store to start its own.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ContentStore } from '../src/content/content-store.ts';
import { takeWarmPublisher, warmPublisher } from '../src/content/warm-publisher.ts';
import { makeFixture, F } from './helpers/fixture.ts';
import { publishFixture } from './helpers/store.ts';

test('a store that opens a publisher thread takes the one started early, which opens with the store\'s options', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'warm-'));
  try {
    await warmPublisher();
    const store = await ContentStore.open({ dataDir: dir, worker: true });
    try {
      assert.equal(takeWarmPublisher(), null, 'taken');
      await publishFixture(store, JSON.stringify(makeFixture()));
      assert.ok(store.model.maps.has(F.map));
      assert.equal((await store.opened()).mode, 'dir', 'opened on the data directory it was given');
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a store that opens no publisher thread ends the one started early; without one, a store starts its own', async () => {
  await warmPublisher();
  const inline = await ContentStore.open({ worker: false });
  assert.equal(takeWarmPublisher(), null, 'ended');
  await inline.close();
  const own = await ContentStore.open({ worker: true });
  try {
    await publishFixture(own, JSON.stringify(makeFixture()));
    assert.ok(own.model.maps.has(F.map));
  } finally {
    await own.close();
  }
});
