/**
 * A map version's vector tiles, made from the version's read model (never from SQL): its markers clustered per zoom,
 * its paths and polygons cut and simplified per zoom, in three layers (`markers`, `paths`, `polygons`). What a tile is
 * made from is built once per map version, when its first tile is asked for, and kept as long as the model is; a
 * cluster index per `tags` set is kept in a small LRU beside the one of every marker.
 *
 * - **Clusters** up to CLUSTER_MAX_ZOOM (radius CLUSTER_RADIUS of a 512-pixel tile); from the zoom after it, every
 *   marker is a feature of its own. A cluster has `cluster: true`, `cluster_id`, `point_count`, `label` (the count as
 *   a string: `7`, `1.2k`, `15k`) and `category`, the top-level category most of its markers have (the first in the
 *   map's order on a tie; absent when none of them has one).
 * - **Colours**: every feature has `color`, its top-level category's (the category's own `color`, else one of
 *   CATEGORY_PALETTE by its place in the map's order), or NO_CATEGORY_COLOR; a cluster's is that of its `category`.
 * - **A marker** has `id`, `name` (in the answer's language), `category` (the top-level category above the first of
 *   its `category_ids` that is a category, not a tag; absent when none is) and `icon` (the Maki name of its own icon,
 *   else of that category's icon, else DEFAULT_ICON).
 * - **Paths and polygons** have `id`, `name` and `category`, cut at the tile's edges with a buffer of 64/4096 of the
 *   tile, and simplified per zoom (geojson-vt's tolerance of 3/4096 of a tile), down to MAX_TILE_ZOOM; each from the
 *   zoom at which its box spans MIN_SHAPE_SIZE of a tile (smaller, it is a few pixels of noise).
 * - **Which markers a tile holds**: those whose Web Mercator position (to 2^-30 of the world) lies in the tile grown by
 *   CLUSTER_RADIUS / 512 of its width on each side, across the antimeridian too (tile x 0 holds those just west of
 *   it at the far east, and the last x those just east at the far west): a map SDK draws a marker near a tile's edge
 *   whole. Clusters follow the same rule, so a sum over neighbouring tiles counts a cluster in the buffer twice.
 */
import type { Geometry } from 'geojson';
import { ClusterIndex, encodeTile, MAX_TILE_ZOOM, POINT_EXTENT, SHAPE_EXTENT, SizedShapeIndex, type TileFeature } from '../../geo/vector-tiles.ts';
import { Lru } from '../../utils/lru.ts';
import { whenQuiet } from '../../utils/quiet.ts';
import { topCategoryOf, type CategoryRecord, type ReadModel, type VersionContent } from './read-model.ts';

/** The highest zoom with clusters: from the zoom after it every marker is a feature of its own. */
export const CLUSTER_MAX_ZOOM = 14;
/** The cluster radius, in pixels of a 512-pixel tile. */
export const CLUSTER_RADIUS = 60;
/** The Maki icon of a marker whose icon and category have none. */
export const DEFAULT_ICON = 'marker';
/** Cluster indexes kept per map version for `tags` sets (besides the one of every marker). */
export const KEPT_TAG_SETS = 16;
/**
 * The colours of top-level categories without one of their own, by their place in the map's order (Okabe and Ito's
 * palette, told apart by people with colour blindness), and of what has no category.
 */
export const CATEGORY_PALETTE = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#8a6d00', '#332288'];
export const NO_CATEGORY_COLOR = '#5b6770';
/** A path or polygon is drawn from the zoom at which it spans this much of a tile (8 pixels of 512). */
export const MIN_SHAPE_SIZE = 1 / 64;

/** What one map version's tiles are made from. */
class VersionTiles {
  /** The version's markers (store numbers), their top-level category codes (-1: none) and icons. */
  private readonly markers: Int32Array;
  private readonly markerTop: Int16Array;
  private readonly markerIcon: string[];
  /** The top-level categories, in the map's order (a code is an index here), and their colours. */
  readonly tops: CategoryRecord[];
  readonly colors: string[];
  /** Each POI's id and top-level category code, by store number (only the version's are set). */
  private readonly ids: string[];
  private readonly topOf: Int16Array;
  /**
   * Each POI's name in each of the map's languages, by store number: the names alone, not every POI's texts.
   */
  private readonly namesIn = new Map<string, string[]>();
  private readonly shapes: SizedShapeIndex;
  private readonly everyMarker: ClusterIndex<Record<number, number>>;
  /** Per `tags` set: the POIs it keeps (by store number) and its markers' cluster index. */
  private readonly byTags = new Lru<string, { wanted: Uint8Array; clusters: ClusterIndex<Record<number, number>> }>(KEPT_TAG_SETS);

  private readonly model: ReadModel;
  private readonly version: VersionContent;

  constructor(model: ReadModel, version: VersionContent) {
    this.model = model;
    this.version = version;
    this.ids = new Array<string>(model.pois.size);
    this.topOf = new Int16Array(model.pois.size).fill(-1);
    const categories = new Map(version.categories.map((c) => [c.id, c]));
    this.tops = version.children.get(null)?.filter((c) => c.kind === 'category') ?? [];
    this.colors = this.tops.map((c, k) => c.color ?? CATEGORY_PALETTE[k % CATEGORY_PALETTE.length]);
    const topCode = new Map(this.tops.map((c, k) => [c.id, k]));
    const iconMaki = new Map(model.icons.map((icon) => [String(icon.id), icon.maki as string | null]));
    const topOfCategory = (ids: readonly string[]): number => {
      const top = topCategoryOf(categories, ids);
      return top ? topCode.get(top.id) ?? -1 : -1;
    };
    const markers: number[] = [];
    const tops: number[] = [];
    const icons: string[] = [];
    const shapes: { geometry: Geometry; index: number }[] = [];
    const languages = version.pois.length > 0 ? model.languages.get(model.pois.mapId(version.pois[0]))?.offered ?? [] : [];
    const names = languages.map((lang) => {
      const inLang = new Array<string>(model.pois.size);
      this.namesIn.set(lang, inLang);
      return inLang;
    });
    for (const i of version.pois) {
      const { record, categoryIds, geometry } = model.pois.listed(i);
      const top = topOfCategory(categoryIds);
      this.ids[i] = record.id;
      for (let l = 0; l < languages.length; l++) names[l][i] = record.name.in(languages[l]);
      this.topOf[i] = top;
      if (record.type === 'marker') {
        markers.push(i);
        tops.push(top);
        const own = typeof record.icon_id === 'string' ? iconMaki.get(record.icon_id) : null;
        const ofCategory = top >= 0 && this.tops[top].icon_id ? iconMaki.get(this.tops[top].icon_id!) : null;
        icons.push(own ?? ofCategory ?? DEFAULT_ICON);
      } else {
        shapes.push({ geometry, index: i });
      }
    }
    this.markers = Int32Array.from(markers);
    this.markerTop = Int16Array.from(tops);
    this.markerIcon = icons;
    // The large shapes' geometry stays in the store (a band's index asks for it again when it is made); the small ones'
    // vertices are copied into the index, 16 bytes each.
    this.shapes = new SizedShapeIndex(shapes, MAX_TILE_ZOOM, MIN_SHAPE_SIZE, (i) => model.pois.listed(i).geometry);
    this.everyMarker = this.clusters(() => true);
  }

  /** A cluster index of the version's markers (by their position in `markers`) that `keep` keeps. */
  private clusters(keep: (k: number) => boolean): ClusterIndex<Record<number, number>> {
    const points = [];
    for (let k = 0; k < this.markers.length; k++) {
      if (!keep(k)) continue;
      const v = this.model.pois.verticesOf(this.markers[k]);
      points.push({ lng: v[0], lat: v[1], index: k });
    }
    return new ClusterIndex<Record<number, number>>(points, {
      radius: CLUSTER_RADIUS, maxZoom: CLUSTER_MAX_ZOOM,
      start: (k) => (this.markerTop[k] < 0 ? {} : { [this.markerTop[k]]: 1 }),
      add: (a, b) => {
        const sum = { ...a };
        for (const key in b) sum[key] = (sum[key] ?? 0) + b[key];
        return sum;
      },
    });
  }

  /** The POIs (store numbers) under any of `tags`, and their markers clustered. */
  private tagged(tags: readonly string[]): { wanted: Uint8Array; clusters: ClusterIndex<Record<number, number>> } {
    const wanted = new Uint8Array(this.model.pois.size);
    for (const tag of tags) for (const i of this.version.subtreePois.get(tag) ?? []) wanted[i] = 1;
    return { wanted, clusters: this.clusters((k) => wanted[this.markers[k]] === 1) };
  }

  /** The version's POIs' names in `lang`, by store number (made here for a language that is not the map's). */
  private namesOf(lang: string): string[] {
    let names = this.namesIn.get(lang);
    if (!names) {
      names = new Array<string>(this.model.pois.size);
      for (const i of this.version.pois) names[i] = this.model.pois.listed(i).record.name.in(lang);
      this.namesIn.set(lang, names);
    }
    return names;
  }

  /** The tags of `tags` that the version has, once each, in one order: what a set of them is known by. */
  private knownTags(tags: readonly string[]): string[] {
    return [...new Set(tags)].filter((t) => this.version.subtreePois.has(t)).sort();
  }

  /** Whether the markers under `tags` are clustered and kept now, as one of the KEPT_TAG_SETS sets (tests). */
  keepsTagSet(tags: readonly string[]): boolean {
    return this.byTags.peek(this.knownTags(tags).join(',')) !== undefined;
  }

  /** The sets of tags whose markers are clustered and kept now (tests). */
  get tagSetsKept(): number {
    return this.byTags.size;
  }

  /** The tile z/x/y as MVT bytes (empty when nothing lies in it), names in `lang`, of the POIs under `tags` (all without). */
  tile(z: number, x: number, y: number, lang: string, tags: readonly string[] | undefined): Uint8Array<ArrayBuffer> {
    const known = tags === undefined ? undefined : this.knownTags(tags);
    if (known !== undefined && known.length === 0) return new Uint8Array(0);
    const set = known === undefined ? null : this.byTags.get(known.join(','), () => this.tagged(known));
    const wanted = set?.wanted ?? null;
    const index = set?.clusters ?? this.everyMarker;
    const topId = (code: number | undefined) => (code === undefined || code < 0 ? undefined : this.tops[code].id);
    const color = (code: number | undefined) => (code === undefined || code < 0 ? NO_CATEGORY_COLOR : this.colors[code]);
    const names = this.namesOf(lang);
    const markers: TileFeature[] = index.tile(z, x, y).map((f) => {
      if (f.cluster) {
        let best = -1;
        for (const key in f.sum) if (best < 0 || f.sum[key] > f.sum[best] || (f.sum[key] === f.sum[best] && Number(key) < best)) best = Number(key);
        return { type: 1, geometry: [[f.x, f.y]], id: f.clusterId,
          values: [undefined, undefined, topId(best), color(best), undefined, true, f.clusterId, f.count, countLabel(f.count)] };
      }
      const i = this.markers[f.index];
      return { type: 1, geometry: [[f.x, f.y]],
        values: [this.ids[i], names[i], topId(this.markerTop[f.index]), color(this.markerTop[f.index]), this.markerIcon[f.index]] };
    });
    const paths: TileFeature[] = [];
    const polygons: TileFeature[] = [];
    for (const part of this.shapes.tile(z, x, y, wanted ? (i) => wanted[i] === 1 : undefined)) {
      const top = this.topOf[part.index];
      const values = [this.ids[part.index], names[part.index], topId(top), color(top)];
      (this.model.pois.type(part.index) === 'path' ? paths : polygons).push({ type: part.type, geometry: part.geometry, values });
    }
    return encodeTile([
      { name: 'polygons', extent: SHAPE_EXTENT, keys: SHAPE_KEYS, features: polygons },
      { name: 'paths', extent: SHAPE_EXTENT, keys: SHAPE_KEYS, features: paths },
      { name: 'markers', extent: POINT_EXTENT, keys: MARKER_KEYS, features: markers },
    ]);
  }
}

/** The properties of the markers layer (a single marker's first five, a cluster's from `category` on), in the order features give them. */
const MARKER_KEYS = ['id', 'name', 'category', 'color', 'icon', 'cluster', 'cluster_id', 'point_count', 'label'];
/** The properties of the paths and polygons layers. */
const SHAPE_KEYS = ['id', 'name', 'category', 'color'];

/** A cluster's count as people read it on a map: 7, 950, 1.2k, 15k. */
export function countLabel(count: number): string {
  if (count < 1000) return String(count);
  if (count < 10_000) return `${(Math.floor(count / 100) / 10).toString()}k`;
  return `${Math.floor(count / 1000)}k`;
}

/** Each version's tiles, made when first asked for and kept with the version (the model). */
const kept = new WeakMap<VersionContent, VersionTiles>();

/**
 * The most POIs a version may have for its tiles' source to be built in the background at once: the build is one piece
 * of work on the thread that serves (about 10 ms per 1,000 POIs), which must not hold a request up for long. A larger
 * version's is built in a quiet moment (warmLargeTiles), else by its first tile request (about a second for 100,000 POIs).
 */
export const WARM_TILES_MAX_POIS = 5_000;

/**
 * Builds what the current version of every map of up to WARM_TILES_MAX_POIS POIs has its tiles cut from, so no map
 * app's first tile waits for it: run in the background after a version is swapped in (journey.ts).
 */
export function warmTiles(model: ReadModel): void {
  for (const map of model.maps.values()) {
    const version = map.versions.get(map.currentVersionId);
    if (version && version.pois.length <= WARM_TILES_MAX_POIS) versionTiles(model, version);
  }
}

/**
 * How long the thread must have begun no request before a large version's tiles' source is built in the background:
 * long enough that a pause between two bursts of requests (a client's next page, a load's next run) is not taken for
 * quiet, short enough that a kiosk or a service just started or published has it built before most visitors come.
 */
export const WARM_LARGE_TILES_QUIET_MS = 2_000;

/**
 * Builds what the current version of every map of more than WARM_TILES_MAX_POIS POIs has its tiles cut from, one map
 * at a time, each once the thread has begun no request for WARM_LARGE_TILES_QUIET_MS (about a second of work for
 * 100,000 POIs, which held the first render of the explorer on such a map near 2 s): so a start or a publish followed
 * by a quiet moment leaves a map's first visitor nothing to wait for, while a busy service never stops for it (its
 * first tile request builds it then, as without this). Stops as soon as `wanted()` is false (another version served).
 */
export async function warmLargeTiles(model: ReadModel, wanted: () => boolean): Promise<void> {
  for (const map of model.maps.values()) {
    const version = map.versions.get(map.currentVersionId);
    if (!version || version.pois.length <= WARM_TILES_MAX_POIS || kept.has(version)) continue;
    if (!(await whenQuiet(WARM_LARGE_TILES_QUIET_MS, wanted))) return;
    versionTiles(model, version);
  }
}

/** Whether what `version`'s tiles are cut from is built already (tests). */
export function tilesBuilt(version: VersionContent): boolean {
  return kept.has(version);
}

/** The tiles of `version`. */
export function versionTiles(model: ReadModel, version: VersionContent): VersionTiles {
  let tiles = kept.get(version);
  if (!tiles) kept.set(version, (tiles = new VersionTiles(model, version)));
  return tiles;
}
