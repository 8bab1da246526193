/**
 * A feature's `updated_at` (OGC API Features) follows the store's change tracking: a publish that edits one marker
 * moves that marker's time and no other POI's, a removed and re-added POI is a change of its own (content the store
 * served before, whose model is served again with a new account of its changes), and a restart from the store closed
 * cleanly serves the same times. And an OGC `next` link followed across a publish goes on from where it was: every
 * feature that stayed comes once, none twice.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createApp } from '../src/app.ts';
import { ContentStore } from '../src/content/content-store.ts';
import { QUIET, readDemoBundle } from './helpers/app.ts';

const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

/** Each POI of the main map (markers, paths and polygons) with its `updated_at`, by id. */
async function updatedAt(store: ContentStore): Promise<Map<string, string>> {
  const app = createApp({ store, logger: QUIET });
  const out = new Map<string, string>();
  for (const kind of ['markers', 'paths', 'polygons']) {
    const res = await app.fetch(new Request(`http://test.local/ogc/collections/${MAIN}-${kind}/items?limit=10000&properties=updated_at`));
    assert.equal(res.status, 200);
    for (const f of (await res.json()).features) out.set(f.id, f.properties.updated_at);
  }
  return out;
}

test('updated_at moves only for the POIs a publish changed, and a restart keeps it', async () => {
  const demo = await readDemoBundle();
  const dir = await mkdtemp(join(tmpdir(), 'feature-changes-'));
  dirs.push(dir);
  let store = await ContentStore.open({ dataDir: dir });
  try {
    await store.publish(JSON.stringify(demo), 'demo.json');
    const first = await updatedAt(store);
    assert.ok(first.size > 100);
    const published = new Set(first.values());
    assert.equal(published.size, 1, 'every POI first changed in the first publish');

    const edited = structuredClone(demo);
    const marker = edited.markers.find((m) => m.map_id === MAIN)!;
    marker.name = typeof marker.name === 'string' ? `${marker.name} (renamed)` : { ...marker.name, en: 'Renamed' };
    // A public POI other than the marker that nothing else names (an event, a list, an association), so the bundle
    // without it is whole.
    const referring = JSON.stringify([edited.events, edited.lists, edited.associations]);
    const gone = [...edited.polygons, ...edited.paths, ...edited.markers].find((p) => p.id !== marker.id && first.has(p.id) && !referring.includes(p.id))!;
    await new Promise((r) => setTimeout(r, 20));
    await store.publish(JSON.stringify(edited), 'demo.json');
    const second = await updatedAt(store);
    assert.deepEqual([...second.keys()].sort(), [...first.keys()].sort());
    const moved = [...second.keys()].filter((id) => second.get(id) !== first.get(id));
    assert.deepEqual(moved, [marker.id]);
    assert.ok(Date.parse(second.get(marker.id)!) > Date.parse(first.get(marker.id)!));

    // A POI removed, then back: it changed in the publish that brought it back.
    const without = structuredClone(edited);
    without.markers = without.markers.filter((p) => p.id !== gone.id);
    without.paths = without.paths.filter((p) => p.id !== gone.id);
    without.polygons = without.polygons.filter((p) => p.id !== gone.id);
    await store.publish(JSON.stringify(without), 'demo.json');
    assert.ok(!(await updatedAt(store)).has(gone.id));
    await store.publish(JSON.stringify(edited), 'demo.json');
    const fourth = await updatedAt(store);
    assert.ok(Date.parse(fourth.get(gone.id)!) > Date.parse(second.get(gone.id)!));
    assert.equal(fourth.get(marker.id), second.get(marker.id));

    // Restarted from the record of the store closed cleanly, the same content published again: the same times.
    await store.close();
    store = await ContentStore.open({ dataDir: dir });
    await store.publish(JSON.stringify(edited), 'demo.json');
    assert.equal((await store.opened()).open, false, 'served without opening the store');
    assert.deepEqual(await updatedAt(store), fourth, 'the same times after a restart');
  } finally {
    await store.close();
  }
});

test('an OGC next link goes on after a publish: every feature that stayed comes once, none is repeated', async () => {
  const demo = await readDemoBundle();
  const dir = await mkdtemp(join(tmpdir(), 'feature-pages-'));
  dirs.push(dir);
  const store = await ContentStore.open({ dataDir: dir });
  try {
    await store.publish(JSON.stringify(demo), 'demo.json');
    const app = createApp({ store, logger: QUIET });
    const get = async (path: string) => {
      const res = await app.fetch(new Request(`http://test.local${path}`));
      assert.equal(res.status, 200, path);
      return res.json();
    };
    const markerIds = async () => new Set(((await get(`/maps/${MAIN}/markers`)).markers as { id: string }[]).map((m) => m.id));
    const page = async (path: string) => {
      const body = await get(path) as { features: { id: string }[]; links: { rel: string; href: string }[] };
      const next = body.links.find((l) => l.rel === 'next');
      return { ids: body.features.map((f) => f.id), next: next ? new URL(next.href).pathname + new URL(next.href).search : null };
    };
    const before = await markerIds();
    const first = await page(`/ogc/collections/${MAIN}-markers/items?limit=40`);
    // Between two pages: a marker of the first page and one further on removed, and a new one added further on.
    const referring = JSON.stringify([demo.events, demo.lists, demo.associations]);
    const free = [...before].filter((id) => !referring.includes(id)).sort();
    const seenGone = free.find((id) => first.ids.includes(id))!;
    const laterGone = free.find((id) => id > first.ids.at(-1)!)!;
    assert.ok(seenGone && laterGone, 'markers to remove on either side of the page');
    const edited = structuredClone(demo);
    edited.markers = edited.markers.filter((m) => m.id !== seenGone && m.id !== laterGone);
    const added = { ...structuredClone(demo.markers.find((m) => before.has(m.id))!), id: 'ffffffff-ffff-4fff-bfff-ffffffffffff', name: 'Added' };
    edited.markers.push(added);
    await store.publish(JSON.stringify(edited), 'demo.json');
    const after = await markerIds();
    const rest: string[] = [];
    for (let path = first.next; path;) {
      const next = await page(path);
      rest.push(...next.ids);
      path = next.next;
    }
    const all = [...first.ids, ...rest];
    assert.equal(new Set(all).size, all.length, 'no feature twice');
    for (const id of before) if (after.has(id)) assert.ok(all.includes(id), `${id} stayed and is served`);
    assert.ok(rest.includes(added.id), 'a feature added beyond the cursor is reached');
    assert.ok(!rest.includes(laterGone), 'a feature removed is not served');
    assert.deepEqual(new Set(rest), new Set([...after].filter((id) => id > first.ids.at(-1)!)), 'the pages after are the new version\'s, from the cursor on');
  } finally {
    await store.close();
  }
});
