/**
 * Event tables: the columns a map's events are held in, and the bytes a data snapshot keeps them as.
 * A read model built from tables read back must answer exactly as one built from the bundle's records.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventTable, TABLE_FORMAT } from '../src/content/model/event-table.ts';
import { contentDocs } from '../src/content/store/sql-store.ts';
import { buildReadModel, findEvent, type ReadModel } from '../src/content/model/read-model.ts';
import { parseBundle } from '../src/content/bundle/parse.ts';
import { F, makeFixture } from './helpers/fixture.ts';
import { toUtc } from '../src/content/rfc3339.ts';
import { mulberry32 } from '../scripts/demo/ids.ts';
import { poiIds } from './helpers/poi-store.ts';

/** The fixture with texts that need more than one UTF-8 byte, and an event listed out of keyset order. */
function fixture() {
  const bundle = makeFixture({ events: 300 });
  bundle.events[0].title = 'Fête de la Mercè 🎉 à Málaga';
  bundle.events[1].description = 'Ünïcödé — “quoted” \\ and "escaped"';
  bundle.events[2].price = '€5';
  bundle.events.reverse();
  return parseBundle(JSON.stringify(bundle));
}

/** Every table as one byte array, as the snapshot file holds them. */
function encoded(model: ReadModel, shift = 0): Uint8Array {
  const chunks = EventTable.encode([...model.maps.values()].map((m) => m.events));
  const out = new Uint8Array(shift + chunks.reduce((n, c) => n + c.length, 0));
  let at = shift;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out.subarray(shift);
}

test('a read model from tables read back answers exactly as one built from the records', () => {
  const bundle = fixture();
  const built = buildReadModel(contentDocs(bundle, 'x'));
  // A byte array that does not start on an 8-byte boundary is copied, not misread.
  for (const shift of [0, 3]) {
    const tables = EventTable.decode(encoded(built, shift));
    const read = buildReadModel(contentDocs({ ...bundle, events: [] }, 'x'), tables);
    assert.deepEqual([...read.maps.keys()], [...built.maps.keys()]);
    let compared = 0;
    for (const [mapId, a] of built.maps) {
      const b = read.maps.get(mapId)!;
      assert.equal(b.events.length, a.events.length);
      assert.equal(b.events.longestEventMs, a.events.longestEventMs);
      assert.equal(b.eventIndex.pointsOf(0, b.events.length), a.eventIndex.pointsOf(0, a.events.length));
      for (let i = 0; i < a.events.length; i++) {
        assert.deepEqual(b.events.summary(i), a.events.summary(i));
        assert.deepEqual(b.events.poiIds(i), a.events.poiIds(i));
        assert.equal(b.events.positionOf(a.events.id(i)), i);
        compared++;
      }
      for (const poi of poiIds(read.pois)) assert.deepEqual([...b.events.positionsOfPoi(poi)], [...a.events.positionsOfPoi(poi)]);
    }
    assert.ok(compared > 300, 'every event was compared');
  }
});

test('tables keep the keyset order, every text exactly, and find events by id and by POI', () => {
  const bundle = fixture();
  const model = buildReadModel(contentDocs(bundle, 'x'));
  const events = model.maps.get(F.map)!.events;
  for (let i = 1; i < events.length; i++) {
    const order = events.startMs[i - 1] - events.startMs[i] || (events.id(i - 1) < events.id(i) ? -1 : 1);
    assert.ok(order < 0, `event ${i} follows event ${i - 1} in keyset order`);
  }
  const byId = new Map(bundle.events.map((e) => [e.id, e]));
  for (let i = 0; i < events.length; i++) {
    const doc = byId.get(events.id(i))!;
    const served = events.summary(i);
    assert.equal(served.title, doc.title);
    assert.equal(served.description, doc.description ?? null);
    assert.equal(served.price, doc.price ?? null);
    assert.deepEqual(served.tags, doc.tags);
    assert.equal(Date.parse(served.starts_at as string), Date.parse(doc.starts_at));
  }
  assert.equal(events.positionOf('00000000-0000-4000-8000-000000000000'), -1);
  assert.equal(findEvent(model, '00000000-0000-4000-8000-000000000000'), null);
  const some = bundle.events[5];
  assert.equal(findEvent(model, some.id)?.map.id, some.map_id);
  // Per POI: exactly the events anchored to it, in keyset order (brute force over the records).
  for (let k = 0; k < events.anchorPoiCount; k++) {
    const poi = events.anchorPoiId(k);
    const expected = Array.from({ length: events.length }, (_, i) => i).filter((i) => events.poiIds(i).includes(poi));
    assert.deepEqual([...events.positionsOfPoi(poi)], expected);
  }
  assert.equal(events.positionsOfPoi('00000000-0000-4000-8000-000000000000').length, 0);
});

test('a record written as JSON text is exactly JSON.stringify of the record as served, texts with quotes, line feeds and emoji too', () => {
  const bundle = makeFixture({ events: 120 });
  bundle.events[3].title = 'Line one\nline "two" \\ \u2028 tab\t 🎉';
  bundle.events[4].description = undefined;
  bundle.events[5].url = undefined;
  bundle.events[6].tags = [];
  // Every visitor field, a text with quotes among them, and a repeated accessibility feature (served once).
  Object.assign(bundle.events[7], {
    status: 'rescheduled', previous_start: '2026-12-01T20:00:00+01:00', organizer: { name: 'Casa "do" Fado', url: 'https://fado.example/', phone: '+351 1' },
    offers: { free: false, price: 12.5, currency: 'EUR', booking_url: 'https://fado.example/book', availability: 'limited_availability' },
    attendance_mode: 'mixed', online_url: 'https://fado.example/live', capacity: 80, accessibility: ['captions', 'signLanguage', 'captions'],
  });
  Object.assign(bundle.events[8], { status: 'cancelled', offers: { free: true } });
  const parsed = parseBundle(JSON.stringify(bundle));
  const model = buildReadModel(contentDocs(parsed, 'x'));
  const events = model.maps.get(F.map)!.events;
  const byId = new Map(parsed.events.map((e) => [e.id, e]));
  const utc = (s: string) => new Date(Date.parse(s)).toISOString().replace('.000Z', 'Z');
  for (let i = 0; i < events.length; i++) {
    const doc = byId.get(events.id(i))!;
    const expected = {
      id: doc.id, map_id: doc.map_id, title: doc.title, description: doc.description ?? null, event_type: doc.event_type, tags: doc.tags,
      starts_at: utc(doc.starts_at), ends_at: utc(doc.ends_at), time_zone: events.timeZone, url: doc.url ?? null,
      image_url: doc.image_url ?? null, price: doc.price ?? null, status: doc.status ?? 'scheduled',
      previous_start: doc.previous_start ? utc(doc.previous_start) : null,
      organizer: doc.organizer ? { name: doc.organizer.name, url: doc.organizer.url ?? null, email: doc.organizer.email ?? null, phone: doc.organizer.phone ?? null } : null,
      offers: doc.offers ? { free: doc.offers.free ?? null, price: doc.offers.price ?? null, currency: doc.offers.currency ?? null,
        booking_url: doc.offers.booking_url ?? null, availability: doc.offers.availability ?? null } : null,
      attendance_mode: doc.attendance_mode ?? null, online_url: doc.online_url ?? null, capacity: doc.capacity ?? null,
      accessibility: [...new Set(doc.accessibility ?? [])], series_id: null, original_start: null, all_day: false, start_date: null, end_date: null, created_at: utc(doc.created_at),
      anchors: events.poiIds(i).map((id) => ({ id, type: model.pois.get(id)!.record.type })),
    };
    assert.equal(events.recordJson(i), JSON.stringify(expected));
    assert.equal(events.title(i), doc.title);
  }
  const rescheduled = events.summary(events.positionOf(bundle.events[7].id));
  assert.equal(rescheduled.previous_start, '2026-12-01T19:00:00Z');
  assert.deepEqual(rescheduled.accessibility, ['captions', 'signLanguage']);
});

test('toUtc writes what Date.toISOString does, without zero milliseconds, over the whole range of dates', () => {
  const random = mulberry32(7);
  const cases = [0, -1000, 86_399_000, 1_700_000_000_123, -62_167_219_200_000, 253_402_300_799_000, 8.64e15, -8.64e15];
  for (let k = 0; k < 20_000; k++) cases.push(Math.round((random() - 0.5) * 1.728e13) * 1000, Math.round(random() * 4e12));
  for (const ms of cases) assert.equal(toUtc(ms), new Date(ms).toISOString().replace('.000Z', 'Z'), String(ms));
});

test('bytes that are not event tables of this format are refused, not misread', () => {
  const model = buildReadModel(contentDocs(fixture(), 'x'));
  const bytes = encoded(model);
  assert.throws(() => EventTable.decode(bytes.subarray(0, bytes.length - 9)), /truncated/);
  const header = new TextDecoder().decode(bytes.subarray(4, 4 + new DataView(bytes.buffer).getUint32(0, true)));
  const other = bytes.slice();
  // Another format of the same length, so the header keeps its size.
  const another = (TABLE_FORMAT + 1) % 10;
  other.set(new TextEncoder().encode(header.replace(`"format":${TABLE_FORMAT}`, `"format":${another}`)), 4);
  assert.throws(() => EventTable.decode(other), new RegExp(`format ${another}`));
});

test('tables whose columns do not fit together are refused', () => {
  const model = buildReadModel(contentDocs(fixture(), 'x'));
  const bytes = encoded(model);
  const headerLength = new DataView(bytes.buffer).getUint32(0, true);
  const header = new TextDecoder().decode(bytes.subarray(4, 4 + headerLength));
  // One event fewer than the columns hold: same header length, so the columns stay where they are.
  const length = /"length":(\d+)/.exec(header)!;
  const shorter = String(Number(length[1]) - 1).padStart(length[1].length, ' ');
  const other = bytes.slice();
  other.set(new TextEncoder().encode(header.replace(length[0], `"length":${shorter}`)), 4);
  assert.throws(() => EventTable.decode(other), /inconsistent/);
});

test('tables whose lookups, anchors or anchored POIs point outside them are refused', () => {
  const model = buildReadModel(contentDocs(fixture(), 'x'));
  const bytes = encoded(model);
  const headerLength = new DataView(bytes.buffer).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as
    { tables: { length: number; columns: Record<string, [number, number]> }[] };
  const base = (4 + headerLength + 7) & ~7;
  const [first] = header.tables;
  const anchored = first.columns.poiTypeCode[1];
  for (const [column, value, problem] of [['poiEvents', first.length, /lookups/], ['idSlots', first.length + 1, /lookups/],
    ['poiSlots', anchored + 1, /lookups/], ['poiEventStart', 1, /poiEventStart/], ['anchorPoi', anchored, /codes/],
    ['poiIdOffsets', 1 << 30, /anchored POIs/]] as const) {
    const other = bytes.slice();
    const [offset, length] = first.columns[column];
    assert.ok(length > 0, `${column} is encoded`);
    new DataView(other.buffer).setInt32(base + offset + (column === 'poiIdOffsets' ? 4 : 0), value, true);
    assert.throws(() => EventTable.decode(other), problem, column);
  }
  // A kind of POI that is not one of the three.
  const other = bytes.slice();
  other[base + first.columns.poiTypeCode[0]] = 3;
  assert.throws(() => EventTable.decode(other), /codes/, 'poiTypeCode');
});
