/**
 * The events of one map, stored column by column in keyset order (starts_at, then id): typed arrays for
 * times, types, tags and anchors, and UTF-8 bytes for ids and texts, with no per-event JavaScript object
 * (docs/decisions.md says what a million take), and a table is written to a data snapshot as it is held in memory,
 * so a start from the snapshot reads it back instead of parsing the bundle's events again.
 *
 * A served event record is made on demand (`summary`) from the columns; the response cache keeps the
 * answers that use it. Each event's texts are kept once per language of its map (each already fallen back to
 * the default language where a translation is missing), and, for a map of several languages, once more with
 * every language (`langs=all`): a record is written in any language by copying bytes. A map of one language whose
 * texts are all plain keeps no second copy: its rare `langs=all` records are made from the first.
 */
import { EVENT_STATUSES, type EventStatus, type EventT, type StoredEvent } from '../bundle/bundle-schema.ts';
import { toUtc, writeUtc } from '../rfc3339.ts';
import { ByteWriter, utf8Bytes } from '../../utils/byte-writer.ts';
import { copyMembers, selects, type MemberSelection } from '../../utils/json-members.ts';
import { RecentRecords } from './recent-records.ts';
import { findString, slotCount, slotsSteps, StringColumn } from './string-column.ts';
import { POI_TYPES, type PoiType } from './poi-store.ts';
import { runNow, STRIDE, type Steps } from '../../utils/steps.ts';
import { LocalText } from './local-text.ts';
import { matchesQuery, searchable } from './text-search.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The dictionaries a table's code columns point into (the anchored POIs' are columns: see EventColumns). */
export interface EventDictionaries {
  types: string[];
  tags: string[]; // as written in the bundle; filters compare them lowercased
  /** The series the table's occurrences belong to (src/content/series.ts), by code. */
  series: string[];
}

/** The typed-array columns of a table, one entry per event unless said otherwise. */
interface EventColumns {
  idBytes: Uint8Array; idOffsets: Uint32Array;
  // Per event, one piece per language of the map, each `"title":…,"description":…` TEXT_SEPARATOR
  // `"url":…,"image_url":…,"price":…` TEXT_SEPARATOR and the other fields a bundle may give (`piecesOf`), or
  // nothing where the event gives none of them (most do not: their JSON is written from DEFAULT_EXTRAS); piece k of
  // event i is string i * languages + k. The status is a column.
  textBytes: Uint8Array; textOffsets: Uint32Array;
  // Per event, the piece with every language (texts as objects), or nothing at all (both empty): see `allTexts`.
  allBytes: Uint8Array; allOffsets: Uint32Array;
  startMs: Float64Array; endMs: Float64Array; createdMs: Float64Array;
  typeCode: Uint32Array;
  statusCode: Uint8Array; // index into EVENT_STATUSES
  seriesCode: Int32Array; // index into the series dictionary, -1 for an event of its own
  tagStart: Uint32Array; tagCode: Uint32Array; // event i's tags: tagCode[tagStart[i] .. tagStart[i + 1])
  anchorStart: Uint32Array; anchorPoi: Uint32Array; // event i's anchors: codes of anchored POIs
  // The anchored POIs by code: ids (UTF-8), and kinds (indexes into POI_TYPES). Columns rather than a dictionary in
  // the header: the ids as strings, and a Map of them, were held in every serving thread's heap (docs/decisions.md).
  poiIdBytes: Uint8Array; poiIdOffsets: Uint32Array; poiTypeCode: Uint8Array;
  // The lookups made from the columns above (see `lookupsSteps`): empty until made. Made once, by the publisher,
  // and encoded with the table, so every serving thread views the same bytes instead of making its own.
  idSlots: Int32Array; // open addressing: hash of id -> position + 1 (0 = empty)
  poiSlots: Int32Array; // the same for the anchored POIs' ids -> code + 1
  poiEventStart: Uint32Array; poiEvents: Int32Array; // POI k's events: poiEvents[poiEventStart[k] .. poiEventStart[k + 1])
  seriesEventStart: Uint32Array; seriesEvents: Int32Array; // series k's occurrences, the same way
}

/** The lookups of a table (see EventColumns). */
type Lookups = Pick<EventColumns, 'idSlots' | 'poiSlots' | 'poiEventStart' | 'poiEvents' | 'seriesEventStart' | 'seriesEvents'>;

/** Lookups not made yet: what a builder's columns carry. */
const NO_LOOKUPS: Lookups = { idSlots: new Int32Array(0), poiSlots: new Int32Array(0), poiEventStart: new Uint32Array(0), poiEvents: new Int32Array(0),
  seriesEventStart: new Uint32Array(0), seriesEvents: new Int32Array(0) };

/** Which typed array each column is, to read a table back. */
const COLUMN_TYPES = {
  idBytes: Uint8Array, idOffsets: Uint32Array, textBytes: Uint8Array, textOffsets: Uint32Array,
  allBytes: Uint8Array, allOffsets: Uint32Array, startMs: Float64Array, endMs: Float64Array, createdMs: Float64Array, typeCode: Uint32Array,
  statusCode: Uint8Array, seriesCode: Int32Array, tagStart: Uint32Array, tagCode: Uint32Array, anchorStart: Uint32Array, anchorPoi: Uint32Array,
  poiIdBytes: Uint8Array, poiIdOffsets: Uint32Array, poiTypeCode: Uint8Array,
  idSlots: Int32Array, poiSlots: Int32Array, poiEventStart: Uint32Array, poiEvents: Int32Array, seriesEventStart: Uint32Array, seriesEvents: Int32Array,
} as const;
type ColumnName = keyof typeof COLUMN_TYPES;
const COLUMN_NAMES = Object.keys(COLUMN_TYPES) as ColumnName[];

/** What identifies a table apart from its columns. */
interface TableHead { mapId: string; timeZone: string; length: number; dictionaries: EventDictionaries; languages: string[] }


/** One event as the builder takes it: the validated record and its public anchors (deduplicated, in bundle order). */
export interface EventInput { doc: StoredEvent; startMs: number; anchors: string[] }

const orNull = <T>(x: T | undefined | null): T | null => (x === undefined ? null : x);

/** The events of one map, in keyset order, with lookups by id and by anchored POI. */
export class EventTable {
  readonly mapId: string;
  readonly timeZone: string;
  readonly length: number;
  readonly startMs: Float64Array;
  readonly endMs: Float64Array;
  /** The longest event's duration, so a window scan can start by binary search. */
  readonly longestEventMs: number;
  /** The map's languages, its default first: language k's texts are piece k of an event, and piece `languages.length` has them all. */
  readonly languages: readonly string[];
  /** Pieces of texts per event in the text column: one per language. */
  private readonly segments: number;
  /** The pieces with every language, when kept (see `allTexts`). */
  private readonly allTexts: StringColumn | null;
  private readonly dict: EventDictionaries;
  private readonly columns: EventColumns;
  private readonly ids: StringColumn;
  private readonly texts: StringColumn;
  private readonly lowerTags: string[];
  private readonly idSlots: Int32Array; // see EventColumns
  private readonly anchorIds: StringColumn;
  private readonly poiSlots: Int32Array;
  private readonly poiEventStart: Uint32Array; // see EventColumns
  private readonly poiEvents: Int32Array;
  /** Series id -> its code in the series dictionary. */
  private readonly seriesCodes: Map<string, number>;

  private constructor(head: TableHead, columns: EventColumns, longestEventMs: number) {
    this.mapId = head.mapId;
    this.timeZone = head.timeZone;
    this.length = head.length;
    this.languages = head.languages;
    this.segments = head.languages.length;
    this.allTexts = columns.allOffsets.length > 0 ? new StringColumn(columns.allBytes, columns.allOffsets) : null;
    this.dict = head.dictionaries;
    this.columns = columns;
    this.startMs = columns.startMs;
    this.endMs = columns.endMs;
    this.ids = new StringColumn(columns.idBytes, columns.idOffsets);
    this.texts = new StringColumn(columns.textBytes, columns.textOffsets);
    this.recent = new RecentRecords(2 * columns.textBytes.length);
    this.lowerTags = this.dict.tags.map((t) => t.toLowerCase());
    this.longestEventMs = longestEventMs;
    this.anchorIds = new StringColumn(columns.poiIdBytes, columns.poiIdOffsets);
    ({ idSlots: this.idSlots, poiSlots: this.poiSlots, poiEventStart: this.poiEventStart, poiEvents: this.poiEvents } = columns);
    this.seriesCodes = new Map(this.dict.series.map((id, k) => [id, k]));
  }

  /**
   * A table from its columns, yielding as it goes: the longest event, and the lookups (by id, by POI) unless the
   * columns carry them already (read back from a payload, see `encode`).
   */
  private static *assemble(head: TableHead, columns: EventColumns): Steps<EventTable> {
    const n = head.length;
    let longestEventMs = 0;
    for (let i = 0; i < n; i++) {
      longestEventMs = Math.max(longestEventMs, columns.endMs[i] - columns.startMs[i]);
      if ((i & (STRIDE - 1)) === 0) yield;
    }
    const made = columns.idSlots.length > 0 ? columns : { ...columns, ...yield* EventTable.lookupsSteps(head, columns) };
    return new EventTable(head, made, longestEventMs);
  }

  /** Makes a table's lookups from its columns (see EventColumns), yielding as it goes. */
  private static *lookupsSteps(head: TableHead, columns: EventColumns): Steps<Lookups> {
    const n = head.length;
    const idSlots = yield* slotsSteps(new StringColumn(columns.idBytes, columns.idOffsets), n);
    const poiCount = columns.poiTypeCode.length;
    const poiSlots = yield* slotsSteps(new StringColumn(columns.poiIdBytes, columns.poiIdOffsets), poiCount);

    // Events per anchored POI, in keyset order (the order of positions).
    const { anchorStart, anchorPoi } = columns;
    const poiEventStart = new Uint32Array(poiCount + 1);
    for (let a = 0; a < anchorPoi.length; a++) poiEventStart[anchorPoi[a] + 1]++;
    for (let k = 0; k < poiCount; k++) poiEventStart[k + 1] += poiEventStart[k];
    yield;
    const poiEvents = new Int32Array(anchorPoi.length);
    const fill = poiEventStart.slice(0, poiCount);
    for (let i = 0; i < n; i++) {
      for (let a = anchorStart[i]; a < anchorStart[i + 1]; a++) poiEvents[fill[anchorPoi[a]]++] = i;
      if ((i & (STRIDE - 1)) === 0) yield;
    }
    // Occurrences per series, in keyset order.
    const seriesCount = head.dictionaries.series.length;
    const { seriesCode } = columns;
    const seriesEventStart = new Uint32Array(seriesCount + 1);
    for (let i = 0; i < n; i++) if (seriesCode[i] >= 0) seriesEventStart[seriesCode[i] + 1]++;
    for (let k = 0; k < seriesCount; k++) seriesEventStart[k + 1] += seriesEventStart[k];
    const seriesEvents = new Int32Array(seriesEventStart[seriesCount]);
    const seriesFill = seriesEventStart.slice(0, seriesCount);
    for (let i = 0; i < n; i++) if (seriesCode[i] >= 0) seriesEvents[seriesFill[seriesCode[i]]++] = i;
    return { idSlots, poiSlots, poiEventStart, poiEvents, seriesEventStart, seriesEvents };
  }

  /** Builds the table of one map from its events, in any order. */
  static build(mapId: string, timeZone: string, events: readonly EventInput[], poiType: (id: string) => PoiType,
    languages: readonly string[] = ['en']): EventTable {
    const builder = new EventTableBuilder(mapId, timeZone, languages);
    for (const e of events) builder.add(e);
    return builder.finish(poiType);
  }

  /** A table from the columns a builder made (see `EventTableBuilder.finish`). */
  static fromColumns(head: TableHead, columns: EventColumns): EventTable {
    return runNow(EventTable.assemble(head, columns));
  }

  /** Index of the first event (in start order) starting at or after `ms` (binary search). */
  firstStartingFrom(ms: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.startMs[mid] < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Event i's id. */
  id(i: number): string {
    return this.ids.get(i);
  }

  /** The position of the event with this (lowercase) id, or -1. */
  positionOf(id: string): number {
    return findString(this.idSlots, this.ids, id);
  }

  /**
   * The events anchored to a POI that have not ended by `fromMs` and start by `toMs`, at most `limit`, in keyset
   * order, as records in the language at `lang` (GET /events/upcoming-by-poi).
   */
  upcomingAt(poiId: string, fromMs: number, toMs: number, limit: number, lang = 0, statuses: Uint8Array | null = null): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const i of this.positionsOfPoi(poiId)) {
      if (this.startMs[i] > toMs || out.length >= limit) break;
      if (this.endMs[i] >= fromMs && (statuses === null || this.hasStatus(i, statuses))) out.push(this.summary(i, lang));
    }
    return out;
  }

  /** Positions of the occurrences of a series (by its id), in keyset order: empty for an id that names none. */
  occurrencesOf(seriesId: string): Int32Array {
    const k = this.seriesCodes.get(seriesId);
    return k === undefined ? new Int32Array(0) : this.columns.seriesEvents.subarray(this.columns.seriesEventStart[k], this.columns.seriesEventStart[k + 1]);
  }

  /** The id of the series event i is an occurrence of, or null. */
  seriesOf(i: number): string | null {
    const k = this.columns.seriesCode[i];
    return k < 0 ? null : this.dict.series[k];
  }

  /** Positions of the events anchored to a POI, in keyset order. */
  positionsOfPoi(poiId: string): Int32Array {
    const k = findString(this.poiSlots, this.anchorIds, poiId);
    return k < 0 ? new Int32Array(0) : this.positionsOfCode(k);
  }

  /** Positions of the events anchored to the POI with this code (see `anchorPois`), in keyset order. */
  positionsOfCode(k: number): Int32Array {
    return this.poiEvents.subarray(this.poiEventStart[k], this.poiEventStart[k + 1]);
  }

  /** How many POIs the events are anchored to: their codes (`anchorCodes`) are 0 to this less one. */
  get anchorPoiCount(): number {
    return this.columns.poiTypeCode.length;
  }

  /** The id of the anchored POI of this code. */
  anchorPoiId(k: number): string {
    return this.anchorIds.get(k);
  }

  /** Event i's anchors are `anchorPoi[anchorStart[i] .. anchorStart[i + 1])`, codes into `anchorPois`. */
  get anchorColumns(): { anchorStart: Uint32Array; anchorPoi: Uint32Array } {
    return this.columns;
  }

  /** Event i's anchored POIs as codes into `anchorPois`, in bundle order. */
  anchorCodes(i: number): Uint32Array {
    const { anchorStart, anchorPoi } = this.columns;
    return anchorPoi.subarray(anchorStart[i], anchorStart[i + 1]);
  }

  /** Event i's anchored POI ids, in bundle order. */
  poiIds(i: number): string[] {
    return Array.from(this.anchorCodes(i), (k) => this.anchorIds.get(k));
  }

  /** A mask over type codes: which codes are one of these (lowercase) types. */
  typeMask(types: readonly string[]): Uint8Array {
    const mask = new Uint8Array(this.dict.types.length);
    for (let c = 0; c < mask.length; c++) mask[c] = types.includes(this.dict.types[c]) ? 1 : 0;
    return mask;
  }

  /** A mask over tag codes: which codes are one of these tags (lowercase). */
  tagMask(tags: readonly string[]): Uint8Array {
    // Each wanted tag's place in the list plus one (at most 100 tags: a comma list's limit), 0 for the others.
    const mask = new Uint8Array(this.lowerTags.length);
    for (let c = 0; c < mask.length; c++) mask[c] = tags.indexOf(this.lowerTags[c]) + 1;
    return mask;
  }

  /** True when event i's type is in the mask. */
  hasType(i: number, mask: Uint8Array): boolean {
    return mask[this.columns.typeCode[i]] === 1;
  }

  /** A mask over status codes (EVENT_STATUSES): which are one of these. */
  statusMask(statuses: readonly EventStatus[]): Uint8Array {
    return Uint8Array.from(EVENT_STATUSES, (s) => (statuses.includes(s) ? 1 : 0));
  }

  /** True when event i's status is in the mask. */
  hasStatus(i: number, mask: Uint8Array): boolean {
    return mask[this.columns.statusCode[i]] === 1;
  }

  /** True when every event's status is in the mask (a filter by it would keep them all). */
  allHaveStatus(mask: Uint8Array): boolean {
    return (this.statusesPresent ??= EVENT_STATUSES.map((_, code) => this.columns.statusCode.includes(code))).every((present, code) => !present || mask[code] === 1);
  }

  /** Which statuses occur in the table, by code (found the first time a filter asks). */
  private statusesPresent: boolean[] | null = null;

  /**
   * Event titles made searchable (text-search.ts), each folded the first time a search by name tests it, then
   * kept: a search costs what the candidates of its time window cost, never a pass over the whole table.
   */
  private titles: (string | string[] | undefined)[] | null = null;

  /**
   * The piece of an event's texts for a language of `languages` (exactly), its default language's for any
   * other, and the piece with every language for null (`langs=all`).
   */
  languageIndex(lang: string | null): number {
    if (lang === null) return this.languages.length;
    const k = this.languages.indexOf(lang);
    return k < 0 ? 0 : k;
  }

  /** Event i's title in language piece `lang` (default: the map's default language). */
  title(i: number, lang = 0): string {
    const texts = this.texts.get(i * this.segments + lang);
    return (JSON.parse(`{${texts.slice(0, texts.indexOf(TEXT_SEPARATOR))}}`) as { title: string }).title;
  }

  /** True when every query word begins a word of event i's title in one of the map's languages. */
  titleMatches(i: number, queryWords: readonly string[]): boolean {
    this.titles ??= new Array<string | string[] | undefined>(this.length);
    let title = this.titles[i];
    if (title === undefined) {
      // One searchable text per distinct title (a title not translated is its default language's).
      const texts = [...new Set(Array.from(this.languages, (_, k) => searchable(this.title(i, k))))];
      title = this.titles[i] = texts.length === 1 ? texts[0] : texts;
    }
    if (typeof title === 'string') return matchesQuery(title, queryWords);
    for (const text of title) if (matchesQuery(text, queryWords)) return true;
    return false;
  }

  /** True when one of event i's tags is in the mask. */
  hasTag(i: number, mask: Uint8Array): boolean {
    const { tagStart, tagCode } = this.columns;
    for (let t = tagStart[i]; t < tagStart[i + 1]; t++) if (mask[tagCode[t]] !== 0) return true;
    return false;
  }

  /** True when event i has every one of the `wanted` tags of the mask (tagMask of a list of `wanted` distinct tags). */
  hasAllTags(i: number, mask: Uint8Array, wanted: number): boolean {
    const { tagStart, tagCode } = this.columns;
    if (tagStart[i + 1] - tagStart[i] < wanted) return false;
    // Places seen, as bits for up to 31 tags (no allocation), else in a small array.
    const many = wanted > 31 ? new Uint8Array(wanted + 1) : null;
    let bits = 0;
    let seen = 0;
    for (let t = tagStart[i]; t < tagStart[i + 1]; t++) {
      const k = mask[tagCode[t]];
      if (k === 0) continue;
      if (many) {
        if (many[k] === 0) { many[k] = 1; seen++; }
      } else if ((bits & (1 << (k - 1))) === 0) {
        bits |= 1 << (k - 1);
        seen++;
      }
    }
    return seen === wanted;
  }

  /**
   * Writes event i as served, as JSON bytes: the columns' own bytes (ids, the texts kept as JSON) and pieces
   * encoded once (the dictionaries' entries), copied one after another, with no string, no object and no
   * JSON.stringify per event: the busiest route's pages are made this way. `lang` is the piece of texts to write
   * (`languageIndex`): the map's default language unless said.
   */
  writeRecord(i: number, w: ByteWriter, lang = 0): void {
    const key = this.ringKey(i, lang);
    if (this.recent.writeKept(key, w)) return;
    const from = w.length;
    const [bytes, start, end] = this.textsOf(i, lang);
    this.writeColumns(i, bytes, start, end, w);
    this.recent.keep(key, w, from);
  }

  /** The key of event i in language piece `lang` in a ring of records written lately. */
  private ringKey(i: number, lang: number): number {
    return i * (this.segments + 1) + lang;
  }

  /** Where event i's texts in language piece `lang` are: bytes, start and end. */
  private textsOf(i: number, lang: number): [Uint8Array, number, number] {
    if (lang < this.segments) {
      const piece = i * this.segments + lang;
      return [this.columns.textBytes, this.columns.textOffsets[piece], this.columns.textOffsets[piece + 1]];
    }
    if (this.allTexts) return [this.columns.allBytes, this.columns.allOffsets[i], this.columns.allOffsets[i + 1]];
    const all = utf8Bytes(withEveryLanguage(this.texts.get(i * this.segments), this.languages[0]));
    return [all, 0, all.length];
  }

  /**
   * The events at `positions` as a JSON array of records with only the fields `selection` keeps (`fields`, `omit`),
   * each written as `writeRecords` writes it less the other members, byte for byte: the columns' members are written
   * or not, and the runs of texts are copied member by member. Less is written than for the whole record.
   */
  writeSelectedRecords(positions: Int32Array, w: ByteWriter, lang: number, selection: MemberSelection): ByteWriter {
    const { fixed, defaults, recent } = this.selectedWriting(selection);
    w.byte(0x5b);
    for (let k = 0; k < positions.length; k++) {
      if (k > 0) w.byte(COMMA);
      const i = positions[k];
      const key = this.ringKey(i, lang);
      if (recent.writeKept(key, w)) continue;
      const from = w.length;
      const [bytes, start, end] = this.textsOf(i, lang);
      this.writeSelected(i, bytes, start, end, w, selection, fixed, defaults);
      recent.keep(key, w, from);
    }
    return w.byte(0x5d);
  }

  /**
   * What writing records with `selection` needs, made once per selection for the few selections asked last (an app
   * asks the same `fields` on every page; a selection asked after SELECTIONS_KEPT others starts over): which of
   * FIXED_MEMBERS it keeps, the members it keeps of the default extras (most events give none of the extras, so these
   * are the same bytes for each), and a ring of the records it wrote lately, smaller than the whole records' ring,
   * as its records are.
   */
  private selectedWriting(selection: MemberSelection): SelectedWriting {
    let writing = this.selections.get(selection.key);
    if (writing) {
      this.selections.delete(selection.key);
    } else {
      const fixed = new Uint8Array(FIXED_MEMBERS.length);
      for (let k = 0; k < FIXED_MEMBERS.length; k++) fixed[k] = selects(selection, FIXED_MEMBERS[k]) ? 1 : 0;
      copyMembers(DEFAULT_EXTRAS_BYTES, 0, DEFAULT_EXTRAS_BYTES.length, selection, scratch.reset(), false);
      writing = { fixed, defaults: scratch.view(0).slice(), recent: new RecentRecords(Math.min(SELECTED_RECORD_BYTES, 2 * this.columns.textBytes.length)) };
      if (this.selections.size >= SELECTIONS_KEPT) this.selections.delete(this.selections.keys().next().value!);
    }
    this.selections.set(selection.key, writing);
    return writing;
  }

  /** What `selectedWriting` made, by selection, the one asked last at the end. */
  private readonly selections = new Map<string, SelectedWriting>();

  /**
   * `writeColumns` with only the members kept: `fixed` says which of FIXED_MEMBERS, `selection` which of the texts';
   * `defaults`, the default extras' members kept, written as they are.
   */
  private writeSelected(i: number, textBytes: Uint8Array, textStart: number, textEnd: number, w: ByteWriter, selection: MemberSelection,
    fixed: Uint8Array, defaults: Uint8Array): void {
    const { typeCode, createdMs, idBytes, idOffsets } = this.columns;
    const json = this.dictionaryJson();
    /** True once a member is written: each after it gets a comma. */
    let wrote = false;
    const member = (k: number) => {
      if (!fixed[k]) return false;
      if (wrote) w.byte(COMMA);
      wrote = true;
      return true;
    };
    const texts = (start: number, end: number) => {
      const at = w.length;
      copyMembers(textBytes, start, end, selection, w, wrote);
      wrote ||= w.length > at;
    };
    // The same members in the same order as writeColumns.
    w.byte(0x7b);
    if (member(F_ID)) w.ascii('"id":"').bytes(idBytes, idOffsets[i], idOffsets[i + 1]).byte(0x22);
    if (member(F_MAP_ID)) w.ascii('"map_id":').bytes(json.mapId);
    const split = endOfPiece(textBytes, textStart, textEnd);
    texts(textStart, split);
    if (member(F_EVENT_TYPE)) w.ascii('"event_type":').bytes(json.types[typeCode[i]]);
    if (member(F_TAGS)) this.writeTags(i, w.ascii('"tags":'));
    if (member(F_STARTS_AT)) {
      writeUtc(this.startMs[i], w.ascii('"starts_at":"'));
      w.byte(0x22);
    }
    if (member(F_ENDS_AT)) {
      writeUtc(this.endMs[i], w.ascii('"ends_at":"'));
      w.byte(0x22);
    }
    if (member(F_TIME_ZONE)) w.ascii('"time_zone":').bytes(json.timeZone);
    const extras = endOfPiece(textBytes, split + 1, textEnd) + 1;
    texts(split + 1, extras - 1);
    if (member(F_STATUS)) w.ascii('"status":').bytes(STATUS_JSON[this.columns.statusCode[i]]);
    if (extras < textEnd) texts(extras, textEnd);
    else if (defaults.length > 0) {
      if (wrote) w.byte(COMMA);
      w.bytes(defaults);
      wrote = true;
    }
    if (member(F_CREATED_AT)) {
      writeUtc(createdMs[i], w.ascii('"created_at":"'));
      w.byte(0x22);
    }
    if (member(F_ANCHORS)) this.writeAnchors(i, w.ascii('"anchors":'));
    w.byte(0x7d);
  }

  /** Event i's tags as a JSON array. */
  private writeTags(i: number, w: ByteWriter): void {
    const { tagStart, tagCode } = this.columns;
    const tags = this.dictionaryJson().tags;
    w.byte(0x5b);
    for (let t = tagStart[i]; t < tagStart[i + 1]; t++) {
      if (t > tagStart[i]) w.byte(COMMA);
      w.bytes(tags[tagCode[t]]);
    }
    w.byte(0x5d);
  }

  /** Event i's anchors as a JSON array of `{id, type}`. */
  private writeAnchors(i: number, w: ByteWriter): void {
    const { anchorStart, anchorPoi, poiIdBytes, poiIdOffsets, poiTypeCode } = this.columns;
    w.byte(0x5b);
    for (let a = anchorStart[i]; a < anchorStart[i + 1]; a++) {
      const k = anchorPoi[a];
      if (a > anchorStart[i]) w.byte(COMMA);
      // POI ids are UUIDs and types one of three words (the bundle's schema): nothing to escape.
      w.ascii('{"id":"').bytes(poiIdBytes, poiIdOffsets[k], poiIdOffsets[k + 1]).ascii('","type":"').ascii(POI_TYPES[poiTypeCode[k]]).ascii('"}');
    }
    w.byte(0x5d);
  }

  /** The JSON of the dictionaries' entries as bytes, made the first time a record is. */
  private dictionaryJson(): { mapId: Uint8Array; timeZone: Uint8Array; types: Uint8Array[]; tags: Uint8Array[] } {
    return (this.json ??= {
      mapId: utf8Bytes(JSON.stringify(this.mapId)), timeZone: utf8Bytes(JSON.stringify(this.timeZone)),
      types: this.dict.types.map((t) => utf8Bytes(JSON.stringify(t))), tags: this.dict.tags.map((t) => utf8Bytes(JSON.stringify(t))),
    });
  }

  /**
   * Records written lately (see recent-records.ts), per thread (the columns are shared, this is not), in a ring
   * of at most twice the table's text bytes.
   */
  private readonly recent: RecentRecords;

  /** Writes event i with its texts from `textBytes[textStart, textEnd)`. */
  private writeColumns(i: number, textBytes: Uint8Array, textStart: number, textEnd: number, w: ByteWriter): void {
    const { typeCode, createdMs, idBytes, idOffsets } = this.columns;
    const json = this.dictionaryJson();
    // The texts are `"title":…,"description":…` TEXT_SEPARATOR `"url":…,…` TEXT_SEPARATOR and the extras: JSON
    // holds no raw line feed, so each is a separator.
    // Ids are UUIDs (the bundle's schema): nothing in them to escape.
    w.ascii('{"id":"').bytes(idBytes, idOffsets[i], idOffsets[i + 1]).ascii('","map_id":').bytes(json.mapId).byte(COMMA);
    const split = w.bytesUntil(textBytes, textStart, textEnd, SEPARATOR_BYTE);
    w.ascii(',"event_type":').bytes(json.types[typeCode[i]]).ascii(',"tags":');
    this.writeTags(i, w);
    w.ascii(',"starts_at":"');
    writeUtc(this.startMs[i], w);
    w.ascii('","ends_at":"');
    writeUtc(this.endMs[i], w);
    w.ascii('","time_zone":').bytes(json.timeZone).byte(COMMA);
    const extras = w.bytesUntil(textBytes, split + 1, textEnd, SEPARATOR_BYTE) + 1;
    w.ascii(',"status":').bytes(STATUS_JSON[this.columns.statusCode[i]]).byte(COMMA);
    if (extras < textEnd) w.bytes(textBytes, extras, textEnd);
    else w.bytes(DEFAULT_EXTRAS_BYTES);
    w.ascii(',"created_at":"');
    writeUtc(createdMs[i], w);
    w.ascii('","anchors":');
    this.writeAnchors(i, w);
    w.byte(0x7d);
  }

  /** The JSON of the dictionaries' entries as bytes, made the first time a record is. */
  private json: { mapId: Uint8Array; timeZone: Uint8Array; types: Uint8Array[]; tags: Uint8Array[] } | null = null;

  /** Event i as served, as JSON text (`writeRecord`'s bytes), in language piece `lang`. */
  recordJson(i: number, lang = 0): string {
    this.writeRecord(i, scratch.reset(), lang);
    return decoder.decode(scratch.view(0));
  }

  /** The events at `positions` as a JSON array of records, in language piece `lang`, written to `w`. */
  writeRecords(positions: Int32Array, w: ByteWriter, lang = 0): ByteWriter {
    w.byte(0x5b);
    for (let k = 0; k < positions.length; k++) {
      if (k > 0) w.byte(0x2c);
      this.writeRecord(positions[k], w, lang);
    }
    return w.byte(0x5d);
  }

  /** Event i as served, in language piece `lang` (`languageIndex`). */
  summary(i: number, lang = 0): Record<string, unknown> {
    return JSON.parse(this.recordJson(i, lang)) as Record<string, unknown>;
  }

  /**
   * The tables as bytes: a little-endian u32 header length, the JSON header, then each column,
   * 8-byte aligned so it can be viewed in place when read back.
   */
  static encode(tables: readonly EventTable[]): Uint8Array[] {
    const chunks: Uint8Array[] = [];
    let at = 0;
    const heads = tables.map((t) => {
      const columns: Record<string, [number, number]> = {};
      for (const name of COLUMN_NAMES) {
        const col = t.columns[name];
        at = align8(at);
        columns[name] = [at, col.length];
        at += col.byteLength;
      }
      return { mapId: t.mapId, timeZone: t.timeZone, length: t.length, dictionaries: t.dict, languages: t.languages, columns };
    });
    const header = encoder.encode(JSON.stringify({ format: TABLE_FORMAT, littleEndian: LITTLE_ENDIAN, tables: heads }));
    const base = align8(4 + header.length);
    const prefix = new Uint8Array(base);
    new DataView(prefix.buffer).setUint32(0, header.length, true);
    prefix.set(header, 4);
    chunks.push(prefix);
    let written = 0;
    for (const t of tables) {
      for (const name of COLUMN_NAMES) {
        const col = t.columns[name];
        const pad = align8(written) - written;
        if (pad > 0) chunks.push(new Uint8Array(pad));
        chunks.push(new Uint8Array(col.buffer, col.byteOffset, col.byteLength));
        written = align8(written) + col.byteLength;
      }
    }
    return chunks;
  }

  /** Reads back what `encode` wrote; throws on anything else. The columns are views into `bytes`. */
  static decode(bytes: Uint8Array): EventTable[] {
    return runNow(EventTable.decodeSteps(bytes));
  }

  /** `decode`, yielding as it goes. */
  static *decodeSteps(bytes: Uint8Array): Steps<EventTable[]> {
    // A copy of its own (a Buffer's slice would be another view at the same offset).
    if (bytes.byteOffset % 8 !== 0) bytes = new Uint8Array(bytes);
    const headerLength = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
    const header = JSON.parse(decoder.decode(bytes.subarray(4, 4 + headerLength))) as {
      format: number; littleEndian: boolean; tables: (TableHead & { columns: Record<ColumnName, [number, number]> })[];
    };
    if (header.format !== TABLE_FORMAT) throw new Error(`event tables of format ${header.format}, not ${TABLE_FORMAT}`);
    if (header.littleEndian !== LITTLE_ENDIAN) throw new Error('event tables written on a machine of the other byte order');
    const base = bytes.byteOffset + align8(4 + headerLength);
    const tables: EventTable[] = [];
    for (const head of header.tables) {
      const columns = {} as Record<ColumnName, unknown>;
      for (const name of COLUMN_NAMES) {
        const [offset, length] = head.columns[name];
        const Type = COLUMN_TYPES[name];
        if (base + offset + length * Type.BYTES_PER_ELEMENT > bytes.byteOffset + bytes.byteLength) throw new Error('event tables are truncated');
        columns[name] = new Type(bytes.buffer as ArrayBuffer, base + offset, length);
      }
      yield* checkShape(head, columns as EventColumns);
      tables.push(yield* EventTable.assemble(head, columns as EventColumns));
    }
    return tables;
  }
}

/** Throws unless columns read back fit together: lengths, offsets within their bytes, codes within their dictionaries. */
function* checkShape(head: TableHead, c: EventColumns): Steps<void> {
  const n = head.length;
  const fail = (what: string) => { throw new Error(`event tables are inconsistent: ${what}`); };
  for (const name of ['startMs', 'endMs', 'createdMs', 'typeCode', 'statusCode', 'seriesCode'] as const) if (c[name].length !== n) fail(name);
  const seriesCount = Array.isArray(head.dictionaries.series) ? head.dictionaries.series.length : fail('series');
  for (let i = 0; i < n; i++) if (c.seriesCode[i] < -1 || c.seriesCode[i] >= seriesCount!) fail('seriesCode');
  if (c.seriesEventStart.length !== seriesCount! + 1 || c.seriesEventStart[seriesCount!] !== c.seriesEvents.length) fail('seriesEventStart');
  for (let i = 0; i < c.seriesEvents.length; i++) if (c.seriesEvents[i] < 0 || c.seriesEvents[i] >= n) fail('seriesEvents');
  for (const name of ['idOffsets', 'tagStart', 'anchorStart'] as const) if (c[name].length !== n + 1) fail(name);
  if (!Array.isArray(head.languages) || head.languages.length === 0) fail('languages');
  if (c.textOffsets.length !== n * head.languages.length + 1) fail('textOffsets');
  if (c.allOffsets.length === 0 ? c.allBytes.length !== 0 || head.languages.length > 1
    : c.allOffsets.length !== n + 1 || c.allOffsets[n] !== c.allBytes.length) fail('allOffsets');
  if (c.idOffsets[n] !== c.idBytes.length || c.textOffsets[c.textOffsets.length - 1] !== c.textBytes.length) fail('string offsets');
  if (c.tagStart[n] !== c.tagCode.length || c.anchorStart[n] !== c.anchorPoi.length) fail('list offsets');
  const { types, tags } = head.dictionaries;
  const pois = c.poiTypeCode.length;
  if (c.poiIdOffsets.length !== pois + 1 || c.poiIdOffsets[pois] !== c.poiIdBytes.length) fail('anchored POIs');
  for (let k = 0; k < pois; k++) if (c.poiIdOffsets[k] > c.poiIdOffsets[k + 1]) fail('anchored POIs');
  for (const [codes, size] of [[c.typeCode, types.length], [c.statusCode, EVENT_STATUSES.length], [c.tagCode, tags.length], [c.anchorPoi, pois],
    [c.poiTypeCode, POI_TYPES.length]] as const) {
    for (let i = 0; i < codes.length; i++) {
      if (codes[i] >= size) fail('codes');
      if ((i & (STRIDE - 1)) === 0) yield;
    }
  }
  // The lookups, made by the publisher: their sizes, and positions within the table.
  if (c.idSlots.length !== slotCount(n)) fail('idSlots');
  if (c.poiSlots.length !== slotCount(pois)) fail('poiSlots');
  if (c.poiEventStart.length !== pois + 1 || c.poiEventStart[0] !== 0 || c.poiEventStart[pois] !== c.anchorPoi.length) fail('poiEventStart');
  for (let k = 0; k < pois; k++) if (c.poiEventStart[k] > c.poiEventStart[k + 1]) fail('poiEventStart');
  if (c.poiEvents.length !== c.anchorPoi.length) fail('poiEvents');
  // idSlots holds a position + 1 (0: empty), poiSlots a code + 1, poiEvents positions.
  for (const [values, highest] of [[c.idSlots, n], [c.poiSlots, pois], [c.poiEvents, n - 1]] as const) {
    for (let i = 0; i < values.length; i++) {
      if (values[i] < 0 || values[i] > highest) fail('lookups');
      if ((i & (STRIDE - 1)) === 0) yield;
    }
  }
}

/** A typed array that grows as values are appended (capacity doubles); `view` is the filled part, not a copy. */
class Growable<A extends Float64Array | Uint32Array | Uint8Array | Int32Array> {
  private readonly make: (n: number) => A;
  private array: A;
  length = 0;

  constructor(make: (n: number) => A, capacity = 1024) {
    this.make = make;
    this.array = make(capacity);
  }

  /** Room for `more` values past the filled part. */
  reserve(more: number): A {
    if (this.length + more > this.array.length) {
      const grown = this.make(Math.max(this.array.length * 2, this.length + more));
      grown.set(this.array.subarray(0, this.length));
      this.array = grown;
    }
    return this.array;
  }

  push(value: number): void {
    this.reserve(1)[this.length++] = value;
  }

  /** Appends a string's UTF-8 bytes (a byte array only). */
  pushUtf8(text: string): void {
    // A UTF-16 code unit takes at most three UTF-8 bytes.
    const bytes = this.reserve(text.length * 3) as Uint8Array;
    this.length += encoder.encodeInto(text, bytes.subarray(this.length)).written;
  }

  get view(): A {
    return this.array.subarray(0, this.length) as A;
  }
}

/**
 * Makes the table of one map from its events, taken one at a time in any order (pages read back from the
 * store, say) and put in keyset order at the end. Each event goes straight into column buffers (bytes and
 * numbers, no object per event), so the records it came from can be dropped as soon as they are added, and
 * events added in keyset order become the table's columns without another copy.
 */
export class EventTableBuilder {
  private readonly mapId: string;
  private readonly timeZone: string;
  private readonly languages: string[];
  private readonly dictionaries: EventDictionaries = { types: [], tags: [], series: [] };
  /** The anchored POIs' ids, by code. */
  private readonly pois: string[] = [];
  private readonly codes = { types: new Map<string, number>(), tags: new Map<string, number>(), pois: new Map<string, number>(), series: new Map<string, number>() };
  private readonly idBytes = new Growable((n) => new Uint8Array(n), 1 << 16);
  private readonly idOffsets = new Growable((n) => new Uint32Array(n));
  private readonly textBytes = new Growable((n) => new Uint8Array(n), 1 << 16);
  private readonly textOffsets = new Growable((n) => new Uint32Array(n));
  /** The pieces with every language: from the start for a map of several languages, else from the first event that needs them. */
  private all: { bytes: Growable<Uint8Array>; offsets: Growable<Uint32Array> } | null = null;
  private readonly startMs = new Growable((n) => new Float64Array(n));
  private readonly endMs = new Growable((n) => new Float64Array(n));
  private readonly createdMs = new Growable((n) => new Float64Array(n));
  private readonly typeCode = new Growable((n) => new Uint32Array(n));
  private readonly statusCode = new Growable((n) => new Uint8Array(n));
  private readonly seriesCode = new Growable((n) => new Int32Array(n));
  private readonly tagStart = new Growable((n) => new Uint32Array(n));
  private readonly tagCode = new Growable((n) => new Uint32Array(n));
  private readonly anchorStart = new Growable((n) => new Uint32Array(n));
  private readonly anchorPoi = new Growable((n) => new Uint32Array(n));
  /** The keyset of the event added last, to tell whether events come in order. */
  private lastStartMs = -Infinity;
  private lastId = '';
  private sorted = true;

  /** `languages`: the map's, its default first (see `mapLanguages`). */
  constructor(mapId: string, timeZone: string, languages: readonly string[] = ['en']) {
    this.mapId = mapId;
    this.timeZone = timeZone;
    this.languages = [...languages];
    for (const offsets of [this.idOffsets, this.textOffsets, this.tagStart, this.anchorStart]) offsets.push(0);
    if (this.languages.length > 1) this.keepAll();
  }

  /**
   * Starts keeping the pieces with every language, those of the events added so far made from their one
   * language's (a map of one language: they are its plain texts, as objects).
   */
  private keepAll(): { bytes: Growable<Uint8Array>; offsets: Growable<Uint32Array> } {
    if (this.all) return this.all;
    const all = (this.all = { bytes: new Growable((n) => new Uint8Array(n), 1 << 16), offsets: new Growable((n) => new Uint32Array(n)) });
    all.offsets.push(0);
    const texts = new StringColumn(this.textBytes.view, this.textOffsets.view);
    for (let i = 0; i < this.length; i++) {
      all.bytes.pushUtf8(withEveryLanguage(texts.get(i), this.languages[0]));
      all.offsets.push(all.bytes.length);
    }
    return all;
  }

  /** Appends one piece of texts to the text column, or to the every-language one: head, tail and extras as JSON objects. */
  private pushPiece(bytes: Growable<Uint8Array>, offsets: Growable<Uint32Array>, head: string, { tail, extras }: Pieces): void {
    bytes.pushUtf8(`${head.slice(1, -1)}${TEXT_SEPARATOR}${tail}${TEXT_SEPARATOR}${extras}`);
    if (bytes.length > 0xffffffff) throw new Error('event texts exceed 4 GiB');
    offsets.push(bytes.length);
  }

  /** How many events were added. */
  get length(): number {
    return this.startMs.length;
  }

  add({ doc, startMs, anchors }: EventInput): void {
    if (this.length > 0 && this.sorted) {
      this.sorted = this.lastStartMs < startMs || (this.lastStartMs === startMs && this.lastId < doc.id);
    }
    this.lastStartMs = startMs;
    this.lastId = doc.id;
    this.idBytes.pushUtf8(doc.id);
    this.idOffsets.push(this.idBytes.length);
    const [fallback] = this.languages;
    const plain = (value: EventT['title'] | undefined) => value === undefined || typeof value === 'string';
    if (this.languages.length === 1 && plain(doc.title) && plain(doc.description) && plain(doc.price) && plain(doc.organizer?.name)) {
      // One language and plain texts (every bundle of the first release): one piece, as before languages came.
      const head = JSON.stringify({ title: doc.title, description: orNull(doc.description) });
      const pieces = piecesOf(doc, (text) => orNull(text as string | undefined));
      this.pushPiece(this.textBytes, this.textOffsets, head, pieces);
      if (this.all) {
        this.all.bytes.pushUtf8(withEveryLanguage(`${head.slice(1, -1)}${TEXT_SEPARATOR}${pieces.tail}${TEXT_SEPARATOR}${pieces.extras}`, fallback));
        this.all.offsets.push(this.all.bytes.length);
      }
    } else {
      const local = (value: EventT['title'] | undefined) => (value === undefined ? null : new LocalText(value, fallback, this.languages));
      const title = local(doc.title)!;
      const description = local(doc.description);
      const texts = new Map<EventT['title'], LocalText>();
      const localOf = (value: EventT['title'] | undefined) => {
        if (value === undefined) return null;
        let text = texts.get(value);
        if (!text) texts.set(value, (text = local(value)!));
        return text;
      };
      // One piece per language; the JSON of each written as it is served.
      for (let k = 0; k < this.languages.length; k++) {
        const pick = (text: LocalText | null) => (text === null ? null : text.in(this.languages[k]));
        this.pushPiece(this.textBytes, this.textOffsets, JSON.stringify({ title: pick(title), description: pick(description) }),
          piecesOf(doc, (value) => pick(localOf(value))));
      }
      // The piece with every language, kept once a text has a language other than the default (or the map several).
      const all = (text: LocalText | null) => (text === null ? null : text.values);
      const onlyDefault = [title, description, localOf(doc.price), localOf(doc.organizer?.name)]
        .every((t) => t === null || (Object.keys(t.values).length === 1 && t.values[fallback] !== undefined));
      const kept = this.all ?? (onlyDefault ? null : this.keepAll());
      if (kept) {
        this.pushPiece(kept.bytes, kept.offsets, JSON.stringify({ title: all(title), description: all(description) }),
          piecesOf(doc, (value) => all(localOf(value))));
      }
    }
    this.startMs.push(startMs);
    this.endMs.push(Date.parse(doc.ends_at));
    this.createdMs.push(Date.parse(doc.created_at));
    this.typeCode.push(this.code('types', doc.event_type));
    this.statusCode.push(EVENT_STATUSES.indexOf(doc.status ?? 'scheduled'));
    this.seriesCode.push(doc.series_id === undefined ? -1 : this.code('series', doc.series_id.toLowerCase()));
    for (const tag of doc.tags) this.tagCode.push(this.code('tags', tag));
    this.tagStart.push(this.tagCode.length);
    for (const id of anchors) this.anchorPoi.push(this.code('pois', id));
    this.anchorStart.push(this.anchorPoi.length);
  }

  /** The table, in keyset order (starts_at in ms, then id); `poiType` names the kind of each anchored POI. */
  finish(poiType: (id: string) => PoiType): EventTable {
    const pois = StringColumn.of(this.pois);
    const columns: EventColumns = {
      poiIdBytes: pois.bytes, poiIdOffsets: pois.offsets, poiTypeCode: Uint8Array.from(this.pois, (id) => POI_TYPES.indexOf(poiType(id))),
      idBytes: this.idBytes.view, idOffsets: this.idOffsets.view, textBytes: this.textBytes.view, textOffsets: this.textOffsets.view,
      allBytes: this.all?.bytes.view ?? new Uint8Array(0), allOffsets: this.all?.offsets.view ?? new Uint32Array(0), startMs: this.startMs.view, endMs: this.endMs.view, createdMs: this.createdMs.view, typeCode: this.typeCode.view,
      statusCode: this.statusCode.view, seriesCode: this.seriesCode.view, tagStart: this.tagStart.view, tagCode: this.tagCode.view, anchorStart: this.anchorStart.view, anchorPoi: this.anchorPoi.view,
      ...NO_LOOKUPS,
    };
    return EventTable.fromColumns({ mapId: this.mapId, timeZone: this.timeZone, length: this.length, dictionaries: this.dictionaries, languages: this.languages },
      this.sorted ? columns : inKeysetOrder(columns, this.languages.length));
  }

  private code(kind: 'types' | 'tags' | 'pois' | 'series', value: string): number {
    const index = this.codes[kind];
    let code = index.get(value);
    if (code === undefined) index.set(value, (code = (kind === 'pois' ? this.pois : this.dictionaries[kind]).push(value) - 1));
    return code;
  }
}

/** The same columns with the events put in keyset order: starts_at in ms, then id (UTF-8 bytes compare as the strings do). */
function inKeysetOrder(c: EventColumns, segments: number): EventColumns {
  const n = c.startMs.length;
  const ids = new StringColumn(c.idBytes, c.idOffsets);
  const compareIds = (a: number, b: number) => {
    const [aStart, aEnd, bStart, bEnd] = [c.idOffsets[a], c.idOffsets[a + 1], c.idOffsets[b], c.idOffsets[b + 1]];
    for (let x = aStart, y = bStart; x < aEnd && y < bEnd; x++, y++) if (ids.bytes[x] !== ids.bytes[y]) return ids.bytes[x] - ids.bytes[y];
    return (aEnd - aStart) - (bEnd - bStart);
  };
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => c.startMs[a] - c.startMs[b] || compareIds(a, b));
  /** A column of variable-length items (bytes or codes, with their offsets) in the new order. */
  const reorder = <A extends Uint8Array | Uint32Array>(items: A, offsets: Uint32Array): [A, Uint32Array] => {
    const out = new (items.constructor as new (n: number) => A)(items.length);
    const outOffsets = new Uint32Array(n + 1);
    for (let i = 0, at = 0; i < n; i++) {
      const k = order[i];
      out.set(items.subarray(offsets[k], offsets[k + 1]), at);
      at += offsets[k + 1] - offsets[k];
      outOffsets[i + 1] = at;
    }
    return [out, outOffsets];
  };
  const pick = <A extends Float64Array | Uint32Array | Uint8Array | Int32Array>(values: A): A => {
    const out = new (values.constructor as new (n: number) => A)(n);
    for (let i = 0; i < n; i++) out[i] = values[order[i]];
    return out;
  };
  const [idBytes, idOffsets] = reorder(c.idBytes, c.idOffsets);
  // An event's texts are `segments` pieces in a row: moved together, their offsets shifted.
  const textBytes = new Uint8Array(c.textBytes.length);
  const textOffsets = new Uint32Array(c.textOffsets.length);
  for (let i = 0, at = 0; i < n; i++) {
    const k = order[i];
    const start = c.textOffsets[k * segments];
    textBytes.set(c.textBytes.subarray(start, c.textOffsets[(k + 1) * segments]), at);
    for (let s = 1; s <= segments; s++) textOffsets[i * segments + s] = at + c.textOffsets[k * segments + s] - start;
    at += c.textOffsets[(k + 1) * segments] - start;
  }
  const [tagCode, tagStart] = reorder(c.tagCode, c.tagStart);
  const [allBytes, allOffsets] = c.allOffsets.length > 0 ? reorder(c.allBytes, c.allOffsets) : [c.allBytes, c.allOffsets];
  const [anchorPoi, anchorStart] = reorder(c.anchorPoi, c.anchorStart);
  return { idBytes, idOffsets, textBytes, textOffsets, allBytes, allOffsets, startMs: pick(c.startMs), endMs: pick(c.endMs), createdMs: pick(c.createdMs),
    typeCode: pick(c.typeCode), statusCode: pick(c.statusCode), seriesCode: pick(c.seriesCode), tagStart, tagCode, anchorStart, anchorPoi, poiIdBytes: c.poiIdBytes, poiIdOffsets: c.poiIdOffsets,
    poiTypeCode: c.poiTypeCode, ...NO_LOOKUPS };
}

/**
 * A piece of texts in one language (`"title":"…",…`) as the piece with every language: each text an object of
 * that language alone (`"title":{"en":"…"}`), as a plain text is served to `langs=all`.
 */
function withEveryLanguage(piece: string, lang: string): string {
  const [headText, tailText, extrasText] = piece.split(TEXT_SEPARATOR);
  const head = JSON.parse(`{${headText}}`) as { title: string; description: string | null };
  const tail = JSON.parse(`{${tailText}}`) as Pick<EventTail<string>, 'url' | 'image_url' | 'price'>;
  const wrap = (text: string | null) => (text === null ? null : { [lang]: text });
  const allHead = JSON.stringify({ title: wrap(head.title), description: wrap(head.description) });
  const allTail = JSON.stringify({ ...tail, price: wrap(tail.price) }).slice(1, -1);
  if (extrasText === '') return `${allHead.slice(1, -1)}${TEXT_SEPARATOR}${allTail}${TEXT_SEPARATOR}`;
  const extras = JSON.parse(`{${extrasText}}`) as EventTail<string>;
  const allExtras = JSON.stringify({ ...extras, organizer: extras.organizer && { ...extras.organizer, name: wrap(extras.organizer.name) } }).slice(1, -1);
  return `${allHead.slice(1, -1)}${TEXT_SEPARATOR}${allTail}${TEXT_SEPARATOR}${allExtras}`;
}

/** The second piece of an event's record (after the texts of its head), with its texts as `T`. */
interface EventTail<T> {
  url: string | null;
  image_url: string | null;
  price: T | null;
  status: EventStatus;
  previous_start: string | null;
  organizer: { name: T | null; url: string | null; email: string | null; phone: string | null } | null;
  offers: { free: boolean | null; price: number | null; currency: string | null; booking_url: string | null; availability: string | null } | null;
  attendance_mode: string | null;
  online_url: string | null;
  capacity: number | null;
  accessibility: string[];
  series_id: string | null;
  original_start: string | null;
  all_day: boolean;
  start_date: string | null;
  end_date: string | null;
}

/**
 * The second piece of event `doc`'s record, its texts given by `text` (a language's, or every language's): the
 * fields a bundle may leave out are served as null (an empty list for `accessibility`), as everywhere in the API.
 */
export function tailOf<T>(doc: StoredEvent, text: (value: EventT['title'] | undefined) => T | null): EventTail<T> {
  const { organizer: o, offers: f } = doc;
  return {
    url: orNull(doc.url), image_url: orNull(doc.image_url), price: text(doc.price),
    status: doc.status ?? 'scheduled', previous_start: doc.previous_start === undefined ? null : toUtc(Date.parse(doc.previous_start)),
    organizer: o ? { name: text(o.name), url: orNull(o.url), email: orNull(o.email), phone: orNull(o.phone) } : null,
    offers: f ? { free: orNull(f.free), price: orNull(f.price), currency: orNull(f.currency), booking_url: orNull(f.booking_url), availability: orNull(f.availability) } : null,
    attendance_mode: orNull(doc.attendance_mode), online_url: orNull(doc.online_url), capacity: orNull(doc.capacity),
    accessibility: doc.accessibility ? [...new Set(doc.accessibility)] : [],
    series_id: doc.series_id === undefined ? null : doc.series_id.toLowerCase(),
    // An all-day series' occurrences are named by their date.
    original_start: doc.original_start === undefined ? null : doc.original_start.length === 10 ? doc.original_start : toUtc(Date.parse(doc.original_start)),
    all_day: doc.all_day === true, start_date: orNull(doc.start_date), end_date: orNull(doc.end_date),
  };
}

/** The tail and the extras of an event's piece of texts, as JSON members (no braces); extras empty when they are the defaults. */
interface Pieces { tail: string; extras: string }

/** `tailOf`, split as the table keeps it: the URLs and price, then the rest but the status (a column), or nothing for the defaults. */
function piecesOf<T>(doc: StoredEvent, text: (value: EventT['title'] | undefined) => T | null): Pieces {
  // Most events give none of the extras: no object is made for them.
  if (doc.previous_start === undefined && doc.organizer === undefined && doc.offers === undefined && doc.attendance_mode === undefined &&
    doc.online_url === undefined && doc.capacity === undefined && (doc.accessibility === undefined || doc.accessibility.length === 0) &&
    doc.series_id === undefined && doc.original_start === undefined && doc.all_day !== true) {
    return { tail: JSON.stringify({ url: orNull(doc.url), image_url: orNull(doc.image_url), price: text(doc.price) }).slice(1, -1), extras: '' };
  }
  const { url, image_url, price, status: _, ...extras } = tailOf(doc, text);
  const extrasText = JSON.stringify(extras).slice(1, -1);
  return { tail: JSON.stringify({ url, image_url, price }).slice(1, -1), extras: extrasText === DEFAULT_EXTRAS ? '' : extrasText };
}

/** The extras of an event that gives none of them (see EventColumns). */
const DEFAULT_EXTRAS = (() => {
  const { url: _u, image_url: _i, price: _p, status: _s, ...extras } = tailOf({} as StoredEvent, () => null);
  return JSON.stringify(extras).slice(1, -1);
})();
const DEFAULT_EXTRAS_BYTES = utf8Bytes(DEFAULT_EXTRAS);
/** What writing records with one selection needs (EventTable.selectedWriting). */
interface SelectedWriting { fixed: Uint8Array; defaults: Uint8Array; recent: RecentRecords }

/** How many selections (`fields`, `omit`) keep their records written lately, per table and thread, and in how many bytes each. */
const SELECTIONS_KEPT = 4;
const SELECTED_RECORD_BYTES = 2 * 1024 * 1024;

/** The members of an event record written from columns, not texts (writeColumns), in order; F_* index them. */
const FIXED_MEMBERS = ['id', 'map_id', 'event_type', 'tags', 'starts_at', 'ends_at', 'time_zone', 'status', 'created_at', 'anchors'].map(utf8Bytes);
const [F_ID, F_MAP_ID, F_EVENT_TYPE, F_TAGS, F_STARTS_AT, F_ENDS_AT, F_TIME_ZONE, F_STATUS, F_CREATED_AT, F_ANCHORS] = FIXED_MEMBERS.map((_, k) => k);

/** Where a piece of an event's texts ends: at the separator after it, or at `end`. */
function endOfPiece(bytes: Uint8Array, start: number, end: number): number {
  const k = bytes.indexOf(SEPARATOR_BYTE, start);
  return k < 0 || k > end ? end : k;
}

/** Each status as JSON, by code. */
const STATUS_JSON = EVENT_STATUSES.map((status) => utf8Bytes(JSON.stringify(status)));

/**
 * Between an event's pieces of text JSON: a line feed never occurs in JSON.stringify's output outside a
 * string, and inside one it is written `\n`.
 */
const TEXT_SEPARATOR = '\n';
const SEPARATOR_BYTE = 0x0a;
const COMMA = 0x2c;
/** The writer `recordJson` uses (one request at a time runs on a thread). */
const scratch = new ByteWriter(4096);

/** Changes whenever the encoding does, so a snapshot in an older encoding is rebuilt, not misread. */
export const TABLE_FORMAT = 9;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** The next multiple of 8 (typed arrays in shared bytes start on 8-byte boundaries). */
export const align8 = (n: number) => (n + 7) & ~7;
