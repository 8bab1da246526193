/**
 * Records written lately, kept as their bytes in one ring of memory, so a record asked for again (the events
 * starting soon near a city are on many visitors' first pages) is one copy instead of being put together from
 * its columns again. A newer record writes over the oldest; nothing is allocated per record.
 */
import type { ByteWriter } from './byte-writer.ts';

/** The ring's largest size per table and thread (about 16,000 event records of 500 bytes). */
export const RECENT_RECORD_BYTES = 8 * 1024 * 1024;

export class RecentRecords {
  private readonly size: number;
  /** Made when the first record is kept. */
  private ring: Uint8Array = new Uint8Array(0);
  /** Key -> where its bytes start (counted from the first byte ever kept) times 2^16, plus their length. */
  private readonly where = new Map<number, number>();
  /** Bytes ever kept (the next record goes at `kept % ring.length`). */
  private kept = 0;
  hits = 0;
  misses = 0;

  /** `bytes`: the ring's size (a small table's records take less than the largest size). */
  constructor(bytes: number) {
    this.size = Math.max(4096, Math.min(RECENT_RECORD_BYTES, bytes));
  }

  /** Writes the record kept under `key` to `w` and answers true, or answers false when it is not kept. */
  writeKept(key: number, w: ByteWriter): boolean {
    const at = this.where.get(key);
    if (at !== undefined) {
      const start = Math.floor(at / 65536);
      const length = at % 65536;
      // Still there unless newer records went all the way round the ring since.
      if (this.kept - start <= this.ring.length) {
        const from = start % this.ring.length;
        w.bytes(this.ring, from, from + length);
        this.hits++;
        return true;
      }
      this.where.delete(key);
    }
    this.misses++;
    return false;
  }

  /** Keeps the bytes `w` holds from `from` on as the record of `key`. */
  keep(key: number, w: ByteWriter, from: number): void {
    const bytes = w.view(from);
    if (this.ring.length === 0) this.ring = new Uint8Array(this.size);
    if (bytes.length >= 65536 || bytes.length > this.ring.length / 4) return;
    // A record never wraps round the ring's end: it starts over at the beginning.
    let start = this.kept;
    const offset = start % this.ring.length;
    if (offset + bytes.length > this.ring.length) start += this.ring.length - offset;
    this.ring.set(bytes, start % this.ring.length);
    this.kept = start + bytes.length;
    // Entries of records written over are dropped when next asked for; all at once if they pile up.
    if (this.where.size >= this.ring.length / 64) this.where.clear();
    this.where.set(key, start * 65536 + bytes.length);
  }
}
