/**
 * The shape of the large benchmark bundle, shared by its generator (make-large.ts) and the benchmarks:
 * ids, city clusters and vocabularies, so a benchmark can aim its filters at a city without reading the bundle.
 */
import { nameUuid } from '../demo/ids.ts';

/** Name space of every id in the large bundle. */
export const SPACE = 'large';

/** A stable id in the large bundle's name space. */
export const largeId = (name: string): string => nameUuid(SPACE, name);

/** Where the large bundle is written and read by default (git-ignored). */
export const DEFAULT_BUNDLE = '.bench/large-bundle.json';

/** The only publisher. */
export const PUBLISHER_ID = largeId('publisher:iberia');
/** The only map: enabled, one published version, which is current. */
export const MAP_ID = largeId('map:iberia');
/** The map's published, current version. */
export const VERSION_ID = largeId('version:iberia:2026');

/** A city that POIs cluster around (Gaussian, `sigmaKm`), weighted by `weight`. */
export interface City { key: string; name: string; lat: number; lng: number; weight: number; sigmaKm: number }

/** A dozen cities of mainland Portugal and Spain; the weights sum to the share of POIs that are urban. */
export const CITIES: readonly City[] = [
  { key: 'madrid', name: 'Madrid', lat: 40.4168, lng: -3.7038, weight: 0.13, sigmaKm: 6 },
  { key: 'barcelona', name: 'Barcelona', lat: 41.3874, lng: 2.1686, weight: 0.11, sigmaKm: 5 },
  { key: 'lisbon', name: 'Lisboa', lat: 38.7223, lng: -9.1393, weight: 0.09, sigmaKm: 4 },
  { key: 'porto', name: 'Porto', lat: 41.1579, lng: -8.6291, weight: 0.06, sigmaKm: 4 },
  { key: 'valencia', name: 'València', lat: 39.4699, lng: -0.3763, weight: 0.05, sigmaKm: 4 },
  { key: 'seville', name: 'Sevilla', lat: 37.3891, lng: -5.9845, weight: 0.05, sigmaKm: 4 },
  { key: 'malaga', name: 'Málaga', lat: 36.7213, lng: -4.4214, weight: 0.04, sigmaKm: 4 },
  { key: 'bilbao', name: 'Bilbao', lat: 43.263, lng: -2.935, weight: 0.03, sigmaKm: 3 },
  { key: 'zaragoza', name: 'Zaragoza', lat: 41.6488, lng: -0.8891, weight: 0.03, sigmaKm: 3 },
  { key: 'granada', name: 'Granada', lat: 37.1773, lng: -3.5986, weight: 0.03, sigmaKm: 3 },
  { key: 'coimbra', name: 'Coimbra', lat: 40.2033, lng: -8.4103, weight: 0.02, sigmaKm: 3 },
  { key: 'faro', name: 'Faro', lat: 37.0194, lng: -7.9322, weight: 0.02, sigmaKm: 3 },
];

/** Rough land boxes `[west, south, east, north]` of the Iberian mainland, for the rural POIs. */
export const LAND_BOXES: readonly (readonly [number, number, number, number])[] = [
  [-8.9, 37.1, -7.5, 41.9], // Portugal
  [-7.5, 37.4, -1.2, 42.6], // the Meseta and the north-west interior
  [-6.2, 36.7, -2.0, 37.6], // Andalusia
  [-2.0, 37.8, -0.6, 42.6], // Murcia to Navarra
  [-0.6, 40.2, 2.6, 42.3], // Aragon and Catalonia
];

/** The ~8 event types (lowercase slugs, as the format requires). */
export const EVENT_TYPES = ['concert', 'festival', 'exhibition', 'sport', 'food', 'family', 'theatre', 'market'] as const;

/** The ~30 free-text event tags (written lowercase; the generator capitalises a few). */
export const EVENT_TAGS = [
  'free', 'outdoor', 'indoor', 'family-friendly', 'kids', 'accessible', 'night', 'live-music', 'food', 'wine',
  'art', 'history', 'seasonal', 'christmas', 'summer', 'local', 'craft', 'dance', 'jazz', 'classical',
  'rock', 'cinema', 'photography', 'guided', 'workshop', 'sustainable', 'pet-friendly', 'sunset', 'beach', 'tickets',
] as const;

/** Event starts are spread uniformly over the days from EVENTS_FROM_MS (2026-01-01) ... */
export const EVENTS_FROM_MS = Date.parse('2026-01-01T00:00:00Z');
/** ... to just before EVENTS_TO_MS (so up to 2028-12-31). */
export const EVENTS_TO_MS = Date.parse('2029-01-01T00:00:00Z');

/** Finds a city by key; throws for an unknown one. */
export function findCity(key: string): City {
  const city = CITIES.find((c) => c.key === key);
  if (!city) throw new Error(`unknown city ${key}`);
  return city;
}
