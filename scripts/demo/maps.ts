/** Publishers and maps (presentation data, versions, content blocks, sponsors). */
import type { MapT, PublisherT } from '../../src/content/bundle/bundle-schema.ts';
import { MAP, OTHER_VER, PUB, VER } from './ctx.ts';
import { uuid } from './ids.ts';
import { ALL_LANGUAGES, LANGUAGES, text, type Tr } from './i18n.ts';
import type { MapKey } from './taxonomy.ts';

export const PUBLISHERS: PublisherT[] = [
  {
    id: PUB.a, name: 'Visit Lisboa', slug: 'visit-lisboa',
    description: text(ALL_LANGUAGES, { en: 'The tourism board of the city of Lisbon.', pt: 'O turismo oficial da cidade de Lisboa.',
      es: 'La oficina de turismo de la ciudad de Lisboa.' }),
    website: 'https://visitlisboa.example.org/', logo_url: 'https://images.example.org/publishers/visit-lisboa.svg',
    email: 'maps@visitlisboa.example.org', phone: '+351 21 031 2700',
    address: 'Rua do Arsenal 15, 1100-038 Lisboa, Portugal', location: { lat: 38.7078, lng: -9.1388 },
  },
  {
    id: PUB.b, slug: 'sintra-cascais-natural-park',
    name: text(ALL_LANGUAGES, { en: 'Sintra-Cascais Natural Park', pt: 'Parque Natural de Sintra-Cascais', es: 'Parque Natural de Sintra-Cascais' }),
    description: text(ALL_LANGUAGES, { en: 'Protected landscape of the Serra de Sintra and the Cascais coast.',
      pt: 'Paisagem protegida da Serra de Sintra e da costa de Cascais.', es: 'Paisaje protegido de la Serra de Sintra y la costa de Cascais.' }),
    website: 'https://sintra-cascais.example.org/', logo_url: 'https://images.example.org/publishers/sintra-cascais.svg',
    email: 'info@sintra-cascais.example.org', phone: '+351 21 923 7300',
    address: 'Rua Gago Coutinho 1, 2710-566 Sintra, Portugal', location: { lat: 38.7990, lng: -9.3860 },
  },
];

type Block = MapT['content_blocks'][number];
const block = (map: MapKey, n: number, kind: Block['kind'], title: Tr, extra: Omit<Partial<Block>, 'body'> & { body?: Tr } = {}): Block => {
  const { body, ...rest } = extra;
  return { id: uuid(`block:${map}:${n}`), kind, title: text(map, title), sort_order: n * 10, ...rest, ...(body ? { body: text(map, body) } : {}) };
};
/** The languages a map declares: its default (English) first. */
const languagesOf = (map: MapKey) => ({ default_language: LANGUAGES[map][0], languages: [...LANGUAGES[map]] });

const main: MapT = {
  id: MAP.main, publisher_id: PUB.a, slug: 'lisbon-city-guide', enabled: true, time_zone: 'Europe/Lisbon', country: 'PT', ...languagesOf('main'),
  name: text('main', { en: 'Lisbon City Guide', pt: 'Guia da Cidade de Lisboa', es: 'Guía de la ciudad de Lisboa' }),
  description: text('main', { en: 'Sights, food, fado, parks and events across Lisbon, curated by Visit Lisboa.',
    pt: 'Monumentos, comida, fado, parques e eventos por toda a Lisboa, escolhidos pela Visit Lisboa.',
    es: 'Monumentos, gastronomía, fado, parques y eventos por toda Lisboa, seleccionados por Visit Lisboa.' }),
  created_at: '2024-01-10T09:00:00Z',
  branding: {
    logo_url: 'https://images.example.org/lisbon-city-guide/logo.svg', cover_image_url: 'https://images.example.org/lisbon-city-guide/cover.jpg',
    primary_color: '#c8102e', accent_color: '#f2a900', attribution: 'Map data © OpenStreetMap contributors',
  },
  info: {
    summary: text('main', { en: 'Seven hills, miradouros, pastéis de nata and the sound of fado.',
      pt: 'Sete colinas, miradouros, pastéis de nata e o som do fado.', es: 'Siete colinas, miradores, pastéis de nata y el sonido del fado.' }),
    languages: ['pt', 'en', 'es', 'fr'],
    website: 'https://visitlisboa.example.org/city-guide', opening_season: text('main', { en: 'All year', pt: 'Todo o ano', es: 'Todo el año' }),
  },
  map_data: {
    center: { lat: 38.7139, lng: -9.1394 }, zoom: 13, min_zoom: 10, max_zoom: 19,
    bounds: [-9.2300, 38.6700, -9.0850, 38.7950], basemap_url: 'https://tiles.example.org/styles/lisbon/{z}/{x}/{y}.png',
  },
  contact: {
    email: 'hello@visitlisboa.example.org', phone: '+351 21 031 2810', website: 'https://visitlisboa.example.org/',
    address: 'Praça do Comércio, 1100-148 Lisboa, Portugal',
    social: { instagram: 'https://instagram.example.org/visitlisboa', facebook: 'https://facebook.example.org/visitlisboa' },
  },
  sponsors: [
    { name: 'Carris', url: 'https://carris.example.org/', logo_url: 'https://images.example.org/sponsors/carris.svg', tier: 'gold' },
    { name: 'Turismo de Portugal', url: 'https://turismo.example.org/', logo_url: 'https://images.example.org/sponsors/turismo.svg', tier: 'silver' },
    { name: 'Mercado da Ribeira', url: 'https://mercado.example.org/', tier: 'bronze' },
    { name: 'Lisboa Card', url: 'https://lisboacard.example.org/', logo_url: 'https://images.example.org/sponsors/lisboa-card.svg', tier: 'partner' },
  ],
  content_blocks: [
    block('main', 1, 'text', { en: 'Welcome to Lisbon', pt: 'Bem-vindo a Lisboa', es: 'Bienvenido a Lisboa' }, {
      body: { en: 'Start at Praça do Comércio, climb to the castle and end the day at a miradouro.',
        pt: 'Comece na Praça do Comércio, suba ao castelo e acabe o dia num miradouro.',
        es: 'Empiece en la Praça do Comércio, suba al castillo y termine el día en un mirador.' } }),
    block('main', 2, 'image', { en: 'Lisbon from Senhora do Monte', pt: 'Lisboa vista da Senhora do Monte', es: 'Lisboa desde la Senhora do Monte' },
      { image_url: 'https://images.example.org/lisbon-city-guide/senhora-do-monte.jpg' }),
    block('main', 3, 'video', { en: 'Riding Tram 28', pt: 'A bordo do elétrico 28', es: 'A bordo del tranvía 28' }, { url: 'https://video.example.org/lisbon/tram-28' }),
    block('main', 4, 'link', { en: 'Lisboa Card: transport and museums', pt: 'Lisboa Card: transportes e museus', es: 'Lisboa Card: transporte y museos' }, {
      url: 'https://lisboacard.example.org/',
      body: { en: 'Free transport and museum entries.', pt: 'Transportes e entradas em museus gratuitos.', es: 'Transporte y entradas a museos gratis.' } }),
    block('main', 5, 'notice', { en: 'Tram 28 works', pt: 'Obras no elétrico 28', es: 'Obras en el tranvía 28' }, {
      body: { en: 'Some Tram 28 runs end at Graça during track works; check before you travel.',
        pt: 'Durante as obras na linha, alguns elétricos 28 terminam na Graça; confirme antes de sair.',
        es: 'Durante las obras en la vía, algunos tranvías 28 terminan en Graça; compruébelo antes de salir.' } }),
    block('main', 6, 'text', { en: 'Getting around', pt: 'Como se deslocar', es: 'Cómo moverse' }, {
      body: { en: 'Metro, trams, funiculars and ferries all take the same rechargeable card.',
        pt: 'Metro, elétricos, elevadores e barcos aceitam todos o mesmo cartão recarregável.',
        es: 'Metro, tranvías, funiculares y barcos aceptan la misma tarjeta recargable.' } }),
  ],
  versions: [
    { id: VER['2025'], name: '2025 edition', status: 'published', published_at: '2025-03-01T09:00:00Z', notes: 'Previous edition.' },
    { id: VER['2026'], name: '2026 edition', status: 'published', published_at: '2026-03-01T09:00:00Z', notes: 'Current edition.' },
    { id: VER.draft, name: '2027 draft', status: 'draft', notes: 'Work in progress; never served.' },
  ],
  current_version_id: VER['2026'],
};

const food: MapT = {
  id: MAP.food, publisher_id: PUB.a, slug: 'lisbon-food-markets', enabled: true, time_zone: 'Europe/Lisbon', country: 'PT', ...languagesOf('food'),
  name: text('food', { en: 'Lisbon Food & Markets', pt: 'Lisboa: Comida e Mercados' }),
  description: text('food', { en: 'Pastelarias, tascas and markets for hungry visitors.', pt: 'Pastelarias, tascas e mercados para visitantes com apetite.' }),
  created_at: '2025-02-01T09:00:00Z',
  branding: { primary_color: '#b5651d', accent_color: '#ffe0a3', logo_url: 'https://images.example.org/lisbon-food-markets/logo.svg' },
  info: { summary: text('food', { en: 'Eat your way around Lisbon.', pt: 'Conheça Lisboa à mesa.' }), languages: ['pt', 'en'], website: 'https://visitlisboa.example.org/food' },
  map_data: { center: { lat: 38.7120, lng: -9.1420 }, zoom: 14, min_zoom: 11, max_zoom: 19, bounds: [-9.2100, 38.6900, -9.1200, 38.7400] },
  contact: { email: 'food@visitlisboa.example.org', website: 'https://visitlisboa.example.org/food' },
  sponsors: [{ name: 'Mercado da Ribeira', url: 'https://mercado.example.org/', tier: 'gold' }],
  content_blocks: [block('food', 1, 'text', { en: 'How to order a bica', pt: 'Como pedir uma bica' }, {
    body: { en: 'A bica is an espresso; order it at the counter.', pt: 'Uma bica é um café expresso; peça-a ao balcão.' } })],
  versions: [{ id: OTHER_VER.food, name: '2026', status: 'published', published_at: '2026-02-01T09:00:00Z' }],
  current_version_id: OTHER_VER.food,
};

const sintra: MapT = {
  id: MAP.sintra, publisher_id: PUB.b, slug: 'sintra-cascais-trails', enabled: true, time_zone: 'Europe/Lisbon', country: 'PT', ...languagesOf('sintra'),
  name: text('sintra', { en: 'Sintra & Cascais Trails', pt: 'Trilhos de Sintra e Cascais' }),
  description: text('sintra', { en: 'Palaces in the hills and trails down to the Atlantic.', pt: 'Palácios na serra e trilhos até ao Atlântico.' }),
  created_at: '2025-01-15T09:00:00Z',
  branding: { primary_color: '#2e5e3e', accent_color: '#d4a017', attribution: 'Trail data © Sintra-Cascais Natural Park' },
  info: {
    summary: text('sintra', { en: 'Romantic palaces, misty forests and wild beaches.', pt: 'Palácios românticos, florestas de nevoeiro e praias selvagens.' }),
    languages: ['pt', 'en', 'es'],
    opening_season: text('sintra', { en: 'All year; some trails close in storms', pt: 'Todo o ano; alguns trilhos fecham em dias de tempestade' }),
  },
  map_data: { center: { lat: 38.7600, lng: -9.4300 }, zoom: 11, min_zoom: 9, max_zoom: 18, bounds: [-9.5100, 38.6800, -9.3700, 38.8500] },
  contact: { email: 'trails@sintra-cascais.example.org', phone: '+351 21 923 7301', social: { instagram: 'https://instagram.example.org/sintracascais' } },
  sponsors: [{ name: 'Parques de Sintra', url: 'https://parques.example.org/', tier: 'partner' }],
  content_blocks: [
    block('sintra', 1, 'notice', { en: 'Fire risk in summer', pt: 'Risco de incêndio no verão' }, {
      body: { en: 'Some trails close on high fire-risk days.', pt: 'Alguns trilhos fecham nos dias de risco de incêndio elevado.' } }),
    block('sintra', 2, 'link', { en: 'Bus 434 timetable', pt: 'Horário do autocarro 434' }, { url: 'https://sintra-cascais.example.org/bus-434' }),
  ],
  versions: [{ id: OTHER_VER.sintra, name: '2026 season', status: 'published', published_at: '2026-01-10T09:00:00Z' }],
  current_version_id: OTHER_VER.sintra,
};

const xmas: MapT = {
  id: MAP.xmas, publisher_id: PUB.b, slug: 'sintra-christmas-village-2025', enabled: false, time_zone: 'Europe/Lisbon', country: 'PT', ...languagesOf('xmas'),
  name: text('xmas', { en: 'Sintra Christmas Village 2025', pt: 'Vila Natal de Sintra 2025' }),
  description: text('xmas', { en: 'The seasonal Christmas village in the historic centre of Sintra.', pt: 'A vila de Natal sazonal no centro histórico de Sintra.' }),
  created_at: '2025-10-01T09:00:00Z',
  branding: {
    logo_url: 'https://images.example.org/sintra-christmas-village/logo.svg', cover_image_url: 'https://images.example.org/sintra-christmas-village/cover.jpg',
    primary_color: '#b71c1c', accent_color: '#1b5e20', attribution: 'Sintra-Cascais Natural Park · Christmas Village',
  },
  info: { summary: text('xmas', { en: 'Markets, Santa and an ice rink.', pt: 'Mercados, o Pai Natal e uma pista de gelo.' }), languages: ['pt', 'en'],
    opening_season: text('xmas', { en: 'December', pt: 'Dezembro' }) },
  map_data: { center: { lat: 38.7980, lng: -9.3885 }, zoom: 16 },
  contact: { email: 'natal@sintra-cascais.example.org' },
  sponsors: [{ name: 'Câmara Municipal de Sintra', tier: 'gold' }],
  content_blocks: [block('xmas', 1, 'text', { en: 'The village is closed', pt: 'A vila está fechada' }, {
    body: { en: 'See you next December.', pt: 'Até ao próximo dezembro.' } })],
  versions: [{ id: OTHER_VER.xmas, name: '2025 edition', status: 'published', published_at: '2025-11-20T09:00:00Z' }],
  current_version_id: OTHER_VER.xmas,
};

export const MAPS: MapT[] = [main, food, sintra, xmas];
