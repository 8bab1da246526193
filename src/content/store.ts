/**
 * The content store: PGlite plus the read model of the content it holds. Replacing the content is
 * all-or-nothing: a bundle is validated, loaded in one transaction, and only then swapped in.
 */
import { openDb, type Db } from '../db/pglite.ts';
import { SESSION_SAVED_EVENT } from '../db/schema.ts';
import { loadBundle } from './load-bundle.ts';
import { buildReadModel, type ReadModel } from './read-model.ts';
import { BundleError, validateBundle } from './validate-bundle.ts';

/** Hex SHA-256 of a string, through WebCrypto (the same on Node, Bun and Deno). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** What a valid account session says about one event. */
export interface SessionLookup { account_id: string; is_saved: boolean }

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
  static async open(options: { dataDir?: string } = {}): Promise<ContentStore> {
    return new ContentStore(await openDb(options.dataDir));
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
