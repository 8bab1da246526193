/**
 * The single binary. Built by `npm run build:binary`, copied alone into an empty directory and started
 * there with no flags and an empty environment, no network (a fresh network namespace with only loopback)
 * and the repository hidden (a tmpfs mounted over it), it serves the demo exactly as the in-process app
 * does (its pages and their assets included), answers its own --healthcheck, and serves a bundle it is given. It prints its size, time to first
 * 200 and RSS as one JSON line, and holds the demo's RSS under bounds. The commands in docs/deployment.md are the ones run here.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmod, copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, type BuiltBinary } from '../scripts/build-binary.ts';
import type { BundleT } from '../src/content/bundle/bundle-schema.ts';
import { openTestApp, readDemoBundle, type TestApp } from './helpers/app.ts';
import { F, makeFixture } from './helpers/fixture.ts';
import { testDatabase } from './helpers/postgres.ts';

/** The executable's name in its directory. */
const EXE = 'destination-map';

/**
 * Upper bounds of the built-in demo's RSS, in MB: once it answered its first 200, and its peak (VmHWM). Memory,
 * unlike time, changes little with the machine's load, so these are set near the figures docs/deployment.md
 * measures, with room for other machines and collections that come at other moments, and below the release
 * before, which opened PGlite and published the demo at every start (its figures are there too, and fail them).
 */
const DEMO_RSS_BOUND_MB = { firstOk: 180, peak: 200 };

/**
 * CPU (all threads) the demo may use up to its first 200, in ms: a start that opened PGlite (compiling its wasm) or
 * published the demo, as the release before did, uses several times that; load inflates CPU time far less than
 * wall-clock time.
 */
const DEMO_CPU_BOUND_MS = 1500;

/**
 * Runs inside the namespace under plain Node (node: built-ins only, so nothing is read from the hidden
 * repository): hides the repository, starts the binary with an empty environment, times /healthz and the
 * first 200 of `paths[0]`, walks `paths`, waits for the end of the load, runs --healthcheck while it runs
 * and after it stopped, and prints one JSON line. JavaScript, not TypeScript: it is handed to `node -e` as it stands.
 */
const PROBE = String.raw`
const { spawn, spawnSync } = await import('node:child_process');
const { readFileSync } = await import('node:fs');
const { root, dir, args, paths } = JSON.parse(process.argv[1]);
const hide = spawnSync('mount', ['-t', 'tmpfs', 'tmpfs', root], { encoding: 'utf8' });
if (hide.status !== 0) throw new Error('cannot hide the repository: ' + hide.stderr);
const base = 'http://127.0.0.1:8787';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const status = (pid) => readFileSync('/proc/' + pid + '/status', 'utf8');
const kb = (text, key) => Number(new RegExp(key + ':\\s+(\\d+)').exec(text)[1]);
// utime + stime, in clock ticks of 10 ms.
const cpuMs = (pid) => {
  const fields = readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const healthcheck = () => spawnSync('./destination-map', ['--healthcheck'], { cwd: dir, env: {}, encoding: 'utf8' }).status;
const began = performance.now();
const child = spawn('./destination-map', args, { cwd: dir, env: { HOME: dir } });
let output = '';
child.stdout.on('data', (d) => (output += d));
child.stderr.on('data', (d) => (output += d));
let code;
const exited = new Promise((resolve) => child.once('exit', (c) => resolve(code = c)));
const waitFor = async (path) => {
  for (;;) {
    if (code !== undefined) throw new Error('the binary exited with ' + code + ':\n' + output);
    if (performance.now() - began > 60000) throw new Error('no 200 from ' + path + ' in 60 s:\n' + output);
    const res = await fetch(base + path).catch(() => null);
    if (res && res.status === 200) { await res.arrayBuffer(); return Math.round(performance.now() - began); }
    if (res) await res.arrayBuffer();
    await sleep(10);
  }
};
const healthz_ms = await waitFor('/healthz');
const first_200_ms = await waitFor(paths[0]);
const cpu_ms = cpuMs(child.pid);
const rss_first_200_mb = Math.round(kb(status(child.pid), 'VmRSS') / 1024);
// Transparent huge pages (when the host's setting is 'always') count whole 2 MB pages in RSS: shown, to explain a high figure.
const anon_huge_mb = Math.round(kb(readFileSync('/proc/' + child.pid + '/smaps_rollup', 'utf8'), 'AnonHugePages') / 1024);
const responses = {};
for (const path of paths) {
  const res = await fetch(base + path);
  responses[path] = { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}
const proc = status(child.pid);
// Ready comes before the end of the load: after a full load the snapshot is still being written.
while (!output.includes('"msg":"content loaded"') && performance.now() - began < 60000) await sleep(20);
const healthcheck_running = healthcheck();
child.kill('SIGTERM');
await exited;
const healthcheck_stopped = healthcheck();
console.log(JSON.stringify({
  healthz_ms, first_200_ms, cpu_ms, rss_first_200_mb, anon_huge_mb, rss_mb: Math.round(kb(proc, 'VmRSS') / 1024),
  peak_rss_mb: Math.round(kb(proc, 'VmHWM') / 1024), healthcheck_running, healthcheck_stopped, code, responses, output,
}));
`;

/** What the probe saw. */
interface ProbeResult {
  healthz_ms: number;
  first_200_ms: number;
  /** CPU (user + system) the binary used up to its first 200: the part of the time no other load can inflate. */
  cpu_ms: number;
  rss_first_200_mb: number;
  /** Of that, anonymous memory in transparent huge pages. */
  anon_huge_mb: number;
  /** After the walk (the pages and their assets served too). */
  rss_mb: number;
  peak_rss_mb: number;
  healthcheck_running: number;
  healthcheck_stopped: number;
  code: number | null;
  responses: Record<string, { status: number; type: string; body: string }>;
  output: string;
}

/**
 * Starts the binary in `dir` with `args` inside a new user, mount and network namespace (`unshare -rnm`:
 * no root needed), with only loopback up, and returns what the probe saw walking `paths`.
 */
function runIsolated(dir: string, args: string[], paths: string[]): ProbeResult {
  const input = JSON.stringify({ root: ROOT, dir, args, paths });
  // The probe gets a minimal environment: no NODE_OPTIONS or coverage hooks reaching into the hidden repository.
  const run = spawnSync('unshare', ['-rnm', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"',
    process.execPath, '--input-type=module', '-e', PROBE, input],
  { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, `the isolated run failed (it needs unprivileged user namespaces, ip and mount):\n${run.stderr}\n${run.stdout}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as ProbeResult;
}

/**
 * Runs `npm run build:binary`, as docs/deployment.md says, and reads the line it prints. The build is a tool, not the
 * service under test, and runs the sources with Node's own type stripping: its coverage is not collected, since c8
 * cannot merge a file's coverage from such a process with that of the processes tsx compiled it in (the two garbled
 * each other: routes and event tables came out a third uncovered, and the gate nearly failed).
 */
async function runBuild(): Promise<BuiltBinary> {
  // Empty, not left out: Node hands its own NODE_V8_COVERAGE to any child whose environment lacks one.
  const child = spawn('npm', ['run', 'build:binary'], { cwd: ROOT, env: { ...process.env, NODE_V8_COVERAGE: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, output);
  const built = JSON.parse(output.trim().split('\n').filter((l) => l.startsWith('{')).pop()!) as BuiltBinary;
  return { ...built, path: join(ROOT, built.path) };
}

/** Log lines of the binary's output with this message. */
function logLines(output: string, msg: string): Record<string, unknown>[] {
  return output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).filter((l) => l.msg === msg);
}

const demo = await readDemoBundle();
const mainMap = demo.maps.find((m) => m.enabled && m.versions.length > 1)!;
const marker = demo.markers.find((m) => m.map_id === mainMap.id && !m.version_ids)!;
// An event of its own: a series' answer lists its next occurrences from now, and the binary runs on the real clock.
const event = demo.events.find((e) => e.map_id === mainMap.id && !e.recurrence)!;
/** An explicit window: the binary runs on the real clock (no flags), the in-process apps on a pinned one. */
const EVENT_WINDOW = 'from=2026-11-01T00:00:00Z&to=2028-12-31T00:00:00Z&limit=10';
/** A top-level category of the main map, for open_at (the binary loads the hours library from what it embeds). */
const topCategory = demo.categories.find((c) => c.map_id === mainMap.id && c.parent_id === null)!;
/** The demo walk; the first path is the one timed to its first 200 (it needs the content loaded). */
const DEMO_PATHS = [
  `/maps/${mainMap.id}?info=true&categories=true&markers=true`,
  `/markers/${marker.id}`,
  `/maps/${mainMap.id}/pois?tags=${topCategory.id}&open_at=2027-01-09T21:00:00Z`,
  `/events?map_id=${mainMap.id}&${EVENT_WINDOW}`,
  `/events/${event.id}`,
  `/places-of-interest/map/${mainMap.id}`,
  '/openapi.json',
  '/healthz',
  '/readyz',
];

/** The pages, then every asset they load (fingerprinted URLs, the same in the binary and in a checkout). */
const PAGE_PATHS = ['/', '/explore', '/docs'];

/** The asset URLs (with their fingerprints) the explorer and the docs page of an app load. */
async function pageAssetPaths(app: TestApp): Promise<string[]> {
  const html = (await Promise.all(['/explore', '/docs'].map(async (p) => (await app.get(p)).text()))).join('\n');
  // The land tiles' template asked for at Lisbon's zoom-10 tile, which holds land.
  return [...new Set([...html.matchAll(/"(\/assets\/[^"]+)"/g)].map((m) => m[1].replace('{z}/{x}/{y}', '10/485/392')))];
}

/**
 * Asserts that the binary answered 200 to every path but the health checks, with the body the in-process app gives
 * (the home page names the time of its publish, so a page is compared by its asset links).
 */
async function assertSameAsInProcess(result: ProbeResult, app: TestApp): Promise<void> {
  for (const [path, seen] of Object.entries(result.responses)) {
    if (path === '/healthz' || path === '/readyz') continue;
    const res = await app.get(path);
    assert.equal(seen.status, 200, path);
    assert.equal(res.status, 200, path);
    assert.equal(seen.type, res.headers.get('content-type'), path);
    const text = await res.text();
    if (seen.type.startsWith('text/html')) {
      const links = (html: string) => [...html.matchAll(/"([^"]*\/assets\/[^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(links(seen.body), links(text), path);
    } else if (seen.type.startsWith('application/json') && !path.startsWith('/assets/')) assert.deepEqual(JSON.parse(seen.body), JSON.parse(text), path);
    else assert.ok(seen.body === text, `${path}: the embedded asset is the checkout's`);
  }
}

/** The shapes of the commands docs/deployment.md may show outside its blocks marked "Not run here": the ones run here. */
const DOC_COMMANDS = [
  /^npm run build:binary$/,
  /^mkdir -p \S+$/,
  /^cp dist\/destination-map \S+\/$/,
  /^cd \S+$/,
  /^\.\/destination-map( --bundle my-destination\.json| --healthcheck)?$/,
];

/** The commands of the ```sh blocks of a Markdown text not marked "Not run here", comments dropped. */
function runnableCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks.filter((b) => !b.startsWith('# Not run here'))
    .flatMap((b) => b.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l && !l.startsWith('#')));
}

describe('the single binary', () => {
  let built: BuiltBinary;
  let dir: string;
  let demoRun: ProbeResult;
  let demoApp: TestApp;
  const fixtureRuns: ProbeResult[] = [];
  const fixture: BundleT = makeFixture();

  before(async () => {
    built = await runBuild();
    dir = await mkdtemp(join(tmpdir(), 'binary-'));
    assert.ok(!dir.startsWith(ROOT), `the temporary directory ${dir} must lie outside the repository, which the test hides`);
    await copyFile(built.path, join(dir, EXE));
    await chmod(join(dir, EXE), 0o755);
    demoApp = await openTestApp(demo);
    demoRun = runIsolated(dir, [], [...DEMO_PATHS, ...PAGE_PATHS, ...await pageAssetPaths(demoApp)]);
  });
  after(async () => {
    await demoApp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('serves the built-in demo from the model built into it, alone in an empty directory with no network', () => {
    assert.equal(demoRun.code, 0, demoRun.output);
    const [loaded] = logLines(demoRun.output, 'content loaded');
    assert.equal(loaded.source, 'bundle', 'the demo is served as published');
    assert.doesNotMatch(demoRun.output, /does not verify/, 'the embedded model verified, so it was served rather than the demo published');
    assert.equal(loaded.content_version, built.checksum);
    assert.equal(demoRun.responses['/healthz'].status, 200);
    const ready = JSON.parse(demoRun.responses['/readyz'].body);
    assert.equal(ready.status, 'ready');
    assert.equal(ready.content_version, built.checksum);
    assert.equal(ready.last_publish.outcome, 'published');
  });

  test('answers the demo walk exactly as the in-process app over the same bundle', async () => {
    await assertSameAsInProcess(demoRun, demoApp);
  });

  test('serves /, /explore, /docs and every asset they load from what it embeds', () => {
    const assets = Object.keys(demoRun.responses).filter((p) => p.startsWith('/assets/')).map((p) => p.split('?')[0]).sort();
    assert.deepEqual(assets, ['/assets/countries-50m.json', '/assets/docs.js', '/assets/explore.js', '/assets/land/10/485/392.mvt', '/assets/leaflet.css',
      '/assets/leaflet.js', '/assets/maki.js', '/assets/protomaps-leaflet.js', '/assets/redoc.js', '/assets/site.css', '/assets/topojson-client.js']);
    for (const path of PAGE_PATHS) assert.match(demoRun.responses[path].body, /<!doctype html>/, path);
  });

  test('writes nothing next to itself when it serves the demo', async () => {
    assert.deepEqual(await readdir(dir), [EXE]);
  });

  test('answers --healthcheck with 0 while it runs and 1 once it stopped', () => {
    assert.equal(demoRun.healthcheck_running, 0);
    assert.equal(demoRun.healthcheck_stopped, 1);
  });

  test('serves a bundle it is given with --bundle, and serves the stored version from the data directory on restart', async () => {
    await writeFile(join(dir, 'my-destination.json'), JSON.stringify(fixture));
    const fixtureMarker = fixture.markers.find((m) => m.map_id === F.map && !m.version_ids)!;
    const args = ['--bundle', 'my-destination.json'];
    const paths = [`/maps/${F.map}?info=true&markers=true`, `/markers/${fixtureMarker.id}`, `/events?map_id=${F.map}&${EVENT_WINDOW}`, '/readyz'];
    fixtureRuns.push(runIsolated(dir, args, paths));
    assert.equal(fixtureRuns[0].code, 0, fixtureRuns[0].output);
    assert.equal(logLines(fixtureRuns[0].output, 'content loaded')[0]?.source, 'bundle', fixtureRuns[0].output);
    assert.equal(JSON.parse(fixtureRuns[0].responses['/readyz'].body).status, 'ready');
    const app = await openTestApp(fixture);
    try {
      await assertSameAsInProcess(fixtureRuns[0], app);
    } finally {
      await app.close();
    }
    // The store went to the default data directory, .data in the working directory: a restart writes no new version.
    fixtureRuns.push(runIsolated(dir, args, paths));
    assert.equal(logLines(fixtureRuns[1].output, 'content loaded')[0]?.source, 'store', fixtureRuns[1].output);
    const answers = (r: ProbeResult) => Object.fromEntries(Object.entries(r.responses).filter(([path]) => path !== '/readyz'));
    assert.deepEqual(answers(fixtureRuns[1]), answers(fixtureRuns[0]));
  });

  test('--help and its subcommands\' usage name the binary, not npm start', () => {
    for (const args of [['--help'], ['check'], ['publish'], ['reload', '--help'], ['id']]) {
      const run = spawnSync(join(dir, EXE), args, { cwd: dir, env: { HOME: dir }, encoding: 'utf8', timeout: 30_000 });
      const text = run.stdout + run.stderr;
      assert.match(text, /destination-map/, `${args.join(' ')}: ${text.slice(0, 300)}`);
      assert.doesNotMatch(text, /npm start/, args.join(' '));
      if (args[0] === '--help') assert.match(text, /^ {2}--healthcheck +start no server/m, 'the binary\'s --help lists its --healthcheck');
    }
  });

  test('reload and id reach its subcommands: reload sends SIGHUP to the binary serving .data, which publishes', async () => {
    const id = spawnSync(join(dir, EXE), ['id', 'feira-da-ladra'], { cwd: dir, env: { HOME: dir }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(id.stdout, 'b7d404a3-3ff4-533b-b1df-65e160e3f551\n', id.stderr);
    await writeFile(join(dir, 'my-destination.json'), JSON.stringify(fixture));
    const server = spawn(join(dir, EXE), ['my-destination.json', '--port', '0', '--host', '127.0.0.1'], { cwd: dir, env: { HOME: dir } });
    let out = '';
    server.stdout.on('data', (d) => (out += d));
    server.stderr.on('data', (d) => (out += d));
    const waitFor = async (pattern: RegExp) => {
      for (let i = 0; i < 600 && !pattern.test(out) && server.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
      assert.match(out, pattern);
    };
    try {
      await waitFor(/"msg":"content loaded"/);
      assert.equal(logLines(out, 'listening')[0].pid, server.pid);
      assert.equal(await readFile(join(dir, '.data', 'server.pid'), 'utf8'), `${server.pid}\n`);
      const reload = spawnSync(join(dir, EXE), ['reload'], { cwd: dir, env: { HOME: dir }, encoding: 'utf8', timeout: 30_000 });
      assert.equal(reload.status, 0, reload.stdout + reload.stderr);
      assert.match(reload.stdout, new RegExp(`^sent SIGHUP to the server on \\.data \\(pid ${server.pid}\\)`));
      await waitFor(/"msg":"publishing","trigger":"SIGHUP"[\s\S]*"msg":"content unchanged","trigger":"SIGHUP"/);
    } finally {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    assert.deepEqual((await readdir(join(dir, '.data'))).filter((name) => name === 'server.pid'), [], 'removed when it stopped');
  });

  test('refuses a bad bundle before opening its port, listing the problem, when no good version is stored', async () => {
    const bad = structuredClone(fixture);
    bad.markers[0].lat = 91;
    await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
    const run = spawnSync(join(dir, EXE), ['--bundle', 'bad.json', '--port', '0', '--data-dir', 'empty-data'], { cwd: dir, env: { HOME: dir }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stderr, /markers\[0\]\.lat/);
    assert.doesNotMatch(run.stdout, /"msg":"listening"/);
  });

  test('publishes into PostgreSQL with its publish subcommand, and serves as a replica of it', async () => {
    const db = await testDatabase();
    try {
      const env = { HOME: dir, DATABASE_URL: db.url };
      await writeFile(join(dir, 'fleet.json'), JSON.stringify(fixture));
      const published = spawnSync(join(dir, EXE), ['publish', 'fleet.json'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
      assert.equal(published.status, 0, published.stdout + published.stderr);
      assert.match(published.stdout, /^published version 1 /);
      const replica = spawn(join(dir, EXE), ['--port', '0', '--host', '127.0.0.1', '--data-dir', 'replica-cache'], { cwd: dir, env });
      let out = '';
      replica.stdout.on('data', (d) => (out += d));
      replica.stderr.on('data', (d) => (out += d));
      try {
        let port = 0;
        for (let i = 0; i < 300 && !/"msg":"content followed"/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
        port = Number(/"msg":"listening".*?"port":(\d+)/.exec(out)?.[1]);
        assert.ok(port > 0 && /"msg":"content followed"/.test(out), out);
        const res = await fetch(`http://127.0.0.1:${port}/maps/${F.map}?info=true`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-content-version'), '1');
      } finally {
        replica.kill('SIGTERM');
        await once(replica, 'exit');
      }
    } finally {
      await db.drop();
    }
  });

  test('docs/deployment.md shows only commands run here, besides those it marks as not run here', async () => {
    const commands = runnableCommands(await readFile(join(ROOT, 'docs', 'deployment.md'), 'utf8'));
    assert.ok(commands.includes('npm run build:binary') && commands.includes('./destination-map'), commands.join('\n'));
    for (const command of commands) assert.ok(DOC_COMMANDS.some((shape) => shape.test(command)), `not run by this test: ${command}`);
  });

  test('reports its size, time to the first 200 and memory, holds the demo\'s RSS under its bounds, and starts within a sanity bound', () => {
    const { healthz_ms, first_200_ms, cpu_ms, rss_first_200_mb, anon_huge_mb, rss_mb, peak_rss_mb } = demoRun;
    const [loaded] = logLines(demoRun.output, 'content loaded');
    console.log(JSON.stringify({
      binary_mb: +(built.bytes / 2 ** 20).toFixed(1), build_ms: built.ms,
      demo: { healthz_ms, first_200_ms, cpu_ms, load_ms: loaded.ms, rss_first_200_mb, anon_huge_mb, rss_mb, peak_rss_mb },
      fixture: fixtureRuns.map((r) => ({ source: logLines(r.output, 'content loaded')[0]?.source, first_200_ms: r.first_200_ms, cpu_ms: r.cpu_ms, rss_mb: r.rss_mb })),
      load_average: +loadavg()[0].toFixed(1),
    }));
    const huge = anon_huge_mb > 0 ? ` (${anon_huge_mb} MB of it in transparent huge pages)` : '';
    assert.ok(rss_first_200_mb < DEMO_RSS_BOUND_MB.firstOk, `RSS ${rss_first_200_mb} MB at the first 200${huge}`);
    assert.ok(peak_rss_mb < DEMO_RSS_BOUND_MB.peak, `peak RSS ${peak_rss_mb} MB`);
    // Sanity bounds, not the target (the measured time is in docs/deployment.md): a busy CI machine must not fail them.
    // Wall-clock time grows with the machine's load (several times over on a 2-core machine running other tests); the CPU
    // the binary used grows much less, and would show an initdb on every start (seconds of it).
    assert.ok(first_200_ms < 15_000, `first 200 after ${first_200_ms} ms`);
    assert.ok(cpu_ms < DEMO_CPU_BOUND_MS, `${cpu_ms} ms of CPU to the first 200`);
  });
});
