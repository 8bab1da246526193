import { readFileSync } from 'node:fs';
import { ShapeIndex } from './src/geo/vector-tiles.ts';
import { tileMix } from './scripts/bench/distinct-queries.ts';
const bundle = JSON.parse(readFileSync('/tmp/large-100k.json', 'utf8'));
const shapes = [...bundle.paths, ...bundle.polygons].map((p: any, index: number) => ({ geometry: p.geometry, index }));
console.log('shapes', shapes.length, 'vertices', shapes.reduce((s: number, p: any) => s + JSON.stringify(p.geometry.coordinates).split('],[').length, 0));
const idx = new ShapeIndex(shapes, 22);
const heap = () => { (globalThis as any).gc(); return Math.round(process.memoryUsage().heapUsed / 1e6); };
const h0 = heap();
let t = performance.now();
idx.tile(0, 0, 0);
console.log('build ms', Math.round(performance.now() - t), 'heap MB', heap() - h0);
const mix = tileMix(40000);
for (let k = 0; k < 4; k++) {
  t = performance.now();
  for (const [z, x, y] of mix.slice(k * 10000, (k + 1) * 10000)) idx.tile(z, x, y);
  console.log('10k tiles ms', Math.round(performance.now() - t), 'total', (idx as any).index.total, 'heap MB', heap() - h0);
}
