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

export interface PoiInfo {
  id: string; map: MapKey; kind: 'marker' | 'path' | 'polygon'; name: string;
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

const PHRASE: Record<string, string> = {
  monuments: 'Landmark monument', churches: 'Historic church', miradouros: 'Viewpoint over the rooftops',
  museums_art: 'Art museum', museums_hist: 'Museum', restaurants: 'Restaurant', cafes: 'Café and pastelaria',
  markets: 'Market', fado: 'Fado house with live singers', bars: 'Bar', parks: 'Park', gardens: 'Garden',
  shops: 'Independent shop', malls: 'Shopping centre', hotels: 'Hotel', stations: 'Transport hub',
  tram28: 'Stop on the historic Tram 28 line', elevadores: 'Historic funicular', new2026: 'New venue',
  draftRooftops: 'Rooftop bar (under review)', palaces: 'Palace or monument', viewpoints: 'Viewpoint',
  gardens_s: 'Historic garden', coast: 'Atlantic coast spot', food_s: 'Traditional pastry shop', xmas: 'Christmas village venue',
  f_pastry: 'Pastelaria', f_rest: 'Restaurant', f_market: 'Food market',
};

const HOURS: Record<string, string> = {
  monuments: 'Daily 10:00–18:00', churches: 'Daily 09:30–19:00', miradouros: 'Open 24 hours',
  museums_art: 'Tue–Sun 10:00–18:00', museums_hist: 'Tue–Sun 10:00–17:30', restaurants: 'Mon–Sat 12:00–15:00, 19:00–23:00',
  cafes: 'Daily 08:00–20:00', markets: 'Mon–Sat 07:00–14:00', fado: 'Daily 19:30–02:00', bars: 'Daily 18:00–02:00',
  parks: 'Daily 07:00–21:00', gardens: 'Daily 10:00–19:00', shops: 'Mon–Sat 10:00–19:30', malls: 'Daily 09:00–23:00',
  hotels: 'Reception 24 hours', stations: 'Daily 05:30–01:00', tram28: 'Trams every 10–15 min, 07:00–22:00',
  elevadores: 'Daily 07:00–21:00', palaces: 'Daily 09:30–18:30', coast: 'Open 24 hours', xmas: 'Daily 11:00–21:00',
  f_pastry: 'Daily 08:00–20:00', f_rest: 'Mon–Sat 12:00–23:00', f_market: 'Mon–Sat 07:00–14:00',
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
    const m: MarkerT = {
      id: uuid(idName), map_id: MAP[map], name,
      description: `${PHRASE[cats[0]] ?? 'Place'} in ${hName}.`,
      category_ids: cats.map(catId),
      image_url: `https://images.example.org/${MAP_SLUG[map]}/${slug}.jpg`,
      website: `https://${slug}.example.org/`,
      created_at: dateBetween(r, ...CREATED[ver ?? 'all']),
      lat, lng,
      address: `${hName}, ${postal}-${String(int(r, 1, 999)).padStart(3, '0')} ${postal.startsWith('27') ? hName : postal === '2800' ? 'Almada' : 'Lisboa'}, Portugal`,
      phone: `+351 21 ${int(r, 300, 899)} ${int(r, 1000, 9999)}`,
      opening_hours: HOURS[cats[0]] ?? 'Daily 10:00–19:00',
    };
    const icon = iconOfCat.get(catId(cats[0]));
    if (icon) m.icon_id = icon;
    if (ver) m.version_ids = [VER[ver]];
    if (map === 'main') {
      if (mainCount % 4 === 1) m.external_id = `crm-${String(crm++).padStart(6, '0')}`;
      mainCount++;
    }
    markers.push(m);
    index.push({ id: m.id, map, kind: 'marker', name, lat, lng, cats, ver });
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
    const p: PathT = {
      id: uuid('path:' + name), map_id: MAP[map], name,
      description: `A ${difficulty} ${duration}-minute route: ${name}.`,
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
    index.push({ id: p.id, map, kind: 'path', name, lat: mid[1], lng: mid[0], cats, ver });
  }

  for (const [name, map, catStr, outer, holes, ver] of AREAS) {
    const cats = catStr.split('|');
    const slug = slugify(name);
    const ring = fixRing(outer, true);
    const p: PolygonT = {
      id: uuid('polygon:' + name), map_id: MAP[map], name,
      description: `${name}, one of the areas to explore on this map.`,
      category_ids: cats.map(catId),
      image_url: `https://images.example.org/${MAP_SLUG[map]}/${slug}.jpg`,
      website: `https://${MAP_SLUG[map]}.example.org/areas/${slug}`,
      created_at: dateBetween(r, ...CREATED[ver ?? 'all']),
      geometry: { type: 'Polygon', coordinates: [ring, ...holes.map((h) => fixRing(h, false))] },
    };
    const icon = iconOfCat.get(catId(cats[0]));
    if (icon) p.icon_id = icon;
    if (ver) p.version_ids = [VER[ver]];
    polygons.push(p);
    const n = ring.length - 1;
    const lat = ring.slice(0, n).reduce((s, q) => s + q[1], 0) / n;
    const lng = ring.slice(0, n).reduce((s, q) => s + q[0], 0) / n;
    index.push({ id: p.id, map, kind: 'polygon', name, lat, lng, cats, ver });
  }
  return { markers, paths, polygons, index };
}
