/**
 * A whole map and what changed in it, for apps that work offline: GET /maps/:map_id/export (every record of a map in
 * the shapes of the read routes, and the change token it stands at) and GET /maps/:map_id/changes?since=<token> (each
 * record added, changed or removed since, from the store's change tracking: src/content/changes.ts).
 *
 * Both read one rule of which records a map has (`MapRecords`), so a client that applies the feed to an export ends
 * with what a fresh export holds. The history says which records changed; what each is now comes from the version
 * served, never from the history, and the history is read only up to the change that made that version current.
 */
import * as v from 'valibot';
import { RECORD_TYPES, changeTokenParts, type RecordChange, type RecordType } from '../content/changes.ts';
import type { MapFeedState } from '../content/model/record-changes.ts';
import type { AssociationRecord, MapView, ReadModel } from '../content/model/read-model.ts';
import { seriesRecord } from '../content/model/series-record.ts';
import { renderIn } from '../content/model/local-text.ts';
import { decodeFeatureCursor, encodeFeatureCursor } from '../http/cursor.ts';
import { HttpError, invalidParams, notFound } from '../http/errors.ts';
import { int, uuid } from '../http/params.ts';
import { defineRoute, JsonBytes } from '../http/route.ts';
import { ByteWriter } from '../utils/byte-writer.ts';
import { Lru } from '../utils/lru.ts';
import { utf8 } from '../http/respond.ts';
import { mapRecord, MapRecordSchema } from './maps.ts';
import {
  AssociationSchema, CategorySchema, ContentBlockSchema, EventSchema, ListSummarySchema, LText, NLText, PoiRecordSchema,
  PoiSummarySchema, PublisherSchema, SeriesSchema, Uuid,
} from './schemas.ts';
import { findMap, mapIdPath } from './shared.ts';

/** Where each kind of record is in the export, in the order the export writes them. */
export const EXPORT_SECTIONS: Readonly<Record<RecordType, string>> = {
  map: 'map', publisher: 'publisher', content_block: 'content_blocks', icon: 'icons', category: 'categories', poi: 'pois',
  event: 'events', list: 'lists', association: 'associations',
};

/** The feed's page size, default and most. */
const DEFAULT_CHANGES = 100;
const MAX_CHANGES = 1000;

/** A series' record in the export and the feed: its GET /events/{id} answer without what follows the clock or repeats other records. */
const SeriesRecordSchema = v.strictObject(v.omit(SeriesSchema, ['next_occurrences']).entries);
const ListRecordSchema = v.strictObject({ ...ListSummarySchema.entries, items: v.array(v.strictObject({ ...PoiSummarySchema.entries, note: NLText })) });
const IconRecordSchema = v.strictObject({ id: Uuid, name: LText, url: v.string(), color: v.nullable(v.string()), maki: v.nullable(v.string()) });

/**
 * The records of one map in the version served, by kind: what its export holds and its feed reports. A map has its
 * own record, its publisher's, its content blocks, every icon (the vocabulary its categories use), the categories and
 * tags of its published versions, its public POIs, its events of every status (each occurrence of a series an event,
 * and the series itself), its verified lists, and the associations of its POIs (universal and list-scoped).
 */
class MapRecords {
  readonly model: ReadModel;
  readonly map: MapView;
  private categories: Map<string, Record<string, unknown>> | null = null;
  private associations: Map<string, AssociationRecord> | null = null;
  private poiNumbers: number[] | null = null;

  constructor(model: ReadModel, map: MapView) {
    this.model = model;
    this.map = map;
  }

  /** The map's public POIs (numbers in the model's PoiStore), by id. */
  pois(): number[] {
    if (this.poiNumbers) return this.poiNumbers;
    const seen = new Set<number>();
    for (const version of this.map.versions.values()) for (const i of version.pois) seen.add(i);
    const pois = this.model.pois;
    this.poiNumbers = [...seen].sort((a, b) => (pois.id(a) < pois.id(b) ? -1 : pois.id(a) > pois.id(b) ? 1 : 0));
    return this.poiNumbers;
  }

  categoryMap(): Map<string, Record<string, unknown>> {
    if (this.categories) return this.categories;
    const all = new Map<string, Record<string, unknown>>();
    for (const version of this.map.versions.values()) for (const c of version.categories) if (!all.has(c.id)) all.set(c.id, c as unknown as Record<string, unknown>);
    this.categories = new Map([...all].sort(([a], [b]) => (a < b ? -1 : 1)));
    return this.categories;
  }

  associationMap(): Map<string, AssociationRecord> {
    if (this.associations) return this.associations;
    const all: AssociationRecord[] = [];
    for (const i of this.pois()) all.push(...this.model.associationsFrom.get(this.model.pois.id(i)) ?? []);
    this.associations = new Map(all.sort((a, b) => (a.id < b.id ? -1 : 1)).map((a) => [a.id, a]));
    return this.associations;
  }

  /** The icons, in their order. */
  icons(): Record<string, unknown>[] {
    return this.model.icons;
  }

  lists(): Record<string, unknown>[] {
    return this.map.lists.map((l) => ({ ...l.summary, items: l.items }));
  }

  /** A series' record in language piece `lang` (`served` for its rule's words): its answer without `next_occurrences` and `pois`. */
  async series(id: string, lang: number, served: string | null): Promise<Record<string, unknown> | null> {
    const s = this.map.series.get(id);
    if (!s) return null;
    const { next_occurrences: _next, pois: _pois, ...record } = await seriesRecord(this.model, this.map, s, Infinity, lang, served);
    return record;
  }

  /** The record of kind `type` with this (lowercase) id as the map has it now; null when it has none. */
  async record(type: RecordType, id: string, lang: number, served: string | null): Promise<unknown> {
    const { model, map } = this;
    switch (type) {
      case 'map': return id === map.id ? mapRecord(map) : null;
      case 'publisher': return id === map.publisherId ? model.publishers.get(id) ?? null : null;
      case 'content_block': return map.contentBlocks.find((b) => b.id === id) ?? null;
      case 'icon': return model.icons.find((i) => String(i.id).toLowerCase() === id) ?? null;
      case 'category': return this.categoryMap().get(id) ?? null;
      case 'poi': {
        const poi = model.pois.get(id);
        return poi && poi.record.map_id === map.id ? poi.record : null;
      }
      case 'event': {
        const i = map.events.positionOf(id);
        return i >= 0 ? map.events.summary(i, lang) : this.series(id, lang, served);
      }
      case 'list': {
        const list = model.lists.get(id);
        return list && list.mapId === map.id ? { ...list.entry.summary, items: list.entry.items } : null;
      }
      case 'association': return this.associationMap().get(id) ?? null;
    }
  }
}

/** GET /maps/:map_id/export */
export const exportMap = defineRoute({
  path: '/maps/:map_id/export',
  operationId: 'exportMap',
  summary: 'The whole map in one answer, with the change token it stands at',
  description: 'Every record of the map in the shapes of the read routes: the map (its identity and unversioned sections), ' +
    'its publisher, content blocks, every icon, the categories and tags of its published versions, its public POIs, its ' +
    'events of every status (each occurrence of a series, and each series without `next_occurrences`), its verified lists ' +
    'and the associations of its POIs. `token` is what GET /maps/{map_id}/changes takes as `since`; null when the service ' +
    'runs without change tracking (the built-in demo of the binary, or a data directory another process owns, served from its caches).',
  tag: 'Changes',
  pathParams: mapIdPath,
  query: {},
  response: v.strictObject({
    token: v.pipe(v.nullable(v.string()), v.description('The change token this export stands at: pass it as `since` to the change feed')),
    map: MapRecordSchema, publisher: PublisherSchema, content_blocks: v.array(ContentBlockSchema), icons: v.array(IconRecordSchema),
    categories: v.array(CategorySchema), pois: v.array(PoiRecordSchema),
    events: v.pipe(v.array(v.union([EventSchema, SeriesRecordSchema])), v.description('Events and occurrences by start, then id; then the series by id')),
    lists: v.array(ListRecordSchema), associations: v.array(AssociationSchema),
  }),
  errors: [404],
  async handle({ params, model, language }) {
    const map = findMap(model, params.map_id);
    const served = language.forMap(map.id);
    const lang = map.events.languageIndex(served);
    const records = new MapRecords(model, map);
    const series: unknown[] = [];
    for (const id of [...map.series.keys()].sort()) series.push(await records.series(id, lang, served));
    const json = (value: unknown) => renderIn(served, () => JSON.stringify(value));
    const head = {
      token: model.changes.tokenOf(map.id), map: mapRecord(map), publisher: model.publishers.get(map.publisherId),
      content_blocks: map.contentBlocks, icons: records.icons(), categories: [...records.categoryMap().values()],
      pois: records.pois().map((i) => model.pois.listed(i).record),
    };
    // The events, most of a large map, are copied as JSON bytes from their columns; the rest is small.
    const w = exportWriter.reset().bytes(utf8(`${json(head).slice(0, -1)},"events":[`));
    for (let i = 0; i < map.events.length; i++) {
      if (i > 0) w.byte(0x2c);
      map.events.writeRecord(i, w, lang);
    }
    if (series.length > 0) w.bytes(utf8(`${map.events.length > 0 ? ',' : ''}${json(series).slice(1, -1)}`));
    const rest = json({ lists: records.lists(), associations: [...records.associationMap().values()] });
    const body = w.bytes(utf8(`],${rest.slice(1)}`)).take();
    // A large map's export is let go of now (reset does so), not kept until the next export.
    w.reset();
    return new JsonBytes(body);
  },
});

/** Where an export is written (one request at a time runs on a thread; the answer is copied out). */
const exportWriter = new ByteWriter();

/** The change a change token names, or a 400 naming `since` when it is not one. */
const SINCE = v.pipe(
  v.string('is required: the token of an export, of an earlier page of this feed (`next_token`) or of an X-Change-Token header'),
  v.check((t) => changeTokenParts(t) !== null, 'is not a change token of this service'),
  v.description('A change token: an export\'s `token`, a feed\'s `next_token`, or the X-Change-Token header of any answer about the map'),
);

const ChangeSchema = v.variant('op', [
  v.strictObject({
    op: v.literal('upsert'), type: v.picklist(RECORD_TYPES), id: Uuid,
    record: v.pipe(v.union([MapRecordSchema, PublisherSchema, ContentBlockSchema, IconRecordSchema, CategorySchema, PoiRecordSchema,
      EventSchema, SeriesRecordSchema, ListRecordSchema, AssociationSchema]), v.description('The record as the export holds it')),
  }),
  v.strictObject({ op: v.literal('delete'), type: v.picklist(RECORD_TYPES), id: Uuid }),
]);

/** GET /maps/:map_id/changes */
export const mapChanges = defineRoute({
  path: '/maps/:map_id/changes',
  operationId: 'listMapChanges',
  summary: 'What changed in a map since a change token',
  description: 'Each record added or changed since `since` as an `upsert` with the record as the export holds it, each one ' +
    'removed (or no longer public) as a `delete`, once each, ordered by the change that last touched it, then kind, then id; ' +
    'paged with `cursor`. Once every page is read, `next_token` is where the client stands. A map that was disabled or ' +
    'removed answers one `delete` of the map; a token older than the history kept answers 410 (fetch the export again).',
  tag: 'Changes',
  pathParams: mapIdPath,
  query: {
    since: SINCE,
    limit: int(1, MAX_CHANGES, DEFAULT_CHANGES, `Changes a page, 1 to ${MAX_CHANGES}. Default ${DEFAULT_CHANGES}`),
    cursor: v.optional(v.pipe(v.string(), v.description('next_cursor from the previous page of the same `since`'))),
  },
  response: v.strictObject({
    changes: v.array(ChangeSchema),
    next_cursor: v.pipe(v.nullable(v.string()), v.description('Pass as cursor for the next page; null on the last page')),
    total: v.pipe(v.number(), v.description('Changes across all pages')),
    next_token: v.pipe(v.string(), v.description('The change token the client stands at once it has applied every page')),
  }),
  errors: [404, 410, 503],
  async handle(ctx) {
    const { params, query, model, language, publicUrl } = ctx;
    const mapId = params.map_id;
    const map = model.maps.get(mapId);
    const known = map !== undefined || model.disabledMaps.has(mapId);
    const feed = model.changes.feedOf(mapId);
    if (!feed) {
      if (!known) throw notFound(`Map ${mapId}`);
      throw new HttpError(503, 'This service runs without change tracking (the built-in demo of the binary, a data directory another ' +
        'process owns or this one cannot write, served from its model caches, or a store kept by an older release, until its next ' +
        'publish): fetch the export instead.', { members: { export: `${publicUrl}/maps/${mapId}/export` } });
    }
    const since = sinceChange(feed, query.since, mapId, publicUrl);
    const token = feed.token(feed.change);
    if (!map) {
      // Disabled or removed: one delete of the map, and nothing more to follow.
      language.forMap(mapId);
      return { changes: [{ op: 'delete', type: 'map', id: mapId }], next_cursor: null, total: 1, next_token: token };
    }
    const served = language.forMap(map.id);
    const lang = map.events.languageIndex(served);
    // A token at or after the map's last change (from a replica further ahead, say) has nothing to follow yet.
    if (since >= feed.change) return { changes: [], next_cursor: null, total: 0, next_token: since > feed.change ? query.since : token };
    const feedKey = `${model.checksum}|${feed.latest}|${map.id}|${since}`;
    let entries: FeedEntry[];
    try {
      entries = await feeds.get(feedKey, () => ctx.store.changeHistory(since, feed.latest, map.id, map.publisherId).then(feedEntries));
    } catch (err) {
      // Not kept: the next request reads the history again (the store may have been out of reach, or moved on past the
      // version served: a replica catches up within moments).
      feeds.delete(feedKey);
      throw new HttpError(503, `The change history cannot be read right now (${String((err as Error)?.message ?? err).slice(0, 200)}); try again shortly.`,
        { headers: { 'retry-after': '5' } });
    }
    const records = new MapRecords(model, map);
    const key = `${map.id}|${since}`;
    let from = 0;
    if (query.cursor !== undefined) {
      const state = decodeFeatureCursor(query.cursor, key);
      if (!state) throw invalidParams([{ name: 'cursor', in: 'query', reason: 'belongs to another `since` or map, or was altered; repeat the `since` of the page it came from' }]);
      from = entries.findIndex((e) => order(e) > state.s || (order(e) === state.s && e.id > state.i));
      if (from < 0) from = entries.length;
    }
    const page = entries.slice(from, from + query.limit);
    const changes: unknown[] = [];
    for (const e of page) {
      const record = await records.record(e.type, e.id, lang, served);
      changes.push(record === null ? { op: 'delete', type: e.type, id: e.id } : { op: 'upsert', type: e.type, id: e.id, record });
    }
    const last = page[page.length - 1];
    const more = from + page.length < entries.length;
    return { changes, next_cursor: more ? encodeFeatureCursor(key, order(last), last.id) : null, total: entries.length, next_token: token };
  },
});

/** A record the feed reports: its kind and id, and the change that last touched it. */
interface FeedEntry { change: number; type: RecordType; id: string }

/** An entry's place in the feed's order, but its id: the change, then the kind. */
function order(e: FeedEntry): number {
  return e.change * 16 + RECORD_TYPES.indexOf(e.type);
}

/**
 * The records a feed reports, each once, at the last change that touched it, in the feed's order: those the history
 * names, with the records whose answers show a POI that changed (the store adds them: `changeHistoryOf`).
 */
function feedEntries(history: readonly RecordChange[]): FeedEntry[] {
  const last = new Map<string, FeedEntry>();
  for (const h of history) {
    const k = `${h.type}|${h.id}`;
    const was = last.get(k);
    if (!was || was.change < h.change) last.set(k, { change: h.change, type: h.type, id: h.id });
  }
  return [...last.values()].sort((a, b) => order(a) - order(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The feed of recent (map, since) pairs on the version served, so the pages of one feed read the history once. Keyed
 * by the account of the changes too: the same version made current again by a rollback reads it anew.
 */
const feeds = new Lru<string, Promise<FeedEntry[]>>(64);

/**
 * The change `since` names, checked against the store: another store's token (a store made anew) or one older than the
 * history kept is 410, with a link to the export to start again from.
 */
function sinceChange(feed: MapFeedState, since: string, mapId: string, publicUrl: string): number {
  const change = feed.read(since);
  const exportUrl = `${publicUrl}/maps/${mapId}/export`;
  const gone = (why: string) => new HttpError(410, `${why}: fetch the export again (${exportUrl}) and follow the changes from its token.`,
    { headers: { link: `<${exportUrl}>; rel="alternate"` }, members: { export: exportUrl } });
  if (change === null) throw gone('The token is of another store of this service (made anew since it was given)');
  // The history after `change` is whole when every change after it is kept; nothing to follow when the map has not changed since.
  if (change < feed.oldest - 1 && change < feed.change) throw gone(`The token is older than the history this service keeps`);
  return change;
}

