/** Markers, paths and polygons of every demo map, plus a flat index used by events, lists and associations. */
import type { CategoryT, MarkerT, PathT, PolygonT } from '../../src/content/bundle/bundle-schema.ts';
import { MAP, MAP_SLUG, VER, slugify } from './ctx.ts';
import { type Rng, int, iso, uuid } from './ids.ts';
import { AREAS, fixRing } from './areas.ts';
import { SIGHTS, MUSEUMS, type Place } from './places-sights.ts';
import { FOOD, MARKETS, NIGHTLIFE } from './places-food.ts';
import { PARKS, SHOPS, HOTELS, TRANSPORT, ONLY_2026, ONLY_2025, ONLY_DRAFT } from './places-other.ts';
import { SINTRA, XMAS, FOOD_MAP } from './places-sintra.ts';
import { ROUTES, type Pos } from './routes.ts';
import { catId, type MapKey, type VerTag } from './taxonomy.ts';
import { fill, nameText, same, text, type Tr } from './i18n.ts';

export interface PoiInfo {
  /** `name`: the English name, which ids are made from; `label`: the name in every language. */
  id: string; map: MapKey; kind: 'marker' | 'path' | 'polygon'; name: string; label: Tr;
  lat: number; lng: number; cats: string[]; ver?: VerTag;
}

const HOODS: Array<readonly [string, number, number, string]> = [
  ['Alfama', 38.7115, -9.1300, '1100'], ['Baixa', 38.7110, -9.1375, '1100'], ['Chiado', 38.7105, -9.1420, '1200'],
  ['Bairro Alto', 38.7125, -9.1450, '1200'], ['Belém', 38.6960, -9.2050, '1400'], ['Príncipe Real', 38.7165, -9.1490, '1250'],
  ['Avenidas Novas', 38.7370, -9.1480, '1050'], ['Parque das Nações', 38.7650, -9.0950, '1990'],
  ['Estrela', 38.7130, -9.1600, '1200'], ['Alcântara', 38.7040, -9.1780, '1300'], ['Graça', 38.7175, -9.1315, '1170'],
  ['Mouraria', 38.7160, -9.1355, '1100'], ['Campo de Ourique', 38.7180, -9.1650, '1350'],
  ['Cais do Sodré', 38.7065, -9.1450, '1200'], ['Arroios', 38.7300, -9.1350, '1000'], ['Alvalade', 38.7520, -9.1450, '1700'],
  ['Benfica', 38.7480, -9.1950, '1500'], ['Ajuda', 38.7070, -9.1970, '1300'], ['Lapa', 38.7080, -9.1590, '1200'],
  ['Avenida da Liberdade', 38.7200, -9.1450, '1250'], ['Santa Apolónia', 38.7140, -9.1230, '1100'],
  ['Almada', 38.6800, -9.1600, '2800'], ['Sintra', 38.7975, -9.3900, '2710'], ['Cascais', 38.6950, -9.4220, '2750'],
  ['Colares', 38.8000, -9.4500, '2705'], ['Guincho', 38.7300, -9.4700, '2750'],
];

export function hood(lat: number, lng: number): readonly [string, number, number, string] {
  let best = HOODS[0];
  let bd = Infinity;
  for (const h of HOODS) {
    const d = (h[1] - lat) ** 2 + ((h[2] - lng) * 0.78) ** 2;
    if (d < bd) { bd = d; best = h; }
  }
  return best;
}

/** What a place is, by its first category: the start of its description. */
const PHRASE: Record<string, Tr> = {
  monuments: { en: 'Landmark monument', pt: 'Monumento emblemático', es: 'Monumento emblemático' },
  churches: { en: 'Historic church', pt: 'Igreja histórica', es: 'Iglesia histórica' },
  miradouros: { en: 'Viewpoint over the rooftops', pt: 'Miradouro sobre os telhados', es: 'Mirador sobre los tejados' },
  museums_art: { en: 'Art museum', pt: 'Museu de arte', es: 'Museo de arte' },
  museums_hist: { en: 'Museum', pt: 'Museu', es: 'Museo' },
  restaurants: { en: 'Restaurant', pt: 'Restaurante', es: 'Restaurante' },
  cafes: { en: 'Café and pastelaria', pt: 'Café e pastelaria', es: 'Café y pastelería' },
  markets: { en: 'Market', pt: 'Mercado', es: 'Mercado' },
  fado: { en: 'Fado house with live singers', pt: 'Casa de fado com fadistas ao vivo', es: 'Casa de fado con cantantes en directo' },
  bars: { en: 'Bar', pt: 'Bar', es: 'Bar' },
  parks: { en: 'Park', pt: 'Parque', es: 'Parque' },
  gardens: { en: 'Garden', pt: 'Jardim', es: 'Jardín' },
  shops: { en: 'Independent shop', pt: 'Loja independente', es: 'Tienda independiente' },
  malls: { en: 'Shopping centre', pt: 'Centro comercial', es: 'Centro comercial' },
  hotels: { en: 'Hotel', pt: 'Hotel', es: 'Hotel' },
  stations: { en: 'Transport hub', pt: 'Nó de transportes', es: 'Nudo de transportes' },
  tram28: { en: 'Stop on the historic Tram 28 line', pt: 'Paragem da histórica linha do elétrico 28', es: 'Parada de la histórica línea del tranvía 28' },
  elevadores: { en: 'Historic funicular', pt: 'Elevador histórico', es: 'Funicular histórico' },
  new2026: { en: 'New venue', pt: 'Novo espaço', es: 'Nuevo local' },
  draftRooftops: { en: 'Rooftop bar (under review)', pt: 'Bar de terraço (em revisão)', es: 'Bar en azotea (en revisión)' },
  palaces: { en: 'Palace or monument', pt: 'Palácio ou monumento' },
  viewpoints: { en: 'Viewpoint', pt: 'Miradouro' },
  gardens_s: { en: 'Historic garden', pt: 'Jardim histórico' },
  coast: { en: 'Atlantic coast spot', pt: 'Recanto da costa atlântica' },
  food_s: { en: 'Traditional pastry shop', pt: 'Pastelaria tradicional' },
  xmas: { en: 'Christmas village venue', pt: 'Espaço da vila de Natal' },
  f_pastry: { en: 'Pastelaria', pt: 'Pastelaria' },
  f_rest: { en: 'Restaurant', pt: 'Restaurante' },
  f_market: { en: 'Food market', pt: 'Mercado de frescos' },
};
const PLACE: Tr = { en: 'Place', pt: 'Local', es: 'Lugar' };

/** How Portuguese says "in" a neighbourhood: with its article (na Baixa, no Chiado), or none (em Alfama). */
const IN_HOOD: Record<string, string> = {
  Baixa: 'na', Chiado: 'no', 'Bairro Alto': 'no', 'Príncipe Real': 'no', 'Avenidas Novas': 'nas', 'Parque das Nações': 'no',
  Estrela: 'na', Graça: 'na', Mouraria: 'na', 'Cais do Sodré': 'no', Ajuda: 'na', Lapa: 'na', 'Avenida da Liberdade': 'na', Guincho: 'no',
};
/** "Landmark monument in Belém." in every language. */
const describePlace = (phrase: Tr, hoodName: string): Tr => ({
  en: `${phrase.en} in ${hoodName}.`, pt: `${phrase.pt} ${IN_HOOD[hoodName] ?? 'em'} ${hoodName}.`, es: phrase.es && `${phrase.es} en ${hoodName}.`,
});

/** People's words for "closed on public holidays", added to the text of places whose hours say `PH off`. */
const HOLIDAYS_OFF: Tr = { en: ', closed on public holidays', pt: ', encerra nos feriados', es: ', cerrado los festivos' };
const holidaysOff = (t: Tr): Tr => Object.fromEntries(Object.entries(t).map(([lang, words]) => [lang, words + HOLIDAYS_OFF[lang as keyof Tr]])) as Tr;

/** Opening hours by first category: the text people read, and the same in OpenStreetMap's syntax (`hours`). */
const HOURS: Record<string, [Tr, string]> = {
  monuments: [holidaysOff({ en: 'Daily 10:00–18:00', pt: 'Todos os dias, 10:00–18:00', es: 'Todos los días, 10:00–18:00' }), 'Mo-Su 10:00-18:00; PH off'],
  churches: [{ en: 'Daily 09:30–19:00', pt: 'Todos os dias, 09:30–19:00', es: 'Todos los días, 09:30–19:00' }, 'Mo-Su 09:30-19:00'],
  miradouros: [{ en: 'Open 24 hours', pt: 'Aberto 24 horas', es: 'Abierto 24 horas' }, '24/7'],
  museums_art: [holidaysOff({ en: 'Tue–Sun 10:00–18:00', pt: 'Ter–Dom 10:00–18:00', es: 'Mar–Dom 10:00–18:00' }), 'Tu-Su 10:00-18:00; PH off'],
  museums_hist: [holidaysOff({ en: 'Tue–Sun 10:00–17:30', pt: 'Ter–Dom 10:00–17:30', es: 'Mar–Dom 10:00–17:30' }), 'Tu-Su 10:00-17:30; PH off'],
  restaurants: [{ en: 'Mon–Sat 12:00–15:00, 19:00–23:00', pt: 'Seg–Sáb 12:00–15:00, 19:00–23:00', es: 'Lun–Sáb 12:00–15:00, 19:00–23:00' },
    'Mo-Sa 12:00-15:00,19:00-23:00'],
  cafes: [{ en: 'Daily 08:00–20:00', pt: 'Todos os dias, 08:00–20:00', es: 'Todos los días, 08:00–20:00' }, 'Mo-Su 08:00-20:00'],
  markets: [holidaysOff({ en: 'Mon–Sat 07:00–14:00', pt: 'Seg–Sáb 07:00–14:00', es: 'Lun–Sáb 07:00–14:00' }), 'Mo-Sa 07:00-14:00; PH off'],
  fado: [{ en: 'Daily 19:30–02:00', pt: 'Todos os dias, 19:30–02:00', es: 'Todos los días, 19:30–02:00' }, 'Mo-Su 19:30-02:00'],
  bars: [{ en: 'Daily 18:00–02:00', pt: 'Todos os dias, 18:00–02:00', es: 'Todos los días, 18:00–02:00' }, 'Mo-Su 18:00-02:00'],
  parks: [{ en: 'Daily 07:00–21:00', pt: 'Todos os dias, 07:00–21:00', es: 'Todos los días, 07:00–21:00' }, 'Mo-Su 07:00-21:00'],
  gardens: [{ en: 'Daily 10:00–19:00', pt: 'Todos os dias, 10:00–19:00', es: 'Todos los días, 10:00–19:00' }, 'Mo-Su 10:00-19:00'],
  shops: [holidaysOff({ en: 'Mon–Sat 10:00–19:30', pt: 'Seg–Sáb 10:00–19:30', es: 'Lun–Sáb 10:00–19:30' }), 'Mo-Sa 10:00-19:30; PH off'],
  malls: [{ en: 'Daily 09:00–23:00', pt: 'Todos os dias, 09:00–23:00', es: 'Todos los días, 09:00–23:00' }, 'Mo-Su 09:00-23:00'],
  hotels: [{ en: 'Reception 24 hours', pt: 'Receção 24 horas', es: 'Recepción 24 horas' }, '24/7'],
  stations: [{ en: 'Daily 05:30–01:00', pt: 'Todos os dias, 05:30–01:00', es: 'Todos los días, 05:30–01:00' }, 'Mo-Su 05:30-01:00'],
  tram28: [{ en: 'Trams every 10–15 min, 07:00–22:00', pt: 'Elétricos a cada 10–15 min, 07:00–22:00', es: 'Tranvías cada 10–15 min, 07:00–22:00' },
    'Mo-Su 07:00-22:00'],
  elevadores: [{ en: 'Daily 07:00–21:00', pt: 'Todos os dias, 07:00–21:00', es: 'Todos los días, 07:00–21:00' }, 'Mo-Su 07:00-21:00'],
  palaces: [{ en: 'Daily 09:30–18:30', pt: 'Todos os dias, 09:30–18:30' }, 'Mo-Su 09:30-18:30'],
  coast: [{ en: 'Open 24 hours', pt: 'Aberto 24 horas' }, '24/7'],
  xmas: [{ en: 'Daily 11:00–21:00', pt: 'Todos os dias, 11:00–21:00' }, 'Mo-Su 11:00-21:00'],
  f_pastry: [{ en: 'Daily 08:00–20:00', pt: 'Todos os dias, 08:00–20:00' }, 'Mo-Su 08:00-20:00'],
  f_rest: [{ en: 'Mon–Sat 12:00–23:00', pt: 'Seg–Sáb 12:00–23:00' }, 'Mo-Sa 12:00-23:00'],
  f_market: [holidaysOff({ en: 'Mon–Sat 07:00–14:00', pt: 'Seg–Sáb 07:00–14:00' }), 'Mo-Sa 07:00-14:00; PH off'],
};
const DEFAULT_HOURS: [Tr, string] = [{ en: 'Daily 10:00–19:00', pt: 'Todos os dias, 10:00–19:00', es: 'Todos los días, 10:00–19:00' }, 'Mo-Su 10:00-19:00'];
/** The hours of a park area (a polygon has hours too). */
const PARK_HOURS = 'Mo-Su 07:00-21:00';

/** Names that are not proper names, in every language; any other name is the same in all of them. */
const NAMES: Record<string, Tr> = {
  'Christmas Market – Largo Rainha D. Amélia': { en: 'Christmas Market – Largo Rainha D. Amélia', pt: 'Mercado de Natal – Largo Rainha D. Amélia' },
  "Santa's House – Volta do Duche": { en: "Santa's House – Volta do Duche", pt: 'Casa do Pai Natal – Volta do Duche' },
  'Ice Rink – Parque da Liberdade': { en: 'Ice Rink – Parque da Liberdade', pt: 'Pista de Gelo – Parque da Liberdade' },
  'Nativity Scene – Igreja de São Martinho': { en: 'Nativity Scene – Igreja de São Martinho', pt: 'Presépio – Igreja de São Martinho' },
  'Tram 28 Route': { en: 'Tram 28 Route', pt: 'Percurso do Elétrico 28', es: 'Recorrido del tranvía 28' },
  'Alfama Walk': { en: 'Alfama Walk', pt: 'Passeio por Alfama', es: 'Paseo por Alfama' },
  'Belém Riverside Walk': { en: 'Belém Riverside Walk', pt: 'Passeio Ribeirinho de Belém', es: 'Paseo junto al río en Belém' },
  'Monsanto Forest Trail': { en: 'Monsanto Forest Trail', pt: 'Trilho da Floresta de Monsanto', es: 'Sendero del bosque de Monsanto' },
  'Avenida da Liberdade Stroll': { en: 'Avenida da Liberdade Stroll', pt: 'Passeio pela Avenida da Liberdade', es: 'Paseo por la Avenida da Liberdade' },
  'Bairro Alto Bar Crawl': { en: 'Bairro Alto Bar Crawl', pt: 'Roteiro de Bares do Bairro Alto', es: 'Ruta de bares por el Bairro Alto' },
  'Parque das Nações Riverside': { en: 'Parque das Nações Riverside', pt: 'Zona Ribeirinha do Parque das Nações', es: 'Ribera del Parque das Nações' },
  'Aqueduct Walk': { en: 'Aqueduct Walk', pt: 'Passeio do Aqueduto', es: 'Paseo del acueducto' },
  'Chiado–Baixa Walk': { en: 'Chiado–Baixa Walk', pt: 'Passeio Chiado–Baixa', es: 'Paseo Chiado–Baixa' },
  'Graça Miradouros Walk': { en: 'Graça Miradouros Walk', pt: 'Passeio pelos Miradouros da Graça', es: 'Paseo por los miradores de Graça' },
  'Ribeira das Naus Promenade': { en: 'Ribeira das Naus Promenade', pt: 'Passeio da Ribeira das Naus', es: 'Paseo de la Ribeira das Naus' },
  'Pena to Castelo dos Mouros Trail': { en: 'Pena to Castelo dos Mouros Trail', pt: 'Trilho da Pena ao Castelo dos Mouros' },
  'Sintra to Cabo da Roca Trail': { en: 'Sintra to Cabo da Roca Trail', pt: 'Trilho de Sintra ao Cabo da Roca' },
  'Cascais Coastal Walk': { en: 'Cascais Coastal Walk', pt: 'Passeio Costeiro de Cascais' },
  'Feira Popular Grounds': { en: 'Feira Popular Grounds', pt: 'Recinto da Feira Popular', es: 'Recinto de la Feira Popular' },
  'Sintra Historic Centre': { en: 'Sintra Historic Centre', pt: 'Centro Histórico de Sintra' },
};
/** A place's name in every language: a tram stop says so in each, a name of NAMES is translated, others are proper names. */
function labelOf(name: string): Tr {
  const stop = /^Tram 28 stop – (.+)$/.exec(name);
  if (stop) return { en: name, pt: `Paragem do elétrico 28 – ${stop[1]}`, es: `Parada del tranvía 28 – ${stop[1]}` };
  return NAMES[name] ?? same(name);
}

const DIFFICULTY: Record<string, Tr> = {
  easy: { en: 'easy', pt: 'fácil', es: 'fácil' }, moderate: { en: 'moderate', pt: 'moderado', es: 'moderada' },
  hard: { en: 'hard', pt: 'difícil', es: 'difícil' },
};

const dateBetween = (r: Rng, from: string, to: string): string => {
  const a = Date.parse(from);
  const b = Date.parse(to);
  return iso(Math.floor((a + r() * (b - a)) / 60000) * 60000);
};

const CREATED: Record<VerTag | 'all', [string, string]> = {
  all: ['2024-01-15T09:00:00Z', '2025-02-15T18:00:00Z'], '2025': ['2024-03-01T09:00:00Z', '2025-01-31T18:00:00Z'],
  '2026': ['2025-09-01T09:00:00Z', '2026-02-15T18:00:00Z'], draft: ['2026-09-01T09:00:00Z', '2026-10-15T18:00:00Z'],
};

export function buildPois(r: Rng, categories: CategoryT[]) {
  const iconOfCat = new Map(categories.map((c) => [c.id, c.icon_id ?? null]));
  const markers: MarkerT[] = [];
  const paths: PathT[] = [];
  const polygons: PolygonT[] = [];
  const index: PoiInfo[] = [];
  let crm = 100;
  let mainCount = 0;

  const addMarker = (p: Place, map: MapKey, idName: string, ver?: VerTag) => {
    const [name, lat, lng, catStr] = p;
    const cats = catStr.split('|');
    const [hName, , , postal] = hood(lat, lng);
    const slug = slugify(name);
    const label = labelOf(name);
    const m: MarkerT = {
      id: uuid(idName), map_id: MAP[map], name: nameText(map, label),
      description: text(map, describePlace(PHRASE[cats[0]] ?? PLACE, hName)),
      category_ids: cats.map(catId),
      image_url: `https://images.example.org/${MAP_SLUG[map]}/${slug}.jpg`,
      website: `https://${slug}.example.org/`,
      created_at: dateBetween(r, ...CREATED[ver ?? 'all']),
      lat, lng,
      address: `${hName}, ${postal}-${String(int(r, 1, 999)).padStart(3, '0')} ${postal.startsWith('27') ? hName : postal === '2800' ? 'Almada' : 'Lisboa'}, Portugal`,
      phone: `+351 21 ${int(r, 300, 899)} ${int(r, 1000, 9999)}`,
      opening_hours: text(map, (HOURS[cats[0]] ?? DEFAULT_HOURS)[0]),
      hours: (HOURS[cats[0]] ?? DEFAULT_HOURS)[1],
    };
    const icon = iconOfCat.get(catId(cats[0]));
    if (icon) m.icon_id = icon;
    if (ver) m.version_ids = [VER[ver]];
    if (map === 'main') {
      if (mainCount % 4 === 1) m.external_id = `crm-${String(crm++).padStart(6, '0')}`;
      mainCount++;
    }
    markers.push(m);
    index.push({ id: m.id, map, kind: 'marker', name, label, lat, lng, cats, ver });
  };

  for (const list of [SIGHTS, MUSEUMS, FOOD, MARKETS, NIGHTLIFE, PARKS, SHOPS, HOTELS, TRANSPORT]) {
    for (const p of list) addMarker(p, 'main', 'marker:' + p[0]);
  }
  for (const p of ONLY_2026) addMarker(p, 'main', 'marker:' + p[0], '2026');
  for (const p of ONLY_2025) addMarker(p, 'main', 'marker:' + p[0], '2025');
  for (const p of ONLY_DRAFT) addMarker(p, 'main', 'marker:' + p[0], 'draft');

  const byName = new Map([...FOOD, ...MARKETS].map((p) => [p[0], p]));
  FOOD_MAP.forEach(([name, cats], i) => {
    const src = byName.get(name);
    if (!src) throw new Error(`food map place ${name} not found`);
    // Slightly different pin (entrance rather than building centre).
    const d = ((i % 3) - 1) * 0.0002;
    addMarker([name, +(src[1] + d).toFixed(4), +(src[2] - d).toFixed(4), cats], 'food', 'marker:food:' + name);
  });
  for (const p of SINTRA) addMarker(p, 'sintra', 'marker:' + p[0]);
  for (const p of XMAS) addMarker(p, 'xmas', 'marker:xmas:' + p[0]);

  for (const [name, map, difficulty, duration, catStr, coords, ver] of ROUTES) {
    const cats = catStr.split('|');
    const slug = slugify(name);
    const label = labelOf(name);
    const p: PathT = {
      id: uuid('path:' + name), map_id: MAP[map], name: nameText(map, label),
      description: text(map, fill({ en: `A {d} ${duration}-minute route: {name}.`, pt: `Percurso {d} de ${duration} minutos: {name}.`,
        es: `Ruta {d} de ${duration} minutos: {name}.` }, { d: DIFFICULTY[difficulty], name: label })),
      category_ids: cats.map(catId),
      image_url: `https://images.example.org/${MAP_SLUG[map]}/${slug}.jpg`,
      website: `https://${MAP_SLUG[map]}.example.org/routes/${slug}`,
      created_at: dateBetween(r, ...CREATED[ver ?? 'all']),
      geometry: { type: 'LineString', coordinates: coords.map((c): Pos => [c[0], c[1]]) },
      difficulty, duration_min: duration,
    };
    const icon = iconOfCat.get(catId(cats[0]));
    if (icon) p.icon_id = icon;
    if (ver) p.version_ids = [VER[ver]];
    paths.push(p);
    const mid = coords[Math.floor(coords.length / 2)];
    index.push({ id: p.id, map, kind: 'path', name, label, lat: mid[1], lng: mid[0], cats, ver });
  }

  for (const [name, map, catStr, outer, holes, ver] of AREAS) {
    const cats = catStr.split('|');
    const slug = slugify(name);
    const ring = fixRing(outer, true);
    const label = labelOf(name);
    const p: PolygonT = {
      id: uuid('polygon:' + name), map_id: MAP[map], name: nameText(map, label),
      description: text(map, fill({ en: '{name}, one of the areas to explore on this map.', pt: '{name}, uma das zonas a explorar neste mapa.',
        es: '{name}, una de las zonas que descubrir en este mapa.' }, { name: label })),
      category_ids: cats.map(catId),
      image_url: `https://images.example.org/${MAP_SLUG[map]}/${slug}.jpg`,
      website: `https://${MAP_SLUG[map]}.example.org/areas/${slug}`,
      created_at: dateBetween(r, ...CREATED[ver ?? 'all']),
      geometry: { type: 'Polygon', coordinates: [ring, ...holes.map((h) => fixRing(h, false))] },
    };
    if (cats[0] === 'parks') p.hours = PARK_HOURS;
    const icon = iconOfCat.get(catId(cats[0]));
    if (icon) p.icon_id = icon;
    if (ver) p.version_ids = [VER[ver]];
    polygons.push(p);
    const n = ring.length - 1;
    const lat = ring.slice(0, n).reduce((s, q) => s + q[1], 0) / n;
    const lng = ring.slice(0, n).reduce((s, q) => s + q[0], 0) / n;
    index.push({ id: p.id, map, kind: 'polygon', name, label, lat, lng, cats, ver });
  }
  return { markers, paths, polygons, index };
}
