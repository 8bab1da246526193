/**
 * A replica follows the PostgreSQL store: whichever version the database makes current (a `publish`, or a
 * `publish --rollback`, run anywhere) is built off the request path and swapped in, while the one before keeps
 * serving. It hears of a new version three ways: a NOTIFY on the publish channel (LISTEN, re-established by
 * postgres.js after a lost connection, with a check each time it is), a poll every few seconds (a notification
 * can be missed), and SIGHUP. A database that cannot be reached is tried again with backoff; meanwhile the
 * loaded version keeps serving and `/readyz` says the database is unreachable.
 */
import { connectPostgres, isConnectionError, type PostgresDb } from '../db/postgres.ts';
import { PUBLISHED_CHANNEL } from '../db/schema.ts';
import type { Logger } from '../utils/log.ts';
import { VersionLoadError, type ContentStore, type DatabaseState } from './content-store.ts';

/** How often a replica asks the database for its current version, notifications or not. */
export const POLL_MS = 5_000;
/** The first wait before trying an unreachable database again; it doubles up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5_000;


/** Follows the database's current version into a content store. */
export class ReplicaFollower {
  private readonly store: ContentStore;
  private readonly logger: Logger;
  private readonly db: PostgresDb;
  private readonly pollMs: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  /** The trigger of a check asked for while another ran (the latest), which the check run again after it is done for. */
  private again: string | null = null;
  private backoffMs = FIRST_BACKOFF_MS;
  private stopped = false;
  private unlisten: (() => Promise<void>) | null = null;
  readonly state: DatabaseState = { reachable: false, error: null, last_contact: null };

  constructor(store: ContentStore, databaseUrl: string, logger: Logger, pollMs = POLL_MS) {
    this.store = store;
    this.logger = logger;
    this.pollMs = pollMs;
    this.db = connectPostgres(databaseUrl, { max: 1, connectTimeoutS: 3, applicationName: 'destination-map-content replica' });
  }

  /** Starts following: a first check now, then notifications and polls. */
  start(): void {
    void this.listen();
    void this.check('start');
  }

  /**
   * Checks the database's current version now (a notification, a poll, SIGHUP). Checks never overlap: one
   * asked for while another runs is run once more after it, and logged as what asked for it (a notification that
   * came during a poll which read the version before the commit is what the version is then followed on).
   */
  check(trigger: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = trigger;
      return this.running;
    }
    this.running = (async () => {
      for (let next: string | null = trigger; next !== null && !this.stopped;) {
        this.again = null;
        await this.checkOnce(next);
        next = this.again;
      }
      this.running = null;
      this.schedule(this.state.reachable ? this.pollMs : this.backoffMs);
    })();
    return this.running;
  }

  private async checkOnce(trigger: string): Promise<void> {
    this.clearTimer();
    try {
      const changed = await this.store.follow(`database (${trigger})`);
      this.reached();
      if (changed) {
        const model = this.store.model;
        this.logger.log('info', 'content followed', { trigger, version: model.version, content_version: model.checksum,
          ms: this.store.lastPublish?.ms });
      }
    } catch (err) {
      this.failed(err, trigger);
    }
  }

  /** The version served, for the log. */
  private servedVersion(): number | null {
    return this.store.ready ? this.store.model.version : null;
  }

  private reached(): void {
    if (!this.state.reachable && this.state.error) {
      this.logger.log('info', 'the database is reachable again');
      // postgres.js re-LISTENs once when its connection drops, and gives up if the database is still down then.
      void this.relisten();
    }
    this.state.reachable = true;
    this.state.error = null;
    this.state.last_contact = new Date().toISOString();
    this.backoffMs = FIRST_BACKOFF_MS;
  }

  private failed(err: unknown, trigger: string): void {
    const message = String((err as Error)?.message ?? err);
    if (isConnectionError(err)) {
      if (this.state.reachable || this.state.error === null) {
        this.logger.log('warn', 'the database cannot be reached; the loaded version keeps serving', { trigger, error: message });
      }
      this.state.reachable = false;
      this.state.error = message;
      this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
      return;
    }
    this.reached();
    if (err instanceof VersionLoadError) {
      // The database answered, but its current version could not be served (a version pruned while it was read, a
      // damaged row, a model that does not build here): tried again at every poll, and said at every attempt.
      this.logger.log('error', 'the current version could not be loaded; the served version stays', { trigger, version: err.version,
        serving: this.servedVersion(), error: message });
      return;
    }
    // Reached, and refused (privileges, a migration that fails): nothing can be read until that is mended.
    this.state.error = message;
    this.logger.log('error', 'the database refused the replica; the served version stays', { trigger, serving: this.servedVersion(), error: message });
  }

  /** LISTENs on the publish channel; tried again with backoff until the database first answers. */
  private async listen(): Promise<void> {
    let wait = FIRST_BACKOFF_MS;
    while (!this.stopped) {
      try {
        // onlisten runs after every (re)connection: a version published while disconnected is picked up then.
        const sub = await this.db.listen(PUBLISHED_CHANNEL, () => void this.check('notify'), () => void this.check('listen'));
        this.unlisten = sub.unlisten;
        return;
      } catch (err) {
        if (!isConnectionError(err)) this.logger.log('error', 'LISTEN failed; polling only until it works', { error: String((err as Error)?.message ?? err) });
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(MAX_BACKOFF_MS, wait * 2);
      }
    }
  }

  private async relisten(): Promise<void> {
    const old = this.unlisten;
    this.unlisten = null;
    await old?.().catch(() => {});
    await this.listen();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.clearTimer();
    this.timer = setTimeout(() => void this.check(this.state.reachable ? 'poll' : 'retry'), ms);
    // A pending poll never keeps the process alive on its own.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Stops following (waits for a check in progress) and closes its connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await this.running;
    await this.unlisten?.().catch(() => {});
    await this.db.close().catch(() => {});
  }
}
