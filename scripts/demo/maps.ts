/** Publishers and maps (presentation data, versions, content blocks, sponsors). */
import type { MapT, PublisherT } from '../../src/content/bundle/bundle-schema.ts';
import { MAP, OTHER_VER, PUB, VER } from './ctx.ts';
import { uuid } from './ids.ts';

export const PUBLISHERS: PublisherT[] = [
  {
    id: PUB.a, name: 'Visit Lisboa', slug: 'visit-lisboa',
    description: 'The tourism board of the city of Lisbon.',
    website: 'https://visitlisboa.example.org/', logo_url: 'https://images.example.org/publishers/visit-lisboa.svg',
    email: 'maps@visitlisboa.example.org', phone: '+351 21 031 2700',
    address: 'Rua do Arsenal 15, 1100-038 Lisboa, Portugal', location: { lat: 38.7078, lng: -9.1388 },
  },
  {
    id: PUB.b, name: 'Sintra-Cascais Natural Park', slug: 'sintra-cascais-natural-park',
    description: 'Protected landscape of the Serra de Sintra and the Cascais coast.',
    website: 'https://sintra-cascais.example.org/', logo_url: 'https://images.example.org/publishers/sintra-cascais.svg',
    email: 'info@sintra-cascais.example.org', phone: '+351 21 923 7300',
    address: 'Rua Gago Coutinho 1, 2710-566 Sintra, Portugal', location: { lat: 38.7990, lng: -9.3860 },
  },
];

const block = (map: string, n: number, kind: MapT['content_blocks'][number]['kind'], title: string, extra: Partial<MapT['content_blocks'][number]>) =>
  ({ id: uuid(`block:${map}:${n}`), kind, title, sort_order: n * 10, ...extra });

const main: MapT = {
  id: MAP.main, publisher_id: PUB.a, name: 'Lisbon City Guide', slug: 'lisbon-city-guide', enabled: true, time_zone: 'Europe/Lisbon',
  description: 'Sights, food, fado, parks and events across Lisbon, curated by Visit Lisboa.',
  created_at: '2024-01-10T09:00:00Z',
  branding: {
    logo_url: 'https://images.example.org/lisbon-city-guide/logo.svg', cover_image_url: 'https://images.example.org/lisbon-city-guide/cover.jpg',
    primary_color: '#c8102e', accent_color: '#f2a900', attribution: 'Map data © OpenStreetMap contributors',
  },
  info: {
    summary: 'Seven hills, miradouros, pastéis de nata and the sound of fado.', languages: ['pt', 'en', 'es', 'fr'],
    website: 'https://visitlisboa.example.org/city-guide', opening_season: 'All year',
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
    block('main', 1, 'text', 'Welcome to Lisbon', { body: 'Start at Praça do Comércio, climb to the castle and end the day at a miradouro.' }),
    block('main', 2, 'image', 'Lisbon from Senhora do Monte', { image_url: 'https://images.example.org/lisbon-city-guide/senhora-do-monte.jpg' }),
    block('main', 3, 'video', 'Riding Tram 28', { url: 'https://video.example.org/lisbon/tram-28' }),
    block('main', 4, 'link', 'Lisboa Card: transport and museums', { url: 'https://lisboacard.example.org/', body: 'Free transport and museum entries.' }),
    block('main', 5, 'notice', 'Tram 28 works', { body: 'Some Tram 28 runs end at Graça during track works; check before you travel.' }),
    block('main', 6, 'text', 'Getting around', { body: 'Metro, trams, funiculars and ferries all take the same rechargeable card.' }),
  ],
  versions: [
    { id: VER['2025'], name: '2025 edition', status: 'published', published_at: '2025-03-01T09:00:00Z', notes: 'Previous edition.' },
    { id: VER['2026'], name: '2026 edition', status: 'published', published_at: '2026-03-01T09:00:00Z', notes: 'Current edition.' },
    { id: VER.draft, name: '2027 draft', status: 'draft', notes: 'Work in progress; never served.' },
  ],
  current_version_id: VER['2026'],
};

const food: MapT = {
  id: MAP.food, publisher_id: PUB.a, name: 'Lisbon Food & Markets', slug: 'lisbon-food-markets', enabled: true, time_zone: 'Europe/Lisbon',
  description: 'Pastelarias, tascas and markets for hungry visitors.', created_at: '2025-02-01T09:00:00Z',
  branding: { primary_color: '#b5651d', accent_color: '#ffe0a3', logo_url: 'https://images.example.org/lisbon-food-markets/logo.svg' },
  info: { summary: 'Eat your way around Lisbon.', languages: ['pt', 'en'], website: 'https://visitlisboa.example.org/food' },
  map_data: { center: { lat: 38.7120, lng: -9.1420 }, zoom: 14, min_zoom: 11, max_zoom: 19, bounds: [-9.2100, 38.6900, -9.1200, 38.7400] },
  contact: { email: 'food@visitlisboa.example.org', website: 'https://visitlisboa.example.org/food' },
  sponsors: [{ name: 'Mercado da Ribeira', url: 'https://mercado.example.org/', tier: 'gold' }],
  content_blocks: [block('food', 1, 'text', 'How to order a bica', { body: 'A bica is an espresso; order it at the counter.' })],
  versions: [{ id: OTHER_VER.food, name: '2026', status: 'published', published_at: '2026-02-01T09:00:00Z' }],
  current_version_id: OTHER_VER.food,
};

const sintra: MapT = {
  id: MAP.sintra, publisher_id: PUB.b, name: 'Sintra & Cascais Trails', slug: 'sintra-cascais-trails', enabled: true, time_zone: 'Europe/Lisbon',
  description: 'Palaces in the hills and trails down to the Atlantic.', created_at: '2025-01-15T09:00:00Z',
  branding: { primary_color: '#2e5e3e', accent_color: '#d4a017', attribution: 'Trail data © Sintra-Cascais Natural Park' },
  info: { summary: 'Romantic palaces, misty forests and wild beaches.', languages: ['pt', 'en', 'es'], opening_season: 'All year; some trails close in storms' },
  map_data: { center: { lat: 38.7600, lng: -9.4300 }, zoom: 11, min_zoom: 9, max_zoom: 18, bounds: [-9.5100, 38.6800, -9.3700, 38.8500] },
  contact: { email: 'trails@sintra-cascais.example.org', phone: '+351 21 923 7301', social: { instagram: 'https://instagram.example.org/sintracascais' } },
  sponsors: [{ name: 'Parques de Sintra', url: 'https://parques.example.org/', tier: 'partner' }],
  content_blocks: [
    block('sintra', 1, 'notice', 'Fire risk in summer', { body: 'Some trails close on high fire-risk days.' }),
    block('sintra', 2, 'link', 'Bus 434 timetable', { url: 'https://sintra-cascais.example.org/bus-434' }),
  ],
  versions: [{ id: OTHER_VER.sintra, name: '2026 season', status: 'published', published_at: '2026-01-10T09:00:00Z' }],
  current_version_id: OTHER_VER.sintra,
};

const xmas: MapT = {
  id: MAP.xmas, publisher_id: PUB.b, name: 'Sintra Christmas Village 2025', slug: 'sintra-christmas-village-2025', enabled: false, time_zone: 'Europe/Lisbon',
  description: 'The seasonal Christmas village in the historic centre of Sintra.', created_at: '2025-10-01T09:00:00Z',
  branding: {
    logo_url: 'https://images.example.org/sintra-christmas-village/logo.svg', cover_image_url: 'https://images.example.org/sintra-christmas-village/cover.jpg',
    primary_color: '#b71c1c', accent_color: '#1b5e20', attribution: 'Sintra-Cascais Natural Park · Christmas Village',
  },
  info: { summary: 'Markets, Santa and an ice rink.', languages: ['pt', 'en'], opening_season: 'December' },
  map_data: { center: { lat: 38.7980, lng: -9.3885 }, zoom: 16 },
  contact: { email: 'natal@sintra-cascais.example.org' },
  sponsors: [{ name: 'Câmara Municipal de Sintra', tier: 'gold' }],
  content_blocks: [block('xmas', 1, 'text', 'The village is closed', { body: 'See you next December.' })],
  versions: [{ id: OTHER_VER.xmas, name: '2025 edition', status: 'published', published_at: '2025-11-20T09:00:00Z' }],
  current_version_id: OTHER_VER.xmas,
};

export const MAPS: MapT[] = [main, food, sintra, xmas];
