/** Demo-specific invariants the generic bundle validator does not check. */
import type { BundleT } from '../../src/content/bundle/bundle-schema.ts';
import { MAP, VER } from './ctx.ts';
import { ANCHOR_MS, END_MS } from './ids.ts';
import { inRing, signedArea } from './areas.ts';
import type { PoiInfo } from './pois.ts';
import type { Pos } from './routes.ts';

export function selfCheck(b: BundleT, index: PoiInfo[]): string[] {
  const bad: string[] = [];
  const info = new Map(index.map((p) => [p.id, p]));
  const enabled = new Set(b.maps.filter((m) => m.enabled).map((m) => m.id));
  const catMap = new Map(b.categories.map((c) => [c.id, c]));

  const main = b.markers.filter((m) => m.map_id === MAP.main);
  if (main.length < 150) bad.push(`main map has only ${main.length} markers`);
  for (const m of b.markers) {
    if (m.category_ids.length < 1 || m.category_ids.length > 3) bad.push(`marker ${m.name}: ${m.category_ids.length} categories`);
    for (const c of m.category_ids) {
      const cat = catMap.get(c);
      // A marker of a version-limited category must be limited to (a subset of) the same versions.
      if (cat?.version_ids && !(m.version_ids ?? ['*']).every((v) => cat.version_ids!.includes(v))) {
        bad.push(`marker ${m.name} is in more versions than its category ${cat.name}`);
      }
    }
  }
  const topLevel = b.categories.filter((c) => c.map_id === MAP.main && !c.parent_id && c.kind === 'category' && !c.version_ids);
  if (topLevel.length < 6) bad.push(`only ${topLevel.length} top-level categories`);
  for (const p of b.paths) {
    const n = p.geometry.coordinates.length;
    if (p.map_id === MAP.main && (n < 8 || n > 25)) bad.push(`path ${p.name}: ${n} vertices`);
  }
  for (const p of b.polygons) {
    const [outer, ...holes] = p.geometry.coordinates as Pos[][];
    if (outer.length < 6 || outer.length > 16) bad.push(`polygon ${p.name}: ${outer.length} positions`);
    if (signedArea(outer) <= 0) bad.push(`polygon ${p.name}: outer ring is not counter-clockwise`);
    for (const h of holes) {
      if (signedArea(h) >= 0) bad.push(`polygon ${p.name}: hole is not clockwise`);
      if (!h.every((q) => inRing(q, outer))) bad.push(`polygon ${p.name}: hole is not inside the outer ring`);
    }
  }
  const isDraftOnly = (id: string) => info.get(id)?.ver === 'draft';
  for (const e of b.events) {
    if (enabled.has(e.map_id) && e.poi_ids.some(isDraftOnly)) bad.push(`event ${e.title} anchored to a draft-only POI`);
    const s = Date.parse(e.starts_at);
    if (!(s < Date.parse(e.ends_at))) bad.push(`event ${e.id}: starts_at not before ends_at`);
    if (s < ANCHOR_MS || Date.parse(e.ends_at) > END_MS) bad.push(`event ${e.id} outside the demo window`);
    if (!(Date.parse(e.created_at) < s)) bad.push(`event ${e.id}: created_at not before start`);
    if (e.tags.length < 1 || e.tags.length > 4) bad.push(`event ${e.id}: ${e.tags.length} tags`);
  }
  for (const l of b.lists) if (l.items.some((it) => isDraftOnly(it.poi_id))) bad.push(`list ${l.name} has a draft-only POI`);
  for (const a of b.associations) {
    if (isDraftOnly(a.poi_id) || isDraftOnly(a.associated_poi_id)) bad.push(`association ${a.id} touches a draft-only POI`);
    if (a.list_id) {
      const l = b.lists.find((x) => x.id === a.list_id);
      if (!l?.verified) bad.push(`association ${a.id}: list is not verified`);
      else if (![a.poi_id, a.associated_poi_id].every((id) => l.items.some((it) => it.poi_id === id))) bad.push(`association ${a.id}: POIs not in its list`);
    }
  }
  for (const c of b.categories) {
    for (const id of c.poi_order ?? []) {
      if (!b.markers.concat().some((m) => m.id === id) && !b.paths.some((p) => p.id === id) && !b.polygons.some((p) => p.id === id)) {
        bad.push(`category ${c.name}: unknown POI in poi_order`);
      }
    }
  }
  const main26 = main.filter((m) => m.version_ids?.[0] === VER['2026']).length;
  if (main26 < 8) bad.push(`only ${main26} markers only in 2026`);
  const ids = new Set<string>();
  for (const m of b.markers) {
    if (m.external_id) {
      if (ids.has(m.external_id)) bad.push(`duplicate external_id ${m.external_id}`);
      ids.add(m.external_id);
    }
  }
  return bad;
}
