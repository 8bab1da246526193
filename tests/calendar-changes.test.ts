/**
 * A calendar feed follows the store's change tracking: its bytes and ETag stay the same through a publish that changes
 * another map, an edited event gets a higher SEQUENCE and a later LAST-MODIFIED (and DTSTAMP) while the others keep
 * theirs, and a restart (from a store closed cleanly, or with the store opened) serves the same bytes. Without a
 * store's tracking (content built ahead), every event counts as changed when its version was published.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import ICAL from 'ical.js';
import type { BundleT } from '../src/content/bundle/bundle-schema.ts';
import { ContentStore } from '../src/content/content-store.ts';
import { createApp } from '../src/app.ts';
import { cleanClosePath } from '../src/content/store/clean-close.ts';
import { QUIET, readDemoBundle } from './helpers/app.ts';
import { existsSync } from 'node:fs';
import { Publisher } from '../src/content/publisher.ts';
import { PrebuiltPublisher } from '../src/content/prebuilt-publisher.ts';
import type { PublisherPort } from '../src/content/publisher.ts';
import type { ChangeSummary } from '../src/content/changes.ts';
import { emptyDatabase } from './helpers/store.ts';

const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const FEED = `/events.ics?map_id=${MAIN}&from=2027-01-01&to=2027-12-31`;
const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

async function feedOf(store: ContentStore): Promise<{ body: string; etag: string | null }> {
  const res = await createApp({ store, logger: QUIET }).fetch(new Request(`http://test.local${FEED}`));
  assert.equal(res.status, 200);
  return { body: await res.text(), etag: res.headers.get('etag') };
}

/** Each VEVENT's SEQUENCE, LAST-MODIFIED and DTSTAMP, by UID and RECURRENCE-ID. */
function stamps(body: string): Map<string, { sequence: number; lastModified: string; dtstamp: string }> {
  const out = new Map<string, { sequence: number; lastModified: string; dtstamp: string }>();
  for (const e of new ICAL.Component(ICAL.parse(body)).getAllSubcomponents('vevent')) {
    const key = `${e.getFirstPropertyValue('uid')}|${e.getFirstProperty('recurrence-id')?.toICALString() ?? ''}`;
    out.set(key, { sequence: Number(e.getFirstPropertyValue('sequence')), lastModified: String(e.getFirstPropertyValue('last-modified')),
      dtstamp: String(e.getFirstPropertyValue('dtstamp')) });
  }
  return out;
}

test('a feed moves only where its events changed, and a restart serves the same bytes', async () => {
  const demo = await readDemoBundle();
  const dir = await mkdtemp(join(tmpdir(), 'calendar-'));
  dirs.push(dir);
  let store = await ContentStore.open({ dataDir: dir });
  let first: { body: string; etag: string | null };
  let edited: BundleT;
  const single = demo.events.find((e) => e.map_id === MAIN && !e.recurrence && e.starts_at.startsWith('2027-05'))!;
  try {
    await store.publish(JSON.stringify(demo), 'demo.json');
    first = await feedOf(store);
    assert.ok(store.model.changes.tracked);

    // Another map's event edited: a new version and a new change, the same feed.
    const other = structuredClone(demo);
    const elsewhere = other.events.find((e) => e.map_id !== MAIN)!;
    elsewhere.title = typeof elsewhere.title === 'string' ? `${elsewhere.title} (moved)` : { ...elsewhere.title, en: 'Moved' };
    await store.publish(JSON.stringify(other), 'demo.json');
    assert.equal(store.model.version, 2);
    const second = await feedOf(store);
    assert.equal(second.body, first.body);
    assert.equal(second.etag, first.etag);

    // One event of this map edited: its SEQUENCE goes up and its LAST-MODIFIED moves; no other VEVENT's does.
    edited = structuredClone(other);
    const target = edited.events.find((e) => e.id === single.id)!;
    target.title = typeof target.title === 'string' ? `${target.title}, moved indoors` : { ...target.title, en: 'Moved indoors' };
    await new Promise((r) => setTimeout(r, 1100)); // a later second for LAST-MODIFIED
    await store.publish(JSON.stringify(edited), 'demo.json');
    const third = await feedOf(store);
    assert.notEqual(third.etag, first.etag);
    const [before, now] = [stamps(first.body), stamps(third.body)];
    assert.deepEqual([...now.keys()].sort(), [...before.keys()].sort());
    const changed = [...now.keys()].filter((k) => JSON.stringify(now.get(k)) !== JSON.stringify(before.get(k)));
    assert.deepEqual(changed, [`${single.id}|`]);
    const [was, is] = [before.get(`${single.id}|`)!, now.get(`${single.id}|`)!];
    assert.ok(is.sequence > was.sequence, `SEQUENCE ${was.sequence} -> ${is.sequence}`);
    assert.ok(is.lastModified > was.lastModified && is.dtstamp === is.lastModified);
  } finally {
    await store.close();
  }
  const third = (await (async () => {
    // Restarted: from the record of the store closed cleanly (no store opened), the same bytes.
    assert.ok(existsSync(cleanClosePath(dir)));
    store = await ContentStore.open({ dataDir: dir });
    try {
      await store.publish(JSON.stringify(edited!), 'demo.json');
      assert.equal((await store.opened()).open, false, 'served without opening the store');
      return feedOf(store);
    } finally {
      await store.close();
    }
  })());
  // And with the store opened (no record of a clean close).
  await rm(cleanClosePath(dir), { force: true });
  store = await ContentStore.open({ dataDir: dir });
  try {
    await store.publish(JSON.stringify(edited!), 'demo.json');
    assert.equal((await feedOf(store)).body, third.body);
  } finally {
    await store.close();
  }
  assert.notEqual(third.body, first!.body);
});

test('content built ahead (the single binary) has no tracking: every event changed when its version was published', async () => {
  const demo = JSON.stringify(await readDemoBundle());
  // Built as scripts/build-binary.ts builds it: the service's own publisher, in memory.
  const builder = await Publisher.open({ emptyDatabase: await emptyDatabase() });
  await builder.stage(demo);
  const payload = (await builder.prepare()).payload;
  await builder.commit();
  await builder.close();
  const store = await ContentStore.open({ publisher: new PrebuiltPublisher({ payload }, () => Promise.reject(new Error('not to be opened'))) });
  try {
    await store.commitStaged('built-in demo', await store.stage(demo));
    assert.equal(store.model.changes.tracked, false);
    const published = ICAL.Time.fromJSDate(new Date(payload.published_at), true).toString();
    for (const s of stamps((await feedOf(store)).body).values()) assert.deepEqual(s, { sequence: 0, lastModified: published, dtstamp: published });
  } finally {
    await store.close();
  }
});

test('a replica that finds the version it serves made current again by a later change takes the new account, building nothing', async () => {
  const demo = await readDemoBundle();
  const inner = await Publisher.open({ emptyDatabase: await emptyDatabase() });
  // What the database says: a rollback elsewhere made the version served current again in a later change.
  let later: ChangeSummary | null = null;
  const port: PublisherPort = {
    get onProgress() { return inner.onProgress; },
    set onProgress(f) { inner.onProgress = f; },
    opened: () => inner.opened(), stage: (source) => inner.stage(source), prepare: () => inner.prepare(), commit: () => inner.commit(),
    abandon: () => inner.abandon(), serveCurrent: () => inner.serveCurrent(), currentVersion: () => inner.currentVersion(),
    recordChanges: async () => later ?? inner.recordChanges(), latestChange: async () => later?.latest.change ?? inner.latestChange(),
    changeHistory: (...args) => inner.changeHistory(...args),
    replaceSessions: (s) => inner.replaceSessions(s), readSessions: () => inner.readSessions(), close: () => inner.close(),
  };
  const store = await ContentStore.open({ publisher: port });
  try {
    await store.publish(JSON.stringify(demo), 'demo.json');
    let told = 0;
    store.onChange = () => { told++; };
    const served = store.model;
    const before = stamps((await feedOf(store)).body);
    assert.equal(await store.follow(), false, 'nothing new to follow');
    assert.equal(store.model, served, 'the same account: nothing changes');
    const series = demo.events.find((e) => e.map_id === MAIN && e.recurrence && e.starts_at < '2027-01-01')!;
    const now = (await inner.recordChanges())!;
    later = { ...now, latest: { ...now.latest, change: now.latest.change + 5 }, others: { ids: [series.id], changes: [now.latest.change + 5] },
      madeAt: { ...now.madeAt, [now.latest.change + 5]: '2027-01-01T00:00:00.000Z' } };
    assert.equal(await store.follow(), false, 'no version was built');
    assert.notEqual(store.model, served, 'a new model object: answers cached for the old one are not served');
    assert.equal(store.model.version, served.version);
    assert.equal(store.model.maps, served.maps, 'the same tables');
    assert.equal(told, 1, 'serving threads are told');
    const after = stamps((await feedOf(store)).body);
    const changed = [...after.keys()].filter((k) => JSON.stringify(after.get(k)) !== JSON.stringify(before.get(k)));
    assert.deepEqual(changed, [`${series.id}|`]);
    assert.equal(after.get(`${series.id}|`)!.sequence, now.latest.change + 5);
    assert.equal(await store.follow(), false);
    assert.equal(told, 1, 'told once');
  } finally {
    await store.close();
  }
});
