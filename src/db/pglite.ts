/**
 * Opening the embedded PGlite database that stores the content.
 */
import { PGlite } from '@electric-sql/pglite';
import { CREATE_SCHEMA } from './schema.ts';

/** The slice of PGlite the service uses; a real PostgreSQL client can stand in for it. */
export interface Db {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
  transaction<T>(fn: (tx: Pick<Db, 'query' | 'exec'>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Opens PGlite (in memory, or at `dataDir`) and makes sure the content schema exists. */
export async function openDb(dataDir?: string): Promise<Db> {
  const db = await PGlite.create(dataDir ? { dataDir } : {});
  await db.exec(CREATE_SCHEMA);
  return db as unknown as Db;
}
