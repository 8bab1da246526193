/**
 * The bundle check behind the `check` subcommand, which editors and CI run to validate a bundle and exit.
 *
 * Problems are what the loader refuses (`validateBundle`, after JSON parsing). Warnings are what it accepts
 * but is probably a mistake, and never fail a check: keys the format does not know (the loader drops them
 * silently, so a misspelt `opening_hourz` loses the opening hours), POIs far outside their map's area
 * (swapped coordinates put Lisbon's places in East Africa), and paths and polygons across the antimeridian
 * (drawn the long way round the world), and a marker's `opening_hours` text that reads as OSM hours while it has no
 * `hours` (the warning gives the OSM form to add).
 */
import { Bundle } from './bundle-schema.ts';
import { mapLanguages } from '../model/read-model.ts';
import { canonicalTag } from '../model/local-text.ts';
import { KEPT_WARNINGS, type Finding, type VersionWarnings } from './findings.ts';

export type { Finding } from './findings.ts';
import { showValue } from './findings.ts';
import { BundleError, describeLocation, formatJsonPath, hoursPlaces, validateWithWarnings } from './validate-bundle.ts';
import { loadedHoursReader, needsHoursReader, readerFor, type HoursReader } from '../hours.ts';


/** How many records of each kind a bundle holds (counted even in a refused bundle). */
export interface CheckSummary {
  publishers: number;
  maps: number;
  categories: number;
  markers: number;
  paths: number;
  polygons: number;
  /** Markers, paths and polygons together. */
  pois: number;
  events: number;
  lists: number;
}

/** The outcome of checking one bundle: `ok` when nothing refuses it (warnings never do). */
export interface CheckReport {
  ok: boolean;
  problems: Finding[];
  warnings: Finding[];
  summary: CheckSummary;
}

/** How far a POI may lie outside its map's area (`map_data.bounds`, else `map_data.center`) before a warning, in km. */
export const FAR_KM = 200;

/** The usage text of the `check` subcommand; `command` is how the program is started (`npm start --`, or the binary's name). */
export function checkUsage(command = 'npm start --'): string {
  return `Usage: ${command} check [--json] [--strict] <bundle.json>...
       ${command} check [--json] [--strict] --bundle <bundle.json>...

Validates content bundles and exits, for editors and CI. Prints every problem (the server would refuse
the bundle) and warning (unknown keys, POIs more than ${FAR_KM} km outside their map's area), then a summary.
The report goes to standard output, problems or not (to keep it: ${command.startsWith('npm ') ? 'npm start --silent -- check … > report.json' : `${command} check … > report.json`});
usage errors go to standard error.

  --bundle <path>   a bundle to check (again for each one), instead of naming them as arguments
  --json            print the reports as JSON instead: an array with one {file, ok, problems, warnings, summary} per file
  --strict          refuse a bundle with any warning too (exit 1), as serving and publishing with --strict do
  --help            print this help

Exit status: 0 when every bundle is ok (warnings allowed), 1 when any has problems or cannot be read,
2 for a usage error.`;
}

type Rec = Record<string, unknown>;
const isRecord = (x: unknown): x is Rec => typeof x === 'object' && x !== null && !Array.isArray(x);
const countOf = (x: unknown) => (Array.isArray(x) ? x.length : 0);
const plural = (n: number, noun: string) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;

/** Checks a bundle's text or UTF-8 bytes: every problem the loader refuses it for, and every warning. */
export async function checkBundle(source: string | Uint8Array): Promise<CheckReport> {
  const text = typeof source === 'string' ? source.replace(/^\uFEFF/, '') : new TextDecoder().decode(source);
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [{ path: '$', message: describeJsonError(text, err as Error) }], warnings: [], summary: summarize(undefined) };
  }
  const problems: Finding[] = [];
  await readerFor(input);
  const warnings = findWarnings(input);
  try {
    warnings.push(...validateWithWarnings(input).warnings);
  } catch (err) {
    if (!(err instanceof BundleError)) throw err;
    problems.push(...err.problems);
  }
  return { ok: problems.length === 0, problems, warnings, summary: summarize(input) };
}

/**
 * A warning for each marker whose `opening_hours` text the library reads as hours while it has no `hours` of its own,
 * giving the OSM form to add (`"Daily 19:30–02:00"` reads as `Mo-Su 19:30-02:00`). Each distinct text is tried once.
 */
function suggestHours(input: unknown, reader: HoursReader): Finding[] {
  const b = input as Rec;
  if (!Array.isArray(b.markers) || !Array.isArray(b.maps)) return [];
  const maps = (b.maps as unknown[]).filter((m): m is { id: string; country?: string; map_data: { center: { lat: number; lng: number } } } =>
    isRecord(m) && typeof m.id === 'string' && isRecord(m.map_data) && isRecord(m.map_data.center)
    && typeof m.map_data.center.lat === 'number' && typeof m.map_data.center.lng === 'number');
  const places = hoursPlaces(maps.map((m) => ({ ...m, country: typeof m.country === 'string' ? m.country : undefined })));
  const tried = new Map<string, string | null>();
  const out: Finding[] = [];
  (b.markers as unknown[]).forEach((m, i) => {
    if (!isRecord(m) || m.hours !== undefined || typeof m.map_id !== 'string') return;
    const place = places.get(m.map_id.toLowerCase());
    const texts = typeof m.opening_hours === 'string' ? [m.opening_hours]
      : isRecord(m.opening_hours) ? Object.values(m.opening_hours).filter((t): t is string => typeof t === 'string') : [];
    if (!place || texts.length === 0) return;
    for (const text of texts) {
      const memo = `${m.map_id.toLowerCase()}\n${text}`;
      if (!tried.has(memo)) tried.set(memo, reader.suggestion(text, place));
      const osm = tried.get(memo);
      if (!osm) continue;
      const path = `$.markers[${i}].opening_hours`;
      const { record } = describeLocation(input, path);
      out.push({ path, message: `${record}: opening_hours ${showValue(text)} reads as OpenStreetMap hours: add "hours": ${JSON.stringify(osm)} `
        + 'so that open now and open at can find it' });
      return;
    }
  });
  return out;
}

/**
 * Every warning about a parsed bundle (see the module comment): what the loader accepts but is probably a mistake. A
 * bundle whose POIs have hours or opening_hours needs the hours reader loaded first (`readerFor`).
 */
export function findWarnings(input: unknown): Finding[] {
  return [...findUnknownKeys(input), ...findFarPois(input), ...findAntimeridianJumps(input), ...findBundledSessions(input),
    ...findTranslationGaps(input), ...(needsHoursReader(input) ? suggestHours(input, loadedHoursReader()) : [])];
}

/**
 * The warnings of a bundle read a part at a time, as a publish reads it: its head (everything but the events) when
 * made, then each chunk of events at its position, so the events are never held whole. The findings are
 * `findWarnings`'s, with the events' after the head's.
 */
export class WarningCollector {
  private readonly maps: unknown;
  private readonly kept: Finding[] = [];
  private count = 0;

  /** Takes the bundle's head: its events, if any, are left to `addEvents`. */
  constructor(head: unknown) {
    this.maps = isRecord(head) ? head.maps : undefined;
    this.add(findWarnings(isRecord(head) ? { ...head, events: [] } : head));
  }

  /** Takes the warnings of the events at `offset`, `offset + 1`, … of the bundle (unknown keys, texts in languages). */
  addEvents(items: readonly unknown[], offset: number): void {
    // A sparse array puts each event at its place in the bundle, so paths and messages name it there; walks skip the holes.
    const events: unknown[] = [];
    events.length = offset;
    events.push(...items);
    this.add([...findUnknownKeys({ events }), ...findTranslationGaps({ maps: this.maps, events }, false)]);
  }

  /** Takes warnings found elsewhere (the series', by the validator). */
  addFindings(findings: readonly Finding[]): void {
    this.add(findings);
  }

  /** The warnings so far. */
  get warnings(): VersionWarnings {
    return { count: this.count, first: [...this.kept] };
  }

  private add(findings: readonly Finding[]): void {
    this.count += findings.length;
    for (const f of findings) if (this.kept.length < KEPT_WARNINGS) this.kept.push(f);
  }
}

/** Counts the records of each kind in a parsed bundle. */
function summarize(input: unknown): CheckSummary {
  const b = isRecord(input) ? input : {};
  const [markers, paths, polygons] = [countOf(b.markers), countOf(b.paths), countOf(b.polygons)];
  return {
    publishers: countOf(b.publishers), maps: countOf(b.maps), categories: countOf(b.categories), markers, paths, polygons,
    pois: markers + paths + polygons, events: countOf(b.events), lists: countOf(b.lists),
  };
}

/** The texts of each kind of record of a map: the collection, how to find a record's map, and its text fields (dotted paths). */
const MAP_TEXTS: readonly { collection: string; fields: readonly string[] }[] = [
  { collection: 'categories', fields: ['name'] },
  { collection: 'markers', fields: ['name', 'description', 'opening_hours'] },
  { collection: 'paths', fields: ['name', 'description'] },
  { collection: 'polygons', fields: ['name', 'description'] },
  { collection: 'events', fields: ['title', 'description', 'price'] },
  { collection: 'lists', fields: ['name', 'description', 'items[].note'] },
];

/**
 * Texts of a map given as language objects that lack one of the map's languages (it gets the default
 * language's text in that language) or hold one the map does not offer (served only with `langs=all`). A plain
 * string is the default language's text and is not reported: proper names often need no translation.
 * `mapTexts` false leaves out the maps' own texts (the events of a bundle read in parts are checked without them).
 */
function findTranslationGaps(input: unknown, mapTexts = true): Finding[] {
  if (!isRecord(input) || !Array.isArray(input.maps)) return [];
  const languagesOf = new Map<string, readonly string[]>();
  const out: Finding[] = [];
  const checkText = (value: unknown, path: string, offered: readonly string[] | undefined) => {
    if (!offered || !isRecord(value)) return;
    const tags = Object.keys(value).map((t) => canonicalTag(t) ?? t);
    const { record, field } = describeLocation(input, path);
    const where = record ? `${record}: ${field}` : field;
    const missing = offered.filter((t) => !tags.includes(t));
    if (missing.length > 0) out.push({ path, message: `${where} has no text in ${missing.join(', ')}: the default language's is served instead` });
    const extra = tags.filter((t) => !offered.includes(t));
    if (extra.length > 0) out.push({ path, message: `${where} has text in ${extra.join(', ')}, which its map does not offer (see the map's languages): served only with langs=all` });
  };
  input.maps.forEach((m, i) => {
    if (!isRecord(m) || typeof m.id !== 'string') return;
    const declared = { default_language: typeof m.default_language === 'string' ? m.default_language : undefined,
      languages: Array.isArray(m.languages) ? m.languages.filter((t): t is string => typeof t === 'string') : undefined };
    const offered = mapLanguages(declared).offered;
    languagesOf.set(m.id.toLowerCase(), offered);
    if (!mapTexts) return;
    const at = `$.maps[${i}]`;
    for (const key of ['name', 'description']) checkText(m[key], `${at}.${key}`, offered);
    if (isRecord(m.info)) for (const key of ['summary', 'opening_season']) checkText(m.info[key], `${at}.info.${key}`, offered);
    if (Array.isArray(m.content_blocks)) {
      m.content_blocks.forEach((c, j) => {
        if (isRecord(c)) for (const key of ['title', 'body']) checkText(c[key], `${at}.content_blocks[${j}].${key}`, offered);
      });
    }
  });
  for (const { collection, fields } of MAP_TEXTS) {
    const items = input[collection];
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      if (!isRecord(item) || typeof item.map_id !== 'string') return;
      const offered = languagesOf.get(item.map_id.toLowerCase());
      for (const field of fields) {
        if (field === 'items[].note') {
          if (Array.isArray(item.items)) item.items.forEach((it, k) => isRecord(it) && checkText(it.note, `$.${collection}[${i}].items[${k}].note`, offered));
        } else checkText(item[field], `$.${collection}[${i}].${field}`, offered);
      }
    });
  }
  return out;
}

/** Sessions in a bundle are accepted for compatibility but ignored: they are account data, not content. */
function findBundledSessions(input: unknown): Finding[] {
  const sessions = (input as { sessions?: unknown } | null)?.sessions;
  if (!Array.isArray(sessions) || sessions.length === 0) return [];
  return [{ path: '$.sessions', message: `${sessions.length} session(s) in the bundle are ignored: sessions are not content; ` +
    'put them in a sessions file (--sessions, format "destination-sessions/1")' }];
}

/** Formats a report for a terminal: a line per problem and per warning, then a one-line summary. */
export function formatReport(report: CheckReport, file: string): string {
  const lines = [
    ...report.problems.map((p) => `error  ${p.message}`),
    ...report.warnings.map((w) => `warning  ${w.message}`),
  ];
  const warnings = report.warnings.length === 0 ? 'no warnings' : plural(report.warnings.length, 'warning');
  const s = report.summary;
  const refused = report.problems.length === 0 ? ' (refused with --strict)' : '';
  lines.push(report.ok
    ? `${file}: ok, ${plural(s.maps, 'map')}, ${plural(s.pois, 'POI')}, ${plural(s.events, 'event')}, ${warnings}`
    : `${file}: ${plural(report.problems.length, 'problem')}, ${warnings}${refused}`);
  return lines.join('\n');
}

/** Plain words for the errors a file read fails with most often. */
const READ_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file', EISDIR: 'it is a directory', EACCES: 'permission denied', EPERM: 'permission denied',
};

/**
 * Runs `check` with the arguments after the word (files, `--bundle`, `--json`, `--strict`, `--help`): exit 0 all ok,
 * 1 problems (with `--strict`, warnings too) or unreadable, 2 usage.
 */
export async function runCheck(
  args: readonly string[],
  readText: (path: string) => Promise<string | Uint8Array>,
  command?: string,
): Promise<{ exitCode: number; output: string }> {
  const usage = checkUsage(command);
  let json = false;
  let strict = false;
  let optionsEnded = false;
  const named: string[] = [];
  const flagged: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const bundle = /^--bundle(?:=(.*))?$/.exec(arg);
    if (optionsEnded || !arg.startsWith('-')) named.push(arg);
    else if (arg === '--') optionsEnded = true;
    else if (arg === '--help' || arg === '-h') return { exitCode: 0, output: usage };
    else if (arg === '--json') json = true;
    else if (arg === '--strict') strict = true;
    else if (bundle) {
      const value = bundle[1] ?? args[++i];
      if (!value) return { exitCode: 2, output: `error: option --bundle needs a value\n\n${usage}` };
      flagged.push(value);
    } else return { exitCode: 2, output: `error: unknown option ${arg}\n\n${usage}` };
  }
  if (named.length > 0 && flagged.length > 0) {
    return { exitCode: 2, output: `error: name the bundles either as arguments or with --bundle, not both (${[...flagged, ...named].join(', ')})\n\n${usage}` };
  }
  const files = flagged.length > 0 ? flagged : named;
  if (files.length === 0) return { exitCode: 2, output: `error: no bundle file given\n\n${usage}` };

  const reports: { file: string; report: CheckReport }[] = [];
  for (const file of files) {
    let source: string | Uint8Array;
    try {
      source = await readText(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException | null)?.code;
      const reason = (code && READ_ERRORS[code]) || (err instanceof Error ? err.message : String(err));
      const problem = { path: '$', message: `cannot read ${file}: ${reason}` };
      reports.push({ file, report: { ok: false, problems: [problem], warnings: [], summary: summarize(undefined) } });
      continue;
    }
    const report = await checkBundle(source);
    reports.push({ file, report: strict && report.warnings.length > 0 ? { ...report, ok: false } : report });
  }
  const exitCode = reports.every((r) => r.report.ok) ? 0 : 1;
  const output = json
    ? JSON.stringify(reports.map(({ file, report }) => ({ file, ...report })), null, 2)
    : reports.map(({ file, report }) => formatReport(report, file)).join('\n');
  return { exitCode, output };
}

/**
 * Says where and why `text` is not JSON: `not valid JSON at line 4, column 14: unexpected character "o"`.
 * The runtime's own message is used only when the scanner finds nothing wrong (it never names a
 * position on some runtimes, and a different one on each).
 */
function describeJsonError(text: string, err: Error): string {
  let found: { offset: number; reason: string } | null = null;
  try {
    found = locateJsonError(text);
  } catch {
    // Nested too deep for the scanner's recursion: the runtime's message is all there is.
  }
  if (!found) return `not valid JSON: ${err.message}`;
  const before = text.slice(0, found.offset);
  const line = before.split('\n').length;
  const column = found.offset - before.lastIndexOf('\n');
  return `not valid JSON at line ${line}, column ${column}: ${found.reason}`;
}

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE_RE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** Finds the offset of the first JSON syntax error in `text`, and what it is; null when there is none. */
function locateJsonError(text: string): { offset: number; reason: string } | null {
  let i = 0;
  let error: { offset: number; reason: string } | null = null;
  const fail = (reason: string): false => {
    error = { offset: i, reason };
    return false;
  };
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const describeHere = () => (i >= text.length ? 'unexpected end of the file' : `unexpected character ${JSON.stringify(text[i])}`);
  const scanString = (): boolean => {
    const start = i;
    i++;
    while (i < text.length) {
      const c = text[i];
      if (c === '"') { i++; return true; }
      if (c === '\\') {
        ESCAPE_RE.lastIndex = i;
        if (!ESCAPE_RE.test(text)) return fail('invalid escape sequence in a string');
        i = ESCAPE_RE.lastIndex;
      } else if (c.charCodeAt(0) < 0x20) {
        return fail('a line break or control character inside a string must be escaped');
      } else {
        i++;
      }
    }
    i = start;
    return fail('unterminated string: the file ends inside it');
  };
  const scanContainer = (close: '}' | ']'): boolean => {
    const isObject = close === '}';
    i++;
    skipSpace();
    if (text[i] === close) { i++; return true; }
    for (;;) {
      if (isObject) {
        if (text[i] === close) return fail(`a comma must not come before "${close}"`);
        if (text[i] !== '"') return fail(i < text.length ? 'expected a property name in double quotes' : describeHere());
        if (!scanString()) return false;
        skipSpace();
        if (text[i] !== ':') return fail('expected ":" after a property name');
        i++;
        skipSpace();
      } else if (text[i] === close) {
        return fail(`a comma must not come before "${close}"`);
      }
      if (!scanValue()) return false;
      skipSpace();
      if (text[i] === close) { i++; return true; }
      if (text[i] !== ',') {
        return fail(i >= text.length ? describeHere() : `expected "," or "${close}" after ${isObject ? 'a property value' : 'an array element'}`);
      }
      i++;
      skipSpace();
    }
  };
  const scanValue = (): boolean => {
    const c = text[i];
    if (c === '{') return scanContainer('}');
    if (c === '[') return scanContainer(']');
    if (c === '"') return scanString();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) { i += word.length; return true; }
    }
    NUMBER_RE.lastIndex = i;
    if (NUMBER_RE.test(text)) {
      i = NUMBER_RE.lastIndex;
      return /\d/.test(text[i] ?? '') ? fail('a number must not start with a 0 followed by more digits') : true;
    }
    if (c === "'") return fail('strings must be in double quotes');
    return fail(describeHere());
  };
  skipSpace();
  if (scanValue()) {
    skipSpace();
    if (i < text.length) fail('unexpected text after the end of the JSON value');
  }
  return error;
}

/** The parts of a valibot schema the walk below reads. */
interface SchemaNode {
  type: string;
  entries?: Record<string, SchemaNode>;
  wrapped?: SchemaNode;
  item?: SchemaNode;
  items?: SchemaNode[];
}

/** Other spellings of field names that edit distance would not catch. */
const KEY_ALIASES: Readonly<Record<string, string>> = { latitude: 'lat', longitude: 'lng', lon: 'lng', long: 'lng' };

/** The optimal-string-alignment edit distance (a swap of neighbours counts one). */
function measureEditDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The known key an unknown one was probably meant to be: an alias, or the closest by edit distance
 * (ignoring case) when that is at most 1 for keys under 6 characters, at most 2 for longer ones.
 */
function suggestKey(unknown: string, known: readonly string[]): string | null {
  const lower = unknown.toLowerCase();
  const alias = Object.hasOwn(KEY_ALIASES, lower) ? KEY_ALIASES[lower] : undefined;
  if (alias && known.includes(alias)) return alias;
  const limit = lower.length < 6 ? 1 : 2;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const key of known) {
    const distance = measureEditDistance(lower, key.toLowerCase());
    if (distance <= limit && distance < bestDistance) { best = key; bestDistance = distance; }
  }
  return best;
}

/** Unwraps optional, nullable and the like down to the schema that says what the value is. */
function unwrapSchema(schema: SchemaNode): SchemaNode {
  let s = schema;
  while (s.wrapped) s = s.wrapped;
  return s;
}

/** Warns about every key of the bundle that its schema does not know: the loader drops such keys silently. */
function findUnknownKeys(input: unknown): Finding[] {
  const out: Finding[] = [];
  const keys: (string | number)[] = []; // the path being walked
  const walkInto = (schema: SchemaNode, value: unknown, key: string | number) => {
    keys.push(key);
    walk(schema, value);
    keys.pop();
  };
  const walk = (schema: SchemaNode, value: unknown) => {
    const s = unwrapSchema(schema);
    if (s.type === 'object' && s.entries && isRecord(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (Object.hasOwn(s.entries, key)) {
          walkInto(s.entries[key], child, key);
          continue;
        }
        const { record, field } = describeLocation(input, formatJsonPath(keys));
        const suggestion = suggestKey(key, Object.keys(s.entries));
        const message = `unknown key ${showValue(key)}${field ? ` in ${field}` : ''}` +
          `${suggestion ? ` (did you mean ${showValue(suggestion)}?)` : ''} — it is ignored`;
        out.push({ path: formatJsonPath([...keys, key]), message: record ? `${record}: ${message}` : message });
      }
    } else if (s.type === 'array' && s.item && Array.isArray(value)) {
      value.forEach((child, i) => walkInto(s.item!, child, i));
    } else if (s.type === 'tuple' && s.items && Array.isArray(value)) {
      s.items.forEach((item, i) => walkInto(item, value[i], i));
    }
  };
  walk(Bundle as unknown as SchemaNode, input);
  return out;
}

/** A position of a POI: a marker's, or one vertex of a path or polygon (`field` within its record). */
interface Spot {
  lat: number;
  lng: number;
  field: string;
}

/** A map's area: what POIs are measured against. */
export interface Area {
  /** Kilometres from the area to a position (0 inside it). */
  distanceKm(lat: number, lng: number): number;
}

const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;
/** A longitude difference brought into [-180, 180). */
const wrapLng = (deg: number) => ((((deg + 180) % 360) + 360) % 360) - 180;
const isLat = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= -90 && x <= 90;
const isLng = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= -180 && x <= 180;

/** Great-circle distance in kilometres. */
function measureKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const h = Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The area around one point. */
const pointArea = (lat: number, lng: number): Area => ({ distanceKm: (pLat, pLng) => measureKm(pLat, pLng, lat, lng) });

/** The area of a `[west, south, east, north]` box (west > east crosses the antimeridian). */
function boxArea([west, south, east, north]: readonly number[]): Area {
  const inLngRange = (lng: number) => (west <= east ? lng >= west && lng <= east : lng >= west || lng <= east);
  return {
    distanceKm(lat, lng) {
      const lngInside = inLngRange(lng);
      if (lngInside && lat >= south && lat <= north) return 0;
      const nearLng = lngInside ? lng : Math.abs(wrapLng(lng - west)) <= Math.abs(wrapLng(lng - east)) ? west : east;
      return measureKm(lat, lng, Math.min(north, Math.max(south, lat)), nearLng);
    },
  };
}

/**
 * A map's declared area: its `map_data.bounds` when valid, else its `map_data.center`; null when neither is usable.
 * `swapped` is that area with each position's latitude and longitude swapped (far from everything when that is no
 * position). Also what the start measures the kiosk's "you are here" against (pages.ts, kioskWarnings).
 */
export function declareArea(map: Rec): { area: Area; field: string; swapped: Area } | null {
  const data = isRecord(map.map_data) ? map.map_data : {};
  const b = data.bounds;
  if (Array.isArray(b) && b.length === 4 && isLng(b[0]) && isLat(b[1]) && isLng(b[2]) && isLat(b[3]) && b[1] <= b[3]) {
    const swapped = isLng(b[1]) && isLat(b[0]) && isLng(b[3]) && isLat(b[2]) && b[0] <= b[2]
      ? boxArea([b[1], b[0], b[3], b[2]]) : { distanceKm: () => Infinity };
    return { area: boxArea(b), field: 'map_data.bounds', swapped };
  }
  const c = isRecord(data.center) ? data.center : {};
  if (isLat(c.lat) && isLng(c.lng)) {
    return { area: pointArea(c.lat, c.lng), field: 'map_data.center', swapped: isLat(c.lng) ? pointArea(c.lng, c.lat) : { distanceKm: () => Infinity } };
  }
  return null;
}

/** The valid positions of a POI record of `kind`. */
function spotsOf(kind: string, poi: Rec): Spot[] {
  const spot = (p: unknown, field: string): Spot[] => (Array.isArray(p) && isLng(p[0]) && isLat(p[1]) ? [{ lng: p[0], lat: p[1], field }] : []);
  if (kind === 'markers') return isLat(poi.lat) && isLng(poi.lng) ? [{ lat: poi.lat, lng: poi.lng, field: '' }] : [];
  const coordinates = isRecord(poi.geometry) && Array.isArray(poi.geometry.coordinates) ? poi.geometry.coordinates : [];
  if (kind === 'paths') return coordinates.flatMap((p, k) => spot(p, `geometry.coordinates[${k}]`));
  return coordinates.flatMap((ring, r) => (Array.isArray(ring) ? ring.flatMap((p, k) => spot(p, `geometry.coordinates[${r}][${k}]`)) : []));
}

/** Rounds a distance for a message: `5,800 km`, `340 km`. */
const formatKm = (km: number) => `${(km < 1000 ? Math.round(km / 10) * 10 : Math.round(km / 100) * 100).toLocaleString('en-US')} km`;

/** The median of numbers. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The median position of spots; longitudes are taken relative to the first, so a map across the antimeridian works. */
function medianSpot(spots: readonly Spot[]): { lat: number; lng: number } {
  const ref = spots[0].lng;
  return { lat: median(spots.map((s) => s.lat)), lng: wrapLng(median(spots.map((s) => ref + wrapLng(s.lng - ref)))) };
}

/**
 * Warns about POIs more than FAR_KM from their map's area: the box `map_data.bounds` when the map has one,
 * else the point `map_data.center`. When more than half of a map's POIs (3 or more) are that far, the area
 * itself is suspect: the map gets the warning, and its POIs are measured from their median position
 * instead. A hint says when swapped coordinates would put the point (or the area) in place.
 */
function findFarPois(input: unknown): Finding[] {
  if (!isRecord(input) || !Array.isArray(input.maps)) return [];
  const out: Finding[] = [];
  const byMap = new Map<string, { kind: string; index: number; spots: Spot[] }[]>();
  for (const kind of ['markers', 'paths', 'polygons']) {
    const items = Array.isArray(input[kind]) ? input[kind] : [];
    items.forEach((poi, index) => {
      if (!isRecord(poi) || typeof poi.map_id !== 'string') return;
      const spots = spotsOf(kind, poi);
      if (spots.length === 0) return;
      const key = poi.map_id.toLowerCase();
      if (!byMap.has(key)) byMap.set(key, []);
      byMap.get(key)!.push({ kind, index, spots });
    });
  }
  input.maps.forEach((map, m) => {
    if (!isRecord(map) || typeof map.id !== 'string') return;
    const declared = declareArea(map);
    const pois = byMap.get(map.id.toLowerCase()) ?? [];
    if (!declared || pois.length === 0) return;
    let area = declared.area;
    const firsts = pois.map((p) => p.spots[0]);
    const farFirsts = firsts.filter((s) => area.distanceKm(s.lat, s.lng) > FAR_KM).length;
    if (firsts.length >= 3 && farFirsts > firsts.length / 2) {
      const middle = medianSpot(firsts);
      const swapHint = declared.swapped.distanceKm(middle.lat, middle.lng) <= FAR_KM
        ? declared.field === 'map_data.center'
          ? '; its lat and lng look swapped'
          : '; it looks like [south, west, north, east], but the order is [west, south, east, north]'
        : '';
      const { record } = describeLocation(input, `$.maps[${m}]`);
      out.push({
        path: `$.maps[${m}].${declared.field}`,
        message: `${record}: ${declared.field} is ${formatKm(area.distanceKm(middle.lat, middle.lng))} from most of its POIs ` +
          `(${farFirsts} of ${firsts.length} are more than ${FAR_KM} km away)${swapHint}; its POIs are checked against their median position instead`,
      });
      area = pointArea(middle.lat, middle.lng);
    }
    for (const poi of pois) out.push(...warnFar(input, poi, area));
  });
  return out;
}

/** The warning for one POI whose positions are far from `area`, if any. */
function warnFar(input: Rec, poi: { kind: string; index: number; spots: Spot[] }, area: Area): Finding[] {
  const far = poi.spots.map((s) => ({ ...s, km: area.distanceKm(s.lat, s.lng) })).filter((s) => s.km > FAR_KM);
  if (far.length === 0) return [];
  const at = `$.${poi.kind}[${poi.index}]`;
  const { record } = describeLocation(input, at);
  const inPlaceSwapped = far.every((s) => isLat(s.lng) && area.distanceKm(s.lng, s.lat) <= FAR_KM);
  if (poi.kind === 'markers') {
    const [s] = far;
    const hint = inPlaceSwapped ? `; lat and lng look swapped: lat ${s.lng}, lng ${s.lat} would put it in the area` : '';
    return [{ path: at, message: `${record} is ${formatKm(s.km)} from its map's area${hint}` }];
  }
  const hint = inPlaceSwapped ? '; [lng, lat] may be swapped: GeoJSON coordinates are [longitude, latitude]' : '';
  if (far.length === poi.spots.length) {
    const nearest = Math.min(...far.map((s) => s.km));
    return [{ path: `${at}.geometry.coordinates`, message: `${record} is ${formatKm(nearest)} from its map's area${hint}` }];
  }
  const [first] = far;
  const more = far.length > 1 ? ` (and ${far.length - 1} more of its ${poi.spots.length} positions)` : '';
  return [{ path: `${at}.${first.field}`, message: `${record}: ${first.field} is ${formatKm(first.km)} from its map's area${more}${hint}` }];
}

/** A jump of longitude between two consecutive positions of a line or ring (`field`: the line or ring). */
interface Jump {
  field: string;
  /** The index of the position jumped to. */
  to: number;
  fromLng: number;
  toLng: number;
}

/** The first jump of more than 180° of longitude between consecutive valid positions of the lines, if any. */
function findFirstJump(lines: readonly { field: string; positions: readonly unknown[] }[]): Jump | null {
  for (const { field, positions } of lines) {
    for (let k = 1; k < positions.length; k++) {
      const [a, b] = [positions[k - 1], positions[k]];
      if (!Array.isArray(a) || !Array.isArray(b) || !isLng(a[0]) || !isLng(b[0])) continue;
      if (Math.abs(b[0] - a[0]) > 180) return { field, to: k, fromLng: a[0], toLng: b[0] };
    }
  }
  return null;
}

/**
 * Warns about paths and polygons that cross the antimeridian: a segment spanning more than 180° of longitude
 * between consecutive positions is taken to cross it, since its short way round does. The service serves the
 * coordinates as written and measures a polygon's winding on them, so a client draws such a shape the long way
 * round the world, and a polygon's outer ring comes out clockwise around the area meant. RFC 7946 §3.1.9 asks
 * for such shapes to be cut at 180°; the bundle has no MultiLineString or MultiPolygon, so that is two POIs,
 * one each side. One warning per POI, about its first jump.
 */
function findAntimeridianJumps(input: unknown): Finding[] {
  if (!isRecord(input)) return [];
  const out: Finding[] = [];
  for (const kind of ['paths', 'polygons'] as const) {
    const items = Array.isArray(input[kind]) ? input[kind] : [];
    items.forEach((poi, index) => {
      const coordinates = isRecord(poi) && isRecord(poi.geometry) && Array.isArray(poi.geometry.coordinates) ? poi.geometry.coordinates : [];
      const lines = kind === 'paths'
        ? [{ field: 'geometry.coordinates', positions: coordinates }]
        : coordinates.map((ring, r) => ({ field: `geometry.coordinates[${r}]`, positions: Array.isArray(ring) ? ring : [] }));
      const jump = findFirstJump(lines);
      if (!jump) return;
      const at = `$.${kind}[${index}]`;
      const { record } = describeLocation(input, at);
      const degrees = Number(Math.abs(jump.toLng - jump.fromLng).toFixed(1));
      out.push({
        path: `${at}.${jump.field}[${jump.to}]`,
        message: `${record}: ${jump.field} jumps ${degrees}° of longitude from position ${jump.to - 1} to ${jump.to} ` +
          `(${jump.fromLng} to ${jump.toLng}), as a shape that crosses the antimeridian does: it is drawn the long way round ` +
          `the world; split it at 180° into two ${kind}, one each side (RFC 7946 §3.1.9)`,
      });
    });
  }
  return out;
}
