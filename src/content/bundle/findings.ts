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

/** How many of a version's warnings are kept with it (every one is counted). */
export const KEPT_WARNINGS = 100;

/** A version's warnings: how many its bundle had, and the first KEPT_WARNINGS of them. */
export interface VersionWarnings {
  count: number;
  first: Finding[];
}
