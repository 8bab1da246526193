/**
 * The reliability harness: for each runtime, starts the real service on the demo content and probes how it
 * holds up — fuzzed requests (no 5xx, every 4xx problem+json), a soak at 100 connections (errors, latency, RSS),
 * slow and idle clients (throughput while 2,100 sockets are held), cache misses (a random query per request), and
 * a graceful shutdown under load (no request lost). Each probe starts its own service and stops by itself.
 * Writes docs/reliability.md (the run header: commit, load average at the start and the end, the load gate; the machine;
 * the targets judged by their worst runtime; one table per probe with targets and pass/fail).
 *
 *   npm run reliability                                          # everything, every runtime: about 10-15 minutes
 *   node scripts/reliability.ts --quick --runtimes node          # smoke check: 5,000 fuzz requests, short loads
 *   node scripts/reliability.ts --only fuzz,shutdown --out /tmp/r.md
 *
 * Flags: --runtimes node,bun,deno (all), --only fuzz,soak,slow,misses,shutdown (all), --quick, --out PATH
 * (docs/reliability.md), --fuzz-count N (100,000; 5,000 with --quick).
 * Exits 0 when every probe ran (a missed target is reported in the document, not an error), 1 when a probe
 * could not run to the end (a server that did not start, a load generator that failed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Runtime } from '../tests/helpers/server.ts';
import { printUsage, runMain } from './harness/cli.ts';
import { loadGate } from './harness/judge.ts';
import { canPin, describeMachine, LOAD_CPU, readCommit, readLoadAverage, readVersions, ROOT, SERVER_CPU } from './harness/machine.ts';
import { fdLimits } from './harness/process-stats.ts';
import { killChildren } from './harness/spawn.ts';
import { say, type Machine, type ProbeOutcome } from './reliability/common.ts';
import { probeFuzz } from './reliability/probe-fuzz.ts';
import { probeMisses } from './reliability/misses.ts';
import { PROBES, renderReport, type ProbeName, type ReliabilityReport } from './reliability/report.ts';
import { probeShutdown } from './reliability/shutdown.ts';
import { probeSlow } from './reliability/slow.ts';
import { probeSoak } from './reliability/soak.ts';

const ALL_RUNTIMES: Runtime[] = ['node', 'bun', 'deno'];
const ALL_PROBES = Object.keys(PROBES) as ProbeName[];

/** The command line. */
function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      runtimes: { type: 'string' }, only: { type: 'string' }, quick: { type: 'boolean' }, out: { type: 'string' },
      'fuzz-count': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  // The usage is this file's opening comment.
  if (values.help) printUsage(import.meta.url);
  const list = (text: string | undefined, all: readonly string[], what: string) => {
    const items = (text ?? all.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
    for (const item of items) if (!all.includes(item)) throw new Error(`unknown ${what} ${item}; use ${all.join(', ')}`);
    if (items.length === 0) throw new Error(`no ${what} given`);
    return items;
  };
  const quick = values.quick ?? false;
  const fuzzCount = Number(values['fuzz-count'] ?? (quick ? 5000 : 100_000));
  if (!(fuzzCount > 0) || !Number.isInteger(fuzzCount)) throw new Error(`--fuzz-count must be a positive integer, not ${values['fuzz-count']}`);
  const only = list(values.only, ALL_PROBES, 'probe');
  return {
    quick, fuzzCount,
    runtimes: list(values.runtimes, ALL_RUNTIMES, 'runtime') as Runtime[],
    probes: ALL_PROBES.filter((p) => only.includes(p)),
    out: resolve(values.out ?? join(ROOT, 'docs/reliability.md')),
  };
}

/** Runs one probe on one runtime. */
function runProbe(name: ProbeName, runtime: Runtime, dataDir: string, o: ReturnType<typeof parseOptions>): Promise<ProbeOutcome> {
  switch (name) {
    case 'fuzz': return probeFuzz(runtime, dataDir, o.fuzzCount);
    case 'soak': return probeSoak(runtime, dataDir, o.quick ? 10 : 60);
    case 'slow': return probeSlow(runtime, dataDir, o.quick ? 5 : 10);
    case 'misses': return probeMisses(runtime, dataDir, o.quick ? 3 : 8);
    case 'shutdown': return probeShutdown(runtime, dataDir);
  }
}

/** Runs every probe on every runtime and writes the report; resolves with the exit code. */
async function main(): Promise<number> {
  const o = parseOptions(process.argv.slice(2));
  const began = performance.now();
  const machine: Machine = {
    ...describeMachine(), loadAvgStart: readLoadAverage(),
    pinning: canPin() ? `servers on core ${SERVER_CPU}; load generators and socket holders on core ${LOAD_CPU} (taskset -c)` : 'not pinned',
    fdLimit: fdLimits('self'),
  };
  const commit = readCommit();
  const versions = readVersions();
  say(`load gate ${loadGate(machine.loadAvgStart).text}`);
  say(`${machine.cpuModel}, ${machine.cores} cores; ${machine.pinning}; probes ${o.probes.join(', ')} on ${o.runtimes.join(', ')}`);
  // A throwaway data directory per runtime: the first start writes the demo's store, later starts reuse it.
  const work = mkdtempSync(join(tmpdir(), 'reliability-'));
  const probes: ReliabilityReport['probes'] = o.probes.map((name) => ({ name, rows: [], notes: [], errors: [] }));
  const raw: ReliabilityReport['raw'] = {};
  let broken = false;
  try {
    for (const runtime of o.runtimes) {
      const dataDir = join(work, `data-${runtime}`);
      for (const probe of probes) {
        try {
          const outcome = await runProbe(probe.name, runtime, dataDir, o);
          probe.rows.push(...outcome.rows);
          probe.notes.push(...outcome.notes);
          (raw[probe.name] ??= {})[runtime] = outcome.raw;
        } catch (err) {
          broken = true;
          const message = `${runtime}: ${(err as Error).message}`;
          probe.errors.push(message);
          say(`${runtime} ${probe.name} FAILED: ${message}`);
          killChildren();
        }
      }
    }
    const report: ReliabilityReport = {
      generatedAt: new Date().toISOString(), command: ['node', 'scripts/reliability.ts', ...process.argv.slice(2)].join(' '),
      commit, elapsedS: Math.round((performance.now() - began) / 1000), quick: o.quick, runtimes: o.runtimes,
      machine: { ...machine, loadAvgEnd: readLoadAverage() }, versions, probes, raw,
    };
    await mkdir(resolve(o.out, '..'), { recursive: true });
    await writeFile(o.out, renderReport(report));
    for (const p of probes) {
      for (const r of p.rows) if (r.pass !== null) console.log(`${(r.pass ? 'pass' : 'FAIL').padEnd(5)} ${p.name} ${r.runtime}: ${r.measure}: ${r.value} (target ${r.target})`);
      for (const e of p.errors) console.log(`ERROR ${p.name} ${e.split('\n')[0]}`);
    }
    console.log(`wrote ${o.out} in ${report.elapsedS} s`);
    return broken ? 1 : 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await runMain('reliability', main);
