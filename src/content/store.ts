/**
 * The content store: PGlite plus the read model of the content it holds. Replacing the content is
 * all-or-nothing: a bundle is validated, loaded in one transaction, and only then swapped in.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { openDb, type Db, type OpenOptions } from '../db/pglite.ts';
import { SELECT, SESSION_SAVED_EVENT } from '../db/schema.ts';
import { contentDocs, loadBundle } from './load-bundle.ts';
import {
  claimSnapshot, hasSnapshot, newSnapshotDir, publishSnapshot, readLoadedContent, removeSnapshot, writeLoadedContent, type ClaimedDir,
} from './snapshot.ts';
import { buildReadModel, type ReadModel } from './model/read-model.ts';
import type { BundleT } from './bundle/bundle-schema.ts';
import { BundleError, validateBundle } from './bundle/validate-bundle.ts';

/** A bundle file, read only as far as needed: streamed through the hash when a snapshot has its content. */
export interface BundleFile { path: string }

/** A bundle as text, as UTF-8 bytes, or as a file. */
export type BundleSource = string | Uint8Array | BundleFile;

/** Hex SHA-256 of a string (its UTF-8) or of bytes, through WebCrypto (the same on Node, Bun and Deno). */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', typeof data === 'string' ? new TextEncoder().encode(data) : data as Uint8Array<ArrayBuffer>);
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
  /** Directory of data snapshots, read and written; none means always initdb and load, in memory. */
  dir?: string;
  /** A snapshot shipped with the program (the compiled binary's demo, a `dumpSnapshot` tarball), used when its checksum matches. */
  builtIn?: { checksum: string; load(): Promise<Blob> };
}

/** The SHA-256 of a bundle's UTF-8 bytes; a file is streamed, never held whole. */
async function checksumOf(source: BundleSource): Promise<string> {
  if (typeof source === 'string' || source instanceof Uint8Array) return sha256Hex(source);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(source.path)) hash.update(chunk as Uint8Array);
  return hash.digest('hex');
}

/** Reads, checksums and validates a whole bundle (the checksum is of exactly the bytes validated). */
async function readBundle(source: BundleSource): Promise<{ checksum: string; bundle: BundleT }> {
  const content = typeof source === 'string' || source instanceof Uint8Array ? source : await readFile(source.path);
  return { checksum: await sha256Hex(content), bundle: parseBundle(content) };
}

/** Parses and validates a bundle; BundleError lists every problem. */
export function parseBundle(source: string | Uint8Array): BundleT {
  let input: unknown;
  try {
    input = JSON.parse(typeof source === 'string' ? source : new TextDecoder().decode(source));
  } catch (err) {
    throw new BundleError([{ path: '$', message: `not valid JSON: ${(err as Error).message}` }]);
  }
  return validateBundle(input);
}

/**
 * The first content of a store, checked and ready to load: a data snapshot of the same bundle (whose
 * bundle was validated when it was built), or the validated bundle itself. Staging does everything that
 * can refuse the bundle, so a server can stage before it opens its port and load after.
 */
export interface StagedContent {
  checksum: string;
  /** The built-in snapshot, when it matches. */
  builtIn: Blob | null;
  /** True when `dir` holds a snapshot of this bundle. */
  inDir: boolean;
  /** Set when there is no snapshot (the bundle was validated instead). */
  bundle: BundleT | null;
}

/** Owns the database and the current read model. */
export class ContentStore {
  private db: Db | null;
  private current: ReadModel | null = null;
  /** Gives back the snapshot directory the database runs in (unlock, or delete a private copy). */
  private release: () => Promise<void> = async () => {};
  /** Replacements run one at a time, in call order. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(db: Db | null) {
    this.db = db;
  }

  /** Opens the store over a fresh in-memory PGlite. */
  static async open(options: OpenOptions = {}): Promise<ContentStore> {
    return new ContentStore(await openDb(options));
  }

  /** A store with no database and no content yet: not ready until `loadStaged` completes. */
  static pending(): ContentStore {
    return new ContentStore(null);
  }

  /**
   * Stages the bundle in `text`: finds a data snapshot of the same bundle (built in, or in `snapshots.dir`),
   * or else validates the bundle. Throws BundleError for a bad bundle. The checksum is the SHA-256 of the
   * bundle's UTF-8 bytes, so a file is only streamed through the hash when a snapshot of it exists.
   */
  static async stage(text: BundleSource, snapshots: SnapshotOptions = {}): Promise<StagedContent> {
    const checksum = await checksumOf(text);
    const builtIn = snapshots.builtIn?.checksum === checksum ? await snapshots.builtIn.load() : null;
    const inDir = !builtIn && snapshots.dir !== undefined && await hasSnapshot(snapshots.dir, checksum);
    if (builtIn || inDir) return { checksum, builtIn, inDir, bundle: null };
    return { ...await readBundle(text), builtIn: null, inDir: false };
  }

  /** Opens a store serving the bundle in `text`: `stage`, then `loadStaged`. */
  static async openBundle(text: BundleSource, snapshots: SnapshotOptions = {}, options: OpenOptions = {}):
    Promise<{ store: ContentStore; from: OpenedFrom }> {
    const store = ContentStore.pending();
    const from = await store.loadStaged(text, await ContentStore.stage(text, snapshots), snapshots.dir, options);
    return { store, from };
  }

  /**
   * Loads staged content into this pending store: reopens the snapshot (no initdb, no load), or runs
   * initdb and loads the bundle into a new snapshot in `dir` (in memory without one). A snapshot that
   * fails to open is removed and rebuilt from the bundle.
   */
  async loadStaged(text: BundleSource, staged: StagedContent, dir?: string, options: OpenOptions = {}): Promise<OpenedFrom> {
    if (this.db) throw new Error('the store is already open');
    let { checksum } = staged;
    let warning: string | undefined;
    if (staged.builtIn || staged.inDir) {
      const claimed = staged.builtIn ? null : await claimSnapshot(dir!, checksum).catch(() => null);
      try {
        // A directory snapshot keeps the bundle as validated when it was built and its event tables, so
        // neither is validated or built again; the built-in one (the demo, small) is validated here.
        const loaded = claimed ? await readLoadedContent(claimed.path) : null;
        const bundle = loaded ? loaded.bundle as BundleT : (await readBundle(text)).bundle;
        const db = await openDb({ ...options, ...(claimed ? { dataDir: claimed.path } : { snapshot: staged.builtIn! }) });
        if (await storedChecksum(db) === checksum) {
          this.use(db, buildReadModel(contentDocs(bundle, checksum), loaded?.tables), claimed?.release);
          return { source: 'snapshot' };
        }
        await db.close();
      } catch {
        // fall through: rebuild from the bundle
      }
      await claimed?.release();
      warning = 'the data snapshot did not open cleanly; rebuilt it from the bundle';
      if (dir && staged.inDir) await removeSnapshot(dir, checksum).catch(() => {});
    }
    let bundle = staged.bundle;
    if (!bundle) ({ checksum, bundle } = await readBundle(text));
    if (dir) {
      let building: ClaimedDir | null = null;
      try {
        building = await newSnapshotDir(dir);
      } catch (err) {
        warning = `cannot keep data snapshots in ${dir}: ${(err as Error).message}`;
      }
      if (building) {
        let db: Db | null = null;
        try {
          db = await openDb({ ...options, dataDir: building.path });
          const model = await this.loadInto(db, bundle, checksum);
          await settle(db);
          await db.close();
          db = null;
          await writeLoadedContent(building.path, bundle, [...model.maps.values()].map((m) => m.events));
          const published = await publishSnapshot(dir, building.path, checksum);
          const claimed = (published && await claimSnapshot(dir, checksum)) || building;
          this.use(await openDb({ ...options, dataDir: claimed.path }), model, claimed.release);
          return { source: 'bundle', ...(published ? { wroteSnapshot: published } : {}), warning };
        } catch (err) {
          await db?.close().catch(() => {});
          await building.release();
          throw err;
        }
      }
    }
    this.db = await openDb(options);
    await this.loadInto(this.db, bundle, checksum).then((model) => { this.current = model; });
    return { source: 'bundle', warning };
  }

  private use(db: Db, model: ReadModel, release?: () => Promise<void>): void {
    this.db = db;
    this.current = model;
    if (release) this.release = release;
  }

  /** The current database as a gzipped data-directory tarball (a built-in snapshot for `SnapshotOptions.builtIn`). */
  async dumpSnapshot(): Promise<Blob> {
    if (!this.db) throw new Error('the store has no database yet');
    return this.db.dumpDataDir('gzip');
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
  replaceFromText(text: BundleSource): Promise<ReadModel> {
    const run = this.queue.then(async () => {
      if (!this.db) throw new Error('the store has no database yet');
      const { checksum, bundle } = await readBundle(text);
      const model = await this.loadInto(this.db, bundle, checksum);
      this.current = model;
      return model;
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** Loads a validated bundle in one transaction and builds its read model inside it (a failure rolls both back). */
  private async loadInto(db: Db, bundle: BundleT, checksum: string): Promise<ReadModel> {
    try {
      return await loadBundle(db, bundle, checksum, buildReadModel);
    } catch (err) {
      // Validation should catch everything the database would refuse; if it did not, still answer as a refusal.
      throw new BundleError([{ path: '$', message: `the content store refused the bundle: ${(err as Error).message}` }]);
    }
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
    await this.release();
  }
}

/**
 * Leaves a freshly loaded database as a snapshot should be: every row frozen and hinted, so the first
 * reader after a reopen does not rewrite pages (with data checksums on, each would also go to the WAL),
 * and everything checkpointed.
 */
async function settle(db: Db): Promise<void> {
  await db.exec('VACUUM (FREEZE, ANALYZE)');
  await db.exec('CHECKPOINT');
}

/** The checksum of the bundle a database holds. */
async function storedChecksum(db: Db): Promise<string | undefined> {
  const { rows } = await db.query<{ key: string; value: string }>(SELECT.meta);
  return rows.find((r) => r.key === 'checksum')?.value;
}
