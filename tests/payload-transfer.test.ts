/**
 * A version's payload crosses from the publisher's thread to the serving thread by transfer, and a runtime's
 * small Buffers are views into a pool that cannot be transferred: the small bundles a destination brings, and the
 * caches they leave, must cross all the same.
 */
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { ContentStore } from '../src/content/content-store.ts';
import { concatBytes, ownBytes } from '../src/utils/bytes.ts';
import { SMALL_BUNDLES } from './helpers/small-bundles.ts';

const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

/** Transfers the bytes' buffer through a message port; throws as postMessage does. */
function transfer(bytes: Uint8Array): void {
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(bytes, [bytes.buffer as ArrayBuffer]);
  } finally {
    port1.close();
    port2.close();
  }
}

describe('bytes of their own', () => {
  test('a pooled Buffer cannot be transferred, nor its slice; ownBytes of either can, with the same bytes', () => {
    const pooled = Buffer.from('a small text, as a one-POI bundle writes');
    assert.notEqual(pooled.byteLength, pooled.buffer.byteLength, 'Node pools a small Buffer');
    assert.throws(() => transfer(pooled.slice()), /transfer/);
    const own = ownBytes(pooled);
    assert.equal(own.byteLength, own.buffer.byteLength);
    assert.deepEqual([...own], [...pooled]);
    transfer(own);
    assert.equal(own.byteLength, 0, 'transferred: detached here');
  });

  test('bytes that fill a buffer of their own are kept as they are; concatBytes makes one of its own', () => {
    const whole = new Uint8Array([1, 2, 3]);
    assert.equal(ownBytes(whole), whole);
    const joined = concatBytes([Buffer.from([1, 2]), new Uint8Array([3]), Buffer.alloc(0)]);
    assert.deepEqual([...joined], [1, 2, 3]);
    assert.equal(joined.byteLength, joined.buffer.byteLength);
    transfer(joined);
  });
});

for (const [name, { make, poi }] of Object.entries(SMALL_BUNDLES)) {
  describe(`${name}, through the publisher's thread`, () => {
    test('is published, served, and served again from its cache after a restart', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dmcs-transfer-'));
      dirs.push(dir);
      const text = JSON.stringify(make());
      const first = await ContentStore.open({ worker: true, dataDir: dir });
      try {
        const model = await first.publish(text, 'bundle.json');
        assert.equal(first.lastPublish?.outcome, 'published');
        assert.equal(model.version, 1);
      } finally {
        await first.close();
      }
      // The second start reads the verified cache (Node's readFile) and hands it over the same way.
      const second = await ContentStore.open({ worker: true, dataDir: dir });
      try {
        const staged = await second.stage({ path: join(dir, 'missing.json') }).catch(() => null);
        assert.equal(staged, null, 'a missing bundle is an error, not a version');
        const model = await second.publish(text, 'bundle.json');
        assert.equal(model.version, 1);
        assert.equal(second.lastPublish?.outcome, 'unchanged');
        assert.ok(model.pois.has(poi.slice(poi.lastIndexOf('/') + 1)), `${poi} is in the model`);
      } finally {
        await second.close();
      }
    });
  });
}
