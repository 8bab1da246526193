/**
 * The reliability report (scripts/reliability/report.ts): it opens with the run header (the full commit, the load
 * average at the start and the end, the load gate), and its summary judges each target by its worst runtime, one
 * line per measure, a ratio above 100% flagged as interference rather than averaged with the other runtimes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderRunHeader } from '../scripts/harness/run-header.ts';
import { row } from '../scripts/reliability/common.ts';
import { renderReport, type ReliabilityReport } from '../scripts/reliability/report.ts';

const HASH = 'fedcba9876543210fedcba9876543210fedcba98';

function report(probes: ReliabilityReport['probes'], loadAvgStart = [0.3, 0.2, 0.1]): ReliabilityReport {
  return {
    generatedAt: '2025-01-01T00:00:00.000Z', command: 'node scripts/reliability.ts --quick', commit: { head: HASH, clean: false, subject: 'subject' },
    elapsedS: 1, quick: true, runtimes: ['node', 'bun'],
    machine: { cpuModel: 'cpu', cores: 2, memoryGb: 24, os: 'os', kernel: 'k', loadAvgStart, loadAvgEnd: [1.2, 0.5, 0.3], pinning: 'pinned', fdLimit: null },
    versions: { node: 'v24' }, probes, raw: {},
  };
}

/** The summary's lines (between "## Summary" and the next section). */
const summary = (markdown: string) => markdown.slice(markdown.indexOf('## Summary'), markdown.indexOf('\n## ', markdown.indexOf('## Summary') + 1));

test('the report opens with the run header: full commit, both load averages, the load gate', () => {
  const lines = renderReport(report([], [1.4, 0.2, 0.1])).split('\n');
  assert.equal(lines[0], '# Reliability');
  const header = renderRunHeader({ commit: { head: HASH, clean: false, subject: 'subject' }, loadAvgStart: [1.4, 0.2, 0.1], loadAvgEnd: [1.2, 0.5, 0.3] });
  assert.deepEqual(lines.slice(2, 5), header);
  assert.match(lines[2], new RegExp(`\`${HASH}\`, \\*\\*work tree not clean\\*\\*`));
  assert.match(lines[3], /1\.4, 0\.2, 0\.1 at the start; 1\.2, 0\.5, 0\.3 at the end/);
  assert.match(lines[4], /\*\*flagged/);
});

test('the summary judges each measure by its worst runtime, never a mean of the runtimes', () => {
  // Throughput held: node 95% (pass), bun 80% (miss). A mean (87.5%) would clear the 90% line.
  const held = (runtime: string, ratio: number) => row(runtime, 'throughput held ÷ baseline', `${ratio * 100}%`, '≥ 90%', ratio >= 0.9, ratio / 0.9, ratio);
  const md = renderReport(report([{ name: 'slow', rows: [held('node', 0.95), held('bun', 0.8)], notes: [], errors: [] }]));
  const s = summary(md);
  const lines = s.split('\n').filter((l) => l.startsWith('| Slow'));
  assert.equal(lines.length, 1, s);
  assert.match(lines[0], /\| bun \(worst\): 80% \(miss\) · node: 95% \| ≥ 90% \| \*\*FAIL\*\* \|$/);
  assert.match(s, /1 of 1 checks fail/);
});

test('the summary flags a ratio above 100% as interference on its runtime', () => {
  const misses = (runtime: string, ratio: number) => row(runtime, '?z=<random> ÷ cached', `${Math.round(ratio * 100)}%`, '≥ 50%', ratio >= 0.5, ratio / 0.5, ratio);
  const lost = (runtime: string, n: number) => row(runtime, 'requests lost', n, '0', n === 0, -n);
  const md = renderReport(report([
    { name: 'misses', rows: [misses('node', 1.15), misses('bun', 0.7)], notes: [], errors: [] },
    { name: 'shutdown', rows: [lost('node', 0), lost('bun', 0)], notes: [], errors: [] },
  ]));
  const s = summary(md);
  assert.match(s, /\| Cache misses \| \?z=<random> ÷ cached \| bun \(worst\): 70% · node: 115% \(above 100%: interference, rerun\) \| ≥ 50% \| \*\*interference: rerun\*\* \|/);
  assert.match(s, /\| Shutdown \| requests lost \| node \(worst\): 0 · bun: 0 \| 0 \| pass \|/);
  assert.match(s, /1 of 2 checks fail or are to be measured again/);
});
