/**
 * The benchmark's serving-threads target (scripts/bench/report.ts): two threads against one over rounds of one
 * thread then two, judged on the ratio of the means, each round's own ratio shown beside it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareThreads } from '../scripts/bench/report.ts';
import type { WorkersRun } from '../scripts/bench/results.ts';
import type { LoadResult } from '../scripts/bench/run-load.ts';

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
