/**
 * Bytes in buffers of their own, whatever runtime made them. The ground floor (src/utils): imports nothing of the
 * service.
 */

/**
 * The bytes in an ArrayBuffer of their own: as they are when they fill one, else copied. A runtime's small
 * Buffer is a view into a pool it shares with other Buffers (Node's of 64 KB, Deno's of 8 KB), which can be
 * neither transferred to another thread nor moved to an alignment of its own, and `Buffer.prototype.slice` makes
 * another view of that pool, never a copy. A pooled Buffer never fills its pool (only allocations of less than
 * half a pool are pooled), so filling its buffer is what tells bytes that are their own.
 */
export function ownBytes(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  if (bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes as Uint8Array<ArrayBuffer>;
  return new Uint8Array(bytes);
}

/** Parts one after another, in an ArrayBuffer of their own (`Buffer.concat` may answer a view into the pool). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
