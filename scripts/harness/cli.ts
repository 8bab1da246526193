/**
 * What a measurement script's command line shares: progress lines on stderr, `--help` printing the script's
 * opening comment, and a main that stops every child process on the way out, however the run ends.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { killChildren } from './spawn.ts';

/** A progress printer: `[name HH:MM:SS] text` on stderr, so stdout stays free for results. */
export function progress(name: string): (text: string) => void {
  return (text) => console.error(`[${name} ${new Date().toISOString().slice(11, 19)}] ${text}`);
}

/** Prints the opening comment of the script at `moduleUrl` (its usage) and exits 0. */
export function printUsage(moduleUrl: string): never {
  const usage = /\/\*\*([\s\S]*?)\*\//.exec(readFileSync(fileURLToPath(moduleUrl), 'utf8'))?.[1] ?? '';
  console.log(usage.split('\n').map((l) => l.replace(/^ \* ?/, '')).join('\n').trim());
  process.exit(0);
}

/**
 * Runs `main` and sets the exit code it resolves with; every tracked child is killed when the process exits,
 * on SIGINT or SIGTERM (exit 130) and when `main` throws (exit 1, the stack printed as `name failed: …`).
 */
export async function runMain(name: string, main: () => Promise<number>): Promise<void> {
  process.once('exit', killChildren);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killChildren();
      process.exit(130);
    });
  }
  try {
    process.exitCode = await main();
  } catch (err) {
    console.error(`${name} failed: ${(err as Error).stack ?? err}`);
    killChildren();
    process.exitCode = 1;
  }
}
