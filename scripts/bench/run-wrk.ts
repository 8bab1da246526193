/**
 * One bounded load run with wrk (Debian's package, installed when missing): a warm-up (discarded), then the
 * measured run, each request the next of a list of distinct paths (scripts/bench/distinct.lua), on one wrk thread.
 *
 * Why a second load generator: the serving-threads comparison (`--workers 1` against `--workers 2`) shares the
 * machine's two cores with the load generator, so the generator's own CPU caps what two threads can show.
 * autocannon takes about 40% of a core for ~6,000 distinct answers a second, so on two cores the server has at most
 * 160%: 1.6× is the most two threads could show before any cost of their own. wrk, in C, takes about a quarter of
 * that. The benchmark runs the comparison with both and reports both.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDebianPackage } from '../../tests/helpers/debian.ts';
import { spawnTracked, wrapCommand } from '../harness/spawn.ts';
import { checkLoopback, waitIdle, type LoadOptions, type LoadResult } from './run-load.ts';

/** Debian's wrk. */
export const WRK = '/usr/bin/wrk';

const SCRIPT = fileURLToPath(new URL('./distinct.lua', import.meta.url));

/** What distinct.lua prints. */
interface WrkSummary {
  requests: number; duration_us: number; bytes: number; connect: number; read: number; write: number; status: number; timeout: number;
  p50_us: number; p90_us: number; p99_us: number; mean_us: number; max_us: number;
}

/** wrk, installed with apt-get when missing; null (with the reason logged) when it cannot be. */
export function wrkAvailable(log: (line: string) => void): string | null {
  try {
    ensureDebianPackage('wrk', WRK, 'the benchmark\'s serving-threads rows', log);
    return WRK;
  } catch (err) {
    log(`# wrk is not available: ${String((err as Error).message ?? err).split('\n')[0]}`);
    return null;
  }
}

/**
 * Runs wrk once over `paths` from line `start`; resolves with its summary and its CPU seconds (read from the
 * shell that waited for it: a parent's children's times count a child once it has been waited for).
 */
function wrkOnce(url: string, o: LoadOptions, pathsFile: string, start: number, durationS: number,
  cpu: string | null): Promise<{ summary: WrkSummary; cpuS: number }> {
  const headers = Object.entries(o.headers ?? {}).map(([name, value]) => `${name}: ${value}`);
  const wrk = [WRK, '-t1', `-c${o.connections}`, `-d${durationS}s`, '--timeout', '10s', '-s', SCRIPT, url, '--', pathsFile, String(start), ...headers];
  const command = wrapCommand(wrk, cpu);
  // `$$` is the shell's pid; fields 16 and 17 of its stat (after the name) are its waited-for children's user and system ticks.
  const shell = 'set -e; "$@"; read -r stat < /proc/$$/stat; set -- ${stat##*) }; echo "WRK_CPU_TICKS $(( ${14} + ${15} ))"';
  return new Promise((resolve, reject) => {
    const child = spawnTracked(['bash', '-c', shell, 'wrk', ...command]);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const budgetMs = durationS * 1000 + 30_000;
    const timer = setTimeout(() => child.kill('SIGKILL'), budgetMs);
    child.once('error', (e) => { clearTimeout(timer); reject(e); });
    child.once('exit', (code) => {
      clearTimeout(timer);
      const result = /WRK_RESULT (\{.*\})/.exec(out);
      const ticks = /WRK_CPU_TICKS (\d+)/.exec(out);
      if (code !== 0 || !result || !ticks) return reject(new Error(`wrk against ${url} exited with ${code}: ${out.slice(-800)} ${err.slice(-800)}`));
      resolve({ summary: JSON.parse(result[1]) as WrkSummary, cpuS: Number(ticks[1]) / 100 });
    });
  });
}

/**
 * The warm-up and the measured run with wrk over `o.distinctPaths` (the measured run starts on paths the warm-up
 * never asked for), pinned with taskset to `cpu` when given. `onMeasuring` is called as the measured run begins.
 */
export async function runWrk(o: LoadOptions, cpu: string | null, onMeasuring?: () => void): Promise<LoadResult> {
  checkLoopback(o.url);
  const paths = o.distinctPaths;
  if (!paths || paths.length === 0) throw new Error('runWrk sends distinct paths: give distinctPaths');
  const pathsFile = join(tmpdir(), `run-wrk-paths-${process.pid}-${crypto.randomUUID()}.txt`);
  writeFileSync(pathsFile, paths.join('\n'));
  try {
    const url = o.url.replace(/\/$/, '');
    let start = 0;
    if (o.warmupS > 0) start = (await wrkOnce(url, o, pathsFile, 0, o.warmupS, cpu)).summary.requests;
    if (o.drainPid !== undefined) await waitIdle(o.drainPid);
    onMeasuring?.();
    const { summary: s, cpuS } = await wrkOnce(url, o, pathsFile, start, o.durationS, cpu);
    const seconds = Math.max(s.duration_us / 1e6, 0.001);
    const ms = (us: number) => Math.round(us / 10) / 100;
    return {
      url: o.url, connections: o.connections, durationS: Math.round(seconds * 1000) / 1000, stoppedEarly: false, requests: s.requests,
      rps: Math.round((s.requests / seconds) * 10) / 10,
      latencyMs: { p50: ms(s.p50_us), p90: ms(s.p90_us), p99: ms(s.p99_us), avg: ms(s.mean_us), max: ms(s.max_us) },
      // wrk counts answers of status 400 and above; it does not keep the codes themselves.
      non2xx: s.status, errors: s.connect + s.read + s.write, timeouts: s.timeout, statusCodes: {},
      bytesPerResponse: s.requests > 0 ? Math.round(s.bytes / s.requests) : 0,
      generatorCpuPct: Math.round((cpuS / seconds) * 100),
    };
  } finally {
    rmSync(pathsFile, { force: true });
  }
}
