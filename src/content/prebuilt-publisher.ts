/**
 * A publisher for content whose payload is at hand before any store is opened: it serves that payload at once, and
 * opens the real publisher only when something else must be written. Three kinds:
 * - content built ahead (the single binary's built-in demo, built into it by scripts/build-binary.ts), which never
 *   opens PGlite at all: no wasm compiled, no store in memory, no publish at start;
 * - the current version of a store closed cleanly (`openDataDir`: src/content/store/clean-close.ts), served
 *   from its verified model cache while this process holds the data directory's lock. Its sessions are the stored
 *   ones: the same sessions given again change nothing, other sessions open the store to be written;
 * - a data directory this process cannot own (another live process does, or it cannot be written): a bundle whose
 *   verified cache is there is served from it, as the store in memory kept there would serve it, without making it.
 * Sessions given to the first and the last are kept here as a store in memory would keep them, and handed to the real
 * publisher when it opens.
 *
 * A payload is used only for a bundle whose SHA-256 is the payload's checksum, which is the identity of content
 * everywhere in the service: any other bundle goes to the real publisher, as it would without this one.
 */
import type { SessionT } from './bundle/bundle-schema.ts';
import { checksumOf, type BundleSource } from './bundle/parse.ts';
import { cachePath, findCache, readCache, type ModelPayload } from './model/model-cache.ts';
import { unwritableDataDir, type OpenedStore, type Prepared, type PublishProgress, type PublisherPort, type Staged } from './publisher.ts';
import { readCleanClose } from './store/clean-close.ts';
import { cachesPath, lockDataDir, ownedElsewhere, type DataDirLock } from './store/data-dir.ts';
import type { SessionRow, VersionInfo } from './store/sql-store.ts';
import type { ChangeSummary, RecordChange } from './changes.ts';

/** What a serving process found in its data directory before opening any store there (`openDataDir`). */
export interface DataDirOpening {
  /** The directory's lock, when this process took it (null: another live process holds it, or it cannot be written). */
  lock: DataDirLock | null;
  /** A publisher serving without a store opened, when this process can know what to serve; else null. */
  unopened: PrebuiltPublisher | null;
}

/**
 * Takes the lock of `dataDir` for this process, and finds whether it can serve without opening a store there: the
 * current version of the store closed cleanly there (with the lock), or a verified cache of the bundle in a directory
 * it cannot own (another live process owns it, or it cannot be written), as the store in memory the publisher would
 * keep there serves it. `openReal` opens the publisher of that directory, told whether this process holds the lock:
 * the lock is taken once and held until the process closes its store, never freed and taken again.
 */
export async function openDataDir(dataDir: string, openReal: (locked: boolean) => Promise<PublisherPort>): Promise<DataDirOpening> {
  const fromCaches = (warning: string): DataDirOpening => ({ lock: null,
    unopened: new PrebuiltPublisher({ find: (checksum) => findCache(cachesPath(dataDir), checksum) }, () => openReal(false), { warnings: [warning] }) });
  let lock: DataDirLock | null;
  try {
    lock = await lockDataDir(dataDir);
  } catch (err) {
    return fromCaches(unwritableDataDir(dataDir, err));
  }
  if (!lock) return fromCaches(ownedElsewhere(dataDir));
  const closed = await readCleanClose(dataDir);
  const payload = closed && await readCache(cachePath(cachesPath(dataDir), closed.current.version, closed.current.checksum), closed.current)
    .catch(() => null);
  return { lock, unopened: closed && payload ? new PrebuiltPublisher({ payload }, () => openReal(true), { stored: closed.sessions, changes: closed.changes }) : null };
}

const NO_BYTES = new Uint8Array(0);

/** The payload at hand, or how to find one for a bundle's checksum. */
type PayloadSource = { payload: ModelPayload } | { find(checksum: string): Promise<ModelPayload | null> };

export class PrebuiltPublisher implements PublisherPort {
  onProgress: ((progress: PublishProgress) => void) | null = null;
  private payload: ModelPayload | null;
  private readonly find: ((checksum: string) => Promise<ModelPayload | null>) | null;
  private readonly openReal: () => Promise<PublisherPort>;
  private real: Promise<PublisherPort> | null = null;
  /** Sessions given and not written anywhere yet: handed to the real publisher when it opens. */
  private given: SessionT[] | null = null;
  /** The sessions, as the store answers them. */
  private sessions: SessionRow[];
  /** True when the payload is the current version of a store closed cleanly, which holds the sessions given at first. */
  private readonly stored: boolean;
  private readonly warnings: string[];
  /**
   * True once the payload is the current version: at once for a store closed cleanly, when found for the caches of a
   * directory owned elsewhere (both already written), and once served for content built ahead.
   */
  private current: boolean;
  /** True while the payload is what is staged (nothing was given to the real publisher). */
  private prebuiltStaged = false;
  /** True once the payload's bytes were let go (see commit). */
  private released = false;

  /** When the events of a store closed cleanly last changed, as it said on closing. */
  private readonly changes: ChangeSummary | null;

  constructor(source: PayloadSource, openReal: () => Promise<PublisherPort>,
    options: { stored?: SessionRow[]; warnings?: string[]; changes?: ChangeSummary | null } = {}) {
    this.changes = options.changes ?? null;
    this.payload = 'payload' in source ? source.payload : null;
    this.find = 'find' in source ? source.find : null;
    this.openReal = openReal;
    this.sessions = options.stored ?? [];
    this.stored = options.stored !== undefined;
    this.current = this.stored;
    this.warnings = options.warnings ?? [];
  }

  /** The version the payload is (as the store that built it numbered it). */
  private get version(): VersionInfo {
    const payload = this.payload!;
    return { version: payload.version, checksum: payload.checksum, published_at: payload.published_at };
  }

  /** The real publisher, opened on first need, with the sessions given so far. */
  private publisher(): Promise<PublisherPort> {
    this.real ??= (async () => {
      const real = await this.openReal();
      real.onProgress = (progress) => this.onProgress?.(progress);
      if (this.given) await real.replaceSessions(this.given);
      return real;
    })();
    return this.real;
  }

  async opened(): Promise<OpenedStore> {
    return this.real ? (await this.real).opened() : { mode: this.stored ? 'dir' : 'memory', warnings: [...this.warnings], open: false };
  }

  /** The payload for content with this checksum, when this publisher has it. */
  private async payloadFor(checksum: string): Promise<ModelPayload | null> {
    if (this.payload?.checksum === checksum) return this.payload;
    if (!this.find || this.current) return null;
    const found = await this.find(checksum);
    // Found in the owner's caches: already written, so it is current as soon as it is staged.
    if (found) [this.payload, this.current] = [found, true];
    return found;
  }

  async stage(source: BundleSource): Promise<Staged> {
    if (!this.real && await this.payloadFor(await checksumOf(source))) {
      this.prebuiltStaged = true;
      const current = this.current ? this.version : null;
      return { checksum: this.payload!.checksum, stored: current, current, problems: null, warnings: this.payload!.warnings, damaged: [] };
    }
    this.prebuiltStaged = false;
    return (await this.publisher()).stage(source);
  }

  async prepare(): Promise<Prepared> {
    if (!this.prebuiltStaged || this.released) return (await this.publisher()).prepare();
    return { payload: this.payload!, written: !this.current, warnings: [] };
  }

  async commit(): Promise<VersionInfo | null> {
    if (!this.prebuiltStaged) return (await this.publisher()).commit();
    this.prebuiltStaged = false;
    const made = this.current ? null : this.version;
    this.current = true;
    // The model built from the payload holds its bytes (or, with serving threads, their copy in shared memory): they
    // are not also kept here for the life of the process. The version is still known; its bytes, should they be
    // wanted again, come from the real publisher.
    this.payload = { ...this.payload!, docs: NO_BYTES, tables: NO_BYTES, places: NO_BYTES };
    this.released = true;
    return made;
  }

  async abandon(): Promise<void> {
    if (!this.prebuiltStaged) return (await this.publisher()).abandon();
    this.prebuiltStaged = false;
  }

  async serveCurrent(): Promise<ModelPayload | null> {
    if (this.real || this.released) return (await this.publisher()).serveCurrent();
    return this.current ? this.payload : null;
  }

  async currentVersion(): Promise<VersionInfo | null> {
    if (this.real) return (await this.real).currentVersion();
    return this.current ? this.version : null;
  }

  /** A store closed cleanly's, as it said; content built ahead or found in another's caches has none (not known). */
  async recordChanges(): Promise<ChangeSummary | null> {
    if (this.real) return (await this.real).recordChanges();
    return this.stored && this.current ? this.changes : null;
  }

  async latestChange(): Promise<number | null> {
    if (this.real) return (await this.real).latestChange();
    return (await this.recordChanges())?.latest.change ?? null;
  }

  /** Read from the store itself, opened for it. */
  async changeHistory(after: number, upTo: number, mapId: string, publisherId: string): Promise<RecordChange[]> {
    return (await this.publisher()).changeHistory(after, upTo, mapId, publisherId);
  }

  async replaceSessions(sessions: SessionT[]): Promise<void> {
    if (this.real) return (await this.real).replaceSessions(sessions);
    const rows = sessionRows(sessions);
    // A store closed cleanly holds its sessions: the same ones given again change nothing, others are written into it.
    if (this.stored && JSON.stringify(rows) === JSON.stringify(this.sessions)) return;
    this.sessions = rows;
    this.given = sessions;
    if (this.stored) await this.publisher();
  }

  /** The sessions as the store answers them (SqlStore.readSessions). */
  async readSessions(): Promise<SessionRow[]> {
    return this.real ? (await this.real).readSessions() : this.sessions;
  }

  async close(): Promise<void> {
    if (this.real) await (await this.real).close();
  }
}

/** Sessions as the store answers them (SqlStore.readSessions): by token, each with its account's saved events. */
function sessionRows(sessions: readonly SessionT[]): SessionRow[] {
  const saved = new Map<string, Set<string>>();
  for (const s of sessions) {
    const account = s.account_id.toLowerCase();
    const events = saved.get(account) ?? saved.set(account, new Set()).get(account)!;
    for (const id of s.saved_event_ids) events.add(id.toLowerCase());
  }
  return sessions.map((s) => ({ token_sha256: s.token_sha256, account_id: s.account_id.toLowerCase(),
    expires_at: new Date(s.expires_at).toISOString(), saved: [...saved.get(s.account_id.toLowerCase())!].sort() }))
    .sort((a, b) => (a.token_sha256 < b.token_sha256 ? -1 : a.token_sha256 > b.token_sha256 ? 1 : 0));
}
