/**
 * What every measurement report opens with: the commit it ran at (and whether the work tree was clean), the
 * load average when it began and when it ended, and the load gate's verdict on the start.
 */
import { loadGate, LOAD_LIMIT } from './judge.ts';
import type { Commit } from './machine.ts';

/** The facts of one run the header shows. */
export interface RunFacts {
  commit: Commit;
  /** 1, 5 and 15-minute load averages when the run began, and when it ended (null while it runs). */
  loadAvgStart: number[];
  loadAvgEnd: number[] | null;
}

/** The commit as one line: `abc…` (40 hex digits), clean or not, and its subject. */
function describeCommitLine(c: Commit): string {
  if (c.head === null) return 'unknown (not a git checkout)';
  return `\`${c.head}\`${c.clean ? ', work tree clean' : ', **work tree not clean** (uncommitted or untracked changes)'}` +
    `${c.subject ? ` (${c.subject})` : ''}`;
}

/** The header's markdown lines: commit, load average at the start and at the end, and the load gate. */
export function renderRunHeader(r: RunFacts): string[] {
  const gate = loadGate(r.loadAvgStart);
  return [
    `- **Commit**: ${describeCommitLine(r.commit)}`,
    `- **Load average** (1, 5, 15 min): ${r.loadAvgStart.join(', ')} at the start; ${r.loadAvgEnd?.join(', ') ?? '–'} at the end`,
    `- **Load gate** (1-minute load average at the start ≤ ${LOAD_LIMIT.toFixed(1)}): ${gate.flagged ? `**${gate.text}**` : gate.text}`,
  ];
}
