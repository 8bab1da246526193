/**
 * The test command: every tests/**\/*.test.ts under node:test (via tsx), with c8 coverage gates over src/.
 * Node 20's --test does not expand globs, so the files are found here.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  }).sort();
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : findTests('tests');
const c8 = [
  'c8', '--check-coverage', '--lines', '90', '--branches', '85', '--include', 'src/**', '--exclude', 'src/serve/bun.ts',
  '--exclude', 'src/serve/deno.ts', '--reporter', 'text-summary', '--reporter', 'lcov', '--report-dir', 'coverage',
];
const node = ['node', '--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files];
const result = spawnSync('npx', only.length > 0 ? node : [...c8, ...node], { stdio: 'inherit' });
process.exit(result.status ?? 1);
