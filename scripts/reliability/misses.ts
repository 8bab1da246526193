/**
 * The cache-miss probe: what does a flood of never-repeated URLs cost? On a fresh service, autocannon (10
 * connections, pinned to the load core, `Accept-Encoding: br`) loads one cached URL, the demo's POIs as GeoJSON,
 * then the same path with a random unknown query parameter per request (`?z=<random>`); target: at least 50%
 * of the cached throughput. Then, reported without a target, a wide `/events?map_id=…&from=…` query: one fixed
 * `from`, then a distinct `from` per request (a declared parameter, so each one is a real miss), `to` fixed at the end of the demo's events. The response
 * cache's hit rate (from /readyz) is reported for each run. Run by scripts/reliability.ts; no CLI.
 */
import type { Runtime } from '../../tests/helpers/server.ts';
import { runLoadPinned, type LoadResult } from '../bench/run-load.ts';
import { hitRate, readCacheCounters } from '../harness/http.ts';
import { margin } from '../harness/judge.ts';
import { LOAD_CPU } from '../harness/machine.ts';
import { percent, round } from '../harness/stats.ts';
import { distinctPaths, MAIN_MAP, POIS_PATH, row, say, startService, wideEventsPaths, WIDE_TO, type ProbeOutcome } from './common.ts';

const BR = { 'accept-encoding': 'br' };

/** Runs the cache-miss probe on a fresh service on `runtime`. */
export async function probeMisses(runtime: Runtime, dataDir: string, durationS: number): Promise<ProbeOutcome> {
  const service = await startService(runtime, { dataDir });
  try {
    // Enough distinct paths that none repeats at up to 15,000 requests/s, warm-up included.
    const count = Math.min(400_000, (durationS + 1) * 15_000);
    const eventsBase = `/events?map_id=${MAIN_MAP}`;
    const runs: { name: string; paths?: string[]; path?: string }[] = [
      { name: 'POIs GeoJSON, cached', path: POIS_PATH },
      { name: 'POIs GeoJSON, ?z=<random> per request', paths: distinctPaths(count, 1, (r) => `${POIS_PATH}?z=${Math.floor(r() * 2 ** 48).toString(36)}`) },
      { name: 'events, wide, fixed from (cached)', path: `${eventsBase}&from=2026-11-01T00:00:00Z&${WIDE_TO}` },
      { name: 'events, wide, from=<random date> per request', paths: wideEventsPaths(count, 2) },
    ];
    const results: { name: string; load: LoadResult; hitRate: number | null; wrapped: boolean }[] = [];
    for (const run of runs) {
      const before = await readCacheCounters(service.base);
      const load = await runLoadPinned({ url: run.path ? service.base + run.path : service.base, durationS, warmupS: 1, connections: 10, headers: BR,
        ...(run.paths ? { distinctPaths: run.paths } : {}) }, LOAD_CPU);
      const rate = hitRate(before, await readCacheCounters(service.base));
      say(`${runtime} misses: ${run.name}: ${load.rps}/s, p99 ${load.latencyMs.p99} ms, hit rate ${rate}`);
      results.push({ name: run.name, load, hitRate: rate, wrapped: run.paths ? load.requests > run.paths.length : false });
    }
    const [cached, random, eventsCached, eventsRandom] = results;
    const ratio = round(random.load.rps / Math.max(cached.load.rps, 0.001), 3);
    const eventsRatio = round(eventsRandom.load.rps / Math.max(eventsCached.load.rps, 0.001), 3);
    const show = (r: (typeof results)[number]) => `${r.load.rps}/s, p99 ${r.load.latencyMs.p99} ms, hit rate ${r.hitRate ?? 'n/a'}, ` +
      `${r.load.bytesPerResponse} B/answer, load generator ${r.load.generatorCpuPct}% CPU` +
      `${r.load.non2xx || r.load.errors ? `, ${r.load.non2xx} non-2xx, ${r.load.errors} errors` : ''}`;
    const rows = [
      ...results.map((r) => row(runtime, r.name, show(r))),
      row(runtime, '?z=<random> ÷ cached', percent(ratio, 1), '≥ 50%', ratio >= 0.5, margin(ratio, 0.5, 'atLeast'), ratio),
      row(runtime, 'events from=<random> ÷ events fixed from', percent(eventsRatio, 1)),
      row(runtime, 'events from=<random> ÷ POIs cached', percent(round(eventsRandom.load.rps / Math.max(cached.load.rps, 0.001), 3), 1)),
    ];
    const notes = results.filter((r) => r.wrapped).map((r) => `${runtime} misses: "${r.name}" ran out of distinct paths and wrapped around`);
    const saturated = results.filter((r) => r.load.generatorCpuPct >= 90);
    if (saturated.length) {
      notes.push(`${runtime} misses: the load generator used ≥ 90% of its core in ${saturated.map((r) => `"${r.name}"`).join(', ')}: ` +
        'there the client, not the service, may be the limit, and the ratio understates or overstates the cost of a miss');
    }
    const errors = results.filter((r) => r.load.non2xx > 0 || r.load.errors > 0);
    if (errors.length) notes.push(`${runtime} misses: non-2xx or errors in ${errors.map((r) => `"${r.name}" ${JSON.stringify(r.load.statusCodes)}`).join(', ')}`);
    return { rows, notes, raw: results };
  } finally {
    await service.stop();
  }
}
