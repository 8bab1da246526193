/**
 * A version's hours are read at publish: once a version is served, every distinct rule of each map is read and its
 * current week computed in the background (src/content/model/open-hours.ts, warmHours), so no visitor's request
 * reads one, and what each map's vector tiles are cut from is built then too; a model whose POIs have no hours never
 * loads the library's reader for them.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { hoursOfMap, WARM_HOURS_DELAY_MS } from '../src/content/model/open-hours.ts';
import { tilesBuilt } from '../src/content/model/map-tiles.ts';
import { HOURS, HOURS_RULES, hoursBundle } from './helpers/small-bundles.ts';
import { openEmptyStore, publishFixture } from './helpers/store.ts';

const store = await openEmptyStore();
after(() => store.close());

test('every distinct rule of every map is read in the background soon after the version is served', async () => {
  await publishFixture(store, JSON.stringify(hoursBundle()));
  await new Promise((resolve) => setTimeout(resolve, WARM_HOURS_DELAY_MS + 1_500));
  const model = store.model;
  for (const key of ['lisbon', 'newyork'] as const) {
    const hours = await hoursOfMap(model, model.maps.get(HOURS.map(key))!);
    // Every marker's rule and the park's (one rule of the markers' is the park's too).
    const distinct = new Set([...HOURS_RULES, 'Mo-Su 07:00-21:00']).size;
    assert.equal(hours.rulesRead, distinct, `${key}: every rule read before any request asked`);
    // And what the map's vector tiles are cut from is built (map-tiles.ts, warmTiles), for its current version.
    const map = model.maps.get(HOURS.map(key))!;
    assert.equal(tilesBuilt(map.versions.get(map.currentVersionId)!), true, `${key}: its tiles' source built before any tile was asked for`);
  }
});
