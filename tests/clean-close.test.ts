/**
 * Serving without opening a store, in process over a data directory (src/content/prebuilt-publisher.ts): a store
 * closed cleanly (src/content/store/clean-close.ts) and a directory another process owns. What such a start serves is
 * compared with what the opened store serves, and every change that must open a store (other content, other sessions,
 * a store or cache touched since, another release's record) is shown to open it.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionT } from '../src/content/bundle/bundle-schema.ts';
import { ContentStore } from '../src/content/content-store.ts';
import type { ReadModel } from '../src/content/model/read-model.ts';
import { cleanClosePath } from '../src/content/store/clean-close.ts';
import { copyWithTimes } from './helpers/copy.ts';
import { F, makeFixture } from './helpers/fixture.ts';
import { splitSessions } from './helpers/store.ts';

const dirs: string[] = [];
after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** A data directory and the fixture's bundle file (`seed` makes other content), with its sessions apart. */
function setUp(seed?: number): { dataDir: string; bundle: string; sessions: SessionT[] } {
  const dir = mkdtempSync(join(tmpdir(), 'dmcs-clean-close-'));
  dirs.push(dir);
  const split = splitSessions(JSON.stringify(makeFixture(seed === undefined ? {} : { seed })));
  const bundle = join(dir, 'bundle.json');
  writeFileSync(bundle, split.bundle);
  return { dataDir: join(dir, 'data'), bundle, sessions: split.sessions! };
}

/** What a start serves: the version, every event of every map, and every session's answer for each saved event and one other. */
async function servedBy(store: ContentStore, model: ReadModel, sessions: SessionT[]): Promise<unknown> {
  const events = [...model.maps.values()].flatMap((m) => Array.from({ length: m.events.length }, (_, i) => m.events.summary(i)));
  const ids = [...new Set(sessions.flatMap((s) => s.saved_event_ids)), randomUUID()];
  const answers = await Promise.all(sessions.flatMap((s) => ids.map((id) => store.lookupSession(s.token_sha256, [id], F.now))));
  return { version: model.version, checksum: model.checksum, events, sessions: store.sessionCount, answers };
}

/** Opens the store on `dataDir` as a start does (sessions, then the bundle staged and served); answers what it serves. */
async function startOn(dataDir: string, bundle: string, sessions: SessionT[]): Promise<{ store: ContentStore; served: unknown; open: boolean }> {
  const store = await ContentStore.open({ dataDir });
  await store.setSessions(sessions);
  const staged = await store.stage({ path: bundle });
  assert.equal(staged.problems, null);
  const model = await store.commitStaged(bundle, staged);
  return { store, served: await servedBy(store, model, sessions), open: (await store.opened()).open };
}

/** Starts on the directory, then stops: what the first start served with the store opened. */
async function firstStart(dataDir: string, bundle: string, sessions: SessionT[]): Promise<unknown> {
  const { store, served, open } = await startOn(dataDir, bundle, sessions);
  assert.equal(open, true, 'a first start opens the store');
  await store.close();
  assert.ok(existsSync(cleanClosePath(dataDir)), 'closing the store left its record');
  return served;
}

let seed: Promise<{ dataDir: string; expected: unknown }> | undefined;
/**
 * A data directory holding the fixture's store, closed cleanly after its first start: a copy (with its files' times, as
 * a restored backup keeps them) of one made once, and what that first start served.
 */
async function closedStore(): Promise<{ dataDir: string; bundle: string; sessions: SessionT[]; expected: unknown }> {
  seed ??= (async () => {
    const { dataDir, bundle, sessions } = setUp();
    return { dataDir, expected: await firstStart(dataDir, bundle, sessions) };
  })();
  const { dataDir: from, expected } = await seed;
  const { dataDir, bundle, sessions } = setUp();
  await copyWithTimes(from, dataDir);
  return { dataDir, bundle, sessions, expected };
}

describe('a store closed cleanly', () => {
  test('the next start serves its version and sessions without opening it, exactly as the opened store served them', async () => {
    const { dataDir, bundle, sessions, expected } = await closedStore();
    const { store, served, open } = await startOn(dataDir, bundle, sessions);
    try {
      assert.equal(open, false, 'the store was not opened');
      assert.deepEqual(served, expected);
      assert.equal(store.lastPublish?.outcome, 'unchanged', 'the stored version, not a new one');
      assert.equal(store.storeCurrent?.version, 1);
    } finally {
      await store.close();
    }
    assert.ok(existsSync(cleanClosePath(dataDir)), 'a store never opened keeps its record');
    const again = await startOn(dataDir, bundle, sessions);
    await again.store.close();
    assert.deepEqual([again.open, again.served], [false, expected]);
  });

  test('a bundle of other content opens the store and publishes the next version, which the next start serves unopened', async () => {
    const { dataDir, bundle, sessions } = await closedStore();
    const other = setUp(7).bundle;
    const { store, served, open } = await startOn(dataDir, other, sessions);
    await store.close();
    assert.equal(open, true);
    assert.equal((served as { version: number }).version, 2);
    const next = await startOn(dataDir, other, sessions);
    await next.store.close();
    assert.deepEqual([next.open, next.served], [false, served]);
  });

  test('a publish of other content while it serves unopened opens the store then, and serves the new version', async () => {
    const { dataDir, bundle, sessions } = await closedStore();
    const { store, open } = await startOn(dataDir, bundle, sessions);
    try {
      assert.equal(open, false);
      assert.equal((await store.publish({ path: bundle })).version, 1, 'the same content again: unchanged, still unopened');
      assert.equal((await store.opened()).open, false);
      assert.equal(existsSync(cleanClosePath(dataDir)), true);
      const model = await store.publish({ path: setUp(7).bundle });
      assert.equal(model.version, 2);
      assert.equal((await store.opened()).open, true);
      assert.equal(existsSync(cleanClosePath(dataDir)), false, 'an open store has no record: a process killed now leaves none');
    } finally {
      await store.close();
    }
    assert.equal(existsSync(cleanClosePath(dataDir)), true);
  });

  test('other sessions open the store and are kept in it; the same sessions again do not', async () => {
    const { dataDir, bundle, sessions } = await closedStore();
    const fewer = sessions.slice(1);
    assert.ok(fewer.length > 0 && fewer.length < sessions.length);
    const { store, open } = await startOn(dataDir, bundle, fewer);
    await store.close();
    assert.equal(open, true, 'other sessions are written into the store');
    const next = await startOn(dataDir, bundle, fewer);
    await next.store.close();
    assert.equal(next.open, false);
    assert.equal(next.store.sessionCount, fewer.length, 'the sessions written are the ones served');
    const opened = await ContentStore.open({ dataDir });
    const staged = await opened.stage({ path: setUp(7).bundle });
    await opened.commitStaged('other', staged);
    assert.equal(opened.sessionCount, fewer.length, 'and the ones the opened store holds');
    await opened.close();
  });

  test('a store touched since, a record of another release or a cache that does not verify: the store is opened', async () => {
    const { dataDir, bundle, sessions, expected } = await closedStore();
    const opens = async () => {
      const { store, served, open } = await startOn(dataDir, bundle, sessions);
      await store.close();
      assert.deepEqual(served, expected, 'the same content, from the opened store');
      return open;
    };
    // A file of the store modified after the close (here only its time: its bytes are the same).
    const store = join(dataDir, 'store');
    const file = join(store, readdirSync(store).find((n) => n === 'PG_VERSION')!);
    utimesSync(file, new Date(), new Date(Date.now() - 60_000));
    assert.equal(await opens(), true, 'a store touched since the close');
    assert.equal(await opens(), false, 'closed cleanly again');
    const record = JSON.parse(readFileSync(cleanClosePath(dataDir), 'utf8'));
    writeFileSync(cleanClosePath(dataDir), JSON.stringify({ ...record, migrations: record.migrations + 1 }));
    assert.equal(await opens(), true, 'a record of another release');
    writeFileSync(cleanClosePath(dataDir), '{"format":1');
    assert.equal(await opens(), true, 'a record that does not parse');
    const model = join(dataDir, 'model');
    const cache = join(model, readdirSync(model).find((n) => /^v1-/.test(n))!);
    writeFileSync(join(cache, 'content.jsonl'), `${readFileSync(join(cache, 'content.jsonl'), 'utf8')}\n`);
    assert.equal(await opens(), true, 'a cache that does not verify (it is rebuilt)');
    assert.equal(await opens(), false);
  });

  test('a directory another process owns: its verified cache of the bundle serves with no store at all; other content, a store in memory', async () => {
    const { dataDir, bundle, sessions, expected } = await closedStore();
    const owner = await ContentStore.open({ dataDir });
    try {
      const second = await startOn(dataDir, bundle, sessions);
      try {
        const opened = await second.store.opened();
        assert.deepEqual([second.open, opened.mode], [false, 'memory'], 'no store made: the owner\'s cache serves');
        assert.ok(opened.warnings.some((w) => w.includes('another running process owns the data directory')), opened.warnings.join('; '));
        assert.deepEqual(second.served, expected, 'the same version, content and sessions');
        const other = await second.store.publish({ path: setUp(7).bundle });
        assert.deepEqual([(await second.store.opened()).open, (await second.store.opened()).mode], [true, 'memory'], 'other content: a store in memory');
        assert.equal(other.version, 1, 'whose versions count from 1');
      } finally {
        await second.store.close();
      }
      assert.ok(existsSync(cleanClosePath(dataDir)), 'the owner\'s record is left alone');
    } finally {
      await owner.close();
    }
    const { store, open } = await startOn(dataDir, bundle, sessions);
    await store.close();
    assert.equal(open, false, 'the store was never opened: its record still holds');
  });
});
