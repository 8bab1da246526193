/**
 * Bundle validation: the valibot structure check, then every cross-record rule. Reports all problems,
 * each with the JSON path of the offending value, so a publisher can fix a bundle in one pass.
 */
import * as v from 'valibot';
import { Bundle, type BundleT } from './bundle-schema.ts';

/** One thing wrong with a bundle. */
export interface BundleProblem {
  path: string;
  message: string;
}

/** Thrown when a bundle is refused; carries every problem found. */
export class BundleError extends Error {
  readonly problems: BundleProblem[];
  constructor(problems: BundleProblem[]) {
    super(`content bundle refused: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n` +
      problems.map((p) => `  ${p.path}: ${p.message}`).join('\n'));
    this.name = 'BundleError';
    this.problems = problems;
  }
}

/** Formats a valibot issue path as `$.maps[0].versions[1].id`. */
function formatIssuePath(path: v.IssuePathItem[] | undefined): string {
  let out = '$';
  for (const item of path ?? []) {
    const key = item.key;
    out += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  }
  return out;
}

/** Validates structure, then references, geometry, ids and timestamps; returns the typed bundle or throws. */
export function validateBundle(input: unknown): BundleT {
  const parsed = v.safeParse(Bundle, input, { abortEarly: false });
  if (!parsed.success) {
    const problems = parsed.issues.map((i) => ({ path: formatIssuePath(i.path), message: i.message }));
    // Still run the cross-record checks over what did parse, so one pass reports everything it can.
    try {
      problems.push(...checkReferences(parsed.output as BundleT));
    } catch {
      // Too broken to walk (a collection is not even an array): the structural problems say why.
    }
    throw new BundleError(problems);
  }
  const problems = checkReferences(parsed.output);
  if (problems.length > 0) throw new BundleError(problems);
  return parsed.output;
}

const lc = (id: string) => id.toLowerCase();

/** Every cross-record rule of the bundle format; returns the problems found (empty when valid). */
export function checkReferences(b: BundleT): BundleProblem[] {
  const problems: BundleProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });

  /** Records ids of one id space and reports repeats. */
  const idSpace = (label: string) => {
    const seen = new Map<string, string>();
    return (id: string, path: string) => {
      const prev = seen.get(lc(id));
      if (prev) add(path, `duplicate ${label} id ${lc(id)} (first used at ${prev})`);
      else seen.set(lc(id), path);
    };
  };

  const publisherIds = new Set<string>();
  const seePublisher = idSpace('publisher');
  b.publishers.forEach((p, i) => { seePublisher(p.id, `$.publishers[${i}].id`); publisherIds.add(lc(p.id)); });

  const mapIds = new Set<string>();
  const versionMap = new Map<string, string>(); // version id -> map id
  const seeMap = idSpace('map');
  const seeVersion = idSpace('map version');
  const seeBlock = idSpace('content block');
  b.maps.forEach((m, i) => {
    const at = `$.maps[${i}]`;
    seeMap(m.id, `${at}.id`);
    mapIds.add(lc(m.id));
    if (!publisherIds.has(lc(m.publisher_id))) add(`${at}.publisher_id`, `unknown publisher ${lc(m.publisher_id)}`);
    m.versions.forEach((ver, j) => { seeVersion(ver.id, `${at}.versions[${j}].id`); versionMap.set(lc(ver.id), lc(m.id)); });
    const current = m.versions.find((ver) => lc(ver.id) === lc(m.current_version_id));
    if (!current) add(`${at}.current_version_id`, `${lc(m.current_version_id)} is not one of this map's versions`);
    else if (current.status !== 'published') add(`${at}.current_version_id`, 'the current version must be published, not a draft');
    m.content_blocks.forEach((c, j) => seeBlock(c.id, `${at}.content_blocks[${j}].id`));
    const bounds = m.map_data.bounds;
    if (bounds && bounds[1] > bounds[3]) add(`${at}.map_data.bounds`, 'south must not be greater than north');
  });

  const iconIds = new Set<string>();
  const seeIcon = idSpace('icon');
  b.icons.forEach((ic, i) => { seeIcon(ic.id, `$.icons[${i}].id`); iconIds.add(lc(ic.id)); });

  const checkMap = (mapId: string, path: string) => {
    if (!mapIds.has(lc(mapId))) { add(path, `unknown map ${lc(mapId)}`); return false; }
    return true;
  };
  const checkIcon = (iconId: string | null | undefined, path: string) => {
    if (iconId && !iconIds.has(lc(iconId))) add(path, `unknown icon ${lc(iconId)}`);
  };
  const checkVersions = (ids: string[] | undefined, mapId: string, path: string) => {
    ids?.forEach((id, k) => {
      const owner = versionMap.get(lc(id));
      if (!owner) add(`${path}[${k}]`, `unknown map version ${lc(id)}`);
      else if (owner !== lc(mapId)) add(`${path}[${k}]`, `map version ${lc(id)} belongs to another map (${owner})`);
    });
  };

  // Categories and POIs share one id space: their version memberships are stored by item id alone.
  const seeItem = idSpace('category or POI');
  const categoryMap = new Map<string, string>(); // category id -> map id
  const seeCategory = seeItem;
  b.categories.forEach((c, i) => { seeCategory(c.id, `$.categories[${i}].id`); categoryMap.set(lc(c.id), lc(c.map_id)); });
  const parentOf = new Map(b.categories.map((c) => [lc(c.id), c.parent_id ? lc(c.parent_id) : null]));

  const poiMap = new Map<string, string>(); // poi id -> map id
  const seePoi = seeItem;
  const poiKinds = [['markers', b.markers], ['paths', b.paths], ['polygons', b.polygons]] as const;
  for (const [kind, items] of poiKinds) {
    items.forEach((p, i) => { seePoi(p.id, `$.${kind}[${i}].id`); poiMap.set(lc(p.id), lc(p.map_id)); });
  }
  const checkPoi = (poiId: string, mapId: string, path: string) => {
    const owner = poiMap.get(lc(poiId));
    if (!owner) add(path, `unknown POI ${lc(poiId)}`);
    else if (owner !== lc(mapId)) add(path, `POI ${lc(poiId)} belongs to another map (${owner})`);
  };

  b.categories.forEach((c, i) => {
    const at = `$.categories[${i}]`;
    checkMap(c.map_id, `${at}.map_id`);
    checkIcon(c.icon_id, `${at}.icon_id`);
    checkVersions(c.version_ids, c.map_id, `${at}.version_ids`);
    if (c.parent_id) {
      const owner = categoryMap.get(lc(c.parent_id));
      if (!owner) add(`${at}.parent_id`, `unknown category ${lc(c.parent_id)}`);
      else if (owner !== lc(c.map_id)) add(`${at}.parent_id`, `category ${lc(c.parent_id)} belongs to another map (${owner})`);
      // Walk up the parents; meeting this category again means a cycle.
      let cur: string | null | undefined = lc(c.parent_id);
      for (let steps = 0; cur && steps <= b.categories.length; steps++) {
        if (cur === lc(c.id)) { add(`${at}.parent_id`, 'the category hierarchy has a cycle through this category'); break; }
        cur = parentOf.get(cur);
      }
    }
    c.poi_order?.forEach((id, k) => checkPoi(id, c.map_id, `${at}.poi_order[${k}]`));
  });

  for (const [kind, items] of poiKinds) {
    items.forEach((p, i) => {
      const at = `$.${kind}[${i}]`;
      checkMap(p.map_id, `${at}.map_id`);
      checkIcon(p.icon_id, `${at}.icon_id`);
      checkVersions(p.version_ids, p.map_id, `${at}.version_ids`);
      p.category_ids.forEach((cid, k) => {
        const owner = categoryMap.get(lc(cid));
        if (!owner) add(`${at}.category_ids[${k}]`, `unknown category ${lc(cid)}`);
        else if (owner !== lc(p.map_id)) add(`${at}.category_ids[${k}]`, `category ${lc(cid)} belongs to another map (${owner})`);
      });
    });
  }
  b.polygons.forEach((p, i) => {
    p.geometry.coordinates.forEach((ring, r) => {
      const first = ring[0];
      const last = ring[ring.length - 1];
      if (first[0] !== last[0] || first[1] !== last[1]) {
        add(`$.polygons[${i}].geometry.coordinates[${r}]`, 'linear ring is not closed: the first and last positions must be equal');
      }
    });
  });

  const eventIds = new Set<string>();
  const seeEvent = idSpace('event');
  b.events.forEach((e, i) => {
    const at = `$.events[${i}]`;
    seeEvent(e.id, `${at}.id`);
    eventIds.add(lc(e.id));
    checkMap(e.map_id, `${at}.map_id`);
    e.poi_ids.forEach((id, k) => checkPoi(id, e.map_id, `${at}.poi_ids[${k}]`));
    if (Date.parse(e.ends_at) < Date.parse(e.starts_at)) add(`${at}.ends_at`, 'ends_at is earlier than starts_at');
  });

  const listMap = new Map<string, string>();
  const seeList = idSpace('list');
  b.lists.forEach((l, i) => {
    const at = `$.lists[${i}]`;
    seeList(l.id, `${at}.id`);
    listMap.set(lc(l.id), lc(l.map_id));
    checkMap(l.map_id, `${at}.map_id`);
    l.items.forEach((item, k) => checkPoi(item.poi_id, l.map_id, `${at}.items[${k}].poi_id`));
  });

  const seeAssociation = idSpace('association');
  b.associations.forEach((a, i) => {
    const at = `$.associations[${i}]`;
    seeAssociation(a.id, `${at}.id`);
    const owner = poiMap.get(lc(a.poi_id));
    if (!owner) add(`${at}.poi_id`, `unknown POI ${lc(a.poi_id)}`);
    else {
      checkPoi(a.associated_poi_id, owner, `${at}.associated_poi_id`);
      if (a.list_id) {
        const listOwner = listMap.get(lc(a.list_id));
        if (!listOwner) add(`${at}.list_id`, `unknown list ${lc(a.list_id)}`);
        else if (listOwner !== owner) add(`${at}.list_id`, `list ${lc(a.list_id)} belongs to another map (${listOwner})`);
      }
    }
    if (lc(a.poi_id) === lc(a.associated_poi_id)) add(`${at}.associated_poi_id`, 'a POI cannot be associated with itself');
  });

  const seeSession = idSpace('session token hash');
  b.sessions.forEach((s, i) => {
    seeSession(s.token_sha256, `$.sessions[${i}].token_sha256`);
    s.saved_event_ids.forEach((id, k) => {
      if (!eventIds.has(lc(id))) add(`$.sessions[${i}].saved_event_ids[${k}]`, `unknown event ${lc(id)}`);
    });
  });
  return problems;
}
