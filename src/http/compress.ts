/**
 * Content negotiation for compression: br (preferred) or gzip through Accept-Encoding, for bodies over
 * 1 KiB. node:zlib is used because it offers both, synchronously, on Node, Bun and Deno alike.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** A content coding the service produces. */
export type Encoding = 'br' | 'gzip';

/** Bodies this size or smaller are sent as they are: compressing them saves less than it costs. */
export const MIN_COMPRESS_BYTES = 1024;

/** The coding to send for an Accept-Encoding value (RFC 9110 §12.5.3), or null for the identity. */
export function negotiateEncoding(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const given = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((x) => x !== undefined);
    const value = given === undefined ? 1 : Number(given);
    q.set(name === 'x-gzip' ? 'gzip' : name.trim(), value >= 0 && value <= 1 ? value : 0);
  }
  // `*` stands for every coding not named.
  const of = (name: string) => q.get(name) ?? q.get('*') ?? 0;
  const br = of('br');
  const gzip = of('gzip');
  if (br > 0 && br >= gzip) return 'br';
  return gzip > 0 ? 'gzip' : null;
}

/**
 * Compresses a body. `effort` is `once` for bodies cached per content version (compressed once, served many
 * times: spend more CPU for fewer bytes) or `per-request` for answers computed each time.
 */
export function compress(bytes: Uint8Array, encoding: Encoding, effort: 'once' | 'per-request'): Uint8Array<ArrayBuffer> {
  if (encoding === 'gzip') return gzipSync(bytes, { level: effort === 'once' ? 9 : 6 });
  return brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: effort === 'once' ? 9 : 4,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}
