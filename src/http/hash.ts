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
 * cyrb53's two lanes over bytes, four at a time (as a little-endian 32-bit word), then the last one to three: an
 * ETag of a 25 KB page costs a few microseconds, not the tens a string hash of its text does. Where the bytes
 * are 4-byte aligned (a body of its own always is) the words are read as an Int32Array; elsewhere they are put
 * together from the bytes, so the hash is the same wherever the bytes lie.
 */
export function hashBytes53(bytes: Uint8Array, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  const words = bytes.length >>> 2;
  if ((bytes.byteOffset & 3) === 0 && LITTLE_ENDIAN) {
    const view = new Int32Array(bytes.buffer, bytes.byteOffset, words);
    for (let i = 0; i < words; i++) {
      const w = view[i];
      h1 = Math.imul(h1 ^ w, 2654435761);
      h2 = Math.imul(h2 ^ w, 1597334677);
    }
  } else {
    for (let i = 0; i < words; i++) {
      const k = 4 * i;
      const w = bytes[k] | (bytes[k + 1] << 8) | (bytes[k + 2] << 16) | (bytes[k + 3] << 24);
      h1 = Math.imul(h1 ^ w, 2654435761);
      h2 = Math.imul(h2 ^ w, 1597334677);
    }
  }
  for (let k = words * 4; k < bytes.length; k++) {
    const b = bytes[k];
    h1 = Math.imul(h1 ^ b, 2654435761);
    h2 = Math.imul(h2 ^ b, 1597334677);
  }
  // The length too: a body and the same body with zero bytes after it differ.
  h1 = Math.imul(h1 ^ bytes.length, 2654435761);
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
