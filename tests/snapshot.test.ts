/**
 * Data snapshots, in process: the first open of a bundle writes one, later opens of the same bundle reopen
 * it (in place, or as a private copy while another store holds it) and serve exactly the same content,
 * a changed bundle gets its own, and a damaged snapshot is rebuilt from the bundle instead of served.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { snapshotName } from '../src/content/snapshot.ts';
import { ContentStore, sha256Hex } from '../src/content/store.ts';
import type { ReadModel } from '../src/content/model/read-model.ts';
import { makeFixture } from './helpers/fixture.ts';

let dir: string;
let bundlePath: string;
let checksum: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snapshots-'));
  bundlePath = join(dir, 'bundle.json');
  const text = JSON.stringify(makeFixture({ events: 200 }));
  await writeFile(bundlePath, text);
  checksum = await sha256Hex(text);
});
after(async () => { await rm(dir, { recursive: true, force: true }); });

const data = () => join(dir, 'data');
const snapshotPath = () => join(data(), snapshotName(checksum));

/** Everything the event routes serve, per map. */
function eventsOf(model: ReadModel): unknown[] {
  return [...model.maps.values()].map((m) => Array.from({ length: m.events.length }, (_, i) => m.events.summary(i)));
}

let served: unknown[];

/** Opens a store over the bundle file at `path` with snapshots in `snapshots`, runs `check`, and closes it. */
async function withStore(path: string, snapshots: string, check: (opened: Awaited<ReturnType<typeof ContentStore.openBundle>>) => Promise<void> | void) {
  const opened = await ContentStore.openBundle({ path }, { dir: snapshots });
  try {
    await check(opened);
  } finally {
    await opened.store.close();
  }
}

test('the first open of a bundle loads it and writes a snapshot: database, validated bundle without events, event tables', async () => {
  await withStore(bundlePath, data(), ({ store, from }) => {
    assert.equal(from.source, 'bundle');
    assert.equal(from.wroteSnapshot, snapshotPath());
    assert.equal(store.model.checksum, checksum, 'the checksum of the file bytes, as of the same text');
    served = eventsOf(store.model);
    assert.ok(served.flat().length >= 200);
  });
  const files = await readdir(snapshotPath());
  for (const name of ['PG_VERSION', 'loaded-bundle.json', 'event-tables.bin']) assert.ok(files.includes(name), name);
  const kept = JSON.parse(await readFile(join(snapshotPath(), 'loaded-bundle.json'), 'utf8'));
  assert.deepEqual(kept.events, [], 'events live in the tables, not in the kept bundle');
  assert.ok(kept.markers.length > 0);
});

test('a later open reopens the snapshot and serves exactly the same events; a second store meanwhile works on a copy', async () => {
  const first = await ContentStore.openBundle({ path: bundlePath }, { dir: data() });
  try {
    assert.equal(first.from.source, 'snapshot');
    assert.deepEqual(eventsOf(first.store.model), served);
    const second = await ContentStore.openBundle({ path: bundlePath }, { dir: data() });
    assert.equal(second.from.source, 'snapshot');
    assert.deepEqual(eventsOf(second.store.model), served);
    const copies = (await readdir(data())).filter((n) => n.startsWith('tmp-'));
    assert.equal(copies.length, 1, 'the second store runs on a private copy');
    await second.store.close();
    assert.deepEqual((await readdir(data())).filter((n) => n.startsWith('tmp-')), [], 'the copy is removed on close');
  } finally {
    await first.store.close();
  }
});

test('a snapshot whose event tables are damaged or missing is rebuilt from the bundle, not served', async () => {
  for (const damage of [(p: string) => truncate(p, 100), (p: string) => rm(p)]) {
    await damage(join(snapshotPath(), 'event-tables.bin'));
    await withStore(bundlePath, data(), ({ store, from }) => {
      assert.equal(from.source, 'bundle');
      assert.match(from.warning ?? '', /did not open cleanly/);
      assert.deepEqual(eventsOf(store.model), served);
    });
    assert.ok(existsSync(join(snapshotPath(), 'event-tables.bin')), 'the snapshot was written again');
  }
});

test('a changed bundle gets its own snapshot, and the old one is removed', async () => {
  const changed = makeFixture({ events: 150, seed: 7 });
  const text = JSON.stringify(changed);
  const path = join(dir, 'changed.json');
  await writeFile(path, text);
  const checksumOfChanged = await sha256Hex(text);
  await withStore(path, data(), ({ store, from }) => {
    assert.equal(from.source, 'bundle');
    assert.equal(from.wroteSnapshot, join(data(), snapshotName(checksumOfChanged)));
    assert.equal(store.model.checksum, checksumOfChanged);
    assert.notDeepEqual(eventsOf(store.model), served, 'the changed events are served');
    assert.ok(!existsSync(snapshotPath()), 'the snapshot of the old bundle is gone');
  });
});

test('without a writable data directory the bundle is still served, from memory, with a warning', async () => {
  await withStore(bundlePath, join(bundlePath, 'not-a-directory'), ({ store, from }) => {
    assert.equal(from.source, 'bundle');
    assert.match(from.warning ?? '', /cannot keep data snapshots/);
    assert.deepEqual(eventsOf(store.model), served);
  });
});
