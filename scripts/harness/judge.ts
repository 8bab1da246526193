/**
 * How a run and its targets are judged, the same way in every report: a run that began on a busy machine is
 * flagged (loadGate), and a target measured on several runtimes is judged, and shown, by its worst runtime
 * (judgeWorst), never by a mean that one good runtime could lift over the line.
 */

/** The highest 1-minute load average at the start of a run whose numbers are taken as they are. */
export const LOAD_LIMIT = 1.0;

/** The verdict on a run's starting load. */
export interface LoadVerdict {
  /** True when the machine was busy at the start: the report says so, and the run should be done again. */
  flagged: boolean;
  /** The 1-minute load average at the start (NaN when none was read). */
  load: number;
  /** What the report says. */
  text: string;
}

/** Judges a run by the load average (1, 5, 15 min) read when it began: above LOAD_LIMIT, or unknown, it is flagged. */
export function loadGate(loadAvg: readonly number[]): LoadVerdict {
  const load = loadAvg[0] ?? NaN;
  if (Number.isNaN(load)) return { flagged: true, load, text: 'flagged: no load average was read at the start, so nothing says the machine was idle' };
  if (load > LOAD_LIMIT) {
    return { flagged: true, load, text: `flagged: the 1-minute load average was ${load} at the start, above ${LOAD_LIMIT.toFixed(1)}: other work ` +
      'competed with the run, so its numbers are unreliable; rerun on an idle machine' };
  }
  return { flagged: false, load, text: `passed: the 1-minute load average was ${load} at the start (at most ${LOAD_LIMIT.toFixed(1)})` };
}

/**
 * The highest ratio to a reference doing strictly less work (the service ÷ its runtime's bare ceiling, a load with
 * sockets held ÷ the same load without, cache misses ÷ hits) that is taken as measured: above it, the reference ran
 * slower than it can, so other work interfered, and the figure is flagged rather than believed.
 */
export const INTERFERENCE_RATIO = 1;

/** Whether a ratio to a reference doing strictly less work is above 100%: interference, not a result. */
export function isInterference(ratio: number | null | undefined): boolean {
  return ratio !== null && ratio !== undefined && ratio > INTERFERENCE_RATIO;
}

/** One runtime's figure for a target. */
export interface RuntimeCheck {
  runtime: string;
  /** The figure as shown. */
  text: string;
  /** Whether the target holds on this runtime. */
  ok: boolean;
  /** How good the figure is, lower worse (see `margin`); null when there is no number to rank by. */
  score: number | null;
  /** The highest ratio to a reference doing strictly less work in the figure, when it has one (see INTERFERENCE_RATIO). */
  ratio?: number | null;
}

/** A target judged over several runtimes. */
export interface WorstVerdict {
  /** True when the worst runtime holds, and so every runtime does (interference aside: see `interference`). */
  holds: boolean;
  /** The runtime that decides: a missing one before a holding one, then the lowest score. */
  worst: RuntimeCheck;
  /** The runtimes whose ratio is above 100%: their figure is interference, so the target is to be measured again. */
  interference: string[];
  /**
   * The worst runtime first, marked, then the others in their order, each ratio above 100% flagged:
   * `deno (worst): 1.4× (miss) · node: 1.1×`.
   */
  measured: string;
}

/**
 * Judges a target by its worst runtime (never a mean over runtimes, which one good runtime could lift over the
 * line); a ratio above 100% is flagged as interference on its runtime, not averaged away. Null when no runtime
 * was measured.
 */
export function judgeWorst(rows: readonly RuntimeCheck[]): WorstVerdict | null {
  if (rows.length === 0) return null;
  const rank = (a: RuntimeCheck, b: RuntimeCheck) =>
    Number(a.ok) - Number(b.ok) || (a.score !== null && b.score !== null ? a.score - b.score : 0);
  const worst = rows.reduce((w, r) => (rank(r, w) < 0 ? r : w));
  const show = (r: RuntimeCheck, label: string) =>
    `${label}: ${r.text}${r.ok ? '' : ' (miss)'}${isInterference(r.ratio) ? ' (above 100%: interference, rerun)' : ''}`;
  const measured = rows.length === 1 ? show(worst, worst.runtime)
    : [show(worst, `${worst.runtime} (worst)`), ...rows.filter((r) => r !== worst).map((r) => show(r, r.runtime))].join(' · ');
  return { holds: worst.ok, worst, interference: rows.filter((r) => isInterference(r.ratio)).map((r) => r.runtime), measured };
}

/**
 * How far inside its target a figure is, as a ratio: 1 on the line, above 1 inside it, below 1 a miss. `atLeast`:
 * figure ÷ target; `atMost`: target ÷ figure. Scores of different targets compare, so a check of several figures
 * scores its lowest.
 */
export function margin(figure: number, target: number, kind: 'atLeast' | 'atMost'): number {
  return kind === 'atLeast' ? figure / target : target / figure;
}
