/**
 * Every route, in match order (a literal segment before a parameter: /events/upcoming-by-poi before /events/:id).
 */
import type { RouteSpec } from '../http/route.ts';
import { batchPoiAssociations, getPoiAssociations } from './associations.ts';
import { eventCalendar, eventsCalendar } from './calendars.ts';
import { listCategoryItems, listIcons, tagsPoisOrders } from './categories.ts';
import { downloadRoutes } from './downloads.ts';
import { getEvent, listEvents, upcomingByPoi } from './events.ts';
import { exportMap, mapChanges } from './changes.ts';
import { getMapList, listMapLists } from './lists.ts';
import { getMap, getMapContents, getMapDetails } from './maps.ts';
import { ogcRoutes } from './ogc.ts';
import { openApiRoute } from './openapi.ts';
import { listPoisByTag, poiCollections, poiKindRoutes, resolvePoi } from './pois.ts';
import { getPublisher, getPublisherMaps } from './publishers.ts';
import { recordPageRoutes } from './record-pages.ts';
import { basemapRoutes } from './basemap.ts';
import { tileRoutes } from './tiles.ts';

/** The 27 endpoints of the read API. */
export const apiRoutes: readonly RouteSpec[] = [
  getMap, getMapDetails, getMapContents,
  getPublisher, getPublisherMaps,
  listEvents, upcomingByPoi, getEvent,
  listPoisByTag, ...poiKindRoutes,
  listCategoryItems, poiCollections, resolvePoi, listIcons, tagsPoisOrders,
  getPoiAssociations, batchPoiAssociations,
  listMapLists, getMapList,
] as unknown as RouteSpec[];

/** The outputs beside the read API's JSON (docs/outputs.md): other formats of the same content. */
export const outputRoutes: readonly RouteSpec[] = [eventsCalendar, eventCalendar, ...recordPageRoutes, ...tileRoutes, ...basemapRoutes, ...downloadRoutes, ...ogcRoutes, exportMap, mapChanges] as unknown as RouteSpec[];

/** Everything the app serves: the API, its outputs, and their OpenAPI document. */
export const routes: readonly RouteSpec[] = [...apiRoutes, ...outputRoutes, openApiRoute([...apiRoutes, ...outputRoutes])];
