/**
 * Strings packed as UTF-8 (src/content/model/string-column.ts): a column written in steps holds exactly the bytes
 * TextEncoder writes, for ASCII ids and for any other text, and its hash table finds each string.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runNow } from '../src/utils/steps.ts';
import { findString, slotsSteps, StringColumn, utf8Length } from '../src/content/model/string-column.ts';

const samples = ['', 'a', '3b12b3c9-438b-569a-a264-ab7c4d5f6ab4', 'Málaga', 'Torre de Belém', '東京タワー', 'café 🚲 ride',
  '\u{1F600}', '\ud800', 'x\udc00y', '\ud83d', '\u007f\u0080\u07ff\u0800\uffff'];

test('utf8Length is the length TextEncoder writes, lone surrogates included', () => {
  const encoder = new TextEncoder();
  for (const s of samples) assert.equal(utf8Length(s), encoder.encode(s).length, JSON.stringify(s));
});

test('a column made in steps holds each string\'s UTF-8 bytes, reads each back, and finds each by its hash table', () => {
  const encoder = new TextEncoder();
  const strings = [...samples, ...Array.from({ length: 5000 }, (_, i) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-${'é'.repeat(i % 3)}`)];
  let yields = 0;
  const steps = StringColumn.ofSteps(strings);
  let r = steps.next();
  while (!r.done) { yields++; r = steps.next(); }
  const column = r.value;
  assert.ok(yields > 2, 'it yields as it goes');
  const whole = new Uint8Array(strings.reduce((n, s) => n + encoder.encode(s).length, 0));
  let at = 0;
  for (const s of strings) { whole.set(encoder.encode(s), at); at += encoder.encode(s).length; }
  assert.deepEqual(column.bytes, whole);
  const distinct = [...new Set(strings.map((s) => new TextDecoder().decode(encoder.encode(s))))];
  const unique = StringColumn.of(distinct);
  const slots = runNow(slotsSteps(unique, distinct.length));
  distinct.forEach((s, i) => {
    assert.equal(unique.get(i), s);
    assert.equal(findString(slots, unique, s), i);
  });
  assert.equal(findString(slots, unique, 'not there'), -1);
});
