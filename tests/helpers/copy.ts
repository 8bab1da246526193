/**
 * Copies of data directories for tests that start from one made once.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Copies the directory `from` to `to` (which must not exist) with its files' times, as a backup restored whole keeps
 * them, so the copy of a store closed cleanly is served without being opened (src/content/store/clean-close.ts).
 * `cp -a`, not fs.cp: the times fs.cp sets come from a float of milliseconds, which can land a millisecond later.
 */
export async function copyWithTimes(from: string, to: string): Promise<void> {
  await execFileAsync('cp', ['-a', from, to]);
}
