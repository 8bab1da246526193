/**
 * Writes UTF-8 bytes one piece after another into a buffer that grows, so a body made of pieces already
 * encoded (an event record's columns, JSON kept as bytes) is copied once and never becomes a string: no
 * decoding of the pieces, no string to encode again, no string for the garbage collector.
 */

const encoder = new TextEncoder();

/**
 * Pieces shorter than this are copied byte by byte; longer ones by a subarray and a set, which cost the same
 * whatever the length, where a loop costs per byte: this is about where the two meet (docs/decisions.md).
 */
const SHORT_COPY = 48;

export class ByteWriter {
  private buf: Uint8Array<ArrayBuffer>;
  /** Bytes written so far. */
  length = 0;

  constructor(capacity = 32 * 1024) {
    this.buf = new Uint8Array(capacity);
  }

  /** Makes room for `n` more bytes. */
  private room(n: number): Uint8Array<ArrayBuffer> {
    if (this.length + n > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.length + n, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.length));
      this.buf = grown;
    }
    return this.buf;
  }

  /** Writes bytes [start, end) of `src`. */
  bytes(src: Uint8Array, start = 0, end = src.length): this {
    const n = end - start;
    const buf = this.room(n);
    if (n < SHORT_COPY) {
      let at = this.length;
      for (let k = start; k < end; k++) buf[at++] = src[k];
    } else {
      // A whole array is copied as it is: a view of part of it is an object made for one copy.
      buf.set(n === src.length ? src : src.subarray(start, end), this.length);
    }
    this.length += n;
    return this;
  }

  /**
   * Writes bytes from `start` up to the first `stop` byte (or `end`), and answers where it stopped: the index of
   * that byte, or `end`.
   */
  bytesUntil(src: Uint8Array, start: number, end: number, stop: number): number {
    let k = start;
    while (k < end && src[k] !== stop) k++;
    this.bytes(src, start, k);
    return k;
  }

  /** Writes one byte. */
  byte(b: number): this {
    this.room(1)[this.length++] = b;
    return this;
  }

  /** Writes a string known to be ASCII (digits, JSON punctuation, keys). */
  ascii(s: string): this {
    const buf = this.room(s.length);
    let at = this.length;
    for (let k = 0; k < s.length; k++) buf[at++] = s.charCodeAt(k);
    this.length = at;
    return this;
  }

  /** The bytes written from `from` on, as a view valid until the next write. */
  view(from: number): Uint8Array {
    return this.buf.subarray(from, this.length);
  }

  /**
   * A copy of what was written. A small one is a view into a shared block of memory (see `pooled`), 4-byte
   * aligned (as `hashBytes53` reads it fastest): what keeps it for long copies it (the response cache does).
   */
  take(): Uint8Array<ArrayBuffer> {
    if (this.length > POOL_BYTES / 8) return this.buf.slice(0, this.length);
    return pooled(this.buf, this.length);
  }

  /** Starts over, keeping the buffer (a very large one is let go). */
  reset(): this {
    if (this.buf.length > 1 << 22) this.buf = new Uint8Array(32 * 1024);
    this.length = 0;
    return this;
  }
}

/** Text as UTF-8 bytes (the bytes of an ASCII or any string), for pieces encoded once and copied often. */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Bodies are copied into blocks of this size, one after another, and a new block is started when one is full:
 * a buffer of its own for each answer, allocated outside the heap, was a measurable share of a distinct /events
 * request on Node (docs/decisions.md, Engineering).
 */
const POOL_BYTES = 512 * 1024;

/**
 * A block of bodies, and how many of the views taken from it were given back (`releaseBody`). A full block
 * all of whose views were given back is used again: memory allocated outside the heap at the rate bodies are
 * written made V8 start a full collection every 64 MB ("external memory pressure"), which took a large share of
 * a core on Node and stopped the server (docs/decisions.md, Engineering).
 * A view never given back (an answer an adapter drops, a test's) only keeps its block from being used again:
 * the garbage collector takes it as before.
 */
interface Block { bytes: Uint8Array<ArrayBuffer>; used: number; taken: number; released: number; full: boolean }

/** Blocks by their buffer, for `releaseBody`. */
const blocks = new WeakMap<ArrayBufferLike, Block>();
/** Full blocks whose every view was given back, ready to be used again (at most SPARE_BLOCKS). */
const spare: Block[] = [];
const SPARE_BLOCKS = 8;

function newBlock(): Block {
  const block: Block = spare.pop() ?? { bytes: new Uint8Array(POOL_BYTES), used: 0, taken: 0, released: 0, full: false };
  block.used = block.taken = block.released = 0;
  block.full = false;
  blocks.set(block.bytes.buffer, block);
  return block;
}

let block = newBlock();

/** A copy of `src[0 .. length)` in the current block (see POOL_BYTES). */
function pooled(src: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  if (block.used + length > POOL_BYTES) {
    block.full = true;
    recycle(block);
    block = newBlock();
  }
  const view = block.bytes.subarray(block.used, block.used + length);
  view.set(src.subarray(0, length));
  block.used += (length + 3) & ~3;
  block.taken++;
  return view;
}

function recycle(b: Block): void {
  if (b.full && b.released === b.taken && spare.length < SPARE_BLOCKS) spare.push(b);
}

/**
 * Says that a body from `ByteWriter.take` is no longer read by anyone (its bytes were handed to the socket), so
 * its block may be written over once every view of it is given back. Call it once per body, and only when
 * nothing can read the view again: the Node adapter calls it when the response has finished, `app.fetch` once
 * its Response (which copies the bytes) is made. Anything else is ignored.
 */
export function releaseBody(view: Uint8Array): void {
  const b = blocks.get(view.buffer);
  if (b === undefined || b.released >= b.taken) return;
  b.released++;
  // The latest view of the current block, given back: the next body is written where it was. On Bun, and through
  // `app.fetch`, a body is given back before the next one is taken, so every body is written to the same few
  // kilobytes, still in the processor's cache, instead of to fresh memory all through the block.
  if (b === block && view.byteOffset + ((view.byteLength + 3) & ~3) === b.used) {
    b.used = view.byteOffset;
    b.taken--;
    b.released--;
    return;
  }
  recycle(b);
}
