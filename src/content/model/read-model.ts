/**
 * The read model: everything the routes serve, built once per content version from PGlite rows.
 *
 * Visibility is decided here, once, so no route can leak what the model never indexed:
 * - a disabled map keeps only its identity and branding (`disabledMaps`); none of its content is indexed;
 * - only verified lists are indexed, and list-scoped associations only through a verified list;
 * - only published versions are indexed; an item that lives only in drafts is invisible everywhere,
 *   and draft version ids never appear in any record.
 */
import { RecordChanges } from './record-changes.ts';
import { type Geometry, rewindPolygon, roundPosition, round7, representativePoint, geometryVertices } from '../../geo/geojson.ts';
import { EventIndex, type IndexParts } from './event-index.ts';
import { EventTable, EventTableBuilder } from './event-table.ts';
import { KEPT_ENTRIES, parsedRows, PoiStore, type PoiEntry, type PoiFacts, type PoiRecord, type PoiRow, type PoiRows, type PoiSummary, type PoiType } from './poi-store.ts';
import { runNow, sortSteps, STRIDE, type Steps } from '../../utils/steps.ts';
import { toUtc } from '../rfc3339.ts';
import type { VersionWarnings } from '../bundle/findings.ts';
import { canonicalTag, LocalText, localText, type Languages } from './local-text.ts';
import type {
  AssociationT, CategoryT, EventT, IconT, ListT, MapT, MarkerT, PathT, PolygonT, PublisherT,
} from '../bundle/bundle-schema.ts';

export type { PoiEntry, PoiRecord, PoiSummary, PoiType } from './poi-store.ts';

/** A category or tag record as served. */
export interface CategoryRecord {
  id: string;
  map_id: string;
  parent_id: string | null;
  kind: 'category' | 'tag';
  name: LocalText;
  icon_id: string | null;
  color: string | null;
  sort_order: number;
  version_ids: readonly string[];
}

/** The version's top-level category above the first category (not tag) of `ids`, if any. */
export function topCategoryOf(categories: ReadonlyMap<string, CategoryRecord>, ids: readonly string[]): CategoryRecord | undefined {
  let at = ids.map((id) => categories.get(id)).find((c) => c?.kind === 'category');
  for (let depth = 0; at?.parent_id && depth < 1000; depth++) at = categories.get(at.parent_id);
  return at;
}

/** What one published version of a map contains. */
export interface VersionContent {
  id: string;
  /** Every POI of the version (numbers in the model's PoiStore), by name then id (`compareByName`). */
  pois: Int32Array;
  categories: CategoryRecord[]; // flat, in custom order (sort_order, then name)
  categoryIds: Set<string>;
  children: Map<string | null, CategoryRecord[]>; // parent id (null = top level) -> children, custom order
  subtreePois: Map<string, Int32Array>; // category id -> POIs assigned to it or any descendant, each once, in `pois` order
}

/** A map's record with its texts in every language (LocalText). */
export type MapDoc = Omit<MapT, 'name' | 'description' | 'info'> & {
  name: LocalText;
  description?: LocalText;
  info: Omit<MapT['info'], 'summary' | 'opening_season'> & { summary?: LocalText; opening_season?: LocalText };
};

/** Everything served for one enabled map. */
export interface MapView {
  id: string;
  doc: MapDoc;
  /** The languages the map offers, its default first. */
  languages: Languages;
  publisherId: string;
  currentVersionId: string;
  versionDocs: Map<string, MapT['versions'][number]>; // published versions
  versions: Map<string, VersionContent>;
  contentBlocks: Record<string, unknown>[]; // in sort order, unset fields null
  sponsors: Record<string, unknown>[];
  lists: ListEntry[]; // verified, in name order
  categoryPoiOrder: Map<string, string[]>; // category id -> its curated POI order
  events: EventTable; // by starts_at, then id
  eventIndex: EventIndex; // where `events` are
  matchCache: Map<string, Int32Array>; // filter key -> matching positions in `events`
  /** The map's recurring series by id (their occurrences are in `events`: `events.occurrencesOf`). */
  series: Map<string, SeriesDoc>;
}

/** A verified list. */
export interface ListEntry { summary: Record<string, unknown>; items: Record<string, unknown>[] }

/** An association as served. */
export interface AssociationRecord {
  id: string;
  poi_id: string;
  associated_poi_id: string;
  associated_poi: PoiSummary;
  mutual: boolean;
  list_id: string | null;
  label: LocalText | null;
  sort_order: number;
  created_at: string;
  direction: 'forward' | 'reverse';
}

/** The limited identity and branding a disabled map still shows. */
export interface DisabledMap { id: string; publisher_id: string; name: LocalText; slug: string; branding: MapT['branding'] }

/** The whole read model of one content version. */
export interface ReadModel {
  /** The SHA-256 of the published bundle: the content's identity in ETags, the same on every replica. */
  checksum: string;
  /** The store's content version number (0 until the store has assigned one). */
  version: number;
  /** When the version was published (RFC 3339), '' until the store has assigned one. */
  publishedAt: string;
  /** What check found in the version's bundle; null when not known (a version published before they were kept). */
  warnings: VersionWarnings | null;
  /**
   * When each event and POI last changed (the store's change tracking), set when the version is made current, which is after
   * its model is built (src/content/journey.ts); until then, and without a store, every one changed when published.
   */
  changes: RecordChanges;
  publishers: Map<string, Record<string, unknown>>;
  maps: Map<string, MapView>;
  disabledMaps: Map<string, DisabledMap>;
  /** Every public POI; its record made when asked for (poi-store.ts). */
  pois: PoiStore;
  icons: Record<string, unknown>[];
  lists: Map<string, { mapId: string; entry: ListEntry }>;
  associationsFrom: Map<string, AssociationRecord[]>; // POI id -> associations where it is the source
  associationsTo: Map<string, AssociationRecord[]>; // POI id -> mutual associations where it is the target (seen from it)
  /** The languages of every map, enabled or not, by map id. */
  languages: Map<string, Languages>;
  /**
   * What answers not about one map (publishers, icons, batches across maps) are negotiated against: every
   * language of the enabled maps, and as default the default language most of them have.
   */
  contentLanguages: Languages;
}

/** The default language of a map that declares none. */
export const DEFAULT_LANGUAGE = 'en';

/**
 * The languages a map offers: its default first (`default_language`, else the first of `languages`, else "en"),
 * then `languages` in declared order.
 */
export function mapLanguages(m: Pick<MapT, 'default_language' | 'languages'>): Languages {
  const def = canonicalTag(m.default_language ?? m.languages?.[0] ?? DEFAULT_LANGUAGE) ?? DEFAULT_LANGUAGE;
  const offered = [def];
  for (const tag of m.languages ?? []) {
    const t = canonicalTag(tag);
    if (t && !offered.includes(t)) offered.push(t);
  }
  return { default: def, offered };
}

/**
 * The languages an answer about several maps is negotiated against: those every one of them offers, so nothing
 * in it falls back to another language, with the default most of them have (if they share it); when they share
 * none, every language of any of them (`contentLanguages`).
 */
export function sharedLanguages(maps: readonly Languages[]): Languages {
  const shared = maps.length === 0 ? [] : maps[0].offered.filter((tag) => maps.every((m) => m.offered.includes(tag)));
  if (shared.length === 0) return contentLanguages(maps);
  const { default: common } = contentLanguages(maps);
  const def = shared.includes(common) ? common : shared[0];
  return { default: def, offered: [def, ...shared.filter((t) => t !== def)] };
}

/** The languages of the whole content: the union of the maps', the most common default first (ties: first seen). */
export function contentLanguages(maps: readonly Languages[]): Languages {
  if (maps.length === 0) return { default: DEFAULT_LANGUAGE, offered: [DEFAULT_LANGUAGE] };
  const votes = new Map<string, number>();
  for (const m of maps) votes.set(m.default, (votes.get(m.default) ?? 0) + 1);
  let def = maps[0].default;
  for (const [tag, n] of votes) if (n > votes.get(def)!) def = tag;
  const offered = [def];
  for (const m of maps) for (const t of m.offered) if (!offered.includes(t)) offered.push(t);
  return { default: def, offered };
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** Orders by name (case- and accent-insensitive), then id: the documented order of POI and list windows. */
export function compareByName(a: { name: unknown; id: string }, b: { name: unknown; id: string }): number {
  return compareNames(String(a.name), a.id, String(b.name), b.id);
}

/** `compareByName` of two names and ids. */
function compareNames(nameA: string, idA: string, nameB: string, idB: string): number {
  return collator.compare(nameA, nameB) || (idA < idB ? -1 : idA > idB ? 1 : 0);
}

/** Custom order: sort_order, then name, then id. */
export function compareCustom(a: CategoryRecord, b: CategoryRecord): number {
  return a.sort_order - b.sort_order || compareByName(a, b);
}

const orNull = <T>(x: T | undefined | null): T | null => (x === undefined ? null : x);

/** The records a read model is built from: a validated bundle's, with each item's versions resolved. */
export interface ContentDocs {
  checksum: string;
  publishers: PublisherT[];
  maps: MapT[];
  icons: IconT[];
  categories: CategoryT[];
  pois: PoiRow[];
  itemVersions: { item_id: string; version_id: string }[];
  events: EventT[];
  lists: ListT[];
  associations: AssociationT[];
  /** The recurring series as the bundle gives them (their occurrences are among `events`), and when their horizons count from. */
  series: SeriesDoc[];
}

/** A recurring series as kept: the bundle's record, and the time its horizon counts from (src/content/series.ts). */
export interface SeriesDoc { doc: EventT; expanded_from: string }

/** What a read model is built from: ContentDocs, whose POI rows may each be parsed only when asked for (a payload's). */
export type ModelDocs = Omit<ContentDocs, 'pois'> & { pois: readonly PoiRow[] | PoiRows };

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const NO_EVENTS = EventTable.build('', 'UTC', [], () => 'marker');
const NO_PLACES = EventIndex.build(NO_EVENTS, () => []);

/** Event table builders for every enabled map: `add` takes an event record (other maps' are left out), `finish` makes the tables. */
function eventTableBuilders({ maps, pois }: Pick<ReadModel, 'maps' | 'pois'>) {
  const builders = new Map([...maps.values()].map((m) => [m.id, new EventTableBuilder(m.id, m.doc.time_zone, m.languages.offered)]));
  return {
    add(doc: EventT): void {
      // Each event keeps its public anchors, once each, in bundle order.
      const anchors = (doc.poi_ids.length === 1 ? doc.poi_ids : [...new Set(doc.poi_ids)]).filter((id) => pois.has(id));
      builders.get(doc.map_id)?.add({ doc, startMs: Date.parse(doc.starts_at), anchors });
    },
    finish: (): EventTable[] => [...builders.values()].map((b) => b.finish((id) => pois.type(pois.indexOf(id)))),
  };
}

/** A source of events in pages, in any order: it calls `onPage` with each page, and resolves after the last. */
export type EventPages = (onPage: (page: readonly EventT[]) => void | Promise<void>) => Promise<void>;

/**
 * Builds the event tables of a read model built without them, one per enabled map (empty when it has none),
 * from pages of events in any order; only the compact form of each event is kept.
 */
export async function buildEventTables(model: Pick<ReadModel, 'maps' | 'pois'>, pages: EventPages): Promise<EventTable[]> {
  const builders = eventTableBuilders(model);
  await pages((page) => {
    for (const doc of page) builders.add(doc);
  });
  return builders.finish();
}

/**
 * Builds the read model of one content version from its records (the same ones loaded into PGlite).
 * `eventTables`, read back from a data snapshot of the same bundle, stand in for `docs.events`.
 */
export function buildReadModel(docs: ModelDocs, eventTables?: readonly EventTable[]): ReadModel {
  return runNow(readModelSteps(docs, eventTables));
}

/** The spatial index of a map's events, over the vertices of their anchored POIs; `parts` as `EventIndex.build` takes them. */
export function eventIndexSteps(pois: PoiStore, table: EventTable, parts?: IndexParts): Steps<EventIndex> {
  return EventIndex.buildSteps(table, (id) => pois.verticesOf(pois.indexOf(id)), parts);
}

/**
 * `buildReadModel`, yielding as it goes (see steps.ts): the serving thread builds a new version in slices.
 * `places` gives, by map id, the parts of each map's spatial index made before (see `EventIndex.parts`).
 */
export function* readModelSteps(docs: ModelDocs, eventTables?: readonly EventTable[],
  places?: ReadonlyMap<string, IndexParts>): Steps<ReadModel> {
  const publisherDocs = [...docs.publishers].sort(byId);
  const mapDocs = [...docs.maps].sort(byId);
  const languages = new Map(mapDocs.map((m) => [m.id, mapLanguages(m)]));
  const content = contentLanguages(mapDocs.filter((m) => m.enabled).map((m) => languages.get(m.id)!));
  /** A text of a map's record, falling back to its default language; of no map's, to the content's. */
  const textOf = (value: Parameters<typeof localText>[0], mapId?: string) => {
    const langs = (mapId && languages.get(mapId)) || content;
    return localText(value, langs.default, langs.offered);
  };
  const textOfMap = (value: Parameters<typeof localText>[0], mapId: string) => textOf(value, mapId)!;
  const iconDocs = yield* sortSteps([...docs.icons], byId);
  const categoryDocs = yield* sortSteps([...docs.categories], byId);
  const poiRows = Array.isArray(docs.pois) ? parsedRows(docs.pois as readonly PoiRow[]) : docs.pois as PoiRows;
  const itemVersionRows = docs.itemVersions;
  const listDocs = yield* sortSteps([...docs.lists], byId);
  const associationDocs = yield* sortSteps([...docs.associations], byId);

  const publishers = new Map(publisherDocs.map((p) => [p.id, {
    id: p.id, name: textOf(p.name), slug: p.slug, description: textOf(p.description), website: orNull(p.website),
    logo_url: orNull(p.logo_url), email: orNull(p.email), phone: orNull(p.phone), address: orNull(p.address),
    location: orNull(p.location),
  } as Record<string, unknown>]));

  // Published versions of enabled maps: the only versions anything can be seen through.
  const publishedVersions = new Set<string>();
  const disabledMaps = new Map<string, DisabledMap>();
  const enabledDocs: MapT[] = [];
  for (const m of mapDocs) {
    if (!m.enabled) {
      disabledMaps.set(m.id, { id: m.id, publisher_id: m.publisher_id, name: textOfMap(m.name, m.id), slug: m.slug, branding: m.branding });
      continue;
    }
    enabledDocs.push(m);
    for (const ver of m.versions) if (ver.status === 'published') publishedVersions.add(ver.id);
  }
  const versionsOfItem = new Map<string, Set<string>>();
  for (let i = 0; i < itemVersionRows.length; i++) {
    if ((i & (STRIDE - 1)) === 0) yield;
    const { item_id, version_id } = itemVersionRows[i];
    if (!publishedVersions.has(version_id)) continue;
    let set = versionsOfItem.get(item_id);
    if (!set) versionsOfItem.set(item_id, (set = new Set()));
    set.add(version_id);
  }
  const same = new Shared();
  const publicVersionIds = (id: string) => same.list([...(versionsOfItem.get(id) ?? [])].sort());

  // Categories and POIs: public when they belong to at least one published version of an enabled map.
  // A reference to a category that is not public (draft-only) is dropped, so no record names it.
  const isPublic = (id: string) => (versionsOfItem.get(id)?.size ?? 0) > 0;
  const categories = new Map<string, CategoryRecord>();
  for (let i = 0; i < categoryDocs.length; i++) {
    if ((i & (STRIDE - 1)) === 0) yield;
    const c = categoryDocs[i];
    if (!isPublic(c.id)) continue;
    categories.set(c.id, {
      id: c.id, map_id: c.map_id, parent_id: c.parent_id && isPublic(c.parent_id) ? c.parent_id : null, kind: c.kind,
      name: textOfMap(c.name, c.map_id), icon_id: orNull(c.icon_id), color: orNull(c.color), sort_order: c.sort_order, version_ids: publicVersionIds(c.id),
    });
  }
  // POIs: each row is made into its entry once here, to learn what the store keeps of it (poi-store.ts), its
  // versions and categories (lists shared between POIs), and its name to sort by; the entry itself is let go,
  // unless the version has so few POIs that the store keeps every entry (`made`).
  const facts: PoiFacts[] = [];
  const versionsOf: (readonly string[])[] = [];
  const categoriesOf: (readonly string[])[] = [];
  const names: string[] = [];
  // The entries made here, kept by the store when they are few (see PoiStore.buildSteps).
  let made: PoiEntry[] | null = [];
  for (let r = 0; r < poiRows.length; r++) {
    // A path or polygon can take a while (its vertices are rounded and its winding checked): yield often.
    if ((r & 31) === 0) yield;
    const { poi_type, doc } = poiRows.row(r);
    if (!isPublic(doc.id)) continue;
    // Category ids as the categories' own strings, each set once (a parsed document has a copy of them per POI).
    const categoryIds = same.list([...new Set(doc.category_ids.flatMap((id) => categories.get(id)?.id ?? []))]);
    const versionIds = publicVersionIds(doc.id);
    const entry = buildPoi(poi_type, doc, versionIds, categoryIds, (value) => textOf(value, doc.map_id), same);
    facts.push({ row: r, id: doc.id, type: poi_type, mapId: entry.record.map_id, vertices: geometryVertices(entry.geometry),
      hours: orNull(doc.hours) });
    versionsOf.push(versionIds);
    categoriesOf.push(categoryIds);
    names.push(String(entry.record.name));
    if (made && made.length < KEPT_ENTRIES) made.push(entry);
    else made = null;
  }
  const pois = yield* PoiStore.buildSteps(poiRows, facts, poiMaker(languages, content, versionsOf, categoriesOf, same), KEPT_ENTRIES,
    made ?? []);

  // Sorted once: each version's POIs keep this order.
  const byName = (a: number, b: number) => compareNames(names[a], facts[a].id, names[b], facts[b].id);
  const poisByName = Int32Array.from(yield* sortSteps(Array.from({ length: pois.size }, (_, i) => i), byName));
  const poiFacts = { versionsOf, categoriesOf };
  /** A POI's entry for the build (lists, associations): the one the store keeps, else one made and not kept. */
  const entryOf = (id: string) => {
    const i = pois.indexOf(id);
    return i < 0 ? undefined : pois.listed(i);
  };
  const maps = new Map<string, MapView>();
  for (const m of enabledDocs) {
    const versionDocs = new Map(m.versions.filter((ver) => ver.status === 'published').map((ver) => [ver.id, ver]));
    const versions = new Map<string, VersionContent>();
    for (const versionId of versionDocs.keys()) versions.set(versionId, yield* versionSteps(versionId, m.id, pois, poisByName, poiFacts, categories));
    const { summary, opening_season, ...info } = m.info;
    const doc: MapDoc = {
      ...m, name: textOfMap(m.name, m.id), description: textOf(m.description, m.id) ?? undefined,
      info: { ...info, ...(summary !== undefined ? { summary: textOfMap(summary, m.id) } : {}),
        ...(opening_season !== undefined ? { opening_season: textOfMap(opening_season, m.id) } : {}) },
    };
    maps.set(m.id, {
      id: m.id, doc, languages: languages.get(m.id)!, publisherId: m.publisher_id, currentVersionId: m.current_version_id, versionDocs, versions,
      contentBlocks: [...m.content_blocks].sort((a, b) => a.sort_order - b.sort_order || (a.id < b.id ? -1 : 1))
        .map((c) => ({ id: c.id, kind: c.kind, title: textOfMap(c.title, m.id), body: textOf(c.body, m.id), url: orNull(c.url),
          image_url: orNull(c.image_url), sort_order: c.sort_order })),
      sponsors: m.sponsors.map((sp) => ({ name: sp.name, url: orNull(sp.url), logo_url: orNull(sp.logo_url), tier: orNull(sp.tier) })),
      lists: [], events: NO_EVENTS, eventIndex: NO_PLACES, matchCache: new Map(), categoryPoiOrder: new Map(), series: new Map(),
    });
  }
  for (const s of docs.series ?? []) maps.get(s.doc.map_id.toLowerCase())?.series.set(s.doc.id.toLowerCase(), s);
  for (const c of categoryDocs) if (c.poi_order) maps.get(c.map_id)?.categoryPoiOrder.set(c.id, [...new Set(c.poi_order)]);

  // Lists: verified lists of enabled maps, items limited to public POIs.
  const lists = new Map<string, { mapId: string; entry: ListEntry }>();
  for (const l of listDocs) {
    yield;
    const map = maps.get(l.map_id);
    if (!map || !l.verified) continue;
    const items = l.items.filter((it) => pois.has(it.poi_id))
      .map((it) => ({ ...entryOf(it.poi_id)!.summary, note: textOf(it.note, l.map_id) }));
    const summary = {
      id: l.id, map_id: l.map_id, name: textOfMap(l.name, l.map_id), description: textOf(l.description, l.map_id), verified: true,
      cover_image_url: orNull(l.cover_image_url), created_at: toUtc(Date.parse(l.created_at)), item_count: items.length,
    };
    const entry = { summary, items };
    map.lists.push(entry);
    lists.set(l.id, { mapId: l.map_id, entry });
  }
  for (const map of maps.values()) {
    map.lists.sort((a, b) => compareByName(a.summary as { name: LocalText; id: string }, b.summary as { name: LocalText; id: string }));
  }

  // Events: one table per map, in keyset order (starts_at, then id), the order of every page.
  let built = eventTables;
  if (!built) {
    const builders = eventTableBuilders({ maps, pois });
    for (let i = 0; i < docs.events.length; i++) {
      builders.add(docs.events[i]);
      if ((i & (STRIDE - 1)) === 0) yield;
    }
    built = builders.finish();
  }
  const tables = new Map(built.map((t) => [t.mapId, t]));
  for (const map of maps.values()) {
    const table = tables.get(map.id);
    if (!table) throw new Error(`no event table for map ${map.id}`);
    map.events = table;
    map.eventIndex = yield* eventIndexSteps(pois, table, places?.get(map.id));
  }

  // Associations: both POIs public, and a list-scoped one only through a verified list.
  const associationsFrom = new Map<string, AssociationRecord[]>();
  const associationsTo = new Map<string, AssociationRecord[]>();
  const push = (index: Map<string, AssociationRecord[]>, key: string, rec: AssociationRecord) => {
    const list = index.get(key);
    if (list) list.push(rec); else index.set(key, [rec]);
  };
  for (let i = 0; i < associationDocs.length; i++) {
    if ((i & (STRIDE - 1)) === 0) yield;
    const a = associationDocs[i];
    const from = entryOf(a.poi_id);
    const to = entryOf(a.associated_poi_id);
    if (!from || !to || (a.list_id && !lists.has(a.list_id))) continue;
    const base = { id: a.id, mutual: a.mutual, list_id: a.list_id, label: textOf(a.label, from.record.map_id), sort_order: a.sort_order,
      created_at: toUtc(Date.parse(a.created_at)) };
    push(associationsFrom, a.poi_id, { ...base, poi_id: a.poi_id, associated_poi_id: to.summary.id,
      associated_poi: to.summary, direction: 'forward' });
    if (a.mutual) {
      push(associationsTo, a.associated_poi_id, { ...base, poi_id: a.associated_poi_id, associated_poi_id: from.summary.id,
        associated_poi: from.summary, direction: 'reverse' });
    }
  }
  for (const index of [associationsFrom, associationsTo]) {
    let sorted = 0;
    for (const list of index.values()) {
      list.sort(compareAssociations);
      if ((++sorted & (STRIDE - 1)) === 0) yield;
    }
  }

  const icons = iconDocs.map((ic) => ({ id: ic.id, name: textOf(ic.name)!, url: ic.url, color: orNull(ic.color), maki: orNull(ic.maki) }))
    .sort(compareByName);

  return {
    checksum: docs.checksum, version: 0, publishedAt: '', warnings: null, publishers, maps, disabledMaps, pois, icons, lists,
    associationsFrom, associationsTo, languages, contentLanguages: content, changes: RecordChanges.unknown(''),
  };
}

/**
 * The entries of POIs (numbers in `model.pois`), in the order given, only those of `type` when given: those kept,
 * else made afresh and not kept (a listing of a whole map asks for each once).
 */
export function poiEntries(model: Pick<ReadModel, 'pois'>, pois: ArrayLike<number>, type?: PoiType): PoiEntry[] {
  const out: PoiEntry[] = [];
  for (let k = 0; k < pois.length; k++) if (type === undefined || model.pois.type(pois[k]) === type) out.push(model.pois.listed(pois[k]));
  return out;
}

/** Their records (see `poiEntries`). */
export function poiRecords(model: Pick<ReadModel, 'pois'>, pois: ArrayLike<number>, type?: PoiType): PoiRecord[] {
  return poiEntries(model, pois, type).map((p) => p.record);
}

/** The map and position of the event with this id, or null. */
/** The recurring series with this (lowercase) id, of an enabled map, or null. */
export function findSeries(model: ReadModel, id: string): { map: MapView; series: SeriesDoc } | null {
  for (const map of model.maps.values()) {
    const series = map.series.get(id);
    if (series) return { map, series };
  }
  return null;
}

export function findEvent(model: ReadModel, id: string): { map: MapView; position: number } | null {
  for (const map of model.maps.values()) {
    const position = map.events.positionOf(id);
    if (position >= 0) return { map, position };
  }
  return null;
}

/** Association order: configured sort order, then creation time, then id. */
export function compareAssociations(a: AssociationRecord, b: AssociationRecord): number {
  // Compare times, not strings: "10:00:00Z" sorts after "10:00:00.500Z" as text.
  return a.sort_order - b.sort_order || Date.parse(a.created_at) - Date.parse(b.created_at) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * One copy of each repeated value: a parsed document holds its own copy of every id it repeats (its map's, its
 * versions', its categories', its icon's), a good part of the POIs' memory (docs/decisions.md), held once more by
 * every serving thread. Lists given out are shared between records, so they are read-only.
 */
class Shared {
  private readonly strings = new Map<string, string>();
  private readonly lists = new Map<string, readonly string[]>();

  string<T extends string | null>(value: T): T {
    if (value === null) return value;
    const known = this.strings.get(value);
    if (known !== undefined) return known as T;
    this.strings.set(value, value);
    return value;
  }

  list(values: string[]): readonly string[] {
    const key = values.join('\n');
    const known = this.lists.get(key);
    if (known) return known;
    const list = values.map((v) => this.string(v));
    this.lists.set(key, list);
    return list;
  }
}

/**
 * Makes a POI's entry from its row, as the model build does: a function of its own so that what it keeps alive (for
 * as long as the model is served) is only what it names, not the build's other locals (a closure keeps its whole
 * scope: the versions of every item, the POIs' facts).
 */
function poiMaker(languages: ReadonlyMap<string, Languages>, content: Languages, versionsOf: readonly (readonly string[])[],
  categoriesOf: readonly (readonly string[])[], same: Shared): (row: PoiRow, i: number) => PoiEntry {
  return (row, i) => {
    const langs = languages.get(row.doc.map_id) ?? content;
    return buildPoi(row.poi_type, row.doc, versionsOf[i], categoriesOf[i], (value) => localText(value, langs.default, langs.offered), same);
  };
}

function buildPoi(type: PoiType, doc: MarkerT | PathT | PolygonT, versionIds: readonly string[], categoryIds: readonly string[],
  text: (value: MarkerT['name'] | undefined) => LocalText | null, same: Shared): PoiEntry {
  const name = text(doc.name)!;
  const common = {
    id: doc.id, map_id: same.string(doc.map_id), type, name, description: text(doc.description),
    category_ids: categoryIds, icon_id: same.string(orNull(doc.icon_id)), image_url: orNull(doc.image_url),
    website: orNull(doc.website), hours: orNull(doc.hours), version_ids: versionIds, created_at: toUtc(Date.parse(doc.created_at)),
  };
  let record: PoiRecord;
  let geometry: Geometry;
  if (type === 'marker') {
    const m = doc as MarkerT;
    geometry = { type: 'Point', coordinates: roundPosition([m.lng, m.lat]) };
    record = { ...common, lat: round7(m.lat), lng: round7(m.lng), external_id: orNull(m.external_id),
      address: orNull(m.address), phone: orNull(m.phone), opening_hours: text(m.opening_hours) };
  } else if (type === 'path') {
    const p = doc as PathT;
    geometry = { type: 'LineString', coordinates: p.geometry.coordinates.map(roundPosition) };
    record = { ...common, geometry, difficulty: orNull(p.difficulty), duration_min: orNull(p.duration_min) };
  } else {
    geometry = { type: 'Polygon', coordinates: rewindPolygon((doc as PolygonT).geometry.coordinates) };
    record = { ...common, geometry };
  }
  const at = representativePoint(geometry);
  return { record, geometry, versionIds, categoryIds: common.category_ids,
    summary: { id: doc.id, type, name, lat: at.lat, lng: at.lng } };
}

function* versionSteps(versionId: string, mapId: string, pois: PoiStore, poisByName: Int32Array,
  facts: { versionsOf: readonly (readonly string[])[]; categoriesOf: readonly (readonly string[])[] },
  categories: Map<string, CategoryRecord>): Steps<VersionContent> {
  const inVersion: number[] = [];
  for (let k = 0; k < poisByName.length; k++) {
    const i = poisByName[k];
    if (pois.mapId(i) === mapId && facts.versionsOf[i].includes(versionId)) inVersion.push(i);
    if ((k & (STRIDE - 1)) === 0) yield;
  }
  const cats = [...categories.values()].filter((c) => c.map_id === mapId && c.version_ids.includes(versionId))
    .sort(compareCustom);
  const categoryIds = new Set(cats.map((c) => c.id));
  const children = new Map<string | null, CategoryRecord[]>();
  for (const c of cats) {
    // An item whose parent is missing from this version is shown at the top level rather than lost.
    const parent = c.parent_id && categoryIds.has(c.parent_id) ? c.parent_id : null;
    const list = children.get(parent);
    if (list) list.push(c); else children.set(parent, [c]);
  }
  const subtree = new Map<string, number[]>(cats.map((c) => [c.id, []]));
  const parentOf = new Map(cats.map((c) => [c.id, c.parent_id && categoryIds.has(c.parent_id) ? c.parent_id : null]));
  for (let k = 0; k < inVersion.length; k++) {
    const i = inVersion[k];
    if ((k & (STRIDE - 1)) === 0) yield;
    for (const cid of facts.categoriesOf[i]) {
      // Credit the POI to its category and every ancestor, once each (POIs come one after another, so a repeat
      // of this POI in a list is its last item).
      for (let cur: string | null | undefined = cid; cur && categoryIds.has(cur); cur = parentOf.get(cur)) {
        const list = subtree.get(cur)!;
        if (list[list.length - 1] !== i) list.push(i);
      }
    }
  }
  return {
    id: versionId,
    pois: Int32Array.from(inVersion),
    categories: cats, categoryIds, children,
    subtreePois: new Map([...subtree].map(([id, list]) => [id, Int32Array.from(list)])),
  };
}
