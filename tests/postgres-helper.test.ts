/**
 * The test command's throwaway PostgreSQL (tests/helpers/postgres.ts) starts from a checkout inside a private
 * directory (a `mktemp -d` clone, or one under /root) also as root, where the server runs as the user postgres,
 * which cannot enter that directory; it leaves nothing behind; and where the server's user cannot reach its files,
 * the error says why and what to do.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { packagedPostgres, stagePostgres, startThrowawayPostgres } from './helpers/postgres.ts';

const asRoot = process.getuid?.() === 0;

/** A new directory of mode `mode` (mkdir's own mode is cut by the umask). */
async function dirOfMode(path: string, mode: number): Promise<string> {
  await mkdir(path);
  await chmod(path, mode);
  return path;
}

describe('the throwaway PostgreSQL, from a checkout in a private directory', () => {
  let work: string;
  /** PostgreSQL's bin, lib and share inside a 0700 directory: the package as a private checkout holds it. */
  let privateNative: string;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dmcs-pghelper-'));
    await chmod(work, 0o755);
    const checkout = await dirOfMode(join(work, 'checkout'), 0o700);
    privateNative = join(checkout, 'native');
    await stagePostgres(await packagedPostgres(), privateNative);
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  test('starts and serves (as root, run as the user postgres, which cannot run it where it is), and stop leaves nothing behind', async () => {
    const tmp = await dirOfMode(join(work, 'tmp'), 0o755);
    const pg = await startThrowawayPostgres({ native: privateNative, tmp });
    try {
      const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
      try {
        const [row] = await sql<{ data: string; sum: number }[]>`SELECT current_setting('data_directory') AS data, 1 + 1 AS sum`;
        assert.equal(row.sum, 2);
        assert.ok(row.data.startsWith(tmp), `its data is in its temporary directory: ${row.data}`);
      } finally {
        await sql.end();
      }
    } finally {
      await pg.stop();
    }
    assert.deepEqual(readdirSync(tmp), [], 'stop removes its data and binaries');
    if (asRoot) {
      // Where it is, the server's user cannot run it (the defect, reproduced), so the start above proves the
      // helper's way round it; the user exists by now.
      const [uid, gid] = ['-u', '-g'].map((flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout));
      const direct = spawnSync(join(privateNative, 'bin', 'postgres'), ['-V'], { uid, gid, cwd: tmp });
      assert.equal((direct.error as NodeJS.ErrnoException | undefined)?.code, 'EACCES');
    }
  });

  // Declared only for root: only root runs the server as another user, so for anyone else this error cannot happen.
  if (asRoot) {
    test('as root, with a temporary directory the user postgres cannot enter, says why and what to do, and leaves nothing behind', async () => {
      const tmp = await dirOfMode(join(work, 'private-tmp'), 0o700);
      const error = await startThrowawayPostgres({ native: privateNative, tmp }).then(() => null, (err: Error) => err);
      assert.ok(error, 'it does not start');
      assert.match(error.message, /refuses to run as root, so it runs as the user postgres .* which cannot run .*EACCES/, 'why');
      assert.match(error.message, /every directory above it must be open to other users/, 'why');
      assert.match(error.message, /Set TMPDIR to such a directory .* or set DATABASE_URL/, 'what to do');
      assert.deepEqual(readdirSync(tmp), []);
    });
  }
});
