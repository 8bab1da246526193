/**
 * The `publish` subcommand: writes a bundle into a PostgreSQL store as a new content version (validated, in one
 * transaction, then made current and notified), makes a kept version current again (`--rollback`), or lists
 * the versions kept. Every replica of that database follows within moments; this process serves nothing.
 * `--sessions` replaces the sessions tables from a sessions file, with a bundle or alone: a fleet's account
 * system normally writes them, but a demo or a test fleet has only the file.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { BundleError } from '../content/bundle/validate-bundle.ts';
import type { SessionT } from '../content/bundle/bundle-schema.ts';
import { Publisher } from '../content/publisher.ts';
import { parseHorizonDays } from '../content/series-dates.ts';
import { parseSessions } from '../content/sessions.ts';
import { HISTORY_DAYS, parseHistoryDays } from '../content/changes.ts';
import { KEEP_VERSIONS_POSTGRES } from '../content/store/sql-store.ts';
import { isConnectionError } from '../db/postgres.ts';
import { checkDatabaseUrl, ConfigError } from './config.ts';

/** What the subcommand ends with: an exit code and what to print. */
export interface PublishOutcome { exitCode: number; message: string }

/** Usage of the subcommand. */
export function publishUsage(command: string): string {
  return `Usage: ${command} publish [--database-url <url>] [--sessions <sessions.json>] <bundle.json>
       ${command} publish [--database-url <url>] [--sessions <sessions.json>] --bundle <bundle.json>
       ${command} publish [--database-url <url>] --sessions <sessions.json>
       ${command} publish [--database-url <url>] --rollback <version>
       ${command} publish [--database-url <url>] --list

Publishes into the PostgreSQL at --database-url (or DATABASE_URL): the bundle is validated (every problem is
listed and nothing is written when there is one), written as a new content version in one transaction and
made current; every replica of that database serves it within moments. The newest ${KEEP_VERSIONS_POSTGRES} versions are kept
(the current one always): --rollback makes one of them current again. Exit 0 when done, 1 when refused or
failed, 2 for bad arguments.

  --database-url <url>    the PostgreSQL of the fleet (postgres://…) [DATABASE_URL]
  --bundle <path>         the bundle to publish, or name it as the argument (once: one bundle a publish)
  --sessions <path>       replace every session and saved event in the database's sessions tables with those
                          of this sessions file (format destination-sessions/1), after the bundle if one is
                          given: the tables the account system otherwise writes. A bad file writes nothing.
  --strict                refuse a bundle with any warning of check, as if it were a problem [STRICT]
  --rollback <version>    make a kept version current again
                          The history of changes (which change tokens follow) is kept HISTORY_DAYS days
                          (default ${HISTORY_DAYS}); a publish or rollback drops what is older.
  --list                  the versions kept, newest first, the current one marked
  --help                  print this help
`;
}

/** Runs the subcommand with its arguments (after `publish`). */
export async function runPublish(args: readonly string[], env: Record<string, string | undefined>, command = 'npm start --'): Promise<PublishOutcome> {
  let values: { 'database-url'?: string; bundle?: string[]; sessions?: string; rollback?: string; list?: boolean; strict?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: {
      'database-url': { type: 'string' }, bundle: { type: 'string', multiple: true }, sessions: { type: 'string' }, rollback: { type: 'string' },
      list: { type: 'boolean' }, strict: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    } }));
  } catch (err) {
    return { exitCode: 2, message: `error: ${(err as Error).message}\n\n${publishUsage(command)}` };
  }
  if (values.help) return { exitCode: 0, message: publishUsage(command) };
  const url = values['database-url'] ?? (env.DATABASE_URL || undefined);
  const bundles = [...values.bundle ?? [], ...positionals];
  if (!url) return { exitCode: 2, message: `error: publish needs --database-url (or DATABASE_URL)\n\n${publishUsage(command)}` };
  if (bundles.length > 1) {
    return { exitCode: 2, message: `error: publish takes one bundle, given ${values.bundle && positionals.length > 0 ? 'with --bundle and as an argument' : 'twice'} ` +
      `(${bundles.join(', ')})\n\n${publishUsage(command)}` };
  }
  const actions = [bundles.length > 0 || values.sessions !== undefined, values.rollback !== undefined, values.list === true].filter(Boolean).length;
  if (actions !== 1) {
    return { exitCode: 2, message: `error: publish takes a bundle (and/or --sessions FILE), or --rollback VERSION, or --list\n\n${publishUsage(command)}` };
  }
  try {
    checkDatabaseUrl(url);
  } catch (err) {
    if (err instanceof ConfigError) return { exitCode: 2, message: `error: ${err.message}` };
    throw err;
  }
  const rollback = values.rollback === undefined ? null : Number(values.rollback);
  if (rollback !== null && (!Number.isSafeInteger(rollback) || rollback < 1)) {
    return { exitCode: 2, message: `error: --rollback takes a version number (see --list), not "${values.rollback}"` };
  }
  // The sessions file is read and checked first: a bad one writes nothing, not even the bundle.
  let sessions: SessionT[] | null = null;
  if (values.sessions !== undefined) {
    try {
      sessions = parseSessions(await readFile(values.sessions, 'utf8'));
    } catch (err) {
      if (err instanceof BundleError) return { exitCode: 1, message: `error: ${values.sessions}: ${err.message.replace('content bundle', 'sessions file')}; nothing was published` };
      return { exitCode: 1, message: `error: cannot read the sessions file ${values.sessions}: ${(err as Error).message}; nothing was published` };
    }
  }
  const horizon = env.SERIES_HORIZON_DAYS === undefined ? undefined : parseHorizonDays(env.SERIES_HORIZON_DAYS);
  if (typeof horizon === 'string') return { exitCode: 2, message: `error: SERIES_HORIZON_DAYS ${horizon}` };
  const history = env.HISTORY_DAYS === undefined ? undefined : parseHistoryDays(env.HISTORY_DAYS);
  if (typeof history === 'string') return { exitCode: 2, message: `error: HISTORY_DAYS ${history}` };
  const publisher = await Publisher.open({ databaseUrl: url, strict: values.strict === true || /^(1|true|yes)$/i.test(env.STRICT ?? ''),
    ...(horizon !== undefined ? { seriesHorizonDays: horizon } : {}), ...(history !== undefined ? { historyDays: history } : {}) });
  const began = performance.now();
  const ms = () => Math.round(performance.now() - began);
  // What was done before a failure, so that its message does not claim that nothing was.
  const lines: string[] = [];
  try {
    if (values.list) {
      const versions = await publisher.versions();
      if (versions.length === 0) return { exitCode: 0, message: 'no version is published yet' };
      const current = await publisher.currentVersion();
      return { exitCode: 0, message: versions.map((v) => `${v.version}\t${v.published_at}\t${v.checksum}${v.version === current?.version ? '\tcurrent' : ''}`).join('\n') };
    }
    if (rollback !== null) {
      const v = await publisher.rollback(rollback);
      return { exitCode: 0, message: `version ${v.version} is current again (content ${v.checksum.slice(0, 16)}…, ${ms()} ms)` };
    }
    const path = bundles[0];
    if (path !== undefined) {
      const staged = await publisher.stage({ path });
      if (staged.problems) return { exitCode: 1, message: `error: ${path}: ${new BundleError(staged.problems).message}` };
      if (staged.stored && staged.current?.version === staged.stored.version) {
        lines.push(`unchanged: version ${staged.current.version} already holds this content (${ms()} ms)`);
      } else {
        const v = await publisher.commitOnly();
        lines.push(`published version ${v.version} (content ${v.checksum.slice(0, 16)}…) in ${ms()} ms`);
      }
    }
    if (sessions) {
      await publisher.replaceSessions(sessions);
      const saved = sessions.reduce((n, s) => n + s.saved_event_ids.length, 0);
      lines.push(`sessions replaced: ${sessions.length} session(s), ${saved} saved event(s) from ${values.sessions} (${ms()} ms)`);
    }
    return { exitCode: 0, message: lines.join('\n') };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const done = lines.map((line) => `${line}\n`).join('');
    if (isConnectionError(err)) {
      return { exitCode: 1, message: `${done}error: cannot reach the database (${e.message}); ${done ? 'the sessions were not replaced' : 'nothing was published'}` };
    }
    if (e.code === 'ENOENT' || e.code === 'EISDIR' || e.code === 'EACCES') return { exitCode: 1, message: `error: cannot read ${bundles[0]}: ${e.message}` };
    return { exitCode: 1, message: `${done}error: ${e.message ?? String(err)}` };
  } finally {
    await publisher.close().catch(() => {});
  }
}
