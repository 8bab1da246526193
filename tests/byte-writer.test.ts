/**
 * The pieces an /events page is written with as bytes: the writer, dates written as bytes, records kept as bytes,
 * the bytes hash of ETags, and a kept answer that owns its bytes. Each is checked against the plain way of doing the same thing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteWriter, releaseBody, utf8Bytes } from '../src/utils/byte-writer.ts';
import { RecentRecords } from '../src/content/model/recent-records.ts';
import { toUtc, writeUtc } from '../src/content/rfc3339.ts';
import { hashBytes53 } from '../src/utils/hash.ts';
import { PreparedBody, ResponseCache } from '../src/http/response-cache.ts';
import { mulberry32 } from '../scripts/demo/ids.ts';

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

test('a writer gives exactly the text of its pieces, grown past its first buffer, across many answers', () => {
  const rand = mulberry32(7);
  const w = new ByteWriter(16);
  const source = new TextEncoder().encode('0123456789abcdefghijklmnopqrstuvwxyzÀÉÎõü—🎉'.repeat(40));
  const kept: { bytes: Uint8Array; text: string }[] = [];
  for (let answer = 0; answer < 400; answer++) {
    w.reset();
    let expected = '';
    for (let piece = 0; piece < 1 + Math.floor(rand() * 30); piece++) {
      const kind = Math.floor(rand() * 4);
      if (kind === 0) {
        w.ascii('{"k":');
        expected += '{"k":';
      } else if (kind === 1) {
        w.bytes(utf8Bytes('Lisboa — São Jorge 🏰'));
        expected += 'Lisboa — São Jorge 🏰';
      } else if (kind === 2) {
        // Whole characters only: from an ASCII run, long or short (the writer copies both ways).
        const start = Math.floor(rand() * 30);
        const end = start + Math.floor(rand() * 6);
        w.bytes(source, start, end);
        expected += decode(source.subarray(start, end));
      } else {
        // A piece past the writer's byte-by-byte copy, ending on a whole character.
        w.bytes(source, 0, 1600);
        expected += decode(source.subarray(0, 1600));
      }
    }
    const bytes = w.take();
    assert.equal(bytes.byteOffset % 4, 0, 'a taken body starts 4-byte aligned');
    kept.push({ bytes, text: expected });
  }
  // Every answer taken earlier still holds its own bytes: later ones never wrote over them.
  for (const { bytes, text } of kept) assert.equal(decode(bytes), text);
});

test('bytesUntil copies up to the stop byte and says where it stopped', () => {
  const w = new ByteWriter(4);
  const src = new TextEncoder().encode('"title":"a"\n"url":null');
  assert.equal(w.bytesUntil(src, 0, src.length, 0x0a), 11);
  assert.equal(decode(w.take()), '"title":"a"');
  w.reset();
  assert.equal(w.bytesUntil(src, 12, src.length, 0x0a), src.length);
  assert.equal(decode(w.take()), '"url":null');
});

test('writeUtc and toUtc write Date\'s own text (zero milliseconds dropped), whole seconds or not, across the years Date holds', () => {
  const rand = mulberry32(11);
  const w = new ByteWriter(8);
  const times = [0, -1000, 8.64e15, -8.64e15, 1_700_000_000_123, Date.parse('2026-11-25T23:59:59Z'), Date.parse('2027-01-01T00:00:00Z')];
  for (let k = 0; k < 5000; k++) {
    const ms = Math.floor((rand() - 0.5) * 2 * 4e14);
    times.push(rand() < 0.8 ? ms - (ms % 1000) : ms);
  }
  for (const ms of times) {
    // Date's own text, with zero milliseconds dropped, is what both must give.
    const expected = new Date(ms).toISOString().replace('.000Z', 'Z');
    writeUtc(ms, w.reset());
    assert.equal(decode(w.take()), expected, String(ms));
    assert.equal(toUtc(ms), expected, String(ms));
  }
});

test('the bytes hash is the same wherever the bytes lie, and tells apart what differs', () => {
  const rand = mulberry32(3);
  const seen = new Map<number, string>();
  for (let n = 0; n < 300; n++) {
    const bytes = Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
    const h = hashBytes53(bytes);
    for (const shift of [1, 2, 3, 4]) {
      const holder = new Uint8Array(n + shift);
      holder.set(bytes, shift);
      assert.equal(hashBytes53(holder.subarray(shift)), h, `${n} bytes at offset ${shift}`);
    }
    const text = Array.from(bytes).join(',');
    assert.ok(!seen.has(h) || seen.get(h) === text, 'no two inputs here share a hash');
    seen.set(h, text);
  }
  // Trailing zero bytes change the hash (the length is hashed too).
  assert.notEqual(hashBytes53(new Uint8Array([1, 2, 3, 4])), hashBytes53(new Uint8Array([1, 2, 3, 4, 0, 0, 0, 0])));
  // One bit changed anywhere (in any of the four lanes, or in the bytes after the last whole words) changes it.
  const page = Uint8Array.from({ length: 1037 }, () => Math.floor(rand() * 256));
  const hashes = new Set([hashBytes53(page)]);
  for (let k = 0; k < page.length; k++) {
    page[k] ^= 1 << (k % 8);
    hashes.add(hashBytes53(page));
    page[k] ^= 1 << (k % 8);
  }
  assert.equal(hashes.size, page.length + 1);
});

test('an answer written into a shared block is copied into memory of its own when the cache keeps it', () => {
  const w = new ByteWriter();
  const bytes = w.reset().ascii('{"events":[]}').take();
  assert.ok(bytes.buffer.byteLength > bytes.byteLength, 'the page is a view into a larger block');
  const prepared = new PreparedBody(bytes, 'application/json', 'content', {});
  const etag = prepared.variant(null).headers.etag;
  const cache = new ResponseCache({ entries: 10, bytes: 1 << 20 });
  assert.equal(cache.set('/events', prepared), false, 'the first offer is remembered, not kept');
  assert.equal(cache.set('/events', prepared), true, 'the second is kept');
  const kept = prepared.variant(null);
  assert.equal(kept.body.byteLength, kept.body.buffer.byteLength, 'kept bytes own their buffer');
  assert.equal(decode(kept.body), '{"events":[]}');
  assert.equal(kept.headers.etag, etag, 'the same bytes, the same tag');
  assert.equal(cache.stats().bytes, bytes.byteLength);
});

test('records kept in the ring come back byte for byte, or not at all once written over', () => {
  const rand = mulberry32(5);
  const ring = new RecentRecords(4096);
  const w = new ByteWriter(64);
  const written = new Map<number, string>();
  let hits = 0;
  for (let n = 0; n < 3000; n++) {
    const key = Math.floor(rand() * 60);
    w.reset().ascii('[');
    if (ring.writeKept(key, w)) {
      // A kept record is exactly what was kept under its key.
      assert.equal(decode(w.take()).slice(1), written.get(key));
      hits++;
      continue;
    }
    const text = `{"key":${key},"pad":"${'x'.repeat(Math.floor(rand() * 300))}"}`;
    const from = w.length;
    w.ascii(text);
    ring.keep(key, w, from);
    written.set(key, text);
  }
  assert.ok(hits > 100 && ring.misses > 100, `both hits (${hits}) and misses (${ring.misses}) happened`);
  assert.equal(ring.hits, hits);
});

test('a block of answers is written over only once every answer taken from it was given back', () => {
  const w = new ByteWriter();
  const page = (n: number) => `{"n":${n},"pad":"${'x'.repeat(10_000 + (n % 7) * 1000)}"}`;
  // An answer never given back pins its block: whatever is written later, its bytes stay as they were.
  const held = w.reset().ascii(page(-1)).take();
  // Every block begun (an answer at its start), and the buffers they were.
  const blocksSeen: ArrayBufferLike[] = [];
  // Four answers in flight, each given back after the next three are taken (as the Node adapter does once sent).
  const inFlight: { bytes: Uint8Array; n: number }[] = [];
  for (let n = 0; n < 3000; n++) {
    const bytes = w.reset().ascii(page(n)).take();
    if (bytes.byteOffset === 0) blocksSeen.push(bytes.buffer);
    inFlight.push({ bytes, n });
    if (inFlight.length > 3) {
      const oldest = inFlight.shift()!;
      assert.equal(decode(oldest.bytes), page(oldest.n));
      releaseBody(oldest.bytes);
    }
  }
  for (const { bytes } of inFlight.splice(0)) releaseBody(bytes);
  assert.equal(decode(held), page(-1), 'the held answer was never written over');
  // About 35 MB of answers went through a handful of blocks: the blocks given back were used again.
  const distinct = new Set(blocksSeen);
  assert.ok(blocksSeen.length > 50, `${blocksSeen.length} blocks were filled`);
  assert.ok(distinct.size <= 10, `only ${distinct.size} distinct blocks were used`);
  assert.ok(!blocksSeen.includes(held.buffer), 'the held answer\'s block was not used again');
  // Answers kept by a client that are not given back are never written over either.
  const kept = Array.from({ length: 200 }, (_, n) => w.reset().ascii(page(n)).take());
  for (let n = 0; n < 500; n++) releaseBody(w.reset().ascii(page(n)).take());
  kept.forEach((bytes, n) => assert.equal(decode(bytes), page(n)));
});

test('an answer given back before the next is taken is written over by the next: the same memory, still in cache', () => {
  const w = new ByteWriter();
  const page = (n: number) => `{"n":${n},"pad":"${'y'.repeat(20_000 + (n % 5) * 500)}"}`;
  const held = w.reset().ascii(page(-1)).take();
  const first = w.reset().ascii(page(0)).take();
  releaseBody(first);
  for (let n = 1; n < 200; n++) {
    const bytes = w.reset().ascii(page(n)).take();
    assert.equal(bytes.buffer, first.buffer);
    assert.equal(bytes.byteOffset, first.byteOffset, 'written where the answer given back was');
    assert.equal(decode(bytes), page(n));
    releaseBody(bytes);
  }
  assert.equal(decode(held), page(-1), 'the answer held below them was never written over');
  // Given back out of order: only the latest is written over at once; the others wait for their block to fill.
  const a = w.reset().ascii(page(1)).take();
  const b = w.reset().ascii(page(2)).take();
  releaseBody(a);
  const c = w.reset().ascii(page(3)).take();
  assert.ok(c.byteOffset > b.byteOffset, 'a is not the latest: nothing is written over it while b is above it');
  assert.equal(decode(b), page(2));
  releaseBody(c);
  releaseBody(b);
  assert.equal(decode(held), page(-1));
});
