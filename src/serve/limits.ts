/**
 * The open-file limit and what it allows. Every client connection holds a file descriptor, and so do the
 * store's files, the database connections and the runtime itself: a process that accepts connections until
 * the descriptors run out can no longer open anything, and on some runtimes stops accepting at all (an outside
 * probe's idle sockets used up the limit and every other request waited: docs/decisions.md, Engineering). So the
 * connection cap defaults to the soft limit less a reserve, and connections past it are closed at once.
 *
 * Node, Bun and Deno each raise their soft limit to the hard limit when they start, which is as far as a process
 * without privileges may go; the hard limit is the deployment's to set (docs/deployment.md: `LimitNOFILE=` for
 * systemd, `--ulimit nofile=` for Docker, `ulimit -Hn` in a shell).
 */
import { readFileSync } from 'node:fs';
import type { ConnectionLimits } from './config.ts';
import type { Logger } from '../utils/log.ts';

/** Descriptors kept for everything but client connections: store files, database connections, the runtime's own. */
export const FD_RESERVE = 128;
/** The fewest connections `auto` allows, however low the limit. */
export const MIN_CONNECTIONS = 64;
/** A soft limit below this gets a warning at start: too few for a public service. */
export const RECOMMENDED_FD_LIMIT = 8192;

/** The open-file limits of this process ("unlimited" as Infinity), or null where they cannot be read (not Linux). */
export function openFileLimit(limitsText?: string): { soft: number; hard: number } | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return null;
    }
  }
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!m) return null;
  const value = (s: string) => (s === 'unlimited' ? Infinity : Number(s));
  return { soft: value(m[1]), hard: value(m[2]) };
}

/** The connection cap: as set, or from the soft limit less the reserve (10,000 where the limit is unknown). */
export function maxConnections(limits: ConnectionLimits, fd = openFileLimit()): number {
  if (limits.maxConnections !== 'auto') return limits.maxConnections;
  if (!fd || !Number.isFinite(fd.soft)) return 10_000;
  return Math.max(MIN_CONNECTIONS, fd.soft - FD_RESERVE);
}

/**
 * Bun.serve's one timer, `idleTimeout` (seconds without a byte either way, at most 255), closes a connection
 * that sends nothing, sends its headers too slowly, or idles between keep-alive requests; it is set from the
 * headers timeout, the stricter of the two, so on Bun an idle keep-alive connection also lasts that long.
 */
export function bunIdleTimeout(limits: ConnectionLimits): number {
  return Math.min(255, Math.max(1, Math.ceil(limits.headersTimeoutS)));
}

/** The servers the limits are applied on, each as far as it allows (docs/deployment.md, "Connection limits"). */
export type LimitsServer = 'node:http' | 'Bun.serve';

/**
 * What the start-up log says about the limits on a runtime, and a warning when the open-file limit is low or
 * the cap exceeds it. node:http (on Node and Deno) applies every limit; Bun.serve one idle timer and no cap.
 */
export function describeLimits(limits: ConnectionLimits, server: LimitsServer = 'node:http', fd = openFileLimit()):
  { fields: Record<string, unknown>; warning?: string } {
  const max = maxConnections(limits, fd);
  const shutdown = { shutdown_timeout_s: limits.shutdownTimeoutS, open_file_limit: fd ? fd.soft : null };
  const node = server === 'node:http';
  const fields = node
    ? { max_connections: max, headers_timeout_s: limits.headersTimeoutS, request_timeout_s: limits.requestTimeoutS,
      keep_alive_timeout_s: limits.keepAliveTimeoutS, ...shutdown }
    : { max_connections: 'none (Bun.serve has no cap)', idle_timeout_s: bunIdleTimeout(limits), ...shutdown };
  if (!fd) return { fields };
  if (node && max + FD_RESERVE > fd.soft) {
    return { fields, warning: `max-connections ${max} with ${FD_RESERVE} descriptors in reserve exceeds the open-file limit ${fd.soft}; ` +
      'raise the limit (docs/deployment.md) or lower max-connections' };
  }
  if (fd.soft < RECOMMENDED_FD_LIMIT) {
    return { fields, warning: `the open-file limit is ${fd.soft}, so at most ${node ? max : fd.soft - FD_RESERVE} connections are served at once; ` +
      `a public service wants at least ${RECOMMENDED_FD_LIMIT} (docs/deployment.md)` };
  }
  return { fields };
}

/** Logs the limits in effect (and a warning when the open-file limit is too low). */
export function logLimits(logger: Logger, limits: ConnectionLimits, server: LimitsServer): void {
  const { fields, warning } = describeLimits(limits, server);
  logger.log('info', 'connection limits', fields);
  if (warning) logger.log('warn', warning);
}
