/**
 * Change tracking, against a brute-force account over random histories: after any sequence of publishes (and
 * rollbacks, which are publishes of an older content), every record carries the last change in which its content
 * differed from the version before, every removed record leaves a tombstone of the change that removed it, and a
 * map's token moves exactly when something of that map (or its publisher, or an icon) changed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeToken, readChangeToken } from '../src/content/changes.ts';
import { ChangeSet, mapChanges, recordHash, recordKey, type RecordFacts, type RecordState } from './helpers/change-reference.ts';
import { mulberry32 } from './helpers/fixture.ts';

/** A content: each record's facts by key. */
type Content = Map<string, RecordFacts>;

/** A random content of three maps of two publishers, drawn from a small pool of records and texts, so that versions share records. */
function randomContent(rand: () => number): Content {
  const out: Content = new Map();
  const add = (r: RecordFacts) => out.set(recordKey(r.type, r.id), r);
  const text = () => recordHash(`text ${Math.floor(rand() * 3)}`);
  for (const p of ['p1', 'p2']) add({ type: 'publisher', id: p, mapId: null, hash: text() });
  for (const m of ['m1', 'm2', 'm3']) {
    add({ type: 'map', id: m, mapId: m, hash: text() });
    for (let k = 0; k < 6; k++) if (rand() < 0.7) add({ type: k % 2 ? 'poi' : 'event', id: `${m}-${k}`, mapId: m, hash: text() });
  }
  if (rand() < 0.8) add({ type: 'icon', id: 'i1', mapId: null, hash: text() });
  return out;
}

const PUBLISHER_OF = new Map([['m1', 'p1'], ['m2', 'p1'], ['m3', 'p2']]);

test('over random histories, records carry their last change, removals leave tombstones, and tokens move only with their map', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const rand = mulberry32(seed);
    const contents: Content[] = [];
    let state: RecordState[] = [];
    let tokens = new Map<string, number>();
    // Brute force: the change in which each key's content (or its absence) last differed, over the contents made current.
    const lastDiffered = new Map<string, number>();
    let previous: Content = new Map();
    for (let change = 1; change <= 8; change++) {
      // A rollback makes an earlier content current again: to change tracking, a content like any other.
      const content = contents.length > 0 && rand() < 0.3 ? contents[Math.floor(rand() * contents.length)] : randomContent(rand);
      contents.push(content);
      const set = new ChangeSet(state, change);
      for (const r of content.values()) set.add(r);
      const { state: next, changes } = set.finish();
      for (const key of new Set([...previous.keys(), ...content.keys()])) {
        if (previous.get(key)?.hash !== content.get(key)?.hash) lastDiffered.set(key, change);
      }
      for (const r of next) {
        assert.equal(r.change, lastDiffered.get(recordKey(r.type, r.id)), `seed ${seed}, change ${change}, ${r.type} ${r.id}`);
        assert.equal(r.hash, content.get(recordKey(r.type, r.id))?.hash ?? null, 'live records have their hash, tombstones none');
      }
      const keys = new Set(next.map((r) => recordKey(r.type, r.id)));
      for (const key of lastDiffered.keys()) assert.ok(keys.has(key), `seed ${seed}: ${key} is a record or a tombstone`);
      assert.deepEqual(changes.map((c) => recordKey(c.type, c.id)).sort(),
        [...lastDiffered].filter(([, c]) => c === change).map(([k]) => k).sort(), 'the history of this change is what differed');
      for (const c of changes) assert.equal(c.op, content.has(recordKey(c.type, c.id)) ? 'upsert' : 'delete');

      const nextTokens = mapChanges(next, PUBLISHER_OF);
      for (const [mapId, publisherId] of PUBLISHER_OF) {
        const touched = changes.some((c) => c.mapId === mapId || c.type === 'icon' || (c.type === 'publisher' && c.id === publisherId));
        assert.equal(nextTokens.get(mapId) !== (tokens.get(mapId) ?? 0), touched, `seed ${seed}, change ${change}: the token of ${mapId}`);
        if (touched) assert.equal(nextTokens.get(mapId), change);
      }
      state = next;
      tokens = nextTokens;
      previous = content;
    }
  }
});

test('tombstones older than the span kept are dropped; a record that comes back is an upsert of the change it came back in', () => {
  const a: RecordFacts = { type: 'poi', id: 'a', mapId: 'm', hash: 'h1' };
  const first = new ChangeSet([], 1);
  first.add(a);
  const second = new ChangeSet(first.finish().state, 2);
  const gone = second.finish();
  assert.deepEqual(gone.state, [{ ...a, hash: null, change: 2 }]);
  assert.deepEqual(gone.changes, [{ change: 2, type: 'poi', id: 'a', mapId: 'm', op: 'delete' }]);
  assert.deepEqual(new ChangeSet(gone.state, 3).finish(3).state, [], 'a tombstone of change 2 is dropped when changes from 3 on are kept');
  assert.deepEqual(new ChangeSet(gone.state, 3).finish(2).state, gone.state, 'and kept while change 2 is');
  const back = new ChangeSet(gone.state, 3);
  assert.equal(back.add(a), 3);
  assert.deepEqual(back.finish().changes, [{ change: 3, type: 'poi', id: 'a', mapId: 'm', op: 'upsert' }]);
});

test('a token names its store and change, opaquely; another store\'s token, or anything else, is not read', () => {
  const store = '6f1c2e0a-93b4-4d0e-a1b2-c3d4e5f60718';
  const token = changeToken(store, 1234);
  assert.match(token, /^[A-Za-z0-9_-]+$/);
  assert.equal(readChangeToken(store, token), 1234);
  assert.notEqual(changeToken(store, 1235), token);
  assert.equal(readChangeToken('00000000-93b4-4d0e-a1b2-c3d4e5f60718', token), null);
  for (const bad of ['', 'x', '%%%', btoa('not.a.token')]) assert.equal(readChangeToken(store, bad), null, bad);
});
