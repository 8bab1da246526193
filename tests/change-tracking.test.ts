/**
 * Change tracking in the store (TRACKING in src/db/schema.ts, run where a version is made current), against the
 * brute-force account of tests/helpers/change-reference.ts over random histories of real bundles, on PGlite and on
 * a real PostgreSQL: after every publish and rollback, each record carries the change in which its content (as its
 * answers show it) last differed, each removed record a tombstone, the history of each change is exactly what
 * differed, and a map's token moves exactly when something of that map, its publisher or an icon changed. Then the
 * span kept: changes, history and tombstones older than HISTORY_DAYS go, the newest change stays.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BundleT } from '../src/content/bundle/bundle-schema.ts';
import { validateBundle } from '../src/content/bundle/validate-bundle.ts';
import { HISTORY_DAYS, readChangeToken, type RecordType } from '../src/content/changes.ts';
import { SqlStore } from '../src/content/store/sql-store.ts';
import type { Db } from '../src/db/db.ts';
import { openDb } from '../src/db/pglite.ts';
import { connectPostgres } from '../src/db/postgres.ts';
import { ChangeSet, mapChanges, recordKey, type RecordFacts, type RecordState } from './helpers/change-reference.ts';
import { makeFixture, mulberry32, uuidFor } from './helpers/fixture.ts';
import { testDatabase } from './helpers/postgres.ts';
import { emptyDatabase } from './helpers/store.ts';

/** JSON with every object's keys sorted: equal for equal content, whatever order a record was written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
}

/**
 * A bundle's records as the account compares them, from the bundle alone: a map without its content blocks (each a
 * record), categories and POIs with the published versions of their map they are in, associations with their POI's map.
 */
function recordsOf(bundle: BundleT): RecordFacts[] {
  const lc = (id: string) => id.toLowerCase();
  const out: RecordFacts[] = [];
  const add = (type: RecordType, id: string, mapId: string | null, content: unknown) =>
    out.push({ type, id: lc(id), mapId: mapId && lc(mapId), hash: canonical(content) });
  const published = new Map(bundle.maps.map((m) => [m.id, m.versions.filter((v) => v.status === 'published').map((v) => v.id)]));
  const allOf = new Map(bundle.maps.map((m) => [m.id, m.versions.map((v) => v.id)]));
  const inPublished = (item: { map_id: string; version_ids?: string[] }) => {
    const ids = new Set(item.version_ids ?? allOf.get(item.map_id) ?? []);
    return (published.get(item.map_id) ?? []).filter((v) => ids.has(v)).sort();
  };
  for (const p of bundle.publishers) add('publisher', p.id, null, p);
  for (const m of bundle.maps) {
    const { content_blocks, ...rest } = m;
    add('map', m.id, m.id, rest);
    for (const b of content_blocks) add('content_block', b.id, m.id, b);
  }
  for (const i of bundle.icons) add('icon', i.id, null, i);
  for (const c of bundle.categories) add('category', c.id, c.map_id, [c, inPublished(c)]);
  for (const p of [...bundle.markers, ...bundle.paths, ...bundle.polygons]) add('poi', p.id, p.map_id, [p, inPublished(p)]);
  // An event's answer shows its public anchors: the POIs it names that are not public are part of what it is made of.
  const publicPois = new Set([...bundle.markers, ...bundle.paths, ...bundle.polygons].filter((p) => inPublished(p).length > 0).map((p) => lc(p.id)));
  for (const e of bundle.events) {
    const hidden = [...new Set(e.poi_ids.map(lc))].filter((id) => !publicPois.has(id)).sort();
    add('event', e.id, e.map_id, hidden.length > 0 ? [e, hidden] : e);
  }
  for (const l of bundle.lists) add('list', l.id, l.map_id, l);
  const poiMap = new Map([...bundle.markers, ...bundle.paths, ...bundle.polygons].map((p) => [p.id, p.map_id]));
  for (const a of bundle.associations) add('association', a.id, poiMap.get(a.poi_id) ?? null, a);
  return out;
}

/** The next bundle of a history: a few random edits of every kind of record the store tracks. */
function edit(bundle: BundleT, rand: () => number, step: number): BundleT {
  const b = structuredClone(bundle);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const some = (p: number) => rand() < p;
  if (some(0.3)) pick(b.markers).name += ` (edit ${step})`;
  if (some(0.2) && b.paths.length) pick(b.paths).name += ` (edit ${step})`;
  if (some(0.3)) pick(b.events).title += ` (edit ${step})`;
  if (some(0.2)) {
    // An event no session saved (a session naming an unknown event is refused).
    const saved = new Set(((b as { sessions?: { saved_event_ids: string[] }[] }).sessions ?? []).flatMap((x) => x.saved_event_ids));
    const k = Math.floor(rand() * b.events.length);
    if (!saved.has(b.events[k].id)) b.events.splice(k, 1);
  }
  if (some(0.3)) {
    const copy = structuredClone(pick(b.events));
    copy.id = uuidFor(`event:added:${step}:${b.events.length}`);
    b.events.push(copy);
  }
  if (some(0.2)) pick(b.categories).name += ` (edit ${step})`;
  if (some(0.15)) pick(b.publishers).name += ` (edit ${step})`;
  if (some(0.15) && b.icons.length) pick(b.icons).name += ` (edit ${step})`;
  if (step % 5 === 2 || some(0.2)) {
    const m = pick(b.maps);
    if (m.content_blocks.length && some(0.5)) m.content_blocks.pop();
    else m.content_blocks.push({ id: uuidFor(`block:added:${step}`), kind: 'text', title: `Added ${step}`, sort_order: 9 });
  }
  if (some(0.15)) pick(b.maps).description += ` (edit ${step})`;
  if (some(0.1)) {
    // A draft version added: the map changes, no category or POI does (drafts are served nowhere).
    const m = pick(b.maps);
    m.versions.push({ id: uuidFor(`version:draft:${step}`), name: `draft ${step}`, status: 'draft' });
  }
  if (some(0.2)) {
    // A POI some event names made draft-only, or public again: the events anchored to it change (their anchors).
    const named = new Set(b.events.flatMap((e) => e.poi_ids));
    const drafts = new Map(b.maps.map((m) => [m.id, m.versions.find((v) => v.status === 'draft')?.id]));
    const poi = pick([...b.markers, ...b.paths, ...b.polygons].filter((p) => named.has(p.id) && drafts.get(p.map_id)));
    if (poi) poi.version_ids = poi.version_ids?.length === 1 && poi.version_ids[0] === drafts.get(poi.map_id) ? undefined : [drafts.get(poi.map_id)!];
  }
  if (some(0.15) && b.lists.length) pick(b.lists).name += ` (edit ${step})`;
  if (some(0.15) && b.associations.length) b.associations.splice(Math.floor(rand() * b.associations.length), 1);
  return validateBundle(b);
}

/** The facts the account keeps per record, as the store reports them (the `madeAt` dropped). */
const bare = (states: { type: RecordType; id: string; mapId: string | null; hash: string | null; change: number }[]) =>
  new Map(states.map((s) => [recordKey(s.type, s.id), { change: s.change, removed: s.hash === null, mapId: s.mapId }]));

for (const kind of ['pglite', 'postgres'] as const) {
  describe(`change tracking on ${kind}`, () => {
    let db: Db;
    let drop: (() => Promise<void>) | null = null;
    let store: SqlStore;

    before(async () => {
      if (kind === 'pglite') db = await openDb({ snapshot: await emptyDatabase() });
      else {
        const t = await testDatabase();
        drop = t.drop;
        db = connectPostgres(t.url);
      }
      store = await SqlStore.open(db);
    });
    after(async () => {
      await db?.close();
      await drop?.();
    });

    test('over random histories with rollbacks, records, history and tokens are what the brute-force account says', async () => {
      const rand = mulberry32(kind === 'pglite' ? 7 : 8);
      let bundle = validateBundle(structuredClone(makeFixture({ events: 40 })));
      const publisherOf = new Map(bundle.maps.map((m) => [m.id.toLowerCase(), m.publisher_id.toLowerCase()]));
      const made: { version: number; bundle: BundleT }[] = [];
      let state: RecordState[] = [];
      let tokens = new Map<string, number>();
      let allChanges: { change: number; key: string; op: string; mapId: string | null; type: RecordType; id: string }[] = [];
      let storeId = await store.storeId();
      const first = (await store.changes()).at(-1)?.change ?? 0;
      for (let step = 1; step <= 16; step++) {
        const change = first + step;
        let current: BundleT;
        let expectedKind = 'publish';
        if (made.length > 1 && rand() < 0.25) {
          expectedKind = 'rollback';
          // A rollback to a version made before: a change like any other.
          const back = made[Math.floor(rand() * (made.length - 1))];
          await store.restoreVersion(back.version);
          current = back.bundle;
        } else {
          // Every fourth step publishes the same content again: a change in which nothing differs.
          if (step % 4 !== 0 || made.length === 0) bundle = edit(bundle, rand, step);
          const v = await store.writeVersion(bundle, `c${step}`);
          made.push({ version: v.version, bundle });
          current = bundle;
        }
        // The store's first change keeps no history (everything in it is new): the account's history starts after it.
        const keepsHistory = state.length > 0;
        const set = new ChangeSet(state, change);
        for (const r of recordsOf(current)) set.add(r);
        const { state: next, changes } = set.finish();
        state = next;
        if (keepsHistory) allChanges = [...allChanges, ...changes.map((c) => ({ ...c, key: recordKey(c.type, c.id) }))];

        const kept = await store.changes();
        assert.equal(kept.at(-1)!.change, change, `step ${step}: one change each time a version is made current`);
        assert.equal(kept.at(-1)!.kind, expectedKind);
        const states = await store.recordStates();
        assert.deepEqual(bare(states), bare(state), `step ${step}: each record's last change, and tombstones`);
        for (const s of states) assert.equal(s.madeAt, kept.find((c) => c.change === s.change)!.madeAt);

        storeId ??= await store.storeId();
        const expectedTokens = mapChanges(state, publisherOf);
        const storeTokens = await store.mapTokens();
        assert.equal(storeTokens.size, current.maps.length);
        for (const [mapId, { change: c, token }] of storeTokens) {
          assert.equal(c, expectedTokens.get(mapId), `step ${step}: map ${mapId}'s last change`);
          assert.equal(readChangeToken(storeId!, token), c, 'the token names it');
          if (tokens.has(mapId)) {
            const moved = tokens.get(mapId) !== c;
            const differed = changes.some((x) => x.mapId === mapId || x.type === 'icon' || (x.type === 'publisher' && x.id === publisherOf.get(mapId)));
            assert.equal(moved, differed, `step ${step}: map ${mapId}'s token moves exactly when something of it changed`);
          }
        }
        tokens = new Map([...storeTokens].map(([m, t]) => [m, t.change]));
        // The summary handed to the serving threads says the same of each map, the oldest change kept, and the maps removed.
        const summary = (await store.recordChanges())!;
        assert.deepEqual(summary.maps, Object.fromEntries([...storeTokens].map(([m, t]) => [m, t.change])));
        assert.equal(summary.oldest, Math.min(...(await store.changes()).map((c) => c.change)));
        const removedMaps = state.filter((r) => r.type === 'map' && r.hash === null);
        assert.deepEqual(Object.keys(summary.removedMaps!).sort(), removedMaps.map((r) => r.id).sort());

        for (const [mapId, publisherId] of publisherOf) {
          const history = await store.history(first, mapId, publisherId);
          const expected = allChanges.filter((c) => c.mapId === mapId || c.type === 'icon' || (c.type === 'publisher' && c.id === publisherId));
          assert.deepEqual(history.map((h) => `${h.change} ${h.op} ${recordKey(h.type, h.id)}`).sort(),
            expected.map((h) => `${h.change} ${h.op} ${h.key}`).sort(), `step ${step}: the history of map ${mapId}`);
        }
      }
      assert.ok(allChanges.some((c) => c.op === 'delete') && allChanges.some((c) => c.type === 'content_block'),
        `the history covers removals and blocks: ${[...new Set(allChanges.map((c) => `${c.op} ${c.type}`))].join(', ')}`);
    });

    test(`changes, their history and tombstones older than ${HISTORY_DAYS} days go; the newest change always stays`, async () => {
      const day = 86_400_000;
      const start = Date.parse('2030-01-01T00:00:00Z');
      const bundle = validateBundle(structuredClone(makeFixture({ events: 10 })));
      const publishAt = async (b: BundleT, at: number) => {
        const staged = await store.stageVersion(b, [b.events]);
        return store.commitVersion(staged, `span-${at}`, b.format, '', new Date(at).toISOString());
      };
      await publishAt(bundle, start);
      const removed = structuredClone(bundle);
      const gone = removed.events.pop()!;
      await publishAt(validateBundle(removed), start + 10 * day);
      const tombstone = (await store.recordStates()).find((s) => s.id === gone.id.toLowerCase())!;
      assert.equal(tombstone.hash, null, 'the removed event left a tombstone');
      const edited = structuredClone(removed);
      edited.markers[0].name += ' (edited)';
      const statesBefore = await store.recordStates();
      await publishAt(validateBundle(edited), start + (HISTORY_DAYS + 5) * day);
      const kept = await store.changes();
      assert.ok(kept.every((c) => Date.parse(c.madeAt) >= start + 5 * day), 'the change older than the span went');
      // A record unchanged since a change that went keeps when it changed (its updated_at), though the change itself went.
      const unchanged = statesBefore.find((s) => s.type === 'category' && !kept.some((c) => c.change === s.change))!;
      assert.ok(unchanged.madeAt !== null);
      assert.equal((await store.recordStates()).find((s) => s.type === 'category' && s.id === unchanged.id)!.madeAt, unchanged.madeAt);
      assert.ok(kept.some((c) => c.change === tombstone.change), 'the change of the removal is still within the span');
      assert.ok((await store.recordStates()).some((s) => s.id === gone.id.toLowerCase()), 'so its tombstone stays');
      // Far later: only the newest change stays, the removal's tombstone and history go.
      const again = structuredClone(edited);
      again.markers[0].name += ' again';
      const last = await publishAt(validateBundle(again), start + 400 * day);
      const left = await store.changes();
      assert.deepEqual(left.map((c) => c.version), [last.version], 'only the newest change is left');
      assert.ok(!(await store.recordStates()).some((s) => s.id === gone.id.toLowerCase()), 'the tombstone went with its change');
      const m = bundle.maps[0];
      assert.ok((await store.history(0, m.id, m.publisher_id)).every((h) => h.change === left[0].change), 'the history of dropped changes went');
      assert.equal((await store.recordChanges())!.oldest, left[0].change, 'a token before the newest change is now too old to follow');
      // After a year with no publish, a new one still finds every record's state: nothing that is served was dropped.
      const served = (await store.recordStates()).filter((s) => s.hash !== null).length;
      assert.equal(served, recordsOf(validateBundle(again)).length);
    });
  });
}

test('a store that served a version before tracking began makes that version its first change', async () => {
  const db = await openDb({ snapshot: await emptyDatabase() });
  try {
    const store = await SqlStore.open(db);
    const bundle = validateBundle(structuredClone(makeFixture({ events: 5 })));
    const v = await store.writeVersion(bundle, 'before');
    // As a store of the release before: no tracking tables, the migration not applied.
    await db.exec(`DROP TABLE store_identity, content_changes, record_state, record_changes; DELETE FROM schema_migrations WHERE version >= 3`);
    const reopened = await SqlStore.open(db);
    const changes = await reopened.changes();
    assert.deepEqual(changes.map((c) => [c.change, c.version, c.kind]), [[1, v.version, 'tracking began']]);
    assert.equal((await reopened.recordStates()).length, recordsOf(bundle).length);
    assert.match((await reopened.storeId())!, /^[0-9a-f-]{36}$/);
  } finally {
    await db.close();
  }
});

test("two stores seeded from the same empty store have identities of their own, so one's tokens are never read by the other", async () => {
  const snapshot = await emptyDatabase();
  const [a, b] = [await openDb({ snapshot }), await openDb({ snapshot })];
  try {
    const bundle = validateBundle(structuredClone(makeFixture({ events: 5 })));
    const stores = [await SqlStore.open(a), await SqlStore.open(b)];
    assert.equal(await stores[0].storeId(), null, 'no identity before the first change');
    for (const s of stores) await s.writeVersion(bundle, 'same');
    const [ida, idb] = [(await stores[0].storeId())!, (await stores[1].storeId())!];
    assert.notEqual(ida, idb);
    const [token] = [...(await stores[0].mapTokens()).values()];
    assert.equal(readChangeToken(idb, token.token), null);
    assert.equal(readChangeToken(ida, token.token), token.change);
  } finally {
    await a.close();
    await b.close();
  }
});
