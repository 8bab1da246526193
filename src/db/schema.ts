/**
 * The content store's schema and the SQL it runs, as constants with $n placeholders (never concatenated).
 *
 * The store is the system of record. Each publish is a content version: a row in `content_versions` and a
 * schema of its own (`cv_<n>`) holding that version's tables, created, filled and keyed in one transaction,
 * then made current. Reading a version sets the search path to its schema, so the same table names and
 * statements serve every version. Account data (sessions and saved events) lives apart, in `public`, and a
 * content publish never touches it.
 *
 * Each content table keeps the relational keys as columns and the whole validated record in `doc` (jsonb;
 * for events, json: kept as written, so a million of them go in and come back out as text without
 * conversion), so a record comes back out exactly as it went in. Events and their anchors are loaded with
 * COPY, a chunk at a time. References between records are checked by the bundle
 * validator before anything is written, so the tables carry primary keys but no foreign keys: keys are
 * built once after the rows are in, which is what keeps a million-event load fast.
 */

/** The versioned migrations of the shared schema, applied in order at start; never edit one, add the next. */
export const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE content_versions (
  version int PRIMARY KEY, checksum text NOT NULL, format text NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(), source text NOT NULL DEFAULT '');
CREATE TABLE content_current (
  id boolean PRIMARY KEY DEFAULT true CHECK (id), version int NOT NULL REFERENCES content_versions(version));
CREATE TABLE sessions (token_sha256 text PRIMARY KEY, account_id uuid NOT NULL, expires_at timestamptz NOT NULL);
CREATE TABLE saved_events (account_id uuid NOT NULL, event_id uuid NOT NULL, PRIMARY KEY (account_id, event_id));
CREATE INDEX sessions_account ON sessions (account_id);`,
  },
  {
    // What check warned about in each version's bundle (its count and the first 100), for /readyz; null: a
    // version published before warnings were kept.
    version: 2,
    sql: `ALTER TABLE content_versions ADD COLUMN warnings jsonb`,
  },
  {
    // Change tracking (src/content/changes.ts): the store's identity, which every change token names; one row
    // per change (each time a version is made current, a rollback included); each record's state (its hash and
    // the change in which it last changed; a null hash is a tombstone); and the history, what each change did. The
    // identity is made at the first change (TRACKING.identify), not here: every store seeded from the empty store's
    // snapshot would share it.
    version: 3,
    sql: `
CREATE TABLE store_identity (id boolean PRIMARY KEY DEFAULT true CHECK (id), store_id uuid NOT NULL);
CREATE TABLE content_changes (change int PRIMARY KEY, version int NOT NULL, kind text NOT NULL, made_at timestamptz NOT NULL);
CREATE TABLE record_state (type text NOT NULL, id uuid NOT NULL, map_id uuid, hash bigint, change int NOT NULL, PRIMARY KEY (type, id));
CREATE TABLE record_changes (change int NOT NULL, type text NOT NULL, id uuid NOT NULL, map_id uuid, op text NOT NULL,
  PRIMARY KEY (change, type, id));`,
  },
  {
    // Each record keeps when its change was made, so its updated_at (a calendar's LAST-MODIFIED) outlives the
    // change's row, which is dropped with its history after HISTORY_DAYS. Records whose change was dropped before
    // this migration keep null: when they changed is no longer known.
    version: 4,
    sql: `
ALTER TABLE record_state ADD COLUMN made_at timestamptz;
UPDATE record_state s SET made_at = c.made_at FROM content_changes c WHERE c.change = s.change;`,
  },
];

/** Bookkeeping of applied migrations, created before any of them runs. */
export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS public.schema_migrations (
  version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;

/** The migrations already applied. */
export const APPLIED_MIGRATIONS = `SELECT version FROM public.schema_migrations ORDER BY version`;

/** Whether the migrations' bookkeeping exists (a new database has none). */
export const MIGRATIONS_PRESENT = `SELECT to_regclass('public.schema_migrations') IS NOT NULL AS present`;

/** Records a migration as applied. */
export const RECORD_MIGRATION = `INSERT INTO schema_migrations (version) VALUES ($1)`;

/** The schema that holds one content version's tables; `version` is an integer the store assigned. */
export function versionSchema(version: number): string {
  if (!Number.isSafeInteger(version) || version < 1) throw new Error(`not a content version: ${version}`);
  return `cv_${version}`;
}

/**
 * The recurring series of a version (src/content/series.ts): each as the bundle gives it, and the time its expansion
 * counts its horizon from (the publish in which it last changed). Its occurrences are rows of `events`. Versions
 * published before series came have no such table: readers look for it (`SERIES.present`), and the tracking of
 * changes makes it first (`SERIES.ensure`).
 */
const EVENT_SERIES_TABLE = `CREATE TABLE IF NOT EXISTS event_series (id uuid NOT NULL, map_id uuid NOT NULL, expanded_from timestamptz NOT NULL,
  doc jsonb NOT NULL)`;

/** The tables of one content version, without keys (they are added after the load). */
export const VERSION_TABLES = `
CREATE TABLE publishers (id uuid NOT NULL, doc jsonb NOT NULL);
CREATE TABLE maps (id uuid NOT NULL, publisher_id uuid NOT NULL, enabled boolean NOT NULL, current_version_id uuid NOT NULL, doc jsonb NOT NULL);
CREATE TABLE map_versions (id uuid NOT NULL, map_id uuid NOT NULL, status text NOT NULL, doc jsonb NOT NULL);
CREATE TABLE icons (id uuid NOT NULL, doc jsonb NOT NULL);
CREATE TABLE categories (id uuid NOT NULL, map_id uuid NOT NULL, parent_id uuid, kind text NOT NULL, doc jsonb NOT NULL);
CREATE TABLE pois (id uuid NOT NULL, map_id uuid NOT NULL, poi_type text NOT NULL, doc jsonb NOT NULL);
CREATE TABLE item_versions (item_id uuid NOT NULL, version_id uuid NOT NULL);
CREATE TABLE poi_categories (poi_id uuid NOT NULL, category_id uuid NOT NULL);
CREATE TABLE events (id uuid NOT NULL, map_id uuid NOT NULL, event_type text NOT NULL, tags text[] NOT NULL,
  starts_at timestamptz NOT NULL, ends_at timestamptz NOT NULL, doc json NOT NULL);
CREATE TABLE event_anchors (event_id uuid NOT NULL, poi_id uuid NOT NULL, ord int NOT NULL);
${EVENT_SERIES_TABLE};
CREATE TABLE lists (id uuid NOT NULL, map_id uuid NOT NULL, verified boolean NOT NULL, doc jsonb NOT NULL);
CREATE TABLE associations (id uuid NOT NULL, poi_id uuid NOT NULL, associated_poi_id uuid NOT NULL, list_id uuid, doc jsonb NOT NULL);
`;

/** Keys and indexes of one content version, built once its rows are in. */
export const VERSION_KEYS = `
ALTER TABLE publishers ADD PRIMARY KEY (id);
ALTER TABLE maps ADD PRIMARY KEY (id);
ALTER TABLE map_versions ADD PRIMARY KEY (id);
ALTER TABLE icons ADD PRIMARY KEY (id);
ALTER TABLE categories ADD PRIMARY KEY (id);
ALTER TABLE pois ADD PRIMARY KEY (id);
ALTER TABLE item_versions ADD PRIMARY KEY (item_id, version_id);
ALTER TABLE poi_categories ADD PRIMARY KEY (poi_id, category_id);
ALTER TABLE events ADD PRIMARY KEY (id);
CREATE INDEX events_map_start ON events (map_id, starts_at, id);
ALTER TABLE event_anchors ADD PRIMARY KEY (event_id, poi_id);
ALTER TABLE event_series ADD PRIMARY KEY (id);
ALTER TABLE lists ADD PRIMARY KEY (id);
ALTER TABLE associations ADD PRIMARY KEY (id);
`;

/** Content tables in load order. */
export const TABLES = [
  'publishers', 'maps', 'map_versions', 'icons', 'categories', 'pois', 'item_versions',
  'poi_categories', 'events', 'event_anchors', 'event_series', 'lists', 'associations',
] as const;

/**
 * Bulk inserts: each takes one JSON array parameter, as text (so that no client encodes the already encoded
 * text again as a JSON string), and expands it with jsonb_to_recordset.
 */
export const INSERT = {
  publishers: `INSERT INTO publishers (id, doc) SELECT id, doc FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, doc jsonb)`,
  maps: `INSERT INTO maps (id, publisher_id, enabled, current_version_id, doc)
    SELECT id, publisher_id, enabled, current_version_id, doc
    FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, publisher_id uuid, enabled boolean, current_version_id uuid, doc jsonb)`,
  map_versions: `INSERT INTO map_versions (id, map_id, status, doc) SELECT id, map_id, status, doc
    FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, map_id uuid, status text, doc jsonb)`,
  icons: `INSERT INTO icons (id, doc) SELECT id, doc FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, doc jsonb)`,
  categories: `INSERT INTO categories (id, map_id, parent_id, kind, doc) SELECT id, map_id, parent_id, kind, doc
    FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, map_id uuid, parent_id uuid, kind text, doc jsonb)`,
  pois: `INSERT INTO pois (id, map_id, poi_type, doc) SELECT id, map_id, poi_type, doc
    FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, map_id uuid, poi_type text, doc jsonb)`,
  item_versions: `INSERT INTO item_versions (item_id, version_id) SELECT item_id, version_id
    FROM jsonb_to_recordset($1::text::jsonb) AS x(item_id uuid, version_id uuid)`,
  poi_categories: `INSERT INTO poi_categories (poi_id, category_id) SELECT poi_id, category_id
    FROM jsonb_to_recordset($1::text::jsonb) AS x(poi_id uuid, category_id uuid)`,
  events: `INSERT INTO events (id, map_id, event_type, tags, starts_at, ends_at, doc)
    SELECT id, map_id, event_type, ARRAY(SELECT jsonb_array_elements_text(tags)), starts_at, ends_at, doc
    FROM jsonb_to_recordset($1::text::jsonb)
      AS x(id uuid, map_id uuid, event_type text, tags jsonb, starts_at timestamptz, ends_at timestamptz, doc jsonb)`,
  event_anchors: `INSERT INTO event_anchors (event_id, poi_id, ord) SELECT event_id, poi_id, ord
    FROM jsonb_to_recordset($1::text::jsonb) AS x(event_id uuid, poi_id uuid, ord int)`,
  event_series: `INSERT INTO event_series (id, map_id, expanded_from, doc) SELECT id, map_id, expanded_from, doc
    FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, map_id uuid, expanded_from timestamptz, doc jsonb)`,
  lists: `INSERT INTO lists (id, map_id, verified, doc) SELECT id, map_id, verified, doc
    FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, map_id uuid, verified boolean, doc jsonb)`,
  associations: `INSERT INTO associations (id, poi_id, associated_poi_id, list_id, doc)
    SELECT id, poi_id, associated_poi_id, list_id, doc
    FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, poi_id uuid, associated_poi_id uuid, list_id uuid, doc jsonb)`,
} as const;

/** Bulk loads in COPY's text format (tab-separated columns, one row a line): see `DbTx.copyIn`. */
export const COPY_IN = {
  events: `COPY events (id, map_id, event_type, tags, starts_at, ends_at, doc) FROM STDIN`,
  event_anchors: `COPY event_anchors (event_id, poi_id, ord) FROM STDIN`,
} as const;

/** Recurring series (see EVENT_SERIES_TABLE), with the search path at a version's schema. */
export const SERIES = {
  /** Whether the version has the table (a version published before series came has none). */
  present: `SELECT to_regclass('event_series') IS NOT NULL AS present`,
  /** Gives a version published before series came an empty table, so the tracking of changes reads every version alike. */
  ensure: EVENT_SERIES_TABLE,
  /**
   * A series unchanged since the version `previous` (a schema name made by versionSchema) keeps the time its horizon
   * counts from; answers every series of `$1` with that time.
   */
  carryOver: (previous: string) => `WITH kept AS (UPDATE event_series n SET expanded_from = p.expanded_from FROM ${previous}.event_series p
    WHERE n.id = ANY($1::uuid[]) AND p.id = n.id AND p.doc = n.doc RETURNING n.id)
    SELECT id::text AS id, expanded_from FROM event_series WHERE id = ANY($1::uuid[]) AND id NOT IN (SELECT id FROM kept)
    UNION ALL SELECT n.id::text, p.expanded_from FROM ${previous}.event_series p JOIN kept n ON n.id = p.id`,
  all: `SELECT doc, expanded_from FROM event_series ORDER BY id`,
} as const;

/** Content version schemas that are in no catalogue row: a publish that was staged but never made current. */
export const STAGED_SCHEMAS = `SELECT nspname AS schema FROM pg_namespace
  WHERE nspname ~ '^cv_[0-9]+$' AND substr(nspname, 4)::int NOT IN (SELECT version FROM content_versions)`;

/** Reads that build a version's read model, each in a stable order. */
/** Events per page when a version is read back. */
export const EVENT_PAGE = 50_000;

export const SELECT = {
  publishers: `SELECT doc FROM publishers ORDER BY id`,
  maps: `SELECT doc FROM maps ORDER BY id`,
  icons: `SELECT doc FROM icons ORDER BY id`,
  categories: `SELECT doc FROM categories ORDER BY id`,
  pois: `SELECT poi_type, doc FROM pois ORDER BY id`,
  itemVersions: `SELECT item_id::text AS item_id, version_id::text AS version_id FROM item_versions ORDER BY item_id, version_id`,
  /**
   * A cursor over every event as JSON text in storage order (one sequential scan), read a page at a time
   * (`fetchEvents`); the event tables put them in keyset order. Reading in key order through the index costs
   * a random read per row, which took longer than the sort it saves.
   */
  eventsCursor: `DECLARE version_events NO SCROLL CURSOR FOR SELECT doc::text AS doc FROM events`,
  /** The next `count` events of `eventsCursor` (FETCH takes no parameters: the count is checked to be an integer). */
  fetchEvents: (count: number) => {
    if (!Number.isSafeInteger(count) || count < 1) throw new Error(`not a page size: ${count}`);
    return `FETCH ${count} FROM version_events`;
  },
  lists: `SELECT doc FROM lists ORDER BY id`,
  associations: `SELECT doc FROM associations ORDER BY id`,
} as const;

/**
 * A lock shared by every process on the database (a PostgreSQL advisory lock; the number is this service's own):
 * taken around the migrations, so replicas starting at once apply each one once, and from the staging of a
 * publish to its commit, so publishes run one at a time.
 */
export const LOCKS = {
  migrations: `SELECT pg_advisory_xact_lock(7270701)`,
  publish: `SELECT pg_advisory_lock(7270702)`,
  publishDone: `SELECT pg_advisory_unlock(7270702)`,
} as const;

/** The channel a publish notifies on when its version becomes current; the payload is the version's number. */
export const PUBLISHED_CHANNEL = 'content_published';

/** The catalogue of content versions. */
export const VERSIONS = {
  /** Notifies PUBLISHED_CHANNEL; in a transaction, listeners hear it when it commits. */
  notify: `SELECT pg_notify('${PUBLISHED_CHANNEL}', $1::text)`,
  next: `SELECT coalesce(max(version), 0) + 1 AS version FROM content_versions`,
  insert: `INSERT INTO content_versions (version, checksum, format, source, published_at, warnings) VALUES ($1, $2, $3, $4, $5, $6::text::jsonb)`,
  /** A version's warnings (null when they were not kept). */
  warnings: `SELECT warnings::text AS warnings FROM content_versions WHERE version = $1`,
  makeCurrent: `INSERT INTO content_current (id, version) VALUES (true, $1) ON CONFLICT (id) DO UPDATE SET version = excluded.version`,
  current: `SELECT v.version, v.checksum, v.published_at FROM content_current c JOIN content_versions v USING (version)`,
  list: `SELECT version, checksum, published_at FROM content_versions ORDER BY version DESC`,
  remove: `DELETE FROM content_versions WHERE version = $1`,
} as const;

/** Account data: sessions and the events each account saved. */
export const SESSIONS = {
  clear: `TRUNCATE sessions, saved_events`,
  insert: `INSERT INTO sessions (token_sha256, account_id, expires_at) SELECT token_sha256, account_id, expires_at
    FROM jsonb_to_recordset($1::text::jsonb) AS x(token_sha256 text, account_id uuid, expires_at timestamptz)`,
  insertSaved: `INSERT INTO saved_events (account_id, event_id) SELECT DISTINCT account_id, event_id
    FROM jsonb_to_recordset($1::text::jsonb) AS x(account_id uuid, event_id uuid) ON CONFLICT DO NOTHING`,
  all: `SELECT s.token_sha256, s.account_id::text AS account_id, s.expires_at,
    coalesce((SELECT array_agg(e.event_id::text ORDER BY e.event_id) FROM saved_events e WHERE e.account_id = s.account_id), '{}') AS saved
    FROM sessions s ORDER BY s.token_sha256`,
  /** An unexpired session by token hash, and whether its account saved one of the events `$2` (an occurrence and its series). */
  savedEvent: `
SELECT s.account_id::text AS account_id,
       EXISTS (SELECT 1 FROM saved_events e WHERE e.account_id = s.account_id AND e.event_id = ANY($2::uuid[])) AS is_saved
FROM sessions s WHERE s.token_sha256 = $1 AND s.expires_at > $3::timestamptz`,
} as const;

/**
 * Change tracking's SQL (see src/content/changes.ts). `records` runs with the search path at a version's schema: every
 * record a client can see the change of, with its map (null for publishers and icons) and the hash it is compared
 * by. The hash covers what the record's answers are made of: its doc as stored (jsonb: the same content gives the
 * same text whatever order the bundle wrote its keys in; events' json is written by the service in one order), a
 * map's doc without its content blocks (each a record of its own), for categories and POIs the published
 * versions of their map they belong to (which `version_id` serves; a draft added changes nothing), and for events
 * and series the POIs they name that are not public (an event's `anchors` are the public ones, so its answer
 * changes when one of them stops or starts being public; the list is empty, and the hash the doc's alone, for
 * nearly every event, so the common case costs an anti-join and no text).
 */
export const TRACKING = {
  records: `
WITH published AS (
  SELECT iv.item_id, string_agg(iv.version_id::text, ',' ORDER BY iv.version_id) AS ids
  FROM item_versions iv JOIN map_versions mv ON mv.id = iv.version_id AND mv.status = 'published' GROUP BY iv.item_id),
hidden_anchors AS (
  SELECT a.event_id, string_agg(a.poi_id::text, ',' ORDER BY a.poi_id) AS ids
  FROM event_anchors a WHERE NOT EXISTS (SELECT 1 FROM published p WHERE p.item_id = a.poi_id) GROUP BY a.event_id)
SELECT 'publisher'::text AS type, id, NULL::uuid AS map_id, hashtextextended(doc::text, 0) AS hash FROM publishers
UNION ALL SELECT 'map', id, id, hashtextextended((doc - 'content_blocks')::text, 0) FROM maps
UNION ALL SELECT 'content_block', (b->>'id')::uuid, m.id, hashtextextended(b::text, 0) FROM maps m, jsonb_array_elements(m.doc->'content_blocks') AS b
UNION ALL SELECT 'icon', id, NULL, hashtextextended(doc::text, 0) FROM icons
UNION ALL SELECT 'category', c.id, c.map_id, hashtextextended(c.doc::text || '|' || coalesce(p.ids, ''), 0) FROM categories c LEFT JOIN published p ON p.item_id = c.id
UNION ALL SELECT 'poi', o.id, o.map_id, hashtextextended(o.doc::text || '|' || coalesce(p.ids, ''), 0) FROM pois o LEFT JOIN published p ON p.item_id = o.id
UNION ALL SELECT 'event', e.id, e.map_id, hashtextextended(e.doc::text || coalesce('|' || h.ids, ''), 0) FROM events e LEFT JOIN hidden_anchors h ON h.event_id = e.id
UNION ALL SELECT 'event', s.id, s.map_id, hashtextextended(s.doc::text || coalesce('|' || (SELECT string_agg(lower(x.id), ',' ORDER BY lower(x.id))
  FROM jsonb_array_elements_text(s.doc->'poi_ids') AS x(id) WHERE NOT EXISTS (SELECT 1 FROM published p WHERE p.item_id = x.id::uuid)), ''), 0) FROM event_series s
UNION ALL SELECT 'list', id, map_id, hashtextextended(doc::text, 0) FROM lists
UNION ALL SELECT 'association', a.id, o.map_id, hashtextextended(a.doc::text, 0) FROM associations a JOIN pois o ON o.id = a.poi_id`,
  storeId: `SELECT store_id::text AS store_id FROM store_identity`,
  /** Gives the store its identity, once. */
  identify: `INSERT INTO store_identity (store_id) VALUES (gen_random_uuid()) ON CONFLICT (id) DO NOTHING`,
  /** The next change's number: never one used before, even by a change whose history was dropped. */
  next: `INSERT INTO content_changes (change, version, kind, made_at)
    SELECT coalesce(max(change), 0) + 1, $1, $2, $3::timestamptz FROM content_changes RETURNING change`,
  /** Whether no record has a state yet (the store's first change). */
  noState: `SELECT NOT EXISTS (SELECT 1 FROM record_state) AS empty`,
  /** The first change's state: every record of it, new in it. */
  firstState: `INSERT INTO record_state (type, id, map_id, hash, change, made_at) SELECT type, id, map_id, hash, $1, $2::timestamptz FROM next_records
    ORDER BY type, id`,
  /** The records of the version made current (`records`, filled just before), compared with the state. */
  upserts: `INSERT INTO record_changes (change, type, id, map_id, op)
    SELECT $1, n.type, n.id, n.map_id, 'upsert' FROM next_records n LEFT JOIN record_state s ON s.type = n.type AND s.id = n.id
    WHERE s.hash IS DISTINCT FROM n.hash`,
  deletes: `INSERT INTO record_changes (change, type, id, map_id, op)
    SELECT $1, s.type, s.id, s.map_id, 'delete' FROM record_state s
    WHERE s.hash IS NOT NULL AND NOT EXISTS (SELECT 1 FROM next_records n WHERE n.type = s.type AND n.id = s.id)`,
  /** The state follows this change's history: upserts take their hash, deletes become tombstones. */
  applyUpserts: `INSERT INTO record_state (type, id, map_id, hash, change, made_at)
    SELECT n.type, n.id, n.map_id, n.hash, $1, $2::timestamptz FROM next_records n JOIN record_changes c ON c.change = $1 AND c.type = n.type AND c.id = n.id
    ON CONFLICT (type, id) DO UPDATE SET map_id = excluded.map_id, hash = excluded.hash, change = excluded.change, made_at = excluded.made_at`,
  applyDeletes: `UPDATE record_state s SET hash = NULL, change = $1, made_at = $2::timestamptz FROM record_changes c
    WHERE c.change = $1 AND c.op = 'delete' AND c.type = s.type AND c.id = s.id`,
  /**
   * Drops what is older than the span kept (but never the newest change): the changes, their history, and the
   * tombstones of records removed before the oldest change kept.
   */
  pruneChanges: `DELETE FROM content_changes WHERE made_at < $1::timestamptz AND change < (SELECT max(change) FROM content_changes)`,
  pruneHistory: `DELETE FROM record_changes WHERE change < (SELECT min(change) FROM content_changes)`,
  pruneTombstones: `DELETE FROM record_state WHERE hash IS NULL AND change < (SELECT min(change) FROM content_changes)`,
  /** The newest change, and the oldest kept (a token before it is too old to follow). */
  span: `SELECT max(change) AS newest, min(change) AS oldest FROM content_changes`,
  /** Each change kept: its number, the version it made current, what made it, and when. */
  changes: `SELECT change, version, kind, made_at FROM content_changes ORDER BY change`,
  /** Every record's state (tombstones included), with when its change was made (null when it was dropped before the record kept it). */
  state: `SELECT s.type, s.id::text AS id, s.map_id::text AS map_id, s.hash::text AS hash, s.change, s.made_at
    FROM record_state s ORDER BY s.type, s.id`,
  /** The latest change: its number, the version it made current, and when. */
  latest: `SELECT change, version, made_at FROM content_changes ORDER BY change DESC LIMIT 1`,
  /** The change most records of type `$1` (events and series, or POIs) of the current state share, and when it was made. */
  kindBase: `SELECT change, made_at FROM record_state WHERE type = $1 AND hash IS NOT NULL
    GROUP BY change, made_at ORDER BY count(*) DESC, change DESC LIMIT 1`,
  /** The records of type `$1` of the current state whose change is not `$2`, with theirs. */
  kindOthers: `SELECT id::text AS id, change, made_at FROM record_state WHERE type = $1 AND hash IS NOT NULL AND change <> $2 ORDER BY id`,
  /** The history of one map after change `$1` up to `$4` (its records', its publisher's `$3` and the icons'): what each change did, in order. */
  history: `SELECT change, type, id::text AS id, map_id::text AS map_id, op FROM record_changes
    WHERE change > $1 AND change <= $4 AND (map_id = $2::uuid OR type = 'icon' OR (type = 'publisher' AND id = $3::uuid)) ORDER BY change, type, id`,
  /** The version change `$1` made current. */
  versionOf: `SELECT version FROM content_changes WHERE change = $1`,
  /**
   * In a version's schema, the records whose answers show POIs `$1` (as the bundle refers to them, public or not): the
   * events and series anchored to one, the lists holding one, the associations from or to one; with the POI.
   */
  dependents: `SELECT 'event' AS type, event_id::text AS id, poi_id::text AS poi_id FROM event_anchors WHERE poi_id = ANY($1::uuid[])
    UNION SELECT 'event', s.id::text, lower(p.id) FROM event_series s, jsonb_array_elements_text(s.doc->'poi_ids') AS p(id)
      WHERE lower(p.id)::uuid = ANY($1::uuid[])
    UNION SELECT 'list', l.id::text, lower(i->>'poi_id') FROM lists l, jsonb_array_elements(l.doc->'items') AS i
      WHERE lower(i->>'poi_id')::uuid = ANY($1::uuid[])
    UNION SELECT 'association', id::text, poi_id::text FROM associations WHERE poi_id = ANY($1::uuid[])
    UNION SELECT 'association', id::text, associated_poi_id::text FROM associations WHERE associated_poi_id = ANY($1::uuid[])`,
  /** Maps removed from the content whose tombstones are kept, with the change that removed them. */
  removedMaps: `SELECT id::text AS id, change FROM record_state WHERE type = 'map' AND hash IS NULL`,
  /**
   * Each map's last change (in the version's schema, for its maps): the latest of its records' and tombstones',
   * its publisher's, and any icon's (the vocabulary every map's categories use).
   */
  mapChanges: `WITH by_map AS (SELECT map_id, max(change) AS change FROM record_state WHERE map_id IS NOT NULL GROUP BY map_id)
    SELECT m.id::text AS map_id, greatest(b.change,
      (SELECT change FROM record_state WHERE type = 'publisher' AND id = m.publisher_id),
      (SELECT max(change) FROM record_state WHERE type = 'icon')) AS change
    FROM maps m LEFT JOIN by_map b ON b.map_id = m.id ORDER BY m.id`,
} as const;
