/**
 * What a self-hoster relies on: health checks, JSON access logs, settings, CORS origins, graceful
 * shutdown, refusing a bad bundle before the port opens, and running with no network at all. The
 * runtime part runs on Node, Bun and Deno over real ports.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/app.ts';
import type { ContentStore } from '../src/content/content-store.ts';
import { PUBLISHER_NICENESS } from '../src/content/publisher.ts';
import { openEmptyStore, publishFixture } from './helpers/store.ts';
import { createLogger } from '../src/utils/log.ts';
import { CACHE_CONTROL } from '../src/http/respond.ts';
import { parseConfig, usage } from '../src/serve/config.ts';
import { QUIET, readDemoBundle, readDemoSessions } from './helpers/app.ts';
import { F, makeFixture } from './helpers/fixture.ts';
import { rawRequest } from './helpers/http.ts';
import { declaredOn, RUNTIME_NAMES, RUNTIMES, runToExit, startServer, tmpdirFor, type RunningServer, type Runtime } from './helpers/server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const demo = await readDemoBundle();
const DEMO_MAP = demo.maps.find((m) => m.enabled && m.versions.length > 1)!.id;
const DEMO_MARKER = demo.markers.find((m) => m.map_id === DEMO_MAP && !m.version_ids)!.id;
const DEMO_SAVED_EVENT = (await readDemoSessions())[0].saved_event_ids[0];

describe('health checks', () => {
  test('/healthz answers while the content loads, /readyz says 503 until it is loaded, then 200; neither is cached', async () => {
    const store = await openEmptyStore();
    const app = createApp({ store, basePath: '/api', logger: QUIET });
    const get = async (path: string) => {
      const res = await app.fetch(new Request(`http://test.local${path}`));
      return { status: res.status, cache: res.headers.get('cache-control'), body: await res.json() };
    };
    assert.deepEqual(await get('/healthz'), { status: 200, cache: CACHE_CONTROL.none, body: { status: 'ok' } });
    assert.deepEqual(await get('/readyz'), { status: 503, cache: CACHE_CONTROL.none, body: { status: 'loading', current_version: null, not_loaded: null, last_publish: null } });
    assert.equal((await get(`/api/maps/${F.map}`)).status, 503, 'the API itself answers 503 while loading');
    await publishFixture(store, JSON.stringify(makeFixture()));
    try {
      const ready = await get('/readyz');
      assert.equal(ready.status, 200);
      assert.equal(ready.body.status, 'ready');
      assert.equal(ready.body.content_version, store.model.checksum);
      assert.equal(ready.body.version, 1);
      assert.equal(ready.body.serving_last_good, false);
      assert.equal(ready.body.last_publish.outcome, 'published');
      assert.equal((await get('/healthz')).status, 200);
      assert.equal((await get(`/api/maps/${F.map}`)).status, 200);
      const head = await app.fetch(new Request('http://test.local/readyz', { method: 'HEAD' }));
      assert.equal(head.status, 200);
      assert.equal((await head.arrayBuffer()).byteLength, 0);
    } finally {
      await store.close();
    }
  });
});

describe('access logs and CORS origins', () => {
  let store: ContentStore;
  before(async () => {
    store = await openEmptyStore();
    await publishFixture(store, JSON.stringify(makeFixture()));
  });
  after(async () => { await store?.close(); });

  test('every request writes one JSON line with its request id, method, path, status, bytes and time', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => lines.push(...line.split('\n')));
    const app = createApp({ store, now: () => F.now, logger });
    const targets = [`/maps/${F.map}?info=true`, '/nowhere', `/events?map_id=${F.map}&limit=0`];
    const ids: string[] = [];
    for (const target of targets) ids.push((await app.fetch(new Request(`http://test.local${target}`))).headers.get('x-request-id')!);
    await app.fetch(new Request(`http://test.local/healthz`, { headers: { 'x-request-id': 'probe-1' } }));
    assert.equal(lines.length, 0, 'access lines are held back briefly, to be written in one batch');
    logger.flush();
    assert.equal(lines.length, 4);
    const entries = lines.map((l) => JSON.parse(l));
    assert.deepEqual(entries.map((e) => [e.level, e.msg, e.method, e.path, e.status]), [
      ['info', 'request', 'GET', targets[0], 200], ['info', 'request', 'GET', targets[1], 404],
      ['info', 'request', 'GET', targets[2], 400], ['info', 'request', 'GET', '/healthz', 200],
    ]);
    assert.deepEqual(entries.map((e) => e.request_id), [...ids, 'probe-1']);
    for (const e of entries) {
      assert.ok(!Number.isNaN(Date.parse(e.time)));
      assert.equal(typeof e.ms, 'number');
      assert.equal(typeof e.bytes, 'number');
    }
    assert.ok(entries[0].bytes > 0);
  });

  test('a log level above info writes no access lines', async () => {
    const lines: string[] = [];
    const app = createApp({ store, logger: createLogger('warn', (line) => lines.push(line)) });
    await app.fetch(new Request(`http://test.local/maps/${F.map}`));
    assert.deepEqual(lines, []);
  });

  test('with a list of CORS origins, a listed Origin is echoed with Vary: Origin and others get no CORS grant', async () => {
    const app = createApp({ store, now: () => F.now, logger: QUIET, corsOrigins: ['https://kiosk.example', 'https://www.example'] });
    const get = (origin?: string, method = 'GET') => app.fetch(new Request(`http://test.local/maps/${F.map}`,
      { method, headers: origin ? { origin } : {} }));
    const listed = await get('https://www.example');
    assert.equal(listed.headers.get('access-control-allow-origin'), 'https://www.example');
    assert.match(listed.headers.get('vary')!, /\bOrigin\b/);
    const other = await get('https://evil.example');
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    assert.match(other.headers.get('vary')!, /\bOrigin\b/);
    const preflight = await get('https://kiosk.example', 'OPTIONS');
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://kiosk.example');
    const error = await app.fetch(new Request('http://test.local/nowhere', { headers: { origin: 'https://kiosk.example' } }));
    assert.equal(error.headers.get('access-control-allow-origin'), 'https://kiosk.example');
  });
});

describe('settings', () => {
  test('log level, CORS origins and a fixed time come from flags or the environment, and bad values are refused', () => {
    const config = parseConfig(['--log-level', 'WARN', '--cors-origin', 'https://a.example, https://b.example:8443'],
      { FIXED_TIME: '2027-03-01T12:00:00+01:00', CORS_ORIGIN: '*' });
    assert.ok(config !== 'help');
    assert.equal(config.logLevel, 'warn');
    assert.deepEqual(config.corsOrigins, ['https://a.example', 'https://b.example:8443']);
    assert.equal(config.fixedTime?.toISOString(), '2027-03-01T11:00:00.000Z');
    const defaults = parseConfig([], {});
    assert.ok(defaults !== 'help');
    assert.deepEqual([defaults.logLevel, defaults.corsOrigins, defaults.fixedTime, defaults.dataDir], ['info', '*', undefined, '.data']);
    assert.throws(() => parseConfig(['--log-level', 'loud'], {}), /log level must be one of debug, info, warn, error, silent/);
    assert.throws(() => parseConfig([], { CORS_ORIGIN: 'example.org' }), /CORS origin must be \* or origins/);
    assert.throws(() => parseConfig(['--fixed-time', 'tomorrow'], {}), /fixed time must be an RFC 3339/);
  });

  test('--help and the README document every setting with its environment variable', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const settings = [['--bundle', 'BUNDLE_PATH'], ['--port', 'PORT'], ['--host', 'HOST'], ['--base-path', 'BASE_PATH'],
      ['--data-dir', 'DATA_DIR'], ['--log-level', 'LOG_LEVEL'], ['--cors-origin', 'CORS_ORIGIN'], ['--fixed-time', 'FIXED_TIME'],
      ['--sessions', 'SESSIONS_PATH'], ['--watch', 'WATCH'], ['--headers-timeout', 'HEADERS_TIMEOUT'], ['--request-timeout', 'REQUEST_TIMEOUT'],
      ['--keep-alive-timeout', 'KEEP_ALIVE_TIMEOUT'], ['--max-connections', 'MAX_CONNECTIONS'], ['--shutdown-timeout', 'SHUTDOWN_TIMEOUT']];
    for (const [flag, env] of settings) {
      assert.match(usage(), new RegExp(`${flag} .*\\[${env}\\]`), `--help: ${flag} [${env}]`);
      assert.ok((readme.includes(`\`${flag} `) || readme.includes(`\`${flag}\``)) && readme.includes(`\`${env}\``), `README: ${flag} ${env}`);
    }
    for (const path of ['/healthz', '/readyz']) {
      assert.ok(usage().includes(path));
      assert.ok(readme.includes(path));
    }
  });
});

describe('the README', () => {
  test('every command in its "Running it elsewhere" sections is one a test runs, or is marked not run here', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const deployment = await readFile(join(ROOT, 'docs/deployment.md'), 'utf8');
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const section = readme.slice(readme.indexOf('## Running it elsewhere'), readme.indexOf('## Decisions where the spec is silent'));
    const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
    assert.equal(blocks.length, 3);
    // The runtime scripts are exactly the commands the tests start the service with.
    const bin = (cmd: string) => cmd.split('/').pop()!;
    for (const runtime of ['bun', 'deno'] as const) {
      const [cmd, ...args] = RUNTIMES[runtime];
      assert.equal(pkg.scripts[`start:${runtime}`], [bin(cmd), ...args].join(' '), `npm run start:${runtime}`);
    }
    for (const block of blocks) {
      const notRun = /^# Not run here/m.test(block);
      for (const line of block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l && !l.startsWith('#'))) {
        if (notRun) continue;
        if (/^npm run start:(bun|deno)$/.test(line)) continue;
        // The binary's commands are the ones tests/binary.test.ts runs from docs/deployment.md.
        assert.ok(deployment.includes(line.replace('/srv/destination-map/', '/srv/destination-map')), `README command not run by a test: ${line}`);
      }
    }
  });
});

/** Spawns the service and collects its output, without waiting for anything. */
function spawnService(runtime: Runtime, args: string[]): { child: ChildProcess; output(): string; exited: Promise<number | null> } {
  const [cmd, ...rest] = RUNTIMES[runtime];
  const child = spawn(cmd, [...rest, '--port', '0', '--host', '127.0.0.1', ...args], { cwd: ROOT });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

/** Resolves with the first match of `re` in the output, polling. */
async function waitFor(output: () => string, re: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const m = re.exec(output());
    if (m) return m;
    if (Date.now() > end) throw new Error(`timed out waiting for ${re}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const runtime of RUNTIME_NAMES) {
  describe(`operations on ${runtime}`, () => {
    // The demo service the tests that only look at it share (started by the first that asks, stopped after the last).
    let demoService: Promise<RunningServer> | undefined;
    const demoServer = () => (demoService ??= startServer(runtime));
    after(async () => { await (await demoService?.catch(() => undefined))?.stop(); });

    if (declaredOn(runtime, 'runtime')) test('/healthz answers as soon as the port opens, and /readyz is 503 until the content is loaded', async (t) => {
      const dataDir = await mkdtemp(join(tmpdirFor(runtime), 'ready-'));
      // A fresh data directory: no snapshot, so initdb and the load take seconds after the port opens.
      const service = spawnService(runtime, ['--data-dir', dataDir]);
      try {
        const port = Number((await waitFor(service.output, /"msg":"listening".*?"port":(\d+)/))[1]);
        const seen = new Set<string>();
        for (;;) {
          // A new connection each time: PGlite's initdb blocks the event loop for a while, which can outlast keep-alive.
          const health = await rawRequest(`http://127.0.0.1:${port}/healthz`);
          const ready = await rawRequest(`http://127.0.0.1:${port}/readyz`);
          assert.equal(health.status, 200);
          seen.add(`${ready.status}`);
          if (ready.status === 200) break;
          assert.equal(ready.status, 503);
          assert.deepEqual(JSON.parse(ready.body.toString()), { status: 'loading', current_version: null, not_loaded: null, last_publish: null });
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.deepEqual([...seen], ['503', '200'], 'not ready, then ready');
        await waitFor(service.output, /"msg":"content loaded","source":"bundle"/);
        // A first start has the store open, so the publisher's thread runs (a start that serves a store closed cleanly
        // starts it only when something must be written). Not declared on Deno: Deno lets a program read /proc (where
        // a thread finds its id) only with --allow-all, so there the publisher keeps the process's priority
        // (docs/deployment.md). Nor where there is no Linux /proc to read the threads' niceness from (CI runs on Linux,
        // so there it always runs on Node and Bun).
        if (runtime !== 'deno' && existsSync('/proc/thread-self')) {
          await t.test('the publisher\'s thread runs at a lower priority than the serving thread', () => {
            const task = `/proc/${service.child.pid}/task`;
            // The niceness is field 19 of a thread's stat line, the 17th after the name in parentheses (which may hold spaces).
            const niceOf = (tid: string) => {
              const stat = readFileSync(`${task}/${tid}/stat`, 'utf8');
              return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
            };
            const threads = readdirSync(task).map((tid) => ({ tid, nice: niceOf(tid) }));
            assert.equal(threads.find((th) => th.tid === String(service.child.pid))?.nice, 0, 'the serving thread keeps its priority');
            assert.ok(threads.some((th) => th.nice === PUBLISHER_NICENESS), `a thread at niceness ${PUBLISHER_NICENESS}: ${JSON.stringify(threads)}`);
          });
        }
      } finally {
        service.child.kill('SIGTERM');
        await service.exited;
        await rm(dataDir, { recursive: true, force: true });
      }
    });

    if (declaredOn(runtime, 'runtime')) test('writes one JSON access-log line per request, carrying the request id', async () => {
      const server = await demoServer();
      const ids = ['ops-a', 'ops-b', 'ops-c'];
      for (const id of ids) await (await fetch(`${server.base}/markers/${DEMO_MARKER}`, { headers: { 'x-request-id': id } })).arrayBuffer();
      await waitFor(server.output, /"request_id":"ops-c"/);
      const lines = server.output().split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l));
      for (const id of ids) {
        const mine = lines.filter((l) => l.request_id === id);
        assert.equal(mine.length, 1, id);
        assert.deepEqual([mine[0].method, mine[0].path, mine[0].status], ['GET', `/markers/${DEMO_MARKER}`, 200]);
      }
    });

    // The last test of the shared demo service: it ends it.
    if (declaredOn(runtime, 'runtime')) test('on SIGTERM it finishes the requests in flight, then closes the store and exits 0', async () => {
      const server = await demoServer();
      const path = `/events/${DEMO_SAVED_EVENT}`;
      const headers = { authorization: 'Bearer demo-session-token', 'accept-encoding': 'identity' };
      const expected = (await rawRequest(`${server.base}${path}`, { headers })).body;
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
      // Each of these looks its session up, so a burst keeps the server busy for a while.
      const burst = Array.from({ length: 300 }, (_, i) => rawRequest(`${server.base}${path}`, { headers: { ...headers, 'x-request-id': `burst-${i}` } })
        .then((res) => ({ res }), (error: Error) => ({ error })));
      await waitFor(server.output, /"request_id":"burst-\d+"/);
      server.child.kill('SIGTERM');
      const results = await Promise.all(burst);
      assert.equal(await exited, 0);
      const output = server.output();
      assert.match(output, /"msg":"stopped"/);
      // Every request the server took in and answered reached the client whole; the others were never taken
      // in (refused or reset before any byte).
      const answered = new Set(output.match(/"request_id":"burst-\d+"/g)!.map((m) => m.slice(14, -1)));
      assert.ok(answered.size > 0);
      results.forEach((r, i) => {
        if ('res' in r) {
          assert.equal(r.res.status, 200);
          assert.deepEqual(r.res.body, expected, 'a complete body');
        } else {
          assert.ok(!answered.has(`burst-${i}`), `burst-${i} was answered by the server but lost: ${r.error}`);
          assert.match(String((r.error as NodeJS.ErrnoException).code), /ECONNREFUSED|ECONNRESET|EPIPE/);
        }
      });
      await assert.rejects(fetch(`${server.base}/healthz`), 'the port is closed');
    });

    if (declaredOn(runtime, 'service')) test('a bad or unreadable bundle exits 1 with every problem listed, before the port opens', async () => {
      const dir = await mkdtemp(join(tmpdirFor(runtime), 'bad-'));
      const bad = makeFixture();
      bad.markers[0].lat = 91;
      bad.events[0].poi_ids = ['00000000-0000-4000-8000-000000000000'];
      await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
      const { code, stdout, stderr } = await runToExit(runtime, ['--bundle', join(dir, 'bad.json'), '--port', '0', '--data-dir', dir]);
      assert.equal(code, 1);
      assert.match(stderr, /\$\.markers\[0\]\.lat/);
      assert.match(stderr, /\$\.events\[0\]\.poi_ids\[0\]/);
      assert.doesNotMatch(stdout, /listening/);
      // A bundle that cannot be read at all (missing, a directory) is refused the same way.
      for (const path of [join(dir, 'missing.json'), dir]) {
        const run = await runToExit(runtime, ['--bundle', path, '--port', '0', '--data-dir', dir]);
        assert.equal(run.code, 1, run.stderr);
        assert.match(run.stderr, /cannot read the content bundle/);
        assert.doesNotMatch(run.stdout, /listening/);
      }
      await rm(dir, { recursive: true, force: true });
    });

    if (declaredOn(runtime, 'runtime')) test('runs with no network at all and makes no outbound call (kiosk)', () => {
      const paths = [`/maps/${DEMO_MAP}?info=true&markers=true&categories=true`, `/places-of-interest/map/${DEMO_MAP}`,
        `/markers/${DEMO_MARKER}`, `/events?map_id=${DEMO_MAP}&near=38.7075,-9.1364&radius_m=2000`,
        `/events/upcoming-by-poi?poi_ids=${DEMO_MARKER}`, '/openapi.json', '/healthz', '/readyz'];
      // An empty network namespace: only a loopback interface. The service also runs with a trap (Node, Bun)
      // or a loopback-only net permission (Deno) that records and refuses any other connection or lookup.
      const run = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath,
        join(ROOT, 'tests/helpers/offline-walk.ts'), runtime, ...paths], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
      assert.equal(run.status, 0, `unshare failed (this test needs unprivileged user namespaces): ${run.stderr}`);
      const result = JSON.parse(run.stdout.trim().split('\n').pop()!);
      assert.deepEqual(Object.values(result.statuses), paths.map(() => 200), JSON.stringify(result.statuses));
      assert.equal(result.trapped, '', 'no outbound attempt was recorded');
      assert.doesNotMatch(result.output, /outbound network attempt|PermissionDenied|NotCapable|"level":"(warn|error)"/);
      assert.equal(result.code, 0);
    });
  });
}
