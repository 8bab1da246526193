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
}

/** A logger writing lines through `write`: stdout for debug and info, stderr for warn and error by default. */
export function createLogger(level: LogLevel = 'info',
  write: (line: string, severe: boolean) => void = (line, severe) => (severe ? console.error(line) : console.log(line))): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const enabled = (l: Exclude<LogLevel, 'silent'>) => LOG_LEVELS.indexOf(l) >= threshold;
  return {
    level,
    enabled,
    log(l, msg, fields = {}) {
      if (!enabled(l)) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields }), l === 'warn' || l === 'error');
    },
  };
}
