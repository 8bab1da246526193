/** Walks of a read model's POI store that only tests make: every public POI's id, or entry, in the store's order. */
import type { PoiEntry, PoiStore } from '../../src/content/model/poi-store.ts';

/** Every public POI's id, in the store's order. */
export function poiIds(store: PoiStore): string[] {
  return Array.from({ length: store.size }, (_, i) => store.id(i));
}

/** Every public POI's entry, in the store's order, each made afresh. */
export function poiEntries(store: PoiStore): PoiEntry[] {
  return Array.from({ length: store.size }, (_, i) => store.fresh(i));
}
