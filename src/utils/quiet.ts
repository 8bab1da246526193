/**
 * When this thread last began answering a request, so that work which can wait (building what a large map's vector
 * tiles are cut from, a second of work on the thread that serves) waits for a quiet moment: no request that arrives in
 * a busy spell pays for it, and a service probed or loaded without pause never starts it (its first tile request
 * does the work then, as it would without this).
 */
import { setTimeout as later } from 'node:timers';

let lastRequestAt = -Infinity;

/** Notes that a request began now (the app, for each request). */
export function noteRequest(): void {
  lastRequestAt = performance.now();
}

/**
 * Resolves true once no request has begun for `quietMs`, looking every `everyMs`; false as soon as `wanted()` says the
 * work is no longer wanted (another version is served). The timers keep no process alive.
 */
export async function whenQuiet(quietMs: number, wanted: () => boolean, everyMs = 250): Promise<boolean> {
  while (wanted()) {
    if (performance.now() - lastRequestAt >= quietMs) return true;
    await new Promise<void>((resolve) => later(resolve, everyMs).unref());
  }
  return false;
}
