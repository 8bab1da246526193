/**
 * The reliability report: docs/reliability.md, in markdown. The run header (commit, load average at the start and
 * the end, the load gate), the machine, a summary of every target judged by its worst runtime, then one table per
 * probe (runtime, measure, value, target, pass or fail), its notes, and the raw numbers as JSON. Used by
 * scripts/reliability.ts; no CLI.
 */
import { judgeWorst, type WorstVerdict } from '../harness/judge.ts';
import type { Commit } from '../harness/machine.ts';
import { renderRunHeader } from '../harness/run-header.ts';
import type { Machine, Row } from './common.ts';

/** The probes, in the order they run, with what each one does (the report's section text). */
export const PROBES = {
  fuzz: {
    title: 'Fuzz',
    about: 'Seeded raw HTTP/1.1 requests over every path template of /openapi.json (scripts/reliability/fuzz.ts): real demo ids mixed ' +
      'with mutated path values, mutated query values per declared parameter, odd methods and headers, and now and then raw bytes ' +
      'in the target, over 16 keep-alive sockets. An answer with `x-request-id` was made by the service; one without it by the ' +
      "runtime's HTTP parser before the app (counted apart). \"Malformed\" requests are broken at the HTTP level (raw bytes, " +
      'headers past 16 KB, conflicting framing, a lowercase method, no Host): a runtime may answer or close on them.',
  },
  soak: {
    title: 'Soak',
    about: '100 connections (autocannon) over a mix of cached URLs and distinct seeded `/events?map_id=…&near=lat,lng&radius_m=5000` ' +
      'questions around Lisbon, every other request a distinct one; RSS is VmRSS from /proc.',
  },
  slow: {
    title: 'Slow clients',
    about: 'Wide events questions on the demo, each asked once (a `from` of its own: neither cache answers them, so the ' +
      'service is the limit), under wrk (autocannon where wrk cannot be installed; its row says which), 10 connections, ' +
      'first alone, then while 1,000 slowloris sockets (a partial request line or partial headers, one more byte every ~5 s, never finished) and 1,100 idle sockets (connected, ' +
      'nothing sent) are held by a separate process. The server runs with its open-file limit at 4,096 (soft and hard); the ' +
      'holder asks for 8,192. Sockets the server closes are not reopened. Once they are gone, the baseline is measured again, and ' +
      'the held run is judged against the higher of the two baselines.',
  },
  misses: {
    title: 'Cache misses',
    about: '10 connections, `Accept-Encoding: br`: a cached URL against the same path with a random unknown query parameter per ' +
      'request, and a wide events query with one fixed `from` against a distinct `from` per request.',
  },
  shutdown: {
    title: 'Shutdown',
    about: '50 keep-alive connections sending requests for a cached URL back to back; SIGTERM after 2 s. A request is lost when it ' +
      'was written on an open connection and never answered; a refused new connection after the listener closed is not a failure.',
  },
} as const;

export type ProbeName = keyof typeof PROBES;

/** Everything the report shows. */
export interface ReliabilityReport {
  generatedAt: string;
  command: string;
  commit: Commit;
  elapsedS: number;
  quick: boolean;
  runtimes: string[];
  machine: Machine & { loadAvgEnd: number[] };
  versions: Record<string, string>;
  probes: { name: ProbeName; rows: Row[]; notes: string[]; errors: string[] }[];
  raw: Record<string, Record<string, unknown>>;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const verdict = (pass: boolean | null) => (pass === null ? '' : pass ? 'pass' : '**FAIL**');

/** A probe's targeted measure judged over the runtimes that ran it. */
export interface JudgedMeasure { probe: string; measure: string; target: string; verdict: WorstVerdict }

/**
 * Every measure with a target, judged by its worst runtime (scripts/harness/judge.ts): one entry per probe and
 * measure, in the order the probes ran; a row with no verdict on some runtime (pass null) is left out there.
 */
export function judgeMeasures(probes: ReliabilityReport['probes']): JudgedMeasure[] {
  const judged: JudgedMeasure[] = [];
  for (const p of probes) {
    const measures = [...new Set(p.rows.filter((x) => x.pass !== null).map((x) => x.measure))];
    for (const measure of measures) {
      const rows = p.rows.filter((x) => x.measure === measure && x.pass !== null);
      const verdict = judgeWorst(rows.map((x) => ({ runtime: x.runtime, text: x.value, ok: x.pass!, score: x.score, ratio: x.ratio })));
      if (verdict) judged.push({ probe: PROBES[p.name].title, measure, target: rows[0].target, verdict });
    }
  }
  return judged;
}

/** A judged measure's result: pass, fail, or interference (a ratio above 100%: to be measured again). */
const judgedResult = (v: WorstVerdict) => (v.interference.length > 0 ? '**interference: rerun**' : verdict(v.holds));

/** The markdown of the report. */
export function renderReport(r: ReliabilityReport): string {
  const out: string[] = [];
  const m = r.machine;
  out.push('# Reliability', '',
    ...renderRunHeader({ commit: r.commit, loadAvgStart: m.loadAvgStart, loadAvgEnd: m.loadAvgEnd }), '',
    `Measured by \`${r.command}\` on ${r.generatedAt.slice(0, 10)} (${r.generatedAt}) in ${r.elapsedS} s` +
    `${r.quick ? ' (**--quick**: short runs, smaller counts)' : ''}. Runtimes: ${r.runtimes.join(', ')}. ` +
    'Every probe starts its own service on the demo content (data/demo-bundle.json), on 127.0.0.1.', '');
  out.push('## Machine', '', '| | |', '|---|---|',
    `| CPU | ${m.cpuModel}, ${m.cores} cores |`, `| Memory | ${m.memoryGb} GB |`, `| OS | ${m.os}, kernel ${m.kernel} |`,
    `| Pinning | ${m.pinning} |`, `| Open-file limit of the harness (soft/hard) | ${m.fdLimit ? `${m.fdLimit.soft}/${m.fdLimit.hard}` : 'unknown'} |`,
    ...Object.entries(r.versions).map(([k, v]) => `| ${k} | ${v} |`), '');

  // Every measure with a target, in one place, judged by its worst runtime.
  const judged = judgeMeasures(r.probes);
  const errors = r.probes.flatMap((p) => p.errors.map((e) => ({ probe: PROBES[p.name].title, error: e })));
  const failed = judged.filter((x) => !x.verdict.holds || x.verdict.interference.length > 0).length + errors.length;
  out.push('## Summary', '', failed === 0 ? `Every target holds (${judged.length} checked).`
    : `${failed} of ${judged.length + errors.length} checks fail or are to be measured again.`, '',
  'Each target is judged by its worst runtime, shown first; "interference" marks a ratio above 100% to a reference doing strictly ' +
    'less work, which only other work on the machine explains.', '',
  '| Probe | Measure | Measured (worst runtime first) | Target | Result |', '|---|---|---|---|---|',
  ...judged.map((x) => `| ${x.probe} | ${cell(x.measure)} | ${cell(x.verdict.measured)} | ${cell(x.target)} | ${judgedResult(x.verdict)} |`),
  ...errors.map((x) => `| ${x.probe} | the probe did not finish | ${cell(x.error.split('\n')[0].slice(0, 200))} | finishes | **FAIL** |`), '');

  for (const p of r.probes) {
    out.push(`## ${PROBES[p.name].title}`, '', PROBES[p.name].about, '');
    if (p.rows.length > 0) {
      out.push('| Runtime | Measure | Value | Target | Result |', '|---|---|---|---|---|',
        ...p.rows.map((x) => `| ${x.runtime} | ${cell(x.measure)} | ${cell(x.value)} | ${cell(x.target)} | ${verdict(x.pass)} |`), '');
    }
    for (const e of p.errors) out.push(`- **The probe failed:** ${cell(e.split('\n').slice(0, 3).join(' ').slice(0, 600))}`);
    for (const n of p.notes) out.push(n.startsWith('  ') ? n : `- ${n}`);
    if (p.errors.length || p.notes.length) out.push('');
  }
  out.push('## Raw results', '', '<details><summary>JSON</summary>', '', '```json', JSON.stringify(r.raw, null, 1), '```', '', '</details>', '');
  return out.join('\n');
}
