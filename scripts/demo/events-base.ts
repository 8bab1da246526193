/** Shared helpers for building demo events. */
import type { EventT } from '../../src/content/bundle/bundle-schema.ts';
import { MAP, MAP_SLUG, slugify } from './ctx.ts';
import { type Rng, createdBefore, iso, pickN, uuid, ANCHOR_MS, END_MS } from './ids.ts';
import type { PoiInfo } from './pois.ts';
import type { MapKey } from './taxonomy.ts';
import { same, text, type Tr } from './i18n.ts';

export const TAGS = ['free', 'outdoor', 'family-friendly', 'live-music', 'accessible', 'night', 'food', 'art', 'kids', 'seasonal'] as const;
export type Tag = (typeof TAGS)[number];

export interface EvOpts {
  map: MapKey; key: string; title: Tr; type: string; start: number; end: number;
  pois: PoiInfo[]; tags: Tag[]; price: string; desc: Tr;
  /** Status and visitor fields (docs/bundle-format.md), added as they are: they draw nothing from `r`. */
  more?: Partial<EventT>;
}

const FREE: Tr = { en: 'Free', pt: 'Grátis', es: 'Gratis' };
/** A price in every language: "Free" is translated, an amount in euros is the same in all. */
export const priceText = (price: string): Tr => (price === 'Free' ? FREE : same(price));

/** Builds one event; adds 0–2 random extra tags up to 4 in total. */
export function makeEvent(r: Rng, o: EvOpts): EventT {
  if (!(o.start < o.end)) throw new Error(`event ${o.key}: start must precede end`);
  if (o.start < ANCHOR_MS || o.end > END_MS) throw new Error(`event ${o.key}: outside the demo window`);
  for (const p of o.pois) {
    if (p.map !== o.map) throw new Error(`event ${o.key}: POI ${p.name} of another map`);
    if (p.ver === 'draft') throw new Error(`event ${o.key}: anchored to a draft-only POI`);
  }
  const tags: string[] = [...new Set(o.tags)].slice(0, 4);
  const extra = pickN(r, TAGS.filter((t) => !tags.includes(t)), Math.floor(r() * 3));
  for (const t of extra) if (tags.length < 4 && r() < 0.5) tags.push(t);
  if (tags.length === 0) tags.push('seasonal');
  const day = iso(o.start).slice(0, 10);
  return {
    id: uuid(`event:${o.map}:${o.key}`),
    map_id: MAP[o.map],
    title: text(o.map, o.title),
    description: text(o.map, o.desc),
    event_type: o.type,
    tags,
    starts_at: iso(o.start),
    ends_at: iso(o.end),
    poi_ids: o.pois.map((p) => p.id),
    url: `https://${MAP_SLUG[o.map]}.example.org/events/${slugify(o.title.en)}-${day}`,
    image_url: `https://images.example.org/events/${o.type}-${(slugify(o.title.en).length % 8) + 1}.jpg`,
    price: text(o.map, priceText(o.price)),
    created_at: createdBefore(r, o.start),
    ...o.more,
  };
}

/** Looks up a POI of a map by exact name (and optional kind). */
export function finder(index: PoiInfo[]) {
  return (map: MapKey, name: string, kind?: PoiInfo['kind']): PoiInfo => {
    const p = index.find((q) => q.map === map && q.name === name && (!kind || q.kind === kind));
    if (!p) throw new Error(`POI not found: ${map}/${name}`);
    return p;
  };
}

/** POIs of a map visible in every version (no version_ids), optionally filtered by category keys. */
export function pool(index: PoiInfo[], map: MapKey, cats?: string[], kinds?: PoiInfo['kind'][]): PoiInfo[] {
  return index.filter((p) => p.map === map && !p.ver &&
    (!cats || p.cats.some((c) => cats.includes(c))) && (!kinds || kinds.includes(p.kind)));
}

/** Every calendar day (UTC midnight y/m/d) in the demo window. */
export function* days(): Generator<{ y: number; m: number; d: number; dow: number }> {
  for (let t = ANCHOR_MS; t <= END_MS; t += 86_400_000) {
    const dt = new Date(t);
    yield { y: dt.getUTCFullYear(), m: dt.getUTCMonth() + 1, d: dt.getUTCDate(), dow: dt.getUTCDay() };
  }
}

/** Months in the demo window as [year, month]. */
export function months(): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let y = 2026, m = 11; y < 2029; m === 12 ? (y++, (m = 1)) : m++) out.push([y, m]);
  return out;
}

export const ymd = (y: number, m: number, d: number): string =>
  `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
