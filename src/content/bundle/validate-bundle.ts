/**
 * Bundle validation: the valibot structure check, then every cross-record rule. Reports all problems,
 * each with the JSON path of the offending value, so a publisher can fix a bundle in one pass.
 *
 * Messages are written for people: a problem inside a record names the record
 * (`event "Ginjinha Tasting" ($.events[4]): missing required field "title"`), and a bad value is shown
 * (`starts_at must be a real calendar date-time, got "2027-02-30T10:00:00Z"`).
 */
import * as v from 'valibot';
import { Bundle, Event, type BundleT, type EventT } from './bundle-schema.ts';
import { canonicalTag } from '../model/local-text.ts';
import { expandSeries, SERIES_HORIZON_DAYS } from '../series.ts';
import { BundleError, cut, showValue, type BundleProblem, type Finding } from './findings.ts';
import { allDayRules, statusRules } from './event-rules.ts';
import { anyPoiHas, loadedHoursReader, type HoursPlace } from '../hours.ts';
import { wallMs, wallTimeAt } from '../../utils/zoned-time.ts';

export { BundleError, type BundleProblem } from './findings.ts';

/** The noun for one record of each top-level collection. */
const RECORD_NOUNS: Readonly<Record<string, string>> = {
  publishers: 'publisher', maps: 'map', icons: 'icon', categories: 'category', markers: 'marker', paths: 'path',
  polygons: 'polygon', events: 'event', lists: 'list', associations: 'association', sessions: 'session',
};

/** How many characters of a value or a name a message shows. */

const RECORD_PATH_RE = /^\$\.([a-z_]+)\[(\d+)\](.*)$/;
const IDENTIFIER_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Rec = Record<string, unknown>;
const isRecord = (x: unknown): x is Rec => typeof x === 'object' && x !== null && !Array.isArray(x);


/** Formats object keys and array indexes as a JSON path: `$.maps[0].versions[1].id`, `$.info["odd key"]`. */
export function formatJsonPath(keys: readonly (string | number)[]): string {
  let out = '$';
  for (const key of keys) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += IDENTIFIER_RE.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  }
  return out;
}

/** Names a record by its kind and name, title or id: `event "Ginjinha Tasting"`, `association 5b1c…`. */
function nameRecord(noun: string, item: unknown): string {
  if (!isRecord(item)) return noun;
  const kind = noun === 'category' && item.kind === 'tag' ? 'tag' : noun;
  for (const key of ['name', 'title']) {
    const name = item[key];
    if (typeof name === 'string' && name.trim() !== '') return `${kind} ${showValue(name)}`;
  }
  if (typeof item.id === 'string' && item.id !== '') return `${kind} ${cut(item.id)}`;
  if (typeof item.account_id === 'string') return `${kind} of account ${cut(item.account_id)}`;
  return kind;
}

/** Splits a JSON path into its named record (`event "Ginjinha Tasting" ($.events[4])`, or null) and the field within (`title`). */
export function describeLocation(root: unknown, path: string): { record: string | null; field: string } {
  const m = RECORD_PATH_RE.exec(path);
  if (!m || !Object.hasOwn(RECORD_NOUNS, m[1])) return { record: null, field: path.replace(/^\$\.?/, '') };
  const collection = isRecord(root) ? root[m[1]] : undefined;
  const item = Array.isArray(collection) ? collection[Number(m[2])] : undefined;
  return { record: `${nameRecord(RECORD_NOUNS[m[1]], item)} ($.${m[1]}[${m[2]}])`, field: m[3].replace(/^\./, '') };
}

/** What is wrong at one path, before it is put in words about its record. */
interface Statement {
  /** What is wrong: a predicate about the field (`must be a string`) or a sentence of its own. */
  text: string;
  /** The text is a predicate that follows the field's name (`starts_at must be…`) rather than a sentence after a colon. */
  predicate?: boolean;
  /** The field is missing altogether: the text is ignored. */
  missing?: boolean;
  /** The bad value, already shown, appended as `, got <value>`. */
  got?: string;
}

/** Words a statement about the value at `path` so it names its record: `event "X" ($.events[4]): missing required field "title"`. */
function describeProblem(root: unknown, path: string, statement: Statement): string {
  const { record, field } = describeLocation(root, path);
  const got = statement.got === undefined ? '' : `, got ${statement.got}`;
  if (statement.missing) {
    const missing = `missing required field ${showValue(field)}`;
    return record ? `${record}: ${missing}` : missing;
  }
  const subject = field || record || 'the bundle';
  const sentence = statement.predicate ? `${subject} ${statement.text}${got}` : `${subject}: ${statement.text}${got}`;
  if (!record || !field) return sentence;
  return `${record}: ${sentence}`;
}

/** Types valibot names in `expected`, in words. */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string', number: 'a number', boolean: 'true or false', Array: 'an array', Object: 'an object', null: 'null',
};

/** Turns valibot's `expected` (`string`, `("easy" | "hard")`, `"LineString"`) into words. */
function describeExpected(expected: string | null): string {
  if (!expected) return 'valid';
  const options = expected.replace(/^\((.*)\)$/, '$1').split(' | ').map((o) => TYPE_WORDS[o] ?? o);
  if (options.length === 1) return options[0];
  if (options.length === 2) return `${options[0]} or ${options[1]}`;
  return `one of ${options.join(', ')}`;
}

/** What a valibot issue says is wrong, in plain words, with the bad value. */
function describeIssue(issue: v.BaseIssue<unknown>): Statement {
  if (issue.kind === 'schema' && issue.received === 'undefined' && issue.input === undefined) {
    const last = issue.path?.at(-1);
    if (issue.type === 'object' && last?.type === 'object') return { text: '', missing: true };
    return { text: `is missing: it must be ${describeExpected(issue.expected)}`, predicate: true };
  }
  const got = showValue(issue.input);
  if (!issue.message.startsWith('Invalid ')) return { text: issue.message, predicate: /^must\b/.test(issue.message), got };
  const requirement = (issue as { requirement?: unknown }).requirement;
  switch (issue.type) {
    case 'integer': return { text: 'must be an integer', predicate: true, got };
    case 'finite': return { text: 'must be a finite number', predicate: true, got };
    case 'min_value': return { text: `must be at least ${String(requirement)}`, predicate: true, got };
    case 'max_value': return { text: `must be at most ${String(requirement)}`, predicate: true, got };
    default: return { text: `must be ${describeExpected(issue.expected)}`, predicate: true, got };
  }
}

/**
 * Validates structure, then references, geometry, ids and timestamps; returns the typed bundle or throws. A bundle
 * whose POIs have `hours` needs the hours reader loaded first (`readerFor` in src/content/hours.ts).
 */
export function validateBundle(input: unknown): BundleT {
  return validateWithWarnings(input).bundle;
}

/** `validateBundle`, with what the validation itself warns about (the series': see src/content/series.ts). */
export function validateWithWarnings(input: unknown, options: ValidatorOptions = {}): { bundle: BundleT; warnings: Finding[] } {
  const events = isRecord(input) && Array.isArray(input.events) ? input.events : null;
  const validator = new BundleValidator(events ? { ...input as Rec, events: [] } : input, options);
  const typed = events ? validator.addEvents(events, 0, input) : [];
  const problems = validator.finish();
  if (problems.length > 0) throw new BundleError(problems);
  return { bundle: { ...validator.head, events: typed }, warnings: validator.takeWarnings() };
}

/** How the validator judges series. */
export interface ValidatorOptions {
  /** Days a series without an end is expanded (SERIES_HORIZON_DAYS unless given). */
  seriesHorizonDays?: number;
  /** The time series are judged at, as if published then (default now). */
  nowMs?: number;
}

const POI_COLLECTIONS = ['markers', 'paths', 'polygons'] as const;

/** Where the hours of each map are evaluated: its country and its centre, by lowercase map id. */
export function hoursPlaces(maps: readonly { id: string; country?: string; map_data: { center: { lat: number; lng: number } } }[]): Map<string, HoursPlace> {
  return new Map(maps.map((m) => [m.id.toLowerCase(), { country: m.country ?? null, lat: m.map_data.center.lat, lng: m.map_data.center.lng }]));
}

/**
 * Validation in pieces, for a bundle too large to hold as objects: everything but the events first (the
 * head: the bundle with `events: []`), then the events a chunk at a time, each checked against the head's
 * records, then `finish`. The problems and their messages are those of `validateBundle`, which is this run
 * over one chunk; only a duplicate event id first used in an earlier chunk names that record by its path.
 */
export class BundleValidator {
  private readonly problems: BundleProblem[] = [];
  private readonly seen = new Set<string>();
  private readonly refs: ReferenceChecker | null;
  private readonly output: Omit<BundleT, 'events'> | null;
  /** Each map's time zone, by lowercase id: a series runs on its map's clock. */
  private readonly timeZones: Map<string, string>;
  private readonly options: ValidatorOptions;
  /** What the series warn about, until taken. */
  private warnings: Finding[] = [];

  constructor(head: unknown, options: ValidatorOptions = {}) {
    this.options = options;
    const parsed = v.safeParse(Bundle, head, { abortEarly: false });
    this.report(head, parsed.issues, []);
    // Still run the cross-record checks over what did parse, so one pass reports everything it can; a value
    // already refused for its structure is not refused again as a reference.
    this.refs = isRecord(parsed.output) ? referenceChecker(parsed.output as BundleT) : null;
    this.output = parsed.success ? parsed.output : null;
    if (this.refs) this.keep(this.refs.problems.splice(0));
    const maps = isRecord(parsed.output) && Array.isArray(parsed.output.maps) ? parsed.output.maps as Rec[] : [];
    this.timeZones = new Map(maps.filter((m) => typeof m.id === 'string' && typeof m.time_zone === 'string')
      .map((m) => [(m.id as string).toLowerCase(), m.time_zone as string]));
    if (this.output) this.checkHours(this.output);
  }

  /**
   * Refuses each POI's `hours` the library cannot read, in its own words with its pointer, or that uses public
   * holidays on a map without a country; keeps what it warns about. Each distinct rule of a map is read once.
   */
  private checkHours(b: Omit<BundleT, 'events'>): void {
    if (!anyPoiHas(b, 'hours')) return;
    const reader = loadedHoursReader();
    const places = hoursPlaces(b.maps);
    const judged = new Map<string, { problem: string | null; warnings: string[] }>();
    const now = this.options.nowMs ?? Date.now();
    for (const key of POI_COLLECTIONS) {
      b[key].forEach((poi, i) => {
        const place = places.get(poi.map_id.toLowerCase());
        if (poi.hours === undefined || !place) return;
        const memo = `${poi.map_id.toLowerCase()}\n${poi.hours}`;
        let verdict = judged.get(memo);
        if (!verdict) {
          const timeZone = this.timeZones.get(poi.map_id.toLowerCase())!;
          const problem = reader.problem(poi.hours, place, wallMs(wallTimeAt(now, timeZone)));
          judged.set(memo, (verdict = { problem, warnings: problem ? [] : reader.warnings(poi.hours, place) }));
        }
        const path = `$.${key}[${i}].hours`;
        if (verdict.problem) this.keep([{ path, message: describeProblem(b, path, { text: `is not opening hours it can read: ${verdict.problem}`, predicate: true }) }]);
        for (const w of verdict.warnings) this.warnings.push({ path, message: describeProblem(b, path, { text: `reads, with a warning: ${w}`, predicate: true }) });
      });
    }
  }

  /** The warnings of the series checked since the last call. */
  takeWarnings(): Finding[] {
    return this.warnings.splice(0);
  }

  /** The validated bundle without its events (throws when the head has problems). */
  get head(): Omit<BundleT, 'events'> {
    if (!this.output) throw new BundleError(this.problems);
    return this.output;
  }

  /** True while no problem has been found. */
  get ok(): boolean {
    return this.problems.length === 0;
  }

  /**
   * Checks the events at `$.events[offset ..]` and answers them validated (meaningful only while `ok`).
   * `root`, when given, is the whole bundle, so messages can name records of earlier chunks.
   */
  addEvents(items: readonly unknown[], offset: number, root?: unknown): EventT[] {
    let window: Rec | null = null;
    // Made once, and only when a problem needs to name its record.
    const rootOf = () => root ?? (window ??= windowRoot(items, offset));
    const parsed = v.safeParse(v.array(Event), items, { abortEarly: false });
    if (parsed.issues) this.report(rootOf(), parsed.issues, ['events', offset]);
    if (this.refs) {
      this.refs.events(items, offset, rootOf);
      this.keep(this.refs.problems.splice(0));
    }
    // The series of the events that have their structure (each alone when some of the chunk do not).
    items.forEach((item, i) => {
      if (!isRecord(item) || (item.recurrence === undefined && item.overrides === undefined)) return;
      const one = parsed.success ? { success: true as const, output: parsed.output[i] } : v.safeParse(Event, item);
      if (one.success) this.checkSeries(one.output, offset + i, rootOf);
    });
    return parsed.success ? parsed.output : [];
  }

  /** Refuses what is wrong with series `e` (at `$.events[index]`) and keeps what it warns about. */
  private checkSeries(e: EventT, index: number, rootOf: () => unknown): void {
    const at = `$.events[${index}]`;
    const statement = (path: string, text: string) => ({ path, message: describeProblem(rootOf(), path, { text, predicate: true }) });
    if (!e.recurrence) {
      this.keep([statement(`${at}.overrides`, 'are only for a series: give the event a recurrence, or leave them out')]);
      return;
    }
    const timeZone = this.timeZones.get(e.map_id.toLowerCase());
    if (timeZone === undefined) return; // the unknown map is reported where it is named
    // Checked, not kept: the store expands the series again when it is staged, from the publish its horizon counts from.
    const expansion = expandSeries(e, timeZone, this.options.nowMs ?? Date.now(), this.options.seriesHorizonDays ?? SERIES_HORIZON_DAYS, true);
    this.keep(expansion.problems.map((p) => statement(`${at}.${p.path}`, p.message)));
    this.warnings.push(...expansion.warnings.map((w) => statement(`${at}.${w.path}`, w.message)));
  }

  /** The checks that need every event (the sessions' saved events); returns every problem found. */
  finish(): BundleProblem[] {
    if (this.refs) {
      this.refs.finish();
      this.keep(this.refs.problems.splice(0));
    }
    return this.problems;
  }

  private report(root: unknown, issues: readonly v.BaseIssue<unknown>[] | undefined, prefix: [] | ['events', number]): void {
    for (const issue of issues ?? []) {
      const keys = (issue.path ?? []).map((item) => (typeof item.key === 'number' ? item.key : String(item.key)));
      const path = formatJsonPath(prefix.length ? ['events', (prefix[1] as number) + (keys[0] as number), ...keys.slice(1)] : keys);
      // The first rule a value breaks says what is wrong with it; the others (a bad RFC 3339 string is no real
      // calendar date-time either) follow from it.
      if (this.seen.has(path)) continue;
      this.seen.add(path);
      this.problems.push({ path, message: describeProblem(root, path, describeIssue(issue)) });
    }
  }

  private keep(problems: BundleProblem[]): void {
    for (const p of problems) if (!this.seen.has(p.path)) this.problems.push(p);
  }
}

/** A bundle-shaped object whose `events` hold `items` at their positions, so messages can name them. */
function windowRoot(items: readonly unknown[], offset: number): Rec {
  const events: unknown[] = [];
  events.length = offset + items.length;
  items.forEach((item, i) => (events[offset + i] = item));
  return { events };
}

/** The items of a collection that may be broken: none when it is not an array. */
const itemsOf = <T>(items: readonly T[] | undefined): readonly T[] => (Array.isArray(items) ? items : []);

/** Calls `fn` for each record of a collection that is an object at all (the structure check reports the rest). */
function eachRecord<T>(items: readonly T[] | undefined, fn: (item: T, index: number) => void): void {
  itemsOf(items).forEach((item, i) => {
    if (isRecord(item)) fn(item, i);
  });
}

/** An id in its stored form (lowercase); null when it is not a string (the structure check reports that). */
const lc = (id: unknown): string | null => (typeof id === 'string' ? id.toLowerCase() : null);

/**
 * The ids of one kind of record, each with the map it belongs to (null when that is unreadable or the kind
 * has no map). `complete` is false when some record of the kind is unreadable (not an object, no string
 * id), so an id not found might be that record's: it is then not reported as unknown, only the broken
 * record is.
 */
interface Registry {
  noun: string;
  owners: Map<string, string | null>;
  complete: boolean;
}

/** A registry of the records of `collections`; `mapOf` reads the map a record belongs to. */
function registerRecords(noun: string, collections: readonly unknown[], mapOf: (record: Rec) => unknown = () => null): Registry {
  const registry: Registry = { noun, owners: new Map(), complete: true };
  for (const items of collections) {
    if (!Array.isArray(items)) { registry.complete = false; continue; }
    for (const record of items) {
      if (isRecord(record) && lc(record.id) !== null) registry.owners.set(lc(record.id)!, lc(mapOf(record)));
      else registry.complete = false;
    }
  }
  return registry;
}

/** The cross-record rules: the head's at once, the events' a chunk at a time, the sessions' at the end. */
interface ReferenceChecker {
  /** Problems found so far (callers may take them out). */
  problems: BundleProblem[];
  events(items: readonly unknown[], offset: number, root: () => unknown): void;
  finish(): void;
}

function referenceChecker(b: BundleT): ReferenceChecker {
  const problems: BundleProblem[] = [];
  /** Reports a predicate about the field at `path` (`names an unknown POI …`). */
  const add = (path: string, text: string, root: unknown = b): void => {
    problems.push({ path, message: describeProblem(root, path, { text, predicate: true }) });
  };

  const publishers = registerRecords('publisher', [b.publishers]);
  const maps = registerRecords('map', [b.maps]);
  /** A map id that names a map of the bundle, lowercase; null otherwise (that is reported where it is written). */
  const knownMap = (id: unknown) => (maps.owners.has(lc(id) ?? '') ? lc(id) : null);
  const versions = registerRecords('map version', itemsOf(b.maps).map((m) => (isRecord(m) ? m.versions : undefined)));
  eachRecord(b.maps, (m) => eachRecord(m.versions, (ver) => {
    if (lc(ver.id) !== null) versions.owners.set(lc(ver.id)!, knownMap(m.id));
  }));
  const icons = registerRecords('icon', [b.icons]);
  const categories = registerRecords('category', [b.categories], (c) => knownMap(c.map_id));
  const pois = registerRecords('POI', [b.markers, b.paths, b.polygons], (p) => knownMap(p.map_id));
  const lists = registerRecords('list', [b.lists], (l) => knownMap(l.map_id));

  /** Where an id was first used, as words: `marker "X" ($.markers[3])`, `versions[0] of map "Y" ($.maps[1])`. */
  const describeFirstUse = (path: string, root: unknown = b) => {
    const { record, field } = describeLocation(root, path);
    const within = field.replace(/(^|\.)(id|token_sha256)$/, '');
    if (!record) return path;
    return within ? `${within} of ${record}` : record;
  };
  /** Records ids of one id space and reports repeats. */
  const idSpace = (what: string) => {
    const seen = new Map<string, string>();
    return (id: unknown, path: string) => {
      const key = lc(id);
      if (key === null) return;
      const prev = seen.get(key);
      if (prev) add(path, `is a duplicate ${what} ${key}, first used by ${describeFirstUse(prev)}`);
      else seen.set(key, path);
    };
  };
  /**
   * Checks that the reference `id` at `path` names a record of `registry`, and, when `mapId` is given and
   * readable, one of that map. Answers the map of the record named (undefined when it is unknown).
   */
  const resolve = (registry: Registry, id: unknown, path: string, mapId?: unknown, report = add): string | null | undefined => {
    const key = lc(id);
    if (key === null) return undefined;
    const owner = registry.owners.get(key);
    if (owner === undefined) {
      if (registry.complete) report(path, `names an unknown ${registry.noun} ${key}`);
      return undefined;
    }
    const map = knownMap(mapId);
    if (owner !== null && map !== null && owner !== map) report(path, `names ${registry.noun} ${key}, which belongs to another map (${owner})`);
    return owner;
  };

  const seePublisher = idSpace('publisher id');
  eachRecord(b.publishers, (p, i) => seePublisher(p.id, `$.publishers[${i}].id`));

  const seeMap = idSpace('map id');
  const seeVersion = idSpace('map version id');
  const seeBlock = idSpace('content block id');
  eachRecord(b.maps, (m, i) => {
    const at = `$.maps[${i}]`;
    seeMap(m.id, `${at}.id`);
    resolve(publishers, m.publisher_id, `${at}.publisher_id`);
    eachRecord(m.versions, (ver, j) => seeVersion(ver.id, `${at}.versions[${j}].id`));
    const currentId = lc(m.current_version_id);
    const current = itemsOf(m.versions).find((ver) => isRecord(ver) && lc(ver.id) === currentId);
    if (currentId !== null && !current && itemsOf(m.versions).every(isRecord)) {
      add(`${at}.current_version_id`, `names ${currentId}, which is not one of this map's versions`);
    } else if (current && current.status !== 'published') {
      add(`${at}.current_version_id`, `must name a published version, but ${currentId} (${showValue(current.name)}) is a draft`);
    }
    eachRecord(m.content_blocks, (c, j) => seeBlock(c.id, `${at}.content_blocks[${j}].id`));
    const defaultLanguage = typeof m.default_language === 'string' ? canonicalTag(m.default_language) : null;
    const languages = Array.isArray(m.languages) ? m.languages.map((t) => (typeof t === 'string' ? canonicalTag(t) : null)) : null;
    if (defaultLanguage && languages && !languages.includes(defaultLanguage)) {
      add(`${at}.languages`, `must include the default language ${showValue(defaultLanguage)}, got ${showValue(m.languages)}`);
    }
    const bounds = isRecord(m.map_data) ? m.map_data.bounds : undefined;
    if (Array.isArray(bounds) && bounds[1] > bounds[3]) {
      add(`${at}.map_data.bounds`, `has its south greater than its north: it must be [west, south, east, north], got ${showValue(bounds)}`);
    }
  });

  const seeIcon = idSpace('icon id');
  eachRecord(b.icons, (ic, i) => seeIcon(ic.id, `$.icons[${i}].id`));

  /** Checks the map, icon and versions a category or POI names. */
  const checkItem = (item: { map_id: unknown; icon_id?: unknown; version_ids?: readonly unknown[] }, at: string) => {
    resolve(maps, item.map_id, `${at}.map_id`);
    resolve(icons, item.icon_id, `${at}.icon_id`);
    itemsOf(item.version_ids).forEach((id, k) => resolve(versions, id, `${at}.version_ids[${k}]`, item.map_id));
  };

  // Categories and POIs share one id space: their version memberships are stored by item id alone.
  const seeItem = idSpace('category or POI id');
  eachRecord(b.categories, (c, i) => seeItem(c.id, `$.categories[${i}].id`));
  const poiKinds = [['markers', b.markers], ['paths', b.paths], ['polygons', b.polygons]] as const;
  for (const [kind, items] of poiKinds) {
    eachRecord<{ id: string }>(items, (p, i) => seeItem(p.id, `$.${kind}[${i}].id`));
  }
  const parentOf = new Map<string | null, string | null>();
  eachRecord(b.categories, (c) => parentOf.set(lc(c.id), lc(c.parent_id)));

  eachRecord(b.categories, (c, i) => {
    const at = `$.categories[${i}]`;
    checkItem(c, at);
    if (lc(c.parent_id)) {
      resolve(categories, c.parent_id, `${at}.parent_id`, c.map_id);
      // Walk up the parents; meeting this category again means a cycle.
      let cur = lc(c.parent_id);
      for (let steps = 0; cur && steps <= b.categories.length; steps++) {
        if (cur === lc(c.id)) { add(`${at}.parent_id`, 'makes a cycle: the category hierarchy loops back to this category'); break; }
        cur = parentOf.get(cur) ?? null;
      }
    }
    itemsOf(c.poi_order).forEach((id, k) => resolve(pois, id, `${at}.poi_order[${k}]`, c.map_id));
  });

  for (const [kind, items] of poiKinds) {
    eachRecord<{ map_id: string; icon_id?: string | null; version_ids?: string[]; category_ids: string[] }>(items, (p, i) => {
      const at = `$.${kind}[${i}]`;
      checkItem(p, at);
      itemsOf(p.category_ids).forEach((cid, k) => resolve(categories, cid, `${at}.category_ids[${k}]`, p.map_id));
    });
  }
  eachRecord(b.polygons, (p, i) => {
    const rings = isRecord(p.geometry) ? itemsOf(p.geometry.coordinates) : [];
    rings.forEach((ring, r) => {
      if (!Array.isArray(ring) || ring.length === 0) return;
      const first = ring[0];
      const last = ring[ring.length - 1];
      if (Array.isArray(first) && Array.isArray(last) && (first[0] !== last[0] || first[1] !== last[1])) {
        add(`$.polygons[${i}].geometry.coordinates[${r}]`,
          `is not closed: a linear ring's first and last positions must be equal, got ${showValue(first)} and ${showValue(last)}`);
      }
    });
  });

  const seeList = idSpace('list id');
  eachRecord(b.lists, (l, i) => {
    const at = `$.lists[${i}]`;
    seeList(l.id, `${at}.id`);
    resolve(maps, l.map_id, `${at}.map_id`);
    eachRecord(l.items, (item, k) => resolve(pois, item.poi_id, `${at}.items[${k}].poi_id`, l.map_id));
  });

  const seeAssociation = idSpace('association id');
  eachRecord(b.associations, (a, i) => {
    const at = `$.associations[${i}]`;
    seeAssociation(a.id, `${at}.id`);
    const owner = resolve(pois, a.poi_id, `${at}.poi_id`);
    if (owner !== undefined) {
      resolve(pois, a.associated_poi_id, `${at}.associated_poi_id`, owner);
      resolve(lists, a.list_id, `${at}.list_id`, owner);
    }
    if (lc(a.poi_id) !== null && lc(a.poi_id) === lc(a.associated_poi_id)) {
      add(`${at}.associated_poi_id`, 'names the POI itself: a POI cannot be associated with itself');
    }
  });

  /** Every event id seen, with the position of its first use (for duplicates and the sessions' saved events). */
  const eventIds = new Map<string, number>();
  let eventsComplete = true;
  const events = (items: readonly unknown[], offset: number, root: () => unknown) => {
    items.forEach((item, i) => {
      if (!isRecord(item) || lc(item.id) === null) { eventsComplete = false; return; }
      const e = item as Rec & { poi_ids?: unknown[] };
      const at = `$.events[${offset + i}]`;
      const key = lc(e.id)!;
      const first = eventIds.get(key);
      if (first === undefined) eventIds.set(key, offset + i);
      else add(`${at}.id`, `is a duplicate event id ${key}, first used by ${describeFirstUse(`$.events[${first}].id`, root())}`, root());
      const problem = (path: string, text: string) => add(path, text, root());
      resolveEvent(e, at, problem);
    });
  };
  /** The reference rules of one event; `problem` reports a predicate about a field. */
  const resolveEvent = (e: Rec & { poi_ids?: unknown[] }, at: string, problem: (path: string, text: string) => void) => {
    resolve(maps, e.map_id, `${at}.map_id`, undefined, problem);
    itemsOf(e.poi_ids).forEach((id, k) => resolve(pois, id, `${at}.poi_ids[${k}]`, e.map_id, problem));
    if (Date.parse(e.ends_at as string) < Date.parse(e.starts_at as string)) {
      problem(`${at}.ends_at`, `${showValue(e.ends_at)} is earlier than starts_at ${showValue(e.starts_at)}`);
    }
    statusRules(e, at, problem);
    allDayRules(e, at, problem);
  };

  const finish = () => {
    const seeSession = idSpace('session token hash');
    eachRecord(b.sessions, (s, i) => {
      seeSession(s.token_sha256, `$.sessions[${i}].token_sha256`);
      itemsOf(s.saved_event_ids).forEach((id, k) => {
        const key = lc(id);
        if (key !== null && !eventIds.has(key) && eventsComplete) add(`$.sessions[${i}].saved_event_ids[${k}]`, `names an unknown event ${key}`);
      });
    });
  };
  return { problems, events, finish };
}

