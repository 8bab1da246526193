/**
 * A publisher for content whose payload was built ahead (the single binary's built-in demo, built into it by
 * scripts/build-binary.ts): it serves that payload at once, without opening a store, and opens the real publisher
 * only when something else must be written (a bundle of other content). The built-in demo then never opens PGlite at
 * all: no wasm compiled, no store in memory, no publish at start.
 *
 * The payload is used only for a bundle whose SHA-256 is the payload's checksum, which is the identity of content
 * everywhere in the service: any other bundle goes to the real publisher, as it would without this one. Sessions are
 * kept here as the store would keep them, and handed to the real publisher when it opens.
 */
import type { SessionT } from './bundle/bundle-schema.ts';
import { checksumOf, type BundleSource } from './bundle/parse.ts';
import type { ModelPayload } from './model/model-cache.ts';
import type { Prepared, PublishProgress, PublisherPort, Staged, StoreMode } from './publisher.ts';
import type { SessionRow, VersionInfo } from './store/sql-store.ts';

export class PrebuiltPublisher implements PublisherPort {
  onProgress: ((progress: PublishProgress) => void) | null = null;
  private readonly payload: ModelPayload;
  private readonly openReal: () => Promise<PublisherPort>;
  private real: Promise<PublisherPort> | null = null;
  private sessions: SessionT[] = [];
  /** True while the prebuilt payload is what is staged or served (nothing was given to the real publisher). */
  private prebuiltStaged = false;
  private prebuiltServed = false;

  constructor(payload: ModelPayload, openReal: () => Promise<PublisherPort>) {
    this.payload = payload;
    this.openReal = openReal;
  }

  /** The version the payload is (as the store that built it numbered it). */
  private get version(): VersionInfo {
    return { version: this.payload.version, checksum: this.payload.checksum, published_at: this.payload.published_at };
  }

  /** The real publisher, opened on first need, with the sessions held so far. */
  private publisher(): Promise<PublisherPort> {
    this.real ??= (async () => {
      const real = await this.openReal();
      real.onProgress = (progress) => this.onProgress?.(progress);
      if (this.sessions.length > 0) await real.replaceSessions(this.sessions);
      return real;
    })();
    return this.real;
  }

  async opened(): Promise<{ mode: StoreMode; warnings: string[] }> {
    return this.real ? (await this.real).opened() : { mode: 'memory', warnings: [] };
  }

  async stage(source: BundleSource): Promise<Staged> {
    if (!this.real && await checksumOf(source) === this.payload.checksum) {
      this.prebuiltStaged = true;
      const current = this.prebuiltServed ? this.version : null;
      return { checksum: this.payload.checksum, stored: current, current, problems: null, warnings: this.payload.warnings, damaged: [] };
    }
    this.prebuiltStaged = false;
    return (await this.publisher()).stage(source);
  }

  async prepare(): Promise<Prepared> {
    if (!this.prebuiltStaged) return (await this.publisher()).prepare();
    return { payload: this.payload, written: !this.prebuiltServed, warnings: [] };
  }

  async commit(): Promise<VersionInfo | null> {
    if (!this.prebuiltStaged) return (await this.publisher()).commit();
    this.prebuiltStaged = false;
    if (this.prebuiltServed) return null;
    this.prebuiltServed = true;
    return this.version;
  }

  async abandon(): Promise<void> {
    if (!this.prebuiltStaged) return (await this.publisher()).abandon();
    this.prebuiltStaged = false;
  }

  async serveCurrent(): Promise<ModelPayload | null> {
    if (this.real) return (await this.real).serveCurrent();
    return this.prebuiltServed ? this.payload : null;
  }

  async currentVersion(): Promise<VersionInfo | null> {
    if (this.real) return (await this.real).currentVersion();
    return this.prebuiltServed ? this.version : null;
  }

  async replaceSessions(sessions: SessionT[]): Promise<void> {
    this.sessions = sessions;
    if (this.real) await (await this.real).replaceSessions(sessions);
  }

  /** The sessions as the store answers them (SqlStore.readSessions): by token, each with its account's saved events. */
  async readSessions(): Promise<SessionRow[]> {
    if (this.real) return (await this.real).readSessions();
    const saved = new Map<string, Set<string>>();
    for (const s of this.sessions) {
      const account = s.account_id.toLowerCase();
      const events = saved.get(account) ?? saved.set(account, new Set()).get(account)!;
      for (const id of s.saved_event_ids) events.add(id.toLowerCase());
    }
    return this.sessions.map((s) => ({ token_sha256: s.token_sha256, account_id: s.account_id.toLowerCase(),
      expires_at: new Date(s.expires_at).toISOString(), saved: [...saved.get(s.account_id.toLowerCase())!].sort() }))
      .sort((a, b) => (a.token_sha256 < b.token_sha256 ? -1 : a.token_sha256 > b.token_sha256 ? 1 : 0));
  }

  async close(): Promise<void> {
    if (this.real) await (await this.real).close();
  }
}
