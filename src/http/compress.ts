/**
 * Content negotiation for compression: br (preferred) or gzip through Accept-Encoding, for bodies over
 * 1 KiB. node:zlib is used because it offers both, synchronously and on its thread pool, on Node, Bun and
 * Deno alike.
 *
 * Compression costs what the answer is worth: every body is first compressed with fast settings on the
 * request path, and only a body the response cache keeps and serves again is compressed with the strongest
 * settings, on the thread pool (`compressStrongly`). A flood of distinct questions therefore never pays for
 * brotli's slow qualities.
 */
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';

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

/** How hard to compress: `fast` on the request path, `strong` for bodies served many times. */
export type Effort = 'fast' | 'strong';

/**
 * Brotli quality and gzip level per effort. `fast` is paid by every answer made afresh, most of them distinct
 * event pages asked once: br 1 costs much less than br 3 (which took longer than finding the events) for slightly
 * larger bodies, and gzip 1 was no faster than gzip 3. `strong` costs far more and is for answers kept and served
 * again, off the request path. Measured in docs/decisions.md (HTTP caching and compression).
 */
const LEVELS: Record<Effort, { br: number; gzip: number }> = { fast: { br: 1, gzip: 3 }, strong: { br: 9, gzip: 9 } };

function brotliOptions(bytes: Uint8Array, effort: Effort): BrotliOptions {
  return { params: { [constants.BROTLI_PARAM_QUALITY]: LEVELS[effort].br, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } };
}

function gzipOptions(effort: Effort): ZlibOptions {
  return { level: LEVELS[effort].gzip };
}

/** Compresses a body on the calling thread. */
export function compress(bytes: Uint8Array, encoding: Encoding, effort: Effort): Uint8Array<ArrayBuffer> {
  if (encoding === 'gzip') return gzipSync(bytes, gzipOptions(effort));
  return brotliCompressSync(bytes, brotliOptions(bytes, effort));
}

/** Compresses a body with the strongest settings on zlib's thread pool, off the request path. */
export function compressStrongly(bytes: Uint8Array, encoding: Encoding): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Uint8Array<ArrayBuffer>) => (err ? reject(err) : resolve(out));
    if (encoding === 'gzip') gzip(bytes, gzipOptions('strong'), done);
    else brotliCompress(bytes, brotliOptions(bytes, 'strong'), done);
  });
}
