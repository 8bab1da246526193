/**
 * The SQL stage of the pipeline: content versions written in one transaction each, read back to build the
 * read model, pruned by policy; and account sessions, kept apart from content. Works on any `Db` (PGlite
 * here; the same SQL runs on PostgreSQL).
 */
import type { Db, DbTx } from '../../db/db.ts';
import {
  APPLIED_MIGRATIONS, MIGRATIONS_PRESENT, COPY_IN, EVENT_PAGE, INSERT, LOCKS, MIGRATIONS, MIGRATIONS_TABLE, RECORD_MIGRATION, SELECT, SERIES, SESSIONS,
  STAGED_SCHEMAS, TABLES, TRACKING, VERSION_KEYS, VERSION_TABLES, VERSIONS, versionSchema,
} from '../../db/schema.ts';
import { changeToken, HISTORY_DAYS, type ChangeInfo, type ChangeKind, type ChangeSummary, type KindChanges, type RecordChange, type RecordState, type RecordType } from '../changes.ts';
import type { BundleT, EventT, SessionT, StoredEvent } from '../bundle/bundle-schema.ts';
import { hasEnd, horizonWarning, ruleOf, SERIES_HORIZON_DAYS, storedEvents } from '../series.ts';
import type { Finding } from '../bundle/findings.ts';

/** How a version's series are staged: their horizon, the publish's time, and where warnings about them go. */
export interface StagingOptions { seriesHorizonDays?: number; nowMs?: number; onWarning?: (finding: Finding) => void }
import type { VersionWarnings } from '../bundle/findings.ts';
import type { ContentDocs, PoiType } from '../model/read-model.ts';

const lc = (id: string) => id.toLowerCase();

/** Rows per INSERT statement: each JSON parameter stays far below PGlite's 1 GiB message limit. */
export const INSERT_BATCH = 5_000;

/** A value in COPY's text format: backslash, tab, newline and carriage return escaped. */
function copyValue(text: string): string {
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** A PostgreSQL array literal of texts: `{"a","b \"c\""}`. */
function textArray(items: readonly string[]): string {
  return `{${items.map((t) => `"${t.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

/** Events as COPY rows of (id, map_id, event_type, tags, starts_at, ends_at, doc). */
function eventLines(events: readonly EventT[]): string {
  let out = '';
  for (const e of events) {
    out += `${e.id}\t${e.map_id}\t${copyValue(e.event_type)}\t${copyValue(textArray(e.tags))}\t${e.starts_at}\t${e.ends_at}\t${copyValue(JSON.stringify(e))}\n`;
  }
  return out;
}

/** The anchors of events as COPY rows of (event_id, poi_id, ord), each POI once per event. */
function anchorLines(events: readonly EventT[]): string {
  let out = '';
  for (const e of events) [...new Set(e.poi_ids.map(lc))].forEach((poi, ord) => (out += `${e.id}\t${poi}\t${ord}\n`));
  return out;
}


/** How many content versions the embedded store keeps: the current one and the one before it (for rollback). */
export const KEEP_VERSIONS = 2;

/**
 * How many a PostgreSQL store keeps: a fleet rolls back with `publish --rollback VERSION`, and a replica still
 * building an older version finds it there.
 */
export const KEEP_VERSIONS_POSTGRES = 5;

/** One content version in the catalogue. */
export interface VersionInfo { version: number; checksum: string; published_at: string }

/** A session as the account system stores it. */
export interface SessionRow { token_sha256: string; account_id: string; expires_at: string; saved: string[] }

/** The records of a validated bundle as the read model takes them (its events, unless others are given). */
export function contentDocs(bundle: Omit<BundleT, 'events'> & { events?: EventT[] }, checksum: string, given: EventT[] = bundle.events ?? []): ContentDocs {
  // Series expanded from now, as a first publish would (a store counts each from the publish in which it last changed).
  const nowMs = Date.now();
  const zones = new Map(bundle.maps.map((m) => [lc(m.id), m.time_zone]));
  const series = given.filter((e) => e.recurrence).map((doc) => ({ doc, expanded_from: new Date(nowMs).toISOString() }));
  const events: StoredEvent[] = given.some((e) => e.recurrence || e.all_day)
    ? given.flatMap((e) => storedEvents(e, zones.get(lc(e.map_id)) ?? 'UTC', nowMs)) : given;
  const versionsOf = new Map(bundle.maps.map((m) => [lc(m.id), m.versions.map((ver) => lc(ver.id))]));
  // "version_ids omitted" means every version of the item's map: materialise it so queries stay simple.
  const itemVersions: { item_id: string; version_id: string }[] = [];
  const addVersions = (item: { id: string; map_id: string; version_ids?: string[] }) => {
    for (const ver of new Set((item.version_ids ?? versionsOf.get(lc(item.map_id)) ?? []).map(lc))) {
      itemVersions.push({ item_id: lc(item.id), version_id: ver });
    }
  };
  const pois = [
    ...bundle.markers.map((doc) => ({ doc, poi_type: 'marker' as const })),
    ...bundle.paths.map((doc) => ({ doc, poi_type: 'path' as const })),
    ...bundle.polygons.map((doc) => ({ doc, poi_type: 'polygon' as const })),
  ];
  bundle.categories.forEach(addVersions);
  pois.forEach((p) => addVersions(p.doc));
  return { checksum, publishers: bundle.publishers, maps: bundle.maps, icons: bundle.icons, categories: bundle.categories,
    pois, itemVersions, events, lists: bundle.lists, associations: bundle.associations, series };
}

/**
 * Writes the series of a staged version (search path at its schema): `take` keeps a chunk's series and answers its
 * other events; `expand` writes the series taken and answers their occurrences, each series' horizon counted from
 * the publish in which it last changed (see `stageVersion`).
 */
async function seriesWriter(tx: DbTx, head: Omit<BundleT, 'events'>, options: StagingOptions) {
  const nowMs = options.nowMs ?? Date.now();
  const zones = new Map(head.maps.map((m) => [lc(m.id), m.time_zone]));
  // The version served now, if it has series to carry the horizons of.
  const { rows: [current] } = await tx.query<{ version: number }>(VERSIONS.current);
  let previous: string | null = null;
  if (current) {
    const schema = versionSchema(Number(current.version));
    const { rows: [{ present }] } = await tx.query<{ present: boolean }>(`SELECT to_regclass('${schema}.event_series') IS NOT NULL AS present`);
    if (present) previous = schema;
  }
  let taken: EventT[] = [];
  return {
    take(chunk: readonly EventT[]): readonly StoredEvent[] {
      if (!chunk.some((e) => e.recurrence || e.all_day)) return chunk;
      taken = chunk.filter((e) => e.recurrence);
      return chunk.filter((e) => !e.recurrence).map((e) => (e.all_day ? storedEvents(e, zones.get(lc(e.map_id))!, nowMs)[0] : e));
    },
    /** The occurrences of the series taken, at most INSERT_BATCH at a time (a chunk's series may make far more). */
    async *expand(): AsyncGenerator<StoredEvent[]> {
      if (taken.length === 0) return;
      const now = new Date(nowMs).toISOString();
      for (let i = 0; i < taken.length; i += INSERT_BATCH) {
        await tx.query(INSERT.event_series, [JSON.stringify(taken.slice(i, i + INSERT_BATCH).map((doc) => ({ id: doc.id, map_id: doc.map_id, expanded_from: now, doc })))]);
      }
      const anchors = new Map<string, number>();
      if (previous) {
        const { rows } = await tx.query<{ id: string; expanded_from: Date | string }>(SERIES.carryOver(previous), [taken.map((e) => lc(e.id))]);
        for (const r of rows) anchors.set(r.id, new Date(r.expanded_from).getTime());
      }
      let out: StoredEvent[] = [];
      const horizonDays = options.seriesHorizonDays ?? SERIES_HORIZON_DAYS;
      const series = taken;
      taken = [];
      for (const doc of series) {
        const anchor = anchors.get(lc(doc.id));
        out.push(...storedEvents(doc, zones.get(lc(doc.map_id))!, anchor ?? nowMs, horizonDays));
        if (out.length >= INSERT_BATCH) {
          yield out;
          out = [];
        }
        // A series carried over from an earlier publish may near its horizon (check, judging it as new, cannot tell).
        const soon = anchor === undefined || hasEnd(ruleOf(doc.recurrence!)) ? null : horizonWarning(anchor + horizonDays * 86_400_000, horizonDays, nowMs);
        if (soon) options.onWarning?.({ path: '$.events', message: `series ${doc.id} (${typeof doc.title === 'string' ? doc.title : Object.values(doc.title)[0]}) ${soon}` });
      }
      if (out.length > 0) yield out;
    },
  };
}

/** The content store over one database connection. */
export class SqlStore {
  readonly db: Db;

  private constructor(db: Db) {
    this.db = db;
  }

  /** Opens the store over `db`, applying the migrations it has not seen yet. */
  static async open(db: Db): Promise<SqlStore> {
    const store = SqlStore.over(db);
    await store.migrate();
    return store;
  }

  /** The store over `db` as it is, touching nothing yet (a database that is down is not an error until used). */
  static over(db: Db): SqlStore {
    return new SqlStore(db);
  }

  /**
   * Applies the migrations the database has not seen yet, in one transaction that holds a lock every process
   * shares: replicas that start at once apply each migration once, and a failed one leaves nothing behind. When
   * every one is applied already, no statement that needs more than reading runs (even `CREATE TABLE IF NOT
   * EXISTS` needs the right to create), so a replica may use a role that can only read. A role that may not apply
   * what is missing gets an error that says what to do.
   */
  async migrate(): Promise<void> {
    const applied = await this.appliedMigrations();
    const missing = MIGRATIONS.filter((m) => !applied.has(m.version));
    if (missing.length === 0) return;
    try {
      await this.applyMigrations();
    } catch (err) {
      if ((err as { code?: string }).code !== '42501') throw err;
      throw Object.assign(new Error(`the store's schema is ${applied.size === 0 ? 'not in this database yet' : `at migration ${Math.max(...applied)} of ${MIGRATIONS.length}`}, ` +
        `and this role may not create it (${(err as Error).message}): run publish once with the role that owns the database ` +
        '(docs/deployment.md, "Roles and privileges")'), { code: '42501' });
    }
  }

  /** The migrations applied, read without writing anything (none before the first). */
  private async appliedMigrations(): Promise<Set<number>> {
    const { rows: [{ present }] } = await this.db.query<{ present: boolean }>(MIGRATIONS_PRESENT);
    if (!present) return new Set();
    return new Set((await this.db.query<{ version: number }>(APPLIED_MIGRATIONS)).rows.map((r) => Number(r.version)));
  }

  /** Applies what is missing, under the migrations lock (another process may have applied it meanwhile). */
  private async applyMigrations(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(LOCKS.migrations);
      await tx.exec(MIGRATIONS_TABLE);
      const applied = new Set((await tx.query<{ version: number }>(APPLIED_MIGRATIONS)).rows.map((r) => r.version));
      for (const m of MIGRATIONS) {
        if (applied.has(m.version)) continue;
        await tx.exec(m.sql);
        await tx.query(RECORD_MIGRATION, [m.version]);
      }
      // A store that served a version before changes were tracked: that version is the first change.
      const current = (await tx.query<{ version: number }>(VERSIONS.current)).rows[0];
      if (!applied.has(TRACKING_MIGRATION) && current) await trackChange(tx, Number(current.version), 'tracking began', new Date().toISOString(), HISTORY_DAYS);
    });
  }

  /** The version being served, or null before the first publish. */
  async current(): Promise<VersionInfo | null> {
    const { rows } = await this.db.query<{ version: number; checksum: string; published_at: Date | string }>(VERSIONS.current);
    return rows[0] ? info(rows[0]) : null;
  }

  /** Every version kept, newest first. */
  async versions(): Promise<VersionInfo[]> {
    const { rows } = await this.db.query<{ version: number; checksum: string; published_at: Date | string }>(VERSIONS.list);
    return rows.map(info);
  }

  /**
   * Writes a validated bundle as a new content version and makes it current: `stageVersion` then
   * `commitVersion`. A failure at any point (a refused row, a full disk, a crash) leaves the store as it was.
   */
  async writeVersion(bundle: BundleT, checksum: string, source = ''): Promise<VersionInfo> {
    const staged = await this.stageVersion(bundle, [bundle.events]);
    try {
      return await this.commitVersion(staged, checksum, bundle.format, source);
    } catch (err) {
      await this.dropStaged().catch(() => {});
      throw err;
    }
  }

  /**
   * Writes a new content version's tables in one transaction, keys and indexes built after the rows, without
   * making it a version: it is invisible until `commitVersion`. `events` come a chunk at a time and are loaded
   * with COPY; an error thrown while they are read (a refused event) rolls everything back. A version staged
   * earlier and never committed is dropped first. Answers the staged version's number.
   *
   * A recurring series is kept as it is given (`event_series`) and its occurrences are written as events
   * (src/content/series.ts). A series without an end is expanded to its horizon, counted from the publish in which
   * it last changed: from now for a series new or changed since the current version, else from the time the current
   * version counted it from (`seriesHorizonDays`, SERIES_HORIZON_DAYS unless given; `nowMs`, the publish's time).
   */
  async stageVersion(head: Omit<BundleT, 'events'>, events: Iterable<readonly EventT[]> | AsyncIterable<readonly EventT[]>,
    options: StagingOptions = {}): Promise<number> {
    await this.dropStaged();
    const docs = contentDocs(head, '');
    const rows: Record<(typeof TABLES)[number], () => unknown[]> = {
      publishers: () => head.publishers.map((doc) => ({ id: doc.id, doc })),
      maps: () => head.maps.map((doc) => ({ id: doc.id, publisher_id: doc.publisher_id, enabled: doc.enabled,
        current_version_id: doc.current_version_id, doc })),
      map_versions: () => head.maps.flatMap((m) => m.versions.map((doc) => ({ id: doc.id, map_id: m.id, status: doc.status, doc }))),
      icons: () => head.icons.map((doc) => ({ id: doc.id, doc })),
      categories: () => head.categories.map((doc) => ({ id: doc.id, map_id: doc.map_id, parent_id: doc.parent_id, kind: doc.kind, doc })),
      pois: () => docs.pois.map(({ doc, poi_type }) => ({ id: doc.id, map_id: doc.map_id, poi_type, doc })),
      item_versions: () => docs.itemVersions,
      poi_categories: () => docs.pois.flatMap(({ doc }) => [...new Set(doc.category_ids.map(lc))].map((c) => ({ poi_id: doc.id, category_id: c }))),
      events: () => [], // loaded with COPY below, a chunk at a time
      event_anchors: () => [],
      event_series: () => [], // with the events
      lists: () => head.lists.map((doc) => ({ id: doc.id, map_id: doc.map_id, verified: doc.verified, doc })),
      associations: () => head.associations.map((doc) => ({ id: doc.id, poi_id: doc.poi_id, associated_poi_id: doc.associated_poi_id,
        list_id: doc.list_id, doc })),
    };
    return this.db.transaction(async (tx) => {
      const { rows: [{ version }] } = await tx.query<{ version: number }>(VERSIONS.next);
      const schema = versionSchema(version);
      await tx.exec(`CREATE SCHEMA ${schema}; SET LOCAL search_path TO ${schema}, public;`);
      await tx.exec(VERSION_TABLES);
      for (const table of TABLES) {
        const list = rows[table]();
        for (let i = 0; i < list.length; i += INSERT_BATCH) await tx.query(INSERT[table], [JSON.stringify(list.slice(i, i + INSERT_BATCH))]);
      }
      const series = await seriesWriter(tx, head, options);
      for await (const chunk of events) {
        const singles = series.take(chunk);
        for (let i = 0; i < singles.length; i += INSERT_BATCH) {
          const batch = singles.slice(i, i + INSERT_BATCH);
          await tx.copyIn(COPY_IN.events, eventLines(batch));
          await tx.copyIn(COPY_IN.event_anchors, anchorLines(batch));
        }
        for await (const batch of series.expand()) {
          await tx.copyIn(COPY_IN.events, eventLines(batch));
          await tx.copyIn(COPY_IN.event_anchors, anchorLines(batch));
        }
      }
      await tx.exec(VERSION_KEYS);
      return Number(version);
    });
  }

  /**
   * Makes a staged version a content version and the current one, in one transaction, and notifies the
   * replicas listening (they hear it when the transaction commits). `publishedAt`: the time its payload was
   * built with, when it was built before the commit; `warnings`: what check found in its bundle.
   */
  async commitVersion(version: number, checksum: string, format: string, source = '', publishedAt = new Date().toISOString(),
    warnings: VersionWarnings | null = null, historyDays = HISTORY_DAYS): Promise<VersionInfo> {
    return this.db.transaction(async (tx) => {
      await tx.query(VERSIONS.insert, [version, checksum, format, source, publishedAt, warnings && JSON.stringify(warnings)]);
      return makeCurrent(tx, version, 'publish', publishedAt, historyDays);
    });
  }

  /** What check found in a version's bundle; null for a version published before warnings were kept. */
  async warningsOf(version: number): Promise<VersionWarnings | null> {
    const { rows } = await this.db.query<{ warnings: string | null }>(VERSIONS.warnings, [version]);
    return rows[0]?.warnings ? JSON.parse(rows[0].warnings) as VersionWarnings : null;
  }

  /**
   * Makes a kept version the current one again (a rollback), and notifies the replicas; throws when it is not kept.
   * `historyDays`: how long the history of changes is kept (HISTORY_DAYS unless given).
   */
  async restoreVersion(version: number, historyDays = HISTORY_DAYS): Promise<VersionInfo> {
    return this.db.transaction(async (tx) => {
      const kept = (await tx.query<{ version: number }>(VERSIONS.list)).rows.map((r) => Number(r.version));
      if (!kept.includes(version)) {
        throw new Error(`version ${version} is not kept (the store keeps ${kept.length ? kept.join(', ') : 'none'})`);
      }
      return makeCurrent(tx, version, 'rollback', new Date().toISOString(), historyDays);
    });
  }

  /** The store's identity, which its change tokens name; null until a version is first made current. */
  async storeId(): Promise<string | null> {
    return (await this.db.query<{ store_id: string }>(TRACKING.storeId)).rows[0]?.store_id ?? null;
  }

  /** The changes kept, oldest first (see TRACKING.pruneChanges for how long). */
  async changes(): Promise<ChangeInfo[]> {
    const { rows } = await this.db.query<{ change: number; version: number; kind: ChangeKind; made_at: Date | string }>(TRACKING.changes);
    return rows.map((r) => ({ change: Number(r.change), version: Number(r.version), kind: r.kind, madeAt: toIso(r.made_at) }));
  }

  /** Every record's state, tombstones included, with when its last change was made. */
  async recordStates(): Promise<RecordState[]> {
    const { rows } = await this.db.query<{ type: RecordType; id: string; map_id: string | null; hash: string | null; change: number;
      made_at: Date | string | null }>(TRACKING.state);
    return rows.map((r) => ({ type: r.type, id: r.id, mapId: r.map_id, hash: r.hash, change: Number(r.change),
      madeAt: r.made_at === null ? null : toIso(r.made_at) }));
  }

  /**
   * What changed for one map (its records, its publisher, the icons) in every change after `after` and up to `upTo`
   * (all that are kept when not given), in order.
   */
  async history(after: number, mapId: string, publisherId: string, upTo = Number.MAX_SAFE_INTEGER): Promise<RecordChange[]> {
    const { rows } = await this.db.query<{ change: number; type: RecordType; id: string; map_id: string | null; op: 'upsert' | 'delete' }>(
      TRACKING.history, [after, mapId, publisherId, Math.min(upTo, 2 ** 31 - 1)]);
    return rows.map((r) => ({ change: Number(r.change), type: r.type, id: r.id, mapId: r.map_id, op: r.op }));
  }

  /**
   * The records whose answers show one of these POIs in the version change `upTo` made current, each with the POI
   * (an event anchored to it, a list holding it, an association from or to it): what else a change of a POI changes,
   * even when the POI is no longer public. Throws when that version is no longer kept.
   */
  async dependents(upTo: number, poiIds: readonly string[]): Promise<{ type: RecordType; id: string; poiId: string }[]> {
    if (poiIds.length === 0) return [];
    const row = (await this.db.query<{ version: number }>(TRACKING.versionOf, [upTo])).rows[0];
    if (!row) throw new Error(`change ${upTo} is no longer kept`);
    return this.inVersion(Number(row.version), async (tx) => {
      await tx.exec(SERIES.ensure);
      const { rows } = await tx.query<{ type: RecordType; id: string; poi_id: string }>(TRACKING.dependents, [poiIds]);
      return rows.map((r) => ({ type: r.type, id: r.id, poiId: r.poi_id }));
    });
  }

  /** The latest change's number (the one that made the current version current); null before the first. */
  async latestChange(): Promise<number | null> {
    const row = (await this.db.query<{ change: number }>(TRACKING.latest)).rows[0];
    return row ? Number(row.change) : null;
  }

  /** When the events and POIs of the current state last changed (see ChangeSummary); null before the first change. */
  async recordChanges(): Promise<ChangeSummary | null> {
    return this.db.transaction(async (tx) => {
      // One snapshot for the three reads (a publish on another connection commits between them otherwise).
      await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const latest = (await tx.query<{ change: number; version: number; made_at: Date | string }>(TRACKING.latest)).rows[0];
      if (!latest) return null;
      const storeId = (await tx.query<{ store_id: string }>(TRACKING.storeId)).rows[0].store_id;
      const madeAt: Record<number, string | null> = { [Number(latest.change)]: toIso(latest.made_at) };
      const stamp = (change: number, at: Date | string | null) => { madeAt[change] = at === null ? null : toIso(at); };
      const kind = async (type: 'event' | 'poi'): Promise<KindChanges> => {
        const base = (await tx.query<{ change: number; made_at: Date | string | null }>(TRACKING.kindBase, [type])).rows[0];
        const others: KindChanges['others'] = { ids: [], changes: [] };
        if (base) {
          stamp(Number(base.change), base.made_at);
          for (const r of (await tx.query<{ id: string; change: number; made_at: Date | string | null }>(TRACKING.kindOthers, [type, base.change])).rows) {
            others.ids.push(r.id);
            others.changes.push(Number(r.change));
            stamp(Number(r.change), r.made_at);
          }
        }
        return { base: base ? Number(base.change) : null, others };
      };
      const events = await kind('event');
      const pois = await kind('poi');
      const oldest = Number((await tx.query<{ oldest: number }>(TRACKING.span)).rows[0].oldest);
      const removedMaps = Object.fromEntries((await tx.query<{ id: string; change: number }>(TRACKING.removedMaps)).rows
        .map((r) => [r.id, Number(r.change)]));
      await tx.exec(`SET LOCAL search_path TO ${versionSchema(Number(latest.version))}, public`);
      const maps = Object.fromEntries((await tx.query<{ map_id: string; change: number }>(TRACKING.mapChanges)).rows
        .map((r) => [r.map_id, Number(r.change)]));
      return { storeId, latest: { change: Number(latest.change), version: Number(latest.version), madeAt: toIso(latest.made_at) },
        ...events, pois, madeAt, oldest, maps, removedMaps };
    });
  }

  /** Each map of the current version with its last change and its token (see `changeToken`). */
  async mapTokens(): Promise<Map<string, { change: number; token: string }>> {
    const current = await this.current();
    if (!current) return new Map();
    const storeId = (await this.storeId())!;
    return this.inVersion(current.version, async (tx) => {
      const { rows } = await tx.query<{ map_id: string; change: number }>(TRACKING.mapChanges);
      return new Map(rows.map((r) => [r.map_id, { change: Number(r.change), token: changeToken(storeId, Number(r.change)) }]));
    });
  }

  /** Waits until no other process is publishing, then holds that until `unlockPublishing` (or the connection ends). */
  async lockPublishing(): Promise<void> {
    await this.db.query(LOCKS.publish);
  }

  /** Lets the next publisher in. */
  async unlockPublishing(): Promise<void> {
    await this.db.query(LOCKS.publishDone);
  }

  /** Drops the tables of versions staged and never committed (a publish refused, failed or cut off). */
  async dropStaged(): Promise<void> {
    const { rows } = await this.db.query<{ schema: string }>(STAGED_SCHEMAS);
    for (const { schema } of rows) await this.db.exec(`DROP SCHEMA ${schema} CASCADE`);
  }

  /** Reads a version back: the records the read model is built from, events in storage order. */
  async readVersion(version: VersionInfo): Promise<ContentDocs> {
    const docs = await this.readHead(version);
    await this.readEvents(version.version, (page) => {
      for (const e of page) docs.events.push(e);
    });
    return docs;
  }

  /** Reads a version's records but its events (`events` is empty: see `readEvents`). */
  async readHead(version: VersionInfo): Promise<ContentDocs> {
    return this.inVersion(version.version, async (tx) => {
      const docs = async <T>(sql: string) => (await tx.query<{ doc: T }>(sql)).rows.map((r) => r.doc);
      return {
        checksum: version.checksum,
        publishers: await docs(SELECT.publishers),
        maps: await docs(SELECT.maps),
        icons: await docs(SELECT.icons),
        categories: await docs(SELECT.categories),
        pois: (await tx.query<{ poi_type: PoiType; doc: ContentDocs['pois'][number]['doc'] }>(SELECT.pois)).rows,
        itemVersions: (await tx.query<{ item_id: string; version_id: string }>(SELECT.itemVersions)).rows,
        events: [],
        lists: await docs(SELECT.lists),
        associations: await docs(SELECT.associations),
        series: (await tx.query<{ present: boolean }>(SERIES.present)).rows[0].present
          ? (await tx.query<{ doc: EventT; expanded_from: Date | string }>(SERIES.all)).rows.map((r) => ({ doc: r.doc, expanded_from: new Date(r.expanded_from).toISOString() }))
          : [],
      };
    });
  }

  /**
   * Hands a version's events to `onPage`, a page of at most EVENT_PAGE at a time, in storage order (every map's,
   * in no particular order: the event tables sort them), through a cursor in one transaction.
   */
  async readEvents(version: number, onPage: (page: EventT[]) => void | Promise<void>, pageSize = EVENT_PAGE): Promise<void> {
    await this.inVersion(version, async (tx) => {
      await tx.exec(SELECT.eventsCursor);
      for (;;) {
        const { rows } = await tx.query<{ doc: string }>(SELECT.fetchEvents(pageSize));
        if (rows.length > 0) await onPage(rows.map((r) => JSON.parse(r.doc) as EventT));
        if (rows.length < pageSize) break;
      }
    });
  }

  /** Runs `fn` in a transaction whose search path is a version's schema. */
  private inVersion<T>(version: number, fn: (tx: DbTx) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await tx.exec(`SET LOCAL search_path TO ${versionSchema(version)}, public`);
      return fn(tx);
    });
  }

  /** Drops every version but the newest `keep` (the current one is always kept); returns the versions dropped. */
  async prune(keep = KEEP_VERSIONS): Promise<number[]> {
    const current = await this.current();
    const dropped: number[] = [];
    for (const [i, v] of (await this.versions()).entries()) {
      if (i < keep || v.version === current?.version) continue;
      await this.dropVersion(v.version);
      dropped.push(v.version);
    }
    return dropped;
  }

  /** Drops one version's tables and its catalogue row (never the current one's row). */
  async dropVersion(version: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.exec(`DROP SCHEMA IF EXISTS ${versionSchema(version)} CASCADE`);
      const current = (await tx.query<{ version: number }>(VERSIONS.current)).rows[0];
      if (current?.version !== version) await tx.query(VERSIONS.remove, [version]);
    });
  }

  /** Replaces every session and saved event, in one transaction (content is untouched). */
  async replaceSessions(sessions: readonly SessionT[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.exec(SESSIONS.clear);
      await tx.query(SESSIONS.insert, [JSON.stringify(sessions.map((s) => ({ token_sha256: s.token_sha256, account_id: s.account_id,
        expires_at: s.expires_at })))]);
      await tx.query(SESSIONS.insertSaved, [JSON.stringify(sessions.flatMap((s) =>
        s.saved_event_ids.map((event_id) => ({ account_id: s.account_id, event_id }))))]);
    });
  }

  /** Every stored session with its account's saved events. */
  async readSessions(): Promise<SessionRow[]> {
    const { rows } = await this.db.query<{ token_sha256: string; account_id: string; expires_at: Date | string; saved: string[] }>(SESSIONS.all);
    return rows.map((r) => ({ ...r, expires_at: toIso(r.expires_at) }));
  }
}

function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

/** The migration that began change tracking. */
const TRACKING_MIGRATION = 3;

/**
 * Points the catalogue at `version`, records the change (`trackChange`), notifies the listeners, and answers the
 * version now current.
 */
async function makeCurrent(tx: DbTx, version: number, kind: ChangeKind, madeAt: string, historyDays: number): Promise<VersionInfo> {
  await tx.query(VERSIONS.makeCurrent, [version]);
  await trackChange(tx, version, kind, madeAt, historyDays);
  await tx.query(VERSIONS.notify, [String(version)]);
  const { rows: [current] } = await tx.query<{ version: number; checksum: string; published_at: Date | string }>(VERSIONS.current);
  return info(current);
}

function info(row: { version: number; checksum: string; published_at: Date | string }): VersionInfo {
  return { version: Number(row.version), checksum: row.checksum, published_at: toIso(row.published_at) };
}

/**
 * Records the change that makes `version` current, in the transaction that does it: a new change number, each
 * record of the version compared with the state (TRACKING.records, by hash), the history of what this change added,
 * changed and removed, the state brought up to date, and what is older than `historyDays` dropped.
 */
async function trackChange(tx: DbTx, version: number, kind: ChangeKind, madeAt: string, historyDays: number): Promise<number> {
  await tx.query(TRACKING.identify);
  const { rows: [{ change }] } = await tx.query<{ change: number }>(TRACKING.next, [version, kind, madeAt]);
  await tx.exec(`SET LOCAL search_path TO ${versionSchema(version)}, public`);
  await tx.exec(SERIES.ensure);
  await tx.exec(`CREATE TEMP TABLE next_records ON COMMIT DROP AS ${TRACKING.records}`);
  await tx.exec('SET LOCAL search_path TO public');
  await tx.exec('ANALYZE next_records');
  // The first change has no history: everything in it is new, and a history is only ever read after a change
  // (a client's token), never from before the oldest. Its state is written straight away.
  const first = (await tx.query<{ empty: boolean }>(TRACKING.noState)).rows[0].empty;
  // The state keeps when each record's change was made, which outlives the change's own row (HISTORY_DAYS).
  const stamped = [change, madeAt];
  if (first) await tx.query(TRACKING.firstState, stamped);
  else {
    for (const sql of [TRACKING.upserts, TRACKING.deletes]) await tx.query(sql, [change]);
    for (const sql of [TRACKING.applyUpserts, TRACKING.applyDeletes]) await tx.query(sql, stamped);
  }
  await tx.exec('DROP TABLE next_records');
  await tx.query(TRACKING.pruneChanges, [new Date(Date.parse(madeAt) - historyDays * 86_400_000).toISOString()]);
  await tx.query(TRACKING.pruneHistory);
  await tx.query(TRACKING.pruneTombstones);
  return Number(change);
}
