/** One-off events spread over the demo window (main map), and the events of the smaller maps. */
import type { EventT } from '../../src/content/bundle/bundle-schema.ts';
import { type Rng, addDays, int, lisbon, pick, pickN, ANCHOR_MS } from './ids.ts';
import type { PoiInfo } from './pois.ts';
import { type Tag, finder, makeEvent, pool } from './events-base.ts';
import type { MapKey } from './taxonomy.ts';
import { fill, type Tr } from './i18n.ts';

/** [type, title templates, category keys for anchors, kinds, hour range, duration hours range, base tags, prices] */
type Kind = readonly [string, Tr[], string[], PoiInfo['kind'][], [number, number], [number, number], Tag[], string[]];

/** Title templates: `{p}` is the place, in the language of the title. */
const tr = (en: string, pt: string, es?: string): Tr => ({ en, pt, ...(es !== undefined ? { es } : {}) });

const MAIN_KINDS: Kind[] = [
  ['concert', [tr('Jazz Night at {p}', 'Noite de Jazz: {p}', 'Noche de jazz: {p}'), tr('Acoustic Sessions: {p}', 'Sessões Acústicas: {p}', 'Sesiones acústicas: {p}'),
    tr('Indie Live at {p}', 'Indie ao Vivo: {p}', 'Indie en directo: {p}'), tr('Classical Evening at {p}', 'Serão de Música Clássica: {p}', 'Velada de música clásica: {p}')],
    ['livemusic', 'bars', 'gardens', 'museums_art'], ['marker'], [20, 22], [2, 4], ['live-music', 'night'], ['€10', '€15', '€20', 'Free']],
  ['festival', [tr('Street Festival in {p}', 'Festa de Rua: {p}', 'Fiesta callejera: {p}'), tr('{p} Summer Nights', 'Noites de Verão: {p}', 'Noches de verano: {p}'),
    tr('Neighbourhood Feast: {p}', 'Festa do Bairro: {p}', 'Fiesta del barrio: {p}')],
    ['districts', 'parks', 'gardens'], ['polygon', 'marker'], [11, 16], [6, 10], ['outdoor', 'seasonal'], ['Free']],
  ['sport', [tr('Morning Run: {p}', 'Corrida Matinal: {p}', 'Carrera matinal: {p}'), tr('Cycling Tour: {p}', 'Passeio de Bicicleta: {p}', 'Paseo en bicicleta: {p}'),
    tr('Charity Walk along {p}', 'Caminhada Solidária: {p}', 'Caminata solidaria: {p}')],
    ['routes', 'parks'], ['path', 'polygon'], [8, 9], [2, 3], ['outdoor', 'accessible'], ['Free', '€5', '€12']],
  ['food', [tr('Tasting Menu at {p}', 'Menu de Degustação: {p}', 'Menú degustación: {p}'), tr('Petiscos Evening at {p}', 'Noite de Petiscos: {p}', 'Noche de petiscos: {p}'),
    tr('Wine & Cheese at {p}', 'Vinhos e Queijos: {p}', 'Vinos y quesos: {p}'), tr('Cooking Class: {p}', 'Aula de Cozinha: {p}', 'Clase de cocina: {p}')],
    ['restaurants', 'markets', 'cafes'], ['marker'], [12, 19], [2, 3], ['food'], ['€25', '€35', '€45', '€60']],
  ['family', [tr('Family Day at {p}', 'Dia da Família: {p}', 'Día en familia: {p}'), tr('Kids Workshop: {p}', 'Oficina para Crianças: {p}', 'Taller infantil: {p}'),
    tr('Treasure Hunt at {p}', 'Caça ao Tesouro: {p}', 'Búsqueda del tesoro: {p}')],
    ['museums_hist', 'parks', 'gardens'], ['marker', 'polygon'], [10, 15], [2, 4], ['family-friendly', 'kids'], ['Free', '€5', '€8']],
  ['theatre', [tr('Theatre Night at {p}', 'Noite de Teatro: {p}', 'Noche de teatro: {p}'), tr('Open-air Theatre: {p}', 'Teatro ao Ar Livre: {p}', 'Teatro al aire libre: {p}'),
    tr('Puppet Show at {p}', 'Teatro de Marionetas: {p}', 'Espectáculo de títeres: {p}')],
    ['monuments', 'gardens', 'museums_art'], ['marker'], [19, 21], [2, 3], ['night'], ['€12', '€18', '€22']],
  ['tour', [tr('Sunset Walk: {p}', 'Passeio ao Pôr do Sol: {p}', 'Paseo al atardecer: {p}'), tr('Photography Walk: {p}', 'Passeio Fotográfico: {p}', 'Paseo fotográfico: {p}'),
    tr('Night Tour: {p}', 'Visita Noturna: {p}', 'Visita nocturna: {p}'), tr('Tile Hunt: {p}', 'À Procura de Azulejos: {p}', 'A la caza de azulejos: {p}')],
    ['routes', 'miradouros', 'heritage', 'districts'], ['path', 'marker', 'polygon'], [17, 19], [2, 3], ['outdoor'], ['€12', '€18', 'Free']],
  ['market', [tr('Craft Market at {p}', 'Mercado de Artesanato: {p}', 'Mercado de artesanía: {p}'), tr('Vintage Market: {p}', 'Mercado Vintage: {p}', 'Mercado vintage: {p}'),
    tr('Christmas Market at {p}', 'Mercado de Natal: {p}', 'Mercado navideño: {p}')],
    ['markets', 'gardens', 'crafts'], ['marker'], [10, 11], [6, 8], ['free', 'outdoor'], ['Free']],
];

/** What an event of each type is, for its description: "A concert event at {p}." and its translations. */
const TYPE_DESC: Record<string, { at: Tr; across: Tr }> = Object.fromEntries(([
  ['concert', 'Concerto', 'Concierto'], ['festival', 'Festival', 'Festival'], ['sport', 'Evento desportivo', 'Evento deportivo'],
  ['food', 'Evento gastronómico', 'Evento gastronómico'], ['family', 'Evento para famílias', 'Evento para familias'],
  ['theatre', 'Teatro', 'Teatro'], ['tour', 'Visita', 'Visita'], ['market', 'Mercado', 'Mercado'], ['exhibition', 'Exposição', 'Exposición'],
] as const).map(([type, pt, es]) => [type, {
  at: tr(`A ${type} event at {p}.`, `${pt}. Local: {p}.`, `${es}. Lugar: {p}.`),
  across: tr(`A ${type} event at venues across the city.`, `${pt} em vários locais da cidade.`, `${es} en varios lugares de la ciudad.`),
}]));

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
    const template = pick(r, titles);
    // An event with no place is about the whole city (or park).
    const where: Tr = pois.length > 0 ? main.label : map === 'main' ? tr('Lisbon', 'Lisboa', 'Lisboa') : tr('the Park', 'o Parque', 'el Parque');
    out.push(makeEvent(r, {
      map, key: `${keyPrefix}:${i}`, title: fill(template, { p: where }),
      type, start, end, pois, tags: [...tags], price: pick(r, prices),
      desc: pois.length === 0 ? TYPE_DESC[type].across : fill(TYPE_DESC[type].at, { p: main.label }),
    }));
  }
  return out;
}

const FOOD_KINDS: Kind[] = [
  ['food', [tr('Pastel de Nata Masterclass at {p}', 'Masterclass de Pastel de Nata: {p}'), tr('Seafood Night at {p}', 'Noite de Marisco: {p}'),
    tr('Tasting at {p}', 'Degustação: {p}')], ['f_pastry', 'f_rest', 'f_seafood'], ['marker'], [11, 19], [2, 3], ['food'], ['€20', '€30', '€45']],
  ['market', [tr('Producers Market at {p}', 'Mercado de Produtores: {p}'), tr('Late Market at {p}', 'Mercado ao Fim da Tarde: {p}')],
    ['f_market'], ['marker'], [9, 17], [4, 6], ['food', 'free'], ['Free']],
];

const SINTRA_KINDS: Kind[] = [
  ['tour', [tr('Guided Hike: {p}', 'Caminhada Guiada: {p}'), tr('Birdwatching Walk: {p}', 'Observação de Aves: {p}'), tr('Full Moon Walk: {p}', 'Caminhada de Lua Cheia: {p}')],
    ['trails', 'coast'], ['path'], [9, 10], [3, 5], ['outdoor'], ['€10', '€15', 'Free']],
  ['exhibition', [tr('Romantic Sintra at {p}', 'Sintra Romântica: {p}'), tr('Palace Gardens Open Day: {p}', 'Jardins do Palácio de Portas Abertas: {p}')],
    ['palaces', 'gardens_s'], ['marker', 'polygon'], [10, 10], [7, 8], ['art', 'accessible'], ['€12', '€20']],
  ['sport', [tr('Trail Run: {p}', 'Trail Running: {p}'), tr('Surf Contest at {p}', 'Campeonato de Surf: {p}')],
    ['coast', 'trails'], ['marker', 'path', 'polygon'], [8, 9], [3, 6], ['outdoor'], ['Free', '€25']],
  ['concert', [tr('Sunset Concert at {p}', 'Concerto ao Pôr do Sol: {p}'), tr('Chamber Music at {p}', 'Música de Câmara: {p}')],
    ['palaces', 'viewpoints'], ['marker'], [18, 19], [2, 2], ['live-music'], ['€15', '€25']],
];

export function randomEvents(r: Rng, index: PoiInfo[]): EventT[] {
  const out: EventT[] = [];
  out.push(...oneOffs(r, index, 'main', MAIN_KINDS, 240, 785, 'oneoff', 14));
  out.push(...oneOffs(r, index, 'food', FOOD_KINDS, 40, 785, 'food', 0));
  out.push(...oneOffs(r, index, 'sintra', SINTRA_KINDS, 40, 785, 'sintra', 20));

  // Sintra Christmas Village (disabled map): a handful of December events.
  const find = finder(index);
  const xm = (name: string) => find('xmas', name);
  const X: Array<[Tr, string, number, number, string, Tag[], string]> = [
    [tr('Christmas Village Opening', 'Inauguração da Vila Natal'), 'Christmas Market – Largo Rainha D. Amélia', 5, 17, 'festival', ['seasonal', 'family-friendly'], 'Free'],
    [tr('Meet Santa', 'Visita ao Pai Natal'), "Santa's House – Volta do Duche", 12, 11, 'family', ['kids', 'seasonal'], '€5'],
    [tr('Skating by Night', 'Patinagem Noturna'), 'Ice Rink – Parque da Liberdade', 19, 19, 'sport', ['night', 'seasonal'], '€8'],
    [tr('Living Nativity', 'Presépio Vivo'), 'Nativity Scene – Igreja de São Martinho', 23, 18, 'theatre', ['seasonal', 'free'], 'Free'],
    [tr('Carol Concert', 'Concerto de Natal'), 'Christmas Market – Largo Rainha D. Amélia', 24, 16, 'concert', ['live-music', 'seasonal'], 'Free'],
  ];
  X.forEach(([title, place, day, hour, type, tags, price], i) => {
    out.push(makeEvent(r, {
      map: 'xmas', key: `xmas:${i}`, title, type, start: lisbon(2026, 12, day, hour), end: lisbon(2026, 12, day, hour + 3),
      pois: [xm(place)], tags, price, desc: fill(tr('{t} at the Sintra Christmas Village.', '{t} na Vila Natal de Sintra.'), { t: title }),
    }));
  });
  return out;
}
