/**
 * `reload`, run as a child process through the same runtime entry as the server it reloads: it finds the
 * server's pid in its data directory and sends SIGHUP, which publishes (the server logs "publishing" with
 * trigger SIGHUP). The server logs its pid on its `listening` line and writes it to `server.pid` only while it
 * owns the directory, removing it when it stops. A stale pid file (one that names a live process that owns no
 * lock, here this test's own) exits 1 and signals nothing; so does a data directory with no server.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { askOwner, lockDataDir, pidFilePath, readPidFile } from '../src/content/store/data-dir.ts';
import { RUNTIMES, runToExit, startServer, type RunningServer, type Runtime } from './helpers/server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Waits until `pattern` is in the server's output, or fails saying what it holds. */
async function waitForLog(server: RunningServer, pattern: RegExp, timeoutMs = 20_000): Promise<void> {
  const began = performance.now();
  while (!pattern.test(server.output())) {
    if (performance.now() - began > timeoutMs) assert.fail(`no ${pattern} within ${timeoutMs} ms:\n${server.output().slice(-3000)}`);
    await sleep(50);
  }
}

/** The JSON log lines of an output whose msg is `msg`. */
const logLines = (output: string, msg: string) => output.split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l));

let dir: string;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'dmcs-reload-')); });
after(() => rm(dir, { recursive: true, force: true }));

for (const runtime of ['node', 'bun'] as const satisfies readonly Runtime[]) {
  describe(`reload on ${runtime}`, () => {
    let server: RunningServer;
    let dataDir: string;
    before(async () => {
      dataDir = join(dir, `${runtime}-data`);
      server = await startServer(runtime, ['--data-dir', dataDir]);
    });
    after(() => server?.stop());

    test('the listening line and server.pid name the server\'s own pid (not a parent\'s)', async () => {
      const [listening] = logLines(server.output(), 'listening');
      assert.equal(listening.pid, server.child.pid);
      assert.equal(await readFile(pidFilePath(dataDir), 'utf8'), `${server.child.pid}\n`);
      assert.equal(await askOwner(dataDir), server.child.pid, 'the lock answers the same pid');
    });

    test('reload sends SIGHUP to it: it publishes, with trigger SIGHUP, and keeps serving', async () => {
      const before = logLines(server.output(), 'publishing').length;
      const run = await runToExit(runtime, ['reload', '--data-dir', dataDir]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^sent SIGHUP to the server on ${dataDir} \\(pid ${server.child.pid}\\)`));
      await waitForLog(server, /"msg":"content (unchanged|published)","trigger":"SIGHUP"/);
      const publishing = logLines(server.output(), 'publishing');
      assert.equal(publishing.length, before + 1);
      assert.equal(publishing.at(-1).trigger, 'SIGHUP');
      assert.equal((await fetch(`${server.base}/readyz`)).status, 200);
    });

    test('DATA_DIR names the directory as --data-dir does', async () => {
      const run = spawnSync(RUNTIMES[runtime][0], [...RUNTIMES[runtime].slice(1), 'reload'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir },
        encoding: 'utf8', timeout: 30_000 });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`\\(pid ${server.child.pid}\\)`));
      await waitForLog(server, /"msg":"publishing","trigger":"SIGHUP"[\s\S]*"msg":"publishing","trigger":"SIGHUP"/);
    });
  });
}

describe('reload refuses', () => {
  test('a stale pid file that names a live process holding no lock (this test\'s own): exit 1, no signal', async () => {
    const dataDir = join(dir, 'stale');
    await mkdir(dataDir);
    await writeFile(pidFilePath(dataDir), `${process.pid}\n`);
    let hups = 0;
    const count = () => { hups++; };
    process.on('SIGHUP', count);
    try {
      const run = await runToExit('node', ['reload', '--data-dir', dataDir]);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, new RegExp(`^error: no server runs on the data directory ${dataDir}: .*server\\.pid names pid ${process.pid}, but no ` +
        'process holds the directory\'s lock .*nothing was signalled'));
      await sleep(200);
      assert.equal(hups, 0, 'this process got no SIGHUP');
    } finally {
      process.off('SIGHUP', count);
    }
  });

  test('a pid file that is not the lock owner\'s: exit 1, no signal', async () => {
    const dataDir = join(dir, 'other-owner');
    // This process owns the lock; the pid file names the parent process, alive and not the owner.
    const lock = await lockDataDir(dataDir);
    assert.ok(lock);
    try {
      assert.equal(await readPidFile(dataDir), null, 'taking the lock removed no file, there was none');
      await writeFile(pidFilePath(dataDir), `${process.ppid}\n`);
      const run = await runToExit('node', ['reload', '--data-dir', dataDir]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`^error: process ${process.pid} owns the data directory .* but is not serving yet`));
    } finally {
      await lock.release();
    }
  });

  test('a new owner of the directory removes the pid file an earlier one left', async () => {
    const dataDir = join(dir, 'left');
    await mkdir(dataDir);
    await writeFile(pidFilePath(dataDir), '12345\n');
    const lock = await lockDataDir(dataDir);
    try {
      assert.equal(existsSync(pidFilePath(dataDir)), false);
    } finally {
      await lock!.release();
    }
  });

  test('a directory no server runs on, and bad arguments', async () => {
    const none = await runToExit('node', ['reload', '--data-dir', join(dir, 'nothing')]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^error: no server runs on the data directory .*nothing: no process holds its lock; nothing was signalled/);
    for (const args of [['reload', '--data-dir'], ['reload', 'extra'], ['reload', '--port', '1']]) {
      const run = await runToExit('node', args);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, /^error: .*\n\nUsage: npm start -- reload/, args.join(' '));
    }
  });
});

describe('a second server on the same data directory', () => {
  let owner: RunningServer;
  let second: RunningServer;
  let dataDir: string;
  before(async () => {
    dataDir = join(dir, 'shared');
    owner = await startServer('node', ['--data-dir', dataDir]);
    second = await startServer('node', ['--data-dir', dataDir]);
  });
  after(async () => {
    await second?.stop();
    await owner?.stop();
  });

  test('writes no pid file: reload signals the owner, and the owner removes its file when it stops', async () => {
    assert.equal(await readPidFile(dataDir), owner.child.pid);
    const run = await runToExit('node', ['reload', '--data-dir', dataDir]);
    assert.equal(run.code, 0, run.stderr);
    await waitForLog(owner, /"msg":"publishing","trigger":"SIGHUP"/);
    assert.doesNotMatch(second.output(), /"msg":"publishing"/);
    await second.stop();
    assert.equal(await readPidFile(dataDir), owner.child.pid, 'the second server left the owner\'s file alone');
    assert.equal(await owner.stop(), 0);
    assert.equal(existsSync(pidFilePath(dataDir)), false);
    const after = await runToExit('node', ['reload', '--data-dir', dataDir]);
    assert.equal(after.code, 1);
  });
});
