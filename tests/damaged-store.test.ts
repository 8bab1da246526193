/**
 * A damaged store in the data directory, on the real service: 64 bytes flipped in one of the store's relation
 * files (a content table's heap, the version catalogue and its index, PostgreSQL's own catalogues). PGlite's
 * initdb turns data checksums on, so a changed page fails (`invalid page in block`) the first time it is read;
 * the service then moves the store aside to `store.damaged-<time>`, keeps it as it was, says where in the log and
 * on /readyz, rebuilds the store from its bundle and serves the same answers as a clean start. With no good
 * bundle to rebuild from, it stays up and /readyz says why (503) until a good one is published. A page that no
 * start reads (a catalogue page only a publish touches) is found by the publish, which rebuilds the same way.
 *
 * Every case starts from a copy of one data directory made once (the fixture bundle's store and cache).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { versionSchema } from '../src/db/schema.ts';
import { F, makeFixture } from './helpers/fixture.ts';
import { rawRequest } from './helpers/http.ts';
import { reachableBy, startServer, type RunningServer, type Runtime } from './helpers/server.ts';

/** Requests whose answers a rebuilt store must give as a clean start does: both maps' content and events. */
const PATHS = [
  `/maps/${F.map}?markers=true`,
  `/maps/${F.pacific}?markers=true&categories=true`,
  `/events?map_id=${F.map}&from=2026-01-01T00:00:00Z&to=2029-01-01T00:00:00Z&limit=200`,
  `/events?map_id=${F.pacific}&from=2026-01-01T00:00:00Z&to=2029-01-01T00:00:00Z&limit=200`,
];

/** The log line of a start that serves nothing, and says why. */
const UNAVAILABLE = /"msg":"no content can be served"/;

/** The fixture bundle's text, without the sessions it carries (they are not content). */
function bundleText(): string {
  const { sessions: _sessions, ...bundle } = makeFixture();
  return JSON.stringify(bundle);
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let work = '';
let text = '';
/** The data directory of a clean start (the fixture's store and cache), copied by every case. */
let clean = '';
/** The answers of a clean start, by path. */
let expected: Record<string, string> = {};
/** Store-relative paths of the relation files the cases damage. */
const files: Record<'catalogue' | 'catalogueIndex' | 'events' | 'pgClass' | 'pgDepend', string> =
  { catalogue: '', catalogueIndex: '', events: '', pgClass: '', pgDepend: '' };

/** Starts the service on `dataDir` with the fixture bundle (or `bundle`); by default waits until content is loaded. */
function serve(runtime: Runtime, dataDir: string, bundle = join(work, 'bundle.json'), ready?: RegExp): Promise<RunningServer> {
  return startServer(runtime, ['--bundle', bundle, '--data-dir', dataDir, '--log-level', 'info', '--fixed-time', F.now.toISOString()],
    60_000, { PORT: '', HOST: '', LOG_LEVEL: '' }, ready);
}

/** The bodies of PATHS, each required to be a 200. */
async function answers(server: RunningServer): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of PATHS) {
    const res = await rawRequest(`${server.base}${path}`);
    assert.equal(res.status, 200, `${path}: ${res.body}`);
    out[path] = res.body.toString();
  }
  return out;
}

/** Waits until `re` matches the server's output; fails when it exits first or it takes 60 s. */
async function waitFor(server: RunningServer, re: RegExp): Promise<void> {
  for (const end = Date.now() + 60_000; !re.test(server.output());) {
    assert.equal(server.child.exitCode, null, `the service exited before ${re}:\n${server.output()}`);
    assert.ok(Date.now() < end, `timed out waiting for ${re}:\n${server.output()}`);
    await sleep(50);
  }
}

/** /readyz, with the HTTP status as `http_status`. */
async function readyz(server: RunningServer): Promise<any> {
  const res = await rawRequest(`${server.base}/readyz`);
  return { http_status: res.status, ...JSON.parse(res.body.toString()) };
}

/** The messages of the service's warnings. */
function warningsOf(server: RunningServer): string[] {
  return server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string })
    .filter((l) => l.level === 'warn').map((l) => l.msg);
}

/** A copy of the clean data directory for a service on `runtime`, removed after the file's tests. */
async function copyOfClean(name: string, runtime: Runtime = 'node'): Promise<string> {
  const dir = join(reachableBy(runtime, work), name);
  await cp(clean, dir, { recursive: true });
  return dir;
}

/** Flips (xor 0xff) 64 bytes of a store file, in the middle of it or of its page `page` (8 KB pages); answers the damaged bytes' SHA-256. */
async function flip(dataDir: string, file: string, page?: number): Promise<string> {
  const path = join(dataDir, 'store', file);
  const bytes = await readFile(path);
  const at = page === undefined ? Math.floor(bytes.length / 2) : page * 8192 + 4096;
  assert.ok(at + 64 <= bytes.length, `${file} has ${bytes.length} bytes`);
  for (let i = at; i < at + 64; i++) bytes[i] ^= 0xff;
  await writeFile(path, bytes);
  return sha256(bytes);
}

/** The store directories moved aside in a data directory. */
async function damagedStores(dataDir: string): Promise<string[]> {
  return (await readdir(dataDir)).filter((n) => n.startsWith('store.damaged-'));
}

/**
 * Asserts that the store was moved aside once, whole: the damaged file is there with the flipped bytes, a warning
 * names where it went (and why), and /readyz shows that warning with the publish that rebuilt the store.
 */
async function assertKeptAside(server: RunningServer, dataDir: string, file: string, damagedSum: string, why: RegExp): Promise<void> {
  const aside = await damagedStores(dataDir);
  assert.equal(aside.length, 1, `one store moved aside: ${aside}`);
  assert.match(aside[0], /^store\.damaged-\d{8}T\d{6}Z$/);
  assert.equal(sha256(await readFile(join(dataDir, aside[0], file))), damagedSum, 'the damaged store is kept as it was');
  const where = join(dataDir, aside[0]);
  const warning = warningsOf(server).find((w) => w.includes(`moved to ${where}`));
  assert.ok(warning, `a warning says where the store went:\n${server.output()}`);
  assert.match(warning, why);
  const ready = await readyz(server);
  assert.equal(ready.http_status, 200);
  assert.ok(ready.last_publish.warnings.includes(warning), `/readyz shows the warning: ${JSON.stringify(ready.last_publish)}`);
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dmcs-damaged-'));
  text = bundleText();
  await writeFile(join(work, 'bundle.json'), text);
  clean = join(work, 'clean');
  const first = await serve('node', clean);
  expected = await answers(first);
  assert.equal(await first.stop(), 0);

  // Where the relations live, asked of a copy (opening a store writes to it).
  const probe = join(work, 'probe');
  await cp(join(clean, 'store'), probe, { recursive: true });
  const pg = await PGlite.create({ dataDir: probe });
  try {
    const path = async (relation: string) => (await pg.query<{ p: string }>('SELECT pg_relation_filepath($1::regclass) AS p', [relation])).rows[0].p;
    const { version } = (await pg.query<{ version: number }>('SELECT version FROM content_current')).rows[0];
    assert.equal((await pg.query<{ data_checksums: string }>('SHOW data_checksums')).rows[0].data_checksums, 'on', 'PGlite turns data checksums on');
    files.catalogue = await path('content_versions');
    files.catalogueIndex = await path('content_versions_pkey');
    files.events = await path(`${versionSchema(version)}.events`);
    files.pgClass = await path('pg_class');
    files.pgDepend = await path('pg_depend');
  } finally {
    await pg.close();
    await rm(probe, { recursive: true, force: true });
  }
});

after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a store with 64 flipped bytes', () => {
  test('in the version catalogue: moved aside and kept, rebuilt from the bundle, the same answers; the next start finds it whole', async () => {
    const data = await copyOfClean('catalogue');
    const damaged = await flip(data, files.catalogue);
    const server = await serve('node', data);
    try {
      assert.deepEqual(await answers(server), expected);
      await assertKeptAside(server, data, files.catalogue, damaged, /could not be read \(XX001: invalid page in block \d+ of relation/);
      assert.equal((await readyz(server)).last_publish.outcome, 'published', 'the bundle was written into the new store');
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const again = await serve('node', data);
    try {
      assert.deepEqual(warningsOf(again), [], 'no warning: the rebuilt store opens and reads');
      assert.match(again.output(), /"msg":"content loaded","source":"store"/);
      assert.deepEqual(await answers(again), expected);
      assert.equal((await damagedStores(data)).length, 1, 'nothing more moved aside');
    } finally {
      assert.equal(await again.stop(), 0);
    }
  });

  test('in the catalogue\'s index: the same', async () => {
    const data = await copyOfClean('catalogue-index');
    // Its first page is the metapage; the page the lookups read is the next.
    const damaged = await flip(data, files.catalogueIndex, 1);
    const server = await serve('node', data);
    try {
      assert.deepEqual(await answers(server), expected);
      await assertKeptAside(server, data, files.catalogueIndex, damaged, /invalid page in block 1 of relation/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('in the events table, read because the model cache is gone: the same', async () => {
    const data = await copyOfClean('events');
    const damaged = await flip(data, files.events);
    // With its verified cache, the version is served without reading its tables: the damage would lie unseen.
    await rm(join(data, 'model'), { recursive: true });
    const server = await serve('node', data);
    try {
      assert.deepEqual(await answers(server), expected);
      await assertKeptAside(server, data, files.events, damaged, /invalid page in block \d+ of relation/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('in pg_class, so that PGlite does not start: the same (the store was removed before)', async () => {
    const data = await copyOfClean('pg-class');
    const damaged = await flip(data, files.pgClass);
    const server = await serve('node', data);
    try {
      assert.deepEqual(await answers(server), expected);
      await assertKeptAside(server, data, files.pgClass, damaged, /did not open/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('and a bundle that is refused: the service stays up, /readyz 503 says why, and a good bundle published then serves', async () => {
    const data = await copyOfClean('refused');
    await flip(data, files.catalogue);
    const bundle = join(work, 'refused.json');
    await writeFile(bundle, '{}');
    // The reason is logged as an error, on stderr: waited for here (the helper matches its `ready` against stdout).
    const server = await serve('node', data, bundle, /"msg":"listening"/);
    try {
      await waitFor(server, UNAVAILABLE);
      const [aside] = await damagedStores(data);
      assert.ok(aside, 'the damaged store was moved aside');
      const ready = await readyz(server);
      assert.equal(ready.http_status, 503);
      assert.equal(ready.status, 'unavailable');
      assert.match(ready.reason, /^no content can be served: the bundle \S+refused\.json is refused \(\d+ problem\(s\), in last_publish\), and the store was damaged: /);
      assert.ok(ready.reason.includes(`moved to ${join(data, aside)}`), ready.reason);
      assert.equal(ready.last_publish.outcome, 'refused');
      assert.ok(ready.last_publish.problem_count > 0);
      assert.equal((await rawRequest(`${server.base}/healthz`)).status, 200, 'the process is alive');
      assert.equal((await rawRequest(`${server.base}${PATHS[0]}`)).status, 503, 'content is not served');

      await writeFile(bundle, text);
      server.child.kill('SIGHUP');
      await waitFor(server, /"msg":"content published"/);
      const now = await readyz(server);
      assert.equal(now.http_status, 200);
      assert.equal(now.status, 'ready');
      assert.equal(now.reason, undefined);
      assert.deepEqual(await answers(server), expected);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('in a catalogue page only a publish reads: that publish rebuilds the store from its bundle, and the service serves it', async () => {
    const data = await copyOfClean('publish');
    const bundle = join(work, 'edited.json');
    await writeFile(bundle, text);
    // The last page of pg_depend: a start reads none of it, a publish adds the new version's dependencies there.
    const pages = (await readFile(join(data, 'store', files.pgDepend))).length / 8192;
    const damaged = await flip(data, files.pgDepend, pages - 1);
    const server = await serve('node', data, bundle);
    try {
      assert.deepEqual(warningsOf(server), [], 'the start does not read the damaged page');
      assert.deepEqual(await damagedStores(data), []);
      const edited = text.replace('"name":"Main"', '"name":"Edited"');
      assert.notEqual(edited, text);
      await writeFile(bundle, edited);
      server.child.kill('SIGHUP');
      await waitFor(server, /"msg":"(content published|the publish failed[^"]*)"/);
      assert.match(server.output(), /"msg":"content published"/);
      await assertKeptAside(server, data, files.pgDepend, damaged, /invalid page in block \d+ of relation/);
      const ready = await readyz(server);
      assert.equal(ready.content_version, sha256(edited));
      assert.equal(ready.version, 1, 'the new store numbers its versions from 1');
      const served = await answers(server);
      assert.deepEqual(served, Object.fromEntries(Object.entries(expected).map(([p, body]) => [p, body.replace('"name":"Main"', '"name":"Edited"')])));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  for (const runtime of ['bun', 'deno'] as const) {
    test(`in the version catalogue, on ${runtime}: moved aside, rebuilt, the same answers`, async () => {
      const data = await copyOfClean(`catalogue-${runtime}`, runtime);
      const damaged = await flip(data, files.catalogue);
      const bundle = join(reachableBy(runtime, work), 'bundle.json');
      await writeFile(bundle, text);
      const server = await serve(runtime, data, bundle);
      try {
        assert.deepEqual(await answers(server), expected);
        await assertKeptAside(server, data, files.catalogue, damaged, /invalid page in block \d+ of relation/);
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  }
});
