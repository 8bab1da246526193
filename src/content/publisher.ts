/**
 * The publisher: the one way content gets in. `bundle bytes → validate → store (SQL) → model payload`.
 * It owns the store for the life of the process and runs in a worker thread (publisher-worker.ts), so
 * parsing, validating, writing and reading back a bundle never block a request; the compiled binary runs it
 * inline. Its answers are plain data (a payload of text and bytes), so they cross a thread cheaply.
 *
 * Data directory faults are handled here: a store that will not open, or whose pages fail to read back (a checksum
 * that does not match, a block that cannot be read), is moved aside to `store.damaged-<time>` and made anew, and
 * the bundle staged into the new one; a data directory that is read-only, full or owned by another live process
 * leaves the store in memory, and the caches on disk are still read (verified) but not written; a full disk
 * during a publish drops older versions and tries again before it gives up, saying ENOSPC.
 */
import { readdir, rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../db/db.ts';
import { openDb, type OpenOptions } from '../db/pglite.ts';
import { connectPostgres } from '../db/postgres.ts';
import { BUNDLE_FORMAT, type EventT, type SessionT } from './bundle/bundle-schema.ts';
import { readerFor } from './hours.ts';
import { checksumOf, parseBundle, readBundleBytes, splitBundle, type BundleSource } from './bundle/parse.ts';
import { BundleError, BundleValidator, validateWithWarnings, type BundleProblem, type ValidatorOptions } from './bundle/validate-bundle.ts';
import { WarningCollector } from './bundle/check.ts';
import { collectGarbage } from './collect-garbage.ts';
import type { VersionWarnings } from './bundle/findings.ts';
import { HISTORY_DAYS, type ChangeSummary, type RecordChange } from './changes.ts';
import { buildPayload, findCache, modelFromPayload, pruneCaches, readCache, cachePath, writeCache, type ModelPayload } from './model/model-cache.ts';
import { cachesPath, lockDataDir, ownedElsewhere, removeOldLayout, setStoreAside, storePath, type DataDirLock } from './store/data-dir.ts';
import { forgetCleanClose, writeCleanClose, type ClosedStore } from './store/clean-close.ts';
import { KEEP_VERSIONS, KEEP_VERSIONS_POSTGRES, SqlStore, type SessionRow, type VersionInfo } from './store/sql-store.ts';
import type { WireError } from '../utils/rpc.ts';

/**
 * Where the store is: `dir`, PGlite in the data directory; `memory`, PGlite in memory (the data directory could
 * not be owned, or there is none); `postgres`, a real PostgreSQL shared by a fleet (the data directory, if any,
 * holds only the model caches).
 */
export type StoreMode = 'dir' | 'memory' | 'postgres';

/**
 * How the store was opened, and anything that went wrong doing so. `open` is false while no store is open: what is
 * served came from a payload at hand (src/content/prebuilt-publisher.ts), and the store is opened when something must
 * be written.
 */
export interface OpenedStore { mode: StoreMode; warnings: string[]; open: boolean }

/** How the publisher keeps its store. */
export interface PublisherOptions {
  /** A PostgreSQL to keep the store in instead of PGlite (`postgres://…`). */
  databaseUrl?: string;
  /** The data directory; none keeps the store in memory and writes no caches. */
  dataDir?: string;
  /** PGlite's own files, for a runtime that cannot read them from node_modules. */
  assets?: OpenOptions['assets'];
  /** A database to start an in-memory store from (a data-directory tarball), instead of running initdb. */
  emptyDatabase?: Blob;
  /** Refuse a bundle with any warning of check (`--strict`), as if each were a problem. */
  strict?: boolean;
  /** Days a series without an end is expanded after the publish in which it last changed (SERIES_HORIZON_DAYS unless given). */
  seriesHorizonDays?: number;
  /** Days the history of changes is kept, which change tokens can be followed for (HISTORY_DAYS unless given). */
  historyDays?: number;
  /**
   * This process already holds the data directory's lock (its serving thread took it: src/content/content-store.ts),
   * which the publisher then neither takes nor releases.
   */
  dataDirLocked?: boolean;
}

/** The lock of a data directory that another part of this process holds and releases. */
const HELD_ELSEWHERE: DataDirLock = { release: async () => {} };

/** What staging a bundle found. */
export interface Staged {
  checksum: string;
  /** The version that already holds this bundle's content (nothing to write), or null. */
  stored: VersionInfo | null;
  /** The version the store serves now, or null before the first publish. */
  current: VersionInfo | null;
  /** Why the bundle is refused, or null when it is not. */
  problems: BundleProblem[] | null;
  /** What check warns about in the bundle (of a stored version: as kept with it); null when not known. */
  warnings: VersionWarnings | null;
  /** Warnings of a damaged store moved aside (and made anew) since the last stage or prepare; empty when there was none. */
  damaged: string[];
}

/**
 * What `prepare` made of a staged bundle: the payload of the version to serve, not yet current. The serving side
 * builds its model, then calls `commit` (the version becomes current) or, when the model cannot be built,
 * `abandon` (the version is dropped): a version becomes current only once it has loaded.
 */
export interface Prepared {
  payload: ModelPayload;
  /** True when a new version was written (and waits for `commit`); false when the bundle's content was already the current version. */
  written: boolean;
  /** Things that went wrong but did not stop the publish (a cache not written, older versions dropped). */
  warnings: string[];
}

/** How far a publish has got: reported after each chunk of events is written to the staged version. */
export interface PublishProgress { events_staged: number }

/** The publisher's operations, the same inline and across a worker. */
export interface PublisherPort {
  /** Called with the progress of each staging (for the log); null to hear nothing. */
  onProgress: ((progress: PublishProgress) => void) | null;
  opened(): Promise<OpenedStore>;
  stage(source: BundleSource): Promise<Staged>;
  /** The payload of what `stage` accepted: the staged version's (not yet current), or the stored version's. */
  prepare(): Promise<Prepared>;
  /** Makes the prepared version current; null when `prepare` found it stored already (nothing to commit). */
  commit(): Promise<VersionInfo | null>;
  /** Drops the version staged or prepared and its cache (its model could not be built); the current version stays. */
  abandon(): Promise<void>;
  /** The payload of the current version (from its verified cache, or rebuilt from the store); null when there is none. */
  serveCurrent(): Promise<ModelPayload | null>;
  /** The version the store serves now, or null before the first publish (one cheap query). */
  currentVersion(): Promise<VersionInfo | null>;
  /** When the events of the current version last changed (the store's change tracking); null when not known. */
  recordChanges(): Promise<ChangeSummary | null>;
  /** The number of the store's latest change (one cheap query); null when not known. */
  latestChange(): Promise<number | null>;
  /**
   * What changed for one map (its records, its publisher, the icons) after change `after` up to `upTo`, and the records
   * whose answers show a POI that changed (`changeHistoryOf`).
   */
  changeHistory(after: number, upTo: number, mapId: string, publisherId: string): Promise<RecordChange[]>;
  replaceSessions(sessions: SessionT[]): Promise<void>;
  readSessions(): Promise<SessionRow[]>;
  close(): Promise<void>;
}

/**
 * What changed for one map after change `after` up to `upTo`, as the change feed reports it: the store's history, and
 * for each POI in it the records whose answers show that POI (`SqlStore.dependents`), as changed in the POI's change.
 */
export async function changeHistoryOf(store: SqlStore, after: number, upTo: number, mapId: string, publisherId: string): Promise<RecordChange[]> {
  const history = await store.history(after, mapId, publisherId, upTo);
  const poiChange = new Map<string, number>();
  for (const h of history) if (h.type === 'poi') poiChange.set(h.id, Math.max(poiChange.get(h.id) ?? 0, h.change));
  const dependents = await store.dependents(upTo, [...poiChange.keys()]);
  return [...history, ...dependents.map((d) => ({ change: poiChange.get(d.poiId)!, type: d.type, id: d.id, mapId, op: 'upsert' as const }))];
}

/** What of a publisher's error crosses to another thread besides its message and code: a refused bundle's problems. */
export function encodePublisherError(err: unknown): unknown {
  return err instanceof BundleError ? { problems: err.problems } : undefined;
}

/** A publisher's error as it crossed (`encodePublisherError`), made an error again: a refused bundle is a BundleError. */
export function decodePublisherError(wire: WireError): Error {
  const problems = (wire.details as { problems?: BundleProblem[] } | undefined)?.problems;
  if (problems) return new BundleError(problems);
  return Object.assign(new Error(wire.message), wire.code ? { code: wire.code } : {});
}

/** True for the errors a full disk raises, from the file system or from PostgreSQL. */
export function isDiskFull(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'ENOSPC' || e?.code === '53100' || /no space left on device|could not extend file|could not write/i.test(String(e?.message));
}

/** Below this many free bytes, a failed write is taken for a full disk (PostgreSQL's error does not always say so). */
const LOW_DISK_BYTES = 64 * 2 ** 20;

/** True when the file system holding `path` has less than LOW_DISK_BYTES free; false when that cannot be told. */
async function lowOnDisk(path: string | undefined): Promise<boolean> {
  if (!path) return false;
  try {
    const s = await statfs(path);
    return Number(s.bavail) * Number(s.bsize) < LOW_DISK_BYTES;
  } catch {
    // No statfs (Deno): try to write a file of that size.
    const probe = join(path, `.space-probe-${crypto.randomUUID()}`);
    try {
      await writeFile(probe, new Uint8Array(LOW_DISK_BYTES));
      return false;
    } catch (err) {
      return isDiskFull(err);
    } finally {
      await rm(probe, { force: true });
    }
  }
}

/** PostgreSQL's error codes for damage it finds reading the store: data_corrupted and index_corrupted. */
const DAMAGE_CODES = new Set(['XX001', 'XX002']);

/**
 * Messages of damage that PostgreSQL reports under other codes (or PGlite under none): a relation file gone, a
 * commit log page or a catalogue row that cannot be read back. With data checksums on (PGlite's initdb turns them
 * on), a page whose bytes changed fails as `invalid page in block` (XX001) when it is first read.
 */
const DAMAGE_MESSAGE = /invalid page in block|could not read block|page verification failed|could not open file|could not access status of transaction|missing chunk number|unexpected chunk number|compressed .*data is corrupt|cache lookup failed|invalid memory alloc request size/i;

/** True for the errors of a store whose files cannot be read back as they were written. */
export function isDamaged(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return DAMAGE_CODES.has(String(e?.code)) || DAMAGE_MESSAGE.test(String(e?.message));
}

/** The code of a DamagedStoreError, which is all of it that crosses from the worker. */
const DAMAGED_STORE = 'DAMAGED_STORE';

/** A damaged store was moved aside, and there is no accepted bundle to rebuild it from here: its message says where it went. */
export class DamagedStoreError extends Error {
  readonly code = DAMAGED_STORE;
}

/** True for a DamagedStoreError, also one that came from the publisher's worker. */
export function isDamagedStoreError(err: unknown): boolean {
  return (err as { code?: unknown })?.code === DAMAGED_STORE;
}

/** True for the errors of a data directory that cannot be written at all. */
function isUnwritable(err: unknown): boolean {
  return ['EROFS', 'EACCES', 'EPERM'].includes((err as { code?: string })?.code ?? '') || isDiskFull(err);
}

/** The niceness of the publisher's thread when it runs in a worker: serving comes first when both want one core. */
export const PUBLISHER_NICENESS = 10;

/** Events validated and written per chunk when a bundle is staged. */
const EVENT_CHUNK = 5_000;

/** The publisher, run where it is created (inline) or inside the worker. */
export class Publisher implements PublisherPort {
  private store: SqlStore;
  private readonly caches: string | null;
  private readonly lock: DataDirLock | null;
  private readonly mode: StoreMode;
  private readonly warnings: string[];
  /**
   * A version staged (written, not yet made current) by the last `stage`; `publishedAt` is set by `prepare`, whose
   * payload says it, and the catalogue row made by `commit` says the same.
   */
  private pending: { checksum: string; version: number; format: string; source: string; warnings: VersionWarnings; publishedAt?: string } | null = null;
  /** True while this publisher holds the PostgreSQL publish lock (from a stage to its commit). */
  private publishing = false;
  /** A verified cache that stood in for a store kept in memory. */
  private cachedPayload: ModelPayload | null = null;
  /** True once the store's migrations are applied (PGlite: when it opens; PostgreSQL: before the first operation). */
  private migrated: boolean;
  private readonly options: PublisherOptions;

  /** How a bundle's series are judged and expanded: their horizon. */
  private get seriesOptions(): ValidatorOptions {
    return this.options.seriesHorizonDays === undefined ? {} : { seriesHorizonDays: this.options.seriesHorizonDays };
  }
  /** What the last staging had to do to fit (older versions dropped), reported by the commit that follows. */
  private stageWarnings: string[] = [];
  /** Warnings of damaged stores moved aside, not yet reported (by the next stage or prepare). */
  private damaged: string[];
  /** The bundle last staged: a store found damaged after it was staged is rebuilt from it. */
  private source: BundleSource | null = null;
  onProgress: ((progress: PublishProgress) => void) | null = null;

  private constructor(store: SqlStore, parts: { caches: string | null; lock: DataDirLock | null;
    mode: StoreMode; warnings: string[]; options: PublisherOptions; damaged?: string[] }) {
    this.store = store;
    this.caches = parts.caches;
    this.lock = parts.lock;
    this.mode = parts.mode;
    this.warnings = parts.warnings;
    this.options = parts.options;
    this.damaged = parts.damaged ?? [];
    this.migrated = parts.mode !== 'postgres';
  }

  /**
   * Opens the store: PostgreSQL when a database URL is given (no connection is made yet: a database that is
   * down fails the first operation, which can be tried again), else PGlite in the data directory when it can
   * own it, else in memory.
   */
  static async open(options: PublisherOptions = {}): Promise<Publisher> {
    const warnings: string[] = [];
    if (options.databaseUrl) {
      const db = connectPostgres(options.databaseUrl, { max: 1, applicationName: 'destination-map-content publisher' });
      // A replica holds its cache directory's lock only so that `reload` can find it there: replicas sharing one
      // directory (or one that cannot be written) still read and write its caches as before.
      const lock = options.dataDir === undefined ? null : await lockDataDir(options.dataDir).catch(() => null);
      return new Publisher(SqlStore.over(db), { caches: options.dataDir === undefined ? null : cachesPath(options.dataDir), lock,
        mode: 'postgres', warnings, options });
    }
    const inMemory = async () => SqlStore.open(await openDb({ assets: options.assets, ...(options.emptyDatabase ? { snapshot: options.emptyDatabase } : {}) }));
    const { dataDir } = options;
    if (dataDir === undefined) {
      return new Publisher(await inMemory(), { caches: null, lock: null, mode: 'memory', warnings, options });
    }
    let lock: DataDirLock | null = null;
    try {
      lock = options.dataDirLocked ? HELD_ELSEWHERE : await lockDataDir(dataDir);
      if (!lock) warnings.push(ownedElsewhere(dataDir));
    } catch (err) {
      warnings.push(unwritableDataDir(dataDir, err));
    }
    const caches = cachesPath(dataDir);
    if (!lock) return new Publisher(await inMemory(), { caches, lock: null, mode: 'memory', warnings, options });
    // From here the store may change: a start must not take the record of its last clean close for what it holds.
    await forgetCleanClose(dataDir);
    const removed = await removeOldLayout(dataDir);
    if (removed.length > 0) warnings.push(`removed ${removed.length} data snapshot(s) of an earlier release from ${dataDir}`);
    const damaged: string[] = [];
    try {
      return new Publisher(await openDirStore(dataDir, options, damaged), { caches, lock, mode: 'dir', warnings, options, damaged });
    } catch (err) {
      // Whatever stops the store (a read-only or full disk, a database that will not start), serving beats a restart loop.
      warnings.push(...damaged);
      warnings.push(`cannot keep the store in ${storePath(dataDir)} (${describe(err)}): it is kept in memory and verified caches are read`);
      // (A lock the serving thread holds stays held until the process closes its store: a second process on the
      // directory then serves its caches and leaves it alone, as it would beside any owner.)
      await lock.release();
      return new Publisher(await inMemory(), { caches, lock: null, mode: 'memory', warnings, options });
    }
  }

  /**
   * The caches directory when this process may write it (it owns the data directory's store, or the store is
   * PostgreSQL and the directory is its own cache), else null.
   */
  private get writableCaches(): string | null {
    return this.mode === 'memory' ? null : this.caches;
  }

  /** Applies the migrations once, on PostgreSQL before the first operation (tried again by the next while it fails). */
  private async ready(): Promise<void> {
    if (this.migrated) return;
    await this.store.migrate();
    this.migrated = true;
  }

  async opened(): Promise<OpenedStore> {
    return { mode: this.mode, warnings: [...this.warnings], open: true };
  }

  async stage(source: BundleSource): Promise<Staged> {
    await this.ready();
    await this.releasePublishing();
    this.pending = null;
    this.source = source;
    const checksum = await checksumOf(source);
    if (this.mode === 'postgres') {
      // Held until the commit (or until this stage finds nothing to write): one publisher at a time.
      await this.store.lockPublishing();
      this.publishing = true;
    }
    try {
      const staged = { ...await this.repairing(() => this.stageLocked(source, checksum)), damaged: this.damaged.splice(0) };
      if (!this.pending) await this.releasePublishing();
      return staged;
    } catch (err) {
      await this.releasePublishing();
      throw err;
    }
  }

  /** Lets the next publisher in, if this one holds the lock. */
  private async releasePublishing(): Promise<void> {
    if (!this.publishing) return;
    this.publishing = false;
    await this.store.unlockPublishing();
  }

  private async stageLocked(source: BundleSource, checksum: string): Promise<Omit<Staged, 'damaged'>> {
    const current = await this.store.current();
    if (current?.checksum === checksum) return { checksum, stored: current, current, problems: null, warnings: await this.store.warningsOf(current.version) };
    // Not in the store: a verified cache of the same content (a store kept in memory) serves as well.
    if (this.caches && this.mode === 'memory' && !current) {
      const cached = await findCache(this.caches, checksum);
      if (cached) {
        this.cachedPayload = cached;
        const stored = { version: cached.version, checksum, published_at: cached.published_at };
        return { checksum, stored, current: stored, problems: null, warnings: cached.warnings };
      }
    }
    const read = await readBundleBytes(source);
    const found: { collector?: WarningCollector } = {};
    try {
      const version = await this.writeWithRoom(() => this.stageBytes(read.bytes, (collector) => (found.collector = collector)));
      const warnings = found.collector!.warnings;
      this.pending = { checksum: read.checksum, version, format: BUNDLE_FORMAT, source: typeof source === 'object' && 'path' in source ? source.path : '',
        warnings };
      return { checksum: read.checksum, stored: null, current, problems: null, warnings };
    } catch (err) {
      if (err instanceof BundleError) return { checksum: read.checksum, stored: null, current, problems: err.problems, warnings: found.collector?.warnings ?? null };
      throw err;
    }
  }

  /**
   * Validates a bundle's bytes and writes them as a staged version in one pass: the head first, then the events
   * a chunk at a time, each chunk validated and loaded before the next is parsed, so neither the text nor the
   * events are ever held whole. After the first problem, the rest is still checked (every problem is listed)
   * but nothing more is written, and the staged tables are rolled back. A bundle the splitter cannot follow
   * (not a JSON object with one events array) is parsed whole instead, which reports a JSON error as it is.
   * What check warns about is collected on the way (`onWarnings` is handed the collector first); with `strict`,
   * any warning refuses the bundle as a problem would.
   */
  private async stageBytes(bytes: Uint8Array, onWarnings: (collector: WarningCollector) => void): Promise<number> {
    const strict = this.options.strict === true;
    const split = splitBundle(bytes);
    // POIs' hours are read by a library loaded only for a bundle that has some (src/content/hours.ts).
    await readerFor(split ? split.head : parseJsonOrNull(bytes));
    if (!split) {
      const bundle = parseBundle(bytes);
      const collector = new WarningCollector(JSON.parse(new TextDecoder().decode(bytes)));
      collector.addFindings(validateWithWarnings(bundle, this.seriesOptions).warnings);
      onWarnings(collector);
      refuseWarnings(strict, collector);
      // Staging finds warnings of its own (a series carried over to near its horizon): refused once it has staged them.
      const events = function* () {
        yield bundle.events;
        refuseWarnings(strict, collector);
      };
      return this.store.stageVersion(bundle, events(), { ...this.seriesOptions, onWarning: (f) => collector.addFindings([f]) });
    }
    const validator = new BundleValidator(split.head, this.seriesOptions);
    const collector = new WarningCollector(split.head);
    onWarnings(collector);
    const report = (events_staged: number) => this.onProgress?.({ events_staged });
    function* validated(): Generator<EventT[]> {
      try {
        for (const { offset, items } of split!.chunks(EVENT_CHUNK)) {
          const events = validator.addEvents(items, offset);
          collector.addEvents(items, offset);
          collector.addFindings(validator.takeWarnings());
          if (!validator.ok) continue;
          yield events;
          // Resumed once the store has written the chunk.
          report(offset + items.length);
        }
      } catch (err) {
        // Not JSON after all (the splitter only finds the bounds): the whole text says where.
        if (err instanceof SyntaxError) parseBundle(bytes);
        throw err;
      }
      const problems = validator.finish();
      if (problems.length > 0) throw new BundleError(problems);
      // Resumed once the store has staged every chunk: its own warnings (a series carried over to near its horizon) are in.
      refuseWarnings(strict, collector);
    }
    if (!validator.ok) {
      for (const _ of validated()) { /* checks every event, writes nothing, throws the problems */ }
    }
    return this.store.stageVersion(validator.head, validated(), { ...this.seriesOptions, onWarning: (f) => collector.addFindings([f]) });
  }

  async prepare(): Promise<Prepared> {
    let prepared: Prepared;
    try {
      prepared = await this.prepareOnce();
    } catch (err) {
      // The stored version's tables, read for the first time since it was staged, are damaged: the bundle it came from is staged anew.
      if (!this.isOwnDamage(err) || !this.source) throw err;
      const found = await this.setAside(err);
      const staged = await this.stageLocked(this.source, await checksumOf(this.source));
      if (staged.problems) throw new DamagedStoreError(`${found}, and the bundle is refused: ${new BundleError(staged.problems).message}`);
      this.damaged.push(found);
      prepared = await this.prepareOnce();
    }
    return { ...prepared, warnings: [...this.damaged.splice(0), ...prepared.warnings] };
  }

  /** `prepare`, once. */
  private async prepareOnce(): Promise<Prepared> {
    const warnings: string[] = [];
    const pending = this.pending;
    if (!pending) {
      const payload = await this.currentPayload();
      if (!payload) throw new Error('nothing staged to publish');
      return { payload, written: false, warnings };
    }
    warnings.push(...this.stageWarnings.splice(0));
    pending.publishedAt = new Date().toISOString();
    const payload = await this.payloadOf({ version: pending.version, checksum: pending.checksum, published_at: pending.publishedAt }, pending.warnings);
    // Written now: across the worker, the payload's bytes leave this thread with the answer. `abandon` removes it.
    await this.keepCache(payload, warnings);
    return { payload, written: true, warnings };
  }

  async commit(): Promise<VersionInfo | null> {
    const pending = this.pending;
    this.pending = null;
    if (!pending) return null;
    try {
      const version = await this.store.commitVersion(pending.version, pending.checksum, pending.format, pending.source, pending.publishedAt,
        pending.warnings, this.options.historyDays ?? HISTORY_DAYS);
      // The store keeps the newest versions, and the caches follow it.
      await this.store.prune(this.mode === 'postgres' ? KEEP_VERSIONS_POSTGRES : KEEP_VERSIONS);
      await this.pruneOwnCaches();
      return version;
    } catch (err) {
      // What was staged is gone with the damaged store: the next publish stages the bundle into the new one.
      if (!this.isOwnDamage(err)) throw err;
      throw new DamagedStoreError(`${await this.setAside(err)}; publish the bundle again to rebuild it`);
    } finally {
      await this.releasePublishing();
    }
  }

  async abandon(): Promise<void> {
    const pending = this.pending;
    this.pending = null;
    try {
      if (pending) {
        await this.store.dropStaged();
        await this.pruneOwnCaches();
      }
    } finally {
      await this.releasePublishing();
    }
  }

  /** Removes the model caches of versions the store no longer keeps (when this process writes the caches). */
  private async pruneOwnCaches(): Promise<void> {
    const caches = this.writableCaches;
    if (caches) await pruneCaches(caches, new Set((await this.store.versions()).map((v) => v.version)));
  }

  /**
   * Makes what `stage` accepted the current version once its read model is built here, as a replica will build it
   * (the `publish` subcommand: a version no replica could load is never made current). Answers the version now
   * current; a version that does not load is dropped and the error thrown.
   */
  async commitOnly(): Promise<VersionInfo> {
    if (!this.pending) throw new Error('nothing staged to publish');
    try {
      modelFromPayload((await this.prepare()).payload);
    } catch (err) {
      await this.abandon();
      throw err;
    }
    return (await this.commit())!;
  }

  /** Makes a kept version current again (PostgreSQL: the replicas follow); throws when it is not kept. */
  async rollback(version: number): Promise<VersionInfo> {
    await this.ready();
    await this.store.lockPublishing();
    try {
      return await this.store.restoreVersion(version, this.options.historyDays ?? HISTORY_DAYS);
    } finally {
      await this.store.unlockPublishing();
    }
  }

  /** The version the store serves now, or null before the first publish. */
  async currentVersion(): Promise<VersionInfo | null> {
    await this.ready();
    return this.repairing(() => this.store.current());
  }

  async recordChanges(): Promise<ChangeSummary | null> {
    await this.ready();
    return this.repairing(() => this.store.recordChanges());
  }

  async latestChange(): Promise<number | null> {
    await this.ready();
    return this.repairing(() => this.store.latestChange());
  }

  async changeHistory(after: number, upTo: number, mapId: string, publisherId: string): Promise<RecordChange[]> {
    await this.ready();
    return this.repairing(() => changeHistoryOf(this.store, after, upTo, mapId, publisherId));
  }

  /** Every version the store keeps, newest first. */
  async versions(): Promise<VersionInfo[]> {
    await this.ready();
    return this.repairing(() => this.store.versions());
  }

  async serveCurrent(): Promise<ModelPayload | null> {
    await this.ready();
    try {
      return await this.currentPayload();
    } catch (err) {
      // Called without a bundle to stage (one refused at start): the store is moved aside, and there is nothing to serve.
      if (!this.isOwnDamage(err)) throw err;
      throw new DamagedStoreError(await this.setAside(err));
    }
  }

  /** The payload of the current version (from its verified cache, or built from the store); null when there is none. */
  private async currentPayload(): Promise<ModelPayload | null> {
    const current = await this.store.current();
    // Copies (a Buffer's slice would share its memory): the worker hands the payload's bytes over, and the cached one must stay whole.
    if (!current) return this.cachedPayload && { ...this.cachedPayload, docs: new Uint8Array(this.cachedPayload.docs), tables: new Uint8Array(this.cachedPayload.tables), places: new Uint8Array(this.cachedPayload.places) };
    if (this.caches) {
      try {
        return await readCache(cachePath(this.caches, current.version, current.checksum), current);
      } catch {
        // missing or damaged: rebuilt from the store below, never served
      }
    }
    const payload = await this.payloadOf(current);
    await this.keepCache(payload, []);
    // A replica writes a cache for each version it follows: those of versions the store dropped go.
    await this.pruneOwnCaches();
    return payload;
  }

  /** A version's payload, built from the store: its records, then its events page by page; its warnings as kept (or given). */
  private async payloadOf(version: VersionInfo, warnings?: VersionWarnings): Promise<ModelPayload> {
    return buildPayload(await this.store.readHead(version), (onPage) => this.store.readEvents(version.version, onPage),
      { ...version, warnings: warnings ?? await this.store.warningsOf(version.version) }, collectGarbage);
  }

  async replaceSessions(sessions: SessionT[]): Promise<void> {
    await this.ready();
    await this.repairing(() => this.store.replaceSessions(sessions));
  }

  async readSessions(): Promise<SessionRow[]> {
    await this.ready();
    return this.repairing(() => this.store.readSessions());
  }

  /** True for damage found in a store this process keeps in the data directory (the one kind it can move aside and make anew). */
  private isOwnDamage(err: unknown): boolean {
    return this.mode === 'dir' && isDamaged(err);
  }

  /**
   * Runs an operation on the store; when it finds the store damaged, the store is moved aside and made anew (see
   * setAside) and the operation run once more, on the new store. A bundle staged since is written to the new one.
   */
  private async repairing<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (err) {
      if (!this.isOwnDamage(err)) throw err;
      this.damaged.push(await this.setAside(err));
      return operation();
    }
  }

  /**
   * Closes a damaged store (bounded: a broken one may never answer), moves it aside and opens a new, empty one in
   * its place; answers what was done, for a warning. The model caches go too: their version numbers were the old
   * store's. Short of disk, the store is left where it is and reopened (a new one might not fit): the error stands.
   */
  private async setAside(err: unknown): Promise<string> {
    const dataDir = this.options.dataDir!;
    if (await lowOnDisk(dataDir)) {
      await this.reopen();
      throw asError(err);
    }
    await Promise.race([this.store.db.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5000))]);
    this.pending = null;
    const movedTo = await setStoreAside(dataDir);
    if (this.caches) await pruneCaches(this.caches, new Set());
    this.store = await SqlStore.open(await openDb({ assets: this.options.assets, dataDir: storePath(dataDir) }));
    return describeSetAside(storePath(dataDir), 'could not be read', err, movedTo);
  }

  /**
   * Closes the store. A store in the data directory closed cleanly, with a current version and nothing staged, leaves
   * the record of what it holds (src/content/store/clean-close.ts), so the next start can serve without opening it.
   */
  async close(): Promise<void> {
    const closed = this.mode === 'dir' && !this.pending ? await this.describeClosed().catch(() => null) : null;
    await this.store.db.close();
    // No record is no harm: the next start opens the store, as it always could.
    if (closed) await writeCleanClose(this.options.dataDir!, closed).catch(() => {});
    await this.lock?.release();
  }

  /** What the store holds as it is closed; null before it holds a version. */
  private async describeClosed(): Promise<ClosedStore | null> {
    const current = await this.store.current();
    return current && { current, sessions: await this.store.readSessions(), changes: await this.store.recordChanges() };
  }

  /**
   * Runs a write (staging a version). A failed write may leave the embedded database unusable (PostgreSQL's
   * own state after an I/O error), so it is always reopened from its files. On a full disk, older versions
   * (never the current one) and their caches are dropped to make room and the write is tried once more.
   * A refused bundle (BundleError) is no failed write: it is passed on as it is.
   */
  private async writeWithRoom<T>(write: () => Promise<T>): Promise<T> {
    this.stageWarnings = [];
    for (let attempt = 0; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        if (err instanceof BundleError) throw err;
        await this.reopen();
        if (!isDiskFull(err) && !(await lowOnDisk(this.options.dataDir))) throw asError(err);
        const current = await this.store.current();
        const older = (await this.store.versions()).filter((v) => v.version !== current?.version);
        if (attempt >= 1 || older.length === 0) {
          throw Object.assign(new Error(`ENOSPC: no space left on device for the store in ${this.options.dataDir ?? 'memory'}; ` +
            'the current version keeps serving'), { code: 'ENOSPC' });
        }
        for (const v of older) await this.store.dropVersion(v.version);
        const caches = this.writableCaches;
        if (caches) await pruneCaches(caches, new Set(current ? [current.version] : []));
        this.stageWarnings.push(`the disk was full: dropped older version(s) ${older.map((v) => v.version).join(', ')} to make room`);
      }
    }
  }

  /**
   * Closes the database (bounded: a broken one may never answer) and opens it again from its files. A store
   * in memory has no files to reopen from: it goes on as it is (its transaction was rolled back).
   */
  private async reopen(): Promise<void> {
    if (this.mode !== 'dir') return;
    await Promise.race([this.store.db.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5000))]);
    this.store = await SqlStore.open(await openDb({ assets: this.options.assets, dataDir: storePath(this.options.dataDir!) }));
  }

  /** Writes the payload's cache when the directory allows; a failure is a warning, not a failed publish. */
  private async keepCache(payload: ModelPayload, warnings: string[]): Promise<void> {
    const caches = this.writableCaches;
    if (!caches) return;
    try {
      await writeCache(caches, payload);
    } catch (err) {
      warnings.push(`the model cache was not written (${describe(err)}); the next start rebuilds it from the store`);
    }
  }
}

/** The warning of a data directory this process cannot write (read-only, no permission, full). */
export function unwritableDataDir(dataDir: string, err: unknown): string {
  return `cannot write to the data directory ${dataDir} (${describe(err)}): the store is kept in memory and verified caches are read`;
}

/** What moving a damaged store aside did, as a warning: why, and where it went. */
function describeSetAside(path: string, what: string, err: unknown, movedTo: string | null): string {
  return `the store in ${path} ${what} (${describe(err)}); ${movedTo ? `it was moved to ${movedTo} and the store rebuilt in its place` : 'it is rebuilt'}`;
}

/** Opens the store in the data directory; one that will not open is moved aside (its warning added to `damaged`) and created anew. */
async function openDirStore(dataDir: string, options: PublisherOptions, damaged: string[]): Promise<SqlStore> {
  const path = storePath(dataDir);
  let db: Db | null = null;
  try {
    // PGlite runs initdb over a directory without PG_VERSION, silently: call that what it is, a damaged store.
    const entries = await readdir(path).catch(() => [] as string[]);
    if (entries.length > 0 && !entries.includes('PG_VERSION')) throw new Error('PG_VERSION is missing');
    db = await openDb({ assets: options.assets, dataDir: path });
    return await SqlStore.open(db);
  } catch (err) {
    await db?.close().catch(() => {});
    if (isUnwritable(err)) throw err;
    // A full disk also stops PostgreSQL from starting: never remove the system of record for that.
    if (await lowOnDisk(dataDir)) throw Object.assign(new Error(`ENOSPC: no space left on device to open the store (${describe(err)})`), { code: 'ENOSPC' });
    damaged.push(describeSetAside(path, 'did not open', err, await setStoreAside(dataDir)));
  }
  return SqlStore.open(await openDb({ assets: options.assets, dataDir: path }));
}

/** With `strict`, refuses a bundle that has warnings: each (of the first KEPT_WARNINGS) as a problem. */
function refuseWarnings(strict: boolean, collector: WarningCollector): void {
  const { count, first } = collector.warnings;
  if (!strict || count === 0) return;
  const more = count > first.length ? ` (and ${count - first.length} more)` : '';
  throw new BundleError(first.map((w, i) => ({ path: w.path,
    message: `${w.message} (a warning, refused with --strict${i === first.length - 1 ? more : ''})` })));
}

/** Any thrown value as an Error (PGlite can throw plain objects), keeping its message and code. */
function asError(err: unknown): Error {
  if (err instanceof Error) return err;
  const e = err as { message?: unknown; code?: unknown };
  return Object.assign(new Error(typeof e?.message === 'string' ? e.message : JSON.stringify(err)), e?.code ? { code: String(e.code) } : {});
}

function describe(err: unknown): string {
  const e = asError(err) as { code?: string; message?: string };
  return e?.code && !String(e.message).includes(e.code) ? `${e.code}: ${e.message}` : String(e?.message ?? err);
}

/** The JSON value of a bundle's bytes, or null when they are not JSON (parseBundle then says why). */
function parseJsonOrNull(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}
