/**
 * What `check` warns about stays with the version published from the bundle: /readyz lists the served version's
 * warnings (the first 100, and how many), after a restart too, and `--strict` refuses a bundle that has any. A
 * publish reads the events a chunk at a time; its warnings are the check's, wherever in the bundle they are.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { checkBundle, WarningCollector, type Finding } from '../src/content/bundle/check.ts';
import { splitBundle } from '../src/content/bundle/parse.ts';
import { BundleError } from '../src/content/bundle/validate-bundle.ts';
import { ContentStore } from '../src/content/content-store.ts';
import { createApp } from '../src/app.ts';
import { cachesPath } from '../src/content/store/data-dir.ts';
import { QUIET, readDemoBundle } from './helpers/app.ts';
import { makeFixture } from './helpers/fixture.ts';
import { longTrailsBundle } from './helpers/small-bundles.ts';

const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

const byPath = (a: Finding, b: Finding) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.message < b.message ? -1 : 1);

/** The warnings a publish collects from a bundle's text, read as a publish reads it (head, then events in chunks). */
function collect(text: string, chunk: number): { count: number; first: Finding[] } {
  const split = splitBundle(new TextEncoder().encode(text))!;
  const collector = new WarningCollector(split.head);
  for (const { offset, items } of split.chunks(chunk)) collector.addEvents(items, offset);
  return collector.warnings;
}

/** The park with misspelt keys on a marker and on two events, far apart. */
function warnedPark(events = 12): string {
  const park = longTrailsBundle() as unknown as Record<string, any>;
  const template = park.events[0];
  park.events = Array.from({ length: events }, (_, i) => ({ ...template, id: `00000000-0000-5000-8000-${String(i).padStart(12, '0')}` }));
  park.markers[0].opening_hourz = 'Mo-Su 09:00-18:00';
  park.events[3].titel = 'A misspelt title';
  park.events[events - 2].prise = '€5';
  return JSON.stringify(park);
}

describe('the warnings of a bundle read in parts', () => {
  test('are the check\'s, in chunks of any size, for the fixture, the demo and a bundle warned about far into its events', async () => {
    for (const text of [JSON.stringify(makeFixture()), JSON.stringify(await readDemoBundle()), warnedPark(40)]) {
      const checked = (await checkBundle(text)).warnings.sort(byPath);
      for (const chunk of [1, 7, 5_000]) {
        const { count, first } = collect(text, chunk);
        assert.equal(count, checked.length);
        if (count <= 100) assert.deepEqual([...first].sort(byPath), checked);
      }
    }
    const paths = collect(warnedPark(40), 7).first.map((w) => w.path).sort();
    assert.deepEqual(paths, ['$.events[38].prise', '$.events[3].titel', '$.markers[0].opening_hourz']);
  });

  test('counts every warning and keeps the first 100', async () => {
    const park = longTrailsBundle() as unknown as Record<string, any>;
    park.events = Array.from({ length: 150 }, (_, i) => ({ ...park.events[0], id: `00000000-0000-5000-8000-${String(i).padStart(12, '0')}`, colour: 'red' }));
    const { count, first } = collect(JSON.stringify(park), 64);
    assert.equal(count, 150);
    assert.equal(first.length, 100);
    assert.equal(first[99].path, '$.events[99].colour');
  });
});

describe('the served version\'s warnings', () => {
  test('/readyz lists them after the publish, and after restarts from the cache and from the store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dmcs-warnings-'));
    dirs.push(dir);
    const text = warnedPark();
    const expected = (await checkBundle(text)).warnings.sort(byPath);
    assert.equal(expected.length, 3);
    const readyz = async (store: ContentStore) => {
      const res = await createApp({ store, logger: QUIET }).fetch(new Request('http://test.local/readyz'));
      return await res.json() as { warnings: Finding[]; warning_count: number; status: string };
    };
    for (const restart of ['publish', 'cache', 'store']) {
      if (restart === 'store') await rm(cachesPath(dir), { recursive: true, force: true });
      const store = await ContentStore.open({ dataDir: dir });
      try {
        if (restart === 'publish') await store.publish(text, 'park.json');
        else await store.commitStaged('park.json', await store.stage(text));
        const body = await readyz(store);
        assert.equal(body.status, 'ready');
        assert.equal(body.warning_count, 3, restart);
        assert.deepEqual([...body.warnings].sort(byPath), expected, restart);
      } finally {
        await store.close();
      }
    }
  });

  test('with --strict a bundle with warnings is refused, each warning a problem, and one without is published', async () => {
    const store = await ContentStore.open({ strict: true });
    try {
      const err = await store.publish(warnedPark(), 'park.json').then(() => null, (e: unknown) => e);
      assert.ok(err instanceof BundleError);
      assert.deepEqual(err.problems.map((p) => p.path).sort(), ['$.events[10].prise', '$.events[3].titel', '$.markers[0].opening_hourz']);
      assert.ok(err.problems.every((p) => /refused with --strict/.test(p.message)));
      assert.equal(store.ready, false, 'nothing was published');
      const model = await store.publish(JSON.stringify(longTrailsBundle()), 'park.json');
      assert.equal(model.warnings?.count, 0);
    } finally {
      await store.close();
    }
  });

  test('with --strict a series carried over to near its horizon is refused too (a warning staging finds, which check cannot), and what is served stays', async (t) => {
    const park = longTrailsBundle();
    const event = park.events[0];
    park.events.push({ ...event, id: '00000000-0000-5000-8000-00000000aaaa', title: 'Daily ranger walk', recurrence: { rule: 'FREQ=DAILY' } });
    const t0 = Date.parse(event.starts_at) - 86_400_000;
    t.mock.timers.enable({ apis: ['Date'], now: t0 });
    const store = await ContentStore.open({ strict: true });
    try {
      const first = await store.publish(JSON.stringify(park), 'park.json');
      assert.equal(first.warnings?.count, 0, 'new: its horizon is two years away');
      // 680 days on, another event edited: the series is unchanged, so its horizon still counts from the first publish.
      t.mock.timers.setTime(t0 + 680 * 86_400_000);
      park.events[0] = { ...event, title: 'Edited' };
      // Read in chunks, and whole (an events key the splitter does not follow: escaped).
      for (const text of [JSON.stringify(park), JSON.stringify(park).replace('"events":', '"\\u0065vents":')]) {
        const err = await store.publish(text, 'park.json').then(() => null, (e: unknown) => e);
        assert.ok(err instanceof BundleError, String(err));
        assert.equal(err.problems.length, 1);
        assert.match(err.problems[0].message, /series 00000000-0000-5000-8000-00000000aaaa \(Daily ranger walk\) has no end.*refused with --strict/);
        assert.equal(store.model.version, first.version, 'the version served stays');
      }
    } finally {
      await store.close();
    }
  });
});
