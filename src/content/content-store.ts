/**
 * ContentStore: what the serving thread holds. The version being served (its read model, with the match
 * caches it owns), the account sessions index, and the record of the last publish. Content gets in one way:
 * `publish` (or, at start, `stage` then `commitStaged`), which has the publisher validate the bundle, write it
 * to the store as a new version and hand back that version's payload; the read model is built from it and
 * swapped in with one assignment. Requests in flight keep the model they started with; a failed publish
 * leaves the served version exactly as it was.
 */
import { endWarmPublisher, OPEN_METHOD, PUBLISHER_WORKER, takeWarmPublisher } from './warm-publisher.ts';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SessionT } from './bundle/bundle-schema.ts';
import type { BundleSource } from './bundle/parse.ts';
import { BundleError, type BundleProblem } from './bundle/validate-bundle.ts';
import type { ModelPayload } from './model/model-cache.ts';
import { changesFor, ServedVersion, type BuiltModel } from './journey.ts';
import type { ReadModel } from './model/read-model.ts';
import { decodePublisherError, isDamagedStoreError, Publisher, type OpenedStore, type Prepared, type PublishProgress, type PublisherOptions, type PublisherPort, type Staged } from './publisher.ts';
import { RpcPeer } from '../utils/rpc.ts';
import { openDataDir, PrebuiltPublisher } from './prebuilt-publisher.ts';
import type { DataDirLock } from './store/data-dir.ts';
import { LiveSessions, SessionIndex, type SessionAnswer } from './sessions.ts';
import { isConnectionError } from '../db/postgres.ts';
import type { VersionInfo } from './store/sql-store.ts';
import type { ChangeSummary, RecordChange } from './changes.ts';


/**
 * What serving reads of a store: the model, whether one is loaded, the last publish, the database's state and
 * the sessions. A ContentStore is one; a serving thread of `--workers` holds a copy kept up to date by messages.
 */
export interface ServedContent {
  readonly model: ReadModel;
  readonly ready: boolean;
  readonly lastPublish: PublishRecord | null;
  readonly database: DatabaseState | null;
  /** The version the store makes current (a replica: its database), as last seen; null before there is one. */
  readonly storeCurrent: VersionInfo | null;
  /** The last version the store made current that could not be loaded, and why; null once the current version serves. */
  readonly notLoaded: NotLoaded | null;
  /**
   * Why nothing can be served (a damaged store moved aside, and no good bundle to rebuild it from) until a publish
   * succeeds; null otherwise. Only a process that serves nothing has one, and serving threads do not answer before
   * a version is served, so their copies leave it out.
   */
  readonly unavailable?: string | null;
  lookupSession(tokenSha256: string, eventIds: readonly string[], now: Date): Promise<SessionAnswer | null>;
  /** What changed for one map after change `after` up to `upTo`, from the store's history (the change feed). */
  changeHistory(after: number, upTo: number, mapId: string, publisherId: string): Promise<RecordChange[]>;
}

/** How to open a content store. */
export interface ContentStoreOptions extends PublisherOptions {
  /** Run the publisher in a worker thread (servers), or inline (tests, the compiled binary). Default: inline. */
  worker?: boolean;
  /** Hears how far each publish has got (the server logs it at debug level). */
  onProgress?: (progress: PublishProgress) => void;
  /** A publisher made elsewhere, used instead of opening one (the other options are then not read). */
  publisher?: PublisherPort;
  /**
   * The payload of content built ahead (the binary's built-in demo): a bundle of that content is served from it
   * without opening the store, which is opened, with the options above, only for other content (PrebuiltPublisher).
   */
  prebuilt?: ModelPayload;
}

/** What a replica knows of its database, for /readyz. */
export interface DatabaseState {
  /** False since the last attempt to reach it failed. */
  reachable: boolean;
  /**
   * The last error, while it lasts: unreachable, or reached and refusing (a role without the privileges the
   * store needs: `permission denied for schema public`). A version that could not be loaded is not the
   * database's error: /readyz says so in `not_loaded`.
   */
  error: string | null;
  /** When it was last reached (RFC 3339), or null. */
  last_contact: string | null;
}

/** A version the store made current that could not be loaded here, and why (a replica keeps serving the one before). */
export interface NotLoaded {
  version: number;
  content_version: string;
  error: string;
  /** When the last attempt failed (RFC 3339). */
  at: string;
}

/**
 * Thrown by `follow` when the version the database makes current could not be loaded (its payload could not be
 * read or reach this thread, or its model could not be built): the database itself answered.
 */
export class VersionLoadError extends Error {
  readonly version: number;

  constructor(version: number, cause: unknown) {
    super(String((cause as Error)?.message ?? cause));
    this.version = version;
  }
}

/** What the last publish did, as /readyz shows it. */
export interface PublishRecord {
  /** When it finished (RFC 3339). */
  at: string;
  /** The bundle's path, or a label. */
  source: string;
  /** The bundle's SHA-256, when it could be read. */
  checksum: string | null;
  /**
   * `published`: a new version serves; `unchanged`: the content was already served; `refused`: the bundle has
   * problems; `failed`: something else stopped it; `followed`: a replica took up the version the database made
   * current (a publish or a rollback by another process).
   */
  outcome: 'published' | 'unchanged' | 'refused' | 'failed' | 'followed';
  /** The version serving afterwards. */
  version: number | null;
  problems: BundleProblem[];
  error: string | null;
  warnings: string[];
  ms: number;
}

/** Owns the served version and the way to publish the next one. */
export class ContentStore implements ServedContent {
  private readonly publisher: PublisherPort;
  /** The data directory's lock when this thread took it for the publisher (`openDataDir`): released after the store closes. */
  private readonly dataDirLock: DataDirLock | null;
  /** The version served (src/content/journey.ts). */
  private readonly served = new ServedVersion();
  private sessionIndex = new SessionIndex([]);
  /** On PostgreSQL, sessions are looked up in the database per request, never held. */
  private liveSessions: LiveSessions | null = null;
  private last: PublishRecord | null = null;
  /** A replica's view of its database (set by its ReplicaFollower), shown on /readyz; null for an embedded store. */
  database: DatabaseState | null = null;
  storeCurrent: VersionInfo | null = null;
  notLoaded: NotLoaded | null = null;
  /** Why nothing can be served, set by start-up when that is so (see ServedContent); cleared when a version is served. */
  unavailable: string | null = null;
  /** Publishes run one at a time, in call order. */
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * With serving threads (`--workers`), each version's payload is in shared memory before its model is built, so
   * every thread's event tables are views of the same bytes; `payload` is the one served. A publisher in a worker
   * copies the bytes there itself, so this thread never holds a second copy of a version (it did: the copy
   * it made was kept until a full collection, which an idle process never ran: docs/decisions.md).
   */
  get sharePayloads(): boolean {
    return this.sharing;
  }

  set sharePayloads(on: boolean) {
    this.sharing = on;
    if (this.publisher instanceof WorkerPublisher) this.publisher.shared = on;
  }

  private sharing = false;
  /** The store's account of when the served version's events last changed (sent on to serving threads), or null. */
  private summary: ChangeSummary | null = null;

  /** What the store said of when the served version's events last changed (see `stamp`); null when not known. */
  get changeSummary(): ChangeSummary | null {
    return this.summary;
  }

  /** Told after every publish, follow or refusal (the model, the record or both changed). */
  onChange: (() => void) | null = null;

  private constructor(publisher: PublisherPort, dataDirLock: DataDirLock | null) {
    this.publisher = publisher;
    this.dataDirLock = dataDirLock;
  }

  /** Opens the store (its publisher inline or in a worker) and reads the stored sessions. No content is served yet. */
  static async open(options: ContentStoreOptions = {}): Promise<ContentStore> {
    const { worker, onProgress, publisher, prebuilt, ...publisherOptions } = options;
    const openPublisher = async (dataDirLocked = false): Promise<PublisherPort> => {
      const opening = dataDirLocked ? { ...publisherOptions, dataDirLocked } : publisherOptions;
      return worker ? WorkerPublisher.start(opening) : Publisher.open(opening);
    };
    // A store closed cleanly, or the caches of a directory owned elsewhere, serve without a store opened (prebuilt-publisher.ts).
    const dataDir = !publisher && !prebuilt && !options.databaseUrl && options.dataDir !== undefined
      ? await openDataDir(options.dataDir, openPublisher) : null;
    let opened: PublisherPort;
    try {
      opened = publisher ?? dataDir?.unopened ??
        (prebuilt ? new PrebuiltPublisher({ payload: prebuilt }, openPublisher) : await openPublisher(Boolean(dataDir?.lock)));
    } catch (err) {
      await dataDir?.lock?.release();
      throw err;
    }
    // A publisher thread started early that this start did not take (it serves without opening a store) ends.
    endWarmPublisher();
    const store = new ContentStore(opened, dataDir?.lock ?? null);
    store.publisher.onProgress = onProgress ?? null;
    if (options.databaseUrl) store.liveSessions = new LiveSessions(options.databaseUrl);
    else store.sessionIndex = new SessionIndex(await store.publisher.readSessions());
    return store;
  }

  /** What opening the store found (its mode, and warnings such as a read-only data directory). */
  opened(): Promise<OpenedStore> {
    return this.publisher.opened();
  }

  /** The read model being served; throws before any content was loaded. */
  get model(): ReadModel {
    return this.served.model;
  }

  /** True once a version is served. */
  get ready(): boolean {
    return this.served.ready;
  }

  /** The payload of the version served (in shared memory with `sharePayloads`), or null before one is. */
  get payload(): ModelPayload | null {
    return this.served.payload;
  }

  /** The last publish, or null before the first. */
  get lastPublish(): PublishRecord | null {
    return this.last;
  }

  /**
   * Checks a bundle without writing anything: its checksum, whether the store already holds it, the version
   * served now, and its problems (null when none). At start, before the port opens.
   */
  stage(source: BundleSource): Promise<Staged> {
    return this.enqueue(async () => {
      const staged = await this.publisher.stage(source);
      this.storeCurrent = staged.current;
      return staged;
    });
  }

  /** Serves what `stage` accepted (or reopens the stored version), made current once its model is built. */
  commitStaged(label: string, staged: Staged): Promise<ReadModel> {
    return this.enqueue(async () => {
      const began = performance.now();
      try {
        return await this.serveStaged(label, staged.checksum, began, staged.damaged);
      } catch (err) {
        if (isDamagedStoreError(err)) this.storeCurrent = null;
        this.record(label, staged.checksum, 'failed', began, { error: String((err as Error).message ?? err), warnings: staged.damaged });
        throw err;
      }
    });
  }

  /** Serves the store's current version after a refused bundle at start; null when the store has none. */
  serveCurrent(label: string, refused: Staged): Promise<ReadModel | null> {
    return this.enqueue(async () => {
      const began = performance.now();
      const outcome = { problems: refused.problems ?? [], warnings: refused.damaged };
      try {
        const payload = await this.publisher.serveCurrent();
        if (payload) {
          const built = await this.served.build(payload, this.sharing);
          await this.stamp(built.model);
          this.swapIn(built);
        }
      } catch (err) {
        // A damaged store was moved aside: the new one has no current version.
        if (isDamagedStoreError(err)) this.storeCurrent = null;
        this.record(label, refused.checksum, 'refused', began, { ...outcome, error: String((err as Error).message ?? err) });
        throw err;
      }
      this.record(label, refused.checksum, 'refused', began, outcome);
      return this.served.ready ? this.served.model : null;
    });
  }

  /**
   * Publishes a bundle: validates it, writes it as a new version (unless the served one has the same
   * content), and swaps it in. Throws BundleError listing every problem, or the error that stopped it; on
   * any failure the served version stays as it was. Every outcome is kept as `lastPublish`.
   */
  publish(source: BundleSource, label = typeof source === 'object' && 'path' in source ? source.path : 'bundle'): Promise<ReadModel> {
    return this.enqueue(async () => {
      const began = performance.now();
      let checksum: string | null = null;
      try {
        const staged = await this.publisher.stage(source);
        this.storeCurrent = staged.current;
        checksum = staged.checksum;
        if (staged.problems) {
          this.record(label, checksum, 'refused', began, { problems: staged.problems, warnings: staged.damaged });
          throw new BundleError(staged.problems);
        }
        if (this.served.serves(staged.stored)) {
          this.record(label, checksum, 'unchanged', began, {});
          return this.served.model;
        }
        return await this.serveStaged(label, checksum, began, staged.damaged);
      } catch (err) {
        if (!(err instanceof BundleError)) this.record(label, checksum, 'failed', began, { error: String((err as Error).message ?? err) });
        throw err;
      }
    });
  }

  /**
   * Serves the version the database says is current, if it is not the one served (a replica following
   * publishes and rollbacks made by other processes). Answers true when the served version changed; throws
   * when the database cannot be read (the served version stays).
   */
  follow(label = 'database'): Promise<boolean> {
    return this.enqueue(async () => {
      const began = performance.now();
      // A poll asks for the version only: the payload (a cache read and verified, or a read of the store) only when it changed.
      const current = await this.publisher.currentVersion();
      this.storeCurrent = current;
      if (!current || this.served.serves(current)) {
        this.notLoaded = null;
        // The same version made current again (a rollback to it) is a change: its events' account follows it.
        if (current && this.served.ready && await this.publisher.latestChange() !== this.served.model.changes.latest) {
          this.summary = await this.publisher.recordChanges();
          if (this.served.restamp(this.summary)) this.onChange?.();
        }
        return false;
      }
      let built: BuiltModel | null = null;
      try {
        const payload = await this.publisher.serveCurrent();
        if (payload && !this.served.serves(payload)) built = await this.served.build(payload, this.sharing);
      } catch (err) {
        // The database went away while the version was read: the follower backs off and tries again.
        if (isConnectionError(err)) throw err;
        const failed = new VersionLoadError(current.version, err);
        this.notLoaded = { version: current.version, content_version: current.checksum, error: failed.message, at: new Date().toISOString() };
        this.record(label, current.checksum, 'failed', began, { error: failed.message });
        throw failed;
      }
      this.notLoaded = null;
      if (!built) return false;
      await this.stamp(built.model);
      this.swapIn(built);
      this.record(label, built.model.checksum, 'followed', began, {});
      return true;
    });
  }

  /** Replaces the stored sessions (a sessions file, read again) and serves them from the next request on. */
  setSessions(sessions: SessionT[]): Promise<void> {
    return this.enqueue(async () => {
      await this.publisher.replaceSessions(sessions);
      this.sessionIndex = new SessionIndex(await this.publisher.readSessions());
    });
  }

  /** How many sessions are served. */
  get sessionCount(): number {
    return this.sessionIndex.size;
  }

  /**
   * The unexpired session with this token hash and whether its account saved one of the events (an occurrence or its
   * series); null when there is none.
   */
  async lookupSession(tokenSha256: string, eventIds: readonly string[], now: Date): Promise<SessionAnswer | null> {
    return this.liveSessions ? this.liveSessions.lookup(tokenSha256, eventIds, now) : this.sessionIndex.lookup(tokenSha256, eventIds, now);
  }

  /** What changed for one map after change `after` up to `upTo` (the store's history). */
  changeHistory(after: number, upTo: number, mapId: string, publisherId: string): Promise<RecordChange[]> {
    return this.publisher.changeHistory(after, upTo, mapId, publisherId);
  }

  /** Waits for the publish in progress, then closes the store. */
  async close(): Promise<void> {
    await this.queue;
    await this.liveSessions?.close();
    try {
      await this.publisher.close();
    } finally {
      await this.dataDirLock?.release();
    }
  }

  /**
   * The journey of a staged bundle: its payload prepared (the version not yet current), its read model built (in
   * slices: requests are answered meanwhile), then the version committed and swapped in. A payload that cannot
   * cross to this thread or a model that cannot be built abandons the version, so the store never makes current a
   * version that nobody saw load, and the one served stays. `published` when the served version changed.
   */
  private async serveStaged(label: string, checksum: string, began: number, damaged: string[]): Promise<ReadModel> {
    let prepared: Prepared;
    let built: BuiltModel;
    try {
      prepared = await this.publisher.prepare();
      built = await this.served.build(prepared.payload, this.sharing);
    } catch (err) {
      await this.publisher.abandon().catch(() => {});
      throw err;
    }
    const committed = await this.publisher.commit();
    await this.stamp(built.model);
    // Said current once it is served too: /readyz never shows a version the store made current as loading.
    this.storeCurrent = committed ?? this.storeCurrent;
    const changed = prepared.written || (this.served.ready && this.served.model.version !== built.model.version);
    this.swapIn(built);
    this.record(label, checksum, changed ? 'published' : 'unchanged', began, { warnings: [...damaged, ...prepared.warnings] });
    return built.model;
  }

  /**
   * Gives a model about to be served the store's account of when its events last changed (src/content/journey.ts,
   * step 3). Reading it does not fail the version: without it, each event counts as changed when its version was
   * published, until a later follow or publish reads it again.
   */
  private async stamp(model: ReadModel): Promise<void> {
    this.summary = await this.publisher.recordChanges().catch(() => null);
    model.changes = changesFor(model, this.summary);
  }

  /** Serves a built model from the next request on (src/content/journey.ts: and collects what building it left). */
  private swapIn(built: BuiltModel): void {
    this.served.swapIn(built);
    this.unavailable = null;
  }

  private record(source: string, checksum: string | null, outcome: PublishRecord['outcome'], began: number,
    extra: Partial<Pick<PublishRecord, 'problems' | 'error' | 'warnings'>>): void {
    this.last = { at: new Date().toISOString(), source, checksum, outcome, version: this.served.ready ? this.served.model.version : null,
      problems: extra.problems ?? [], error: extra.error ?? null, warnings: extra.warnings ?? [],
      ms: Math.round(performance.now() - began) };
    this.onChange?.();
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job);
    this.queue = run.catch(() => {});
    return run;
  }
}

/** The publisher in a worker thread (src/content/publisher-worker.ts): each call crosses by RpcPeer, and its answer back. */
class WorkerPublisher implements PublisherPort {
  /** Payloads wanted in shared memory (ContentStore.sharePayloads). */
  shared = false;
  private readonly worker: Worker;
  private readonly peer: RpcPeer;
  onProgress: ((progress: PublishProgress) => void) | null = null;

  private constructor(worker: Worker) {
    this.worker = worker;
    this.peer = new RpcPeer(worker, { decodeError: decodePublisherError });
    this.peer.on<PublishProgress>('progress', (progress) => this.onProgress?.(progress));
    worker.on('error', (err: Error) => this.peer.failAll(err));
    worker.on('exit', (code) => this.peer.failAll(new Error(`the publisher thread exited (${code})`)));
  }

  /** Starts the worker and waits until its store is open. */
  static async start(options: PublisherOptions): Promise<WorkerPublisher> {
    // The worker lowers its own priority (publisher-worker.ts), and threads inherit the priority of the thread
    // that starts them: Node's file-system thread pool is started here first, so that it serves at full priority.
    const warm = takeWarmPublisher();
    if (!warm) await stat(fileURLToPath(import.meta.url)).catch(() => {});
    const worker = warm ?? new Worker(PUBLISHER_WORKER, { workerData: options });
    const port = new WorkerPublisher(worker);
    // A thread started early (warm-publisher.ts) is given its options first.
    if (warm) await port.peer.call(OPEN_METHOD, { shared: false }, options);
    await port.opened();
    return port;
  }

  /** Calls the publisher's `method`; a payload in the answer comes in shared memory when `shared` is set. */
  private call<T>(method: keyof PublisherPort, ...args: unknown[]): Promise<T> {
    return this.peer.call<T>(method, { shared: this.shared }, ...args);
  }

  opened() { return this.call<OpenedStore>('opened'); }
  stage(source: BundleSource) { return this.call<Staged>('stage', source); }
  prepare() { return this.call<Prepared>('prepare'); }
  commit() { return this.call<VersionInfo | null>('commit'); }
  abandon() { return this.call<void>('abandon'); }
  serveCurrent() { return this.call<ModelPayload | null>('serveCurrent'); }
  currentVersion() { return this.call<VersionInfo | null>('currentVersion'); }
  recordChanges() { return this.call<ChangeSummary | null>('recordChanges'); }
  latestChange() { return this.call<number | null>('latestChange'); }
  changeHistory(after: number, upTo: number, mapId: string, publisherId: string) {
    return this.call<RecordChange[]>('changeHistory', after, upTo, mapId, publisherId);
  }
  replaceSessions(sessions: SessionT[]) { return this.call<void>('replaceSessions', sessions); }
  readSessions() { return this.call<Awaited<ReturnType<PublisherPort['readSessions']>>>('readSessions'); }
  async close() {
    await this.call<void>('close');
    await this.worker.terminate();
  }
}
