/**
 * HTTP as the measurement scripts use it outside their load runs: one GET on a fresh connection, polling a
 * server until it answers 200, and the response cache's counters from /readyz.
 */
import type { ChildProcess } from 'node:child_process';
import { request, type Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import { hasExited } from './spawn.ts';
import { round } from './stats.ts';

/** A body's bytes, decoded from the coding it came in (null: one this cannot read). */
export function decodedBody(body: Buffer, encoding: string | null): Buffer | null {
  return encoding === 'zstd' ? zstdDecompressSync(body) : encoding === 'br' ? brotliDecompressSync(body)
    : encoding === 'gzip' ? gunzipSync(body) : encoding === null ? body : null;
}

/** What a GET answered, and how long it took from the call to the end of the body. */
export interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; ms: number }

/**
 * One GET, failing after `timeoutMs` (60 s unless given): on a fresh connection, or on `agent`'s kept-alive ones
 * (a set-up of many thousand requests would otherwise leave as many sockets waiting to close).
 */
export function get(url: string, o: { headers?: Record<string, string>; timeoutMs?: number; agent?: Agent } = {}): Promise<Answer> {
  const began = performance.now();
  const timeoutMs = o.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: o.headers ?? {}, agent: o.agent ?? false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - began }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** How to wait for a server. */
export interface WaitOptions {
  /** The server's process: its exit ends the wait with an error. */
  child: ChildProcess;
  /** Where the wait is timed from (performance.now()), spawn time as a rule; the call when not given. */
  since?: number;
  timeoutMs: number;
  /** Pause between polls (20 ms unless given). */
  pollMs?: number;
  /** Longest wait for one poll's answer: until the deadline unless given (a busy server's late answer still counts). */
  requestTimeoutMs?: number;
  headers?: Record<string, string>;
  /** The server's output, quoted when it exits. */
  output?: () => string;
}

/** Polls `url` until it answers 200: ms since `since`, or null when `timeoutMs` ran out first (the server is left running). */
export async function waitFor200(url: string, o: WaitOptions): Promise<number | null> {
  const since = o.since ?? performance.now();
  const deadline = since + o.timeoutMs;
  while (performance.now() < deadline) {
    if (hasExited(o.child)) {
      throw new Error(`the server exited (${o.child.exitCode ?? o.child.signalCode}) before ${url} answered 200:\n${o.output?.().slice(-2000) ?? ''}`);
    }
    const left = Math.max(1000, deadline - performance.now());
    const answer = await get(url, { headers: o.headers, timeoutMs: Math.min(left, o.requestTimeoutMs ?? left) }).catch(() => null);
    if (answer?.status === 200) return Math.round(performance.now() - since);
    await sleep(o.pollMs ?? 20);
  }
  return null;
}

/** The response cache's counters. */
export interface CacheCounters { hits: number; misses: number }

/** The response cache's hit and miss counters from /readyz, or null when it does not report them. */
export async function readCacheCounters(base: string): Promise<CacheCounters | null> {
  try {
    const body = JSON.parse((await get(`${base}/readyz`, { timeoutMs: 15_000 })).body.toString('utf8')) as { response_cache?: CacheCounters };
    return body.response_cache ?? null;
  } catch {
    return null;
  }
}

/** hits ÷ (hits + misses) between two readings, to three decimals; null when either is missing or nothing was counted. */
export function hitRate(before: CacheCounters | null, after: CacheCounters | null): number | null {
  if (!before || !after) return null;
  const hits = after.hits - before.hits;
  const all = hits + after.misses - before.misses;
  return all > 0 ? round(hits / all, 3) : null;
}
