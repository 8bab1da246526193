/**
 * Records written lately, kept as their bytes in one ring of memory, so a record asked for again (the events
 * starting soon near a city are on many visitors' first pages) is one copy instead of being put together from
 * its columns again. A newer record writes over the oldest.
 *
 * Where each record lies is a direct-mapped table of typed arrays (a key's slot is its hash; a newer key takes
 * the slot): nothing is allocated per record kept, and nothing the garbage collector must trace or promote. A Map
 * from key to place did both, on every distinct /events page, which grew the old generation until a full
 * collection stopped a Node server (docs/decisions.md, Engineering). Only a record asked for again gets an
 * object, its view (`slotBytes`), kept for the copies that follow.
 */
import type { ByteWriter } from '../../utils/byte-writer.ts';

/** The ring's largest size per table and thread (about 16,000 event records of 500 bytes). */
export const RECENT_RECORD_BYTES = 8 * 1024 * 1024;

export class RecentRecords {
  private readonly size: number;
  /** Made when the first record is kept, with the slots. */
  private ring: Uint8Array = new Uint8Array(0);
  /** Per slot: the key it holds (-1: none), where its bytes start (counted from the first byte ever kept), their length. */
  private slotKey = new Int32Array(0);
  private slotStart = new Float64Array(0);
  private slotLength = new Uint32Array(0);
  /**
   * Per slot: its bytes as a view of the ring, made when first asked for again and kept for the next time, so a
   * record asked for often is copied with no object made (a view made for each copy cost time and garbage on every
   * page: docs/decisions.md). None is made for a record never asked for again.
   */
  private slotBytes: (Uint8Array | undefined)[] = [];
  /** Bytes ever kept (the next record goes at `kept % ring.length`). */
  private kept = 0;
  hits = 0;
  misses = 0;

  /** `bytes`: the ring's size (a small table's records take less than the largest size). */
  constructor(bytes: number) {
    this.size = Math.max(4096, Math.min(RECENT_RECORD_BYTES, bytes));
  }

  /** 32 less the slots' bits: a key's slot is the top bits of its multiplicative hash. */
  private shift = 32;

  private slotOf(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  /** Writes the record kept under `key` (a whole number below 2^31) to `w` and answers true, or answers false when it is not kept. */
  writeKept(key: number, w: ByteWriter): boolean {
    if (this.ring.length > 0) {
      const slot = this.slotOf(key);
      const start = this.slotStart[slot];
      // Still there unless newer records went all the way round the ring since.
      if (this.slotKey[slot] === key && this.kept - start <= this.ring.length) {
        let bytes = this.slotBytes[slot];
        if (bytes === undefined) {
          const from = start % this.ring.length;
          bytes = this.slotBytes[slot] = this.ring.subarray(from, from + this.slotLength[slot]);
        }
        w.bytes(bytes);
        this.hits++;
        return true;
      }
    }
    this.misses++;
    return false;
  }

  /** Keeps the bytes `w` holds from `from` on as the record of `key`. */
  keep(key: number, w: ByteWriter, from: number): void {
    if (this.ring.length === 0) {
      this.ring = new Uint8Array(this.size);
      // About one slot per 128 bytes of ring: two or more per record the ring holds.
      const slots = 2 ** Math.ceil(Math.log2(this.size / 128));
      this.slotKey = new Int32Array(slots).fill(-1);
      this.slotStart = new Float64Array(slots);
      this.slotLength = new Uint32Array(slots);
      this.slotBytes = new Array<Uint8Array | undefined>(slots).fill(undefined);
      this.shift = 32 - Math.log2(slots);
    }
    const bytes = w.view(from);
    if (bytes.length > this.ring.length / 4) return;
    // A record never wraps round the ring's end: it starts over at the beginning.
    let start = this.kept;
    const offset = start % this.ring.length;
    if (offset + bytes.length > this.ring.length) start += this.ring.length - offset;
    this.ring.set(bytes, start % this.ring.length);
    this.kept = start + bytes.length;
    const slot = this.slotOf(key);
    this.slotKey[slot] = key;
    this.slotStart[slot] = start;
    this.slotLength[slot] = bytes.length;
    this.slotBytes[slot] = undefined;
  }
}
