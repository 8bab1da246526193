/** The LRU map of src/utils/lru.ts: made once, kept for the next time, the least recently used let go. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lru } from '../src/utils/lru.ts';

test('a value is made once and kept; past the limit the least recently used goes; set replaces and counts as a use', () => {
  const lru = new Lru<string, number>(2);
  let made = 0;
  const make = () => ++made;
  assert.equal(lru.get('a', make), 1);
  assert.equal(lru.get('a', make), 1, 'kept');
  assert.equal(lru.get('b', make), 2);
  lru.get('a', make); // a is now the most recently used
  assert.equal(lru.get('c', make), 3);
  assert.equal(lru.peek('b'), undefined, 'b, the least recently used, went');
  assert.equal(lru.peek('a'), 1);
  lru.set('a', 10);
  assert.equal(lru.peek('a'), 10, 'set replaces the value kept');
  lru.set('d', 4); // c is now the least recently used
  assert.equal(lru.size, 2);
  assert.equal(lru.peek('c'), undefined);
  assert.equal(lru.get('a', make), 10);
  assert.equal(made, 3);
});
