/**
 * The content store: PGlite plus the read model of the content it holds. Replacing the content is
 * all-or-nothing: a bundle is validated, loaded in one transaction, and only then swapped in.
 */
import { openDb, type Db, type OpenOptions } from '../db/pglite.ts';
import { SESSION_SAVED_EVENT } from '../db/schema.ts';
import { loadBundle } from './load-bundle.ts';
import { readSnapshot, removeSnapshot, writeSnapshot } from './snapshot.ts';
import { buildReadModel, type ReadModel } from './read-model.ts';
import type { BundleT } from './bundle-schema.ts';
import { BundleError, validateBundle } from './validate-bundle.ts';

/** Hex SHA-256 of a string, through WebCrypto (the same on Node, Bun and Deno). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** What a valid account session says about one event. */
export interface SessionLookup { account_id: string; is_saved: boolean }

/** How a store was opened over its first bundle. */
export interface OpenedFrom {
  /** `snapshot`: reopened from a matching data snapshot; `bundle`: initdb and a full load. */
  source: 'snapshot' | 'bundle';
  /** The snapshot written after a full load, if one was. */
  wroteSnapshot?: string;
  /** Why a snapshot was not used or not written (unreadable, unwritable), if something went wrong. */
  warning?: string;
}

/** Where snapshots come from and go to. */
export interface SnapshotOptions {
  /** Directory of data snapshots, read and written; none means always initdb and load. */
  dir?: string;
  /** A snapshot shipped with the program (the compiled binary's demo), used when its checksum matches. */
  builtIn?: { checksum: string; load(): Promise<Blob> };
}

/** Parses and validates bundle text; BundleError lists every problem. */
export function parseBundle(text: string): BundleT {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    throw new BundleError([{ path: '$', message: `not valid JSON: ${(err as Error).message}` }]);
  }
  return validateBundle(input);
}

/**
 * The first content of a store, checked and ready to load: either a data snapshot of the same bundle,
 * or the validated bundle itself. Staging does everything that can refuse the bundle, so a server can
 * stage before it opens its port and load after.
 */
export interface StagedContent {
  checksum: string;
  snapshot: Blob | null;
  /** Set when there is no usable snapshot (the bundle was validated instead). */
  bundle: BundleT | null;
  /** Why a snapshot could not be read, if one could not. */
  warning?: string;
}

/** Owns the database and the current read model. */
export class ContentStore {
  private db: Db | null;
  private current: ReadModel | null = null;
  /** Replacements run one at a time, in call order. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(db: Db | null) {
    this.db = db;
  }

  /** Opens the store over a fresh PGlite (in memory, or at `dataDir`). */
  static async open(options: OpenOptions = {}): Promise<ContentStore> {
    return new ContentStore(await openDb(options));
  }

  /** A store with no database and no content yet: not ready until `loadStaged` completes. */
  static pending(): ContentStore {
    return new ContentStore(null);
  }

  /**
   * Stages the bundle in `text`: finds a data snapshot of the same bundle (built in, or in `snapshots.dir`),
   * or else validates the bundle. Throws BundleError for a bad bundle.
   */
  static async stage(text: string, snapshots: SnapshotOptions = {}): Promise<StagedContent> {
    const checksum = await sha256Hex(text);
    const { dir, builtIn } = snapshots;
    try {
      const snapshot = builtIn?.checksum === checksum ? await builtIn.load() : dir ? await readSnapshot(dir, checksum) : null;
      if (snapshot) return { checksum, snapshot, bundle: null };
      return { checksum, snapshot: null, bundle: parseBundle(text) };
    } catch (err) {
      if (err instanceof BundleError) throw err;
      return { checksum, snapshot: null, bundle: parseBundle(text), warning: `cannot read the data snapshot: ${(err as Error).message}` };
    }
  }

  /** Opens a store serving the bundle in `text`: `stage`, then `loadStaged`. */
  static async openBundle(text: string, snapshots: SnapshotOptions = {}, options: OpenOptions = {}):
    Promise<{ store: ContentStore; from: OpenedFrom }> {
    const store = ContentStore.pending();
    const from = await store.loadStaged(text, await ContentStore.stage(text, snapshots), snapshots.dir, options);
    return { store, from };
  }

  /**
   * Loads staged content into this pending store: reopens the snapshot (no initdb, no load), or runs
   * initdb, loads the bundle and writes a snapshot into `dir` for the next start. A snapshot that fails
   * to open is removed and rebuilt from the bundle.
   */
  async loadStaged(text: string, staged: StagedContent, dir?: string, options: OpenOptions = {}): Promise<OpenedFrom> {
    if (this.db) throw new Error('the store is already open');
    let warning = staged.warning;
    if (staged.snapshot) {
      const db = await openDb({ ...options, snapshot: staged.snapshot }).catch((err: Error) => err);
      if (!(db instanceof Error)) {
        const model = await buildReadModel(db).catch((err: Error) => err);
        if (!(model instanceof Error) && model.checksum === staged.checksum) {
          this.db = db;
          this.current = model;
          return { source: 'snapshot' };
        }
        await db.close();
      }
      warning = 'the data snapshot did not open cleanly; rebuilt it from the bundle';
      if (dir) await removeSnapshot(dir, staged.checksum).catch(() => {});
    }
    const bundle = staged.bundle ?? parseBundle(text);
    this.db = await openDb(options);
    await this.load(bundle, staged.checksum);
    if (!dir) return { source: 'bundle', warning };
    try {
      const wroteSnapshot = await writeSnapshot(dir, staged.checksum, await this.db.dumpDataDir('gzip'));
      return { source: 'bundle', wroteSnapshot, warning };
    } catch (err) {
      return { source: 'bundle', warning: `cannot write the data snapshot to ${dir}: ${(err as Error).message}` };
    }
  }

  /** The read model being served; throws before any content was loaded. */
  get model(): ReadModel {
    if (!this.current) throw new Error('no content loaded');
    return this.current;
  }

  /** True once content is loaded and indexed. */
  get ready(): boolean {
    return this.current !== null;
  }

  /**
   * Replaces the content with the bundle in `text` (JSON). Throws BundleError listing every problem;
   * on any failure the content being served stays exactly as it was.
   */
  replaceFromText(text: string): Promise<ReadModel> {
    const run = this.queue.then(async () => this.load(parseBundle(text), await sha256Hex(text)));
    this.queue = run.catch(() => {});
    return run;
  }

  private async load(bundle: BundleT, checksum: string): Promise<ReadModel> {
    if (!this.db) throw new Error('the store has no database yet');
    let model: ReadModel;
    try {
      // The read model is built inside the load's transaction: if either fails, both roll back.
      model = await loadBundle(this.db, bundle, checksum, buildReadModel);
    } catch (err) {
      // Validation should catch everything the database would refuse; if it did not, still answer as a refusal.
      throw new BundleError([{ path: '$', message: `the content store refused the bundle: ${(err as Error).message}` }]);
    }
    this.current = model;
    return model;
  }

  /** Finds an unexpired session by the SHA-256 of its token; null when there is none. */
  async lookupSession(tokenSha256: string, eventId: string, now: Date): Promise<SessionLookup | null> {
    if (!this.db) return null;
    const { rows } = await this.db.query<SessionLookup>(SESSION_SAVED_EVENT, [tokenSha256, eventId, now.toISOString()]);
    return rows[0] ?? null;
  }

  /** Closes PGlite cleanly (after the queued replacements). */
  async close(): Promise<void> {
    await this.queue;
    await this.db?.close();
    this.db = null;
  }
}
