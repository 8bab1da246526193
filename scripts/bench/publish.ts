/**
 * Publishing under load, measured from outside: the service (Node) serves a bundle while autocannon sends
 * content and event requests; first a run with no publish (the baseline), then the same run while `--publishes`
 * edited bundles are published one after another with SIGHUP. Reports failed requests, p99 with and without
 * publishes (and their ratio), the time from each SIGHUP to the new version served, the slowest /healthz
 * answer during the publishes, and the first load: start to served with an empty data directory, and the
 * process's peak RSS.
 *
 *   node scripts/bench/publish.ts [--bundle data/demo-bundle.json] [--duration 10] [--connections 16] [--publishes 10] [--out PATH]
 *
 * Prints one JSON line; with --out, also writes a markdown table there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: object) => Promise<AutocannonResult> & { stop?: () => void };

interface AutocannonResult { requests: { total: number; average: number }; latency: { p99: number; p50: number }; errors: number; timeouts: number; non2xx: number }

const { values } = parseArgs({ options: {
  bundle: { type: 'string', default: join(ROOT, 'data/demo-bundle.json') },
  duration: { type: 'string', default: '10' },
  connections: { type: 'string', default: '16' },
  publishes: { type: 'string', default: '10' },
  out: { type: 'string' },
} });
const durationS = Number(values.duration);
const connections = Number(values.connections);
const publishes = Number(values.publishes);

function get(port: number, path: string): Promise<{ status: number; body: string; ms: number }> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, ms: performance.now() - began }));
    }).on('error', reject).end();
  });
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024);
}

async function readyz(port: number): Promise<{ version?: number; last_publish?: { outcome: string; ms: number } }> {
  return JSON.parse((await get(port, '/readyz')).body);
}

const dir = mkdtempSync(join(tmpdir(), 'dmcs-bench-publish-'));
let child: ChildProcess | null = null;
try {
  const bundlePath = join(dir, 'bundle.json');
  copyFileSync(values.bundle!, bundlePath);
  const original = JSON.parse(readFileSync(bundlePath, 'utf8')) as { maps: { id: string; enabled: boolean }[]; markers: { id: string; map_id: string; name: string }[] };
  const map = original.maps.find((m) => m.enabled)!.id;
  const marker = original.markers.find((m) => m.map_id === map)!;
  const port = 20000 + Math.floor(Math.random() * 20000);
  const began = performance.now();
  child = spawn(process.execPath, ['src/serve/node.ts', '--bundle', bundlePath, '--data-dir', join(dir, 'data'), '--port', String(port),
    '--host', '127.0.0.1', '--log-level', 'warn'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  for (;;) {
    const r = await get(port, '/readyz').catch(() => null);
    if (r?.status === 200) break;
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    await sleep(20);
  }
  const firstLoadMs = Math.round(performance.now() - began);
  const firstLoadPeakMb = peakRssMb(child.pid!);

  const paths = [`/maps/${map}?info=true&markers=true`, `/markers/${marker.id}`, `/places-of-interest/map/${map}`,
    `/events?map_id=${map}&limit=50`, `/events?map_id=${map}&near=38.7075,-9.1364&radius_m=5000&limit=20`];
  const load = () => autocannon({ url: `http://127.0.0.1:${port}`, connections, duration: durationS,
    requests: paths.map((path) => ({ method: 'GET', path })) });

  const baseline = await load();
  const running = load();
  const publishMs: number[] = [];
  let healthSlowest = 0;
  let publishing = true;
  const health = (async () => {
    while (publishing) {
      healthSlowest = Math.max(healthSlowest, (await get(port, '/healthz')).ms);
      await sleep(10);
    }
  })();
  for (let i = 1; i <= publishes; i++) {
    const edited = structuredClone(original);
    edited.markers.find((m) => m.id === marker.id)!.name = `${marker.name} (edit ${i})`;
    writeFileSync(`${bundlePath}.tmp`, JSON.stringify(edited));
    renameSync(`${bundlePath}.tmp`, bundlePath);
    const before = (await readyz(port)).version;
    const sent = performance.now();
    child.kill('SIGHUP');
    for (;;) {
      const r = await readyz(port);
      if (r.version !== before) break;
      await sleep(5);
    }
    publishMs.push(Math.round(performance.now() - sent));
  }
  publishing = false;
  await health;
  const during = await running;
  const failed = (r: AutocannonResult) => r.errors + r.timeouts + r.non2xx;
  const sorted = [...publishMs].sort((a, b) => a - b);
  const result = {
    bundle: values.bundle, connections, durationS, publishes,
    baseline: { rps: Math.round(baseline.requests.average), p50: baseline.latency.p50, p99: baseline.latency.p99, failed: failed(baseline) },
    duringPublishes: { rps: Math.round(during.requests.average), p50: during.latency.p50, p99: during.latency.p99, failed: failed(during) },
    p99Ratio: Math.round((during.latency.p99 / Math.max(1, baseline.latency.p99)) * 100) / 100,
    sighupToServedMs: { median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1) },
    healthzSlowestMs: Math.round(healthSlowest),
    firstLoad: { ms: firstLoadMs, peakRssMb: firstLoadPeakMb },
    peakRssMb: peakRssMb(child.pid!),
  };
  console.log(JSON.stringify(result));
  if (values.out) {
    const yes = (ok: boolean) => (ok ? 'yes' : 'no');
    writeFileSync(values.out, `| measure (${result.bundle?.split('/').at(-1)}, Node, ${connections} connections, ${durationS} s per run) | result | target | met |
|---|---|---|---|
| failed requests during ${publishes} publishes | ${result.duringPublishes.failed} (baseline ${result.baseline.failed}) | 0 | ${yes(result.duringPublishes.failed === 0)} |
| p99 during publishes ÷ p99 without | ${result.duringPublishes.p99} ms ÷ ${result.baseline.p99} ms = ${result.p99Ratio} | ≤ 2 | ${yes(result.p99Ratio <= 2)} |
| SIGHUP to the new version served | median ${result.sighupToServedMs.median} ms, max ${result.sighupToServedMs.max} ms | — | — |
| slowest /healthz during publishes | ${result.healthzSlowestMs} ms | ≤ 50 ms | ${yes(result.healthzSlowestMs <= 50)} |
| first load, empty data directory (start to served) | ${result.firstLoad.ms} ms, peak RSS ${result.firstLoad.peakRssMb} MB | — | — |
| peak RSS over the whole run | ${result.peakRssMb} MB | — | — |
`);
  }
} finally {
  child?.kill('SIGTERM');
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}
