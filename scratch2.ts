import { readFileSync } from 'node:fs';
import { openTestApp } from './tests/helpers/app.ts';
import { versionTiles } from './src/content/model/map-tiles.ts';
import { tileMix } from './scripts/bench/distinct-queries.ts';
let t = performance.now();
const bundle = JSON.parse(readFileSync('/tmp/large-100k.json', 'utf8'));
const app = await openTestApp(bundle);
console.log('published', Math.round(performance.now() - t));
const model = app.store.model;
const map = [...model.maps.values()][0];
const version = map.versions.get(map.currentVersionId)!;
t = performance.now();
const tiles = versionTiles(model, version);
console.log('tiles built', Math.round(performance.now() - t));
const mix = tileMix(4000);
for (const label of ["first", "second", "third", "fourth"]) {
  t = performance.now();
  let bytes = 0;
  for (const [z, x, y] of mix) bytes += tiles.tile(z, x, y, 'en', undefined).length;
  console.log(label, 'per tile µs', Math.round((performance.now() - t) * 1000 / mix.length), 'bytes avg', Math.round(bytes / mix.length));
}
await app.close();
