/** Stable ids of the publishers, maps and versions of the demo bundle. */
import { uuid } from './ids.ts';
import type { MapKey, VerTag } from './taxonomy.ts';

export const PUB = { a: uuid('publisher:visit-lisboa'), b: uuid('publisher:sintra-cascais-natural-park') };

export const MAP: Record<MapKey, string> = {
  main: uuid('map:lisbon-city-guide'),
  food: uuid('map:lisbon-food-markets'),
  sintra: uuid('map:sintra-cascais-trails'),
  xmas: uuid('map:sintra-christmas-village-2025'),
};

/** Versions of the main map. */
export const VER: Record<VerTag, string> = {
  '2025': uuid('version:lisbon-city-guide:2025'),
  '2026': uuid('version:lisbon-city-guide:2026'),
  draft: uuid('version:lisbon-city-guide:2027-draft'),
};

/** The single version of each other map. */
export const OTHER_VER: Record<Exclude<MapKey, 'main'>, string> = {
  food: uuid('version:lisbon-food-markets:2026'),
  sintra: uuid('version:sintra-cascais-trails:2026'),
  xmas: uuid('version:sintra-christmas-village:2025'),
};

export const MAP_SLUG: Record<MapKey, string> = {
  main: 'lisbon-city-guide', food: 'lisbon-food-markets', sintra: 'sintra-cascais-trails', xmas: 'sintra-christmas-village-2025',
};

export const slugify = (s: string): string =>
  s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
