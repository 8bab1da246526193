/**
 * The database the content store runs on, whichever it is: embedded PGlite (pglite.ts) or a real PostgreSQL
 * (postgres.ts). The store's SQL is the same on both; only how a bulk load reaches the server differs, so that
 * is a method of its own.
 */

/** What the store runs inside a transaction. */
export interface DbTx {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** Runs statements without parameters (several, separated by semicolons). */
  exec(sql: string): Promise<unknown>;
  /** Runs `sql`, a `COPY … FROM STDIN`, with `data` (COPY's text format: a row a line) as its input. */
  copyIn(sql: string, data: string): Promise<void>;
}

/** A database connection (PGlite's one, or a PostgreSQL pool). */
export interface Db extends DbTx {
  transaction<T>(fn: (tx: DbTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
