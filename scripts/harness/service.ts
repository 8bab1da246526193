/**
 * The service as the measurements start it: the command of each runtime (the npm scripts' own, from
 * tests/helpers/server.ts), another script run the same way, and what its log says it loaded.
 */
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { RUNTIMES, type Runtime } from '../../tests/helpers/server.ts';

/** The service on `runtime`, listening on `port` of 127.0.0.1, with `flags` (bundle, data directory, log level). */
export function serviceCommand(runtime: Runtime, port: number, flags: readonly string[] = []): string[] {
  return [...RUNTIMES[runtime], '--port', String(port), '--host', '127.0.0.1', ...flags];
}

/** The command that runs `script` the way RUNTIMES runs the service (same binary, same Deno permissions). */
export function runtimeCommand(runtime: Runtime, script: string): string[] {
  const command = [...RUNTIMES[runtime]];
  command[command.length - 1] = script;
  return command;
}

/** The first "content loaded" line of a service's log file (read from its first MB): where from, and in how many ms. */
export function readContentLoaded(logFile: string | null): { source: string | null; ms: number | null } | null {
  if (!logFile || !existsSync(logFile)) return null;
  const fd = openSync(logFile, 'r');
  try {
    const buffer = Buffer.alloc(1 << 20);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const line = buffer.subarray(0, n).toString('utf8').split('\n').find((l) => l.includes('"msg":"content loaded"'));
    if (!line) return null;
    const parsed = JSON.parse(line) as { source?: string; ms?: number };
    return { source: parsed.source ?? null, ms: parsed.ms ?? null };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
