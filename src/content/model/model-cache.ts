/**
 * The derived form of one content version: what the read model is built from, made from the store once per
 * version. In memory it is a payload of bytes (the records as UTF-8 JSON lines, the event tables, the spatial
 * indexes) that crosses from the publishing worker to the serving thread without being copied. On disk it is a cache,
 * `model/v<version>-<checksum>/`, whose manifest names the SHA-256 of every file: a start reads it instead
 * of the store, and anything that does not match (a flipped byte, an edited file, a truncated write, another
 * format) is refused, so the caller rebuilds it from the store rather than serve it.
 */
import { RecordChanges } from './record-changes.ts';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildEventTables, buildReadModel, eventIndexSteps, readModelSteps, type ContentDocs, type EventPages, type ModelDocs, type ReadModel } from './read-model.ts';
import { jsonRows } from './poi-store.ts';
import type { IndexParts } from './event-index.ts';
import { runNow, runSliced, STRIDE, type Steps } from '../../utils/steps.ts';
import { align8, EventTable, TABLE_FORMAT } from './event-table.ts';
import { concatBytes, ownBytes } from '../../utils/bytes.ts';
import type { VersionWarnings } from '../bundle/findings.ts';

/** The encoding of `places` (see `encodePlaces`). */
const PLACES_FORMAT = 2;

/**
 * Changes whenever what a cache holds could change for the same content version: the event tables' encoding,
 * or which anchors a table keeps (bump the number by hand when the model's visibility rules change).
 */
export const MODEL_FORMAT = `model-4-tables-${TABLE_FORMAT}-places-${PLACES_FORMAT}`;

/** A content version's derived form, ready to build a read model from. */
export interface ModelPayload {
  version: number;
  checksum: string;
  published_at: string;
  /** What check found in the version's bundle; null when not known (published before warnings were kept). */
  warnings: VersionWarnings | null;
  /** ContentDocs without events, as UTF-8 JSON lines (see `docsBytes`). */
  docs: Uint8Array;
  /** Every map's event table, encoded (see `EventTable.encode`). */
  tables: Uint8Array;
  /** Every map's spatial index of events, built by the publisher (see `encodePlaces`), so the serving thread never sorts points. */
  places: Uint8Array;
}

/** Event tables of more events than this (some 15 MB) are large enough that the garbage their building leaves matters (`buildPayload`). */
const LARGE_TABLES = 50_000;

const FILES = { docs: 'content.jsonl', tables: 'event-tables.bin', places: 'event-places.bin', manifest: 'manifest.json' } as const;

interface Manifest { format: string; version: number; checksum: string; published_at: string; warnings: VersionWarnings | null; files: Record<string, string> }

/** Thrown when a cache on disk is missing, damaged or of another format; the message says which. */
export class ModelCacheError extends Error {}

/**
 * Builds the payload of a version from its records as read from the store: `head` without events, and the
 * events in pages, of which only the compact table form is kept. `collect`, a full garbage collection, is called
 * once large tables are built, before they are copied into the payload: the buffers the tables grew in and were
 * sorted from are garbage then, and copying beside them was the peak of a large first load (docs/decisions.md,
 * Memory of a large publish).
 */
export async function buildPayload(head: ContentDocs, events: EventPages,
  version: { version: number; published_at: string; warnings?: VersionWarnings | null }, collect?: () => void): Promise<ModelPayload> {
  const docs = { ...head, events: [] };
  const bare = buildReadModel(docs);
  const built = await buildEventTables(bare, events);
  if (collect && built.reduce((sum, t) => sum + t.length, 0) > LARGE_TABLES) collect();
  const places = encodePlaces(built.map((t) => ({ mapId: t.mapId, parts: runNow(eventIndexSteps(bare.pois, t)).parts })));
  return { version: version.version, checksum: head.checksum, published_at: version.published_at, warnings: version.warnings ?? null, docs: docsBytes(docs),
    tables: concatBytes(EventTable.encode(built)), places };
}

/** The typed arrays of a map's index parts, in the order they are written. */
const PART_NAMES = ['kdbush', 'pointsBefore', 'bounds', 'positions'] as const;
type PartName = typeof PART_NAMES[number];

/** The bytes of one part. */
function partBytes(parts: IndexParts, name: PartName): Uint8Array {
  const part = parts[name];
  return part instanceof ArrayBuffer ? new Uint8Array(part) : new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
}

/**
 * Each map's index parts (EventIndex.parts) one after another, each 8-byte aligned, after a JSON header naming
 * where each map's are (byte offset and length of each part).
 */
function encodePlaces(indexes: readonly { mapId: string; parts: IndexParts | null }[]): Uint8Array {
  let at = 0;
  const maps = indexes.map(({ mapId, parts }) => {
    const where = {} as Record<PartName, [number, number]>;
    for (const name of PART_NAMES) {
      const length = parts ? partBytes(parts, name).byteLength : 0;
      where[name] = [at, length];
      at = align8(at + length);
    }
    return { mapId, ...where };
  });
  const header = new TextEncoder().encode(JSON.stringify({ format: PLACES_FORMAT, maps }));
  const base = align8(4 + header.length);
  const out = new Uint8Array(base + at);
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 4);
  indexes.forEach(({ parts }, k) => {
    if (parts) for (const name of PART_NAMES) out.set(partBytes(parts, name), base + maps[k][name][0]);
  });
  return out;
}

/**
 * Reads back what `encodePlaces` wrote: each map's index parts, the arrays as views into `bytes` (shared between
 * threads when `bytes` is), the KDBush bytes in a buffer of their own. Throws on anything else.
 */
function decodePlaces(bytes: Uint8Array): Map<string, IndexParts> {
  // Float64 views need 8-byte aligned offsets.
  if (bytes.byteOffset % 8 !== 0) bytes = new Uint8Array(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))) as {
    format: number; maps: ({ mapId: string } & Record<PartName, [number, number]>)[];
  };
  if (header.format !== PLACES_FORMAT) throw new Error(`spatial indexes of format ${header.format}, not ${PLACES_FORMAT}`);
  const base = align8(4 + length);
  const out = new Map<string, IndexParts>();
  for (const map of header.maps) {
    if (map.kdbush[1] === 0) continue;
    for (const name of PART_NAMES) {
      const [offset, n] = map[name];
      if (offset % 8 !== 0 || base + offset + n > bytes.byteLength) throw new Error('spatial indexes are truncated');
    }
    const at = (name: PartName) => bytes.byteOffset + base + map[name][0];
    const count = (name: PartName, size: number) => map[name][1] / size;
    // KDBush reads a whole buffer of its own: copied there (a view would share the payload's whole buffer).
    const kdbush = new Uint8Array(map.kdbush[1]);
    kdbush.set(bytes.subarray(base + map.kdbush[0], base + map.kdbush[0] + map.kdbush[1]));
    out.set(map.mapId, {
      kdbush: kdbush.buffer,
      pointsBefore: new Float64Array(bytes.buffer, at('pointsBefore'), count('pointsBefore', 8)),
      bounds: new Uint32Array(bytes.buffer, at('bounds'), count('bounds', 4)),
      positions: new Int32Array(bytes.buffer, at('positions'), count('positions', 4)),
    });
  }
  return out;
}



/** Records per line of a payload's docs: a line is parsed in one piece, so it is kept to a few milliseconds. */
const DOCS_LINE_ITEMS = 2_000;

/** How a line holding one POI row begins (it ends with `]}`): the row's JSON lies between. */
const POI_LINE = '{"pois":[';
const POI_LINE_BYTES = new TextEncoder().encode(POI_LINE);

/**
 * ContentDocs as UTF-8 JSON lines: the first line holds everything but the long collections (left empty there),
 * and each later line `{"<collection>": [...]}` the next DOCS_LINE_ITEMS records of one of them, in order; POIs
 * one a line, so that each serving thread finds a POI's row by where its line is and parses it only when its
 * record is asked for (poi-store.ts). Bytes, not a string: they move to the serving thread without a copy, where a
 * string of a million records' text would be copied there in one piece (with nothing answered meanwhile:
 * docs/decisions.md), and each line is decoded only when it is parsed.
 */
export function docsBytes(docs: ContentDocs): Uint8Array {
  const head: Record<string, unknown> = {};
  const lines: string[] = [];
  for (const [key, value] of Object.entries(docs)) {
    if (key === 'pois') {
      head[key] = [];
      for (const row of value as ContentDocs['pois']) lines.push(`${POI_LINE}${JSON.stringify(row)}]}`);
      continue;
    }
    if (!Array.isArray(value) || value.length <= DOCS_LINE_ITEMS) {
      head[key] = value;
      continue;
    }
    head[key] = [];
    for (let i = 0; i < value.length; i += DOCS_LINE_ITEMS) lines.push(JSON.stringify({ [key]: value.slice(i, i + DOCS_LINE_ITEMS) }));
  }
  return new TextEncoder().encode([JSON.stringify(head), ...lines].join('\n'));
}

const NEWLINE = 0x0a;
const utf8 = new TextDecoder();

/** True when the line at `start` holds one POI row (see `docsBytes`). */
function isPoiLine(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start < POI_LINE_BYTES.length + 2) return false;
  for (let k = 0; k < POI_LINE_BYTES.length; k++) if (bytes[start + k] !== POI_LINE_BYTES[k]) return false;
  return true;
}

/**
 * Reads back what `docsBytes` wrote, a line at a time. The POIs' rows are left where they are, each parsed when
 * asked for (`jsonRows`): only where each lies is read.
 */
function* docsSteps(bytes: Uint8Array): Steps<ModelDocs> {
  const line = (start: number, end: number) => JSON.parse(utf8.decode(bytes.subarray(start, end))) as Record<string, unknown[]>;
  let end = bytes.indexOf(NEWLINE);
  if (end < 0) end = bytes.length;
  const docs = line(0, end);
  const starts: number[] = [];
  const ends: number[] = [];
  let lines = 0;
  while (end < bytes.length) {
    const start = end + 1;
    end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.length;
    if (isPoiLine(bytes, start, end)) {
      starts.push(start + POI_LINE_BYTES.length);
      ends.push(end - 2);
      if ((++lines & (STRIDE - 1)) === 0) yield;
      continue;
    }
    yield;
    for (const [key, items] of Object.entries(line(start, end))) {
      const list = docs[key];
      for (const item of items) list.push(item);
    }
  }
  return { ...docs, pois: jsonRows(bytes, Uint32Array.from(starts), Uint32Array.from(ends)) } as unknown as ModelDocs;
}

/** Builds the read model of a payload, yielding as it goes. */
function* modelSteps(payload: ModelPayload): Steps<ReadModel> {
  const docs = yield* docsSteps(payload.docs);
  const tables = yield* EventTable.decodeSteps(payload.tables);
  const model = yield* readModelSteps(docs, tables, decodePlaces(payload.places));
  model.version = payload.version;
  model.publishedAt = payload.published_at;
  model.changes = RecordChanges.unknown(payload.published_at);
  model.warnings = payload.warnings;
  return model;
}

/** The read model of a payload, at once. */
export function modelFromPayload(payload: ModelPayload): ReadModel {
  return runNow(modelSteps(payload));
}

/**
 * The read model of a payload, built in slices of a few milliseconds with the event loop let in between: the
 * serving thread keeps answering requests (and /healthz) while a large version is built.
 */
export function loadModel(payload: ModelPayload): Promise<ReadModel> {
  return runSliced(modelSteps(payload));
}

/** The cache directory of a version, under `dir`. */
export function cachePath(dir: string, version: number, checksum: string): string {
  return join(dir, `v${version}-${checksum.slice(0, 16)}`);
}

/** Writes a payload to its cache directory (a temporary directory renamed into place, the manifest last). */
export async function writeCache(dir: string, payload: ModelPayload): Promise<string> {
  const path = cachePath(dir, payload.version, payload.checksum);
  const building = `${path}.tmp-${crypto.randomUUID()}`;
  await mkdir(building, { recursive: true });
  try {
    const { docs } = payload;
    await writeFile(join(building, FILES.docs), docs);
    await writeFile(join(building, FILES.tables), payload.tables);
    await writeFile(join(building, FILES.places), payload.places);
    const manifest: Manifest = { format: MODEL_FORMAT, version: payload.version, checksum: payload.checksum,
      published_at: payload.published_at, warnings: payload.warnings, files: { [FILES.docs]: sha256(docs), [FILES.tables]: sha256(payload.tables),
        [FILES.places]: sha256(payload.places) } };
    await writeFile(join(building, FILES.manifest), JSON.stringify(manifest));
    await rm(path, { recursive: true, force: true });
    await rename(building, path);
  } catch (err) {
    await rm(building, { recursive: true, force: true });
    throw err;
  }
  return path;
}

/**
 * Reads the cache of a version and verifies every file against its manifest; throws ModelCacheError on any
 * mismatch. With `checksum` unset, any version's cache at `path` is accepted (its manifest says which).
 */
export function readCache(path: string, expect?: { version?: number; checksum?: string }): Promise<ModelPayload> {
  return readCacheFiles((name) => readFile(join(path, name)), path, expect);
}

/** The names of a cache's files (its directory's entries), each read by `readCacheFiles`. */
export const CACHE_FILES: readonly string[] = Object.values(FILES);

/**
 * Reads a cache's files with `read` (by their names in CACHE_FILES: from a directory, or embedded in a program) and
 * verifies each against the manifest, as `readCache` says; `where` names them in errors.
 */
export async function readCacheFiles(read: (name: string) => Promise<Uint8Array>, where: string,
  expect?: { version?: number; checksum?: string }): Promise<ModelPayload> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(new TextDecoder().decode(await read(FILES.manifest))) as Manifest;
  } catch (err) {
    throw new ModelCacheError(`no readable manifest in ${where}: ${(err as Error).message}`);
  }
  if (manifest.format !== MODEL_FORMAT) throw new ModelCacheError(`${where} is of format ${manifest.format}, not ${MODEL_FORMAT}`);
  if (expect?.version !== undefined && manifest.version !== expect.version) throw new ModelCacheError(`${where} holds version ${manifest.version}`);
  if (expect?.checksum !== undefined && manifest.checksum !== expect.checksum) throw new ModelCacheError(`${where} holds other content`);
  const verified = async (name: string) => {
    const bytes = await read(name).catch((err: Error) => { throw new ModelCacheError(`${name}: ${err.message}`); });
    if (sha256(bytes) !== manifest.files?.[name]) throw new ModelCacheError(`${join(where, name)} does not match its checksum`);
    return ownBytes(bytes);
  };
  const [docs, tables, places] = await Promise.all([verified(FILES.docs), verified(FILES.tables), verified(FILES.places)]);
  return { version: manifest.version, checksum: manifest.checksum, published_at: manifest.published_at,
    warnings: manifest.warnings ?? null, docs, tables, places };
}

/** The newest cache in `dir` of content with this checksum, verified; null when there is none that verifies. */
export async function findCache(dir: string, checksum: string): Promise<ModelPayload | null> {
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => /^v\d+-[0-9a-f]{16}$/.test(n) && n.endsWith(`-${checksum.slice(0, 16)}`))
    .sort((a, b) => Number(b.slice(1, b.indexOf('-'))) - Number(a.slice(1, a.indexOf('-'))));
  for (const name of names) {
    try {
      return await readCache(join(dir, name), { checksum });
    } catch {
      // a damaged cache is skipped, never served
    }
  }
  return null;
}

/** Removes the caches in `dir` of versions not in `keep`, and unfinished temporary directories. */
export async function pruneCaches(dir: string, keep: ReadonlySet<number>): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = /^v(\d+)-[0-9a-f]{16}(\.tmp-.*)?$/.exec(name);
    if (m && (m[2] || !keep.has(Number(m[1])))) await rm(join(dir, name), { recursive: true, force: true });
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
