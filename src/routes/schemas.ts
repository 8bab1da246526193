/**
 * Response body schemas shared by the routes. They feed the OpenAPI document and the tests that check
 * every endpoint's real responses against what it declares. Objects are strict: an undeclared field
 * in a response is a documentation bug the tests catch.
 */
import * as v from 'valibot';
import { ACCESSIBILITY_FEATURES, ATTENDANCE_MODES, AVAILABILITIES, EVENT_STATUSES } from '../content/bundle/bundle-schema.ts';

const Uuid = v.pipe(v.string(), v.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), v.description('UUID, lowercase'));
const Time = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/), v.description('RFC 3339 date-time in UTC'));
const NStr = v.nullable(v.string());
const DateOnly = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/), v.description('A calendar date, YYYY-MM-DD'));
/**
 * A human-readable text: a string in the served language (Content-Language), or with `langs=all` an object of
 * the text in every language it has, keyed by BCP 47 tag.
 */
const LText = v.union([
  v.string(),
  v.pipe(v.record(v.string(), v.string()), v.description('With langs=all: the text in every language it has, keyed by BCP 47 language tag')),
]);
const NLText = v.nullable(LText);
const Lat = v.pipe(v.number(), v.minValue(-90), v.maxValue(90));
const Lng = v.pipe(v.number(), v.minValue(-180), v.maxValue(180));
const Position = v.tuple([Lng, Lat]);

/** A POI kind. */
export const PoiTypeSchema = v.picklist(['marker', 'path', 'polygon']);

/** GeoJSON geometries as served. */
export const PointGeometry = v.strictObject({ type: v.literal('Point'), coordinates: Position });
export const LineGeometry = v.strictObject({ type: v.literal('LineString'), coordinates: v.array(Position) });
export const PolygonGeometry = v.strictObject({ type: v.literal('Polygon'), coordinates: v.array(v.array(Position)) });
/** The points of an event's anchors (OGC API Features' event collections). */
export const MultiPointGeometry = v.strictObject({ type: v.literal('MultiPoint'), coordinates: v.array(Position) });

const PoiCommon = {
  id: Uuid, map_id: Uuid, name: LText, description: NLText, category_ids: v.array(Uuid), icon_id: v.nullable(Uuid),
  image_url: NStr, website: NStr,
  hours: v.pipe(NStr, v.description('Opening hours in OpenStreetMap\'s `opening_hours` syntax, on the map\'s clock (what `open_now` and `open_at` compute with); null when the POI has none')),
  version_ids: v.pipe(v.array(Uuid), v.description('Published map versions that contain the POI')),
  created_at: Time,
};

/** A marker record. */
export const MarkerRecord = v.strictObject({
  ...PoiCommon, type: v.literal('marker'), lat: Lat, lng: Lng,
  external_id: v.pipe(NStr, v.description('Id in the CRM the destination is synchronised from')),
  address: NStr, phone: NStr, opening_hours: NLText,
});
/** A path record. */
export const PathRecord = v.strictObject({
  ...PoiCommon, type: v.literal('path'), geometry: LineGeometry,
  difficulty: v.nullable(v.picklist(['easy', 'moderate', 'hard'])), duration_min: v.nullable(v.number()),
});
/** A polygon record. */
export const PolygonRecord = v.strictObject({ ...PoiCommon, type: v.literal('polygon'), geometry: PolygonGeometry });
/** Any POI record. */
export const PoiRecordSchema = v.variant('type', [MarkerRecord, PathRecord, PolygonRecord]);

/** Where a POI stands at the instant asked for (`open_at`, `open_now`). */
const OpenState = {
  open_now: v.pipe(v.boolean(), v.description('Open at the instant asked for (`open_at`, or now with `open_now`)')),
  opens_at: v.pipe(v.nullable(Time), v.description('When closed: when it next opens, within a year; null when open or not within a year')),
  closes_at: v.pipe(v.nullable(Time), v.description('When open: when it next closes, within a year; null when closed or open all the next year (24/7)')),
};
/** Any POI record, with where it stands at the instant asked for. */
export const PoiOpenRecordSchema = v.variant('type', [
  v.strictObject({ ...MarkerRecord.entries, ...OpenState }), v.strictObject({ ...PathRecord.entries, ...OpenState }),
  v.strictObject({ ...PolygonRecord.entries, ...OpenState }),
]);

/** The small form of a POI used in events, lists and associations; lat/lng is a representative point. */
export const PoiSummarySchema = v.strictObject({ id: Uuid, type: PoiTypeSchema, name: LText, lat: Lat, lng: Lng });

/** A category or tag. */
export const CategorySchema = v.strictObject({
  id: Uuid, map_id: Uuid, parent_id: v.nullable(Uuid), kind: v.picklist(['category', 'tag']), name: LText,
  icon_id: v.nullable(Uuid), color: NStr, sort_order: v.number(), version_ids: v.array(Uuid),
});

/** A node of the category tree. */
export type CategoryNodeT = v.InferOutput<typeof CategorySchema> & { count?: number; children: CategoryNodeT[] };
/** A category tree node with its children (and POI count when asked for). */
export const CategoryNode: v.GenericSchema<CategoryNodeT> = v.strictObject({
  ...CategorySchema.entries,
  count: v.optional(v.pipe(v.number(), v.integer(), v.description('POIs assigned to the item or any descendant'))),
  children: v.array(v.lazy(() => CategoryNode)),
});

/** Logo, colours and imagery. */
export const BrandingSchema = v.object({
  logo_url: v.optional(v.string()), cover_image_url: v.optional(v.string()), primary_color: v.optional(v.string()),
  accent_color: v.optional(v.string()), attribution: v.optional(v.string()),
});

/** A map version as served (published versions only). */
export const VersionSchema = v.strictObject({ id: Uuid, name: v.string(), status: v.literal('published'), published_at: v.nullable(Time), notes: NStr });

/** A content block. */
export const ContentBlockSchema = v.strictObject({
  id: Uuid, kind: v.picklist(['text', 'image', 'video', 'link', 'notice']), title: LText, body: NLText, url: NStr,
  image_url: NStr, sort_order: v.number(),
});

/** A publisher. */
export const PublisherSchema = v.strictObject({
  id: Uuid, name: LText, slug: v.string(), description: NLText, website: NStr, logo_url: NStr, email: NStr,
  phone: NStr, address: NStr, location: v.nullable(v.strictObject({ lat: Lat, lng: Lng })),
});

/** An event as listed. */
export const EventSchema = v.strictObject({
  id: Uuid, map_id: Uuid, title: LText, description: NLText, event_type: v.string(), tags: v.array(v.string()),
  starts_at: Time, ends_at: Time, time_zone: v.pipe(v.string(), v.description("The map's IANA time zone")),
  url: NStr, image_url: NStr, price: v.pipe(NLText, v.description('The price as text, for display (offers has it as a number)')),
  status: v.pipe(v.picklist(EVENT_STATUSES), v.description("schema.org's EventStatusType: scheduled, cancelled, postponed, rescheduled or moved_online")),
  previous_start: v.pipe(v.nullable(Time), v.description('The start a rescheduled (or postponed, or cancelled) event had before')),
  organizer: v.nullable(v.strictObject({ name: LText, url: NStr, email: NStr, phone: NStr })),
  offers: v.nullable(v.strictObject({
    free: v.nullable(v.boolean()), price: v.nullable(v.number()), currency: v.pipe(NStr, v.description('ISO 4217')), booking_url: NStr,
    availability: v.nullable(v.picklist(AVAILABILITIES)),
  })),
  attendance_mode: v.nullable(v.picklist(ATTENDANCE_MODES)),
  online_url: v.pipe(NStr, v.description('Where to attend online')),
  capacity: v.nullable(v.number()),
  accessibility: v.pipe(v.array(v.picklist(ACCESSIBILITY_FEATURES)), v.description("schema.org accessibilityFeature values")),
  series_id: v.pipe(v.nullable(Uuid), v.description('The recurring series this event is an occurrence of; null for an event of its own')),
  original_start: v.pipe(v.nullable(v.union([Time, DateOnly])), v.description("The start the series' rule gives this occurrence (an override may have moved it); its date for an all-day series")),
  all_day: v.pipe(v.boolean(), v.description('True for an event of whole days: starts_at is the start of its first day, ends_at of the day after its last, in its time zone')),
  start_date: v.pipe(v.nullable(DateOnly), v.description('The first day of an all-day event')),
  end_date: v.pipe(v.nullable(DateOnly), v.description('The last day of an all-day event')),
  created_at: Time,
  anchors: v.pipe(v.array(v.strictObject({ id: Uuid, type: PoiTypeSchema })), v.description('POIs the event is anchored to')),
});

/** A recurring series, as GET /events/{series id} answers it. */
export const SeriesSchema = v.strictObject({
  ...EventSchema.entries,
  starts_at: v.pipe(Time, v.description('The start of its first occurrence')),
  ends_at: v.pipe(Time, v.description('The end of its first occurrence')),
  recurrence: v.strictObject({
    rule: v.pipe(v.string(), v.description('The RFC 5545 RRULE, on the map\'s local clock from starts_at')),
    text: v.pipe(v.string(), v.description('The rule in words: in the language served where rrule-temporal has it, else English')),
    rdates: v.array(Time), exdates: v.array(Time),
    expanded_from: v.pipe(v.nullable(Time), v.description('For a series without an end, the publish in which it last changed: it is expanded to a horizon counted from it. Null for a series with an end')),
    occurrence_count: v.number(),
    last_start: v.pipe(v.nullable(Time), v.description('The latest start of its occurrences')),
  }),
  next_occurrences: v.pipe(v.array(EventSchema), v.description('Its occurrences that have not ended, at most 10, every status')),
});

/** A list as summarised in a window. */
export const ListSummarySchema = v.strictObject({
  id: Uuid, map_id: Uuid, name: LText, description: NLText, verified: v.literal(true), cover_image_url: NStr,
  created_at: Time, item_count: v.number(),
});

/** An association as served, from the requested POI's side. */
export const AssociationSchema = v.strictObject({
  id: Uuid, poi_id: Uuid, associated_poi_id: Uuid, associated_poi: PoiSummarySchema, mutual: v.boolean(),
  list_id: v.pipe(v.nullable(Uuid), v.description('null for a universal association; the list it is visible from otherwise')),
  label: NLText, sort_order: v.number(), created_at: Time,
  direction: v.pipe(v.picklist(['forward', 'reverse']), v.description('reverse: a mutual association where the requested POI is the associated one')),
});

/** A GeoJSON FeatureCollection of POIs of one kind: each its geometry, and every other field of its record as properties. */
export function featureCollection(record: typeof MarkerRecord | typeof PathRecord | typeof PolygonRecord) {
  const { geometry: _g, lat: _lat, lng: _lng, ...properties } = record.entries as typeof record.entries & { geometry?: unknown; lat?: unknown; lng?: unknown };
  const geometry = record === MarkerRecord ? PointGeometry : record === PathRecord ? LineGeometry : PolygonGeometry;
  return v.strictObject({
    type: v.literal('FeatureCollection'),
    features: v.array(v.strictObject({
      type: v.literal('Feature'), id: Uuid, geometry, properties: v.strictObject(properties),
    })),
  });
}

/** A value of a MapLibre style's paint, layout or filter: a literal, or an expression (an array naming its operator first). */
export type StyleValueT = string | number | boolean | null | StyleValueT[] | { [key: string]: StyleValueT };
export const StyleValue: v.GenericSchema<StyleValueT> = v.union([
  v.string(), v.number(), v.boolean(), v.null(), v.array(v.lazy(() => StyleValue)), v.record(v.string(), v.lazy(() => StyleValue)),
]);

/** A layer of a MapLibre style (the fields this service's styles use; MapLibre's style specification has the rest). */
export const StyleLayerSchema = v.object({
  id: v.string(), type: v.string(), source: v.optional(v.string()), 'source-layer': v.optional(v.string()),
  minzoom: v.optional(v.number()), maxzoom: v.optional(v.number()), filter: v.optional(StyleValue),
  layout: v.optional(v.record(v.string(), StyleValue)), paint: v.optional(v.record(v.string(), StyleValue)),
});

/** A source of a MapLibre style: vector tiles by TileJSON URL or tile template, or raster tiles. */
export const StyleSourceSchema = v.object({
  type: v.picklist(['vector', 'raster']), url: v.optional(v.string()), tiles: v.optional(v.array(v.string())),
  minzoom: v.optional(v.number()), maxzoom: v.optional(v.number()), attribution: v.optional(v.string()), tileSize: v.optional(v.number()),
});

/** A `start`/`end` window of items. */
export function windowOf(item: v.GenericSchema) {
  return v.strictObject({
    items: v.array(item),
    total: v.pipe(v.number(), v.description('Items across all windows')),
    start: v.number(),
    end: v.pipe(v.number(), v.description('Index actually reached (exclusive)')),
  });
}

export { Uuid, Time, LText, NLText };
