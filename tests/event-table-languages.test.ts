/**
 * Event tables in several languages: each language's record, the `langs=all` record, whichever events come in
 * any order, and read back from their bytes, is what the event's texts say; a map of one language with plain
 * texts keeps no second copy of its texts, and makes the same `langs=all` records from its one copy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventT } from '../src/content/bundle/bundle-schema.ts';
import { EventTable } from '../src/content/model/event-table.ts';
import { mulberry32 } from './helpers/fixture.ts';

const MAP = '00000000-0000-4000-8000-000000000001';
const POI = '00000000-0000-4000-8000-0000000000aa';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Events whose texts are plain or objects of `languages` (some missing one), with and without descriptions and prices. */
function events(count: number, languages: readonly string[], seed: number, objects = true): EventT[] {
  const rand = mulberry32(seed);
  const text = (what: string, n: number): EventT['title'] => {
    if (!objects || rand() < 0.3) return `${what} ${n} “plain” é`;
    const out: Record<string, string> = {};
    for (const lang of languages) if (lang === languages[0] || rand() < 0.8) out[lang] = `${what} ${n} in ${lang} \\ "q"`;
    return out;
  };
  return Array.from({ length: count }, (_, n) => {
    const start = Date.UTC(2027, 0, 1) + Math.floor(rand() * 1e9);
    return {
      id: id(n + 1), map_id: MAP, title: text('Title', n), event_type: 'concert', tags: ['free'],
      starts_at: new Date(start).toISOString(), ends_at: new Date(start + 3_600_000).toISOString(), poi_ids: [POI],
      created_at: '2026-01-01T00:00:00Z',
      ...(rand() < 0.7 ? { description: text('Description', n) } : {}),
      ...(rand() < 0.5 ? { price: text('Price', n) } : {}),
      ...(rand() < 0.5 ? { url: `https://example.org/${n}` } : {}),
      ...(rand() < 0.4 ? { organizer: { name: text('Organizer', n), ...(rand() < 0.5 ? { email: `o${n}@example.org` } : {}) } } : {}),
      ...(rand() < 0.2 ? { status: 'cancelled' as const } : {}),
    };
  });
}

/** A text as served in `lang` (its default's when it has none), and as `langs=all` shows it. */
const served = (value: EventT['title'] | undefined, lang: string, def: string) =>
  value === undefined ? null : typeof value === 'string' ? value : value[lang] ?? value[def];
const every = (value: EventT['title'] | undefined, def: string) =>
  value === undefined ? null : typeof value === 'string' ? { [def]: value } : value;

function checkTable(table: EventTable, docs: EventT[], languages: readonly string[]): void {
  const def = languages[0];
  assert.equal(table.length, docs.length);
  for (const doc of docs) {
    const i = table.positionOf(doc.id);
    assert.ok(i >= 0);
    for (const lang of [...languages, null]) {
      const record = table.summary(i, table.languageIndex(lang));
      const pick = (value: EventT['title'] | undefined) => (lang === null ? every(value, def) : served(value, lang, def));
      assert.deepEqual([record.title, record.description, record.price], [pick(doc.title), pick(doc.description), pick(doc.price)], `${doc.id} ${lang}`);
      assert.equal(record.url, doc.url ?? null);
      assert.deepEqual(record.organizer, doc.organizer ? { name: pick(doc.organizer.name), url: null, email: doc.organizer.email ?? null, phone: null } : null);
      assert.equal(record.status, doc.status ?? 'scheduled');
    }
  }
}

function build(docs: EventT[], languages: readonly string[], order: 'sorted' | 'shuffled'): EventTable {
  const list = order === 'sorted' ? [...docs].sort((a, b) => Date.parse(a.starts_at) - Date.parse(b.starts_at) || (a.id < b.id ? -1 : 1)) : [...docs].reverse();
  return EventTable.build(MAP, 'Europe/Lisbon', list.map((doc) => ({ doc, startMs: Date.parse(doc.starts_at), anchors: [POI] })), () => 'marker', languages);
}

/** The table read back from its bytes. */
const readBack = (table: EventTable) => {
  const chunks = EventTable.encode([table]);
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) { bytes.set(c, at); at += c.length; }
  return EventTable.decode(bytes)[0];
};

test('every language and langs=all, in any order and read back, for maps of one to three languages', () => {
  for (const languages of [['pt', 'en', 'es'], ['en', 'pt'], ['en']]) {
    for (const seed of [1, 2]) {
      const docs = events(120, languages, seed);
      for (const order of ['sorted', 'shuffled'] as const) {
        const table = build(docs, languages, order);
        checkTable(table, docs, languages);
        checkTable(readBack(table), docs, languages);
      }
    }
  }
});

test('a map of one language with plain texts keeps its texts once, and makes the same langs=all records', () => {
  const docs = events(200, ['en'], 3, false);
  const plain = build(docs, ['en'], 'shuffled');
  checkTable(plain, docs, ['en']);
  const head = (table: EventTable) => {
    const chunks = EventTable.encode([table]);
    const length = new DataView(chunks[0].buffer, chunks[0].byteOffset).getUint32(0, true);
    return JSON.parse(new TextDecoder().decode(chunks[0].subarray(4, 4 + length))).tables[0].columns;
  };
  assert.equal(head(plain).allBytes[1], 0, 'no every-language copy');
  // The same events but one, late, with a language the map does not offer: every record keeps its langs=all piece.
  const mixed = docs.map((d, n) => (n === 150 ? { ...d, title: { en: String(d.title), fr: 'Titre' } } : d));
  const table = build(mixed, ['en'], 'sorted');
  assert.ok(head(table).allBytes[1] > 0);
  checkTable(table, mixed, ['en']);
  checkTable(readBack(table), mixed, ['en']);
  for (let i = 0; i < plain.length; i++) {
    if (plain.id(i) !== id(151)) assert.equal(table.recordJson(i, 1), plain.recordJson(i, 1));
  }
});
