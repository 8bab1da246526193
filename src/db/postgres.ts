/**
 * A real PostgreSQL as the content store's `Db`, through postgres.js: a small pool per thread that uses it.
 * The store's SQL is the same as on PGlite; bulk loads go in with `COPY … FROM STDIN`, streamed.
 *
 * postgres.js reconnects by itself: a query sent while the server is away fails (ECONNREFUSED and the like),
 * and the next one opens a new connection. `isConnectionError` tells those failures from the server's own.
 */
import postgres from 'postgres';
import type { Db, DbTx } from './db.ts';

/** How to connect. */
export interface PostgresOptions {
  /** Connections in the pool (default 2: a publish and a lookup at once). */
  max?: number;
  /** Seconds to wait for a connection before a query fails (default 5). */
  connectTimeoutS?: number;
  /** A name the server shows for these connections (`pg_stat_activity.application_name`). */
  applicationName?: string;
}

/** A PostgreSQL pool as the store's `Db`, with LISTEN and NOTIFY. */
export interface PostgresDb extends Db {
  /** Calls `onNotify` with each notification on `channel`, and `onListen` each time the LISTEN is (re)established. */
  listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<{ unlisten(): Promise<void> }>;
  notify(channel: string, payload: string): Promise<void>;
}

type Sql = postgres.Sql | postgres.TransactionSql;

function txOf(sql: Sql): DbTx {
  return {
    async query<T>(text: string, params: unknown[] = []) {
      // With no parameters postgres.js would use the simple protocol; the store's statements are single ones.
      const rows = await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { simple: false } as postgres.UnsafeQueryOptions);
      return { rows: [...rows] as T[] };
    },
    async exec(text: string) {
      return sql.unsafe(text).simple();
    },
    async copyIn(text: string, data: string) {
      const stream = await sql.unsafe(text).writable();
      // 'finish' comes once the server has stored the rows; a refused row arrives as 'error'.
      await new Promise<void>((resolve, reject) => {
        stream.on('error', reject);
        stream.on('finish', resolve);
        stream.end(data);
      });
    },
  };
}

/** Connects to the PostgreSQL at `url` (no connection is opened until the first query). */
export function connectPostgres(url: string, options: PostgresOptions = {}): PostgresDb {
  const sql = postgres(url, {
    max: options.max ?? 2,
    connect_timeout: options.connectTimeoutS ?? 5,
    onnotice: () => {},
    // Timestamps come back as Date, as from PGlite; 64-bit integers (counts, sequences) as strings, which the store converts.
    connection: { application_name: options.applicationName ?? 'destination-map-content' },
  });
  return {
    ...txOf(sql),
    transaction: <T>(fn: (tx: DbTx) => Promise<T>) => sql.begin((tx) => fn(txOf(tx))) as Promise<T>,
    async listen(channel, onNotify, onListen) {
      const meta = await sql.listen(channel, onNotify, onListen);
      return { unlisten: () => meta.unlisten() };
    },
    async notify(channel, payload) {
      await sql.notify(channel, payload);
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}

/** The error codes of a server that cannot be reached (as opposed to one that refused a statement). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

/** True when `err` says the database could not be reached or the connection was lost. */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown };
  return CONNECTION_CODES.has(String(e?.code ?? '')) || CONNECTION_CODES.has(String(e?.errno ?? ''));
}
