/**
 * Downloads for GPS devices, hiking apps and Google Earth: GET /paths/{id}.gpx and .kml (a path as a track, with the
 * POIs associated with it as waypoints) and /maps/{map_id}/pois.gpx and .kml (a map's POIs: all of them, or those
 * /maps/{map_id}/pois would list for the same `tags` and `q`). Written by src/content/model/gpx-kml.ts.
 */
import * as v from 'valibot';
import {
  downloadPlace, GPX_TYPE, KINDS_HELD, KML_TYPE, MAX_DOWNLOAD_POIS, writeGpx, writeKml, type Download,
} from '../content/model/gpx-kml.ts';
import { poiEntries } from '../content/model/read-model.ts';
import { invalidParams } from '../http/errors.ts';
import { searchQuery, uuid } from '../http/params.ts';
import { defineRoute, MediaReply, type RouteSpec } from '../http/route.ts';
import { associationsOf } from './associations.ts';
import { findPoi, matchingPois } from './pois.ts';
import { findMapVersion, mapIdPath, oneLanguage, optionalTagsParam, versionIdParam } from './shared.ts';

type Format = 'gpx' | 'kml';

/** Each format's media type, writer and what its answers say of it. */
const FORMATS = {
  gpx: { type: GPX_TYPE, write: writeGpx, title: 'Gpx', name: 'GPX 1.1' },
  kml: { type: KML_TYPE, write: writeKml, title: 'Kml', name: 'KML 2.2' },
} as const;

/** GET /paths/:id.gpx and /paths/:id.kml */
function pathDownload(format: Format) {
  const { type, write, title, name } = FORMATS[format];
  return defineRoute({
    path: `/paths/:id.${format}`,
    oneLanguage: true,
    operationId: `getPath${title}`,
    summary: `A path as ${name}, with the POIs associated with it`,
    description: (format === 'gpx'
      ? 'A track (`trk`) of the path\'s vertices, and a waypoint (`wpt`) at the point of each POI associated with it'
      : 'A Folder named after the path: a Placemark of its LineString, and one of each POI associated with it in its own geometry') +
      ' (its universal associations, and the mutual ones seen from the other side: what /poi-associations?include_reverse=true lists, ' +
      'in that order). Names and descriptions in the negotiated language; each links the POI\'s page.',
    tag: 'Downloads',
    pathParams: { id: uuid('Path UUID') },
    query: {},
    contentType: type,
    response: v.string(),
    errors: [404],
    handle({ params, model, language, publicUrl }) {
      const path = findPoi(model, params.id, 'path');
      const lang = oneLanguage(language, path.record.map_id);
      const place = downloadPlace(path, lang, publicUrl);
      const associated = new Set(associationsOf(model, path.record.id, undefined, true).map((a) => a.associated_poi.id));
      const stops = [...associated].flatMap((id) => model.pois.get(id) ?? []).map((entry) => downloadPlace(entry, lang, publicUrl));
      return new MediaReply(write({ name: place.name, description: place.description, link: place.links[0], pois: [place], stops }));
    },
  });
}

/** GET /maps/:map_id/pois.gpx and /maps/:map_id/pois.kml */
function mapDownload(format: Format) {
  const { type, write, title, name } = FORMATS[format];
  const kinds = KINDS_HELD[format];
  return defineRoute({
    path: `/maps/:map_id/pois.${format}`,
    oneLanguage: true,
    operationId: `getMapPois${title}`,
    summary: `A map's POIs as ${name}, all or filtered as /maps/{map_id}/pois filters them`,
    description: (format === 'gpx'
      ? 'Markers as waypoints (`wpt`), then paths as tracks (`trk`); polygons are left out (GPX has no areas).'
      : 'A Folder named after the map, with a Placemark per marker (Point), path (LineString) and polygon (Polygon, holes as inner boundaries).') +
      ' In name order, names and descriptions in the negotiated language, each linking the POI\'s page. Without `tags`, every POI of ' +
      `the version (\`q\` still applies). A download of more than ${MAX_DOWNLOAD_POIS.toLocaleString('en')} POIs is refused with 400: ` +
      'narrow it with tags or q.',
    tag: 'Downloads',
    pathParams: mapIdPath,
    query: {
      tags: optionalTagsParam,
      q: searchQuery('Only the POIs whose name matches, as on /maps/:map_id/pois: every word must begin a word of the name in one of the map\'s languages, case- and accent-insensitive'),
      version_id: versionIdParam,
    },
    contentType: type,
    response: v.string(),
    errors: [404],
    handle({ params, query, model, language, publicUrl }) {
      const { map, version } = findMapVersion(model, params.map_id, query.version_id);
      const lang = oneLanguage(language, map.id);
      const held = matchingPois(model, map, version, query.tags, query.q).filter((i) => kinds.has(model.pois.type(i)));
      if (held.length > MAX_DOWNLOAD_POIS) {
        throw invalidParams([{ name: 'tags', in: 'query', reason: `the download would hold ${held.length.toLocaleString('en')} POIs, more than ` +
          `${MAX_DOWNLOAD_POIS.toLocaleString('en')}: narrow it with tags (categories) or q (a name)` }]);
      }
      const download: Download = {
        name: map.doc.name.in(lang), description: map.doc.description?.in(lang) ?? null, link: `${publicUrl}/explore?map=${map.id}`,
        pois: poiEntries(model, held).map((entry) => downloadPlace(entry, lang, publicUrl)), stops: [],
      };
      return new MediaReply(write(download));
    },
  });
}

/** The download routes: a path's and a map's, each as GPX and as KML. */
export const downloadRoutes = (['gpx', 'kml'] as const).flatMap((format) => [pathDownload(format), mapDownload(format)]) as unknown as RouteSpec[];
