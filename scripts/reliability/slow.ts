/**
 * The slow-client probe: can 1,000 slowloris clients and 1,100 idle connections take a service's throughput
 * away? A fresh service runs with its open-file limit at 4,096 (soft and hard, set by bash before exec). First a
 * baseline: wrk (autocannon where wrk cannot be installed), 10 connections, each request a wide events question asked
 * once (neither cache answers it, so the service, not the load generator, is the limit). Then slow-holder.ts (a child
 * process through bash with `ulimit -n 8192`, on the load core) opens the slow and idle sockets; once they are held,
 * the same load runs again, and once they are gone the baseline is measured a second time. Target: at least 90% of
 * the higher baseline (two baselines bracket the run: a service still warming up, or a machine that sped up, made the
 * held run faster than a single baseline before it, a ratio above 100% that said nothing of the service). Also
 * reported: how many slow and idle sockets the server closed, and after how long (it is never asked to reconnect, so
 * what the server closed stays closed), and whether the service still answers once they are gone. Run by
 * scripts/reliability.ts; no CLI.
 */
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '../../tests/helpers/server.ts';
import { runLoadPinned, type LoadResult } from '../bench/run-load.ts';
import { runWrk, wrkAvailable } from '../bench/run-wrk.ts';
import { get } from '../harness/http.ts';
import { margin } from '../harness/judge.ts';
import { LOAD_CPU } from '../harness/machine.ts';
import { fdLimits, openFds } from '../harness/process-stats.ts';
import { hasExited, spawnTracked, wrapCommand } from '../harness/spawn.ts';
import { percent, round } from '../harness/stats.ts';
import { POIS_PATH, row, say, startService, wideEventsPaths, type ProbeOutcome } from './common.ts';

const HOLDER = fileURLToPath(new URL('./slow-holder.ts', import.meta.url));

/** Distinct questions made per second of a run: well above what a service answers of them (about 2,000/s). */
const SLOW_PATHS_PER_S = 8_000;

/** The server's open-file limit during this probe, and the holder's. */
export const SERVER_FD_LIMIT = 4096;
export const HOLDER_FD_LIMIT = 8192;

/** What the holder reports about one kind of socket. */
interface HolderKind {
  asked: number; connected: number; open: number; closedByServer: number;
  closedAfterS: { first: number | null; median: number | null; last: number | null };
  connectFailed: Record<string, number>; serverSaid: Record<string, number>; bytesSent: number;
}
interface HolderStatus { event: string; atS: number; fdLimit?: string | null; slow: HolderKind; idle: HolderKind }

/** Starts the holder and returns a way to ask it for its status, and to stop it (resolving with its summary). */
function startHolder(port: number, slow: number, idle: number): {
  held: Promise<HolderStatus>; status(): Promise<HolderStatus>; stop(): Promise<HolderStatus | null>;
} {
  // The hard limit may be below 8,192: then take what it allows (the holder reports the limit it got).
  const holder = wrapCommand([process.execPath, HOLDER, '--port', String(port), '--slow', String(slow), '--idle', String(idle), '--interval', '5',
    '--path', POIS_PATH], LOAD_CPU);
  const child = spawnTracked(['bash', '-c', `ulimit -n ${HOLDER_FD_LIMIT} 2>/dev/null || ulimit -Sn "$(ulimit -Hn)"; exec "$@"`, 'bash', ...holder],
    { stdin: true });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const waiting: { event: string; resolve(s: HolderStatus): void; reject(e: Error): void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: HolderStatus;
    try {
      message = JSON.parse(line) as HolderStatus;
    } catch {
      return;
    }
    const at = waiting.findIndex((w) => w.event === message.event);
    if (at >= 0) waiting.splice(at, 1)[0].resolve(message);
  });
  child.once('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the socket holder exited (${code}) before its ${w.event} line: ${stderr.slice(-1500)}`));
  });
  const expect = (event: string, timeoutMs: number) => new Promise<HolderStatus>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the socket holder sent no ${event} line in ${timeoutMs / 1000} s`)), timeoutMs);
    waiting.push({ event, resolve: (s) => { clearTimeout(timer); resolve(s); }, reject: (e) => { clearTimeout(timer); reject(e); } });
  });
  const held = expect('held', 120_000);
  return {
    held,
    status() {
      const answer = expect('status', 10_000);
      child.stdin!.write('status\n');
      return answer;
    },
    async stop() {
      if (hasExited(child)) return null;
      const summary = expect('summary', 15_000).catch(() => null);
      child.stdin!.end('stop\n');
      const result = await summary;
      if (!hasExited(child)) child.kill('SIGKILL');
      return result;
    },
  };
}

/** `12 (first 10.1 s, median 10.9 s, last 11.2 s)`. */
function showClosed(k: HolderKind): string {
  if (k.closedByServer === 0) return `0 of ${k.connected}`;
  const c = k.closedAfterS;
  return `${k.closedByServer} of ${k.connected} (after ${c.first} s first, ${c.median} s median, ${c.last} s last)`;
}

/** Runs the slow-client probe on a fresh service on `runtime`. */
export async function probeSlow(runtime: Runtime, dataDir: string, durationS: number, slow = 1000, idle = 1100): Promise<ProbeOutcome> {
  const service = await startService(runtime, { dataDir, fdLimit: SERVER_FD_LIMIT });
  const serverLimits = fdLimits(service.pid);
  let holder: ReturnType<typeof startHolder> | null = null;
  try {
    const url = service.base + POIS_PATH;
    // What the held sockets could take away is the service's CPU and event loop, so the service must be the limit:
    // on a cached URL autocannon and then wrk used their whole core, both runs measured the load generator, and the
    // held run came out 5 to 20% faster than the baseline. Each run asks questions of its own (a cached answer would
    // be cheap again), more than it can send.
    const wrk = wrkAvailable(say);
    const generator = wrk ? 'wrk' : 'autocannon';
    let seed = 100;
    const measure = (): Promise<LoadResult> => {
      const o = { url: service.base, distinctPaths: wideEventsPaths((durationS + 1) * SLOW_PATHS_PER_S, seed++), durationS, warmupS: 1,
        connections: 10, drainPid: service.pid };
      return wrk ? runWrk(o, LOAD_CPU) : runLoadPinned(o, LOAD_CPU);
    };
    say(`${runtime} slow: baseline with ${generator}, ${durationS} s at 10 connections (server open-file limit ${serverLimits?.soft}/${serverLimits?.hard})`);
    const baseline = await measure();
    say(`${runtime} slow: baseline ${baseline.rps}/s; opening ${slow} slowloris and ${idle} idle sockets`);
    const openedAt = performance.now();
    holder = startHolder(service.port, slow, idle);
    const held = await holder.held;
    const serverFds = openFds(service.pid);
    say(`${runtime} slow: held ${held.slow.open} slow + ${held.idle.open} idle after ${round((performance.now() - openedAt) / 1000, 1)} s ` +
      `(server fds ${serverFds}); measuring again`);
    const atStart = await holder.status();
    let under: LoadResult | null = null;
    let loadError: string | null = null;
    try {
      under = await measure();
    } catch (err) {
      loadError = (err as Error).message;
    }
    const atEnd = await holder.status();
    // Hold on until 40 s after opening, so closes by a headers or idle timeout of the service (10 s by default) are seen.
    const holdUntil = openedAt + Math.max(40_000, (durationS + 5) * 1000);
    if (performance.now() < holdUntil && !hasExited(service.child)) await sleep(holdUntil - performance.now());
    const summary = (await holder.stop()) ?? atEnd;
    holder = null;
    await sleep(500);
    const after = await get(url, { timeoutMs: 15_000 }).then((a) => a.status, (e: Error) => e.message);
    say(`${runtime} slow: the baseline again, the sockets released`);
    const baselineAfter = await measure().catch(() => null);
    const reference = Math.max(baseline.rps, baselineAfter?.rps ?? 0);
    const ratio = under ? round(under.rps / Math.max(reference, 0.001), 3) : 0;
    say(`${runtime} slow: under hold ${under?.rps ?? 'failed'}/s (${percent(ratio, 1)} of the higher baseline, ${baseline.rps} and ` +
      `${baselineAfter?.rps ?? 'failed'}/s); server closed ${summary.slow.closedByServer} slow, ` +
      `${summary.idle.closedByServer} idle`);
    const failures = (s: HolderKind) => Object.entries(s.connectFailed).map(([k, v]) => `${k}×${v}`).join(', ') || 'none';
    const rows = [
      row(runtime, 'server open-file limit (soft/hard); holder\'s', `${serverLimits?.soft}/${serverLimits?.hard}; ${held.fdLimit ?? '?'}`),
      row(runtime, 'load generator', generator),
      row(runtime, 'baseline: requests/s, p99 (10 connections)', `${baseline.rps}/s, p99 ${baseline.latencyMs.p99} ms` +
        `${baseline.errors ? `, ${baseline.errors} errors` : ''}; load generator ${baseline.generatorCpuPct}% CPU`),
      row(runtime, 'with the slow and idle sockets held: requests/s, p99',
        under ? `${under.rps}/s, p99 ${under.latencyMs.p99} ms, ${under.errors} errors, ${under.timeouts} timeouts, ${under.non2xx} non-2xx; ` +
          `load generator ${under.generatorCpuPct}% CPU` : `failed: ${loadError}`),
      row(runtime, 'the baseline again, once the sockets were released: requests/s, p99',
        baselineAfter ? `${baselineAfter.rps}/s, p99 ${baselineAfter.latencyMs.p99} ms; load generator ${baselineAfter.generatorCpuPct}% CPU` : 'failed'),
      row(runtime, 'throughput held ÷ baseline', percent(ratio, 1), '≥ 90%', ratio >= 0.9, margin(ratio, 0.9, 'atLeast'), ratio),
      row(runtime, 'server\'s open descriptors once the sockets were held', serverFds ?? 'unknown'),
      row(runtime, 'sockets held when the measured run began / ended (slow + idle)',
        `${atStart.slow.open} + ${atStart.idle.open} / ${atEnd.slow.open} + ${atEnd.idle.open}`),
      row(runtime, 'slowloris sockets the server closed (after s)', showClosed(summary.slow)),
      row(runtime, 'idle sockets the server closed (after s)', showClosed(summary.idle)),
      row(runtime, 'sockets that could not connect (slow; idle)', `${failures(summary.slow)}; ${failures(summary.idle)}`),
      row(runtime, 'what the server sent before closing (slow; idle)',
        `${JSON.stringify(summary.slow.serverSaid)}; ${JSON.stringify(summary.idle.serverSaid)}`),
      row(runtime, 'a request after the sockets were released', String(after), '200', after === 200),
    ];
    const notes = baseline.generatorCpuPct >= 90
      ? [`${runtime} slow: the load generator used ${baseline.generatorCpuPct}% of its core in the baseline, so the baseline may be the client's limit, ` +
        'not the service\'s; a drop under the held sockets is still the service\'s']
      : [];
    return { rows, notes, raw: { generator, serverFdLimit: serverLimits, serverFdsHeld: serverFds, baseline, baselineAfter, under, loadError, held, atStart, atEnd, summary, after } };
  } finally {
    if (holder) await holder.stop().catch(() => null);
    await service.stop();
  }
}
