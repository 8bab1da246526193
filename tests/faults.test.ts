/**
 * Data-directory faults, injected into the real service process: a full disk, damaged or edited model caches, a
 * store that will not open, a stale or a live lock, a read-only directory, and a crash in the middle of a publish.
 * Each fault is a test asserting what the service must do (keep serving the right version, say what went wrong,
 * leave the directory usable and clean), on Node, and on Bun and Deno too where the fault reaches that runtime's own
 * parts (its file system's errors, the lock: see declaredOn in tests/helpers/server.ts).
 *
 * The disk and mount faults run the service inside a user and mount namespace (`unshare -rm`, no root
 * needed) that a holder process keeps alive, so that a tmpfs or a read-only bind mount outlives one start:
 * each start enters it with `nsenter`. Every test starts from a copy of one data directory made once (the
 * fixture bundle's store and cache), so PGlite's initdb runs only where a fault makes the service run it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { copyWithTimes } from './helpers/copy.ts';
import { F, makeFixture } from './helpers/fixture.ts';
import { rawRequest } from './helpers/http.ts';
import { assertDenoCanReach, declaredOn, reachableBy, RUNTIME_NAMES, RUNTIMES, type Runtime } from './helpers/server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Whether user and mount namespaces can be made here (the disk and mount faults need them). */
const UNSHARE = spawnSync('unshare', ['-rm', 'true']).status === 0 && spawnSync('nsenter', ['--version']).status === 0;
const NO_UNSHARE = 'needs `unshare -rm` and `nsenter` (unprivileged user and mount namespaces), which this machine does not allow';

/**
 * True when a test that needs the namespaces cannot run here and is skipped, saying why; in CI (`CI` set) such a test
 * fails instead: a run that skipped the disk and mount faults must not pass as if it had tried them. (util-linux,
 * which has both tools, is essential on Debian: what is missing is the kernel's permission, which no set-up grants.)
 */
function cannotUnshare(t: TestContext): boolean {
  if (UNSHARE) return false;
  if (process.env.CI) assert.fail(`${NO_UNSHARE}; CI runs every test, so this one fails rather than skip`);
  t.skip(NO_UNSHARE);
  return true;
}

/** Events of the large bundle: enough that its publish takes seconds, long enough to be killed in the middle of it. */
const LARGE_EVENTS = 20_000;
/** Events of the bundle that does not fit on the full-disk tests' tmpfs. */
const BIGGER_EVENTS = 10_000;
/**
 * The full-disk tests' tmpfs: the fixture's data directory (about 26 MB) fits with room to spare, the bigger bundle's
 * (about 56 MB) does not, and the disk fills while its events are written.
 */
const TMPFS_SIZE = '33m';

/** What a data directory holds after its owner stopped cleanly: the store, its caches, the record of the clean close. */
const STOPPED = ['model', 'store', 'store-closed.json'];

/** The log line that ends a publish started by SIGHUP (its message in group 1). */
const PUBLISH_OUTCOME =
  /"msg":"(content published|content unchanged|the publish failed; the current version keeps serving|the bundle was refused[^"]*)"/;
/** The message of a publish that failed for another reason than the bundle. */
const PUBLISH_FAILED = 'the publish failed; the current version keeps serving';

/** Requests whose answers must not change across a fault: both maps' content and events. */
const PATHS = [
  `/maps/${F.map}?markers=true`,
  `/maps/${F.pacific}?markers=true&categories=true`,
  `/events?map_id=${F.map}&from=2026-01-01T00:00:00Z&to=2029-01-01T00:00:00Z&limit=200`,
  `/events?map_id=${F.pacific}&from=2026-01-01T00:00:00Z&to=2029-01-01T00:00:00Z&limit=200`,
];

/** A bundle's text, without the sessions the fixture carries (they are not content). */
function bundleText(events?: number): string {
  const { sessions: _sessions, ...bundle } = makeFixture(events === undefined ? {} : { events });
  return JSON.stringify(bundle);
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One parsed log line. */
type LogLine = { level?: string; msg?: string; [key: string]: unknown };

/** A service process. */
interface Service {
  child: ChildProcess;
  output(): string;
  /** The exit code, or the signal that ended it. */
  exited: Promise<number | string | null>;
  running(): boolean;
  /** http://127.0.0.1:<port>, once `ready` resolved. */
  base: string;
}

/** A user and mount namespace kept alive by a holder process; services started `within` it see its mounts. */
interface Namespace { pid: number; close(): Promise<void> }

/** What one test started and made; `close` ends and removes all of it. */
class Scope {
  readonly services: Service[] = [];
  readonly namespaces: Namespace[] = [];
  readonly dirs: string[] = [];

  async close(): Promise<void> {
    for (const s of this.services) {
      if (s.running()) s.child.kill('SIGKILL');
      await s.exited;
    }
    for (const ns of this.namespaces) await ns.close();
    for (const dir of this.dirs) await rm(dir, { recursive: true, force: true });
  }
}

/** Starts the service with `args` (outside any namespace, or inside `within`), without waiting for anything. */
function launch(scope: Scope, runtime: Runtime, args: string[], within?: Namespace): Service {
  assertDenoCanReach(runtime, args);
  const [cmd, ...rest] = RUNTIMES[runtime];
  const argv = [...rest, '--port', '0', '--host', '127.0.0.1', '--log-level', 'info', '--fixed-time', F.now.toISOString(), ...args];
  // The flags win over the environment; NO_COLOR keeps Deno's uncaught-error report readable in a failure message.
  const env = { ...process.env, PORT: '', HOST: '', LOG_LEVEL: '', NO_COLOR: '1' };
  // nsenter without --fork executes the service itself: signals sent to the child reach the service.
  const child = within
    ? spawn('nsenter', ['-t', String(within.pid), '-U', '-m', '--preserve-credentials', `--wd=${ROOT}`, cmd, ...argv], { cwd: ROOT, env })
    : spawn(cmd, argv, { cwd: ROOT, env });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const running = () => child.exitCode === null && child.signalCode === null;
  const service: Service = { child, output: () => out, exited, running, base: '' };
  scope.services.push(service);
  return service;
}

/** Waits until `re` matches the service's output; fails when the service exits first or it takes too long. */
async function waitFor(service: Service, re: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const m = re.exec(service.output());
    if (m) return m;
    if (!service.running()) {
      throw new Error(`the service exited (${service.child.exitCode ?? service.child.signalCode}) before ${re}:\n${service.output()}`);
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${re}:\n${service.output()}`);
    await sleep(20);
  }
}

/** Waits until the service listens and its content is loaded. */
async function ready(service: Service): Promise<Service> {
  const port = (await waitFor(service, /"msg":"listening".*?"port":(\d+)/))[1];
  await waitFor(service, /"msg":"content loaded"/);
  service.base = `http://127.0.0.1:${port}`;
  return service;
}

/** `serving` once the service serves, or how it failed to (`exited with <code>`). */
function servesOrExits(service: Service): Promise<string> {
  return Promise.race([ready(service).then(() => 'serving', (err: Error) => `did not serve: ${err.message}`),
    service.exited.then((code) => `exited with ${code}`)]);
}

/** Starts the service and waits until it serves. */
function start(scope: Scope, runtime: Runtime, args: string[], within?: Namespace): Promise<Service> {
  return ready(launch(scope, runtime, args, within));
}

/** SIGTERM, and the exit code. */
async function stop(service: Service): Promise<number | string | null> {
  if (service.running()) service.child.kill('SIGTERM');
  return service.exited;
}

/** SIGKILL, and waits for the exit. */
async function kill9(service: Service): Promise<void> {
  service.child.kill('SIGKILL');
  assert.equal(await service.exited, 'SIGKILL');
}

/** The service's log lines. */
function logOf(service: Service): LogLine[] {
  return service.output().split('\n').filter((l) => l.startsWith('{')).flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
}

/** The messages of the service's warnings. */
const warningsOf = (service: Service) => logOf(service).filter((l) => l.level === 'warn').map((l) => String(l.msg));

/** The `content loaded` line. */
function loadedLine(service: Service): LogLine {
  const line = logOf(service).find((l) => l.msg === 'content loaded');
  assert.ok(line, `no "content loaded" line:\n${service.output()}`);
  return line;
}

/** The bodies of PATHS, each required to be a 200. */
async function answers(service: Service): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of PATHS) {
    const res = await rawRequest(`${service.base}${path}`);
    assert.equal(res.status, 200, `${path}: ${res.body}`);
    out[path] = res.body.toString();
  }
  return out;
}

/** What the service says at /readyz, with the HTTP status as `http_status`. */
async function readyz(service: Service): Promise<any> {
  const res = await rawRequest(`${service.base}/readyz`);
  return { http_status: res.status, ...JSON.parse(res.body.toString()) };
}

/** A namespace (`unshare -rm`) whose root ran `setup` (sh, with `vars` in its environment), kept alive until the scope closes. */
async function namespace(scope: Scope, setup: string, vars: Record<string, string>): Promise<Namespace> {
  const holder = spawn('unshare', ['-rm', 'sh', '-c', `set -e\n${setup}\necho ready\nexec sleep 3600`], { env: { ...process.env, ...vars } });
  let out = '';
  holder.stdout.on('data', (d) => (out += d));
  holder.stderr.on('data', (d) => (out += d));
  const exited = once(holder, 'exit');
  const ns: Namespace = {
    pid: holder.pid!,
    async close() {
      if (holder.exitCode === null && holder.signalCode === null) holder.kill('SIGKILL');
      await exited;
    },
  };
  scope.namespaces.push(ns);
  const end = Date.now() + 30_000;
  while (!out.includes('ready\n')) {
    if (holder.exitCode !== null) throw new Error(`the namespace setup failed (${holder.exitCode}):\n${out}`);
    if (Date.now() > end) throw new Error(`the namespace setup timed out:\n${out}`);
    await sleep(10);
  }
  return ns;
}

/** Runs `script` (sh, with `vars` in its environment) inside the namespace; returns its output. */
function inNamespace(ns: Namespace, script: string, vars: Record<string, string>): string {
  const run = spawnSync('nsenter', ['-t', String(ns.pid), '-U', '-m', '--preserve-credentials', 'sh', '-c', script],
    { env: { ...process.env, ...vars }, encoding: 'utf8' });
  assert.equal(run.status, 0, `${script}: ${run.stderr}`);
  return run.stdout.trim();
}

/** What identifies a store directory (the inodes of the directory and its PG_VERSION): a store removed and made anew differs. */
const STORE_IDENTITY = 'stat -c %i "$DATA/store" "$DATA/store/PG_VERSION"';

/** Replaces a file the way a deploy does (a temporary file renamed into place). */
async function replaceFile(path: string, text: string): Promise<void> {
  await writeFile(`${path}.new`, text);
  await rename(`${path}.new`, path);
}

/** Checks every cache in DATA_DIR/model against its manifest (and that nothing else is there); returns their names. */
async function verifyCaches(dataDir: string): Promise<string[]> {
  const model = join(dataDir, 'model');
  const names = (await readdir(model)).sort();
  for (const name of names) {
    assert.match(name, /^v\d+-[0-9a-f]{16}$/, `model/ holds only finished caches, not ${name}`);
    const dir = join(model, name);
    assert.deepEqual((await readdir(dir)).sort(), ['content.jsonl', 'event-places.bin', 'event-tables.bin', 'manifest.json'], dir);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, string> };
    assert.deepEqual(Object.keys(manifest.files).sort(), ['content.jsonl', 'event-places.bin', 'event-tables.bin'], `${dir}/manifest.json`);
    for (const [file, sum] of Object.entries(manifest.files)) {
      assert.equal(sha256(await readFile(join(dir, file))), sum, `${dir}/${file} matches the SHA-256 in its manifest`);
    }
  }
  return names;
}

// Made once for the whole file: the bundles, and a data directory holding the small bundle's store and cache.
let work = '';
let smallText = '';
let biggerText = '';
let largeText = '';
let seed = '';
/** The small bundle's version as the seed's start served it, and its answers. */
let A: { version: number; content_version: string; answers: Record<string, string> };

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dmcs-faults-'));
  smallText = bundleText();
  biggerText = bundleText(BIGGER_EVENTS);
  largeText = bundleText(LARGE_EVENTS);
  const bundle = join(work, 'seed-bundle.json');
  await writeFile(bundle, smallText);
  seed = join(work, 'seed');
  const scope = new Scope();
  try {
    const service = await start(scope, 'node', ['--bundle', bundle, '--data-dir', seed]);
    const state = await readyz(service);
    A = { version: state.version, content_version: state.content_version, answers: await answers(service) };
    assert.equal(await stop(service), 0);
    assert.deepEqual((await readdir(seed)).sort(), STOPPED, 'a stopped service leaves its store, caches and clean-close record, and no lock');
  } finally {
    await scope.close();
  }
});

after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * A directory for one test on `runtime`, removed afterwards: `data` (a copy of the seed, or empty) and `bundle` (the
 * small bundle's file).
 */
async function caseDir(t: TestContext, scope: Scope, runtime: Runtime, options: { empty?: boolean } = {}): Promise<{ data: string; bundle: string }> {
  t.after(() => scope.close());
  const dir = await mkdtemp(join(reachableBy(runtime, work), 'case-'));
  scope.dirs.push(dir);
  const data = join(dir, 'data');
  if (options.empty) await mkdir(data);
  // Served without opening its store until a case's fault makes the service open it (damage, a full disk, a publish).
  else await copyWithTimes(seed, data);
  const bundle = join(dir, 'bundle.json');
  await writeFile(bundle, smallText);
  return { data, bundle };
}

/**
 * Serves the small bundle from a copy of the seed on a small tmpfs (in a namespace of its own), then publishes
 * the bigger one (SIGHUP), which does not fit; returns the namespace, the service and how the publish ended.
 */
async function publishOnFullDisk(scope: Scope, runtime: Runtime, data: string, bundle: string):
  Promise<{ ns: Namespace; service: Service; outcome: string }> {
  const ns = await namespace(scope, `mount -t tmpfs -o size=${TMPFS_SIZE} tmpfs "$DATA"\ncp -a "$SEED/." "$DATA/"`, { DATA: data, SEED: seed });
  const service = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data], ns);
  assert.equal(loadedLine(service).source, 'store');
  assert.deepEqual(await answers(service), A.answers);
  await replaceFile(bundle, biggerText);
  service.child.kill('SIGHUP');
  return { ns, service, outcome: (await waitFor(service, PUBLISH_OUTCOME, 120_000))[1] };
}

// One runtime after the other: the tests are CPU-bound (PGlite's initdb, publishes), so on a small machine they
// take no less time side by side, and time less predictably.
for (const runtime of RUNTIME_NAMES) {
  describe(`data-directory faults on ${runtime}`, () => {
    if (declaredOn(runtime, 'runtime')) test('a publish that fills the disk fails with ENOSPC in the log and /readyz, the current version keeps serving, and a ' +
      'restart on that disk serves it instead of exiting', async (t) => {
      if (cannotUnshare(t)) return;
      const scope = new Scope();
      const { data, bundle } = await caseDir(t, scope, runtime);
      const { ns, service, outcome } = await publishOnFullDisk(scope, runtime, data, bundle);
      assert.equal(outcome, PUBLISH_FAILED, `the bigger bundle must not fit in ${TMPFS_SIZE}:\n${service.output()}`);
      const failure = logOf(service).find((l) => l.msg === PUBLISH_FAILED)!;
      assert.match(String(failure.error), /ENOSPC/, 'the log names ENOSPC');
      const state = await readyz(service);
      assert.equal(state.http_status, 200);
      assert.deepEqual([state.status, state.version, state.content_version, state.serving_last_good],
        ['ready', A.version, A.content_version, true]);
      assert.equal(state.last_publish.outcome, 'failed');
      assert.match(String(state.last_publish.error), /ENOSPC/, '/readyz last_publish.error names ENOSPC');
      assert.deepEqual(await answers(service), A.answers, 'the current version keeps serving, unchanged');
      await sleep(300);
      assert.ok(service.running(), 'the service did not exit');
      assert.equal(await stop(service), 0);

      const identity = inNamespace(ns, STORE_IDENTITY, { DATA: data });
      // A supervisor restarts it, the bundle file put back, on the same disk.
      await replaceFile(bundle, smallText);
      const again = launch(scope, runtime, ['--bundle', bundle, '--data-dir', data], ns);
      assert.equal(await servesOrExits(again), 'serving', `the restart must serve the stored version:\n${again.output()}`);
      assert.doesNotMatch(again.output(), /\[object Object\]/);
      const restarted = await readyz(again);
      assert.deepEqual([restarted.version, restarted.content_version], [A.version, A.content_version]);
      assert.deepEqual(await answers(again), A.answers);
      assert.equal(await stop(again), 0);
      assert.equal(inNamespace(ns, STORE_IDENTITY, { DATA: data }), identity, `the store was kept, not removed:\n${again.output()}`);
    });

    if (declaredOn(runtime, 'service')) test('a start on a full disk with a valid bundle serves it from a store kept in memory, with a warning', async (t) => {
      if (cannotUnshare(t)) return;
      const scope = new Scope();
      const { data, bundle } = await caseDir(t, scope, runtime, { empty: true });
      // An empty data directory on a tmpfs filled to the last byte.
      const ns = await namespace(scope, 'mount -t tmpfs -o size=8m tmpfs "$DATA"\ndd if=/dev/zero of="$DATA/filler" bs=64k 2>/dev/null || true',
        { DATA: data });
      const service = launch(scope, runtime, ['--bundle', bundle, '--data-dir', data], ns);
      assert.equal(await servesOrExits(service), 'serving', service.output());
      assert.doesNotMatch(service.output(), /\[object Object\]/);
      assert.ok(warningsOf(service).some((w) => /memory/.test(w)), `a warning says the store is kept in memory:\n${service.output()}`);
      const state = await readyz(service);
      assert.deepEqual([state.status, state.content_version], ['ready', A.content_version]);
      assert.deepEqual(await answers(service), A.answers);
      assert.equal(await stop(service), 0);
    });

    if (declaredOn(runtime, 'service')) test('a start on a full disk holding the store of an earlier start serves it (without opening it after a clean close, else from memory with a warning), and keeps the store',
      async (t) => {
        if (cannotUnshare(t)) return;
        const scope = new Scope();
        const { data, bundle } = await caseDir(t, scope, runtime);
        // The seed's store and cache on a tmpfs, and the rest of the tmpfs filled to the last byte.
        const ns = await namespace(scope, `mount -t tmpfs -o size=${TMPFS_SIZE} tmpfs "$DATA"\ncp -a "$SEED/." "$DATA/"\n` +
          'dd if=/dev/zero of="$DATA/filler" bs=64k 2>/dev/null || true', { DATA: data, SEED: seed });
        const identity = inNamespace(ns, STORE_IDENTITY, { DATA: data });
        // The seed's store was closed cleanly, and `cp -a` kept its files as they were: it is served without being opened.
        const unopened = launch(scope, runtime, ['--bundle', bundle, '--data-dir', data], ns);
        assert.equal(await servesOrExits(unopened), 'serving', unopened.output());
        assert.deepEqual([loadedLine(unopened).source, loadedLine(unopened).store_open], ['store', false], unopened.output());
        assert.deepEqual(await answers(unopened), A.answers);
        assert.equal(await stop(unopened), 0);
        // Without the record of that clean close, the store must be opened, on a disk with no room for PGlite to start.
        // (Filled again: the record's block would leave PGlite room enough to start.)
        inNamespace(ns, 'rm "$DATA/store-closed.json"\ndd if=/dev/zero of="$DATA/filler-2" bs=4k 2>/dev/null || true', { DATA: data });
        const service = launch(scope, runtime, ['--bundle', bundle, '--data-dir', data], ns);
        assert.equal(await servesOrExits(service), 'serving', service.output());
        assert.doesNotMatch(service.output(), /\[object Object\]/);
        assert.ok(warningsOf(service).some((w) => /memory/.test(w)), `a warning says the store is kept in memory:\n${service.output()}`);
        const state = await readyz(service);
        assert.deepEqual([state.status, state.version, state.content_version], ['ready', A.version, A.content_version]);
        assert.deepEqual(await answers(service), A.answers);
        assert.equal(await stop(service), 0);
        assert.equal(inNamespace(ns, STORE_IDENTITY, { DATA: data }), identity,
          `a full disk is no reason to remove the store:\n${service.output()}`);
      });

    for (const damage of ['event-tables.bin', 'content.jsonl'] as const) {
      const what = damage === 'event-tables.bin' ? '64 flipped bytes in event-tables.bin' : 'an edited content.jsonl';
      if (declaredOn(runtime, 'service')) test(`with ${what}, the next start serves exactly the same answers and rewrites a cache that verifies`, async (t) => {
        const scope = new Scope();
        // The copy of the seed holds the store and the cache its start wrote, verified here before the damage.
        const { data, bundle } = await caseDir(t, scope, runtime);
        const [cache] = await verifyCaches(data);
        const file = join(data, 'model', cache, damage);
        const bytes = await readFile(file);
        if (damage === 'event-tables.bin') {
          const at = Math.floor(bytes.length / 2);
          for (let i = at; i < at + 64; i++) bytes[i] ^= 0xff;
          await writeFile(file, bytes);
        } else {
          // An edit that still parses: another name for the main map.
          const edited = bytes.toString().replace('"name":"Main"', '"name":"Edited"');
          assert.notEqual(edited, bytes.toString());
          await writeFile(file, edited);
        }
        const second = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data]);
        assert.equal(loadedLine(second).source, 'store', 'rebuilt from the store, not published anew');
        assert.deepEqual(await answers(second), A.answers, 'the same answers as before the damage');
        assert.equal((await readyz(second)).content_version, A.content_version);
        assert.equal(await stop(second), 0);
        assert.deepEqual(await verifyCaches(data), [cache], 'the cache was rewritten, and verifies');
      });
    }

    if (declaredOn(runtime, 'service')) test('a store whose PG_VERSION is missing is rebuilt with a warning, and the next start does not rebuild it again', async (t) => {
      const scope = new Scope();
      const { data, bundle } = await caseDir(t, scope, runtime);
      await rm(join(data, 'store', 'PG_VERSION'));
      const first = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data]);
      assert.ok(warningsOf(first).some((w) => /did not open.*rebuilt/.test(w)), `a warning says the store was rebuilt:\n${first.output()}`);
      assert.equal(loadedLine(first).source, 'bundle');
      assert.deepEqual(await answers(first), A.answers);
      assert.equal(await stop(first), 0);

      const second = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data]);
      assert.deepEqual(warningsOf(second), [], 'no warning at all: the rebuilt store opens');
      assert.deepEqual([loadedLine(second).source, loadedLine(second).store_open], ['store', false],
        'the rebuilt store, closed cleanly, is served without being opened');
      assert.deepEqual(await answers(second), A.answers);
      assert.equal(await stop(second), 0);
      const kept = (await readdir(data)).sort();
      assert.equal(kept.length, 4, `model, store, its clean-close record and the store moved aside: ${kept}`);
      assert.deepEqual(kept.slice(0, 3), STOPPED);
      assert.match(kept[3]!, /^store\.damaged-\d{8}T\d{6}Z$/, 'the store that did not open is kept, not removed');
      assert.ok(warningsOf(first).some((w) => w.includes(kept[3]!)), 'the warning says where it went');
      await verifyCaches(data);
    });

    if (declaredOn(runtime, 'runtime')) test('a lock left by a process killed with SIGKILL is taken over, and nothing leaks into the data directory', async (t) => {
      const scope = new Scope();
      const { data, bundle } = await caseDir(t, scope, runtime);
      const killed = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data]);
      await kill9(killed);
      assert.ok((await readdir(data)).includes('lock.sock'), 'the killed process left its lock.sock behind');

      const next = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data]);
      assert.doesNotMatch(next.output(), /another running process owns/, 'the stale lock is taken over, not respected');
      assert.deepEqual(warningsOf(next), []);
      assert.equal(loadedLine(next).source, 'store');
      assert.deepEqual(await answers(next), A.answers);
      assert.deepEqual((await readdir(data)).sort(), [...STOPPED, 'lock.sock', 'server.pid'].sort(),
        'the data directory holds only the stopped directory\'s files (its store unopened), lock.sock and the pid of the process that owns it');
      assert.equal(await stop(next), 0);
      assert.deepEqual((await readdir(data)).sort(), STOPPED, 'a stopped service leaves no lock');
      await verifyCaches(data);
    });

    if (declaredOn(runtime, 'runtime')) test('a second service on a directory a live process owns serves the same content from the verified cache, and leaves nothing behind',
      async (t) => {
        const scope = new Scope();
        const { data, bundle } = await caseDir(t, scope, runtime);
        const owner = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data]);
        const second = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data]);
        assert.ok(warningsOf(second).some((w) => /another running process owns/.test(w)),
          `the second service says the directory is owned:\n${second.output()}`);
        assert.doesNotMatch(owner.output(), /another running process owns/);
        assert.equal(loadedLine(second).source, 'store', 'the stored version, from its verified cache, not the bundle anew');
        const [a, b] = [await readyz(owner), await readyz(second)];
        assert.deepEqual([b.version, b.content_version], [a.version, a.content_version]);
        assert.deepEqual(await answers(second), await answers(owner));
        assert.deepEqual(await answers(second), A.answers);
        assert.equal(await stop(second), 0);
        assert.deepEqual((await readdir(data)).sort(), [...STOPPED, 'lock.sock', 'server.pid'].sort(), 'the owner still holds its lock and its pid file');
        assert.equal(await stop(owner), 0);
        assert.deepEqual((await readdir(data)).sort(), STOPPED, 'no tmp-* or other directory is left');
        assert.equal((await verifyCaches(data)).length, 1);
      });

    if (declaredOn(runtime, 'runtime')) test('a read-only data directory holding a store and cache from an earlier start serves that content from the cache with a warning', async (t) => {
      if (cannotUnshare(t)) return;
      const scope = new Scope();
      const { data, bundle } = await caseDir(t, scope, runtime);
      const ns = await namespace(scope, 'mount --bind "$DATA" "$DATA"\nmount -o remount,bind,ro "$DATA"', { DATA: data });
      const service = launch(scope, runtime, ['--bundle', bundle, '--data-dir', data], ns);
      assert.equal(await servesOrExits(service), 'serving', service.output());
      assert.ok(warningsOf(service).some((w) => /cannot write|read-only|EROFS/i.test(w)),
        `a warning says the directory cannot be written:\n${service.output()}`);
      assert.equal(loadedLine(service).store_open, false, 'served from the verified cache, with no store made');
      const state = await readyz(service);
      assert.deepEqual([state.status, state.version, state.content_version], ['ready', A.version, A.content_version]);
      assert.deepEqual(await answers(service), A.answers);
      await sleep(300);
      assert.ok(service.running(), 'the service did not exit');
      assert.equal(await stop(service), 0);
      assert.deepEqual((await readdir(data)).sort(), STOPPED, 'nothing was written (the copy of the seed holds its record)');
    });

    if (declaredOn(runtime, 'service')) test('a crash in the middle of a publish leaves the store serving the version before it, and a later publish succeeds', async (t) => {
      const scope = new Scope();
      const { data, bundle } = await caseDir(t, scope, runtime);
      // At debug level the service logs each chunk of events written to the staged version.
      const first = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data, '--log-level', 'debug']);
      await replaceFile(bundle, largeText);
      first.child.kill('SIGHUP');
      // Killed while the large version is being written: once its first chunk is in the store, before the publish ends.
      const staging = await waitFor(first, /"msg":"publishing"[^]*"msg":"staging".*"events_staged":(\d+)/);
      assert.ok(Number(staging[1]) < LARGE_EVENTS, `killed before the last chunk was written (${staging[1]} events written)`);
      await kill9(first);
      assert.doesNotMatch(first.output(), PUBLISH_OUTCOME, 'killed in the middle of the publish');

      await replaceFile(bundle, smallText);
      const restarted = await start(scope, runtime, ['--bundle', bundle, '--data-dir', data]);
      assert.equal(loadedLine(restarted).source, 'store');
      const state = await readyz(restarted);
      assert.deepEqual([state.version, state.content_version], [A.version, A.content_version]);
      assert.deepEqual(await answers(restarted), A.answers);

      await replaceFile(bundle, largeText);
      restarted.child.kill('SIGHUP');
      assert.equal((await waitFor(restarted, PUBLISH_OUTCOME, 120_000))[1], 'content published', restarted.output());
      const published = await readyz(restarted);
      assert.equal(published.last_publish.outcome, 'published');
      assert.equal(published.content_version, sha256(largeText));
      assert.ok(published.version > A.version);
      assert.equal(await stop(restarted), 0);
      assert.deepEqual((await readdir(data)).sort(), STOPPED);
      assert.equal((await verifyCaches(data)).length, 2, 'the caches of both versions are kept, and verify');
    });
  });
}
