/**
 * GPX 1.1 and KML 2.2 downloads of POIs, for GPS devices, hiking apps and Google Earth: a path with the POIs associated
 * with it, or a map's POIs, in one language, from the version's read model. KML is written by `@placemarkio/tokml`;
 * GPX by the small writer here (docs/decisions.md, GPX and KML downloads).
 *
 * Geometry: a marker is a GPX waypoint (`wpt`) and a KML Point; a path a GPX track (`trk`, one `trkseg` per line: the
 * bundle's paths are single LineStrings) and a KML LineString; a polygon a KML Polygon (its holes as inner
 * boundaries) and nothing in GPX, which has no areas. POIs named along a path (its associated POIs) are GPX waypoints
 * at their point whatever their kind, and KML placemarks of their own geometry.
 */
import { foldersToKML } from '@placemarkio/tokml';
import type { Geometry, Position } from '../../geo/geojson.ts';
import { escapeXml, xmlChars } from '../../utils/xml.ts';
import type { LocalText } from './local-text.ts';
import type { PoiEntry, PoiType } from './poi-store.ts';
import { placePageUrl } from './structured-data.ts';

/** GPX's media type. */
export const GPX_TYPE = 'application/gpx+xml';
/** KML's media type. */
export const KML_TYPE = 'application/vnd.google-earth.kml+xml';

/**
 * The most POIs one download of a map holds (those of the kinds its format holds: GPX has no polygons); more is
 * refused with 400, never cut short: a GPS device or phone app holds a few thousand waypoints, and a whole large map
 * is a mistake in the filters more often than a need.
 */
export const MAX_DOWNLOAD_POIS = 10_000;

/** What GPX files name as their creator. */
export const GPX_CREATOR = 'Destination map content service';
const GPX_NS = 'http://www.topografix.com/GPX/1/1';

/** A POI as a download holds it: its texts in the download's language, its links absolute, its geometry [lng, lat]. */
export interface DownloadPlace {
  id: string;
  type: PoiType;
  name: string;
  description: string | null;
  /** Its page, then its own website when it has one. */
  links: readonly string[];
  geometry: Geometry;
  /** Its point: a marker's own, a path's or polygon's representative point (as events and associations give it). */
  point: Position;
}

/** What one file holds: its title, description and link, and its POIs in order. */
export interface Download {
  name: string;
  description: string | null;
  link: string;
  /** Markers, paths and polygons, each as its kind is written in the format. */
  pois: readonly DownloadPlace[];
  /** POIs named along them (a path's associated POIs): GPX waypoints whatever their kind. */
  stops: readonly DownloadPlace[];
}

/** The kinds of POI a format holds: GPX has no areas. */
export const KINDS_HELD: Record<'gpx' | 'kml', ReadonlySet<PoiType>> = {
  gpx: new Set(['marker', 'path']),
  kml: new Set(['marker', 'path', 'polygon']),
};

/** A POI's entry as a download holds it, in `lang`, its links under `publicUrl`. */
export function downloadPlace(entry: PoiEntry, lang: string, publicUrl: string): DownloadPlace {
  const r = entry.record;
  const website = typeof r.website === 'string' ? [r.website] : [];
  return {
    id: r.id, type: r.type, name: r.name.in(lang), description: (r.description as LocalText | null)?.in(lang) ?? null,
    links: [placePageUrl(publicUrl, r.type, r.id), ...website], geometry: entry.geometry, point: [entry.summary.lng, entry.summary.lat],
  };
}

/**
 * A coordinate as an `xsd:decimal`, as GPX's `lat` and `lon` are: the 7 decimals the model keeps, trailing zeros
 * dropped, never in exponent form (`String(5e-7)` is `5e-7`).
 */
function decimal(x: number): string {
  return (x === 0 ? 0 : x).toFixed(7).replace(/\.?0+$/, '');
}

/** `<tag>text</tag>`, or nothing for no text. */
function element(tag: string, text: string | null): string {
  return text ? `<${tag}>${escapeXml(text)}</${tag}>` : '';
}

/** GPX `link` elements, in order. */
function gpxLinks(links: readonly string[]): string {
  return links.map((href) => `<link href="${escapeXml(href)}"/>`).join('');
}

/** A `wpt` at `point` (GPX 1.1 orders its children: name, desc, link). */
function waypoint(place: DownloadPlace, [lng, lat]: Position): string {
  return `<wpt lat="${decimal(lat)}" lon="${decimal(lng)}">${element('name', place.name)}${element('desc', place.description)}${gpxLinks(place.links)}</wpt>`;
}

/** A `trk` of one `trkseg` per line. */
function track(place: DownloadPlace, lines: readonly (readonly Position[])[]): string {
  const segments = lines.map((line) => `<trkseg>\n${line.map(([lng, lat]) => `<trkpt lat="${decimal(lat)}" lon="${decimal(lng)}"/>`).join('\n')}\n</trkseg>`);
  return `<trk>${element('name', place.name)}${element('desc', place.description)}${gpxLinks(place.links)}\n${segments.join('\n')}\n</trk>`;
}

/** A download as GPX 1.1: metadata, then every waypoint (markers, then stops), then every track (paths), as GPX orders them. */
export function writeGpx(d: Download): string {
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<gpx version="1.1" creator="${escapeXml(GPX_CREATOR)}" xmlns="${GPX_NS}">`,
    `<metadata>${element('name', d.name)}${element('desc', d.description)}${gpxLinks([d.link])}</metadata>`,
  ];
  for (const p of d.pois) if (p.geometry.type === 'Point') out.push(waypoint(p, p.geometry.coordinates));
  for (const p of d.stops) out.push(waypoint(p, p.point));
  for (const p of d.pois) if (p.geometry.type === 'LineString') out.push(track(p, [p.geometry.coordinates]));
  out.push('</gpx>', '');
  return out.join('\n');
}

/** A placemark as tokml takes it: a GeoJSON Feature whose `name` and `description` are KML's, the rest ExtendedData. */
function placemark(p: DownloadPlace) {
  const [page, website] = p.links;
  // No `id`: a KML id is an XML ID, which may not begin with a digit as a UUID may; the id is ExtendedData instead.
  const properties: Record<string, string> = { name: xmlChars(p.name), ...(p.description ? { description: xmlChars(p.description) } : {}),
    id: p.id, type: p.type, page, ...(website ? { website: xmlChars(website) } : {}) };
  return { type: 'Feature' as const, properties, geometry: p.geometry };
}

/**
 * A download as KML 2.2: one Folder named after it (a layer of that name in GIS tools), a Placemark per POI and stop.
 * The Folder has no description: tokml writes a folder's description before its name, which KML's schema forbids.
 * tokml escapes `&` and `<` in text but not the `>` of `]]>`, which XML allows nowhere in text: written `]]&gt;` here
 * (tokml writes no CDATA section, so every `]]>` of its output is in a text or an attribute value, where that is the same).
 */
export function writeKml(d: Download): string {
  const folder = { type: 'folder', meta: { name: xmlChars(d.name) }, children: [...d.pois, ...d.stops].map(placemark) };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${foldersToKML({ type: 'root', children: [folder] }).replaceAll(']]>', ']]&gt;')}\n`;
}
