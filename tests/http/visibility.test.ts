/**
 * The three visibility rules of the conventions ("Visibility: what is public"), proven on every route
 * that could leak them: a disabled map shows only its identity and branding, only verified lists are
 * public, and only published versions of a map can be seen. Expectations come from a linear scan of
 * the fixture bundle, and a broad crawl of every enabled-map endpoint is searched (as JSON text) for
 * any id of hidden content.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { changeToken } from '../../src/content/changes.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { F, makeFixture, uuidFor } from '../helpers/fixture.ts';

const bundle = makeFixture();
let t: TestTarget;

before(async () => {
  t = await openTarget(bundle);
});
after(async () => {
  await t?.close();
});

const M = F.map;
const P = F.pacific;
const D = F.disabled;
const WIDE = 'from=2020-01-01T00:00:00Z&to=2030-01-01T00:00:00Z';
const ALL_FLAGS = ['info', 'all_categories', 'categories', 'markers', 'paths', 'polygons', 'publisher', 'map_data', 'contact',
  'map_sponsors', 'tag_counts', 'contents'].map((f) => `${f}=true`).join('&');

// ---- Brute force over the bundle -------------------------------------------------------------

interface Versioned { id: string; map_id: string; version_ids?: string[] }
const mapDoc = (id: string) => bundle.maps.find((m) => m.id === id)!;
const publishedVersions = new Set(bundle.maps.filter((m) => m.enabled)
  .flatMap((m) => m.versions.filter((ver) => ver.status === 'published').map((ver) => ver.id)));
/** An item is public when its map is enabled and it belongs to at least one published version. */
const isPublic = (item: Versioned) => {
  const map = mapDoc(item.map_id);
  return map.enabled && (item.version_ids ?? map.versions.map((ver) => ver.id)).some((id) => publishedVersions.has(id));
};
const inVersion = (item: Versioned, mapId: string, versionId: string) =>
  item.map_id === mapId && (!item.version_ids || item.version_ids.includes(versionId));
const allPois = [
  ...bundle.markers.map((p) => ({ ...p, type: 'marker' as const })),
  ...bundle.paths.map((p) => ({ ...p, type: 'path' as const })),
  ...bundle.polygons.map((p) => ({ ...p, type: 'polygon' as const })),
];
const publicPoiIds = new Set(allPois.filter(isPublic).map((p) => p.id));
const sorted = (xs: Iterable<string>) => [...xs].sort();

const A = uuidFor('marker:main0'); // source of the hand-made associations
const X = uuidFor('marker:main20'); // target of the association scoped to the unverified list
const ROOT0 = uuidFor('category:root0');
const DISABLED_CAT = uuidFor('category:disabled');
const DRAFT_EVENT = uuidFor('event:draft-anchor');
const ASSOC_UNVERIFIED = uuidFor('assoc:a-x-unverified');
const ASSOC_DRAFT = uuidFor('assoc:a-draft');
const ASSOC_LIST = uuidFor('assoc:a-e-list');

/** Every id (and unique name) of the disabled map's content. */
const disabledTokens = (() => {
  const doc = mapDoc(D);
  const poiIds = allPois.filter((p) => p.map_id === D).map((p) => p.id);
  return [
    D, ...doc.versions.map((ver) => ver.id), ...doc.content_blocks.map((b) => b.id),
    ...bundle.categories.filter((c) => c.map_id === D).map((c) => c.id), ...poiIds,
    ...bundle.events.filter((e) => e.map_id === D).map((e) => e.id),
    ...bundle.lists.filter((l) => l.map_id === D).map((l) => l.id),
    ...bundle.associations.filter((a) => poiIds.includes(a.poi_id) || poiIds.includes(a.associated_poi_id)).map((a) => a.id),
    'Hidden marker', 'Hidden event', 'Hidden list',
  ];
})();

/** Every draft version id, every item living only in drafts, and what only reaches them. */
const draftTokens = (() => {
  const drafts = bundle.maps.filter((m) => m.enabled).flatMap((m) => m.versions.filter((ver) => ver.status === 'draft').map((ver) => ver.id));
  const draftOnly = [...bundle.categories, ...allPois]
    .filter((it) => mapDoc(it.map_id).enabled && it.version_ids && !it.version_ids.some((id) => publishedVersions.has(id)))
    .map((it) => it.id);
  return [...drafts, ...draftOnly, ASSOC_DRAFT, 'Draft only', 'Draft category'];
})();

const unverifiedTokens = [F.unverifiedList, ASSOC_UNVERIFIED];

// ---- The crawl -------------------------------------------------------------------------------

interface Crawled { path: string; status: number; scan: string }
let crawlPromise: Promise<{ pages: Crawled[]; events: Set<string>; pois: Set<string> }> | undefined;

/** Visits every endpoint of the enabled maps with every id the API itself reveals; memoised. */
function crawl() {
  crawlPromise ??= (async () => {
    const pages: Crawled[] = [];
    const visit = async (path: string, batchKeys?: string[]) => {
      const res = await t.get(path);
      const text = await res.text();
      let scan = text;
      let body: any;
      if (res.status === 200) {
        body = JSON.parse(text);
        // Batch bodies echo the requested ids as keys; only their values can leak.
        if (batchKeys) {
          assert.deepEqual(Object.keys(body), batchKeys, path);
          scan = JSON.stringify(Object.values(body));
        }
      }
      pages.push({ path, status: res.status, scan });
      return body;
    };
    const events = new Set<string>();
    const pois = new Map<string, { type: string; map: string }>();
    const lists: string[] = [];
    for (const m of [M, P]) {
      const versions = mapDoc(m).versions.filter((ver) => ver.status === 'published').map((ver) => ver.id);
      let currentCategories: string[] = [];
      for (const ver of [undefined, ...versions]) {
        const qs = ver ? `?version_id=${ver}` : '';
        const and = ver ? `&version_id=${ver}` : '';
        const body = await visit(`/maps/${m}?${ALL_FLAGS}${and}`);
        for (const kind of ['markers', 'paths', 'polygons'] as const) {
          for (const p of body?.[kind] ?? []) pois.set(p.id, { type: kind.slice(0, -1), map: m });
          await visit(`/maps/${m}/${kind}${qs}`);
        }
        if (!ver) currentCategories = (body?.all_categories ?? []).map((c: { id: string }) => c.id);
        for (const sort of ['custom', 'alphabetical', 'popularity']) {
          await visit(`/places-of-interest/items/${m}?include_counts=true&sort_type=${sort}${and}`);
        }
        await visit(`/places-of-interest/map/${m}${qs}`);
      }
      await visit(`/maps/${m}/details`);
      await visit(`/maps/${m}/contents`);
      await visit(`/maps/${m}/export`);
      const windowed = await visit(`/maps/${m}/lists?start=0&end=500`);
      for (const l of windowed?.items ?? []) {
        lists.push(l.id);
        await visit(`/maps/${m}/lists/${l.id}`);
      }
      for (let i = 0; i < currentCategories.length; i += 100) {
        await visit(`/maps/${m}/pois?tags=${currentCategories.slice(i, i + 100).join(',')}&start=0&end=500`);
      }
      // OGC API Features: each collection, every page of its items.
      for (const kind of ['markers', 'paths', 'polygons', 'events']) {
        await visit(`/ogc/collections/${m}-${kind}`);
        for (let page: string | null = `/ogc/collections/${m}-${kind}/items?limit=500`; page;) {
          const body: any = await visit(page);
          const next = body?.links?.find((l: { rel: string }) => l.rel === 'next');
          page = next ? new URL(next.href).pathname + new URL(next.href).search : null;
        }
      }
      await visit(`/places-of-interest/tags-pois-orders?map_id=${m}&type=keywords`);
      for (const c of currentCategories) await visit(`/places-of-interest/tags-pois-orders?map_id=${m}&path_id=${c}`);
      let cursor: string | null = null;
      do {
        // Every status: a cancelled event of an enabled map is served when asked for (status=all).
        const page: any = await visit(`/events?map_id=${m}&${WIDE}&limit=200&status=all${cursor ? `&cursor=${cursor}` : ''}`);
        for (const e of page?.events ?? []) events.add(e.id);
        cursor = page?.next_cursor ?? null;
      } while (cursor);
    }
    for (const id of events) await visit(`/events/${id}`);
    for (const pub of [F.publisher, F.publisherB]) {
      await visit(`/publisher/${pub}`);
      await visit(`/publisher/${pub}/maps`);
      await visit(`/publisher/${pub}/maps?lat=38.8&lng=-9.4`);
    }
    await visit('/places-of-interest/icons');
    await visit('/ogc/collections');
    for (const [id, { type, map }] of pois) {
      await visit(`/${type}s/${id}`);
      await visit(`/maps/${map}/${type}s/${id}`);
      await visit(`/places-of-interest/id/${id}`);
      await visit(`/poi-associations/${id}`);
    }
    // Batches also ask for the hidden POIs: their keys are expected, their values must be empty.
    const ids = [...pois.keys(), F.disabledMarker, F.draftMarker];
    for (let i = 0; i < ids.length; i += 100) {
      const chunk = ids.slice(i, i + 100);
      const joined = chunk.join(',');
      await visit(`/poi-associations?poi_ids=${joined}&include_reverse=true`, chunk);
      for (const l of lists) await visit(`/poi-associations?poi_ids=${joined}&include_reverse=true&list_id=${l}`, chunk);
      await visit(`/events/upcoming-by-poi?poi_ids=${joined}&from=2020-01-01T00:00:00Z&limit_per_poi=20`, chunk);
    }
    return { pages, events, pois: new Set(pois.keys()) };
  })();
  return crawlPromise;
}

/** Fails naming the first crawled page that contains any of the tokens. */
function assertNoneMention(pages: Crawled[], tokens: string[]) {
  for (const page of pages) {
    for (const token of tokens) {
      assert.ok(!page.scan.includes(token), `${page.path} mentions hidden ${token}`);
    }
  }
}

async function expect404(path: string) {
  const { status, body, res } = await t.json(path);
  assert.equal(status, 404, `${path} answered ${status}: ${JSON.stringify(body).slice(0, 200)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, path);
}

async function expect200(path: string) {
  const { status, body } = await t.json(path);
  assert.equal(status, 200, `${path} answered ${status}: ${JSON.stringify(body).slice(0, 200)}`);
  return body;
}

// ---- Disabled maps ---------------------------------------------------------------------------

describe('a disabled map', () => {
  test('shows only its limited identity and branding through details, with enabled false', async () => {
    const body = await expect200(`/maps/${D}/details`);
    const doc = mapDoc(D);
    assert.deepEqual(Object.keys(body).sort(), ['branding', 'enabled', 'id', 'name', 'publisher_id', 'slug']);
    assert.deepEqual(body, { id: D, publisher_id: doc.publisher_id, name: doc.name, slug: doc.slug, branding: doc.branding, enabled: false });
    // The enabled map's details carry more, so the key-set check above can tell the two apart.
    const enabled = await expect200(`/maps/${M}/details`);
    assert.equal(enabled.enabled, true);
    assert.ok('description' in enabled && 'current_version_id' in enabled && 'version' in enabled);
  });

  const scopedPaths = (m: string, marker: string, list: string, cat: string, version: string) => [
    `/maps/${m}`, `/maps/${m}?${ALL_FLAGS}`, `/maps/${m}?version_id=${version}`, `/maps/${m}/contents`,
    `/maps/${m}/pois?tags=${cat}`, `/maps/${m}/markers`, `/maps/${m}/markers?version_id=${version}`, `/maps/${m}/paths`,
    `/maps/${m}/polygons`, `/maps/${m}/markers/${marker}`, `/maps/${m}/lists`, `/maps/${m}/lists/${list}`,
    `/places-of-interest/items/${m}`, `/places-of-interest/items/${m}?include_counts=true&version_id=${version}`,
    `/places-of-interest/map/${m}`, `/places-of-interest/map/${m}?version_id=${version}`,
    `/places-of-interest/tags-pois-orders?map_id=${m}&type=keywords`,
    `/places-of-interest/tags-pois-orders?map_id=${m}&path_id=${cat}`, `/events?map_id=${m}&${WIDE}`, `/events?map_id=${m}`,
    // OGC API Features: a map's collections.
    ...['markers', 'paths', 'polygons', 'events'].flatMap((kind) => [`/ogc/collections/${m}-${kind}`, `/ogc/collections/${m}-${kind}/items`,
      `/ogc/collections/${m}-${kind}/queryables`]), `/ogc/collections/${m}-markers/items/${marker}`,
    `/maps/${m}/export`,
  ];

  test('answers 404 on every other map-scoped route, where an enabled map answers 200', async () => {
    for (const path of scopedPaths(M, A, F.verifiedList, ROOT0, F.v2)) await expect200(path);
    for (const path of scopedPaths(D, F.disabledMarker, F.disabledList, DISABLED_CAT, F.disabledV)) await expect404(path);
  });

  test('answers the change feed with one delete of the map and nothing of its content, the one exception to 404', async () => {
    const since = (await t.get(`/maps/${M}/details`)).headers.get('x-change-token');
    if (!t.tracksChanges) {
      // No history to follow: the feed of the disabled map is 503 too, never its content.
      assert.equal(since, null);
      const res = await t.get(`/maps/${D}/changes?since=${changeToken('00000000-0000-0000-0000-000000000000', 1)}`);
      assert.equal(res.status, 503);
      assert.ok((await res.json()).export.endsWith(`/maps/${D}/export`));
      return;
    }
    assert.ok(since);
    const body = await expect200(`/maps/${D}/changes?since=${since}`);
    assert.deepEqual(body.changes, [{ op: 'delete', type: 'map', id: D }]);
    assert.equal(body.total, 1);
    assert.equal(body.next_cursor, null);
    const text = JSON.stringify(body);
    for (const token of disabledTokens) if (token !== D) assert.ok(!text.includes(token), token);
  });

  test('has none of its POIs, events or lists found through the id-only routes', async () => {
    for (const path of [
      `/markers/${F.disabledMarker}`, `/places-of-interest/id/${F.disabledMarker}`, `/poi-associations/${F.disabledMarker}`,
      `/events/${F.disabledEvent}`, `/maps/${M}/markers/${F.disabledMarker}`, `/maps/${M}/lists/${F.disabledList}`,
      `/poi-associations?poi_ids=${A}&list_id=${F.disabledList}`,
      // Its outputs: the calendar, the page and the JSON-LD of its events and places.
      `/events/${F.disabledEvent}.ics`, `/events/${F.disabledEvent}.html`, `/events/${F.disabledEvent}.jsonld`,
      `/markers/${F.disabledMarker}.html`, `/markers/${F.disabledMarker}.jsonld`,
    ]) await expect404(path);
    // The same routes do find public content.
    for (const path of [`/markers/${A}`, `/places-of-interest/id/${A}`, `/poi-associations/${A}`, `/events/${F.savedEvent}`]) {
      await expect200(path);
    }
  });

  test('has its POI mapped to an empty array by the batch lookups, even with an event starting now', async () => {
    const hidden = bundle.events.find((e) => e.id === F.disabledEvent)!;
    assert.ok(hidden.poi_ids.includes(F.disabledMarker) && Date.parse(hidden.ends_at) >= F.now.getTime());
    const upcoming = await expect200(`/events/upcoming-by-poi?poi_ids=${F.disabledMarker},${A}&from=2020-01-01T00:00:00Z`);
    assert.deepEqual(Object.keys(upcoming), [F.disabledMarker, A]);
    assert.deepEqual(upcoming[F.disabledMarker], []);
    const assoc = await expect200(`/poi-associations?poi_ids=${F.disabledMarker},${A}&include_reverse=true`);
    assert.deepEqual(Object.keys(assoc), [F.disabledMarker, A]);
    assert.deepEqual(assoc[F.disabledMarker], []);
    assert.ok(assoc[A].length > 0, 'the public POI next to it does have associations');
  });

  test('is left out of its publisher\'s maps, with and without lat/lng', async () => {
    const expected = sorted(bundle.maps.filter((m) => m.publisher_id === F.publisher && m.enabled).map((m) => m.id));
    assert.ok(mapDoc(D).publisher_id === F.publisher, 'the disabled map does belong to this publisher');
    for (const qs of ['', '?lat=38.8&lng=-9.4']) {
      const body = await expect200(`/publisher/${F.publisher}/maps${qs}`);
      assert.deepEqual(sorted(body.maps.map((m: { id: string }) => m.id)), expected);
      assert.equal(body.total, expected.length);
    }
  });

  test('never appears in any response of a broad crawl of the enabled maps', async () => {
    const { pages, events, pois } = await crawl();
    const failed = pages.filter((p) => p.status !== 200).map((p) => `${p.status} ${p.path}`);
    assert.deepEqual(failed, [], 'every crawled page answers 200');
    // The crawl reached every public event and POI, so the search below covers them all.
    assert.deepEqual(sorted(events), sorted(bundle.events.filter((e) => mapDoc(e.map_id).enabled).map((e) => e.id)));
    assert.deepEqual(sorted(pois), sorted(publicPoiIds));
    assert.ok(disabledTokens.includes(F.disabledMarker) && disabledTokens.includes(F.disabledEvent) && disabledTokens.includes(F.disabledList));
    assertNoneMention(pages, disabledTokens);
  });
});

// ---- Lists -----------------------------------------------------------------------------------

describe('lists', () => {
  const compareName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

  test('GET /maps/:id/lists returns only the verified lists of the map', async () => {
    const expected = bundle.lists.filter((l) => l.map_id === M && l.verified)
      .sort((a, b) => compareName.compare(String(a.name), String(b.name)) || (a.id < b.id ? -1 : 1)).map((l) => l.id);
    assert.ok(bundle.lists.some((l) => l.map_id === M && !l.verified), 'the fixture has an unverified list');
    for (const qs of ['?start=0&end=500', '?verified=true&start=0&end=500']) {
      const body = await expect200(`/maps/${M}/lists${qs}`);
      assert.deepEqual(body.items.map((l: { id: string }) => l.id), expected);
      assert.equal(body.total, expected.length);
      assert.ok(body.items.every((l: { verified: unknown }) => l.verified === true));
    }
  });

  test('verified=false gets 403 with a problem body saying unverified lists are not public', async () => {
    const { status, body, res } = await t.json(`/maps/${M}/lists?verified=false`);
    assert.equal(status, 403);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(body.status, 403);
    assert.match(body.detail, /unverified lists are not public/i);
  });

  test('verified=yes gets 400 naming verified', async () => {
    const { status, body } = await t.json(`/maps/${M}/lists?verified=yes`);
    assert.equal(status, 400);
    assert.deepEqual(body.errors.map((e: { name: string; in: string }) => [e.name, e.in]), [['verified', 'query']]);
  });

  test('an unverified list answers 404 by id, where a verified one answers 200', async () => {
    await expect404(`/maps/${M}/lists/${F.unverifiedList}`);
    await expect200(`/maps/${M}/lists/${F.verifiedList}`);
  });

  test('associations scoped to an unverified list never appear', async () => {
    const scoped = bundle.associations.find((a) => a.id === ASSOC_UNVERIFIED)!;
    assert.equal(scoped.list_id, F.unverifiedList);
    assert.ok(scoped.mutual && publicPoiIds.has(scoped.poi_id) && publicPoiIds.has(scoped.associated_poi_id));
    await expect404(`/poi-associations?poi_ids=${A},${X}&list_id=${F.unverifiedList}`);
    for (const qs of ['', `&list_id=${F.verifiedList}`]) {
      const body = await expect200(`/poi-associations?poi_ids=${A},${X}&include_reverse=true${qs}`);
      assert.ok(!JSON.stringify(body).includes(ASSOC_UNVERIFIED), `batch${qs}`);
    }
    for (const id of [A, X]) {
      assert.ok(!JSON.stringify(await expect200(`/poi-associations/${id}`)).includes(ASSOC_UNVERIFIED));
    }
    const { pages } = await crawl();
    assertNoneMention(pages, unverifiedTokens);
  });

  test('list_id of a verified list adds exactly the associations scoped to that list', async () => {
    const ids = [...publicPoiIds].filter((id) => allPois.find((p) => p.id === id)!.map_id === M);
    const expectedFor = (poi: string, list: string | null) => sorted(bundle.associations
      .filter((a) => a.poi_id === poi && publicPoiIds.has(a.associated_poi_id) && (a.list_id === null || a.list_id === list))
      .map((a) => a.id));
    let scopedSeen = 0;
    for (let i = 0; i < ids.length; i += 100) {
      const chunk = ids.slice(i, i + 100);
      const plain = await expect200(`/poi-associations?poi_ids=${chunk.join(',')}`);
      const withList = await expect200(`/poi-associations?poi_ids=${chunk.join(',')}&list_id=${F.verifiedList}`);
      for (const id of chunk) {
        assert.deepEqual(sorted(plain[id].map((a: { id: string }) => a.id)), expectedFor(id, null), `${id} without list_id`);
        assert.deepEqual(sorted(withList[id].map((a: { id: string }) => a.id)), expectedFor(id, F.verifiedList), `${id} with list_id`);
        scopedSeen += withList[id].filter((a: { list_id: string | null }) => a.list_id === F.verifiedList).length;
      }
    }
    assert.ok(scopedSeen > 0, 'the fixture has list-scoped associations');
    const a = await expect200(`/poi-associations?poi_ids=${A}&list_id=${F.verifiedList}`);
    assert.ok(a[A].some((x: { id: string }) => x.id === ASSOC_LIST));
  });
});

// ---- Versions --------------------------------------------------------------------------------

describe('versions', () => {
  const versionedPaths = (version: string) => [
    `/maps/${M}?version_id=${version}`, `/maps/${M}/markers?version_id=${version}`, `/maps/${M}/paths?version_id=${version}`,
    `/maps/${M}/polygons?version_id=${version}`, `/places-of-interest/items/${M}?version_id=${version}`,
    `/places-of-interest/map/${M}?version_id=${version}`,
  ];

  test('a draft version, or a version of another map, gets 404 on all six versioned routes', async () => {
    for (const version of [F.draft, F.pacificV, F.disabledV]) {
      for (const path of versionedPaths(version)) await expect404(path);
    }
    for (const version of [F.v1, F.v2]) for (const path of versionedPaths(version)) await expect200(path);
  });

  const expectedIds = (version: string, type: 'marker' | 'path' | 'polygon') =>
    sorted(allPois.filter((p) => p.type === type && inVersion(p, M, version)).map((p) => p.id));

  test('version_id of v1 serves the content of v1, and the default is the current version', async () => {
    const v2Only = allPois.filter((p) => p.map_id === M && p.version_ids?.length === 1 && p.version_ids[0] === F.v2).map((p) => p.id);
    assert.ok(v2Only.length > 0 && mapDoc(M).current_version_id === F.v2);
    for (const [version, qs] of [[F.v1, `&version_id=${F.v1}`], [F.v2, `&version_id=${F.v2}`], [F.v2, '']] as const) {
      const body = await expect200(`/maps/${M}?markers=true&paths=true&polygons=true&all_categories=true${qs}`);
      assert.equal(body.version.id, version);
      for (const kind of ['marker', 'path', 'polygon'] as const) {
        assert.deepEqual(sorted(body[`${kind}s`].map((p: { id: string }) => p.id)), expectedIds(version, kind), `${kind}s ${qs}`);
        const route = await expect200(`/maps/${M}/${kind}s${qs.replace('&', '?')}`);
        assert.equal(route.version_id, version);
        assert.deepEqual(sorted(route[`${kind}s`].map((p: { id: string }) => p.id)), expectedIds(version, kind));
        const geo = await expect200(`/places-of-interest/map/${M}${qs.replace('&', '?')}`);
        assert.deepEqual(sorted(geo[`${kind}s`].features.map((f: { id: string }) => f.id)), expectedIds(version, kind));
      }
      const expectedCats = sorted(bundle.categories.filter((c) => inVersion(c, M, version)).map((c) => c.id));
      assert.deepEqual(sorted(body.all_categories.map((c: { id: string }) => c.id)), expectedCats);
      const markerIds = body.markers.map((p: { id: string }) => p.id);
      assert.equal(markerIds.includes(F.v1OnlyMarker), version === F.v1);
      for (const id of v2Only) assert.equal(markerIds.includes(id), version === F.v2);
    }
    assert.deepEqual(await expect200(`/maps/${M}?markers=true&tag_counts=true`), await expect200(`/maps/${M}?markers=true&tag_counts=true&version_id=${F.v2}`));
  });

  test('draft-only POIs and categories are not found through any id route', async () => {
    for (const path of [
      `/markers/${F.draftMarker}`, `/maps/${M}/markers/${F.draftMarker}`, `/places-of-interest/id/${F.draftMarker}`,
      `/poi-associations/${F.draftMarker}`, `/places-of-interest/tags-pois-orders?map_id=${M}&path_id=${F.draftCategory}`,
    ]) await expect404(path);
    const byTag = await expect200(`/maps/${M}/pois?tags=${F.draftCategory}`);
    assert.deepEqual([byTag.items, byTag.total], [[], 0]);
  });

  test('list items never include a draft-only POI', async () => {
    const doc = bundle.lists.find((l) => l.id === F.verifiedList)!;
    assert.ok(doc.items.some((it) => it.poi_id === F.draftMarker), 'the fixture lists a draft-only POI');
    const expected = doc.items.filter((it) => publicPoiIds.has(it.poi_id)).map((it) => it.poi_id);
    const body = await expect200(`/maps/${M}/lists/${F.verifiedList}`);
    assert.deepEqual(body.items.map((it: { id: string }) => it.id), expected);
    assert.equal(body.item_count, expected.length);
    const windowed = await expect200(`/maps/${M}/lists?end=500`);
    assert.equal(windowed.items.find((l: { id: string }) => l.id === F.verifiedList).item_count, expected.length);
  });

  test('an event anchored only to a draft POI shows no anchors and never matches a spatial filter', async () => {
    const doc = bundle.events.find((e) => e.id === DRAFT_EVENT)!;
    assert.deepEqual(doc.poi_ids, [F.draftMarker]);
    const event = await expect200(`/events/${DRAFT_EVENT}`);
    assert.deepEqual([event.anchors, event.pois], [[], []]);
    const window = `from=${doc.starts_at}&to=${doc.ends_at}`;
    const ids = async (extra: string) => {
      const body = await expect200(`/events?map_id=${M}&${window}&limit=200${extra}`);
      assert.equal(body.next_cursor, null);
      return body.events as { id: string; anchors: unknown[] }[];
    };
    const unfiltered = await ids('');
    assert.deepEqual(unfiltered.find((e) => e.id === DRAFT_EVENT)?.anchors, [], 'listed without a spatial filter, with no anchors');
    const draft = bundle.markers.find((m) => m.id === F.draftMarker)!;
    // Brute force: the events of the window that have at least one public anchor.
    const anchored = sorted(bundle.events.filter((e) => e.map_id === M && Date.parse(e.starts_at) <= Date.parse(doc.ends_at) &&
      Date.parse(e.ends_at) >= Date.parse(doc.starts_at) && e.poi_ids.some((id) => publicPoiIds.has(id))).map((e) => e.id));
    for (const extra of [
      '&bbox=-180,-90,180,90', `&bbox=${draft.lng - 0.001},${draft.lat - 0.001},${draft.lng + 0.001},${draft.lat + 0.001}`,
      `&near=${draft.lat},${draft.lng}`, `&near=${draft.lat},${draft.lng}&radius_m=200000`, `&near=${draft.lat},${draft.lng}&radius_m=1`,
    ]) {
      const got = (await ids(extra)).map((e) => e.id);
      assert.ok(!got.includes(DRAFT_EVENT), extra);
      if (extra === '&bbox=-180,-90,180,90') assert.deepEqual(sorted(got), anchored);
    }
    const upcoming = await expect200(`/events/upcoming-by-poi?poi_ids=${F.draftMarker}&from=2020-01-01T00:00:00Z`);
    assert.deepEqual(upcoming, { [F.draftMarker]: [] });
  });

  test('the association to a draft-only POI never appears', async () => {
    const doc = bundle.associations.find((a) => a.id === ASSOC_DRAFT)!;
    assert.deepEqual([doc.poi_id, doc.associated_poi_id, doc.list_id, doc.mutual], [A, F.draftMarker, null, true]);
    const single = JSON.stringify(await expect200(`/poi-associations/${A}`));
    const batch = await expect200(`/poi-associations?poi_ids=${A},${F.draftMarker}&include_reverse=true&list_id=${F.verifiedList}`);
    for (const text of [single, JSON.stringify(batch[A])]) {
      assert.ok(!text.includes(ASSOC_DRAFT) && !text.includes(F.draftMarker));
    }
    assert.deepEqual(batch[F.draftMarker], []);
  });

  test('draft categories appear in no category listing, tree or count', async () => {
    const expected = sorted(bundle.categories.filter((c) => inVersion(c, M, F.v2)).map((c) => c.id));
    const map = await expect200(`/maps/${M}?all_categories=true&categories=true&tag_counts=true`);
    assert.deepEqual(sorted(map.all_categories.map((c: { id: string }) => c.id)), expected);
    assert.deepEqual(sorted(map.tag_counts.map((c: { id: string }) => c.id)), expected);
    assert.ok(!JSON.stringify(map.categories).includes(F.draftCategory));
    for (const sort of ['custom', 'alphabetical', 'popularity']) {
      const items = await expect200(`/places-of-interest/items/${M}?sort_type=${sort}&include_counts=true`);
      const flat: string[] = [];
      const walk = (nodes: { id: string; children: any[] }[]) => nodes.forEach((n) => { flat.push(n.id); walk(n.children); });
      walk(items.items);
      assert.deepEqual(sorted(flat), expected, sort);
    }
    const keywords = await expect200(`/places-of-interest/tags-pois-orders?map_id=${M}&type=keywords`);
    assert.ok(!keywords.categories.some((c: { id: string }) => c.id === F.draftCategory));
  });

  test('no response of a broad crawl contains a draft version id or any draft-only content', async () => {
    const { pages } = await crawl();
    assert.ok(draftTokens.includes(F.draft) && draftTokens.includes(F.draftMarker) && draftTokens.includes(F.draftCategory));
    assert.ok(pages.length > 1000, `the crawl visited ${pages.length} pages`);
    assertNoneMention(pages, draftTokens);
  });
});
