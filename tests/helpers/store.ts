/**
 * Fresh in-memory content stores for tests, opened from a cached empty database: PGlite's initdb runs once
 * per test run (the tarball is kept in TEST_SCRATCH_DIR), not once per store, which saves seconds per file.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionT } from '../../src/content/bundle/bundle-schema.ts';
import { ContentStore, type ContentStoreOptions } from '../../src/content/content-store.ts';
import { openDb } from '../../src/db/pglite.ts';
import { MIGRATIONS } from '../../src/db/schema.ts';
import { SqlStore } from '../../src/content/store/sql-store.ts';

let empty: Promise<Blob> | undefined;

/** The empty, migrated database as a data-directory tarball, made once and shared through a file. */
export function emptyDatabase(): Promise<Blob> {
  empty ??= (async () => {
    const dir = process.env.TEST_SCRATCH_DIR ?? join(tmpdir(), 'dmcs-test-empty-db');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `empty-db-${MIGRATIONS.length}.tar.gz`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const db = await openDb();
    await SqlStore.open(db);
    const blob = await db.dumpDataDir('gzip');
    await db.close();
    const temporary = `${file}.${randomUUID()}.tmp`;
    writeFileSync(temporary, new Uint8Array(await blob.arrayBuffer()));
    renameSync(temporary, file);
    return blob;
  })();
  return empty;
}

/** A new, empty, in-memory store (its own PGlite). */
export async function openEmptyStore(options: ContentStoreOptions = {}): Promise<ContentStore> {
  return ContentStore.open({ emptyDatabase: await emptyDatabase(), ...options });
}

/** A bundle's text without its `sessions` (account data, not content), and those sessions. */
export function splitSessions(text: string): { bundle: string; sessions: SessionT[] | null } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { bundle: text, sessions: null };
  }
  if (!parsed || typeof parsed !== 'object' || !('sessions' in parsed)) return { bundle: text, sessions: null };
  const { sessions, ...rest } = parsed as { sessions: SessionT[] };
  return { bundle: JSON.stringify(rest), sessions };
}

/** Publishes a fixture (a bundle with its sessions in it, as tests build them) into a store. */
export async function publishFixture(store: ContentStore, text: string): Promise<void> {
  const { bundle, sessions } = splitSessions(text);
  if (sessions) await store.setSessions(sessions);
  await store.publish(bundle);
}
