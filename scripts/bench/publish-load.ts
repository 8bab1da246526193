/**
 * The load generator of scripts/bench/publish.ts, in a process of its own so that its event loop never delays
 * the /healthz and /readyz probes of the process that publishes (and so that it can be pinned to the load core):
 * autocannon over several paths of one 127.0.0.1 server, each connection sending them in turn.
 *
 *   node scripts/bench/publish-load.ts --url http://127.0.0.1:PORT --path /a --path /b [--connections 16]
 *     [--duration 10] [--warmup 0]
 *
 * `--duration` bounds the measured run; SIGUSR2 ends it earlier (the publisher's "stop": the run then covers
 * exactly the publishes). Writes `measuring` to stderr when the measured run begins (after the warm-up),
 * and prints one line of JSON (a PublishLoadResult).
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

/** The numbers kept from one measured run. */
export interface PublishLoadResult {
  /** Seconds the measured run actually lasted. */
  durationS: number;
  /** True when SIGUSR2 ended the run before `--duration`. */
  stoppedEarly: boolean;
  requests: number;
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; avg: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU time of this process over the measured run, % of one core. */
  generatorCpuPct: number;
}

/** The slice of autocannon's result used here. */
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  requests: { total: number };
}

/** autocannon ships no types: its instance is a thenable with stop(). */
type Instance = PromiseLike<AutocannonResult> & { stop(): void };
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Instance;

if (import.meta.main) {
  try {
    const { values } = parseArgs({
      strict: true,
      options: {
        url: { type: 'string' }, path: { type: 'string', multiple: true }, connections: { type: 'string' },
        duration: { type: 'string' }, warmup: { type: 'string' },
      },
    });
    const url = values.url ?? '';
    // A benchmark run must never send load anywhere else.
    if (new URL(url).hostname !== '127.0.0.1') throw new Error(`refusing to load ${url}: only http://127.0.0.1 targets are allowed`);
    const paths = values.path ?? [];
    if (paths.length === 0) throw new Error('at least one --path is required');
    const durationS = Number(values.duration ?? 10);
    const warmupS = Number(values.warmup ?? 0);
    if (!(durationS > 0) || !(warmupS >= 0)) throw new Error('--duration must be positive and --warmup not negative');
    const base = { url, connections: Number(values.connections ?? 16), timeout: 10,
      requests: paths.map((path) => ({ method: 'GET', path })) };
    if (warmupS > 0) await autocannon({ ...base, duration: warmupS });
    let stoppedEarly = false;
    const cpuBefore = process.cpuUsage();
    const instance = autocannon({ ...base, duration: durationS });
    process.once('SIGUSR2', () => { stoppedEarly = true; instance.stop(); });
    process.stderr.write('measuring\n');
    const r = await instance;
    const cpu = process.cpuUsage(cpuBefore);
    const statusCodes: Record<string, number> = {};
    for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = Number(count);
    const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
    const result: PublishLoadResult = {
      durationS: round(r.duration, 3), stoppedEarly, requests: r.requests.total, rps: round(r.requests.total / Math.max(r.duration, 0.001), 1),
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, avg: round(r.latency.average), max: r.latency.max },
      non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, statusCodes,
      generatorCpuPct: Math.round((cpu.user + cpu.system) / 1e4 / Math.max(r.duration, 0.001)),
    };
    console.log(JSON.stringify(result));
  } catch (err) {
    console.error(String((err as Error).stack ?? err));
    process.exit(1);
  }
}
