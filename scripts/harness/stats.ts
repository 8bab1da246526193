/**
 * The statistics the measurement scripts report: median, nearest-rank percentile, mean, and rounding for display.
 * One definition each, so the benchmark and the reliability report compute them the same way.
 */

/** Rounds to `d` decimals. */
export function round(x: number, d = 2): number {
  return Math.round(x * 10 ** d) / 10 ** d;
}

/** A ratio as a percentage with `d` decimals (0.4567 → "46%", or "45.7%" with one). */
export function percent(x: number, d = 0): string {
  return `${Math.round(x * 10 ** (d + 2)) / 10 ** d}%`;
}

/** The median of a list of numbers (the mean of the middle two for an even count); NaN for none. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The nearest-rank percentile `q` (0 to 1) of a list of numbers: a value of the list; NaN for none. */
export function percentile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.max(0, Math.min(s.length - 1, Math.ceil(q * s.length) - 1))] : NaN;
}

/** The arithmetic mean of a list of numbers; NaN for none. */
export function mean(xs: readonly number[]): number {
  return xs.reduce((sum, x) => sum + x, 0) / xs.length;
}
