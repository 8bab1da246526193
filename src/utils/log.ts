/**
 * Structured logs: one JSON object per line, with a time, a level and a message. Access logs are
 * `info`, one line per request, carrying the request id.
 */

/** Log levels, least to most severe; `silent` logs nothing. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Writes structured log lines at or above its level. */
export interface Logger {
  readonly level: LogLevel;
  /** True when a line of this level would be written (skip building it otherwise). */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
  log(level: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>): void;
  /** Writes out lines still held back (call before exiting). */
  flush(): void;
}

/** How long info and debug lines may wait, so a busy server writes them in batches rather than one write each. */
export const LOG_BATCH_MS = 20;

/**
 * A logger writing lines through `write`. Debug and info lines (access logs) go out in batches, at most
 * LOG_BATCH_MS late, as one write; warnings and errors are written at once. By default stdout and stderr.
 */
export function createLogger(level: LogLevel = 'info',
  write: (line: string, severe: boolean) => void = (line, severe) => (severe ? console.error(line) : console.log(line))): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const enabled = (l: Exclude<LogLevel, 'silent'>) => LOG_LEVELS.indexOf(l) >= threshold;
  let held: string[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (held.length === 0) return;
    const lines = held;
    held = [];
    write(lines.join('\n'), false);
  };
  return {
    level,
    enabled,
    flush,
    log(l, msg, fields = {}) {
      if (!enabled(l)) return;
      const line = JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields });
      if (l === 'warn' || l === 'error') {
        flush();
        write(line, true);
        return;
      }
      held.push(line);
      timer ??= setTimeout(flush, LOG_BATCH_MS);
    },
  };
}
