/**
 * A feature's `updated_at` (OGC API Features) follows the store's change tracking: a publish that edits one marker
 * moves that marker's time and no other POI's, a removed and re-added POI is a change of its own (content the store
 * served before, whose model is served again with a new account of its changes), and a restart from the store closed
 * cleanly serves the same times. An OGC `next` link followed across a publish goes on from where it was: every
 * feature that stayed comes once, none twice. And `updated_since` on the lists keeps exactly the records whose
 * `updated_at` is at or after it, events of every status.
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

/** A store in a directory of its own with the demo published: the bundle, the directory and the store. */
async function demoStore(prefix: string): Promise<{ demo: Awaited<ReturnType<typeof readDemoBundle>>; dir: string; store: ContentStore }> {
  const demo = await readDemoBundle();
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  const store = await ContentStore.open({ dataDir: dir });
  await store.publish(JSON.stringify(demo), 'demo.json');
  return { demo, dir, store };
}

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
  const opened = await demoStore('feature-changes-');
  const { demo, dir } = opened;
  let store = opened.store;
  try {
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
  const { demo, store } = await demoStore('feature-pages-');
  try {
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

test('updated_since keeps the records changed at or after the instant, as their updated_at says; events of every status', async () => {
  const { demo, store } = await demoStore('updated-since-');
  try {
    await new Promise((r) => setTimeout(r, 20));
    const cut = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    // One event retitled, another cancelled, and one marker renamed that other events name: they show its id and type
    // only, so they do not change (docs/api-conventions.md, What changed since).
    const edited = structuredClone(demo);
    const [retitled, cancelled] = edited.events.filter((e) => e.map_id === MAIN && !e.recurrence && e.status !== 'cancelled');
    retitled.title = 'Retitled';
    cancelled.status = 'cancelled';
    const served = await createApp({ store, logger: QUIET }).fetch(new Request(`http://test.local/maps/${MAIN}/markers`));
    const publicIds = new Set((await served.json()).markers.map((m: { id: string }) => m.id));
    const namedElsewhere = new Set(edited.events.filter((e) => e !== retitled && e !== cancelled).flatMap((e) => e.poi_ids));
    const marker = edited.markers.find((m) => publicIds.has(m.id) && namedElsewhere.has(m.id))!;
    assert.ok(marker, 'a public marker that other events name');
    marker.name = 'Renamed';
    await store.publish(JSON.stringify(edited), 'demo.json');
    const app = createApp({ store, logger: QUIET });
    const get = async (path: string) => {
      const res = await app.fetch(new Request(`http://test.local${path}`));
      assert.equal(res.status, 200, path);
      return res.json();
    };
    const since = encodeURIComponent(cut);
    assert.deepEqual((await get(`/maps/${MAIN}/markers?updated_since=${since}`)).markers.map((m: { id: string }) => m.id), [marker.id]);
    assert.deepEqual((await get(`/maps/${MAIN}/paths?updated_since=${since}`)).paths, []);
    // Events: every status by default (an app learns of the cancellation), paged by the cursor like any filter.
    const events: { id: string; status: string }[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await get(`/events?map_id=${MAIN}&from=1970-01-01&to=2100-01-01&limit=1&updated_since=${since}${cursor ? `&cursor=${cursor}` : ''}`);
      events.push(...page.events);
      assert.equal(page.total, 2);
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(events.map((e) => e.id).sort(), [retitled.id, cancelled.id].sort());
    // A cursor of such a query goes on across a publish (here one that changes nothing of this map).
    const first: any = await get(`/events?map_id=${MAIN}&from=1970-01-01&to=2100-01-01&limit=1&updated_since=${since}`);
    const elsewhere = structuredClone(edited);
    const other = elsewhere.events.find((e) => e.map_id !== MAIN)!;
    other.title = 'Elsewhere';
    await store.publish(JSON.stringify(elsewhere), 'demo.json');
    const second: any = await get(`/events?map_id=${MAIN}&from=1970-01-01&to=2100-01-01&limit=1&updated_since=${since}&cursor=${first.next_cursor}`);
    assert.deepEqual([...first.events, ...second.events].map((e: { id: string }) => e.id).sort(), [retitled.id, cancelled.id].sort());
    assert.equal(events.find((e) => e.id === cancelled.id)!.status, 'cancelled');
    // Against every record's updated_at (OGC features carry it), at an instant before both publishes: all of them.
    const everything = encodeURIComponent('2000-01-01T00:00:00Z');
    const all = await get(`/ogc/collections/${MAIN}-markers/items?limit=10000&properties=updated_at`);
    const changedAfter = (at: string) => all.features.filter((f: any) => Date.parse(f.properties.updated_at) >= Date.parse(at)).map((f: any) => f.id).sort();
    assert.deepEqual(changedAfter(cut), [marker.id]);
    assert.equal((await get(`/maps/${MAIN}/markers?updated_since=${everything}`)).markers.length, all.features.length);
    const categories = demo.categories.filter((c) => c.map_id === MAIN && !c.parent_id).map((c) => c.id).join(',');
    const tagged = await get(`/maps/${MAIN}/pois?tags=${categories}&end=500&updated_since=${since}`);
    assert.deepEqual(tagged.items.map((p: { id: string }) => p.id), [marker.id]);
    // Not an instant: 400 naming it.
    const bad = await app.fetch(new Request(`http://test.local/events?map_id=${MAIN}&updated_since=2027-01-01`));
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).errors[0].name, 'updated_since');
  } finally {
    await store.close();
  }
});

test("updated_since lists the events whose anchors changed: a POI they name made draft-only, then public again", async () => {
  const { demo, store } = await demoStore('updated-since-anchors-');
  try {
    const draft = demo.maps.find((m) => m.id === MAIN)!.versions.find((v) => v.status === 'draft');
    assert.ok(draft, 'the demo main map has a draft version');
    // The public POI of the main map the most events name (series and single events alike).
    const counts = new Map<string, number>();
    for (const e of demo.events.filter((x) => x.map_id === MAIN)) for (const id of new Set(e.poi_ids)) counts.set(id, (counts.get(id) ?? 0) + 1);
    const pois = [...demo.markers, ...demo.paths, ...demo.polygons].filter((p) => p.map_id === MAIN && (p.version_ids ?? []).length !== 1);
    const poi = pois.sort((a, b) => (counts.get(b.id) ?? 0) - (counts.get(a.id) ?? 0))[0];
    const naming = new Set(demo.events.filter((e) => e.poi_ids.includes(poi.id)).map((e) => e.id));
    assert.ok(naming.size >= 1);
    const every = async (since: string) => {
      const app = createApp({ store, logger: QUIET });
      const out: any[] = [];
      let cursor: string | null = null;
      do {
        const res = await app.fetch(new Request(`http://test.local/events?map_id=${MAIN}&from=1970-01-01&to=2100-01-01&limit=200` +
          `&updated_since=${encodeURIComponent(since)}${cursor ? `&cursor=${cursor}` : ''}`));
        assert.equal(res.status, 200);
        const page: any = await res.json();
        out.push(...page.events);
        cursor = page.next_cursor;
      } while (cursor);
      return out;
    };
    const step = async (bundle: typeof demo) => {
      await new Promise((r) => setTimeout(r, 20));
      const at = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 20));
      await store.publish(JSON.stringify(bundle), 'demo.json');
      return every(at);
    };
    const hidden = structuredClone(demo);
    [...hidden.markers, ...hidden.paths, ...hidden.polygons].find((p) => p.id === poi.id)!.version_ids = [draft.id];
    const changed = await step(hidden);
    // Each event that names it (an occurrence of a series names it through its series), and no other.
    const of = (e: any) => e.series_id ?? e.id;
    assert.deepEqual(new Set(changed.map(of)), naming, 'exactly the events that name the POI');
    for (const e of changed) assert.ok(!e.anchors.some((a: any) => a.id === poi.id), `${e.id} no longer shows it`);
    const back = await step(structuredClone(demo));
    assert.deepEqual(new Set(back.map(of)), naming, 'and again when it is public again');
    for (const e of back) assert.ok(e.anchors.some((a: any) => a.id === poi.id), `${e.id} shows it again`);
  } finally {
    await store.close();
  }
});
