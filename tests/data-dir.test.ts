/**
 * The content store over a data directory, in process: versions written to the store and served from it,
 * derived caches verified before use and rebuilt from the store (never served) when damaged, a stored
 * version served when a later bundle is refused, the lock, and sessions kept across content publishes.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BundleError } from '../src/content/bundle/validate-bundle.ts';
import { ContentStore } from '../src/content/content-store.ts';
import { readCache } from '../src/content/model/model-cache.ts';
import type { ReadModel } from '../src/content/model/read-model.ts';
import { F, makeFixture } from './helpers/fixture.ts';
import { splitSessions } from './helpers/store.ts';
import { poiEntries } from './helpers/poi-store.ts';

/** Every event of every map, as served: what must not change across restarts. */
function eventsOf(model: ReadModel): unknown[] {
  return [...model.maps.values()].flatMap((m) => Array.from({ length: m.events.length }, (_, i) => m.events.summary(i)));
}

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmcs-datadir-'));
  dirs.push(dir);
  return dir;
}
after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** Writes the fixture's bundle (without sessions) to a file in `dir`. */
function writeBundle(dir: string, seed?: number): string {
  const path = join(dir, `bundle-${seed ?? 0}.json`);
  writeFileSync(path, splitSessions(JSON.stringify(makeFixture(seed === undefined ? {} : { seed }))).bundle);
  return path;
}

/** Opens a store on `dataDir`, publishes `bundle` and runs `check`; always closes the store. */
async function withStore(dataDir: string, bundle: string, check: (store: ContentStore) => Promise<void> | void): Promise<void> {
  const store = await ContentStore.open({ dataDir });
  try {
    await store.publish({ path: bundle });
    await check(store);
  } finally {
    await store.close();
  }
}

/** The single cache directory of the served version. */
function cacheDir(dataDir: string): string {
  const names = readdirSync(join(dataDir, 'model')).filter((n) => /^v\d+-/.test(n));
  assert.equal(names.length >= 1, true, 'a cache was written');
  return join(dataDir, 'model', names.sort().at(-1)!);
}

describe('a data directory', () => {
  let dataDir: string;
  let bundle: string;
  let served: unknown[];
  let version: number;

  before(async () => {
    dataDir = tempDir();
    bundle = writeBundle(dataDir);
    await withStore(dataDir, bundle, (store) => {
      assert.equal(store.lastPublish?.outcome, 'published');
      served = eventsOf(store.model);
      version = store.model.version;
    });
  });

  test('a restart with the same bundle serves the stored version without writing a new one', async () => {
    await withStore(dataDir, bundle, (store) => {
      assert.equal(store.lastPublish?.outcome, 'unchanged');
      assert.equal(store.model.version, version);
      assert.deepEqual(eventsOf(store.model), served);
    });
  });

  for (const name of ['event-tables.bin', 'event-places.bin']) {
    test(`flipped bytes in ${name} are never served: the cache is rebuilt from the store`, async () => {
      const file = join(cacheDir(dataDir), name);
      const bytes = readFileSync(file);
      for (let i = 0; i < 64; i++) bytes[Math.floor(bytes.length / 2) + i] ^= 0xff;
      writeFileSync(file, bytes);
      await withStore(dataDir, bundle, (store) => {
        assert.deepEqual(eventsOf(store.model), served);
      });
      await readCache(cacheDir(dataDir), { version }); // verifies again
    });
  }

  test('an edited content file is never served: the cache is rebuilt from the store', async () => {
    const file = join(cacheDir(dataDir), 'content.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"name":"[^"]*"/, '"name":"Edited by hand"'));
    await withStore(dataDir, bundle, (store) => {
      assert.ok(!poiEntries(store.model.pois).some((p) => String(p.record.name) === 'Edited by hand'));
      assert.deepEqual(eventsOf(store.model), served);
    });
    await readCache(cacheDir(dataDir), { version });
  });

  test('a refused bundle leaves the stored version current, and a second store on the directory reads its cache', async () => {
    const bad = join(dataDir, 'bad.json');
    writeFileSync(bad, '{"format": "destination-bundle/1"}');
    const first = await ContentStore.open({ dataDir });
    try {
      const staged = await first.stage({ path: bad });
      assert.ok(staged.problems && staged.problems.length > 0);
      assert.equal(staged.current?.version, version);
      await first.serveCurrent(bad, staged);
      assert.deepEqual(eventsOf(first.model), served);
      assert.equal(first.lastPublish?.outcome, 'refused');
      // The directory is locked by `first`: a second store leaves the store alone and serves the verified cache.
      const second = await ContentStore.open({ dataDir });
      try {
        assert.match((await second.opened()).warnings.join('\n'), /another running process owns/);
        await second.publish({ path: bundle });
        assert.deepEqual(eventsOf(second.model), served);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
    assert.deepEqual(readdirSync(dataDir).filter((n) => !n.endsWith('.json')).sort(), ['model', 'store'], 'nothing is left behind');
  });

  test('a new bundle becomes a new version, and the store keeps the newest two', async () => {
    const next = writeBundle(dataDir, 7);
    await withStore(dataDir, next, async (store) => {
      assert.equal(store.model.version, version + 1);
      assert.notDeepEqual(eventsOf(store.model), served);
      await assert.rejects(store.publish('{"format": 1}'), BundleError);
      assert.equal(store.model.version, version + 1, 'a refused publish changes nothing');
      await store.publish({ path: bundle });
      assert.equal(store.model.version, version + 2);
      assert.deepEqual(eventsOf(store.model), served);
    });
    const caches = readdirSync(join(dataDir, 'model'));
    assert.deepEqual(caches.map((n) => Number(/^v(\d+)-/.exec(n)![1])).sort(), [version + 1, version + 2], 'caches of pruned versions are removed');
  });
});

describe('sessions', () => {
  test('live in their own tables: a content publish keeps them, a sessions file replaces them', async () => {
    const dataDir = tempDir();
    const fixture = makeFixture();
    const bundle = writeBundle(dataDir);
    const store = await ContentStore.open({ dataDir });
    try {
      await store.setSessions(fixture.sessions);
      await store.publish({ path: bundle });
      const event = fixture.sessions[0].saved_event_ids[0].toLowerCase();
      const hash = fixture.sessions[0].token_sha256;
      assert.deepEqual(await store.lookupSession(hash, [event], F.now), { account_id: fixture.sessions[0].account_id.toLowerCase(), is_saved: true });
      await store.publish({ path: writeBundle(dataDir, 7) });
      assert.equal((await store.lookupSession(hash, [event], F.now))?.is_saved, true, 'a content publish keeps the sessions');
      await store.setSessions([]);
      assert.equal(await store.lookupSession(hash, [event], F.now), null, 'a new sessions file replaces them');
    } finally {
      await store.close();
    }
    const reopened = await ContentStore.open({ dataDir });
    try {
      assert.equal(reopened.sessionCount, 0, 'the stored sessions are read back on open');
    } finally {
      await reopened.close();
    }
  });
});

describe('a data directory that cannot be made', () => {
  // Under /proc, mkdir answers ENOENT for a parent that exists: Node's recursive mkdir retried that for ever, silently.
  test('under a parent that refuses new entries (/proc): a warning naming it, the store kept in memory, content served', async () => {
    const dataDir = `/proc/dmcs-data-${process.pid}/data`;
    const store = await ContentStore.open({ dataDir });
    try {
      const { mode, warnings } = await store.opened();
      assert.equal(mode, 'memory');
      assert.match(warnings.join('\n'), new RegExp(`cannot write to the data directory ${dataDir} \\(.*ENOENT`));
      await store.publish({ path: writeBundle(tempDir()) });
      assert.equal(store.lastPublish?.outcome, 'published');
    } finally {
      await store.close();
    }
  });
});
