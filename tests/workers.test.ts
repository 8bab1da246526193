/**
 * `--workers 2` on Node, Bun and Deno: two threads answer on one port (each connection goes to one of them),
 * both give the very same answers, sessions work on the thread that does not hold them, a publish by SIGHUP
 * reaches every thread, and SIGTERM stops them all and exits 0. The access log says which thread answered.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseConfig } from '../src/serve/config.ts';
import { readDemoBundle } from './helpers/app.ts';
import { rawRequest } from './helpers/http.ts';
import { RUNTIME_NAMES, startServer, tmpdirFor } from './helpers/server.ts';

const demo = await readDemoBundle();
const MAP = demo.maps.find((m) => m.enabled && m.versions.length > 1)!.id;
const MARKER = demo.markers.find((m) => m.map_id === MAP && !m.version_ids)!.id;
const SAVED_EVENT = 'a8e53f5d-23b9-5801-9a77-63ddafe3fbd1';
const RENAMED = demo.events.find((e) => e.map_id === MAP)!;
const DEMO_SESSIONS = new URL('../data/demo-sessions.json', import.meta.url).pathname;

test('--workers takes 1 to 64 or auto, 1 by default', () => {
  const workers = (args: string[], env: Record<string, string> = {}) => (parseConfig(args, env) as { workers: number }).workers;
  assert.equal(workers([]), 1);
  assert.equal(workers(['--workers', '3']), 3);
  assert.equal(workers([], { WORKERS: '2' }), 2);
  assert.ok(workers(['--workers', 'auto']) >= 1);
  for (const bad of ['0', '65', '1.5', 'two', '-1']) assert.throws(() => parseConfig(['--workers', bad], {}), /workers must be auto or a whole number from 1 to 64/);
});

for (const runtime of RUNTIME_NAMES) {
  describe(`--workers 2 on ${runtime}`, () => {
    test('both threads answer, alike; sessions, a publish and the stop reach both', async () => {
      const dir = await mkdtemp(join(tmpdirFor(runtime), 'dmcs-test-workers-'));
      const bundle = join(dir, 'bundle.json');
      await writeFile(bundle, JSON.stringify(demo));
      const server = await startServer(runtime, ['--workers', '2', '--bundle', bundle, '--sessions', DEMO_SESSIONS, '--data-dir', join(dir, 'data'),
        '--fixed-time', '2026-06-01T00:00:00Z']);
      try {
        // Each request on a connection of its own, so the kernel picks a thread each time; the request id finds it in the access log.
        let n = 0;
        const ask = async (path: string, headers: Record<string, string> = {}) => {
          const id = `workers-${++n}`;
          const res = await rawRequest(`${server.base}${path}`, { headers: { connection: 'close', 'x-request-id': id, ...headers } });
          return { status: res.status, body: res.body.toString(), id };
        };
        const threadOf = async (id: string) => {
          for (let tries = 0; tries < 100; tries++) {
            const m = new RegExp(`"request_id":"${id}"[^\\n]*"thread":(\\d)`).exec(server.output());
            if (m) return Number(m[1]);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          throw new Error(`no access log line for ${id}`);
        };
        const readyThreads = async (version: number) => {
          const seen = new Set<number>();
          // A thread listens once its model is built, and takes up a new version once built: ask until both answer with it
          // (for up to half a minute: on a loaded 2-core machine a Deno worker has taken more than 9 s to start).
          for (let i = 0; i < 2000 && seen.size < 2; i++) {
            const ready = JSON.parse((await ask('/readyz')).body) as { version: number; thread: number };
            if (ready.version === version) seen.add(ready.thread);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          return seen;
        };
        assert.deepEqual([...await readyThreads(1)].sort(), [0, 1], 'both threads serve version 1');

        const paths = [`/events?map_id=${MAP}&limit=200`, `/maps/${MAP}?info=true&markers=true&all_categories=true`, `/markers/${MARKER}`,
          `/events/upcoming-by-poi?poi_ids=${MARKER}`, `/events?map_id=${MAP}&near=38.7,-9.14&radius_m=20000`, `/nowhere`];
        for (const path of paths) {
          const answers = new Map<number, Set<string>>();
          for (let i = 0; i < 40 && answers.size < 2; i++) {
            const a = await ask(path);
            const thread = await threadOf(a.id);
            answers.set(thread, (answers.get(thread) ?? new Set()).add(`${a.status} ${a.body}`));
          }
          assert.equal(answers.size, 2, `${path}: both threads answered`);
          const all = new Set([...answers.values()].flatMap((s) => [...s]));
          assert.equal(all.size, 1, `${path}: one and the same answer from both threads`);
        }

        const saved = new Map<number, boolean>();
        for (let i = 0; i < 40 && saved.size < 2; i++) {
          const a = await ask(`/events/${SAVED_EVENT}`, { authorization: 'Bearer demo-session-token' });
          saved.set(await threadOf(a.id), (JSON.parse(a.body) as { is_saved: boolean }).is_saved);
        }
        assert.deepEqual([...saved].sort(), [[0, true], [1, true]], 'the session is found on both threads');

        // A publish (SIGHUP) reaches both threads.
        const changed = structuredClone(demo);
        changed.events.find((e) => e.id === RENAMED.id)!.title = 'Renamed for the serving threads';
        await writeFile(bundle, JSON.stringify(changed));
        server.child.kill('SIGHUP');
        assert.deepEqual([...await readyThreads(2)].sort(), [0, 1], 'both threads serve version 2');
        for (let i = 0; i < 10; i++) assert.equal((JSON.parse((await ask(`/events/${RENAMED.id}`)).body) as { title: string }).title, 'Renamed for the serving threads');

        assert.equal(await server.stop(), 0);
        assert.match(server.output(), /"msg":"stopped"/);
      } finally {
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}
