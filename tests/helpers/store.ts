/**
 * Fresh in-memory content stores for tests, opened from a cached empty database: PGlite's initdb runs once
 * per test run (the tarball is kept in TEST_SCRATCH_DIR), not once per store, which saves seconds per file.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContentStore } from '../../src/content/store.ts';
import { snapshotName } from '../../src/content/snapshot.ts';

let empty: Promise<Blob> | undefined;

/** The empty database (schema only) as a data-directory tarball, made once and shared through a file. */
function emptyDatabase(): Promise<Blob> {
  empty ??= (async () => {
    const dir = process.env.TEST_SCRATCH_DIR ?? join(tmpdir(), 'dmcs-test-empty-db');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${snapshotName('empty')}.tar.gz`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const store = await ContentStore.open();
    const blob = await store.dumpSnapshot();
    await store.close();
    const temporary = `${file}.${randomUUID()}.tmp`;
    writeFileSync(temporary, new Uint8Array(await blob.arrayBuffer()));
    renameSync(temporary, file);
    return blob;
  })();
  return empty;
}

/** A new, empty, in-memory store (its own PGlite). */
export async function openEmptyStore(): Promise<ContentStore> {
  return ContentStore.open({ snapshot: await emptyDatabase() });
}
