/**
 * The PGlite schema and the SQL the service runs, as constants with $n placeholders (never concatenated).
 *
 * Each table keeps the relational keys as columns, and the whole validated bundle record in `doc`
 * (jsonb), so a record comes back out exactly as it went in. The read path serves from the in-memory
 * read model; the relational columns, poi_categories, event_anchors and the events index are there
 * for SQL over the same content (a PostgreSQL replica, or answering event filters in SQL to measure
 * what the in-memory index is worth).
 */

/** DDL run once on a fresh database. */
export const CREATE_SCHEMA = `
CREATE TABLE IF NOT EXISTS publishers (id uuid PRIMARY KEY, doc jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS maps (
  id uuid PRIMARY KEY, publisher_id uuid NOT NULL REFERENCES publishers(id),
  enabled boolean NOT NULL, current_version_id uuid NOT NULL, doc jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS map_versions (
  id uuid PRIMARY KEY, map_id uuid NOT NULL REFERENCES maps(id), status text NOT NULL, doc jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS icons (id uuid PRIMARY KEY, doc jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS categories (
  id uuid PRIMARY KEY, map_id uuid NOT NULL REFERENCES maps(id), parent_id uuid REFERENCES categories(id)
  DEFERRABLE INITIALLY DEFERRED, kind text NOT NULL, doc jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS pois (
  id uuid PRIMARY KEY, map_id uuid NOT NULL REFERENCES maps(id), poi_type text NOT NULL, doc jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS item_versions (item_id uuid NOT NULL, version_id uuid NOT NULL REFERENCES map_versions(id),
  PRIMARY KEY (item_id, version_id));
CREATE TABLE IF NOT EXISTS poi_categories (poi_id uuid NOT NULL REFERENCES pois(id),
  category_id uuid NOT NULL REFERENCES categories(id), PRIMARY KEY (poi_id, category_id));
CREATE TABLE IF NOT EXISTS events (
  id uuid PRIMARY KEY, map_id uuid NOT NULL REFERENCES maps(id), event_type text NOT NULL, tags text[] NOT NULL,
  starts_at timestamptz NOT NULL, ends_at timestamptz NOT NULL, doc jsonb NOT NULL);
CREATE INDEX IF NOT EXISTS events_map_start ON events (map_id, starts_at, id);
CREATE TABLE IF NOT EXISTS event_anchors (event_id uuid NOT NULL REFERENCES events(id),
  poi_id uuid NOT NULL REFERENCES pois(id), ord int NOT NULL, PRIMARY KEY (event_id, poi_id));
CREATE TABLE IF NOT EXISTS lists (
  id uuid PRIMARY KEY, map_id uuid NOT NULL REFERENCES maps(id), verified boolean NOT NULL, doc jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS associations (
  id uuid PRIMARY KEY, poi_id uuid NOT NULL REFERENCES pois(id), associated_poi_id uuid NOT NULL REFERENCES pois(id),
  list_id uuid REFERENCES lists(id), doc jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  token_sha256 text PRIMARY KEY, account_id uuid NOT NULL, expires_at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS saved_events (account_id uuid NOT NULL, event_id uuid NOT NULL REFERENCES events(id),
  PRIMARY KEY (account_id, event_id));
CREATE TABLE IF NOT EXISTS content_meta (key text PRIMARY KEY, value text NOT NULL);
`;

/** Tables in dependency order; a reload empties them in reverse. */
export const TABLES = [
  'content_meta', 'publishers', 'maps', 'map_versions', 'icons', 'categories', 'pois', 'item_versions',
  'poi_categories', 'events', 'event_anchors', 'lists', 'associations', 'sessions', 'saved_events',
] as const;

/** Bulk inserts: each takes one JSON array parameter and expands it with jsonb_to_recordset. */
export const INSERT = {
  publishers: `INSERT INTO publishers (id, doc) SELECT id, doc FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, doc jsonb)`,
  maps: `INSERT INTO maps (id, publisher_id, enabled, current_version_id, doc)
    SELECT id, publisher_id, enabled, current_version_id, doc
    FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, publisher_id uuid, enabled boolean, current_version_id uuid, doc jsonb)`,
  map_versions: `INSERT INTO map_versions (id, map_id, status, doc) SELECT id, map_id, status, doc
    FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, map_id uuid, status text, doc jsonb)`,
  icons: `INSERT INTO icons (id, doc) SELECT id, doc FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, doc jsonb)`,
  categories: `INSERT INTO categories (id, map_id, parent_id, kind, doc) SELECT id, map_id, parent_id, kind, doc
    FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, map_id uuid, parent_id uuid, kind text, doc jsonb)`,
  pois: `INSERT INTO pois (id, map_id, poi_type, doc) SELECT id, map_id, poi_type, doc
    FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, map_id uuid, poi_type text, doc jsonb)`,
  item_versions: `INSERT INTO item_versions (item_id, version_id) SELECT item_id, version_id
    FROM jsonb_to_recordset($1::jsonb) AS x(item_id uuid, version_id uuid)`,
  poi_categories: `INSERT INTO poi_categories (poi_id, category_id) SELECT poi_id, category_id
    FROM jsonb_to_recordset($1::jsonb) AS x(poi_id uuid, category_id uuid)`,
  events: `INSERT INTO events (id, map_id, event_type, tags, starts_at, ends_at, doc)
    SELECT id, map_id, event_type, ARRAY(SELECT jsonb_array_elements_text(tags)), starts_at, ends_at, doc
    FROM jsonb_to_recordset($1::jsonb)
      AS x(id uuid, map_id uuid, event_type text, tags jsonb, starts_at timestamptz, ends_at timestamptz, doc jsonb)`,
  event_anchors: `INSERT INTO event_anchors (event_id, poi_id, ord) SELECT event_id, poi_id, ord
    FROM jsonb_to_recordset($1::jsonb) AS x(event_id uuid, poi_id uuid, ord int)`,
  lists: `INSERT INTO lists (id, map_id, verified, doc) SELECT id, map_id, verified, doc
    FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, map_id uuid, verified boolean, doc jsonb)`,
  associations: `INSERT INTO associations (id, poi_id, associated_poi_id, list_id, doc)
    SELECT id, poi_id, associated_poi_id, list_id, doc
    FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, poi_id uuid, associated_poi_id uuid, list_id uuid, doc jsonb)`,
  sessions: `INSERT INTO sessions (token_sha256, account_id, expires_at) SELECT token_sha256, account_id, expires_at
    FROM jsonb_to_recordset($1::jsonb) AS x(token_sha256 text, account_id uuid, expires_at timestamptz)`,
  saved_events: `INSERT INTO saved_events (account_id, event_id) SELECT DISTINCT account_id, event_id
    FROM jsonb_to_recordset($1::jsonb) AS x(account_id uuid, event_id uuid)`,
  content_meta: `INSERT INTO content_meta (key, value) SELECT key, value
    FROM jsonb_to_recordset($1::jsonb) AS x(key text, value text)`,
} as const;

/** Reads that build the in-memory read model, each in a stable order. */
export const SELECT = {
  meta: `SELECT key, value FROM content_meta`,
  publishers: `SELECT doc FROM publishers ORDER BY id`,
  maps: `SELECT doc FROM maps ORDER BY id`,
  icons: `SELECT doc FROM icons ORDER BY id`,
  categories: `SELECT doc FROM categories ORDER BY id`,
  pois: `SELECT poi_type, doc FROM pois ORDER BY id`,
  itemVersions: `SELECT item_id::text AS item_id, version_id::text AS version_id FROM item_versions`,
  events: `SELECT doc FROM events ORDER BY starts_at, id`,
  lists: `SELECT doc FROM lists ORDER BY id`,
  associations: `SELECT doc FROM associations ORDER BY id`,
} as const;

/** Looks up an unexpired session by token hash and says whether it saved the event. */
export const SESSION_SAVED_EVENT = `
SELECT s.account_id::text AS account_id,
       EXISTS (SELECT 1 FROM saved_events e WHERE e.account_id = s.account_id AND e.event_id = $2::uuid) AS is_saved
FROM sessions s WHERE s.token_sha256 = $1 AND s.expires_at > $3::timestamptz`;
