/**
 * Debian packages the tests and the benchmark need outside npm (Chromium for the browser tests, wrk for the
 * benchmark's serving-threads rows), installed with apt-get when missing, so a fresh machine needs no set-up.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Installs the Debian package `name` with apt-get when `binary` is missing, printing what it does, as root or
 * through `sudo -n`. Throws with apt-get's output when it cannot.
 */
export function ensureDebianPackage(name: string, binary: string, purpose: string, log: (line: string) => void = (line) => console.log(line)): void {
  if (existsSync(binary)) return;
  log(`# ${binary} is missing: installing Debian's ${name} package for ${purpose}`);
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  // Waits for another apt or dpkg (an unattended upgrade, say) rather than failing on its lock.
  const lock = ['-o', 'DPkg::Lock::Timeout=300'];
  for (const args of [['apt-get', ...lock, 'update'], ['apt-get', ...lock, 'install', '-y', '--no-install-recommends', name]]) {
    const command = [...asRoot, ...args];
    log(`# ${command.join(' ')}`);
    const began = performance.now();
    const run = spawnSync(command[0], command.slice(1), { encoding: 'utf8', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 600_000 });
    const last = `${run.stdout}`.trim().split('\n').slice(-2).map((line) => `#   ${line}`).join('\n');
    log(`${last}\n#   exit ${run.status} after ${Math.round((performance.now() - began) / 1000)} s`);
    if (run.status !== 0) throw new Error(`${command.join(' ')} failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  }
  if (!existsSync(binary)) throw new Error(`the ${name} package installed no ${binary}`);
}
