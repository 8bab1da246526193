/**
 * What the reliability probes share beyond the measurement harness (scripts/harness/): the demo's paths they
 * load, starting the service on the demo content (on any runtime, under a chosen open-file limit, pinned to the
 * server core when it can be, ready once it has logged that it listens and has loaded its content), the facts the
 * report gives about the machine, and the result rows every probe returns. No CLI: scripts/reliability.ts runs
 * the probes.
 */
import type { ChildProcess } from 'node:child_process';
import type { Runtime } from '../../tests/helpers/server.ts';
import { progress } from '../harness/cli.ts';
import { SERVER_CPU, type MachineFacts } from '../harness/machine.ts';
import { serviceCommand } from '../harness/service.ts';
import { FD_LIMIT_FAILED, spawnTracked, stopChild } from '../harness/spawn.ts';
import { mulberry32 } from '../demo/ids.ts';

/** The demo's main map and the marker the README names. */
export const MAIN_MAP = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
export const MARKER = 'e5810d23-f0db-5cec-8426-91a6a6cf88c2';
/** The cached URL most probes load: every POI of the main map as GeoJSON. */
export const POIS_PATH = `/places-of-interest/map/${MAIN_MAP}`;

/** `count` distinct paths made by `make` from a seeded PRNG. */
export function distinctPaths(count: number, seed: number, make: (random: () => number) => string): string[] {
  const random = mulberry32(seed);
  const seen = new Set<string>();
  while (seen.size < count) seen.add(make(random));
  return [...seen];
}

/** The demo's events run from November 2026 to the end of 2028: a `from` in that span and a far `to` match hundreds. */
const EVENTS_FROM_MS = Date.parse('2026-11-01T00:00:00Z');
/** The far end of the wide events questions. */
export const WIDE_TO = 'to=2029-01-01T00:00:00Z';

/**
 * `count` distinct wide events questions on the main map (a `from` somewhere in the demo's events, `to` past them):
 * each a real miss of both caches, since `from` is a declared parameter and each value is asked once.
 */
export function wideEventsPaths(count: number, seed: number): string[] {
  return distinctPaths(count, seed,
    (r) => `/events?map_id=${MAIN_MAP}&from=${new Date(EVENTS_FROM_MS + Math.floor(r() * 580 * 86_400) * 1000).toISOString().replace('.000', '')}&${WIDE_TO}`);
}

/** Prints a progress line (stderr, so stdout stays free). */
export const say = progress('reliability');

// ---------------------------------------------------------------------------------------------------------------
// Result rows

/** One measured line of a probe's table. */
export interface Row {
  runtime: string;
  /** What was measured. */
  measure: string;
  /** The measured value, as shown. */
  value: string;
  /** The target, as shown ('' when only reported). */
  target: string;
  /** Whether the target holds: null when there is no target. */
  pass: boolean | null;
  /** How good the value is against its target, lower worse (scripts/harness/judge.ts `margin`), to find the worst runtime; null: no number. */
  score: number | null;
  /**
   * The value as a ratio to a reference doing strictly less work (the same load without held sockets, cache hits),
   * when it is one: above 100% it is flagged as interference (scripts/harness/judge.ts); null otherwise.
   */
  ratio: number | null;
}

/** What one probe returns for one runtime. */
export interface ProbeOutcome {
  rows: Row[];
  /** Remarks for the report (examples, what a number means, what was not measured). */
  notes: string[];
  /** The raw numbers, kept in the report's JSON. */
  raw: unknown;
}

/**
 * A row with a target (`pass` given, a `score` when the value is a number, and its `ratio` when it is a share of a
 * reference doing strictly less work) or a reported value (no target).
 */
export function row(runtime: string, measure: string, value: string | number, target = '', pass: boolean | null = null,
  score: number | null = null, ratio: number | null = null): Row {
  return { runtime, measure, value: String(value), target, pass, score, ratio };
}

// ---------------------------------------------------------------------------------------------------------------
// The service

/** A running service. */
export interface Service {
  runtime: Runtime;
  base: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** The last 64 KB of its output (stdout and stderr). */
  tail(): string;
  /** Lines it logged at level error (the first 20), and how many there were. */
  errors(): { count: number; first: string[] };
  /** Resolves with the exit code or signal and when it came (performance.now()). */
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** How to start the service. */
export interface ServiceOptions {
  /** The data directory (the store's snapshot; one per runtime, reused by its probes). */
  dataDir: string;
  /** The open-file limit to run under (soft and hard), or null: inherited. */
  fdLimit?: number | null;
  /** Extra service flags. */
  args?: string[];
  timeoutMs?: number;
}

/**
 * Starts the service on an ephemeral port of 127.0.0.1 with the demo content (the RUNTIMES command of
 * tests/helpers/server.ts), pinned to the server core, and waits for its "listening" and "content loaded" lines.
 * The access log is read and dropped as it comes (only a tail is kept), so a long run does not fill memory.
 */
export async function startService(runtime: Runtime, o: ServiceOptions): Promise<Service> {
  const child = spawnTracked(serviceCommand(runtime, 0, ['--data-dir', o.dataDir, ...(o.args ?? [])]), { cpu: SERVER_CPU, fdLimit: o.fdLimit ?? null });
  let tail = '';
  let head = '';
  let partial = '';
  let errorCount = 0;
  const firstErrors: string[] = [];
  const onData = (d: Buffer) => {
    const text = d.toString('utf8');
    tail = (tail + text).slice(-65_536);
    if (head.length < 65_536) head += text;
    // Error lines, found line by line across chunks.
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"level":"error"') && !/\berror\b/i.test(line.slice(0, 40))) continue;
      errorCount++;
      if (firstErrors.length < 20) firstErrors.push(line.slice(0, 500));
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() }));
  });
  const timeoutMs = o.timeoutMs ?? 120_000;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${runtime} did not start in ${timeoutMs} ms:\n${tail.slice(-2000)}`)); }, timeoutMs);
    const check = () => {
      const m = /"msg":"listening".*?"port":(\d+)/.exec(head);
      if (m && head.includes('"msg":"content loaded"')) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(code === FD_LIMIT_FAILED ? `could not set the open-file limit to ${o.fdLimit} (hard limit too low?)`
        : `${runtime} exited with ${code} before it was ready:\n${tail.slice(-2000)}`));
    });
  });
  return {
    runtime, base: `http://127.0.0.1:${port}`, port, pid: child.pid!, child, tail: () => tail,
    errors: () => ({ count: errorCount, first: firstErrors }), exited,
    stop: (graceMs = 20_000) => stopChild(child, graceMs),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The machine

/** The facts the report opens with: the harness's, and what this harness adds. */
export interface Machine extends MachineFacts {
  loadAvgStart: number[];
  pinning: string;
  /** This shell's open-file limits (the servers' and the socket holder's are set per probe). */
  fdLimit: { soft: string; hard: string } | null;
}
