/**
 * What checking a bundle finds: problems (the loader refuses the bundle) and warnings (it is accepted, but is
 * probably a mistake). Kept apart from the check itself, so the store and the read model can hold a version's
 * warnings without importing the check.
 */

/** One problem or warning: the JSON path it is about, and a message that names its record. */
export interface Finding {
  path: string;
  message: string;
}

/** How many characters of a value a message shows. */
const SHOWN_CHARS = 60;

/** Cuts text to `max` characters, marking the cut with an ellipsis. */
export const cut = (text: string, max = SHOWN_CHARS) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Shows a value as JSON for a message, cut to about 60 characters. */
export function showValue(value: unknown, max = SHOWN_CHARS): string {
  return cut(value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value), max);
}

/** How many of a version's warnings are kept with it (every one is counted). */
export const KEPT_WARNINGS = 100;

/** A version's warnings: how many its bundle had, and the first KEPT_WARNINGS of them. */
export interface VersionWarnings {
  count: number;
  first: Finding[];
}

/** One thing wrong with a bundle. */
export interface BundleProblem {
  path: string;
  message: string;
}

/** Thrown when a bundle is refused; carries every problem found. */
export class BundleError extends Error {
  readonly problems: BundleProblem[];
  constructor(problems: BundleProblem[]) {
    super(`content bundle refused: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n` +
      problems.map((p) => `  ${p.path}: ${p.message}`).join('\n'));
    this.name = 'BundleError';
    this.problems = problems;
  }
}
