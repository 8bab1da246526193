/**
 * A map of more than WARM_TILES_MAX_POIS POIs has what its vector tiles are cut from (about a second of work for
 * 100,000 POIs) built in the background once the thread has begun no request for WARM_LARGE_TILES_QUIET_MS
 * (src/content/model/map-tiles.ts, warmLargeTiles): so its first visitor after a start or a publish waits for none of
 * it, while a service answering requests without pause never stops for it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WARM_HOURS_DELAY_MS } from '../src/content/model/open-hours.ts';
import { tilesBuilt, WARM_LARGE_TILES_QUIET_MS, WARM_TILES_MAX_POIS } from '../src/content/model/map-tiles.ts';
import { openTestApp } from './helpers/app.ts';
import { TILES, tilesBundle } from './helpers/small-bundles.ts';
import { openEmptyStore, publishFixture } from './helpers/store.ts';
import { mulberry32 } from './helpers/fixture.ts';
import type { ContentStore } from '../src/content/content-store.ts';

/** The tiles test's map, grown past WARM_TILES_MAX_POIS markers around Lisbon. */
function largeBundle(): string {
  const b = tilesBundle();
  const rand = mulberry32(7);
  const template = b.markers.find((m) => m.map_id === TILES.map)!;
  for (let i = 0; i <= WARM_TILES_MAX_POIS; i++) {
    b.markers.push({ ...template, id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, name: `Extra ${i}`,
      lat: Math.round((38.7 + rand() * 0.1) * 1e6) / 1e6, lng: Math.round((-9.2 + rand() * 0.1) * 1e6) / 1e6 });
  }
  return JSON.stringify(b);
}

const text = largeBundle();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The served version of the large map. */
function current(store: ContentStore) {
  const map = store.model.maps.get(TILES.map)!;
  return map.versions.get(map.currentVersionId)!;
}

test('built once the thread is quiet after the version is served, before any tile is asked for', async () => {
  const store = await openEmptyStore();
  try {
    await publishFixture(store, text);
    assert.ok(current(store).pois.length > WARM_TILES_MAX_POIS);
    assert.equal(tilesBuilt(current(store)), false, 'not at once');
    await pause(WARM_HOURS_DELAY_MS + WARM_LARGE_TILES_QUIET_MS + 1_500);
    assert.equal(tilesBuilt(current(store)), true);
  } finally {
    await store.close();
  }
});

test('not while requests keep coming; then in the first quiet moment', async () => {
  const { store, get, close } = await openTestApp(JSON.parse(text));
  try {
    // A request to the app every 100 ms (a probe, a load) for well past the moment a quiet thread would have built it.
    const until = performance.now() + WARM_HOURS_DELAY_MS + WARM_LARGE_TILES_QUIET_MS + 2_000;
    while (performance.now() < until) {
      assert.equal((await get('/healthz')).status, 200);
      await pause(100);
    }
    assert.equal(tilesBuilt(current(store)), false, 'never while busy');
    await pause(WARM_LARGE_TILES_QUIET_MS + 1_000);
    assert.equal(tilesBuilt(current(store)), true, 'built once quiet');
  } finally {
    await close();
  }
});
