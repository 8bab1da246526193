/**
 * A bitmap for putting positions found in any order back in ascending order, each once, without sorting: the
 * event searches mark what they find, then read the marks in order. A second bitmap, of the words that hold a
 * mark, lets the reading skip the empty words: even a search over a year of events marks few of them
 * (docs/decisions.md, Longer windows). Reused from question to question: reading the marks clears them.
 */
export class MarkedBits {
  private bits = new Uint32Array(1024);
  /** Bit w: word w of `bits` holds a mark. */
  private marked = new Uint32Array(32);

  /** Makes room for marks [0, size) (the bitmaps are all clear between questions, so they may be replaced). */
  fit(size: number): void {
    if (this.bits.length * 32 >= size) return;
    this.bits = new Uint32Array(Math.max(Math.ceil(size / 32), this.bits.length * 2));
    this.marked = new Uint32Array(Math.ceil(this.bits.length / 32));
  }

  /** Marks i (below the size `fit` made room for); marking it again changes nothing. */
  mark(i: number): void {
    const w = i >>> 5;
    this.bits[w] |= 1 << (i & 31);
    this.marked[w >>> 5] |= 1 << (w & 31);
  }

  /**
   * Writes every marked i, ascending, to `out` from `at` on (as `positions[i]`, or `offset + i` without
   * `positions`), clears the marks, and answers the new end. `out` must have room for them.
   */
  drain(out: Int32Array, at: number, positions: Int32Array | null, offset = 0): number {
    const { bits, marked } = this;
    for (let m = 0; m < marked.length; m++) {
      let summary = marked[m];
      if (summary === 0) continue;
      marked[m] = 0;
      while (summary !== 0) {
        const lowestWord = summary & -summary;
        const w = (m << 5) + 31 - Math.clz32(lowestWord);
        summary ^= lowestWord;
        let word = bits[w];
        bits[w] = 0;
        while (word !== 0) {
          const lowest = word & -word;
          const i = (w << 5) + 31 - Math.clz32(lowest);
          out[at++] = positions === null ? offset + i : positions[i];
          word ^= lowest;
        }
      }
    }
    return at;
  }
}
