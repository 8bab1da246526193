/**
 * Generates the large benchmark bundle: one publisher, one enabled map with one published (current) version,
 * 60 categories and tags, 100,000 POIs clustered around a dozen Iberian cities and 1,000,000 events by default, a
 * fifth of them the occurrences of about 960 weekly and twice-weekly series (the bundle lists each series once).
 * Deterministic (mulberry32, name-based UUIDs in the 'large' space, fixed dates) and streamed to disk in chunks,
 * so the 300+ MB of JSON never exists as one string. Generated on demand into the git-ignored `.bench/`.
 *
 *   node scripts/bench/make-large.ts [--events N] [--pois N] [--seed N] [--out PATH]
 *
 * Prints one line of JSON: counts, bytes and milliseconds.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLE_FORMAT } from '../../src/content/bundle/bundle-schema.ts';
import { type Rng, int, iso, mulberry32, pick, pickN } from '../demo/ids.ts';
import {
  CITIES, DEFAULT_BUNDLE, EVENT_TAGS, EVENT_TYPES, EVENTS_FROM_MS, EVENTS_TO_MS, LAND_BOXES, MAP_ID, PUBLISHER_ID,
  VERSION_ID, largeId,
} from './large-data.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const QUARTER_MS = 15 * 60_000;
const KM_PER_DEG_LAT = 111.32;
/** Flush to the file once this many characters are buffered. */
const CHUNK_CHARS = 1 << 20;

/** [top-level name, kind, children]: 10 top-level items with 5 children each, 60 in all. */
const TAXONOMY: readonly (readonly [string, 'category' | 'tag', readonly string[]])[] = [
  ['Sights', 'category', ['Monuments', 'Churches', 'Castles', 'Viewpoints', 'Heritage Sites']],
  ['Museums', 'category', ['Art Museums', 'History Museums', 'Science Museums', 'Galleries', 'Libraries']],
  ['Food & Drink', 'category', ['Restaurants', 'Cafés', 'Bars', 'Markets', 'Wineries']],
  ['Nature', 'category', ['Parks', 'Beaches', 'Gardens', 'Trails', 'Lakes']],
  ['Culture', 'category', ['Theatres', 'Cinemas', 'Concert Halls', 'Cultural Centres', 'Street Art']],
  ['Shopping', 'category', ['Malls', 'Crafts', 'Bookshops', 'Fashion', 'Antiques']],
  ['Sport', 'category', ['Stadiums', 'Pools', 'Golf Courses', 'Surf Spots', 'Cycling Routes']],
  ['Family', 'category', ['Playgrounds', 'Zoos', 'Theme Parks', 'Aquariums', "Kids' Museums"]],
  ['Stay', 'category', ['Hotels', 'Hostels', 'Campsites', 'Guesthouses', 'Apartments']],
  ['Features', 'tag', ['Accessible', 'Free Entry', 'Pet Friendly', 'Open Late', 'Family Friendly']],
];
/**
 * Opening hours of the POIs, by POI number (no draw of the seeded generator, so every other record stays as it was):
 * the rules of a destination's places, closed on public holidays, past midnight, by the sun, around the clock; one
 * POI in eight has none. Most rules come in eight variants of their first opening time: some 70 distinct rules.
 */
const HOURS_RULES = [
  'Mo-Su 10:00-18:00; PH off', 'Tu-Su 10:00-18:00; PH off', 'Mo-Sa 12:00-15:00,19:30-23:30', 'Mo-Su 19:30-02:00', 'Mo-Su 08:00-20:00',
  'Mo-Fr 09:00-13:00,15:00-19:00; Sa 10:00-14:00; PH off', '24/7', 'sunrise-sunset', 'Mo-Su 07:00-22:00', 'Th-Sa 22:00-04:00',
  'Mo-Sa 10:00-21:00; Su 11:00-19:00; Dec 25 off', 'Tu-Su 09:30-17:30; Jan 01 off',
];
function hoursOf(i: number): string | undefined {
  if (i % 8 === 7) return undefined;
  const rule = HOURS_RULES[i % HOURS_RULES.length];
  const shift = Math.floor(i / HOURS_RULES.length) % 8;
  // Variants: the first opening time moved by 0 to 35 minutes (the rules stay valid: no time passes another).
  return shift === 0 ? rule : rule.replace(/(\d\d):00-/, (_, h: string) => `${h}:${String(shift * 5).padStart(2, '0')}-`);
}
const PATH_LEAVES = ['Trails', 'Cycling Routes', 'Street Art', 'Heritage Sites'];
const POLYGON_LEAVES = ['Parks', 'Gardens', 'Beaches', 'Campsites', 'Theme Parks', 'Zoos', 'Golf Courses'];
const REGIONS = ['Portugal', 'Meseta', 'Andalucía', 'Levante', 'Aragón-Catalunya'];
const TYPE_TITLES: Record<(typeof EVENT_TYPES)[number], string> = {
  concert: 'Concert at', festival: 'Festival at', exhibition: 'Exhibition at', sport: 'Race at', food: 'Tasting at',
  family: 'Family day at', theatre: 'Theatre at', market: 'Market at',
};

/** What to generate. */
export interface MakeLargeOptions { events: number; pois: number; seed: number; out: string }

/** The one-line summary printed at the end. */
export interface MakeLargeSummary {
  out: string; events: number; pois: number; markers: number; paths: number; polygons: number; categories: number;
  /** Series, and the occurrences the service expands them into (counted among `events`). */
  series: number; occurrences: number;
  anchors: number; bytes: number; ms: number;
}

/** The slice of a POI the events need. */
interface PoiRef { id: string; name: string; cluster: number } // cluster: index in CITIES, or -1 for rural

/** Buffers strings and writes them in large chunks, waiting for 'drain' when the stream asks for it. */
function openChunkWriter(path: string) {
  const stream = createWriteStream(path);
  let parts: string[] = [];
  let chars = 0;
  let bytes = 0;
  const flush = async () => {
    if (parts.length === 0) return;
    const buf = Buffer.from(parts.join(''), 'utf8');
    parts = [];
    chars = 0;
    bytes += buf.length;
    // Back-pressure: let the file catch up instead of queueing hundreds of megabytes in memory.
    if (!stream.write(buf)) await once(stream, 'drain');
  };
  return {
    /** Appends text; resolves once it is buffered (or flushed, when the buffer is full). */
    async write(s: string): Promise<void> {
      parts.push(s);
      chars += s.length;
      if (chars >= CHUNK_CHARS) await flush();
    },
    /** Flushes, closes the file and returns the bytes written. */
    async end(): Promise<number> {
      await flush();
      stream.end();
      await once(stream, 'finish');
      return bytes;
    },
  };
}

/** A standard normal deviate (Box–Muller). */
function gauss(r: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

/** Rounds a coordinate to 6 decimals (about 10 cm): compact, and exactly what the read model's 7-decimal rounding keeps. */
const r6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Moves a point by kilometres east and north (flat approximation, fine for a few km). */
function offset(lat: number, lng: number, eastKm: number, northKm: number): [number, number] {
  const la = lat + northKm / KM_PER_DEG_LAT;
  const lo = lng + eastKm / (KM_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180));
  return [r6(Math.max(-89.9, Math.min(89.9, la))), r6(Math.max(-179.9, Math.min(179.9, lo)))];
}

/** A POI location: around a city (Gaussian) or anywhere on one of the land boxes. */
function placePoi(r: Rng, cumulative: number[]): { lat: number; lng: number; cluster: number; place: string } {
  const u = r();
  const cluster = cumulative.findIndex((c) => u < c);
  if (cluster >= 0) {
    const city = CITIES[cluster];
    const [lat, lng] = offset(city.lat, city.lng, gauss(r) * city.sigmaKm, gauss(r) * city.sigmaKm);
    return { lat, lng, cluster, place: city.name };
  }
  const b = int(r, 0, LAND_BOXES.length - 1);
  const [w, s, e, n] = LAND_BOXES[b];
  return { lat: r6(s + r() * (n - s)), lng: r6(w + r() * (e - w)), cluster: -1, place: REGIONS[b] };
}

/** A lowercase slug for stable id names. */
const slugify = (s: string): string => s.toLowerCase().normalize('NFD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** The category and tag hierarchy, the icons of its top level, and the leaves POIs are filed under. */
function buildTaxonomy() {
  const icons: Record<string, unknown>[] = [];
  const categories: Record<string, unknown>[] = [];
  const leafId = new Map<string, string>();
  const features: string[] = [];
  TAXONOMY.forEach(([top, kind, children], i) => {
    const topId = largeId(`category:${slugify(top)}`);
    const iconId = largeId(`icon:${slugify(top)}`);
    icons.push({ id: iconId, name: top, url: `https://example.org/icons/${slugify(top)}.svg` });
    categories.push({ id: topId, map_id: MAP_ID, parent_id: null, kind, name: top, icon_id: iconId, sort_order: i });
    children.forEach((child, j) => {
      const id = largeId(`category:${slugify(top)}/${slugify(child)}`);
      categories.push({ id, map_id: MAP_ID, parent_id: topId, kind, name: child, sort_order: j });
      if (kind === 'tag') features.push(id);
      else leafId.set(child, id);
    });
  });
  return { icons, categories, leafId, features };
}

/** Writes the bundle to `o.out`, streaming it in chunks, and returns the summary. */
export async function makeLargeBundle(o: MakeLargeOptions): Promise<MakeLargeSummary> {
  const began = performance.now();
  const r = mulberry32(o.seed);
  const { icons, categories, leafId, features } = buildTaxonomy();
  const allLeaves = [...leafId.keys()];
  let acc = 0;
  const cumulative = CITIES.map((c) => (acc += c.weight));

  // POIs first, as JSON strings per kind (about 25 MB at 100,000); events only need their id, name and cluster.
  const markers: string[] = [];
  const paths: string[] = [];
  const polygons: string[] = [];
  const refs: PoiRef[] = [];
  const byCluster: number[][] = CITIES.map(() => []);
  const rural: number[] = [];
  for (let i = 0; i < o.pois; i++) {
    const u = r();
    const kind = u < 0.9 ? 'marker' : u < 0.96 ? 'path' : 'polygon';
    const at = placePoi(r, cumulative);
    const leaf = pick(r, kind === 'marker' ? allLeaves : kind === 'path' ? PATH_LEAVES : POLYGON_LEAVES);
    const categoryIds = [leafId.get(leaf)!];
    if (r() < 0.3) categoryIds.push(pick(r, features));
    const id = largeId(`poi:${i}`);
    const name = `${leaf} ${at.place} ${i + 1}`;
    const hours = hoursOf(i);
    const common = { id, map_id: MAP_ID, name, category_ids: categoryIds, ...(hours ? { hours } : {}),
      created_at: iso(Date.UTC(2025, 0, 1 + int(r, 0, 364), 9)) };
    if (kind === 'marker') {
      markers.push(JSON.stringify({ ...common, lat: at.lat, lng: at.lng }));
    } else if (kind === 'path') {
      // A walk of 2–8 vertices, 150–600 m apart, turning gently.
      const coordinates: [number, number][] = [[at.lng, at.lat]];
      let bearing = r() * 2 * Math.PI;
      for (let k = int(r, 2, 8); coordinates.length < k;) {
        const [lng, lat] = coordinates[coordinates.length - 1];
        const step = 0.15 + r() * 0.45;
        bearing += (r() - 0.5) * 1.2;
        const [nlat, nlng] = offset(lat, lng, step * Math.sin(bearing), step * Math.cos(bearing));
        coordinates.push([nlng, nlat]);
      }
      paths.push(JSON.stringify({ ...common, geometry: { type: 'LineString', coordinates } }));
    } else {
      // A small closed ring of 4–7 corners, 60–400 m around the point.
      const radiusKm = 0.06 + r() * 0.34;
      const corners = int(r, 4, 7);
      const ring: [number, number][] = [];
      for (let k = 0; k < corners; k++) {
        const angle = ((k + (r() - 0.5) * 0.5) / corners) * 2 * Math.PI;
        const [lat, lng] = offset(at.lat, at.lng, radiusKm * Math.cos(angle), radiusKm * Math.sin(angle));
        ring.push([lng, lat]);
      }
      ring.push(ring[0]);
      polygons.push(JSON.stringify({ ...common, geometry: { type: 'Polygon', coordinates: [ring] } }));
    }
    refs.push({ id, name, cluster: at.cluster });
    (at.cluster >= 0 ? byCluster[at.cluster] : rural).push(i);
  }

  mkdirSync(dirname(o.out), { recursive: true });
  const out = openChunkWriter(o.out);
  const writeArray = async (key: string, items: readonly string[], last = false) => {
    await out.write(`"${key}":[`);
    for (let i = 0; i < items.length; i++) await out.write(i === 0 ? items[i] : `,${items[i]}`);
    await out.write(last ? ']' : '],');
  };
  const publisher = { id: PUBLISHER_ID, name: 'Iberia Tourism (benchmark)', slug: 'iberia-bench' };
  const map = {
    id: MAP_ID, publisher_id: PUBLISHER_ID, name: 'Iberia Events & Places', slug: 'iberia', enabled: true,
    time_zone: 'Europe/Madrid', country: 'ES', created_at: '2025-06-01T00:00:00Z', branding: {}, info: {},
    map_data: { center: { lat: 40.2, lng: -4.2 }, zoom: 6 }, contact: {}, sponsors: [], content_blocks: [],
    versions: [{ id: VERSION_ID, name: '2026', status: 'published', published_at: '2026-01-01T00:00:00Z' }],
    current_version_id: VERSION_ID,
  };
  await out.write(`{"format":${JSON.stringify(BUNDLE_FORMAT)},"generated_at":"2026-11-01T00:00:00Z",`);
  await writeArray('publishers', [JSON.stringify(publisher)]);
  await writeArray('maps', [JSON.stringify(map)]);
  await writeArray('icons', icons.map((x) => JSON.stringify(x)));
  await writeArray('categories', categories.map((x) => JSON.stringify(x)));
  await writeArray('markers', markers);
  await writeArray('paths', paths);
  await writeArray('polygons', polygons);

  // Events are written as they are made: a million of them never sit in memory together. A fifth of them are the
  // occurrences of weekly and twice-weekly series (a market, a tour, a class), made first; the rest are single.
  const days = Math.floor((EVENTS_TO_MS - EVENTS_FROM_MS) / DAY_MS);
  let anchors = 0;
  await out.write('"events":[');
  const seriesMade = await writeSeries(r, refs, Math.round(o.events * SERIES_SHARE), out.write);
  anchors += seriesMade.anchors;
  for (let i = 0; i < o.events - seriesMade.occurrences; i++) {
    const type = pick(r, EVENT_TYPES);
    // A uniformly chosen day, starting on a quarter hour between 07:00 and 20:45 UTC.
    const start = EVENTS_FROM_MS + int(r, 0, days - 1) * DAY_MS + int(r, 7 * 4, 21 * 4 - 1) * QUARTER_MS;
    const d = r();
    const duration = d < 0.6 ? int(r, 1, 4) * HOUR_MS : d < 0.9 ? int(r, 4, 12) * HOUR_MS : int(r, 1, 4) * DAY_MS;
    // 1 anchor mostly, up to 3; the others from the same city (or the countryside), distinct.
    const poiIds: string[] = [];
    let main: PoiRef | null = null;
    if (refs.length > 0) {
      main = refs[int(r, 0, refs.length - 1)];
      poiIds.push(main.id);
      const a = r();
      const want = a < 0.7 ? 1 : a < 0.9 ? 2 : 3;
      const pool = main.cluster >= 0 ? byCluster[main.cluster] : rural;
      for (let tries = 0; poiIds.length < want && tries < 6; tries++) {
        const id = refs[pool[int(r, 0, pool.length - 1)]].id;
        if (!poiIds.includes(id)) poiIds.push(id);
      }
    }
    anchors += poiIds.length;
    // 0–3 tags; a few written capitalised, as publishers do (matching is case-insensitive).
    const tags = pickN(r, EVENT_TAGS, int(r, 0, 3)).map((t) => (r() < 0.05 ? t[0].toUpperCase() + t.slice(1) : t));
    const event = {
      id: largeId(`event:${i}`), map_id: MAP_ID, title: `${TYPE_TITLES[type]} ${main ? main.name : 'Iberia'}`,
      event_type: type, tags, starts_at: iso(start), ends_at: iso(start + duration), poi_ids: poiIds,
      created_at: iso(start - int(r, 10, 120) * DAY_MS),
    };
    await out.write(i === 0 && seriesMade.series === 0 ? JSON.stringify(event) : `,${JSON.stringify(event)}`);
  }
  await out.write('],');
  await writeArray('lists', []);
  await writeArray('associations', []);
  await writeArray('sessions', [], true);
  await out.write('}\n');
  const bytes = await out.end();
  return {
    out: o.out, events: o.events, pois: o.pois, markers: markers.length, paths: paths.length, polygons: polygons.length,
    categories: categories.length, anchors, series: seriesMade.series, occurrences: seriesMade.occurrences, bytes, ms: Math.round(performance.now() - began),
  };
}

/** The share of the events that are occurrences of series. */
const SERIES_SHARE = 0.2;
/** Every series runs to the end of the events' span (RRULE's UNTIL, UTC). */
const SERIES_UNTIL = new Date(EVENTS_TO_MS - 1000).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/**
 * Writes series until their occurrences reach `target` (the last may pass it): two in three weekly, one in three on
 * Tuesdays and Saturdays, each from a day in the span's first eight weeks at a whole hour from 10:00 to 19:00 on the
 * map's clock (Madrid: winter time, UTC+1, in January and February), to the span's end. Answers how many series,
 * occurrences (counted as the service expands them: each a start the rule makes) and anchors it wrote.
 */
async function writeSeries(r: Rng, refs: PoiRef[], target: number, write: (text: string) => Promise<void>) {
  let occurrences = 0;
  let series = 0;
  let anchors = 0;
  const WEEK_MS = 7 * DAY_MS;
  while (occurrences < target && refs.length > 0) {
    const twice = r() < 1 / 3;
    const type = pick(r, EVENT_TYPES);
    const main = refs[int(r, 0, refs.length - 1)];
    // A day in the first eight weeks; a twice-weekly series starts on its first Tuesday or Saturday from there.
    let day = EVENTS_FROM_MS + int(r, 0, 55) * DAY_MS;
    while (twice && ![2, 6].includes(new Date(day).getUTCDay())) day += DAY_MS;
    const start = day + int(r, 9, 18) * HOUR_MS; // 10:00 to 19:00 in Madrid in winter
    const duration = int(r, 1, 3) * HOUR_MS;
    // Occurrences: each week from the start to the span's end, twice for Tuesday and Saturday.
    let count = 0;
    for (let t = start; t < EVENTS_TO_MS; t += twice ? (new Date(t).getUTCDay() === 2 ? 4 : 3) * DAY_MS : WEEK_MS) count++;
    const tags = pickN(r, EVENT_TAGS, int(r, 0, 2));
    const event = {
      id: largeId(`series:${series}`), map_id: MAP_ID, title: `${twice ? 'Twice-weekly' : 'Weekly'} ${TYPE_TITLES[type]} ${main.name}`,
      event_type: type, tags, starts_at: iso(start), ends_at: iso(start + duration), poi_ids: [main.id], created_at: iso(start - 30 * DAY_MS),
      recurrence: { rule: `FREQ=WEEKLY;${twice ? 'BYDAY=TU,SA;' : ''}UNTIL=${SERIES_UNTIL}` },
    };
    await write(series === 0 ? JSON.stringify(event) : `,${JSON.stringify(event)}`);
    series++;
    occurrences += count;
    anchors += count;
  }
  return { series, occurrences, anchors };
}

/** Reads a non-negative integer flag. */
function readCount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new Error(`--${name} must be a non-negative integer, not ${value}`);
  return n;
}

/** Parses the command line into options. */
export function parseMakeLargeArgs(argv: string[]): MakeLargeOptions {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: { events: { type: 'string' }, pois: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } },
  });
  return {
    events: readCount('events', values.events, 1_000_000),
    pois: readCount('pois', values.pois, 100_000),
    seed: readCount('seed', values.seed, 1),
    out: values.out ?? DEFAULT_BUNDLE,
  };
}

if (import.meta.main) {
  try {
    const summary = await makeLargeBundle(parseMakeLargeArgs(process.argv.slice(2)));
    console.log(JSON.stringify(summary));
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    process.exit(1);
  }
}
