/**
 * The `publish` subcommand: writes a bundle into a PostgreSQL store as a new content version (validated, in one
 * transaction, then made current and notified), makes a kept version current again (`--rollback`), or lists
 * the versions kept. Every replica of that database follows within moments; this process serves nothing.
 */
import { parseArgs } from 'node:util';
import { BundleError } from '../content/bundle/validate-bundle.ts';
import { Publisher } from '../content/publisher.ts';
import { KEEP_VERSIONS_POSTGRES } from '../content/store/sql-store.ts';
import { isConnectionError } from '../db/postgres.ts';
import { checkDatabaseUrl, ConfigError } from './config.ts';

/** What the subcommand ends with: an exit code and what to print. */
export interface PublishOutcome { exitCode: number; message: string }

/** Usage of the subcommand. */
export function publishUsage(command: string): string {
  return `Usage: ${command} publish [--database-url <url>] <bundle.json>
       ${command} publish [--database-url <url>] --rollback <version>
       ${command} publish [--database-url <url>] --list

Publishes into the PostgreSQL at --database-url (or DATABASE_URL): the bundle is validated (every problem is
listed and nothing is written when there is one), written as a new content version in one transaction and
made current; every replica of that database serves it within moments. The newest ${KEEP_VERSIONS_POSTGRES} versions are kept
(the current one always): --rollback makes one of them current again. Exit 0 when done, 1 when refused or
failed, 2 for bad arguments.
`;
}

/** Runs the subcommand with its arguments (after `publish`). */
export async function runPublish(args: readonly string[], env: Record<string, string | undefined>, command = 'npm start --'): Promise<PublishOutcome> {
  let values: { 'database-url'?: string; rollback?: string; list?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: {
      'database-url': { type: 'string' }, rollback: { type: 'string' }, list: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    } }));
  } catch (err) {
    return { exitCode: 2, message: `error: ${(err as Error).message}\n\n${publishUsage(command)}` };
  }
  if (values.help) return { exitCode: 0, message: publishUsage(command) };
  const url = values['database-url'] ?? (env.DATABASE_URL || undefined);
  const actions = [positionals.length > 0, values.rollback !== undefined, values.list === true].filter(Boolean).length;
  if (!url) return { exitCode: 2, message: `error: publish needs --database-url (or DATABASE_URL)\n\n${publishUsage(command)}` };
  if (actions !== 1 || positionals.length > 1) {
    return { exitCode: 2, message: `error: publish takes one bundle, or --rollback VERSION, or --list\n\n${publishUsage(command)}` };
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
  const publisher = await Publisher.open({ databaseUrl: url });
  const began = performance.now();
  const ms = () => Math.round(performance.now() - began);
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
    const path = positionals[0];
    const staged = await publisher.stage({ path });
    if (staged.problems) return { exitCode: 1, message: `error: ${path}: ${new BundleError(staged.problems).message}` };
    if (staged.stored && staged.current?.version === staged.stored.version) {
      return { exitCode: 0, message: `unchanged: version ${staged.current.version} already holds this content (${ms()} ms)` };
    }
    const v = await publisher.commitOnly();
    return { exitCode: 0, message: `published version ${v.version} (content ${v.checksum.slice(0, 16)}…) in ${ms()} ms` };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (isConnectionError(err)) return { exitCode: 1, message: `error: cannot reach the database (${e.message}); nothing was published` };
    if (e.code === 'ENOENT' || e.code === 'EISDIR' || e.code === 'EACCES') return { exitCode: 1, message: `error: cannot read ${positionals[0]}: ${e.message}` };
    return { exitCode: 1, message: `error: ${e.message ?? String(err)}` };
  } finally {
    await publisher.close().catch(() => {});
  }
}
