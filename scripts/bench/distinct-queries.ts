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

/**
 * What every browser and mobile HTTP stack sends: the encoded rows ask with it, and so does their cached reference
 * (the service answers zstd, the first of its codings the header allows).
 */
export const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/** The seed of the encoded rows' questions: other points than the identity rows', which the response cache may still hold. */
export const ENCODED_SEED = SEED + 1;

/** The seed of the fields rows' questions: the distinct kinds again, at points of their own. */
export const FIELDS_SEED = SEED + 4;

/** Seconds of an ISO 8601 instant, UTC, without milliseconds (`2027-03-01T12:00:05Z`). */
export const isoSecond = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/**
 * Real misses of one cached URL (`cachedPath`, a `near` question): the same question with one declared parameter
 * given a value no request gave before, so the response cache's key (declared parameters only) differs each time and
 * the answer is made afresh, though it is nearly the cached one. `from`: the window starts `fromMs` plus i seconds
 * (the default window's 30 days from there); `near`: the point moved by i steps of 0.00001° (about a metre) on a
 * grid of 250 rows, so 60,000 questions stay within about 300 m of it.
 */
export function missPaths(param: 'from' | 'near', cachedPath: string, near: { lat: number; lng: number }, count: number, fromMs: number): string[] {
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    if (param === 'from') paths.push(`${cachedPath}&from=${isoSecond(fromMs + i * 1000)}`);
    else {
      const moved = `${fixed(near.lat + (i % 250) * 1e-5)},${fixed(near.lng + Math.floor(i / 250) * 1e-5)}`;
      paths.push(cachedPath.replace(/([?&]near=)[^&]*/, `$1${moved}`));
    }
  }
  if (new Set(paths).size !== paths.length || (param === 'near' && paths.includes(cachedPath))) throw new Error(`the ${param} misses repeat a path`);
  return paths;
}

/** The page size of the distinct cursor rows (page 200 starts after 199 × this many events). */
export const CURSOR_PAGE_LIMIT = 50;

/**
 * Distinct filters for the cursor rows: every event of the map in a window of `windowDays` starting at a seeded
 * second between `spanFromMs` and `spanToMs` less the window (a filter no request asked before: the window is part
 * of the match cache's key). `limit` is the page size asked for (the walk to page 200 asks for bigger pages).
 */
export function windowFilters(mapId: string, count: number, seed: number, spanFromMs: number, spanToMs: number, windowDays: number): string[] {
  const random = mulberry32(seed);
  const windowMs = windowDays * 86_400_000;
  const room = spanToMs - windowMs - spanFromMs;
  if (room <= 0) throw new Error(`a ${windowDays}-day window does not fit between ${isoSecond(spanFromMs)} and ${isoSecond(spanToMs)}`);
  const seen = new Set<string>();
  for (let tries = 0; seen.size < count; tries++) {
    if (tries > count * 10) throw new Error(`only ${seen.size} distinct windows of ${count}`);
    const from = spanFromMs + Math.floor(random() * room);
    seen.add(`/events?map_id=${mapId}&from=${isoSecond(from)}&to=${isoSecond(from + windowMs)}`);
  }
  return [...seen];
}

/** The seed of the calendar rows' questions. */
export const CALENDAR_SEED = SEED + 2;

/** How long a calendar row's window is, in days: what an app that shows "this month" asks for. */
export const CALENDAR_WINDOW_DAYS = 30;

/**
 * `count` distinct calendar feeds: each a 30-day window starting on a seeded day between `spanFromMs` and `spanToMs`
 * less the window, near a seeded point (5 km) when `near`, else of the whole map (which the feed's cap refuses).
 */
export function calendarPaths(mapId: string, count: number, spanFromMs: number, spanToMs: number, near: boolean, seed = CALENDAR_SEED): string[] {
  const random = mulberry32(seed);
  const days = Math.floor((spanToMs - spanFromMs) / 86_400_000) - CALENDAR_WINDOW_DAYS;
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const seen = new Set<string>();
  for (let tries = 0; seen.size < count; tries++) {
    if (tries > count * 10) throw new Error(`only ${seen.size} distinct calendar windows of ${count}`);
    const fromMs = spanFromMs + Math.floor(random() * days) * 86_400_000;
    // A date alone as `to` means the end of that day: 30 whole days.
    const window = `from=${date(fromMs)}&to=${date(fromMs + (CALENDAR_WINDOW_DAYS - 1) * 86_400_000)}`;
    if (near) {
      const p = pointNearCity(random);
      seen.add(`/events.ics?map_id=${mapId}&near=${fixed(p.lat)},${fixed(p.lng)}&radius_m=5000&${window}`);
    } else seen.add(`/events.ics?map_id=${mapId}&${window}`);
  }
  return [...seen];
}

/** The seed of the opening-hours rows' instants. */
export const HOURS_SEED = SEED + 3;

/**
 * `count` distinct `open_at` questions on `/maps/{mapId}/pois` over `tags`: each a seeded instant (to the minute) in
 * 2027, as apps asking "open at 21:00 on Saturday" send a different time each.
 */
export function openAtPaths(mapId: string, tags: string, count: number, seed = HOURS_SEED): string[] {
  const random = mulberry32(seed);
  const from = Date.parse('2027-01-01T00:00:00Z');
  const minutes = 365 * 24 * 60;
  const seen = new Set<string>();
  for (let tries = 0; seen.size < count; tries++) {
    if (tries > count * 10) throw new Error(`only ${seen.size} distinct open_at instants of ${count}`);
    seen.add(`/maps/${mapId}/pois?tags=${tags}&open_at=${isoSecond(from + Math.floor(random() * minutes) * 60_000)}`);
  }
  return [...seen];
}

/** The seed of the vector-tile rows' tiles. */
const TILES_SEED = 20261128;

/** The tile `[z, x, y]` that holds a position. */
export function tileOf(z: number, lng: number, lat: number): [number, number, number] {
  const n = 2 ** z;
  const sin = Math.sin((lat * Math.PI) / 180);
  const x = Math.min(n - 1, Math.floor((lng / 360 + 0.5) * n));
  const y = Math.min(n - 1, Math.floor((0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * n));
  return [z, x, y];
}

/**
 * The z10–16 mix a fleet of map apps asks for, as distinct tiles: the same number of tiles of each zoom from 10 to 16,
 * each the tile of a seeded point around the cities (where the POIs are, as every distinct row of this benchmark
 * asks), zooms taken in turn so any first part of the list is the same mix. As many per zoom as zoom 10 has around
 * the cities (its tiles are 30 km wide: a few per city), at most `perZoom`.
 */
export function tileMix(perZoom: number, seed = TILES_SEED): [number, number, number][] {
  const random = mulberry32(seed);
  const zooms = [10, 11, 12, 13, 14, 15, 16];
  const byZoom = zooms.map((z) => {
    const seen = new Map<string, [number, number, number]>();
    for (let tries = 0; tries < perZoom * 50 && seen.size < perZoom; tries++) {
      const { lng, lat } = pointNearCity(random);
      const tile = tileOf(z, lng, lat);
      seen.set(tile.join('/'), tile);
    }
    return [...seen.values()];
  });
  const count = Math.min(...byZoom.map((tiles) => tiles.length));
  const mix: [number, number, number][] = [];
  for (let i = 0; i < count; i++) for (const tiles of byZoom) mix.push(tiles[i]);
  return mix;
}

/** The seed of the vector-tile rows' warm-up tiles. */
const TILES_WARMUP_SEED = TILES_SEED + 1;

/**
 * `count` tiles for a warm-up before `measured` is sent: tiles of other seeded points around the cities, zooms 10 to 16
 * in turn, none of them in `measured` (nor twice), so the warm-up runs the code the measured tiles run and leaves none
 * of them in a cache. Zoom 10 has few tiles around the cities, so its turn is skipped once they are all taken.
 */
export function tileWarmup(count: number, measured: readonly (readonly number[])[], seed = TILES_WARMUP_SEED): [number, number, number][] {
  const random = mulberry32(seed);
  const taken = new Set(measured.map((tile) => tile.join('/')));
  const out: [number, number, number][] = [];
  for (let tries = 0; out.length < count && tries < count * 50; tries++) {
    const { lng, lat } = pointNearCity(random);
    const tile = tileOf(10 + (tries % 7), lng, lat);
    const key = tile.join('/');
    if (taken.has(key)) continue;
    taken.add(key);
    out.push(tile);
  }
  return out;
}

/** The seed of the OGC API Features rows' boxes. */
const OGC_SEED = SEED + 5;
/** Features an OGC items page of the benchmark holds. */
export const OGC_PAGE = 100;

/**
 * `count` distinct pages of the bench map's markers as a GIS client pans over them: the first page of 100 in a box of
 * about 5 by 5 km (as the distinct bbox rows) around a seeded point near the cities, each box once.
 */
export function ogcBoxPaths(mapId: string, count: number, seed = OGC_SEED): string[] {
  const seen = new Set<string>();
  for (const p of seededPoints(count * 2, seed)) {
    if (seen.size >= count) break;
    const b = boxAround(p);
    seen.add(`/ogc/collections/${mapId}-markers/items?bbox=${b.west},${b.south},${b.east},${b.north}&limit=${OGC_PAGE}`);
  }
  return [...seen];
}
