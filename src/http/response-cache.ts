/**
 * Prepared answers and the per-content-version response cache. A `content` answer depends only on the
 * content version, the path and the query parameters its route declares (`cacheKey`), and the request headers
 * it names in `Vary` (`varyKey`), so it is serialized and tagged once, compressed on first demand, then served
 * from memory until the content changes. A `live` answer depends on "now" to the whole second, so it is kept
 * until that second is over.
 */
import { compress, compressStrongly, MIN_COMPRESS_BYTES, type Encoding } from './compress.ts';
import { Doorkeeper } from '../utils/hash.ts';
import { addVary, CACHE_CONTROL, encodedEtag, makeEtag, utf8, type CacheClass } from './respond.ts';
import { ownBytes } from '../utils/bytes.ts';
import { pathEnd, type QueryEntry } from './query.ts';

/**
 * One representation of an answer: its bytes and the headers that describe them. A compressed variant that
 * was made again with stronger settings remembers the ETag of its first bytes, so a client holding them still
 * gets 304 (same content, other bytes of the same coding).
 */
export interface Variant { headers: Record<string, string>; body: Uint8Array<ArrayBuffer>; previousEtag?: string }

/**
 * Compressed variants waiting to be made again with the strongest settings, one at a time on zlib's thread
 * pool, so the upgrades never take more than one core from the request loop. A full queue drops new requests
 * for upgrades: those variants stay as they are.
 */
const upgrades = { queue: [] as (() => Promise<void>)[], running: false, limit: 256 };

function queueUpgrade(job: () => Promise<void>): void {
  if (upgrades.queue.length >= upgrades.limit) return;
  upgrades.queue.push(job);
  if (!upgrades.running) void runUpgrades();
}

async function runUpgrades(): Promise<void> {
  upgrades.running = true;
  try {
    for (let job = upgrades.queue.shift(); job; job = upgrades.queue.shift()) await job().catch(() => undefined);
  } finally {
    upgrades.running = false;
  }
}

/** Resolves once every queued upgrade is done (tests). */
export async function upgradesSettled(): Promise<void> {
  while (upgrades.running || upgrades.queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A 200 answer, serialized once, with its variants per content coding made when first asked for. */
export class PreparedBody {
  readonly cacheClass: CacheClass;
  /** When the answer stops being valid (ms since the epoch): the end of its second for `live`, never for `content`. */
  readonly expiresAt: number;
  /**
   * The request headers the answer depends on, as its `Vary` names them (lower case), but Accept-Encoding, whose
   * codings are variants of this one answer (`variant`): the cache keys it by their values.
   */
  readonly vary: readonly string[];
  /** Answers Range requests with parts of the identity body (see RouteSpec.ranges). */
  readonly ranges: boolean;
  /** False for a body not worth compressing (an image, an archive of compressed tiles) or too small to gain. */
  private readonly compressible: boolean;
  /** Told how many bytes a kept compressed variant added (the cache counts them). */
  onGrow?: (bytes: number) => void;
  private identity: Variant;
  private readonly encoded = new Map<Encoding, Variant>();
  /** Codings whose variant is being (or was) made again with the strongest settings. */
  private readonly upgrading = new Set<Encoding>();

  /** `body`: text, or its UTF-8 bytes (kept as they are: the caller gives them up). */
  constructor(text: string | Uint8Array<ArrayBuffer>, contentType: string, cacheClass: CacheClass, routeHeaders: Record<string, string>,
    expiresAt = Infinity, options: { ranges?: boolean } = {}) {
    this.cacheClass = cacheClass;
    this.expiresAt = expiresAt;
    this.ranges = options.ranges === true;
    const body = typeof text === 'string' ? utf8(text) : text;
    const compressed = body.byteLength > MIN_COMPRESS_BYTES && isCompressible(contentType);
    const vary = compressed ? addVary(routeHeaders.vary, 'Accept-Encoding') : routeHeaders.vary;
    this.vary = varyNames(routeHeaders.vary);
    this.compressible = compressed;
    this.identity = {
      body,
      headers: {
        ...routeHeaders,
        'content-type': contentType,
        'content-length': String(body.byteLength),
        etag: makeEtag(body, contentType, routeHeaders['content-language']),
        'cache-control': CACHE_CONTROL[cacheClass],
        ...(vary ? { vary } : {}),
        ...(this.ranges ? { 'accept-ranges': 'bytes' } : {}),
      },
    };
  }

  /** The identity representation: what a byte range is taken from. */
  get whole(): Variant {
    return this.identity;
  }

  /**
   * Called when the answer is kept: a body that is a view into a larger buffer (ByteWriter's blocks) is copied
   * into one of its own, so keeping it keeps no more memory than it counts.
   */
  own(): void {
    const { body } = this.identity;
    this.identity = { ...this.identity, body: ownBytes(body) };
  }

  /** Bytes kept in memory, compressed variants included. */
  get size(): number {
    let n = this.identity.body.byteLength;
    for (const v of this.encoded.values()) n += v.body.byteLength;
    return n;
  }

  /**
   * The representation for a negotiated coding (null: identity); small bodies are always sent as they are.
   * A body is first compressed fast; a `content` answer (or a page or asset) served compressed a second time is compressed again
   * with the strongest settings off the request path, and the stronger bytes are served from then on.
   */
  variant(encoding: Encoding | null): Variant {
    if (encoding === null || !this.compressible) return this.identity;
    const kept = this.encoded.get(encoding);
    if (kept) {
      if (this.cacheClass !== 'live' && this.cacheClass !== 'private' && !this.upgrading.has(encoding)) {
        this.upgrading.add(encoding);
        queueUpgrade(() => this.upgrade(encoding, kept));
      }
      return kept;
    }
    const v = this.encode(encoding, compress(this.identity.body, encoding, 'fast'));
    // Only answers that will be served again keep their compressed form.
    if (this.cacheClass !== 'private') {
      this.encoded.set(encoding, v);
      this.onGrow?.(v.body.byteLength);
    }
    return v;
  }

  private encode(encoding: Encoding, body: Uint8Array<ArrayBuffer>): Variant {
    return {
      body,
      headers: { ...this.identity.headers, 'content-encoding': encoding, 'content-length': String(body.byteLength),
        etag: encodedEtag(this.identity.headers.etag, encoding, body) },
    };
  }

  private async upgrade(encoding: Encoding, fast: Variant): Promise<void> {
    const body = await compressStrongly(this.identity.body, encoding);
    if (body.byteLength >= fast.body.byteLength) return;
    this.encoded.set(encoding, { ...this.encode(encoding, body), previousEtag: fast.headers.etag });
    this.onGrow?.(body.byteLength - fast.body.byteLength);
  }
}

/**
 * The key an answer is kept under: the request's path and those of its query parameters the route declares,
 * as sent and in the order sent, read by `readQuery` (the reading the route's parameters are parsed from, so the
 * key and the answer never come from two readings of the request). Parameters a route ignores make no new entry
 * (a flood of `?z=<random>` is answered from the entry of the bare path), and a request that sends only declared
 * parameters has its own target as key, so the lookup before routing finds it. A fragment is no part of a key.
 */
export function cacheKey(target: string, query: readonly QueryEntry[], declared: Readonly<Record<string, unknown>>): string {
  const path = pathEnd(target);
  // The length of the key: the path, and a `?` or `&` before each part kept.
  let length = path;
  let kept = 0;
  for (const entry of query) {
    if (Object.hasOwn(declared, entry.name)) {
      length += entry.raw.length + 1;
      kept++;
    }
  }
  // Every part kept, and nothing else in the target (no empty part, no fragment): the target itself.
  if (length === target.length) return target;
  if (kept === 0) return target.slice(0, path);
  let key = `${target.slice(0, path)}?`;
  let first = true;
  for (const entry of query) {
    if (!Object.hasOwn(declared, entry.name)) continue;
    key += first ? entry.raw : `&${entry.raw}`;
    first = false;
  }
  return key;
}

/** Media types whose bodies are compressed already, or gain nothing: images, audio and video, archives. */
const INCOMPRESSIBLE = /^(image\/(?!svg)|audio\/|video\/|application\/(gzip|zip|zstd|x-brotli|vnd\.pmtiles|octet-stream)\b)/i;

/** True for a media type worth compressing (text, JSON, XML, vector tiles, SVG). */
export function isCompressible(contentType: string): boolean {
  return !INCOMPRESSIBLE.test(contentType);
}

/** The request header names a `Vary` value lists (lower case), but Accept-Encoding. */
function varyNames(vary: string | undefined): readonly string[] {
  if (!vary) return NO_NAMES;
  const names = vary.split(',').map((n) => n.trim().toLowerCase()).filter((n) => n !== '' && n !== 'accept-encoding');
  return names.length === 0 ? NO_NAMES : names;
}
const NO_NAMES: readonly string[] = [];

/**
 * What a cache key adds for the request headers an answer varies by (its `Vary`, but Accept-Encoding, less
 * Accept-Language for a request that names its language: see ResponseCache.set): each one's value as sent, so two
 * requests with the same key get the same answer and none gets one made for another (a language, an account's view).
 */
export function varyKey(names: readonly string[], header: (name: string) => string | null): string {
  let key = '';
  for (const name of names) {
    const value = header(name);
    key += value === null ? `\u0000${name}` : `\u0000${name}:${value.trim()}`;
  }
  return key;
}

/** The names but Accept-Language. */
function withoutAcceptLanguage(names: readonly string[]): readonly string[] {
  if (!names.includes('accept-language')) return names;
  const rest = names.filter((n) => n !== 'accept-language');
  return rest.length === 0 ? NO_NAMES : rest;
}

/** No request header. */
const NO_HEADER = (): string | null => null;

/** Limits of the response cache; `recent`: how many keys asked for once the doorkeeper remembers (about). */
export const RESPONSE_CACHE_LIMITS = { entries: 4096, bytes: 64 * 1024 * 1024, recent: 1 << 16 };

/**
 * Cached answers of one content version, keyed by request target. An answer is kept the second time its key is
 * made afresh (`Doorkeeper`): a flood of distinct questions, each asked once (every visitor near another point),
 * neither evicts the answers asked for again and again nor fills the heap with answers nobody asks for twice,
 * which measured as long garbage-collection pauses. Bounded in entries and bytes; when full, the oldest go first.
 */
export class ResponseCache {
  private readonly entries = new Map<string, PreparedBody>();
  /** The request headers the answers kept for a key (path and query) vary by: how to find them before routing. */
  private readonly varies = new Map<string, readonly string[]>();
  private bytes = 0;
  private readonly limits: { entries: number; bytes: number };
  private readonly doorkeeper: Doorkeeper;

  constructor(limits: { entries: number; bytes: number; recent?: number } = RESPONSE_CACHE_LIMITS) {
    this.limits = limits;
    this.doorkeeper = new Doorkeeper(limits.recent ?? RESPONSE_CACHE_LIMITS.recent);
  }

  /**
   * The cached answer for a key (path and query) and the request's headers that the answer varies by, if any is
   * still valid at `nowMs`.
   */
  get(target: string, nowMs: number, header: (name: string) => string | null = NO_HEADER): PreparedBody | undefined {
    const key = target + varyKey(this.varies.get(target) ?? NO_NAMES, header);
    const found = this.entries.get(key);
    if (!found || found.expiresAt > nowMs) return found;
    this.entries.delete(key);
    this.bytes -= found.size;
    return undefined;
  }

  /**
   * Offers an answer made afresh: kept when its key was offered before (see the class), its compressed variants
   * counted as they are made. Answers true when it was kept. `languageNamed`: the request named its language
   * (`lang`, `langs`, as its parameters were read), so the answer does not depend on Accept-Language even if its
   * `Vary` names it; the answers kept for that key are then found whatever Accept-Language says.
   */
  set(target: string, prepared: PreparedBody, header: (name: string) => string | null = NO_HEADER, languageNamed = false): boolean {
    const names = languageNamed ? withoutAcceptLanguage(prepared.vary) : prepared.vary;
    const key = target + varyKey(names, header);
    if (this.entries.has(key) || !this.doorkeeper.admit(key)) return false;
    prepared.own();
    if (names.length > 0 || this.varies.has(target)) this.rememberVary(target, names);
    this.entries.set(key, prepared);
    this.bytes += prepared.size;
    prepared.onGrow = (bytes) => {
      if (this.entries.get(key) !== prepared) return;
      this.bytes += bytes;
      this.evict();
    };
    this.evict();
    return true;
  }

  /** Entries and bytes held, for tests and metrics. */
  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** Remembers what a key's answers vary by; at most twice as many keys as entries, the oldest forgotten first. */
  private rememberVary(target: string, names: readonly string[]): void {
    this.varies.delete(target);
    this.varies.set(target, names);
    if (this.varies.size > 2 * this.limits.entries) this.varies.delete(this.varies.keys().next().value!);
  }

  private evict(): void {
    while (this.entries.size > this.limits.entries || (this.bytes > this.limits.bytes && this.entries.size > 0)) {
      const [oldest, prepared] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.bytes -= prepared.size;
    }
  }
}
