/**
 * A bundle taken in pieces: the byte splitter against JSON.parse, validation a chunk at a time against
 * validation of the whole, staged versions that are refused or never committed, and event tables built from
 * events in any order against tables built from sorted ones.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { splitBundle } from '../src/content/bundle/parse.ts';
import { BundleError, BundleValidator, validateBundle } from '../src/content/bundle/validate-bundle.ts';
import { EventTable } from '../src/content/model/event-table.ts';
import { Publisher } from '../src/content/publisher.ts';
import { SqlStore } from '../src/content/store/sql-store.ts';
import type { Db } from '../src/db/db.ts';
import { openDb } from '../src/db/pglite.ts';
import { STAGED_SCHEMAS } from '../src/db/schema.ts';
import { emptyDatabase } from './helpers/store.ts';
import { F, makeFixture } from './helpers/fixture.ts';

const encode = (text: string) => new TextEncoder().encode(text);

/** The fixture as JSON text in several layouts: compact, pretty, events first, with a BOM, with odd strings. */
function layouts(): Record<string, string> {
  const b = structuredClone(makeFixture()) as unknown as Record<string, unknown>;
  const eventsFirst = { events: b.events, ...Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'events')) };
  (b.events as Record<string, unknown>[])[0].description = 'brackets ] } [ { , "quoted" \\ and "events": [1]';
  return {
    compact: JSON.stringify(b),
    pretty: JSON.stringify(b, null, 2),
    eventsFirst: JSON.stringify(eventsFirst, null, '\t'),
    bom: `\uFEFF${JSON.stringify(b)}`,
    crlf: JSON.stringify(b, null, 1).replace(/\n/g, '\r\n'),
  };
}

describe('splitBundle', () => {
  for (const [name, text] of Object.entries(layouts())) {
    test(`${name}: the head and the events in chunks are exactly what JSON.parse makes`, () => {
      const whole = JSON.parse(text.replace(/^\uFEFF/, '')) as { events: unknown[] };
      const split = splitBundle(encode(text));
      assert.ok(split, 'split');
      assert.deepEqual(split.head, { ...whole, events: [] });
      assert.equal(split.eventCount, whole.events.length);
      for (const size of [1, 7, 1000]) {
        const chunks: { offset: number; items: unknown[] }[] = [...split.chunks(size)];
        assert.deepEqual(chunks.flatMap((c) => c.items), whole.events, `chunks of ${size}`);
        assert.deepEqual(chunks.map((c) => c.offset), chunks.map((_, i) => i * size));
      }
    });
  }

  test('an empty events array has no chunks', () => {
    const split = splitBundle(encode('{"format": "x", "events": [ ]}'))!;
    assert.equal(split.eventCount, 0);
    assert.deepEqual([...split.chunks(10)], []);
  });

  test('anything the scanner cannot follow is left to a whole parse (null)', () => {
    for (const text of ['[]', '{"format": "x"}', '{"events": {"a": 1}}', '{"events": [], "events": []}', '{"events": [1, 2]',
      '{"events": [1], "x": }', '{"events": "[1]"}', '"events"', '{"a": {"events": [1]}}']) {
      assert.equal(splitBundle(encode(text)), null, text);
    }
  });

  test('invalid JSON inside an event shows when its chunk is parsed', () => {
    const split = splitBundle(encode('{"events": [{"a": 1}, {"b": tru}]}'))!;
    assert.throws(() => [...split.chunks(1)], SyntaxError);
  });
});

describe('BundleValidator', () => {
  /** A fixture with problems in its head and in events far apart. */
  function broken(): Record<string, any> {
    const b = structuredClone(makeFixture()) as any;
    b.markers[0].lat = 91;
    b.events[0].map_id = F.map.replace(/.$/, '0');
    b.events[3].poi_ids.push('00000000-0000-4000-8000-000000000001');
    b.events[b.events.length - 1].id = b.events[1].id;
    b.events[b.events.length - 2].ends_at = '2020-01-01T00:00:00Z';
    delete b.events[5].title;
    return b;
  }

  for (const size of [1, 4, 1000]) {
    test(`chunks of ${size} report the problems that validating the whole bundle reports`, () => {
      const b = broken();
      let whole: BundleError | null = null;
      try { validateBundle(b); } catch (err) { whole = err as BundleError; }
      assert.ok(whole instanceof BundleError);
      const validator = new BundleValidator({ ...b, events: [] });
      for (let i = 0; i < b.events.length; i += size) validator.addEvents(b.events.slice(i, i + size), i);
      const problems = validator.finish();
      assert.deepEqual(problems.map((p) => p.path).sort(), whole.problems.map((p) => p.path).sort());
      // The messages are the same, but a duplicate's first use in another chunk is named by its path alone.
      const byPath = new Map(whole.problems.map((p) => [p.path, p.message]));
      for (const p of problems) {
        if (/duplicate event id/.test(p.message) && size < b.events.length) assert.match(p.message, /first used by event ("[^"]*" )?\(\$\.events\[1\]\)/);
        else assert.equal(p.message, byPath.get(p.path), p.path);
      }
    });
  }

  test('a valid bundle validated in chunks gives the same records as validated whole', () => {
    const b = structuredClone(makeFixture()) as any;
    const validator = new BundleValidator({ ...b, events: [] });
    const events = [];
    for (let i = 0; i < b.events.length; i += 3) events.push(...validator.addEvents(b.events.slice(i, i + 3), i));
    assert.deepEqual(validator.finish(), []);
    assert.deepEqual({ ...validator.head, events }, validateBundle(structuredClone(b)));
  });
});

describe('staged versions', () => {
  let db: Db;
  let store: SqlStore;
  const staged = async () => (await db.query<{ schema: string }>(STAGED_SCHEMAS)).rows.map((r) => r.schema);

  before(async () => {
    db = await openDb({ snapshot: await emptyDatabase() });
    store = await SqlStore.open(db);
  });
  after(async () => {
    await db?.close();
  });

  test('a staged version is invisible until committed, and a new stage drops one never committed', async () => {
    const bundle = validateBundle(structuredClone(makeFixture()));
    const first = await store.stageVersion(bundle, [bundle.events]);
    assert.equal(await store.current(), null);
    assert.deepEqual(await staged(), [`cv_${first}`]);
    const second = await store.stageVersion(bundle, [bundle.events.slice(0, 10), bundle.events.slice(10)]);
    assert.deepEqual(await staged(), [`cv_${second}`]);
    const v = await store.commitVersion(second, 'c', bundle.format);
    assert.equal(v.version, second);
    assert.deepEqual(await staged(), []);
    const read = await store.readVersion(v);
    assert.equal(read.events.length, bundle.events.length);
  });

  test('an error while the events are read rolls the staged tables back', async () => {
    const bundle = validateBundle(structuredClone(makeFixture()));
    function* refusing() {
      yield bundle.events.slice(0, 5);
      throw new BundleError([{ path: '$.events[5]', message: 'refused' }]);
    }
    await assert.rejects(store.stageVersion(bundle, refusing()), BundleError);
    assert.deepEqual(await staged(), []);
  });
});

describe('publishing a bundle in chunks', () => {
  test('a bad event far into the bundle refuses it with every problem and writes nothing', async () => {
    const publisher = await Publisher.open();
    try {
      const b = structuredClone(makeFixture()) as any;
      b.events[b.events.length - 1].starts_at = 'soon';
      b.markers[2].lng = 200;
      const result = await publisher.stage(JSON.stringify(b, null, 2));
      assert.deepEqual(result.problems?.map((p) => p.path).sort(), [`$.events[${b.events.length - 1}].starts_at`, '$.markers[2].lng']);
      assert.equal(await publisher.serveCurrent(), null);
      const good = await publisher.stage(JSON.stringify(makeFixture()));
      assert.equal(good.problems, null);
      const { payload, written } = await publisher.prepare();
      assert.ok(written);
      assert.equal(payload.version, 1);
      assert.equal(await publisher.currentVersion(), null, 'prepared, not yet current');
      assert.equal((await publisher.commit())?.version, 1);
      assert.equal((await publisher.currentVersion())?.published_at, payload.published_at);
    } finally {
      await publisher.close();
    }
  });

  test('text that is not JSON is refused at $ as a whole parse reports it', async () => {
    const publisher = await Publisher.open();
    try {
      const text = JSON.stringify(makeFixture()).replace('"events":[{', '"events":[{,');
      const result = await publisher.stage(text);
      assert.equal(result.problems?.length, 1);
      assert.equal(result.problems?.[0].path, '$');
      assert.match(result.problems![0].message, /not valid JSON/);
    } finally {
      await publisher.close();
    }
  });
});

test('an event table built from events in any order equals one built from them in keyset order', () => {
  const bundle = validateBundle(structuredClone(makeFixture()));
  const inputs = bundle.events.filter((e) => e.map_id === F.map)
    .map((doc) => ({ doc, startMs: Date.parse(doc.starts_at), anchors: [...new Set(doc.poi_ids)] }));
  const sorted = [...inputs].sort((a, b) => a.startMs - b.startMs || (a.doc.id < b.doc.id ? -1 : 1));
  const type = () => 'marker' as const;
  const reference = EventTable.build(F.map, 'UTC', sorted, type);
  const shuffled = EventTable.build(F.map, 'UTC', [...inputs].reverse(), type);
  assert.equal(shuffled.length, reference.length);
  for (let i = 0; i < reference.length; i++) assert.deepEqual(shuffled.summary(i), reference.summary(i));
  for (let i = 1; i < reference.length; i++) assert.ok(reference.startMs[i - 1] <= reference.startMs[i]);
});
