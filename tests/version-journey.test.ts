/**
 * A content version becomes current only once its read model is built: a payload that cannot reach the serving
 * thread, or a model that cannot be built from it, leaves the store as it was (the version served stays current,
 * and a restart serves it), and the next publish of the same bundle is a publish like any other.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ContentStore } from '../src/content/content-store.ts';
import { Publisher, type PublisherPort } from '../src/content/publisher.ts';
import { cachesPath } from '../src/content/store/data-dir.ts';
import { oneMarkerBundle, SMALL } from './helpers/small-bundles.ts';

const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

/**
 * A real publisher whose prepared payloads come out with their event tables cut short while `damage.on` is set, as
 * a payload that cannot cross to the serving thread, or one a bug writes wrong, would.
 */
function damaging(inner: Publisher): { port: PublisherPort; damage: { on: boolean } } {
  const damage = { on: false };
  const port: PublisherPort = {
    get onProgress() { return inner.onProgress; },
    set onProgress(f) { inner.onProgress = f; },
    opened: () => inner.opened(),
    stage: (source) => inner.stage(source),
    prepare: async () => {
      const prepared = await inner.prepare();
      return damage.on ? { ...prepared, payload: { ...prepared.payload, tables: prepared.payload.tables.subarray(0, 9) } } : prepared;
    },
    commit: () => inner.commit(),
    abandon: () => inner.abandon(),
    serveCurrent: () => inner.serveCurrent(),
    currentVersion: () => inner.currentVersion(),
    recordChanges: () => inner.recordChanges(),
    latestChange: () => inner.latestChange(),
    changeHistory: (...args) => inner.changeHistory(...args),
    replaceSessions: (s) => inner.replaceSessions(s),
    readSessions: () => inner.readSessions(),
    close: () => inner.close(),
  };
  return { port, damage };
}

test('a version whose model cannot be built is never made current; the next publish of it is published', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dmcs-journey-'));
  dirs.push(dir);
  const inner = await Publisher.open({ dataDir: dir });
  const { port, damage } = damaging(inner);
  const store = await ContentStore.open({ publisher: port });
  const name = (model: ContentStore['model']) => String(model.pois.get(SMALL.town.marker)!.record.name);
  try {
    await store.publish(JSON.stringify(oneMarkerBundle('Town hall')), 'town.json');
    assert.equal(store.model.version, 1);

    damage.on = true;
    await assert.rejects(store.publish(JSON.stringify(oneMarkerBundle('Town hall, renamed')), 'town.json'));
    assert.equal(store.lastPublish?.outcome, 'failed');
    assert.ok(store.lastPublish?.error, 'the failure says why');
    assert.equal(store.model.version, 1, 'the version served stays');
    assert.equal(name(store.model), 'Town hall');
    // What a restart would serve: the store's current version, and only the caches of versions it keeps.
    assert.equal((await inner.currentVersion())?.version, 1);
    assert.deepEqual((await inner.versions()).map((v) => v.version), [1]);
    assert.deepEqual((await readdir(cachesPath(dir))).filter((n) => !n.startsWith('v1-')), []);

    damage.on = false;
    await store.publish(JSON.stringify(oneMarkerBundle('Town hall, renamed')), 'town.json');
    assert.equal(store.lastPublish?.outcome, 'published', 'the served version changed: published, never "unchanged"');
    assert.equal(name(store.model), 'Town hall, renamed');
    assert.equal((await inner.currentVersion())?.version, store.model.version);
    assert.equal((await inner.currentVersion())?.published_at, store.model.publishedAt, 'the catalogue says when its payload was made');
  } finally {
    await store.close();
  }

  // A restart on the same directory serves that version from its cache, as stored.
  const again = await ContentStore.open({ dataDir: dir });
  try {
    const staged = await again.stage(JSON.stringify(oneMarkerBundle('Town hall, renamed')));
    assert.equal(staged.stored?.version, staged.current?.version);
    const model = await again.commitStaged('town.json', staged);
    assert.equal(name(model), 'Town hall, renamed');
    assert.equal(again.lastPublish?.outcome, 'unchanged');
  } finally {
    await again.close();
  }
});
