/**
 * The `reload` subcommand: sends SIGHUP to the server that owns a data directory, so it publishes its bundle
 * (and sessions file) again. `npm start` runs npm, a shell and node, and the pid a shell's `$!` gives is npm's:
 * signalling that one ends npm and leaves the server running, unaware. The server's own pid is in the data
 * directory's `server.pid`, and is believed only when the directory's lock, held by a live process, answers the
 * same pid: a pid file left by a crash is never signalled.
 */
import { askOwner, pidFilePath, readPidFile } from '../content/store/data-dir.ts';
import { DEFAULT_DATA_DIR } from './config.ts';

/** What the subcommand ends with: an exit code and what to print. */
export interface ReloadOutcome { exitCode: number; message: string }

/** Usage of the subcommand. */
export function reloadUsage(command = 'npm start --'): string {
  return `Usage: ${command} reload [--data-dir <path>]

Tells the server that owns the data directory to publish its bundle (and its sessions file) again: sends it
SIGHUP, as kill -HUP <pid> would. The server writes its pid to <data dir>/server.pid once it listens (and logs
it on its "listening" line); reload signals that pid only when the process holding the data directory's lock
is the same one, so a pid file left by a crash never signals anything. The publish's outcome is in the
server's log ("publishing", then "content published" or the problems) and in GET /readyz.

  --data-dir <path>   the server's data directory [DATA_DIR]   default: ${DEFAULT_DATA_DIR}
  --help              print this help

Exit status: 0 when the signal was sent, 1 when no server runs on that data directory (or it cannot be
signalled), 2 for a usage error.
`;
}

/** Runs `reload` with the arguments after the word: finds the server of the data directory and sends it SIGHUP. */
export async function runReload(args: readonly string[], env: Record<string, string | undefined>, command?: string,
  signal: (pid: number) => void = (pid) => process.kill(pid, 'SIGHUP')): Promise<ReloadOutcome> {
  const usage = reloadUsage(command);
  let dataDir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const m = /^--data-dir(?:=(.*))?$/.exec(arg);
    if (arg === '--help' || arg === '-h') return { exitCode: 0, message: usage };
    if (!m) return { exitCode: 2, message: `error: ${arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument ${arg}`}\n\n${usage}` };
    const value = m[1] ?? args[++i];
    if (value === undefined || value === '') return { exitCode: 2, message: `error: option --data-dir needs a value\n\n${usage}` };
    dataDir = value;
  }
  dataDir ??= env.DATA_DIR || DEFAULT_DATA_DIR;
  const [pid, owner] = await Promise.all([readPidFile(dataDir), askOwner(dataDir)]);
  const nothing = 'nothing was signalled';
  if (owner === null) {
    return { exitCode: 1, message: pid === null
      ? `error: no server runs on the data directory ${dataDir}: no process holds its lock; ${nothing}`
      : `error: no server runs on the data directory ${dataDir}: ${pidFilePath(dataDir)} names pid ${pid}, but no process holds the ` +
        `directory's lock (that server ended without removing it); ${nothing}` };
  }
  if (owner === 'unknown') {
    return { exitCode: 1, message: `error: the process that holds the lock of ${dataDir} does not say its pid (a release before this ` +
      `one?); ${nothing}: send SIGHUP to the pid of its "listening" log line` };
  }
  if (pid !== owner) {
    return { exitCode: 1, message: `error: process ${owner} owns the data directory ${dataDir} but is not serving yet ` +
      `(it writes ${pidFilePath(dataDir)} once it listens); ${nothing}: try again once it logs "listening"` };
  }
  try {
    signal(pid);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'EPERM' ? 'not permitted: run reload as the server\'s user' : e.message;
    return { exitCode: 1, message: `error: cannot send SIGHUP to the server on ${dataDir} (pid ${pid}): ${why}` };
  }
  return { exitCode: 0, message: `sent SIGHUP to the server on ${dataDir} (pid ${pid}): it publishes its bundle again (a replica ` +
    'checks its database); its log says "publishing", then what came of it, and so does GET /readyz' };
}
