/** Icons and the category/tag trees of every demo map. */
import type { CategoryT, IconT } from '../../src/content/bundle/bundle-schema.ts';
import { uuid } from './ids.ts';
import { text } from './i18n.ts';

export type MapKey = 'main' | 'food' | 'sintra' | 'xmas';
export type VerTag = '2025' | '2026' | 'draft';

/** [name, colour, Maki icon the service's own maps draw it with] */
const ICON_DEFS: Array<readonly [string, string, string]> = [
  ['landmark', '#8c2d19', 'landmark'], ['castle', '#6b4226', 'castle'], ['church', '#5b3a8c', 'religious-christian'], ['viewpoint', '#1f7a8c', 'viewpoint'],
  ['museum', '#3949ab', 'museum'], ['gallery', '#7b1fa2', 'art-gallery'], ['restaurant', '#d84315', 'restaurant'], ['cafe', '#795548', 'cafe'],
  ['pastry', '#f9a825', 'bakery'], ['market', '#2e7d32', 'grocery'], ['fado', '#212121', 'music'], ['bar', '#ad1457', 'bar'],
  ['park', '#388e3c', 'park'], ['garden', '#66bb6a', 'garden'], ['shop', '#00838f', 'shop'], ['book', '#5d4037', 'library'],
  ['hotel', '#0d47a1', 'lodging'], ['train', '#455a64', 'rail'], ['tram', '#fbc02d', 'rail-light'], ['ferry', '#0277bd', 'ferry'],
  ['lift', '#6d4c41', 'aerialway'], ['trail', '#558b2f', 'mountain'], ['beach', '#ffb300', 'beach'], ['star', '#ff6f00', 'star'],
  ['info', '#1565c0', 'information'], ['wine', '#880e4f', 'alcohol-shop'],
];

export const iconId = (name: string): string => uuid('icon:' + name);

export const ICONS: IconT[] = ICON_DEFS.map(([name, color, maki]) => ({
  id: iconId(name), name, url: `https://icons.example.org/${name}.svg`, color, maki,
}));

/** [key, map, name, kind, parentKey, icon, version] */
type CatDef = readonly [string, MapKey, string, 'category' | 'tag', string | null, string | null, VerTag?];

const C = 'category' as const;
const T = 'tag' as const;

const CAT_DEFS: CatDef[] = [
  ['sights', 'main', 'Sights & Monuments', C, null, 'landmark'],
  ['monuments', 'main', 'Monuments', C, 'sights', 'castle'],
  ['heritage', 'main', 'Heritage', T, 'monuments', 'star'],
  ['unesco', 'main', 'UNESCO World Heritage', T, 'heritage', 'star'],
  ['manueline', 'main', 'Manueline Architecture', T, 'unesco', 'landmark'],
  ['churches', 'main', 'Churches', C, 'sights', 'church'],
  ['miradouros', 'main', 'Viewpoints (Miradouros)', C, 'sights', 'viewpoint'],
  ['culture', 'main', 'Museums & Culture', C, null, 'museum'],
  ['museums_art', 'main', 'Art Museums', C, 'culture', 'gallery'],
  ['museums_hist', 'main', 'History & Science Museums', C, 'culture', 'museum'],
  ['freesunday', 'main', 'Free on Sundays', T, 'culture', 'info'],
  ['food', 'main', 'Food & Drink', C, null, 'restaurant'],
  ['restaurants', 'main', 'Restaurants', C, 'food', 'restaurant'],
  ['seafood', 'main', 'Seafood', T, 'restaurants', null],
  ['petiscos', 'main', 'Petiscos', T, 'restaurants', null],
  ['cafes', 'main', 'Cafés & Pastelarias', C, 'food', 'cafe'],
  ['nata', 'main', 'Pastel de Nata', T, 'cafes', 'pastry'],
  ['markets', 'main', 'Markets', C, 'food', 'market'],
  ['nightlife', 'main', 'Nightlife & Fado', C, null, 'bar'],
  ['fado', 'main', 'Fado Houses', C, 'nightlife', 'fado'],
  ['bars', 'main', 'Bars & Clubs', C, 'nightlife', 'bar'],
  ['livemusic', 'main', 'Live Music', T, 'nightlife', null],
  ['nature', 'main', 'Parks & Gardens', C, null, 'park'],
  ['parks', 'main', 'Parks', C, 'nature', 'park'],
  ['gardens', 'main', 'Gardens', C, 'nature', 'garden'],
  ['shopping', 'main', 'Shopping', C, null, 'shop'],
  ['shops', 'main', 'Shops & Boutiques', C, 'shopping', 'shop'],
  ['malls', 'main', 'Shopping Centres', C, 'shopping', 'shop'],
  ['crafts', 'main', 'Portuguese Crafts', T, 'shopping', null],
  ['stay', 'main', 'Where to Stay', C, null, 'hotel'],
  ['hotels', 'main', 'Hotels', C, 'stay', 'hotel'],
  ['luxury', 'main', 'Luxury', T, 'hotels', 'star'],
  ['transport', 'main', 'Getting Around', C, null, 'train'],
  ['stations', 'main', 'Stations & Terminals', C, 'transport', 'train'],
  ['tram28', 'main', 'Tram 28', C, 'transport', 'tram'],
  ['elevadores', 'main', 'Funiculars & Lifts', C, 'transport', 'lift'],
  ['walks', 'main', 'Walks & Areas', C, null, 'trail'],
  ['routes', 'main', 'Walking Routes', C, 'walks', 'trail'],
  ['districts', 'main', 'Neighbourhoods', C, 'walks', 'info'],
  ['new2026', 'main', 'New in 2026', C, null, 'star', '2026'],
  ['draftRooftops', 'main', '(draft) Rooftop Bars', C, null, 'bar', 'draft'],
  ['f_pastry', 'food', 'Pastelarias', C, null, 'pastry'],
  ['f_rest', 'food', 'Restaurants & Tascas', C, null, 'restaurant'],
  ['f_seafood', 'food', 'Seafood', T, 'f_rest', null],
  ['f_market', 'food', 'Markets', C, null, 'market'],
  ['palaces', 'sintra', 'Palaces & Monuments', C, null, 'castle'],
  ['viewpoints', 'sintra', 'Viewpoints', T, 'palaces', 'viewpoint'],
  ['gardens_s', 'sintra', 'Gardens', C, null, 'garden'],
  ['coast', 'sintra', 'Coast & Beaches', C, null, 'beach'],
  ['trails', 'sintra', 'Trails', C, null, 'trail'],
  ['food_s', 'sintra', 'Local Food', C, null, 'pastry'],
  ['xmas', 'xmas', 'Christmas Village', C, null, 'star'],
];

/** The Portuguese and Spanish names of each category (Spanish on the main map only; the English is in CAT_DEFS). */
const CAT_TR: Record<string, { pt: string; es?: string }> = {
  sights: { pt: 'Monumentos e Pontos de Interesse', es: 'Monumentos y lugares de interés' },
  monuments: { pt: 'Monumentos', es: 'Monumentos' },
  heritage: { pt: 'Património', es: 'Patrimonio' },
  unesco: { pt: 'Património Mundial da UNESCO', es: 'Patrimonio Mundial de la UNESCO' },
  manueline: { pt: 'Arquitetura Manuelina', es: 'Arquitectura manuelina' },
  churches: { pt: 'Igrejas', es: 'Iglesias' },
  miradouros: { pt: 'Miradouros', es: 'Miradores' },
  culture: { pt: 'Museus e Cultura', es: 'Museos y cultura' },
  museums_art: { pt: 'Museus de Arte', es: 'Museos de arte' },
  museums_hist: { pt: 'Museus de História e Ciência', es: 'Museos de historia y ciencia' },
  freesunday: { pt: 'Grátis ao Domingo', es: 'Gratis los domingos' },
  food: { pt: 'Comer e Beber', es: 'Comer y beber' },
  restaurants: { pt: 'Restaurantes', es: 'Restaurantes' },
  seafood: { pt: 'Marisco', es: 'Marisco' },
  petiscos: { pt: 'Petiscos', es: 'Petiscos (tapas portuguesas)' },
  cafes: { pt: 'Cafés e Pastelarias', es: 'Cafés y pastelerías' },
  nata: { pt: 'Pastel de Nata', es: 'Pastel de nata' },
  markets: { pt: 'Mercados', es: 'Mercados' },
  nightlife: { pt: 'Vida Noturna e Fado', es: 'Vida nocturna y fado' },
  fado: { pt: 'Casas de Fado', es: 'Casas de fado' },
  bars: { pt: 'Bares e Discotecas', es: 'Bares y discotecas' },
  livemusic: { pt: 'Música ao Vivo', es: 'Música en directo' },
  nature: { pt: 'Parques e Jardins', es: 'Parques y jardines' },
  parks: { pt: 'Parques', es: 'Parques' },
  gardens: { pt: 'Jardins', es: 'Jardines' },
  shopping: { pt: 'Compras', es: 'Compras' },
  shops: { pt: 'Lojas e Boutiques', es: 'Tiendas y boutiques' },
  malls: { pt: 'Centros Comerciais', es: 'Centros comerciales' },
  crafts: { pt: 'Artesanato Português', es: 'Artesanía portuguesa' },
  stay: { pt: 'Onde Ficar', es: 'Dónde alojarse' },
  hotels: { pt: 'Hotéis', es: 'Hoteles' },
  luxury: { pt: 'Luxo', es: 'Lujo' },
  transport: { pt: 'Como se Deslocar', es: 'Cómo moverse' },
  stations: { pt: 'Estações e Terminais', es: 'Estaciones y terminales' },
  tram28: { pt: 'Elétrico 28', es: 'Tranvía 28' },
  elevadores: { pt: 'Elevadores e Ascensores', es: 'Funiculares y elevadores' },
  walks: { pt: 'Passeios e Bairros', es: 'Paseos y barrios' },
  routes: { pt: 'Percursos a Pé', es: 'Rutas a pie' },
  districts: { pt: 'Bairros', es: 'Barrios' },
  new2026: { pt: 'Novidades de 2026', es: 'Novedades de 2026' },
  draftRooftops: { pt: '(rascunho) Bares de Terraço', es: '(borrador) Bares en azoteas' },
  f_pastry: { pt: 'Pastelarias' },
  f_rest: { pt: 'Restaurantes e Tascas' },
  f_seafood: { pt: 'Marisco' },
  f_market: { pt: 'Mercados' },
  palaces: { pt: 'Palácios e Monumentos' },
  viewpoints: { pt: 'Miradouros' },
  gardens_s: { pt: 'Jardins' },
  coast: { pt: 'Costa e Praias' },
  trails: { pt: 'Trilhos' },
  food_s: { pt: 'Doçaria Local' },
  xmas: { pt: 'Vila Natal' },
};

export const catId = (key: string): string => uuid('category:' + key);

/** Builds the categories; versions maps a VerTag to the main map's version ids. */
export function buildCategories(mapIds: Record<MapKey, string>, versions: Record<VerTag, string>): CategoryT[] {
  const siblings = new Map<string, number>();
  return CAT_DEFS.map(([key, map, name, kind, parent, icon, ver]) => {
    const sib = `${map}/${parent ?? ''}`;
    const n = (siblings.get(sib) ?? 0) + 1;
    siblings.set(sib, n);
    const c: CategoryT = {
      id: catId(key), map_id: mapIds[map], parent_id: parent ? catId(parent) : null, kind, name: text(map, { en: name, ...CAT_TR[key] }),
      icon_id: icon ? iconId(icon) : null, sort_order: n * 10,
    };
    if (ver) c.version_ids = [versions[ver]];
    return c;
  });
}

/** Parent key of every category key (for descendant checks). */
export const PARENT: Record<string, string | null> = Object.fromEntries(CAT_DEFS.map((d) => [d[0], d[4]]));
export const CAT_NAME: Record<string, string> = Object.fromEntries(CAT_DEFS.map((d) => [d[0], d[2]]));
