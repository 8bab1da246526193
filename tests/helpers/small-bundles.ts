/**
 * Small bundles as a destination writes them, not as the demo or the benchmarks do: one map with one POI, a
 * park with a few long trails and a handful of events, and the complete example of docs/bundle-format.md read
 * from the page itself. Their payloads are small enough to come from a runtime's buffer pool, which large ones
 * never do, so they take paths through publishing that the demo and the fixture do not.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BundleT, EventT, MapT, PathT } from '../../src/content/bundle/bundle-schema.ts';
import { mulberry32, nameUuid } from '../../scripts/demo/ids.ts';

const id = (name: string): string => nameUuid('small-bundles', name);
const CREATED = '2027-01-10T10:00:00Z';

/** A map with every required part and nothing else. */
function bareMap(mapId: string, publisherId: string, name: string, center: { lat: number; lng: number }): MapT {
  const version = id(`${mapId}:version`);
  return {
    id: mapId, publisher_id: publisherId, name, slug: name.toLowerCase().replace(/\W+/g, '-'), enabled: true, time_zone: 'Europe/Lisbon',
    created_at: CREATED, branding: {}, info: {}, map_data: { center, zoom: 13 }, contact: {}, sponsors: [], content_blocks: [],
    versions: [{ id: version, name: '2027', status: 'published' }], current_version_id: version,
  };
}

/** The rest of a bundle, empty. */
function emptyBundle(): BundleT {
  return { format: 'destination-bundle/1', publishers: [], maps: [], icons: [], categories: [], markers: [], paths: [], polygons: [],
    events: [], lists: [], associations: [], sessions: [] };
}

/** The ids the tests of the small bundles ask for. */
export const SMALL = {
  town: { map: id('town:map'), marker: id('town:marker') },
  park: { map: id('park:map'), trail: id('park:trail:0'), polygon: id('park:polygon'), event: id('park:event:0') },
  /** The docs' example: a map, a marker and an event the page shows. */
  docs: { map: '283d3d85-d0e9-543d-b8cd-02bb838aa703', marker: '06a353f1-8320-538f-ac12-696d9dfd7be7', event: 'b236e459-8eb4-5b1f-8684-7536c5a4a7cb' },
};

/** One publisher, one map, one marker: the smallest bundle that serves something. */
export function oneMarkerBundle(name = 'Town hall'): BundleT {
  const publisher = id('town:publisher');
  return { ...emptyBundle(), publishers: [{ id: publisher, name: 'Town office', slug: 'town-office' }],
    maps: [bareMap(SMALL.town.map, publisher, 'Small town', { lat: 39.2369, lng: -8.6850 })],
    markers: [{ id: SMALL.town.marker, map_id: SMALL.town.map, name, category_ids: [], lat: 39.2369, lng: -8.6850, created_at: CREATED }] };
}

/** A trail of `n` vertices wandering from a start, as a GPS track does. */
function track(seed: number, n: number, start: [number, number]): [number, number][] {
  const rand = mulberry32(seed);
  const out: [number, number][] = [];
  let [lng, lat] = start;
  for (let i = 0; i < n; i++) {
    lng += (rand() - 0.45) * 0.0004;
    lat += (rand() - 0.5) * 0.0003;
    out.push([Math.round(lng * 1e7) / 1e7, Math.round(lat * 1e7) / 1e7]);
  }
  return out;
}

/** A park: three trails of 5,000 to 6,000 vertices, a polygon with a hole, a marker, and four events on them. */
export function longTrailsBundle(): BundleT {
  const publisher = id('park:publisher');
  const mapId = SMALL.park.map;
  const category = id('park:category');
  const paths: PathT[] = [0, 1, 2].map((k) => ({
    id: id(`park:trail:${k}`), map_id: mapId, name: `Trail ${k + 1}`, category_ids: [category], difficulty: 'moderate', duration_min: 180 + 30 * k,
    created_at: CREATED, geometry: { type: 'LineString', coordinates: track(k + 1, 5_000 + 500 * k, [-9.42 + 0.01 * k, 38.78]) },
  }));
  const marker = { id: id('park:marker'), map_id: mapId, name: 'Visitor centre', category_ids: [category], lat: 38.7906, lng: -9.3907, created_at: CREATED };
  const events: EventT[] = [0, 1, 2, 3].map((k) => ({
    id: id(`park:event:${k}`), map_id: mapId, title: `Guided walk ${k + 1}`, event_type: 'tour', tags: ['outdoor'],
    starts_at: `2027-0${4 + k}-15T09:00:00+01:00`, ends_at: `2027-0${4 + k}-15T13:00:00+01:00`,
    poi_ids: k === 3 ? [marker.id] : [paths[k].id], created_at: CREATED,
  }));
  return { ...emptyBundle(), publishers: [{ id: publisher, name: 'Park authority', slug: 'park' }],
    maps: [bareMap(mapId, publisher, 'Hill park', { lat: 38.79, lng: -9.39 })],
    categories: [{ id: category, map_id: mapId, parent_id: null, kind: 'category', name: 'Trails', sort_order: 1 }],
    markers: [marker], paths,
    polygons: [{ id: SMALL.park.polygon, map_id: mapId, name: 'Park', category_ids: [category], created_at: CREATED, geometry: { type: 'Polygon', coordinates: [
      [[-9.43, 38.76], [-9.35, 38.76], [-9.35, 38.82], [-9.43, 38.82], [-9.43, 38.76]],
      [[-9.40, 38.78], [-9.40, 38.80], [-9.38, 38.80], [-9.38, 38.78], [-9.40, 38.78]],
    ] } }],
    events };
}

/** The complete example bundle of docs/bundle-format.md, as its text stands on the page. */
export function docsExampleBundle(): BundleT {
  const page = readFileSync(fileURLToPath(new URL('../../docs/bundle-format.md', import.meta.url)), 'utf8');
  for (const m of page.matchAll(/```json\n([\s\S]*?)```/g)) {
    const parsed = JSON.parse(m[1]) as Partial<BundleT>;
    if (parsed.maps && parsed.maps.length > 0) return parsed as BundleT;
  }
  throw new Error('docs/bundle-format.md has no complete example bundle');
}

/** The three small bundles by name, each with a marker or path to ask for and a field to edit. */
export const SMALL_BUNDLES = {
  'one map with one POI': { make: oneMarkerBundle, map: SMALL.town.map, poi: `/markers/${SMALL.town.marker}` },
  'a park with long trails and few events': { make: longTrailsBundle, map: SMALL.park.map, poi: `/paths/${SMALL.park.trail}` },
  'the example of docs/bundle-format.md': { make: docsExampleBundle, map: SMALL.docs.map, poi: `/markers/${SMALL.docs.marker}` },
} as const;

/** The rules of hoursBundle's markers, one marker each, on both its maps. */
export const HOURS_RULES = [
  'Mo-Su 19:30-02:00', // past midnight
  'Tu-Su 10:00-18:00; PH off', // closed Mondays and public holidays
  '24/7',
  'Mo-Fr 09:00-12:00,14:00-17:00',
  'Mo-Su 01:30-02:30', // in the spring gap and the autumn overlap of both zones
  'sunrise-sunset',
  'Mo 10:00-12:00 "by appointment"', // unknown: never open
  'Mo-Su 10:00-20:00; Dec 25 off; Jan 01 13:00-20:00',
  'Sa,Su 00:00-24:00; PH 08:00-12:00',
];

/**
 * Two maps of places with opening hours: Lisbon (PT holidays) and New York (US holidays), each a marker per rule of
 * HOURS_RULES, a park polygon with hours, a trail without, and one category holding them all.
 */
export function hoursBundle(): BundleT {
  const publisher = id('hours:publisher');
  const b: BundleT = { ...emptyBundle(), publishers: [{ id: publisher, name: 'Hours office', slug: 'hours-office' }] };
  for (const [key, zone, country, center] of [['lisbon', 'Europe/Lisbon', 'PT', { lat: 38.7223, lng: -9.1393 }],
    ['newyork', 'America/New_York', 'us', { lat: 40.7128, lng: -74.006 }]] as const) {
    const mapId = id(`hours:${key}:map`);
    b.maps.push({ ...bareMap(mapId, publisher, `Hours ${key}`, center), time_zone: zone, country });
    const category = id(`hours:${key}:category`);
    b.categories.push({ id: category, map_id: mapId, parent_id: null, kind: 'category', name: 'Places', sort_order: 1 });
    HOURS_RULES.forEach((hours, i) => b.markers.push({ id: id(`hours:${key}:marker:${i}`), map_id: mapId, name: `Place ${i}`, category_ids: [category],
      lat: center.lat + i * 0.001, lng: center.lng, hours, opening_hours: `As OSM: ${hours}`, created_at: CREATED }));
    const ring: [number, number][] = [[center.lng, center.lat], [center.lng + 0.01, center.lat], [center.lng + 0.01, center.lat + 0.01], [center.lng, center.lat]];
    b.polygons.push({ id: id(`hours:${key}:park`), map_id: mapId, name: 'Park', category_ids: [category], hours: 'Mo-Su 07:00-21:00',
      geometry: { type: 'Polygon', coordinates: [ring] }, created_at: CREATED });
    b.paths.push({ id: id(`hours:${key}:trail`), map_id: mapId, name: 'Trail', category_ids: [category],
      geometry: { type: 'LineString', coordinates: [[center.lng, center.lat], [center.lng + 0.01, center.lat + 0.01]] }, created_at: CREATED });
  }
  return b;
}

/** hoursBundle's ids. */
export const HOURS = {
  map: (key: 'lisbon' | 'newyork') => id(`hours:${key}:map`),
  category: (key: 'lisbon' | 'newyork') => id(`hours:${key}:category`),
  marker: (key: 'lisbon' | 'newyork', i: number) => id(`hours:${key}:marker:${i}`),
  park: (key: 'lisbon' | 'newyork') => id(`hours:${key}:park`),
  trail: (key: 'lisbon' | 'newyork') => id(`hours:${key}:trail`),
};

/**
 * A map for vector tiles: 2,400 markers in dense knots (an old town), scattered over the world, on both sides of the
 * antimeridian and at the poles; three top-level categories (one with a colour and a Maki icon, one with a child
 * category, one without anything), a tag, markers with an icon of their own and without any category; paths (one
 * across the antimeridian) and polygons; in English and Portuguese, with a publisher whose name has markup in it. A
 * second map, disabled.
 */
export function tilesBundle(): BundleT {
  const rand = mulberry32(35);
  const publisher = id('tiles:publisher');
  const mapId = TILES.map;
  const b: BundleT = { ...emptyBundle(), publishers: [{ id: publisher, name: { en: 'Tiles <office> & co', pt: 'Escritório <de> mapas' }, slug: 'tiles-office' }] };
  b.maps.push({ ...bareMap(mapId, publisher, 'Tiles', { lat: 38.71, lng: -9.14 }), languages: ['en', 'pt'] });
  b.maps.push({ ...bareMap(TILES.disabled, publisher, 'Tiles off', { lat: 38.71, lng: -9.14 }), enabled: false });
  b.icons.push({ id: TILES.museumIcon, name: 'Museum', url: 'https://example.org/museum.svg', maki: 'museum' },
    { id: TILES.cafeIcon, name: 'Café', url: 'https://example.org/cafe.svg', maki: 'cafe' },
    { id: id('tiles:icon:plain'), name: 'Plain', url: 'https://example.org/plain.svg' });
  const cat = (key: string, parent: string | null, extra: Record<string, unknown> = {}, kind: 'category' | 'tag' = 'category', order = 1) =>
    b.categories.push({ id: TILES.category(key), map_id: mapId, parent_id: parent, kind, name: { en: `Cat ${key}`, pt: `Cat ${key} pt` }, sort_order: order, ...extra });
  cat('sights', null, { color: '#aa3300', icon_id: TILES.museumIcon }, 'category', 1);
  cat('food', null, {}, 'category', 2);
  cat('bakeries', TILES.category('food'), {}, 'category', 1);
  cat('parks', null, {}, 'category', 3);
  cat('free', null, {}, 'tag', 4);
  const choices: string[][] = [[TILES.category('sights')], [TILES.category('bakeries')], [TILES.category('food'), TILES.category('free')],
    [TILES.category('free'), TILES.category('parks')], [TILES.category('parks')], []];
  const knots = [[-9.14, 38.71, 0.01], [-9.2, 38.7, 0.002], [139.7, 35.68, 0.05], [-73.98, 40.75, 0.02]] as const;
  const points: [number, number][] = [];
  for (let i = 0; i < 1_600; i++) {
    const [lng, lat, r] = knots[i % knots.length];
    points.push([lng + (rand() - 0.5) * r, lat + (rand() - 0.5) * r]);
  }
  for (let i = 0; i < 760; i++) points.push([(rand() - 0.5) * 360, (rand() - 0.5) * 170]);
  // Either side of the antimeridian, a few metres from it, and at both poles.
  for (let i = 0; i < 20; i++) points.push([i % 2 ? 179.99995 - rand() * 0.0005 : -179.99995 + rand() * 0.0005, -16.5 + rand() * 0.002]);
  points.push([0, 89.99], [0, -89.99], [166.67, -77.85], [-179.99999, 0], [179.99999, 0]);
  points.forEach(([lng, lat], i) => {
    const categories = choices[i % choices.length];
    b.markers.push({ id: id(`tiles:marker:${i}`), map_id: mapId, name: { en: `Marker ${i}`, pt: `Marcador ${i}` }, category_ids: categories,
      lat: Math.round(lat * 1e7) / 1e7, lng: Math.round(lng * 1e7) / 1e7, created_at: CREATED, ...(i % 7 === 3 ? { icon_id: TILES.cafeIcon } : {}) });
  });
  b.paths.push({ id: TILES.path, map_id: mapId, name: { en: 'River walk', pt: 'Passeio do rio' }, category_ids: [TILES.category('parks')],
    geometry: { type: 'LineString', coordinates: track(9, 400, [-9.16, 38.705]) }, created_at: CREATED });
  // A path across the date line, written as the bundle format asks: two POIs cut at 180°, one each side.
  b.paths.push({ id: TILES.dateLinePath, map_id: mapId, name: 'Across the date line (west part)', category_ids: [],
    geometry: { type: 'LineString', coordinates: [[179.5, -16.6], [179.9, -16.55], [180, -16.5333333]] }, created_at: CREATED });
  b.paths.push({ id: TILES.dateLinePathEast, map_id: mapId, name: 'Across the date line (east part)', category_ids: [],
    geometry: { type: 'LineString', coordinates: [[-180, -16.5333333], [-179.8, -16.5]] }, created_at: CREATED });
  // A map that declares bounds one of its markers lies outside of, and one whose bounds cross the antimeridian.
  b.maps.push({ ...bareMap(TILES.bounded, publisher, 'Tiles bounded', { lat: 38.72, lng: -9.15 }),
    map_data: { center: { lat: 38.72, lng: -9.15 }, zoom: 13.4, bounds: [-9.2, 38.7, -9.1, 38.75] } });
  b.markers.push({ id: id('tiles:bounded:inside'), map_id: TILES.bounded, name: 'Inside', category_ids: [], lat: 38.71, lng: -9.14, created_at: CREATED },
    { id: id('tiles:bounded:outside'), map_id: TILES.bounded, name: 'Outside', category_ids: [], lat: 38.7975, lng: -9.39, created_at: CREATED });
  b.maps.push({ ...bareMap(TILES.acrossDateLine, publisher, 'Tiles Fiji', { lat: -17, lng: 179 }),
    map_data: { center: { lat: -17, lng: 179 }, zoom: 22, bounds: [178, -19, -178, -15] } });
  b.markers.push({ id: id('tiles:fiji:west'), map_id: TILES.acrossDateLine, name: 'West', category_ids: [], lat: -17, lng: 179, created_at: CREATED },
    { id: id('tiles:fiji:east'), map_id: TILES.acrossDateLine, name: 'East', category_ids: [], lat: -16.5, lng: -179.5, created_at: CREATED });
  b.polygons.push({ id: TILES.polygon, map_id: mapId, name: 'Garden', category_ids: [TILES.category('sights')], created_at: CREATED,
    geometry: { type: 'Polygon', coordinates: [[[-9.15, 38.715], [-9.145, 38.715], [-9.145, 38.72], [-9.15, 38.72], [-9.15, 38.715]]] } });
  return b;
}

/** tilesBundle's ids. */
export const TILES = {
  map: id('tiles:map'),
  disabled: id('tiles:map:off'),
  museumIcon: id('tiles:icon:museum'),
  cafeIcon: id('tiles:icon:cafe'),
  category: (key: string) => id(`tiles:category:${key}`),
  path: id('tiles:path'),
  dateLinePath: id('tiles:path:dateline'),
  dateLinePathEast: id('tiles:path:dateline:east'),
  bounded: id('tiles:map:bounded'),
  acrossDateLine: id('tiles:map:fiji'),
  polygon: id('tiles:polygon'),
};
