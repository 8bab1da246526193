/**
 * Long work on the serving thread, in slices. Building a read model from a large version (a million events)
 * takes seconds of CPU; done in one piece, every request waits that long, /healthz included. Such work is
 * written once, as a generator that yields between small pieces (`Steps`), and then either run at once
 * (`runNow`: tests, the worker) or in slices of a few milliseconds with the event loop let in between
 * (`runSliced`: the serving thread), so requests are answered while a new version is being built.
 */

/** Work that yields (nothing) between pieces and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Loop iterations between yields: a yield costs a clock read, so it is not taken on every item. */
export const STRIDE = 2048;

/** Runs the work to the end at once. */
export function runNow<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** How long a slice of work may hold the thread before the event loop is let in. */
export const SLICE_MS = 2;

/** Lets the event loop run: pending I/O and timers first, then the work goes on. */
const letIn: () => Promise<void> = typeof setImmediate === 'function'
  ? () => new Promise((resolve) => setImmediate(resolve))
  : () => new Promise((resolve) => setTimeout(resolve, 0));

/** Runs the work in slices of about `sliceMs`, letting the event loop in between; `slices` counts them. */
export async function runSliced<T>(steps: Steps<T>, sliceMs = SLICE_MS, stats?: { slices: number }): Promise<T> {
  let end = performance.now() + sliceMs;
  for (;;) {
    const r = steps.next();
    if (r.done) {
      if (stats) stats.slices++;
      return r.value;
    }
    if (performance.now() >= end) {
      if (stats) stats.slices++;
      await letIn();
      end = performance.now() + sliceMs;
    }
  }
}

/**
 * Sorts `items` in place, stably, yielding as it goes: runs of STRIDE items are sorted natively, then merged
 * pairwise. The result is exactly that of a stable `items.sort(compare)`.
 */
export function* sortSteps<T>(items: T[], compare: (a: T, b: T) => number): Steps<T[]> {
  const n = items.length;
  for (let i = 0; i < n; i += STRIDE) {
    const run = items.slice(i, i + STRIDE).sort(compare);
    for (let j = 0; j < run.length; j++) items[i + j] = run[j];
    yield;
  }
  let from = items;
  let to: T[] = new Array<T>(n);
  for (let width = STRIDE; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let a = lo;
      let b = mid;
      for (let k = lo; k < hi; k++) {
        // Ties take the left run first: that keeps the sort stable.
        to[k] = a < mid && (b >= hi || compare(from[a], from[b]) <= 0) ? from[a++] : from[b++];
        if ((k & (STRIDE - 1)) === 0) yield;
      }
    }
    [from, to] = [to, from];
  }
  if (from !== items) for (let k = 0; k < n; k++) items[k] = from[k];
  return items;
}
