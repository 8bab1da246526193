/** One-off events spread over the demo window (main map), and the events of the smaller maps. */
import type { EventT } from '../../src/content/bundle/bundle-schema.ts';
import { type Rng, addDays, int, lisbon, pick, pickN, ANCHOR_MS } from './ids.ts';
import type { PoiInfo } from './pois.ts';
import { type Tag, finder, makeEvent, pool } from './events-base.ts';
import type { MapKey } from './taxonomy.ts';

/** [type, title templates, category keys for anchors, kinds, hour range, duration hours range, base tags, prices] */
type Kind = readonly [string, string[], string[], PoiInfo['kind'][], [number, number], [number, number], Tag[], string[]];

const MAIN_KINDS: Kind[] = [
  ['concert', ['Jazz Night at {p}', 'Acoustic Sessions: {p}', 'Indie Live at {p}', 'Classical Evening at {p}'],
    ['livemusic', 'bars', 'gardens', 'museums_art'], ['marker'], [20, 22], [2, 4], ['live-music', 'night'], ['€10', '€15', '€20', 'Free']],
  ['festival', ['Street Festival in {p}', '{p} Summer Nights', 'Neighbourhood Feast: {p}'],
    ['districts', 'parks', 'gardens'], ['polygon', 'marker'], [11, 16], [6, 10], ['outdoor', 'seasonal'], ['Free']],
  ['sport', ['Morning Run: {p}', 'Cycling Tour: {p}', 'Charity Walk along {p}'],
    ['routes', 'parks'], ['path', 'polygon'], [8, 9], [2, 3], ['outdoor', 'accessible'], ['Free', '€5', '€12']],
  ['food', ['Tasting Menu at {p}', 'Petiscos Evening at {p}', 'Wine & Cheese at {p}', 'Cooking Class: {p}'],
    ['restaurants', 'markets', 'cafes'], ['marker'], [12, 19], [2, 3], ['food'], ['€25', '€35', '€45', '€60']],
  ['family', ['Family Day at {p}', 'Kids Workshop: {p}', 'Treasure Hunt at {p}'],
    ['museums_hist', 'parks', 'gardens'], ['marker', 'polygon'], [10, 15], [2, 4], ['family-friendly', 'kids'], ['Free', '€5', '€8']],
  ['theatre', ['Theatre Night at {p}', 'Open-air Theatre: {p}', 'Puppet Show at {p}'],
    ['monuments', 'gardens', 'museums_art'], ['marker'], [19, 21], [2, 3], ['night'], ['€12', '€18', '€22']],
  ['tour', ['Sunset Walk: {p}', 'Photography Walk: {p}', 'Night Tour: {p}', 'Tile Hunt: {p}'],
    ['routes', 'miradouros', 'heritage', 'districts'], ['path', 'marker', 'polygon'], [17, 19], [2, 3], ['outdoor'], ['€12', '€18', 'Free']],
  ['market', ['Craft Market at {p}', 'Vintage Market: {p}', 'Christmas Market at {p}'],
    ['markets', 'gardens', 'crafts'], ['marker'], [10, 11], [6, 8], ['free', 'outdoor'], ['Free']],
];

function oneOffs(r: Rng, index: PoiInfo[], map: MapKey, kinds: Kind[], count: number, spanDays: number, keyPrefix: string, emptyEvery: number): EventT[] {
  const out: EventT[] = [];
  const all = pool(index, map);
  for (let i = 0; i < count; i++) {
    const [type, titles, cats, poiKinds, [h0, h1], [d0, d1], tags, prices] = kinds[i % kinds.length];
    let cands = pool(index, map, cats, poiKinds);
    if (cands.length === 0) cands = all;
    const t = addDays(ANCHOR_MS, Math.floor(((i + r()) / count) * spanDays));
    const dt = new Date(t);
    const y = dt.getUTCFullYear();
    const m = dt.getUTCMonth() + 1;
    const d = dt.getUTCDate();
    const start = lisbon(y, m, d, int(r, h0, h1), pick(r, [0, 0, 30]));
    const end = start + int(r, d0, d1) * 3_600_000;
    const main = pick(r, cands);
    let pois: PoiInfo[] = [main];
    if (emptyEvery > 0 && i % emptyEvery === emptyEvery - 1) pois = [];
    else if (r() < 0.15) {
      const near = all.filter((p) => p.id !== main.id)
        .map((p) => [p, (p.lat - main.lat) ** 2 + (p.lng - main.lng) ** 2] as const)
        .sort((a, b) => a[1] - b[1] || (a[0].id < b[0].id ? -1 : 1)).slice(0, 6).map((x) => x[0]);
      pois = [main, ...pickN(r, near, int(r, 1, 2))];
    }
    const title = pick(r, titles).replace('{p}', main.name);
    out.push(makeEvent(r, {
      map, key: `${keyPrefix}:${i}`, title: pois.length === 0 ? title.replace(main.name, map === 'main' ? 'Lisbon' : 'the Park') : title,
      type, start, end, pois, tags: [...tags], price: pick(r, prices),
      desc: pois.length === 0 ? `A ${type} event at venues across the city.` : `A ${type} event at ${main.name}.`,
    }));
  }
  return out;
}

const FOOD_KINDS: Kind[] = [
  ['food', ['Pastel de Nata Masterclass at {p}', 'Seafood Night at {p}', 'Tasting at {p}'], ['f_pastry', 'f_rest', 'f_seafood'], ['marker'], [11, 19], [2, 3], ['food'], ['€20', '€30', '€45']],
  ['market', ['Producers Market at {p}', 'Late Market at {p}'], ['f_market'], ['marker'], [9, 17], [4, 6], ['food', 'free'], ['Free']],
];

const SINTRA_KINDS: Kind[] = [
  ['tour', ['Guided Hike: {p}', 'Birdwatching Walk: {p}', 'Full Moon Walk: {p}'], ['trails', 'coast'], ['path'], [9, 10], [3, 5], ['outdoor'], ['€10', '€15', 'Free']],
  ['exhibition', ['Romantic Sintra at {p}', 'Palace Gardens Open Day: {p}'], ['palaces', 'gardens_s'], ['marker', 'polygon'], [10, 10], [7, 8], ['art', 'accessible'], ['€12', '€20']],
  ['sport', ['Trail Run: {p}', 'Surf Contest at {p}'], ['coast', 'trails'], ['marker', 'path', 'polygon'], [8, 9], [3, 6], ['outdoor'], ['Free', '€25']],
  ['concert', ['Sunset Concert at {p}', 'Chamber Music at {p}'], ['palaces', 'viewpoints'], ['marker'], [18, 19], [2, 2], ['live-music'], ['€15', '€25']],
];

export function randomEvents(r: Rng, index: PoiInfo[]): EventT[] {
  const out: EventT[] = [];
  out.push(...oneOffs(r, index, 'main', MAIN_KINDS, 240, 785, 'oneoff', 14));
  out.push(...oneOffs(r, index, 'food', FOOD_KINDS, 40, 785, 'food', 0));
  out.push(...oneOffs(r, index, 'sintra', SINTRA_KINDS, 40, 785, 'sintra', 20));

  // Sintra Christmas Village (disabled map): a handful of December events.
  const find = finder(index);
  const xm = (name: string) => find('xmas', name);
  const X: Array<[string, string, number, number, string, Tag[], string]> = [
    ['Christmas Village Opening', 'Christmas Market – Largo Rainha D. Amélia', 5, 17, 'festival', ['seasonal', 'family-friendly'], 'Free'],
    ['Meet Santa', "Santa's House – Volta do Duche", 12, 11, 'family', ['kids', 'seasonal'], '€5'],
    ['Skating by Night', 'Ice Rink – Parque da Liberdade', 19, 19, 'sport', ['night', 'seasonal'], '€8'],
    ['Living Nativity', 'Nativity Scene – Igreja de São Martinho', 23, 18, 'theatre', ['seasonal', 'free'], 'Free'],
    ['Carol Concert', 'Christmas Market – Largo Rainha D. Amélia', 24, 16, 'concert', ['live-music', 'seasonal'], 'Free'],
  ];
  X.forEach(([title, place, day, hour, type, tags, price], i) => {
    out.push(makeEvent(r, {
      map: 'xmas', key: `xmas:${i}`, title, type, start: lisbon(2026, 12, day, hour), end: lisbon(2026, 12, day, hour + 3),
      pois: [xm(place)], tags, price, desc: `${title} at the Sintra Christmas Village.`,
    }));
  });
  return out;
}
