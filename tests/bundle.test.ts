/**
 * The content bundle loader: validation that reports every problem with its JSON path, the one-transaction
 * load into the store (PGlite, and a real PostgreSQL), and the content store's all-or-nothing swap of the content
 * being served.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { contentDocs, SqlStore } from '../src/content/store/sql-store.ts';
import { buildReadModel } from '../src/content/model/read-model.ts';
import { BundleError, validateBundle, type BundleProblem } from '../src/content/bundle/validate-bundle.ts';
import { ACCESSIBILITY_FEATURES, type BundleT } from '../src/content/bundle/bundle-schema.ts';
import type { Db } from '../src/db/db.ts';
import { openDb } from '../src/db/pglite.ts';
import { connectPostgres } from '../src/db/postgres.ts';
import { testDatabase } from './helpers/postgres.ts';
import { TABLES, VERSIONS, versionSchema } from '../src/db/schema.ts';
import { emptyDatabase } from './helpers/store.ts';
import { openTestApp, readDemoBundle, type TestApp } from './helpers/app.ts';
import { F, makeFixture, upperCaseIds, uuidFor } from './helpers/fixture.ts';
import { poiIds } from './helpers/poi-store.ts';

type Expected = { path: string; message: RegExp };

/** A bundle that can be broken freely: a deep clone, typed loosely. */
const cloneFixture = (seed?: number): any => structuredClone(makeFixture(seed === undefined ? {} : { seed }));

/** Runs validateBundle, expecting a BundleError, and returns its problems. */
function problemsOf(bundle: unknown): BundleProblem[] {
  try {
    validateBundle(bundle);
  } catch (err) {
    assert.ok(err instanceof BundleError, `expected a BundleError, got ${String(err)}`);
    assert.ok(err.problems.length > 0, 'a BundleError must carry at least one problem');
    return err.problems;
  }
  assert.fail('the bundle was accepted');
}

/** Asserts that every expected problem is reported, at its path, with a message saying what is wrong. */
function assertReported(problems: BundleProblem[], expected: Expected[]) {
  const missing = expected.filter((e) => !problems.some((p) => p.path === e.path && e.message.test(p.message)));
  assert.deepEqual(missing.map((e) => `${e.path} ~ ${e.message}`), [],
    `not reported; the problems were:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
  for (const p of problems) {
    assert.match(p.path, /^\$(\.[a-z_]+|\[\d+\])*$/, `problem path ${p.path} is not a JSON path`);
    assert.ok(p.message.length >= 8, `message for ${p.path} is too short to be clear: "${p.message}"`);
  }
}

const indexOfId = (items: { id: string }[], id: string) => {
  const i = items.findIndex((x) => x.id === id);
  assert.ok(i >= 0, `fixture has no record ${id}`);
  return i;
};

/** Breaks `b` with every kind of cross-record problem; returns what must be reported. */
function breakReferences(b: any): Expected[] {
  const unknown = uuidFor('nothing:at-all');
  const pacificCategory = uuidFor('category:pacific');
  const pacificMarker = b.markers.find((m: any) => m.map_id === F.pacific).id;
  const out: Expected[] = [];
  const expect = (path: string, message: RegExp) => out.push({ path, message });

  b.markers[3].category_ids[0] = pacificCategory;
  expect('$.markers[3].category_ids[0]', /belongs to another map/);
  b.events[1].poi_ids = [unknown];
  expect('$.events[1].poi_ids[0]', /unknown POI/);
  b.events[2].poi_ids = [pacificMarker];
  expect('$.events[2].poi_ids[0]', /belongs to another map/);
  b.maps[1].publisher_id = unknown;
  expect('$.maps[1].publisher_id', /unknown publisher/);
  b.maps[0].current_version_id = F.draft;
  expect('$.maps[0].current_version_id', /draft/);
  b.maps[2].current_version_id = F.v1;
  expect('$.maps[2].current_version_id', /not one of this map's versions/);
  b.lists[0].items[1].poi_id = unknown;
  expect('$.lists[0].items[1].poi_id', /unknown POI/);
  assert.equal(b.associations[0].list_id, null);
  b.associations[0].list_id = F.disabledList;
  expect('$.associations[0].list_id', /belongs to another map/);
  b.associations[1].associated_poi_id = b.associations[1].poi_id;
  expect('$.associations[1].associated_poi_id', /itself/);
  const tag = indexOfId(b.categories, uuidFor('category:tag1-1'));
  b.categories[tag].icon_id = unknown;
  expect(`$.categories[${tag}].icon_id`, /unknown icon/);
  b.markers[5].icon_id = unknown;
  expect('$.markers[5].icon_id', /unknown icon/);
  // root0 -> child0-0 -> root0
  const root = indexOfId(b.categories, uuidFor('category:root0'));
  const child = indexOfId(b.categories, uuidFor('category:child0-0'));
  assert.equal(b.categories[child].parent_id, b.categories[root].id);
  b.categories[root].parent_id = b.categories[child].id;
  expect(`$.categories[${root}].parent_id`, /cycle/);
  expect(`$.categories[${child}].parent_id`, /cycle/);
  b.sessions[0].saved_event_ids.push(unknown);
  expect(`$.sessions[0].saved_event_ids[${b.sessions[0].saved_event_ids.length - 1}]`, /unknown event/);
  b.markers[10].version_ids = [F.pacificV];
  expect('$.markers[10].version_ids[0]', /belongs to another map/);

  // Duplicate ids: appended copies, so no reference elsewhere dangles.
  b.markers.push({ ...b.markers[30] });
  expect(`$.markers[${b.markers.length - 1}].id`, /duplicate/);
  b.paths.push({ ...b.paths[0], id: b.markers[40].id });
  expect(`$.paths[${b.paths.length - 1}].id`, /duplicate/);
  b.events.push({ ...b.events[5] });
  expect(`$.events[${b.events.length - 1}].id`, /duplicate/);
  b.maps[0].versions.push({ ...b.maps[0].versions[0], name: 'again' });
  expect(`$.maps[0].versions[${b.maps[0].versions.length - 1}].id`, /duplicate/);

  // Geometry and time order, which only the cross-record pass sees.
  b.polygons[1].geometry.coordinates[0][4] = [b.polygons[1].geometry.coordinates[0][4][0] + 0.001, b.polygons[1].geometry.coordinates[0][4][1]];
  expect('$.polygons[1].geometry.coordinates[0]', /not closed/);
  b.events[10].ends_at = new Date(Date.parse(b.events[10].starts_at) - 3_600_000).toISOString();
  expect('$.events[10].ends_at', /earlier than starts_at/);
  return out;
}

/** Breaks `b` with every kind of structural problem; returns what must be reported. */
function breakStructure(b: any): Expected[] {
  const out: Expected[] = [];
  const expect = (path: string, message: RegExp) => out.push({ path, message });

  b.markers[20].lat = 91;
  expect('$.markers[20].lat', /latitude/);
  b.markers[21].lng = -181;
  expect('$.markers[21].lng', /longitude/);
  const ring = b.polygons[3].geometry.coordinates[0];
  b.polygons[3].geometry.coordinates[0] = [ring[0], ring[1], ring[0]]; // closed, but only 3 positions
  expect('$.polygons[3].geometry.coordinates[0]', /at least 4 positions/);
  b.paths[1].geometry.coordinates = [b.paths[1].geometry.coordinates[0]];
  expect('$.paths[1].geometry.coordinates', /at least 2 positions/);
  b.events[11].starts_at = '2026-13-01T00:00:00Z';
  expect('$.events[11].starts_at', /real calendar date-time/);
  b.events[12].ends_at = '2027-01-01T10:00:00';
  expect('$.events[12].ends_at', /Z or an offset/);
  b.lists[1].created_at = 'yesterday';
  expect('$.lists[1].created_at', /RFC 3339/);
  b.format = 'destination-bundle/2';
  expect('$.format', /destination-bundle\/1/);
  b.markers[50].name = 42;
  expect('$.markers[50].name', /string/);
  b.maps[1].time_zone = 'Mars/Olympus_Mons';
  expect('$.maps[1].time_zone', /IANA time zone/);
  b.maps[0].branding.primary_color = 'red';
  expect('$.maps[0].branding.primary_color', /#rrggbb/);
  return out;
}

describe('bundle validation', () => {
  test('the synthetic fixture validates, every record kept', () => {
    const input = makeFixture();
    const out = validateBundle(input);
    for (const key of ['publishers', 'maps', 'icons', 'categories', 'markers', 'paths', 'polygons', 'events', 'lists', 'associations', 'sessions'] as const) {
      assert.equal(out[key].length, input[key].length, key);
    }
  });

  // data/demo-bundle.json is committed, so this always runs: a checkout without it is broken.
  test('the demo bundle validates', async () => {
    const demo = await readDemoBundle();
    const out = validateBundle(demo);
    assert.ok(out.maps.length > 0 && out.markers.length > 0 && out.events.length > 0, 'the demo has maps, markers and events');
  });

  test('a bundle with many cross-record problems is refused with every one of them, each at its path', () => {
    const b = cloneFixture();
    const expected = breakReferences(b);
    const problems = problemsOf(b);
    assertReported(problems, expected);
    // Nothing else is wrong with the bundle, so nothing else is reported.
    assert.deepEqual([...new Set(problems.map((p) => p.path))].sort(), [...new Set(expected.map((e) => e.path))].sort());
  });

  test('a bundle with many structural problems is refused with every one of them, each at its path', () => {
    const b = cloneFixture();
    const expected = breakStructure(b);
    const problems = problemsOf(b);
    assertReported(problems, expected);
    assert.deepEqual([...new Set(problems.map((p) => p.path))].sort(), [...new Set(expected.map((e) => e.path))].sort());
  });

  test('a bundle with structural and cross-record problems at once is refused with all of them in one pass', () => {
    const b = cloneFixture();
    const expected = [...breakStructure(b), ...breakReferences(b)];
    const problems = problemsOf(b);
    assertReported(problems, expected);
  });

  test('the BundleError message names the count and every problem path', () => {
    const b = cloneFixture();
    const expected = breakReferences(b);
    try {
      validateBundle(b);
      assert.fail('accepted');
    } catch (err) {
      assert.ok(err instanceof BundleError);
      assert.match(err.message, new RegExp(`${err.problems.length} problems`));
      for (const e of expected) assert.ok(err.message.includes(e.path), `message lacks ${e.path}`);
    }
  });

  test('a timestamp that no calendar has (30 February, 24:00) is refused rather than rolled over', () => {
    const b = cloneFixture();
    b.events[0].starts_at = '2027-02-30T10:00:00Z';
    b.lists[0].created_at = '2026-06-01T24:00:00Z';
    assertReported(problemsOf(b), [
      { path: '$.events[0].starts_at', message: /real calendar date-time/ },
      { path: '$.lists[0].created_at', message: /real calendar date-time/ },
    ]);
  });

  test('status and the visitor fields: each rule between them is refused at its path, saying why', () => {
    const b = cloneFixture();
    const at = (i: number, fields: Record<string, unknown>) => Object.assign(b.events[i], fields);
    at(10, { status: 'rescheduled' });
    at(12, { previous_start: '2027-01-01T10:00:00Z' });
    at(13, { status: 'rescheduled', previous_start: b.events[13].starts_at });
    at(14, { attendance_mode: 'online' });
    at(15, { attendance_mode: 'offline', online_url: 'https://example.org/live' });
    at(17, { status: 'moved_online' });
    at(18, { offers: { price: 10 } });
    at(19, { offers: { free: true, price: 5, currency: 'EUR' } });
    at(20, { offers: { currency: 'EUR' } });
    at(21, { status: 'canceled', capacity: 0, accessibility: ['wheelchair'], offers: { currency: 'eur', price: -1, availability: 'soon' } });
    assertReported(problemsOf(b), [
      { path: '$.events[10].previous_start', message: /required when the status is rescheduled/ },
      { path: '$.events[12].previous_start', message: /only for an event rescheduled, postponed or cancelled, not scheduled/ },
      { path: '$.events[13].previous_start', message: /is starts_at itself/ },
      { path: '$.events[14].online_url', message: /required when attendance_mode is online/ },
      { path: '$.events[15].online_url', message: /attendance_mode is offline/ },
      { path: '$.events[17].online_url', message: /required when the status is moved_online/ },
      { path: '$.events[18].offers.currency', message: /required with a price/ },
      { path: '$.events[19].offers.free', message: /is true, yet the price is 5/ },
      { path: '$.events[20].offers.currency', message: /without a price/ },
      { path: '$.events[21].status', message: /must be one of scheduled, cancelled, postponed, rescheduled, moved_online/ },
      { path: '$.events[21].capacity', message: /at least 1/ },
      { path: '$.events[21].accessibility[0]', message: /must be one of audioDescription, captions/ },
      { path: '$.events[21].offers.currency', message: /ISO 4217/ },
      { path: '$.events[21].offers.price', message: /negative/ },
      { path: '$.events[21].offers.availability', message: /in_stock, limited_availability, sold_out, pre_order/ },
    ]);
  });

  test('every status and visitor field a bundle may give is accepted, and a plain event needs none of them', () => {
    const b = cloneFixture();
    Object.assign(b.events[10], {
      status: 'moved_online', organizer: { name: { en: 'Lisbon Jazz', pt: 'Jazz de Lisboa' }, url: 'https://jazz.example/', email: 'hi@jazz.example', phone: '+351 21' },
      offers: { free: false, price: 0.5, currency: 'EUR', booking_url: 'https://jazz.example/book', availability: 'sold_out' },
      attendance_mode: 'online', online_url: 'https://jazz.example/live', capacity: 1, accessibility: [...ACCESSIBILITY_FEATURES],
    });
    Object.assign(b.events[12], { status: 'cancelled', previous_start: '2027-01-01T10:00:00+01:00', offers: { free: true } });
    const parsed = validateBundle(b);
    assert.equal(parsed.events[10].offers?.availability, 'sold_out');
    assert.equal(parsed.events[0].status, undefined);
  });

  test('a category and a marker sharing one id are refused as a duplicate id', () => {
    const b = cloneFixture();
    const tag = indexOfId(b.categories, uuidFor('category:tag2-2'));
    b.markers.push({ ...b.markers[45], id: b.categories[tag].id, name: 'Clash' });
    assertReported(problemsOf(b), [{ path: `$.markers[${b.markers.length - 1}].id`, message: /duplicate/ }]);
  });

  test('upper-case UUIDs validate and come out lowercase', () => {
    const text = upperCaseIds(makeFixture());
    assert.ok(text.includes(`"${F.map.toUpperCase()}"`), 'the input really has upper-case ids');
    const out = validateBundle(JSON.parse(text));
    assert.deepEqual(out, validateBundle(JSON.parse(JSON.stringify(makeFixture()))));
  });
});

/** Row count and a content hash of every table of every version, and the catalogue: whole store states. */
async function fingerprint(db: Pick<Db, 'query'>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const schemas = (await db.query<{ s: string }>("SELECT nspname AS s FROM pg_namespace WHERE nspname LIKE 'cv\\_%' ORDER BY 1")).rows.map((r) => r.s);
  out.schemas = schemas.join(',');
  for (const table of ['public.content_versions', 'public.content_current', ...schemas.flatMap((sc) => TABLES.map((t) => `${sc}.${t}`))]) {
    const { rows } = await db.query<{ n: number; h: string | null }>(
      `SELECT count(*)::int AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS h FROM ${table} t`);
    out[table] = `${rows[0].n}:${rows[0].h}`;
  }
  return out;
}

/** The checksum of the bundle the store serves. */
async function checksumIn(db: Db): Promise<string | undefined> {
  return (await db.query<{ checksum: string }>(VERSIONS.current)).rows[0]?.checksum;
}

/** A view of `db` whose transaction fails on its `n`th INSERT. */
function failingOnInsert(db: Db, n: number): Db & { failed: () => boolean } {
  let failed = false;
  let inserts = 0; // counted across transactions: a version is staged in one and made current in another
  return {
    query: (sql, params) => db.query(sql, params),
    exec: (sql) => db.exec(sql),
    copyIn: (sql, data) => db.copyIn(sql, data),
    close: () => db.close(),
    failed: () => failed,
    transaction: (fn) => db.transaction((tx) => {
      const fail = () => {
        failed = true;
        throw new Error(`injected failure on insert ${n}`);
      };
      return fn({
        exec: (sql) => tx.exec(sql),
        query: (sql, params) => (/^\s*INSERT/i.test(sql) && ++inserts === n ? fail() : tx.query(sql, params)),
        copyIn: (sql, data) => (++inserts === n ? fail() : tx.copyIn(sql, data)),
      });
    }),
  };
}

/** The two stores the same SQL runs on: embedded PGlite, and a real PostgreSQL (a database of its own). */
const STORES = {
  PGlite: async () => {
    const db = await openDb({ snapshot: await emptyDatabase() });
    return { db, close: () => db.close() };
  },
  PostgreSQL: async () => {
    const pg = await testDatabase();
    const db = connectPostgres(pg.url);
    return { db, close: async () => { await db.close(); await pg.drop(); } };
  },
};

for (const [kind, openStore] of Object.entries(STORES)) describe(`writing content versions into the store (${kind})`, () => {
  let db: Db;
  let close: () => Promise<void>;
  let store: SqlStore;
  /** The fixture with a recurring series, so every table of a version has rows. */
  const withSeries = (b: BundleT): BundleT => ({ ...b, events: [...b.events, { ...b.events[0], id: uuidFor('event:series'), title: 'Weekly',
    starts_at: '2027-01-05T10:00:00Z', ends_at: '2027-01-05T11:00:00Z', recurrence: { rule: 'FREQ=WEEKLY;COUNT=10' } }] });
  const first = validateBundle(withSeries(makeFixture()));
  const second = validateBundle(withSeries(makeFixture({ seed: 7 })));
  /** The current version's schema, for queries on its tables. */
  const schema = async () => versionSchema((await store.current())!.version);

  before(async () => {
    ({ db, close } = await openStore());
    store = await SqlStore.open(db);
  });
  after(async () => {
    await close?.();
  });

  test('a write that fails part-way leaves the store exactly as it was', async () => {
    await store.writeVersion(first, 'first');
    const before = await fingerprint(db);
    const nonEmpty = Object.entries(before).filter(([k, f]) => k.startsWith('cv_') && !f.startsWith('0:')).length;
    assert.equal(nonEmpty, TABLES.length, 'the fixture fills every table, so each insert is a separate step');
    // The tables, a COPY of events and one of anchors, the series and their occurrences' COPYs (staged), then the
    // catalogue row and the current pointer.
    for (const n of [1, 2, 8, TABLES.length, TABLES.length + 1, TABLES.length + 2]) {
      const flaky = failingOnInsert(db, n);
      await assert.rejects((await SqlStore.open(flaky)).writeVersion(second, 'second'), new RegExp(`injected failure on insert ${n}`));
      assert.ok(flaky.failed(), `insert ${n} was reached`);
      assert.deepEqual(await fingerprint(db), before, `after failing on insert ${n}`);
      assert.equal(await checksumIn(db), 'first');
    }
    // The same wrapper that never fails writes normally, so the failures above were the injected ones.
    const passing = failingOnInsert(db, Infinity);
    await (await SqlStore.open(passing)).writeVersion(second, 'second');
    assert.notDeepEqual(await fingerprint(db), before);
    assert.equal(await checksumIn(db), 'second');
    assert.deepEqual((await store.versions()).map((v) => v.checksum), ['second', 'first'], 'the older version is kept');
  });

  test('versions beyond the newest two are pruned, tables and all', async () => {
    await store.writeVersion(first, 'third');
    const dropped = await store.prune();
    assert.ok(dropped.length >= 1);
    const kept = await store.versions();
    assert.deepEqual(kept.map((v) => v.checksum), ['third', 'second']);
    const schemas = (await db.query<{ s: string }>("SELECT nspname AS s FROM pg_namespace WHERE nspname LIKE 'cv\\_%' ORDER BY 1")).rows.map((r) => r.s);
    assert.deepEqual(schemas.sort(), kept.map((v) => versionSchema(v.version)).sort());
  });

  test('a version read back builds the same read model as the bundle it was written from', async () => {
    const v = await store.writeVersion(first, 'first-again');
    const read = await store.readVersion(v);
    const fromStore = buildReadModel(read);
    const fromBundle = buildReadModel(contentDocs(first, 'first-again', first.events));
    assert.deepEqual(poiIds(fromStore.pois).sort(), poiIds(fromBundle.pois).sort());
    for (const [id, map] of fromBundle.maps) {
      const other = fromStore.maps.get(id)!;
      assert.equal(other.events.length, map.events.length);
      for (let i = 0; i < map.events.length; i++) assert.deepEqual(other.events.summary(i), map.events.summary(i));
    }
  });

  test('a version\'s events are read back in pages, each event exactly once, whatever the page size', async () => {
    const v = (await store.current())!;
    // The events as stored: the series' occurrences in place of the series.
    const expected = contentDocs(first, '').events.map((e) => e.id.toLowerCase()).sort();
    for (const size of [1, 7, expected.length - 1, expected.length, expected.length + 1]) {
      const pages: number[] = [];
      const ids: string[] = [];
      await store.readEvents(v.version, (page) => {
        pages.push(page.length);
        for (const e of page) ids.push(e.id);
      }, size);
      assert.deepEqual(ids.sort(), expected, `page size ${size}`);
      assert.ok(pages.every((n) => n >= 1 && n <= size), `page size ${size}: pages of ${pages.join(', ')}`);
      assert.equal(pages.length, Math.ceil(expected.length / size), `page size ${size}`);
    }
  });

  test('version_ids omitted means every version of the map, drafts included in storage', async () => {
    await store.writeVersion(first, 'first');
    const marker = first.markers.find((m) => m.map_id === F.map && m.version_ids === undefined)!;
    const category = first.categories.find((c) => c.map_id === F.map && c.version_ids === undefined)!;
    const listed = first.markers.find((m) => m.version_ids !== undefined && m.version_ids.length === 1 && m.version_ids[0] === F.v1)!;
    const sc = await schema();
    const versionsOf = async (id: string) => (await db.query<{ v: string }>(
      `SELECT version_id::text AS v FROM ${sc}.item_versions WHERE item_id = $1 ORDER BY 1`, [id])).rows.map((r) => r.v);
    const all = [F.v1, F.v2, F.draft].sort();
    assert.deepEqual(await versionsOf(marker.id), all);
    assert.deepEqual(await versionsOf(category.id), all);
    assert.deepEqual(await versionsOf(listed.id), [F.v1]);
    // Served, only the published ones count.
    const model = buildReadModel(contentDocs(first, 'first', first.events));
    assert.deepEqual(model.pois.get(marker.id)!.record.version_ids, [F.v1, F.v2].sort());
  });

  test('upper-case UUIDs are stored lowercase', async () => {
    const text = upperCaseIds(makeFixture());
    await store.writeVersion(validateBundle(JSON.parse(text)), 'upper');
    const sc = await schema();
    for (const table of ['maps', 'categories', 'pois', 'events', 'lists', 'associations']) {
      const { rows } = await db.query<{ doc: string }>(`SELECT doc::text AS doc FROM ${sc}.${table}`);
      assert.ok(rows.length > 0, table);
      for (const { doc } of rows) assert.doesNotMatch(doc, /[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/, `${table}: ${doc.slice(0, 80)}`);
    }
    assert.equal((await db.query(`SELECT 1 FROM ${sc}.pois WHERE id = $1`, [F.draftMarker])).rows.length, 1);
  });

  test('a version id repeated in version_ids loads, stored once', async () => {
    const b = cloneFixture();
    b.markers[20].version_ids = [F.v1, F.v1.toUpperCase()];
    await store.writeVersion(validateBundle(b), 'repeat');
    const { rows } = await db.query<{ v: string }>(`SELECT version_id::text AS v FROM ${await schema()}.item_versions WHERE item_id = $1`, [b.markers[20].id]);
    assert.deepEqual(rows.map((r) => r.v), [F.v1]);
  });
});

describe('the content store', () => {
  let t: TestApp;
  const bearer = { headers: { authorization: `Bearer ${F.sessionToken}` } };
  const probes = [
    `/maps/${F.map}?info=true&all_categories=true&categories=true&markers=true&paths=true&polygons=true&publisher=true&map_data=true&contact=true&map_sponsors=true&tag_counts=true&contents=true`,
    `/maps/${F.map}?markers=true&version_id=${F.v1}`,
    `/events?map_id=${F.map}&from=2026-01-01T00:00:00Z&to=2029-01-01T00:00:00Z&limit=200`,
    `/places-of-interest/items/${F.map}?include_counts=true`,
    `/places-of-interest/map/${F.pacific}`,
    `/maps/${F.map}/lists`,
    `/maps/${F.disabled}/details`,
    `/publisher/${F.publisher}/maps`,
  ];
  /** Status and body of every probe, plus the session-dependent event (a database read at request time). */
  async function snapshot(): Promise<string[]> {
    const out: string[] = [];
    for (const path of probes) {
      const res = await t.get(path);
      out.push(`${path} ${res.status} ${await res.text()}`);
    }
    const res = await t.get(`/events/${F.savedEvent}`, bearer);
    out.push(`session ${res.status} ${await res.text()}`);
    return out;
  }

  before(async () => {
    t = await openTestApp();
  });
  after(async () => {
    await t?.close();
  });

  test('invalid JSON text is refused with a BundleError at path $', async () => {
    const checksum = t.store.model.checksum;
    await assert.rejects(t.store.publish('{"format": "destination-bundle/1", '), (err: unknown) => {
      assert.ok(err instanceof BundleError);
      assert.equal(err.problems.length, 1);
      assert.equal(err.problems[0].path, '$');
      assert.match(err.problems[0].message, /JSON/);
      return true;
    });
    assert.equal(t.store.model.checksum, checksum);
  });

  test('a refused bundle leaves the served content untouched', async () => {
    const before = await snapshot();
    assert.ok(before.every((line) => / 200 /.test(line)), 'every probe answers 200 before the attempt');
    assert.match(before[before.length - 1], /"is_saved":true/);
    const checksum = t.store.model.checksum;
    const bad = cloneFixture(7);
    const expected = breakReferences(bad);
    await assert.rejects(t.store.publish(JSON.stringify(bad)), (err: unknown) => {
      assert.ok(err instanceof BundleError);
      assertReported(err.problems, expected);
      return true;
    });
    assert.equal(t.store.model.checksum, checksum);
    assert.deepEqual(await snapshot(), before);
  });

  test('a bundle that fails inside the database transaction leaves the served content and the database untouched', async () => {
    const before = await snapshot();
    const checksum = t.store.model.checksum;
    // Reach the store's database (private by type only) and make the write fail after some inserts.
    const db = (t.store as unknown as { publisher: { store: { db: Db } } }).publisher.store.db;
    const original = db.transaction;
    const base: Db = { query: db.query.bind(db), exec: db.exec.bind(db), copyIn: db.copyIn.bind(db), close: db.close.bind(db),
      transaction: original.bind(db) };
    db.transaction = failingOnInsert(base, 12).transaction;
    try {
      await assert.rejects(t.store.publish(JSON.stringify(makeFixture({ seed: 7 }))), /injected failure on insert 12/);
    } finally {
      db.transaction = original;
    }
    assert.equal(t.store.model.checksum, checksum);
    assert.deepEqual(await snapshot(), before);
    assert.equal(await checksumIn(db), checksum);
  });

  test('a successful replace swaps the content being served and the checksum', async () => {
    const next = makeFixture({ seed: 7 });
    const old = t.bundle;
    const i = next.markers.findIndex((m, k) => m.map_id === F.map && m.version_ids === undefined && Math.abs(m.lat - old.markers[k].lat) > 1e-4);
    assert.ok(i >= 0, 'the two seeds place some marker differently');
    const id = next.markers[i].id;
    assert.equal(id, old.markers[i].id, 'the same id in both bundles');
    const before = await t.json(`/markers/${id}`);
    assert.equal(before.body.lat, Math.round(old.markers[i].lat * 1e7) / 1e7);
    const checksum = t.store.model.checksum;

    await t.store.publish(JSON.stringify(next));
    assert.notEqual(t.store.model.checksum, checksum);
    const after = await t.json(`/markers/${id}`);
    assert.equal(after.status, 200);
    assert.equal(after.body.lat, Math.round(next.markers[i].lat * 1e7) / 1e7);
    assert.equal(after.body.name, next.markers[i].name);
    const events = await t.json(`/events?map_id=${F.map}&from=2026-01-01T00:00:00Z&to=2029-01-01T00:00:00Z&limit=200`);
    const expectedFirst = [...next.events].filter((e) => e.map_id === F.map)
      .sort((a, b) => Date.parse(a.starts_at) - Date.parse(b.starts_at) || (a.id < b.id ? -1 : 1))[0];
    assert.equal(events.body.events[0].id, expectedFirst.id);
  });

  test('after a replace an answer has a new ETag, and the old tag gets 200 with the new content', async () => {
    const path = `/maps/${F.map}?info=true&markers=true`;
    const before = (await t.get(path)).headers.get('etag')!;
    const changed = makeFixture();
    changed.maps[0].info.summary = 'A new summary';
    await t.store.publish(JSON.stringify(changed));
    const res = await t.get(path, { headers: { 'if-none-match': before } });
    assert.equal(res.status, 200);
    assert.notEqual(res.headers.get('etag'), before);
    assert.equal((await res.json()).info.summary, 'A new summary');
  });
});
