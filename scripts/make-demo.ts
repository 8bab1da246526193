/**
 * Deterministic generator of the demo content bundle (`data/demo-bundle.json`): Lisbon, Sintra and Cascais.
 * No clock, no Math.random: a seeded PRNG, name-based UUIDs and a fixed anchor date, so two runs are byte-identical.
 * Run with `npx tsx scripts/make-demo.ts`. Exits non-zero, listing every problem, if the bundle does not validate.
 */
import { writeFileSync } from 'node:fs';
import { BUNDLE_FORMAT, type BundleT, type SessionT } from '../src/content/bundle/bundle-schema.ts';
import { BundleError, validateBundle } from '../src/content/bundle/validate-bundle.ts';
import { readerFor } from '../src/content/hours.ts';
import { ANCHOR, ANCHOR_MS, addDays, mulberry32, sha256hex, uuid } from './demo/ids.ts';
import { MAP, VER } from './demo/ctx.ts';
import { ICONS, PARENT, buildCategories, catId } from './demo/taxonomy.ts';
import { buildPois } from './demo/pois.ts';
import { seriesEvents } from './demo/events-series.ts';
import { randomEvents } from './demo/events-random.ts';
import { buildAssociations, buildLists, listId, xmasAssociation } from './demo/lists.ts';
import { MAPS, PUBLISHERS } from './demo/maps.ts';
import { selfCheck } from './demo/checks.ts';
import { SESSIONS_FORMAT } from '../src/content/sessions.ts';
import { expandSeries, occurrenceId } from '../src/content/series.ts';

const OUT = new URL('../data/demo-bundle.json', import.meta.url);
const SESSIONS_OUT = new URL('../data/demo-sessions.json', import.meta.url);
const rng = mulberry32(20261101);

const categories = buildCategories(MAP, VER);
const { markers, paths, polygons, index } = buildPois(rng, categories);

// Curated POI order for three categories: list order first, then the rest by name.
const isUnder = (key: string, root: string): boolean => {
  for (let k: string | null = key; k; k = PARENT[k] ?? null) if (k === root) return true;
  return false;
};
const lists = buildLists(rng, index);
const curate = (root: string, listKey: string | null) => {
  const cat = categories.find((c) => c.id === catId(root))!;
  const members = index.filter((p) => p.map === 'main' && !p.ver && p.cats.some((k) => isUnder(k, root)));
  const first = listKey ? lists.find((l) => l.id === listId(listKey))!.items.map((it) => it.poi_id) : [];
  const head = first.filter((id) => members.some((p) => p.id === id));
  const rest = members.filter((p) => !head.includes(p.id)).sort((a, b) => a.name.localeCompare(b.name, 'pt')).map((p) => p.id);
  cat.poi_order = [...head, ...rest];
};
curate('miradouros', 'best-miradouros');
curate('cafes', 'pasteis-de-nata-trail');
curate('fado', 'fado-nights');

const events = [...seriesEvents(rng, index), ...randomEvents(rng, index)];
const associations = [...buildAssociations(index, lists), xmasAssociation(index)];

const eventId = (key: string): string => {
  const id = uuid(`event:main:${key}`);
  if (!events.some((e) => e.id === id)) throw new Error(`saved event ${key} does not exist`);
  return id;
};
/** The id of the occurrence of series `key` that the rule starts at `start` (an RFC 3339 time). */
const occurrence = (key: string, start: string): string => {
  const series = events.find((e) => e.id === eventId(key))!;
  const id = occurrenceId(series.id, Date.parse(start));
  if (!expandSeries(series, 'Europe/Lisbon', ANCHOR_MS).occurrences.some((o) => o.id === id)) throw new Error(`series ${key} has no occurrence at ${start}`);
  return id;
};
const sessions: SessionT[] = [
  {
    token_sha256: sha256hex('demo-session-token'), account_id: uuid('account:demo'), expires_at: '2099-12-31T23:59:59Z',
    // A whole series (every Feira da Ladra), single occurrences of others, and events of their own.
    saved_event_ids: [eventId('feira-da-ladra'), occurrence('fado-clube', '2026-11-06T21:00:00Z'),
      occurrence('sunday-tour:belem-riverside-walk', '2026-11-08T10:00:00Z'),
      ...['exhibition:azulejo-five-centuries', 'festas-2027:arraial-alfama', 'oneoff:100', 'exhibition:lisbon-1755', 'festas-2028:marchas'].map(eventId)],
  },
  {
    token_sha256: sha256hex('expired-session-token'), account_id: uuid('account:expired'), expires_at: '2025-01-01T00:00:00Z',
    saved_event_ids: [occurrence('feira-da-ladra', '2026-11-07T09:00:00Z')],
  },
];

const bundle: Omit<BundleT, 'sessions'> = {
  format: BUNDLE_FORMAT, generated_at: ANCHOR, publishers: PUBLISHERS, maps: MAPS, icons: ICONS, categories,
  markers, paths, polygons, events, lists, associations,
};

const own = selfCheck({ ...bundle, sessions }, index);
try {
  await readerFor(bundle);
  validateBundle(JSON.parse(JSON.stringify(bundle)));
} catch (err) {
  if (err instanceof BundleError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
if (own.length > 0) {
  console.error(`demo bundle self-check failed: ${own.length} problem(s)\n` + own.map((p) => `  ${p}`).join('\n'));
  process.exit(1);
}

const json = JSON.stringify(bundle, null, 2) + '\n';
writeFileSync(OUT, json);
// Sessions are account data, not content: the demo's go in a sessions file of their own.
writeFileSync(SESSIONS_OUT, JSON.stringify({ format: SESSIONS_FORMAT, sessions }, null, 2) + '\n');
const in30 = events.filter((e) => e.map_id === MAP.main && Date.parse(e.starts_at) < addDays(ANCHOR_MS, 30)).length;
console.log(`wrote data/demo-bundle.json (${Buffer.byteLength(json)} bytes): ${markers.length} markers, ${paths.length} paths, ` +
  `${polygons.length} polygons, ${categories.length} categories, ${events.length} events (${in30} main-map in the first 30 days), ` +
  `${lists.length} lists, ${associations.length} associations`);
