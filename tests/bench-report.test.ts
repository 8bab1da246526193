/**
 * The benchmark's judging (scripts/bench/report.ts) and the measurement harness's (scripts/harness/): the serving-threads
 * target, two threads against one over rounds of one thread then two, judged on the ratio of the means, each round's
 * own ratio shown beside it; a target over several runtimes judged by its worst runtime, a ratio above 100% flagged as
 * interference; the load gate; and the run header every report opens with.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isInterference, judgeWorst, loadGate, margin, type RuntimeCheck } from '../scripts/harness/judge.ts';
import { renderRunHeader } from '../scripts/harness/run-header.ts';
import {
  compareThreads, DISTINCT_CURSOR_TARGET, DISTINCT_HIT_RATE, ENCODED_TARGET, evaluateTargets, FIELDS_TARGET, MISSES_TARGET, renderLargePublish, renderReport,
  renderUsersRows,
} from '../scripts/bench/report.ts';
import type { BenchResult, EventsRun, RuntimeLarge, WorkersRun } from '../scripts/bench/results.ts';
import { runLoad, type LoadResult } from '../scripts/bench/run-load.ts';
import { createServer } from 'node:http';
import { once } from 'node:events';

const run = (workers: number, round: number, rps: number, rssMb: number | null, generator: WorkersRun['generator'] = 'wrk'): WorkersRun =>
  ({ workers, generator, round, load: { rps, generatorCpuPct: 20 + workers } as LoadResult, cacheHitRate: 0, rssMb });

test('two rounds are judged on the ratio of their means, each round\'s ratio shown', () => {
  // Round 1: 1.5×, round 2: 1.9×; means 1,000 → 1,700 (1.7×), RSS 500 → 600 (1.2×).
  const runs = [run(1, 1, 1000, 500), run(2, 1, 1500, 590), run(1, 2, 1000, 500), run(2, 2, 1900, 610), run(1, 1, 9, 9, 'autocannon')];
  const c = compareThreads(runs, 'wrk')!;
  assert.ok(Math.abs(c.speed - 1.7) < 1e-9, String(c.speed));
  assert.ok(Math.abs(c.memory - 1.2) < 1e-9, String(c.memory));
  assert.equal(c.text, 'wrk: 1.7× req/s (rounds 1.5×, 1.9×; means 1,000 → 1,700, generator 21% → 22% of a core), RSS 1.2× (500 → 600 MB)');
});

test('one round is its own ratio; no two-thread run, no RSS, or no answers with one thread give no comparison', () => {
  const one = compareThreads([run(1, 1, 1000, 500), run(2, 1, 1550, 600)], 'wrk')!;
  assert.ok(Math.abs(one.speed - 1.55) < 1e-9);
  assert.ok(!one.text.includes('rounds'));
  assert.equal(compareThreads([run(1, 1, 1000, 500)], 'wrk'), null);
  assert.equal(compareThreads([run(1, 1, 1000, 500), run(2, 1, 1500, null)], 'wrk'), null);
  assert.equal(compareThreads([run(1, 1, 0, 500), run(2, 1, 1500, 600)], 'wrk'), null);
  assert.equal(compareThreads([run(1, 1, 1000, 500), run(2, 1, 1500, 600)], 'autocannon'), null);
});

test('a run that sends each path once is timed to its last answer, not to autocannon\'s next whole second', async () => {
  // Answers every request after 2 ms: 60 paths over 4 connections take about 30 ms, far from a second.
  const asked: string[] = [];
  const server = createServer((req, res) => { asked.push(req.url!); setTimeout(() => res.end('ok'), 2); }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as { port: number };
    const paths = Array.from({ length: 60 }, (_, i) => `/p${i}`);
    const r = await runLoad({ url: `http://127.0.0.1:${port}`, durationS: 5, connections: 4, warmupS: 0, distinctPaths: paths, once: true });
    assert.equal(r.requests, 60);
    assert.deepEqual([...asked].sort(), [...paths].sort(), 'each path sent once');
    assert.ok(r.durationS < 0.5, `timed ${r.durationS} s`);
    assert.ok(r.rps > 120, `${r.rps} req/s`);
  } finally {
    server.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The shared harness's judging (scripts/harness/judge.ts) and the report's run header (scripts/harness/run-header.ts)

const check = (runtime: string, score: number, ok: boolean, ratio?: number): RuntimeCheck =>
  ({ runtime, text: `${score}`, ok, score, ...(ratio !== undefined ? { ratio } : {}) });

test('judgeWorst: the worst runtime decides, shown first, where a mean of the ratios would hold', () => {
  // Against a 40% target: node 30% (a miss), bun and deno 95%. Their mean, 73%, would clear the line.
  const rows = [check('node', margin(0.95, 0.4, 'atLeast'), true), check('bun', margin(0.3, 0.4, 'atLeast'), false),
    check('deno', margin(0.95, 0.4, 'atLeast'), true)];
  const v = judgeWorst(rows)!;
  assert.equal(v.holds, false);
  assert.equal(v.worst.runtime, 'bun');
  assert.ok(v.measured.startsWith('bun (worst): '), v.measured);
  assert.match(v.measured, /^bun \(worst\): [\d.]+ \(miss\) · node: [\d.]+ · deno: [\d.]+$/);
  // All holding: the lowest score is the worst, and the target holds.
  const held = judgeWorst([check('node', 1.5, true), check('bun', 1.1, true), check('deno', 2, true)])!;
  assert.equal(held.holds, true);
  assert.equal(held.worst.runtime, 'bun');
  assert.deepEqual(held.interference, []);
  assert.equal(judgeWorst([]), null);
});

test('judgeWorst: a ratio above 100% is flagged as interference on its own runtime, not averaged with the others', () => {
  const v = judgeWorst([check('node', 1.2, true, 0.8), check('bun', 3, true, 1.2), check('deno', 2, true, 1)])!;
  assert.deepEqual(v.interference, ['bun']);
  assert.equal(v.worst.runtime, 'node');
  assert.match(v.measured, /bun: 3 \(above 100%: interference, rerun\)/);
  assert.doesNotMatch(v.measured, /node: [^·]*interference|deno: [^·]*interference/);
  assert.equal(isInterference(1), false);
  assert.equal(isInterference(1.001), true);
  assert.equal(isInterference(null), false);
});

test('loadGate: a 1-minute load average above 1.0 at the start is flagged for a rerun; 1.0 and below pass', () => {
  assert.equal(loadGate([1.01, 0.2, 0.1]).flagged, true);
  assert.match(loadGate([1.01, 0.2, 0.1]).text, /^flagged: .*1\.01.*rerun/);
  assert.equal(loadGate([1.0, 3, 3]).flagged, false);
  assert.equal(loadGate([0.05, 0.1, 0.1]).flagged, false);
  // The 5- and 15-minute averages do not decide; no reading at all is flagged.
  assert.equal(loadGate([0.5, 4, 4]).flagged, false);
  assert.equal(loadGate([]).flagged, true);
});

const HASH = '0123456789abcdef0123456789abcdef01234567';

test('the run header: the full commit hash and whether the tree was clean, both load averages, the gate', () => {
  const [commit, load, gate] = renderRunHeader({ commit: { head: HASH, clean: true, subject: 'A change' }, loadAvgStart: [0.42, 0.3, 0.2],
    loadAvgEnd: [1.8, 0.9, 0.4] });
  assert.equal(commit, `- **Commit**: \`${HASH}\`, work tree clean (A change)`);
  assert.equal(load, '- **Load average** (1, 5, 15 min): 0.42, 0.3, 0.2 at the start; 1.8, 0.9, 0.4 at the end');
  assert.match(gate, /^- \*\*Load gate\*\* \(1-minute load average at the start ≤ 1\.0\): passed/);
  const busy = renderRunHeader({ commit: { head: HASH, clean: false, subject: '' }, loadAvgStart: [2.5, 1, 1], loadAvgEnd: null });
  assert.match(busy[0], new RegExp(`\`${HASH}\`, \\*\\*work tree not clean\\*\\*`));
  assert.match(busy[1], /2\.5, 1, 1 at the start; – at the end$/);
  assert.match(busy[2], /\*\*flagged: the 1-minute load average was 2\.5 at the start/);
  assert.match(renderRunHeader({ commit: { head: null, clean: false, subject: '' }, loadAvgStart: [0, 0, 0], loadAvgEnd: null })[0], /unknown/);
});

/** A benchmark result with the demo phase alone, node and bun, each request's ratio to its ceiling given. */
function demoResult(ratios: Record<'node' | 'bun', number[]>): BenchResult {
  const load: LoadResult = { url: 'http://127.0.0.1:1/', connections: 32, durationS: 1, stoppedEarly: false, requests: 1000, rps: 1000,
    latencyMs: { p50: 1, p90: 2, p99: 3, avg: 1, max: 4 }, non2xx: 0, errors: 0, timeouts: 0, statusCodes: { 200: 1000 }, bytesPerResponse: 100,
    generatorCpuPct: 50, serverCpuPct: 90 };
  const demo = (['node', 'bun'] as const).map((runtime) => ({
    runtime, startupMs: [100], startupMedianMs: 100, snapshotOpenMs: [80], snapshotOpenMedianMs: 80, snapshotReadyMs: [70], snapshotRssMb: 50,
    startupRatio: 1.25, rss: { afterStartMb: 100, afterLoadMb: 120, peakMb: 130, exe: runtime },
    requests: ratios[runtime].map((ratio, i) => ({ name: `r${i}`, path: `/r${i}`, contentType: 'application/json', bodyBytes: 10, service: load, ceiling: load, ratio })),
    contentRps: 1000, contentRatio: ratios[runtime].reduce((a, b) => a + b, 0) / ratios[runtime].length,
  }));
  const notRun = { status: 'not run', reason: '--only demo' } as const;
  return {
    generatedAt: '2025-01-01T00:00:00.000Z', command: 'node scripts/bench.ts --only demo', commit: { head: HASH, clean: true, subject: 's' }, elapsedS: 1,
    options: { quick: true, durationS: 1, warmupS: 1, connections: 32, runtimes: ['node', 'bun'], skipLarge: true, startupRepeats: 3, serviceLogLevel: null, phases: ['demo'] },
    machine: { cpuModel: 'cpu', cores: 2, memoryGb: 24, os: 'os', kernel: 'k', pinned: true, pinningNote: 'pinned', loadAvgStart: [1.5, 1, 1], loadAvgEnd: [2, 1, 1] },
    versions: { node: 'v24', autocannon: '8' }, datasets: { demo: { bundle: 'd', bytes: 1024 }, large: null },
    demo, large: notRun, filters: notRun, publish: notRun, publishLarge: notRun, fleet: notRun, targets: [], failures: [], notes: [],
  } as unknown as BenchResult;
}

test('benchmark targets: a request beating its ceiling flags its target as interference; start-up is judged by the worst runtime', () => {
  const targets = evaluateTargets(demoResult({ node: [0.5, 1.3], bun: [0.8, 0.9] }));
  const node = targets.find((t) => t.name.startsWith('Content GETs on Node'))!;
  assert.equal(node.holds, 'interference');
  assert.match(node.measured, /highest request 130%.*interference/);
  assert.equal(targets.find((t) => t.name.startsWith('Content GETs on Bun'))!.holds, 'yes');
  const startup = targets.find((t) => t.name.startsWith('Start-up on the demo'))!;
  assert.equal(startup.holds, 'yes');
  assert.match(startup.measured, /^node \(worst\): 1\.25×/);
  const calm = evaluateTargets(demoResult({ node: [0.5, 0.6], bun: [0.8, 0.9] }));
  assert.equal(calm.find((t) => t.name.startsWith('Content GETs on Node'))!.holds, 'yes');
});

test('the benchmark document opens with the run header', () => {
  const result = demoResult({ node: [0.5, 0.6], bun: [0.8, 0.9] });
  result.targets = evaluateTargets(result);
  const lines = renderReport(result).split('\n');
  assert.equal(lines[0], '# Benchmarks');
  assert.deepEqual(lines.slice(2, 5), renderRunHeader({ commit: result.commit, loadAvgStart: [1.5, 1, 1], loadAvgEnd: [2, 1, 1] }));
  assert.match(lines[2], new RegExp(HASH));
  assert.match(lines[4], /\*\*flagged: the 1-minute load average was 1\.5/);
});

// ---------------------------------------------------------------------------------------------------------------
// The rows users produce: encoded distinct questions, cursor pages of distinct filters, real misses

/** A load run of `rps` requests a second. */
const loadOf = (rps: number, p99 = 10): LoadResult => ({ url: 'http://127.0.0.1:1/', connections: 32, durationS: 1, stoppedEarly: false, requests: rps,
  rps, latencyMs: { p50: 1, p90: 2, p99, avg: 1, max: 4 }, non2xx: 0, errors: 0, timeouts: 0, statusCodes: { 200: rps }, bytesPerResponse: 100,
  generatorCpuPct: 50, serverCpuPct: 90 });

/** An events row. */
const row = (name: string, kind: EventsRun['kind'], rps: number, o: Partial<EventsRun> = {}): EventsRun =>
  ({ name, kind, path: `/events?${name}`, cacheHitRate: kind === 'cached' ? 0.999 : 0, total: 10, bodyBytes: 100, singleMs: 1, load: loadOf(rps),
    ratioToContent: null, ...o });

const CACHED = 'near 5 km, default window, one cached URL';
const BR = { acceptEncoding: 'gzip, deflate, br, zstd', contentEncoding: 'br' };

/**
 * One runtime's rows users produce: the encoded cached URL at 10,000 req/s, the three encoded distinct kinds at
 * `encoded` req/s, page 1 and page 200 at `pages`, the misses at 3,000 and 2,500, each distinct row's hit rate `hit`.
 */
function usersRuntime(runtime: 'node' | 'bun' | 'deno', encoded: number[], pages: [number, number], hit = 0): RuntimeLarge {
  const ref = { reference: CACHED, ...BR };
  return {
    runtime, startupMs: 1000, loadedFrom: 'snapshot', rss: { afterStartMb: 100, afterLoadMb: 100, peakMb: 100, exe: runtime }, cursorRatio: null,
    requests: [
      row(CACHED, 'cached', 10_000, { group: 'encoded', ...BR }),
      ...['near 5 km, default window, a distinct point each', 'small bbox + tags=free, default window, a distinct box each',
        'near 2 km, one-year window, limit=20, a distinct point each'].map((name, i) => row(name, 'distinct', encoded[i], { group: 'encoded', cacheHitRate: hit, ...ref })),
      row('distinct filter, page 1', 'distinct', pages[0], { group: 'cursor', paths: 199 }),
      row('distinct filter, page 200 (its cursor walked in the set-up)', 'distinct', pages[1], { group: 'cursor', paths: 199, cacheHitRate: hit,
        reference: 'distinct filter, page 1' }),
      row('the cached URL with a distinct `from` each (a second later each)', 'distinct', 3000, { group: 'misses', ...ref }),
      row('the cached URL with a distinct `near` each (moved about a metre each)', 'distinct', 2500, { group: 'misses', ...ref }),
    ],
    distinctCursorRatio: Math.round((pages[0] / pages[1]) * 1000) / 1000,
    cursorSetup: { filters: 200, windowDays: 30, walkRequests: 10_000, walkS: 12, evicted: 272, checked: 'same cursor' },
  };
}

/** A result with the large phase's rows users produce alone. */
function usersResult(runtimes: RuntimeLarge[], rows = ['encoded', 'cursor', 'misses']): BenchResult {
  const r = demoResult({ node: [0.5], bun: [0.8] });
  r.options.phases = ['large'];
  r.options.rows = rows;
  r.demo = [];
  r.large = { status: 'ran', bundle: '.bench/large-bundle.json', bundleBytes: 1, mapId: 'm', counts: { events: 1_000_000 },
    aim: { near: '1,2', bbox: '0,0,1,1', tags: 'free', source: 's' }, runtimes };
  return r;
}

const target = (r: BenchResult, name: string) => evaluateTargets(r).find((t) => t.name === name)!;

test('encoded distinct rows: ≥ 25% of the cached URL with the same header on every runtime, judged by the worst one', () => {
  const held = target(usersResult([usersRuntime('node', [3000, 4000, 2600], [1000, 900]), usersRuntime('bun', [5000, 5000, 5000], [1000, 900])]), ENCODED_TARGET);
  assert.equal(held.holds, 'yes');
  assert.match(held.measured, /^node \(worst\): near 30%, hit 0%, bbox 40%, hit 0%, year 26%, hit 0%; cached 10,000 req\/s \(br, hit 100%\) · bun: /);
  // Bun's year row at 24% of its cached URL: the target misses, though node's rows (and the mean of the runtimes) clear it.
  const missed = target(usersResult([usersRuntime('node', [9000, 9000, 9000], [1000, 900]), usersRuntime('bun', [5000, 5000, 2400], [1000, 900])]), ENCODED_TARGET);
  assert.equal(missed.holds, 'no');
  assert.match(missed.measured, /^bun \(worst\): .*year 24%, hit 0%;.*\(miss\)/);
});

test('a distinct row a cache answered misses its target, whatever its req/s', () => {
  const r = usersResult([usersRuntime('node', [9000, 9000, 9000], [1000, 1000], 0.4)]);
  const encoded = target(r, ENCODED_TARGET);
  assert.equal(encoded.holds, 'no');
  assert.match(encoded.measured, /hit 40% \(a cache answered them: not distinct\)/);
  assert.equal(target(r, DISTINCT_CURSOR_TARGET).holds, 'no');
  // At most 1% is taken as no cache answering (a live answer made once a second, a stray repeat).
  assert.equal(target(usersResult([usersRuntime('node', [9000, 9000, 9000], [1000, 1000], DISTINCT_HIT_RATE)]), ENCODED_TARGET).holds, 'yes');
});

test('distinct cursor pages: page 1 ÷ page 200 ≤ 1.5× on the worst runtime', () => {
  const held = target(usersResult([usersRuntime('node', [3000, 3000, 3000], [1000, 700]), usersRuntime('deno', [3000, 3000, 3000], [1000, 900])]),
    DISTINCT_CURSOR_TARGET);
  assert.equal(held.holds, 'yes');
  assert.match(held.measured, /^node \(worst\): 1\.429× \(page 1 1,000 req\/s, hit 0%; page 200 700 req\/s, hit 0%; 200 filters walked\) · deno: 1\.111×/);
  const missed = target(usersResult([usersRuntime('node', [3000, 3000, 3000], [1000, 900]), usersRuntime('deno', [3000, 3000, 3000], [1000, 600])]),
    DISTINCT_CURSOR_TARGET);
  assert.equal(missed.holds, 'no');
  assert.match(missed.measured, /^deno \(worst\): 1\.667× .*\(miss\)/);
  // Set-up that found no filter of 200 pages is not a pass.
  const skipped = usersRuntime('node', [3000, 3000, 3000], [1000, 1000]);
  skipped.requests = skipped.requests.filter((q) => q.group !== 'cursor');
  skipped.cursorSetup = { skipped: 'only 0 of 402 30-day windows hold 200 pages of 50 events' };
  assert.equal(target(usersResult([skipped]), DISTINCT_CURSOR_TARGET).holds, 'no');
});

test('real misses are reported as ratios to the cached URL, with no target; rows not run say why', () => {
  const t = target(usersResult([usersRuntime('node', [3000, 3000, 3000], [1000, 900]), usersRuntime('bun', [3000, 3000, 3000], [1000, 900])]), MISSES_TARGET);
  assert.equal(t.holds, '—');
  assert.equal(t.measured, 'node: from 30%, hit 0%, near 25%, hit 0% (cached 10,000 req/s) · bun: from 30%, hit 0%, near 25%, hit 0% (cached 10,000 req/s)');
  const only = usersResult([], ['cached']);
  assert.equal(evaluateTargets(usersResult([usersRuntime('node', [3000, 3000, 3000], [1000, 900])])).find((t) => t.name.startsWith('`--workers 2`'))!.measured,
    'not run: --rows encoded,cursor,misses');
  for (const name of [ENCODED_TARGET, DISTINCT_CURSOR_TARGET, MISSES_TARGET]) {
    const x = target(only, name);
    assert.equal(x.holds, 'not measured');
    assert.equal(x.measured, 'not run: --rows cached');
  }
});

test('the document shows each of the rows users produce with its Accept-Encoding, hit rate and reference', () => {
  const r = usersResult([usersRuntime('node', [3000, 4000, 2600], [1000, 800])]);
  r.targets = evaluateTargets(r);
  const doc = renderReport(r);
  const lines = renderUsersRows(r.large.status === 'ran' ? r.large.runtimes[0] : (undefined as never)).join('\n').split('\n');
  assert.ok(doc.includes(lines.join('\n')));
  const near = lines.find((l) => l.startsWith('| near 5 km, default window, a distinct point each |'))!;
  assert.match(near, /\| encoded \| distinct \| gzip, deflate, br, zstd → br \| 0% \| 3,000 \|.*\| 30% of "near 5 km, default window, one cached URL" \|/);
  const page200 = lines.find((l) => l.startsWith('| distinct filter, page 200'))!;
  assert.match(page200, /\| cursor \| distinct \| identity → identity \| 0% \| 800 \|.*each of 199 paths once.*\| 80% of "distinct filter, page 1" \|/);
  assert.ok(lines.some((l) => /Page 1 ÷ page 200 req\/s = \*\*1\.25×\*\*/.test(l)));
  // The identity rows' table holds none of them.
  assert.doesNotMatch(doc, /\| 1\. near 5 km, default window, one cached URL/);
});

// ---------------------------------------------------------------------------------------------------------------
// Issue 37's rows: fields on distinct questions, the change feed against the export

/** One runtime's cached near URL (no coding) at 10,000 req/s and the three distinct kinds asking fields at `rps`. */
function fieldsRuntime(runtime: 'node' | 'bun' | 'deno', rps: number[], o: { p99?: number; hit?: number } = {}): RuntimeLarge {
  return { ...usersRuntime(runtime, [3000, 3000, 3000], [1000, 900]), requests: [
    row('near 5 km, one cached URL', 'cached', 10_000),
    ...rps.map((x, i) => row(`kind ${i}, fields=id,title,starts_at,ends_at`, 'distinct', x, { group: 'fields', cacheHitRate: o.hit ?? 0, load: loadOf(x, o.p99) })),
  ] };
}

test('distinct questions asking fields hold the distinct-query target (≥ 15% of the cached URL, p99 ≤ 50 ms, no cache) on the worst runtime', () => {
  const held = target(usersResult([fieldsRuntime('node', [2000, 1600, 3000]), fieldsRuntime('bun', [5000, 5000, 5000])], ['cached', 'fields']), FIELDS_TARGET);
  assert.equal(held.holds, 'yes');
  assert.match(held.measured, /^node \(worst\): 20% p99 10 ms, hit 0%, 16% p99 10 ms, hit 0%, 30% p99 10 ms, hit 0% · bun: /);
  assert.equal(target(usersResult([fieldsRuntime('node', [2000, 1600, 3000]), fieldsRuntime('bun', [5000, 1400, 5000])], ['cached', 'fields']), FIELDS_TARGET).holds, 'no');
  assert.equal(target(usersResult([fieldsRuntime('node', [2000, 2000, 2000], { p99: 51 })], ['cached', 'fields']), FIELDS_TARGET).holds, 'no');
  assert.equal(target(usersResult([fieldsRuntime('node', [2000, 2000, 2000], { hit: 0.4 })], ['cached', 'fields']), FIELDS_TARGET).holds, 'no');
  assert.equal(target(usersResult([], ['cached']), FIELDS_TARGET).measured, 'not run: --rows cached');
  // They are rows without content coding: in the runtime's table beside the plain distinct rows, not among the rows users produce.
  const r = usersResult([fieldsRuntime('node', [2000, 1600, 3000])], ['cached', 'fields']);
  r.targets = evaluateTargets(r);
  assert.ok(renderReport(r).split('\n').some((l) => l.startsWith('| 2. kind 0, fields=id,title,starts_at,ends_at | distinct | 0% |')));
  assert.ok(!renderUsersRows(r.large.status === 'ran' ? r.large.runtimes[0] : (undefined as never)).join('\n').includes('fields='));
});

test('the change feed after a publish is shown against the export: bytes on the wire, JSON, time, hit rate and their ratios', () => {
  const download = (requests: number, ms: number, wireBytes: number, bytes: number) => ({ requests, ms, wireBytes, bytes, encoding: 'zstd', cacheHitRate: 0 });
  const text = renderLargePublish({
    bundle: '.bench/large-bundle.json', bundleBytes: 300 * 2 ** 20, events: 1_000_000,
    firstLoad: { ms: 30_000, timeoutMs: 600_000, peakRssMb: 1000, logged: null }, edit: 'e', publishTimeoutMs: 600_000,
    publishes: [{ sighupToServedMs: 20_000, publishMs: 19_000 }], sighupMedianMs: 20_000, sighupMaxMs: 20_000, healthz: null, peakRssMb: 1200, skipped: null,
    feed: { events: 1_000_000, edited: 10_000, publishMs: 21_000, changes: 10_000, limit: 1000, feed: download(10, 900, 2 ** 20, 8 * 2 ** 20),
      export: download(1, 12_000, 80 * 2 ** 20, 700 * 2 ** 20), wireRatio: 0.0125, msRatio: 0.075 },
  });
  assert.match(text, /edits the titles of 10,000 single events, spread over the bundle \(1% of the map's 1,000,000 events; SIGHUP to served 21\.0 s\)/);
  assert.match(text, /\| change feed \| 10 \| 1\.0 MiB \(zstd\) \| 8\.0 MiB \| 900 ms \| 0% \|/);
  assert.match(text, /\| export \| 1 \| 80\.0 MiB \(zstd\) \| 700\.0 MiB \| 12\.0 s \| 0% \|/);
  assert.match(text, /The feed is 1\.25% of the export's bytes on the wire and took 7\.5% of its time\./);
});
