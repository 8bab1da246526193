/**
 * Run inside an empty network namespace by the kiosk test: starts the service on one runtime with a
 * fresh data directory and a network trap, walks the API over loopback, stops it, and prints one JSON
 * line with what it saw.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES, tmpdirFor, type Runtime } from './server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TRAP = fileURLToPath(new URL('./no-network.ts', import.meta.url));
const runtime = process.argv[2] as Runtime;
const paths = process.argv.slice(3);

/** The runtime's command with the network trap (Node, Bun) or a loopback-only permission (Deno). */
function command(): string[] {
  const [cmd, ...rest] = RUNTIMES[runtime];
  if (runtime === 'node') return [cmd, '--import', TRAP, ...rest];
  if (runtime === 'bun') return [cmd, '--preload', TRAP, ...rest];
  // Loopback, and the data directory's lock (a Unix socket, which Deno counts as network).
  return [cmd, ...rest.map((a) => (a === '--allow-net' ? `--allow-net=127.0.0.1,unix:${join(dir, 'data', 'lock.sock')}` : a))];
}

const dir = await mkdtemp(join(tmpdirFor(runtime), 'kiosk-'));
const trapLog = join(dir, 'trap.log');
const [cmd, ...args] = command();
const child = spawn(cmd, [...args, '--port', '0', '--host', '127.0.0.1', '--data-dir', join(dir, 'data')],
  { cwd: ROOT, env: { ...process.env, NETWORK_TRAP_LOG: trapLog } });
let out = '';
child.stdout.on('data', (d) => (out += d));
child.stderr.on('data', (d) => (out += d));
const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
const port = await new Promise<number>((resolve, reject) => {
  const timer = setInterval(() => {
    const m = /"msg":"listening".*?"port":(\d+)/.exec(out);
    if (m && /"msg":"content loaded"/.test(out)) { clearInterval(timer); resolve(Number(m[1])); }
  }, 50);
  void exited.then((code) => { clearInterval(timer); reject(new Error(`exited ${code}: ${out}`)); });
});
const statuses: Record<string, number> = {};
for (const path of paths) statuses[path] = (await fetch(`http://127.0.0.1:${port}${path}`)).status;
child.kill('SIGTERM');
const code = await exited;
const trapped = await readFile(trapLog, 'utf8').catch(() => '');
await rm(dir, { recursive: true, force: true });
console.log(JSON.stringify({ runtime, statuses, code, trapped, output: out }));
