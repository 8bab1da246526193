/**
 * Distinct event queries on the large dataset, the way a fleet of apps asks them: every visitor near a different
 * point. Seeded (mulberry32), so every run and every runtime sends the same questions. Points fall around the
 * dataset's cities (picked by their weight, offset by their spread), where the POIs and events are.
 */
import { mulberry32 } from '../demo/ids.ts';
import { CITIES } from './large-data.ts';

/** The three kinds of distinct query the benchmark measures. */
export const DISTINCT_QUERIES = {
  /** `near` a point, 5 km, the default window (from now). */
  near5km: { name: 'near 5 km, default window, a distinct point each' },
  /** A small box (about 5 by 5 km) and `tags=free`, the default window. */
  bboxFree: { name: 'small bbox + tags=free, default window, a distinct box each' },
  /** `near` a point, 2 km, a one-year window, `limit=20`. */
  near2kmYear: { name: 'near 2 km, one-year window, limit=20, a distinct point each' },
} as const;

/** A distinct query kind. */
export type DistinctKind = keyof typeof DISTINCT_QUERIES;

/** A point around one of the cities, by weight, offset by a Gaussian of the city's spread. */
function pointNearCity(random: () => number): { lat: number; lng: number } {
  const total = CITIES.reduce((s, c) => s + c.weight, 0);
  let pick = random() * total;
  const city = CITIES.find((c) => (pick -= c.weight) <= 0) ?? CITIES[CITIES.length - 1];
  // Box-Muller: two uniforms, one normal pair.
  const r = Math.sqrt(-2 * Math.log(1 - random())) * city.sigmaKm;
  const theta = 2 * Math.PI * random();
  const dLat = (r * Math.cos(theta)) / 111.32;
  const dLng = (r * Math.sin(theta)) / (111.32 * Math.cos((city.lat * Math.PI) / 180));
  return { lat: city.lat + dLat, lng: city.lng + dLng };
}

const fixed = (x: number) => x.toFixed(5);

/** The seed of every run's questions. */
const SEED = 20261124;

/** `count` seeded points around the cities (the same ones `distinctPaths` asks about, in the same order). */
export function seededPoints(count: number, seed = SEED): { lat: number; lng: number }[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, () => pointNearCity(random));
}

/** Half the side of a distinct box, in degrees of latitude (about 2.5 km). */
export const BOX_HALF_LAT = 0.0225;

/** The box of a distinct `bbox` question around a point. */
export function boxAround(p: { lat: number; lng: number }): { west: number; south: number; east: number; north: number } {
  const dLng = BOX_HALF_LAT / Math.cos((p.lat * Math.PI) / 180);
  return { west: Number(fixed(p.lng - dLng)), south: Number(fixed(p.lat - BOX_HALF_LAT)), east: Number(fixed(p.lng + dLng)),
    north: Number(fixed(p.lat + BOX_HALF_LAT)) };
}

/** `count` distinct request paths of one kind on map `mapId`, from `seed`. */
export function distinctPaths(kind: DistinctKind, mapId: string, count: number, seed = SEED): string[] {
  const random = mulberry32(seed);
  const seen = new Set<string>();
  while (seen.size < count) {
    const p = pointNearCity(random);
    let path: string;
    if (kind === 'near5km') path = `/events?map_id=${mapId}&near=${fixed(p.lat)},${fixed(p.lng)}&radius_m=5000`;
    else if (kind === 'near2kmYear') {
      path = `/events?map_id=${mapId}&near=${fixed(p.lat)},${fixed(p.lng)}&radius_m=2000&from=2027-01-01T00:00:00Z&to=2027-12-31T23:59:59Z&limit=20`;
    } else {
      const b = boxAround(p);
      path = `/events?map_id=${mapId}&bbox=${b.west},${b.south},${b.east},${b.north}&tags=free`;
    }
    seen.add(path);
  }
  return [...seen];
}
