/**
 * The content store: PGlite plus the read model of the content it holds. Replacing the content is
 * all-or-nothing: a bundle is validated, loaded in one transaction, and only then swapped in.
 */
import { openDb, type Db, type OpenOptions } from '../db/pglite.ts';
import { SESSION_SAVED_EVENT } from '../db/schema.ts';
import { loadBundle } from './load-bundle.ts';
import { readSnapshot, removeSnapshot, writeSnapshot } from './snapshot.ts';
import { buildReadModel, type ReadModel } from './read-model.ts';
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

/** Owns the database and the current read model. */
export class ContentStore {
  private readonly db: Db;
  private current: ReadModel | null = null;
  /** Replacements run one at a time, in call order. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(db: Db) {
    this.db = db;
  }

  /** Opens the store over a fresh PGlite (in memory, or at `dataDir`). */
  static async open(options: OpenOptions = {}): Promise<ContentStore> {
    return new ContentStore(await openDb(options));
  }

  /**
   * Opens a store serving the bundle in `text`. A data snapshot of the same bundle (built in, or in
   * `snapshots.dir`) is reopened without initdb or load; otherwise the bundle is validated and loaded,
   * and a snapshot is written for the next start. Throws BundleError for a bad bundle.
   */
  static async openBundle(text: string, snapshots: SnapshotOptions = {}, options: OpenOptions = {}):
    Promise<{ store: ContentStore; from: OpenedFrom }> {
    const checksum = await sha256Hex(text);
    const { dir, builtIn } = snapshots;
    let warning: string | undefined;
    let snapshot: Blob | null = null;
    try {
      snapshot = builtIn?.checksum === checksum ? await builtIn.load() : dir ? await readSnapshot(dir, checksum) : null;
    } catch (err) {
      warning = `cannot read the data snapshot: ${(err as Error).message}`;
    }
    if (snapshot) {
      const db = await openDb({ ...options, snapshot }).catch((err: Error) => err);
      if (!(db instanceof Error)) {
        const store = new ContentStore(db);
        const model = await buildReadModel(db).catch((err: Error) => err);
        if (!(model instanceof Error) && model.checksum === checksum) {
          store.current = model;
          return { store, from: { source: 'snapshot' } };
        }
        await db.close();
      }
      warning = 'the data snapshot did not open cleanly; rebuilt it from the bundle';
      if (dir) await removeSnapshot(dir, checksum).catch(() => {});
    }
    const store = await ContentStore.open(options);
    try {
      await store.replaceFromText(text);
    } catch (err) {
      await store.close();
      throw err;
    }
    if (!dir) return { store, from: { source: 'bundle', warning } };
    try {
      const wroteSnapshot = await writeSnapshot(dir, checksum, await store.db.dumpDataDir('gzip'));
      return { store, from: { source: 'bundle', wroteSnapshot, warning } };
    } catch (err) {
      return { store, from: { source: 'bundle', warning: `cannot write the data snapshot to ${dir}: ${(err as Error).message}` } };
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
    const run = this.queue.then(() => this.replace(text));
    this.queue = run.catch(() => {});
    return run;
  }

  private async replace(text: string): Promise<ReadModel> {
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (err) {
      throw new BundleError([{ path: '$', message: `not valid JSON: ${(err as Error).message}` }]);
    }
    const bundle = validateBundle(input);
    let model: ReadModel;
    try {
      // The read model is built inside the load's transaction: if either fails, both roll back.
      model = await loadBundle(this.db, bundle, await sha256Hex(text), buildReadModel);
    } catch (err) {
      // Validation should catch everything the database would refuse; if it did not, still answer as a refusal.
      throw new BundleError([{ path: '$', message: `the content store refused the bundle: ${(err as Error).message}` }]);
    }
    this.current = model;
    return model;
  }

  /** Finds an unexpired session by the SHA-256 of its token; null when there is none. */
  async lookupSession(tokenSha256: string, eventId: string, now: Date): Promise<SessionLookup | null> {
    const { rows } = await this.db.query<SessionLookup>(SESSION_SAVED_EVENT, [tokenSha256, eventId, now.toISOString()]);
    return rows[0] ?? null;
  }

  /** Closes PGlite cleanly. */
  async close(): Promise<void> {
    await this.db.close();
  }
}
