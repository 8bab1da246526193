/**
 * Account sessions: not content. The account system owns them; the store keeps them in tables of their own
 * that a content publish never touches. With the embedded store they come from a sessions file, replaced
 * whole on start and on every reload, and the serving thread answers lookups from an index of the stored rows.
 * On PostgreSQL the account system writes them and every lookup reads them there (`LiveSessions`).
 */
import * as v from 'valibot';
import { Session, type SessionT } from './bundle/bundle-schema.ts';
import { BundleError } from './bundle/findings.ts';
import { connectPostgres, isConnectionError, type PostgresDb } from '../db/postgres.ts';
import { SESSIONS } from '../db/schema.ts';
import type { SessionRow } from './store/sql-store.ts';

/** The format name a sessions file declares. */
export const SESSIONS_FORMAT = 'destination-sessions/1';

/** A sessions file: every account session (by the SHA-256 of its bearer token) and the events each account saved. */
export const SessionsFile = v.object({
  format: v.literal(SESSIONS_FORMAT, `must be "${SESSIONS_FORMAT}"`),
  sessions: v.array(Session),
});

/** Parses and validates a sessions file; BundleError lists every problem (paths as in a bundle). */
export function parseSessions(text: string): SessionT[] {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    throw new BundleError([{ path: '$', message: `not valid JSON: ${(err as Error).message}` }]);
  }
  const parsed = v.safeParse(SessionsFile, input, { abortEarly: false });
  if (!parsed.success) {
    throw new BundleError(parsed.issues.map((i) => ({
      path: `$${(i.path ?? []).map((p) => (typeof p.key === 'number' ? `[${p.key}]` : `.${String(p.key)}`)).join('')}`, message: i.message,
    })));
  }
  const seen = new Map<string, number>();
  const problems: { path: string; message: string }[] = [];
  parsed.output.sessions.forEach((s, i) => {
    const first = seen.get(s.token_sha256);
    if (first !== undefined) problems.push({ path: `$.sessions[${i}].token_sha256`, message: `the same token as $.sessions[${first}]` });
    seen.set(s.token_sha256, i);
  });
  if (problems.length > 0) throw new BundleError(problems);
  return parsed.output.sessions.map((s) => ({ ...s, account_id: s.account_id.toLowerCase(),
    saved_event_ids: s.saved_event_ids.map((id) => id.toLowerCase()) }));
}

/** What a valid account session says about one event. */
export interface SessionAnswer { account_id: string; is_saved: boolean }

/** Answers session lookups from stored rows, in memory. */
export class SessionIndex {
  private readonly byToken: Map<string, { account_id: string; expiresMs: number; saved: Set<string> }>;
  readonly size: number;

  constructor(rows: readonly SessionRow[]) {
    this.byToken = new Map(rows.map((r) => [r.token_sha256, { account_id: r.account_id, expiresMs: Date.parse(r.expires_at),
      saved: new Set(r.saved) }]));
    this.size = this.byToken.size;
  }

  /** The unexpired session with this token hash and whether it saved one of the events; null when there is none. */
  lookup(tokenSha256: string, eventIds: readonly string[], now: Date): SessionAnswer | null {
    const s = this.byToken.get(tokenSha256);
    if (!s || s.expiresMs <= now.getTime()) return null;
    return { account_id: s.account_id, is_saved: eventIds.some((id) => s.saved.has(id)) };
  }
}

/** Thrown when sessions cannot be looked up (the database is unreachable): the answer is unknown, never guessed. */
export class SessionsUnavailableError extends Error {}

/**
 * Answers session lookups from PostgreSQL, one query per lookup, so a session the account system writes (or a
 * saved event) counts from the next request on. Nothing is cached. A database that cannot be reached makes
 * the lookup throw SessionsUnavailableError; postgres.js reconnects on the next one.
 */
export class LiveSessions {
  private readonly db: PostgresDb;

  constructor(databaseUrl: string) {
    this.db = connectPostgres(databaseUrl, { max: 4, connectTimeoutS: 2, applicationName: 'destination-map-content sessions' });
  }

  /** The unexpired session with this token hash and whether it saved one of the events; null when there is none. */
  async lookup(tokenSha256: string, eventIds: readonly string[], now: Date): Promise<SessionAnswer | null> {
    try {
      const { rows } = await this.db.query<SessionAnswer>(SESSIONS.savedEvent, [tokenSha256, eventIds, now.toISOString()]);
      return rows[0] ? { account_id: rows[0].account_id, is_saved: rows[0].is_saved } : null;
    } catch (err) {
      if (isConnectionError(err)) throw new SessionsUnavailableError(`the sessions database cannot be reached (${(err as Error).message})`);
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
