/**
 * Loading a validated bundle into PGlite: everything in one transaction, so a failed load leaves the
 * previous content in place and nothing half-loaded is ever read.
 */
import type { Db } from '../db/pglite.ts';
import { INSERT, TABLES } from '../db/schema.ts';
import type { BundleT } from './bundle/bundle-schema.ts';
import type { ContentDocs } from './model/read-model.ts';

const lc = (id: string) => id.toLowerCase();

/** Rows per INSERT statement. */
export const INSERT_BATCH = 20_000;

/** The records of a validated bundle as the read model and the tables take them. */
export function contentDocs(bundle: BundleT, checksum: string): ContentDocs {
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
    pois, itemVersions, events: bundle.events, lists: bundle.lists, associations: bundle.associations };
}

/**
 * Replaces all content in the database with `bundle`, atomically, and returns what `then` builds inside
 * the same transaction (so a failure there rolls the load back too).
 */
export async function loadBundle<T>(db: Db, bundle: BundleT, checksum: string,
  then: (docs: ContentDocs) => T | Promise<T> = () => undefined as T): Promise<T> {
  const docs = contentDocs(bundle, checksum);
  const { pois, itemVersions } = docs;
  const rows: Record<keyof typeof INSERT, unknown[]> = {
    content_meta: [{ key: 'checksum', value: checksum }, { key: 'format', value: bundle.format }],
    publishers: bundle.publishers.map((doc) => ({ id: doc.id, doc })),
    maps: bundle.maps.map((doc) => ({ id: doc.id, publisher_id: doc.publisher_id, enabled: doc.enabled,
      current_version_id: doc.current_version_id, doc })),
    map_versions: bundle.maps.flatMap((m) => m.versions.map((doc) => ({ id: doc.id, map_id: m.id, status: doc.status, doc }))),
    icons: bundle.icons.map((doc) => ({ id: doc.id, doc })),
    categories: bundle.categories.map((doc) => ({ id: doc.id, map_id: doc.map_id, parent_id: doc.parent_id, kind: doc.kind, doc })),
    pois: pois.map(({ doc, poi_type }) => ({ id: doc.id, map_id: doc.map_id, poi_type, doc })),
    item_versions: itemVersions,
    poi_categories: pois.flatMap(({ doc }) => [...new Set(doc.category_ids.map(lc))].map((c) => ({ poi_id: doc.id, category_id: c }))),
    events: bundle.events.map((doc) => ({ id: doc.id, map_id: doc.map_id, event_type: doc.event_type, tags: doc.tags,
      starts_at: doc.starts_at, ends_at: doc.ends_at, doc })),
    event_anchors: bundle.events.flatMap((e) => [...new Set(e.poi_ids.map(lc))].map((poi_id, ord) => ({ event_id: e.id, poi_id, ord }))),
    lists: bundle.lists.map((doc) => ({ id: doc.id, map_id: doc.map_id, verified: doc.verified, doc })),
    associations: bundle.associations.map((doc) => ({ id: doc.id, poi_id: doc.poi_id, associated_poi_id: doc.associated_poi_id,
      list_id: doc.list_id, doc })),
    sessions: bundle.sessions.map((s) => ({ token_sha256: s.token_sha256, account_id: s.account_id, expires_at: s.expires_at })),
    saved_events: bundle.sessions.flatMap((s) => s.saved_event_ids.map((event_id) => ({ account_id: s.account_id, event_id }))),
  };

  return db.transaction(async (tx) => {
    await tx.exec(`TRUNCATE ${[...TABLES].reverse().join(', ')}`);
    for (const table of TABLES) {
      const list = rows[table];
      // Batches keep each JSON parameter far below PGlite's 1 GiB message limit, even for a million events.
      for (let i = 0; i < list.length; i += INSERT_BATCH) {
        await tx.query(INSERT[table], [JSON.stringify(list.slice(i, i + INSERT_BATCH))]);
      }
    }
    return then(docs);
  });
}
