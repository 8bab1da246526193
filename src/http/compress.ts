/**
 * Content negotiation for compression: zstd, br or gzip through Accept-Encoding, for bodies over 1 KiB. node:zlib is
 * used because it offers all three, synchronously and on its thread pool, on Node, Bun and Deno alike.
 *
 * Compression costs what the answer is worth: every body is first compressed with fast settings on the
 * request path, and only a body the response cache keeps and serves again is compressed with the strongest
 * settings, on the thread pool (`compressStrongly`). A flood of distinct questions therefore never pays for
 * brotli's slow qualities.
 */
import * as zlib from 'node:zlib';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';

/** A content coding the service produces. */
export type Encoding = 'zstd' | 'br' | 'gzip';

/** Bodies this size or smaller are sent as they are: compressing them saves less than it costs. */
export const MIN_COMPRESS_BYTES = 1024;

/**
 * zstd from node:zlib, where the runtime has it (Node from 22.15, Bun, Deno): read from the module's namespace, so a
 * runtime without it offers br and gzip only, rather than failing to load this module.
 */
const zstd = typeof zlib.zstdCompressSync === 'function' && typeof zlib.zstdCompress === 'function'
  ? { sync: zlib.zstdCompressSync, async: zlib.zstdCompress } : null;

/**
 * The codings the service offers, in the order it prefers them among those a request accepts equally (the same
 * q-value): zstd, then br, then gzip. Fresh answers are compressed fast, and there zstd level 1 is the cheapest
 * of the three for the smallest bodies (docs/decisions.md, HTTP caching and compression); every browser that sends
 * zstd sends br and gzip too, with no q-values.
 */
const PREFERENCE: readonly Encoding[] = zstd ? ['zstd', 'br', 'gzip'] : ['br', 'gzip'];

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
  // `*` stands for every coding not named, but zstd, the newest, which is sent only to a client that names it.
  const of = (name: string) => q.get(name) ?? (name === 'zstd' ? 0 : q.get('*') ?? 0);
  let best: Encoding | null = null;
  let bestQ = 0;
  for (const encoding of PREFERENCE) {
    const value = of(encoding);
    if (value > bestQ) {
      best = encoding;
      bestQ = value;
    }
  }
  return best;
}

/** How hard to compress: `fast` on the request path, `strong` for bodies served many times. */
export type Effort = 'fast' | 'strong';

/**
 * zstd level, brotli quality and gzip level per effort. `fast` is paid by every answer made afresh, most of them
 * distinct event pages asked once: zstd 1 and br 1 cost much less than br 3 (which took longer than finding the
 * events) for slightly larger bodies, and gzip 1 was no faster than gzip 3. `strong` costs far more and is for answers
 * kept and served again, off the request path: zstd 15 and br 9 take about the same time for about the same size.
 * Measured in docs/decisions.md (HTTP caching and compression). At these levels zstd's window stays within the 8 MB
 * a client of the `zstd` coding must accept (RFC 9659).
 */
const LEVELS: Record<Effort, { zstd: number; br: number; gzip: number }> = {
  fast: { zstd: 1, br: 1, gzip: 3 },
  strong: { zstd: 15, br: 9, gzip: 9 },
};

function brotliOptions(bytes: Uint8Array, effort: Effort): BrotliOptions {
  return { params: { [constants.BROTLI_PARAM_QUALITY]: LEVELS[effort].br, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } };
}

function gzipOptions(effort: Effort): ZlibOptions {
  return { level: LEVELS[effort].gzip };
}

function zstdOptions(bytes: Uint8Array, effort: Effort): zlib.ZstdOptions {
  // The size known up front: written into the frame, and zstd sizes its window and tables to it.
  return { params: { [constants.ZSTD_c_compressionLevel]: LEVELS[effort].zstd }, pledgedSrcSize: bytes.length };
}

/** Compresses a body on the calling thread. */
export function compress(bytes: Uint8Array, encoding: Encoding, effort: Effort): Uint8Array<ArrayBuffer> {
  if (encoding === 'gzip') return gzipSync(bytes, gzipOptions(effort));
  if (encoding === 'zstd') return zstd!.sync(bytes, zstdOptions(bytes, effort));
  return brotliCompressSync(bytes, brotliOptions(bytes, effort));
}

/** Compresses a body with the strongest settings on zlib's thread pool, off the request path. */
export function compressStrongly(bytes: Uint8Array, encoding: Encoding): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Uint8Array<ArrayBuffer>) => (err ? reject(err) : resolve(out));
    if (encoding === 'gzip') gzip(bytes, gzipOptions('strong'), done);
    else if (encoding === 'zstd') zstd!.async(bytes, zstdOptions(bytes, 'strong'), done);
    else brotliCompress(bytes, brotliOptions(bytes, 'strong'), done);
  });
}
