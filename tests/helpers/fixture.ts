/**
 * A synthetic bundle from a fixed seed, with the edges the demo lacks: a map straddling the
 * antimeridian, points near the poles, exactly-on-boundary points, draft-only content, a disabled map
 * with content of its own, clockwise polygon input, events with no anchors.
 */
import { createHash } from 'node:crypto';
import { mulberry32, nameUuid } from '../../scripts/demo/ids.ts';
import type {
  AssociationT, BundleT, CategoryT, EventT, ListT, MapT, MarkerT, PathT, PolygonT,
} from '../../src/content/bundle/bundle-schema.ts';

export { mulberry32 };

/** A stable UUID (v5 layout) from a name, in the fixture's own name space. */
export const uuidFor = (name: string): string => nameUuid('fixture', name);

/** The ids tests refer to. */
export const F = {
  publisher: uuidFor('publisher:a'),
  publisherB: uuidFor('publisher:b'),
  map: uuidFor('map:main'),
  pacific: uuidFor('map:pacific'),
  disabled: uuidFor('map:disabled'),
  v1: uuidFor('version:main:1'),
  v2: uuidFor('version:main:2'),
  draft: uuidFor('version:main:draft'),
  pacificV: uuidFor('version:pacific:1'),
  disabledV: uuidFor('version:disabled:1'),
  draftMarker: uuidFor('marker:draft-only'),
  draftCategory: uuidFor('category:draft-only'),
  v1OnlyMarker: uuidFor('marker:v1-only'),
  disabledMarker: uuidFor('marker:disabled'),
  disabledEvent: uuidFor('event:disabled'),
  disabledList: uuidFor('list:disabled'),
  verifiedList: uuidFor('list:verified'),
  unverifiedList: uuidFor('list:unverified'),
  holePolygon: uuidFor('polygon:hole'),
  sessionToken: 'fixture-session-token',
  expiredToken: 'fixture-expired-token',
  account: uuidFor('account:a'),
  savedEvent: uuidFor('event:main:0'),
  /** A fixed "now" inside the event range. */
  now: new Date('2027-03-01T12:00:00Z'),
};

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const iso = (ms: number) => new Date(ms).toISOString();
const T0 = Date.parse('2026-11-01T00:00:00Z');
const T1 = Date.parse('2028-12-31T00:00:00Z');

/** The bundle as JSON text with every id (any string that is a whole UUID) in upper case. */
export function upperCaseIds(bundle: unknown): string {
  const whole = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  return JSON.stringify(bundle, (_key, value) => (typeof value === 'string' && whole.test(value) ? value.toUpperCase() : value));
}

/** Builds the fixture bundle. `events` sets how many events the main map gets. */
export function makeFixture(options: { seed?: number; events?: number } = {}): BundleT {
  const rand = mulberry32(options.seed ?? 42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const between = (a: number, b: number) => a + rand() * (b - a);
  const created = iso(T0 - 86_400_000);

  const mapDoc = (id: string, name: string, enabled: boolean, versions: MapT['versions'], current: string,
    center: { lat: number; lng: number }, tz: string): MapT => ({
    id, publisher_id: id === F.pacific ? F.publisherB : F.publisher, name, slug: name.toLowerCase().replace(/\W+/g, '-'),
    enabled, time_zone: tz, description: `${name} description`, created_at: created,
    branding: { logo_url: `https://img.example.org/${id}.png`, primary_color: '#112233', accent_color: '#445566' },
    info: { summary: `${name} summary`, languages: ['en'] }, map_data: { center, zoom: 12 },
    contact: { email: 'hello@example.org' }, sponsors: [{ name: 'Sponsor', tier: 'gold' }],
    content_blocks: [
      { id: uuidFor(`block:${id}:2`), kind: 'text', title: 'Second', sort_order: 2 },
      { id: uuidFor(`block:${id}:1`), kind: 'notice', title: 'First', sort_order: 1 },
    ],
    versions, current_version_id: current,
  });
  const maps: MapT[] = [
    mapDoc(F.map, 'Main', true, [
      { id: F.v1, name: 'v1', status: 'published', published_at: created },
      { id: F.v2, name: 'v2', status: 'published', published_at: created },
      { id: F.draft, name: 'draft', status: 'draft' },
    ], F.v2, { lat: 38.72, lng: -9.14 }, 'Europe/Lisbon'),
    mapDoc(F.pacific, 'Pacific', true, [{ id: F.pacificV, name: 'v1', status: 'published' }], F.pacificV,
      { lat: -17.7, lng: 179.9 }, 'Pacific/Fiji'),
    mapDoc(F.disabled, 'Disabled', false, [{ id: F.disabledV, name: 'v1', status: 'published' }], F.disabledV,
      { lat: 38.8, lng: -9.4 }, 'Europe/Lisbon'),
  ];

  // Categories of the main map: 3 roots, children, grandchild tags; one v2-only, one draft-only.
  const categories: CategoryT[] = [];
  const cat = (key: string, map: string, parent: string | null, kind: 'category' | 'tag', name: string, sort: number,
    version_ids?: string[]) => {
    const c: CategoryT = { id: uuidFor(`category:${key}`), map_id: map, parent_id: parent, kind, name, sort_order: sort, version_ids };
    categories.push(c);
    return c.id;
  };
  const roots = ['Zebra Sights', 'apple Food', 'Museums'].map((n, i) => cat(`root${i}`, F.map, null, 'category', n, 3 - i));
  const leaves: string[] = [];
  roots.forEach((r, i) => {
    for (let j = 0; j < 3; j++) {
      const child = cat(`child${i}-${j}`, F.map, r, 'category', `Child ${i}.${j}`, j);
      leaves.push(cat(`tag${i}-${j}`, F.map, child, 'tag', `Tag ${i}.${j}`, 0));
      leaves.push(child);
    }
  });
  const v2OnlyCategory = cat('v2-only', F.map, null, 'category', 'New in v2', 9, [F.v2]);
  categories.push({ id: F.draftCategory, map_id: F.map, parent_id: null, kind: 'category', name: 'Draft category', sort_order: 0, version_ids: [F.draft] });
  const pacificCat = cat('pacific', F.pacific, null, 'category', 'Islands', 0);
  const disabledCat = cat('disabled', F.disabled, null, 'category', 'Hidden', 0);

  const markers: MarkerT[] = [];
  const marker = (key: string, map: string, lat: number, lng: number, cats: string[], version_ids?: string[], name?: string) => {
    const m: MarkerT = {
      id: key.startsWith('raw:') ? key.slice(4) : uuidFor(`marker:${key}`), map_id: map, name: name ?? `Marker ${key}`,
      lat, lng, category_ids: cats, version_ids, created_at: created, external_id: markers.length % 5 === 0 ? `crm-${markers.length}` : undefined,
    };
    markers.push(m);
    return m.id;
  };
  const mainMarkers: string[] = [];
  for (let i = 0; i < 60; i++) {
    const versions = i < 5 ? [F.v2] : i < 8 ? [F.v1] : undefined;
    const cats = [pick(leaves), ...(i % 3 === 0 ? [pick(leaves)] : [])];
    if (i < 5) cats.push(v2OnlyCategory);
    mainMarkers.push(marker(`main${i}`, F.map, between(38.6, 38.85), between(-9.3, -9.0), cats, versions,
      `${pick(['Café', 'museu', 'Ábside', 'zoo', 'Park'])} ${i}`));
  }
  marker(`raw:${F.v1OnlyMarker}`, F.map, 38.7, -9.1, [leaves[0]], [F.v1], 'V1 only');
  marker(`raw:${F.draftMarker}`, F.map, 38.71, -9.11, [F.draftCategory], [F.draft], 'Draft only');
  // Edge points: exactly on round coordinates (bbox boundaries in tests), near the poles.
  const edgeMarkers = [marker('edge-round', F.map, 38.75, -9.2, [leaves[1]]), marker('edge-north', F.map, 89.99, 10, [leaves[1]]),
    marker('edge-south', F.map, -89.99, -170, [leaves[1]])];
  const pacificMarkers: string[] = [];
  for (let i = 0; i < 25; i++) {
    const lng = i % 2 === 0 ? between(178.5, 180) : between(-180, -178.5);
    pacificMarkers.push(marker(`pac${i}`, F.pacific, between(-18.5, -16.5), i === 0 ? 180 : i === 1 ? -180 : lng, [pacificCat]));
  }
  const disabledMarker = marker(`raw:${F.disabledMarker}`, F.disabled, 38.8, -9.4, [disabledCat], undefined, 'Hidden marker');

  const paths: PathT[] = [];
  for (let i = 0; i < 5; i++) {
    const lat = between(38.65, 38.8);
    const lng = between(-9.25, -9.05);
    paths.push({
      id: uuidFor(`path:${i}`), map_id: F.map, name: `Path ${i}`, category_ids: [pick(leaves)], created_at: created,
      version_ids: i === 4 ? [F.v1] : undefined, difficulty: 'easy',
      geometry: { type: 'LineString', coordinates: Array.from({ length: 6 }, (_, k) => [lng + k * 0.004, lat + Math.sin(k) * 0.003] as [number, number]) },
    });
  }
  paths.push({
    id: uuidFor('path:pacific'), map_id: F.pacific, name: 'Dateline walk', category_ids: [pacificCat], created_at: created,
    geometry: { type: 'LineString', coordinates: [[179.8, -17.5], [179.95, -17.5], [-179.95, -17.5], [-179.8, -17.5]] },
  });
  const polygons: PolygonT[] = [];
  for (let i = 0; i < 5; i++) {
    const lat = between(38.65, 38.8);
    const lng = between(-9.25, -9.05);
    const d = 0.01;
    // Clockwise input on purpose: the read model must rewind it to counter-clockwise.
    polygons.push({
      id: i === 0 ? F.holePolygon : uuidFor(`polygon:${i}`), map_id: F.map, name: `Polygon ${i}`, category_ids: [pick(leaves)], created_at: created,
      geometry: { type: 'Polygon', coordinates: [
        [[lng, lat], [lng, lat + d], [lng + d, lat + d], [lng + d, lat], [lng, lat]],
        ...(i === 0 ? [[[lng + 0.003, lat + 0.003], [lng + 0.006, lat + 0.003], [lng + 0.006, lat + 0.006], [lng + 0.003, lat + 0.006], [lng + 0.003, lat + 0.003]] as [number, number][]] : []),
      ] },
    });
  }
  const mainPois = [...mainMarkers, ...edgeMarkers, ...paths.filter((p) => p.map_id === F.map).map((p) => p.id), ...polygons.map((p) => p.id)];
  const pacificPois = [...pacificMarkers, uuidFor('path:pacific')];

  const types = ['concert', 'market', 'festival', 'tour', 'sport'];
  const tags = ['Free', 'outdoor', 'family', 'night', 'art'];
  const events: EventT[] = [];
  const event = (key: string, map: string, pool: string[], count: number) => {
    const start = Math.floor(between(T0, T1) / 60_000) * 60_000;
    // Some starts collide on purpose, so the id tie-break of the keyset order is exercised.
    const startMs = rand() < 0.1 && events.length > 0 ? Date.parse(events[events.length - 1].starts_at) : start;
    const duration = pick([0, 3_600_000, 7_200_000, 86_400_000, 7 * 86_400_000, 60 * 86_400_000]);
    const anchors = new Set<string>();
    const n = rand() < 0.08 ? 0 : 1 + Math.floor(rand() * count);
    for (let k = 0; k < n; k++) anchors.add(pick(pool));
    events.push({
      id: uuidFor(`event:${key}`), map_id: map, title: `Event ${key}`, event_type: pick(types),
      tags: [...new Set([pick(tags), ...(rand() < 0.5 ? [pick(tags)] : [])])], starts_at: iso(startMs), ends_at: iso(startMs + duration),
      poi_ids: [...anchors], created_at: created, ...statusOf(events.length, startMs),
    });
  };
  // Some events cancelled, postponed or rescheduled, chosen by their place (not by the random draws, which would
  // make every other record of the fixture another one).
  const statusOf = (n: number, startMs: number): Partial<EventT> => n % 11 === 5 ? { status: 'cancelled' }
    : n % 23 === 7 ? { status: 'postponed', previous_start: iso(startMs - 86_400_000) }
    : n % 29 === 3 ? { status: 'rescheduled', previous_start: iso(startMs - 7 * 86_400_000) } : {};
  for (let i = 0; i < (options.events ?? 500); i++) event(`main:${i}`, F.map, mainPois, 3);
  for (let i = 0; i < 120; i++) event(`pacific:${i}`, F.pacific, pacificPois, 2);
  events.push({ id: uuidFor('event:draft-anchor'), map_id: F.map, title: 'Anchored to a draft POI', event_type: 'tour', tags: [],
    starts_at: iso(F.now.getTime()), ends_at: iso(F.now.getTime() + 3_600_000), poi_ids: [F.draftMarker], created_at: created });
  events.push({ id: F.disabledEvent, map_id: F.disabled, title: 'Hidden event', event_type: 'market', tags: ['free'],
    starts_at: iso(F.now.getTime()), ends_at: iso(F.now.getTime() + 3_600_000), poi_ids: [disabledMarker], created_at: created });

  const lists: ListT[] = [
    { id: F.verifiedList, map_id: F.map, name: 'Verified', verified: true, created_at: created,
      items: [...mainMarkers.slice(10, 15), F.draftMarker].map((poi_id) => ({ poi_id, note: 'nice' })) },
    { id: F.unverifiedList, map_id: F.map, name: 'Unverified', verified: false, created_at: created, items: [{ poi_id: mainMarkers[20] }] },
    ...Array.from({ length: 7 }, (_, i): ListT => ({ id: uuidFor(`list:extra${i}`), map_id: F.map, name: `List ${String.fromCharCode(72 - i)}`,
      verified: true, created_at: created, items: [{ poi_id: mainMarkers[i] }] })),
    { id: F.disabledList, map_id: F.disabled, name: 'Hidden list', verified: true, created_at: created, items: [{ poi_id: disabledMarker }] },
  ];

  const associations: AssociationT[] = [];
  const assoc = (key: string, from: string, to: string, mutual: boolean, list: string | null, sort: number, at = created) =>
    associations.push({ id: uuidFor(`assoc:${key}`), poi_id: from, associated_poi_id: to, mutual, list_id: list, sort_order: sort, created_at: at, label: key });
  const [a, b, c, d, e] = mainMarkers;
  assoc('a-b', a, b, true, null, 2);
  assoc('a-c', a, c, false, null, 1, iso(T0));
  assoc('a-d', a, d, false, null, 1, iso(T0 - 1000)); // same sort_order as a-c, created earlier: comes first
  assoc('a-e-list', a, e, false, F.verifiedList, 0);
  assoc('a-x-unverified', a, mainMarkers[20], true, F.unverifiedList, 0);
  assoc('c-a-mutual', c, a, true, null, 5);
  assoc('d-a-oneway', d, a, false, null, 0);
  assoc('a-draft', a, F.draftMarker, true, null, 0);
  assoc('hidden', disabledMarker, disabledMarker === a ? b : disabledMarker, false, null, 0);
  associations.pop(); // self-association is invalid; keep only valid data in the fixture
  for (let i = 0; i < 40; i++) assoc(`r${i}`, pick(mainPois), pick(mainPois), rand() < 0.5, rand() < 0.2 ? F.verifiedList : null, Math.floor(rand() * 3));
  const valid = associations.filter((x) => x.poi_id !== x.associated_poi_id);

  return {
    format: 'destination-bundle/1',
    publishers: [
      { id: F.publisher, name: 'Publisher A', slug: 'a', location: { lat: 38.7, lng: -9.1 } },
      { id: F.publisherB, name: 'Publisher B', slug: 'b' },
    ],
    maps,
    icons: [{ id: uuidFor('icon:1'), name: 'pin', url: 'https://icons.example.org/pin.svg' }],
    categories, markers, paths, polygons, events, lists, associations: valid,
    sessions: [
      { token_sha256: sha256(F.sessionToken), account_id: F.account, expires_at: '2099-01-01T00:00:00Z', saved_event_ids: [F.savedEvent] },
      { token_sha256: sha256(F.expiredToken), account_id: uuidFor('account:b'), expires_at: '2025-01-01T00:00:00Z', saved_event_ids: [] },
    ],
  };
}
