/**
 * The soak probe: a fresh service held at 100 connections (autocannon, pinned to the load core) for 60 s
 * (10 s with --quick) over a mix of cached URLs and distinct seeded `/events?map_id=…&near=lat,lng&radius_m=5000`
 * questions around Lisbon, every other request a cached one. Reports requests, errors, non-2xx, p50/p99 and the
 * server's RSS (VmRSS from /proc) before, at half time and after. Run by scripts/reliability.ts; no CLI.
 */
import type { Runtime } from '../../tests/helpers/server.ts';
import { runLoadPinned } from '../bench/run-load.ts';
import { mulberry32 } from '../demo/ids.ts';
import { get, hitRate, readCacheCounters } from '../harness/http.ts';
import { LOAD_CPU } from '../harness/machine.ts';
import { readRss } from '../harness/process-stats.ts';
import { hasExited } from '../harness/spawn.ts';
import { MAIN_MAP, MARKER, POIS_PATH, row, say, startService, type ProbeOutcome } from './common.ts';

/** The cached half of the mix: answers the response cache holds after their first request. */
export const CACHED_PATHS = [
  POIS_PATH,
  `/maps/${MAIN_MAP}?info=true&categories=true&markers=true&map_data=true`,
  `/markers/${MARKER}`,
  `/places-of-interest/items/${MAIN_MAP}?include_counts=true`,
  `/maps/${MAIN_MAP}/lists`,
  `/events?map_id=${MAIN_MAP}&from=2026-11-01T00:00:00Z&to=2026-12-31T23:59:59Z&limit=20`,
];

/**
 * `count` distinct `near` questions on the demo's main map: points within about 10 km of central Lisbon, where
 * its events are (seeded mulberry32, so every run asks the same ones).
 */
export function lisbonNearPaths(count: number, seed = 20261124): string[] {
  const random = mulberry32(seed);
  const seen = new Set<string>();
  while (seen.size < count) {
    const lat = 38.72 + (random() - 0.5) * 0.18;
    const lng = -9.15 + (random() - 0.5) * 0.22;
    seen.add(`/events?map_id=${MAIN_MAP}&near=${lat.toFixed(5)},${lng.toFixed(5)}&radius_m=5000`);
  }
  return [...seen];
}

/** Soaks a fresh service on `runtime` for `durationS` seconds at `connections` connections. */
export async function probeSoak(runtime: Runtime, dataDir: string, durationS: number, connections = 100): Promise<ProbeOutcome> {
  const service = await startService(runtime, { dataDir });
  try {
    // Distinct questions for about 5,000 requests/s of them (half the mix), at most 300,000; past that they wrap
    // around, a repeat coming hundreds of thousands of requests later (far more than the response cache holds).
    const distinct = lisbonNearPaths(Math.min(300_000, durationS * 5000));
    const mix: string[] = [];
    for (let i = 0; i < distinct.length; i++) mix.push(CACHED_PATHS[i % CACHED_PATHS.length], distinct[i]);
    const before = readRss(service.pid, 1);
    const countersBefore = await readCacheCounters(service.base);
    let half: { rssMb: number | null; peakMb: number | null } | null = null;
    let halfTimer: NodeJS.Timeout | undefined;
    say(`${runtime} soak: ${durationS} s at ${connections} connections (${distinct.length} distinct near questions + ${CACHED_PATHS.length} cached URLs)`);
    const load = await runLoadPinned({ url: service.base, durationS, warmupS: 0, connections, distinctPaths: mix, headers: { 'accept-encoding': 'gzip, br' } },
      LOAD_CPU, () => { halfTimer = setTimeout(() => { half = readRss(service.pid, 1); }, (durationS * 1000) / 2); });
    clearTimeout(halfTimer);
    const after = readRss(service.pid, 1);
    const rate = hitRate(countersBefore, await readCacheCounters(service.base));
    const alive = !hasExited(service.child) && (await get(`${service.base}/healthz`, { timeoutMs: 15_000 }).then((a) => a.status === 200, () => false));
    const halfway = half as { rssMb: number | null; peakMb: number | null } | null;
    say(`${runtime} soak: ${load.requests} requests (${load.rps}/s), ${load.errors} errors, ${load.non2xx} non-2xx, p99 ${load.latencyMs.p99} ms; ` +
      `RSS ${before.rssMb} → ${halfway?.rssMb} → ${after.rssMb} MB`);
    const wrapped = load.requests > mix.length;
    const rows = [
      row(runtime, 'requests (requests/s)', `${load.requests} in ${load.durationS} s (${load.rps}/s)`),
      row(runtime, 'errors + timeouts', `${load.errors} + ${load.timeouts}`, '0', load.errors === 0 && load.timeouts === 0, -(load.errors + load.timeouts)),
      row(runtime, 'non-2xx answers', `${load.non2xx} (${JSON.stringify(load.statusCodes)})`, '0', load.non2xx === 0, -load.non2xx),
      row(runtime, 'latency p50 / p99 / max', `${load.latencyMs.p50} / ${load.latencyMs.p99} / ${load.latencyMs.max} ms`),
      row(runtime, 'load generator CPU', `${load.generatorCpuPct}% of a core`),
      row(runtime, 'RSS before / half time / after (peak)', `${before.rssMb} / ${halfway?.rssMb ?? '?'} / ${after.rssMb} MB (${after.peakMb} MB)`),
      row(runtime, 'response cache hit rate', rate === null ? 'not reported' : rate),
      row(runtime, 'service alive and healthy after the soak', alive ? 'yes' : 'no', 'yes', alive),
    ];
    const notes = wrapped ? [`${runtime} soak: the ${mix.length} paths ran out and wrapped around: a distinct question came again ${mix.length} requests later`] : [];
    return { rows, notes, raw: { load, rss: { before, half: halfway, after }, cacheHitRate: rate, distinctPaths: distinct.length } };
  } finally {
    await service.stop();
  }
}
