/**
 * Prepared answers and the per-content-version response cache. A `content` answer depends only on the
 * content version and the request target, so it is serialized, tagged and (on first demand) compressed
 * once, then served from memory until the content changes. A `live` answer depends on "now" to the whole
 * second, so it is kept until that second is over.
 */
import { compress, MIN_COMPRESS_BYTES, type Encoding } from './compress.ts';
import { addVary, CACHE_CONTROL, encodedEtag, makeEtag, utf8, type CacheClass } from './respond.ts';

/** One representation of an answer: its bytes and the headers that describe them. */
export interface Variant { headers: Record<string, string>; body: Uint8Array<ArrayBuffer> }

/** A 200 answer, serialized once, with its variants per content coding made when first asked for. */
export class PreparedBody {
  readonly cacheClass: CacheClass;
  /** When the answer stops being valid (ms since the epoch): the end of its second for `live`, never for `content`. */
  readonly expiresAt: number;
  /** True when the route varies by Authorization: a request carrying one must not reuse this answer. */
  readonly variesByAuthorization: boolean;
  /** Told how many bytes a kept compressed variant added (the cache counts them). */
  onGrow?: (bytes: number) => void;
  private readonly identity: Variant;
  private readonly encoded = new Map<Encoding, Variant>();

  constructor(text: string, contentType: string, contentVersion: string, cacheClass: CacheClass, routeHeaders: Record<string, string>,
    expiresAt = Infinity) {
    this.cacheClass = cacheClass;
    this.expiresAt = expiresAt;
    const body = utf8(text);
    const vary = body.byteLength > MIN_COMPRESS_BYTES ? addVary(routeHeaders.vary, 'Accept-Encoding') : routeHeaders.vary;
    this.variesByAuthorization = /(^|,)\s*authorization\s*(,|$)/i.test(routeHeaders.vary ?? '');
    this.identity = {
      body,
      headers: {
        ...routeHeaders,
        'content-type': contentType,
        'content-length': String(body.byteLength),
        etag: makeEtag(contentVersion, text),
        'cache-control': CACHE_CONTROL[cacheClass],
        ...(vary ? { vary } : {}),
      },
    };
  }

  /** Bytes kept in memory, compressed variants included. */
  get size(): number {
    let n = this.identity.body.byteLength;
    for (const v of this.encoded.values()) n += v.body.byteLength;
    return n;
  }

  /** The representation for a negotiated coding (null: identity); small bodies are always sent as they are. */
  variant(encoding: Encoding | null): Variant {
    if (encoding === null || this.identity.body.byteLength <= MIN_COMPRESS_BYTES) return this.identity;
    let v = this.encoded.get(encoding);
    if (!v) {
      const body = compress(this.identity.body, encoding, this.cacheClass === 'content' ? 'once' : 'per-request');
      v = {
        body,
        headers: { ...this.identity.headers, 'content-encoding': encoding, 'content-length': String(body.byteLength),
          etag: encodedEtag(this.identity.headers.etag, encoding, body) },
      };
      // Only answers that will be served again keep their compressed form.
      if (this.cacheClass !== 'private') {
        this.encoded.set(encoding, v);
        this.onGrow?.(body.byteLength);
      }
    }
    return v;
  }
}

/** Limits of the response cache. */
export const RESPONSE_CACHE_LIMITS = { entries: 4096, bytes: 64 * 1024 * 1024 };

/**
 * Cached answers of one content version, keyed by request target. Bounded in entries and bytes;
 * when full, the oldest entries go first.
 */
export class ResponseCache {
  private readonly entries = new Map<string, PreparedBody>();
  private bytes = 0;
  private readonly limits: { entries: number; bytes: number };

  constructor(limits = RESPONSE_CACHE_LIMITS) {
    this.limits = limits;
  }

  /** The cached answer for a target, if any is still valid at `nowMs`. */
  get(target: string, nowMs: number): PreparedBody | undefined {
    const found = this.entries.get(target);
    if (!found || found.expiresAt > nowMs) return found;
    this.entries.delete(target);
    this.bytes -= found.size;
    return undefined;
  }

  /** Keeps an answer; its compressed variants are counted as they are made. */
  set(target: string, prepared: PreparedBody): void {
    if (this.entries.has(target)) return;
    this.entries.set(target, prepared);
    this.bytes += prepared.size;
    prepared.onGrow = (bytes) => {
      if (this.entries.get(target) !== prepared) return;
      this.bytes += bytes;
      this.evict();
    };
    this.evict();
  }

  /** Entries and bytes held, for tests and metrics. */
  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private evict(): void {
    while (this.entries.size > this.limits.entries || (this.bytes > this.limits.bytes && this.entries.size > 0)) {
      const [oldest, prepared] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.bytes -= prepared.size;
    }
  }
}
