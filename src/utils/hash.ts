/**
 * The hashes the service uses: of strings (cursor keys, cache keys) and of bytes (ETags). Not cryptographic: they
 * tell apart, they do not sign.
 */

/** cyrb53: a fast 53-bit string hash. */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * A 53-bit hash of bytes for ETags: four lanes, each a chain over every fourth 32-bit word (as a little-endian
 * word) of a multiply and a shift down (each step a bijection of the lane, so inputs that differ in one word end
 * in lanes that differ; a multiply alone never carries a change of a word's top bit anywhere else), the four run
 * side by side instead of each waiting for the last; then the last bytes (up to 15) one by one, the length, and
 * cyrb53's finish over the lanes. That is faster than cyrb53's two lanes over every word, which waited on each
 * multiply in turn, and far faster than a string hash of the page's text (docs/decisions.md). Where the bytes are
 * 4-byte aligned (a body of its own always is) the words are read as an Int32Array; elsewhere they are put
 * together from the bytes, so the hash is the same wherever the bytes lie.
 */
export function hashBytes53(bytes: Uint8Array, seed = 0): number {
  let a = 0xdeadbeef ^ seed;
  let b = 0x41c6ce57 ^ seed;
  let c = 0x9e3779b9 ^ seed;
  let d = 0x85ebca6b ^ seed;
  const words = bytes.length >>> 2;
  const quads = words & ~3;
  if ((bytes.byteOffset & 3) === 0 && LITTLE_ENDIAN) {
    const view = new Int32Array(bytes.buffer, bytes.byteOffset, words);
    for (let i = 0; i < quads; i += 4) {
      a = Math.imul(a ^ view[i], 2654435761);
      b = Math.imul(b ^ view[i + 1], 1597334677);
      c = Math.imul(c ^ view[i + 2], 2246822519);
      d = Math.imul(d ^ view[i + 3], 3266489917);
      a ^= a >>> 15;
      b ^= b >>> 15;
      c ^= c >>> 15;
      d ^= d >>> 15;
    }
  } else {
    const word = (i: number) => bytes[4 * i] | (bytes[4 * i + 1] << 8) | (bytes[4 * i + 2] << 16) | (bytes[4 * i + 3] << 24);
    for (let i = 0; i < quads; i += 4) {
      a = Math.imul(a ^ word(i), 2654435761);
      b = Math.imul(b ^ word(i + 1), 1597334677);
      c = Math.imul(c ^ word(i + 2), 2246822519);
      d = Math.imul(d ^ word(i + 3), 3266489917);
      a ^= a >>> 15;
      b ^= b >>> 15;
      c ^= c >>> 15;
      d ^= d >>> 15;
    }
  }
  // The last words and bytes, then the length (a body and the same body with zero bytes after it differ).
  for (let k = quads * 4; k < bytes.length; k++) {
    a = Math.imul(a ^ bytes[k], 2654435761);
    a ^= a >>> 15;
  }
  a = Math.imul(a ^ bytes.length, 2654435761);
  let h1 = a ^ Math.imul(c ^ (c >>> 15), 2246822507);
  let h2 = b ^ Math.imul(d ^ (d >>> 13), 3266489909);
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** True on a little-endian machine (every runtime's usual one), where an Int32Array reads words as `hashBytes53` puts them together. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Remembers the keys asked for lately, one hash per slot (a fixed array, nothing allocated per key), so that
 * a cache can admit only what is asked for a second time (TinyLFU's doorkeeper): the response cache and the
 * match lists of event searches. A key whose slot another key took since is forgotten, and a rare hash
 * collision admits a key early: both only change what is kept.
 */
export class Doorkeeper {
  private readonly slots: Float64Array;

  constructor(size: number) {
    this.slots = new Float64Array(Math.max(1, size));
  }

  /** True when the key was offered before and is still remembered; otherwise remembers it and answers false. */
  admit(key: string): boolean {
    const mark = hash53(key) + 1; // 0 marks an empty slot
    const slot = mark % this.slots.length;
    if (this.slots[slot] === mark) return true;
    this.slots[slot] = mark;
    return false;
  }
}
