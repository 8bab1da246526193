/**
 * The content bundle format (`destination-bundle/1`), described once with valibot.
 *
 * The loader validates a bundle against these schemas (structure, types, ranges), then runs the
 * cross-record checks in `validate-bundle.ts` (references, geometry rings, duplicate ids, time order).
 * `scripts/make-bundle-schema.ts` turns `Bundle` into the committed JSON Schema `data/bundle.schema.json`.
 */
import * as v from 'valibot';
import { parseTimestamp } from '../rfc3339.ts';
import { canonicalTag } from '../model/local-text.ts';
import MAKI_ICONS from '@mapbox/maki/layouts/all.json' with { type: 'json' };

/** Format identifier every bundle must declare. */
export const BUNDLE_FORMAT = 'destination-bundle/1';

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

// Ids are accepted in any letter case and stored lowercase, the only form the API emits.
const Id = v.pipe(v.string(), v.regex(UUID_RE, 'must be a UUID'), v.toLowerCase(), v.description('UUID'));
const Text = v.pipe(v.string(), v.minLength(1, 'must not be empty'));
const OptText = v.optional(v.string());
/** A well-formed BCP 47 language tag. */
export const LanguageTag = v.pipe(
  v.string(),
  v.check((tag) => canonicalTag(tag) !== null, 'must be a BCP 47 language tag such as "pt" or "pt-BR"'),
  v.description('BCP 47 language tag'),
);
const TEXT_OBJECT_NOTE = 'A text in several languages: an object keyed by BCP 47 language tag';
/** A human-readable text: a plain string (in the map's default language) or an object keyed by language tag. */
const LText = v.union([
  Text,
  v.pipe(v.record(LanguageTag, Text), v.check((o) => Object.keys(o).length > 0, 'must hold a text in at least one language'),
    v.description(TEXT_OBJECT_NOTE)),
]);
const OptLText = v.optional(v.union([
  v.string(),
  v.pipe(v.record(LanguageTag, v.string()), v.check((o) => Object.keys(o).length > 0, 'must hold a text in at least one language'),
    v.description(TEXT_OBJECT_NOTE)),
]));
const Url = v.pipe(v.string(), v.url('must be an absolute URL'));
const OptUrl = v.optional(Url);
const Timestamp = v.pipe(
  v.string(),
  v.regex(RFC3339_RE, 'must be an RFC 3339 date-time with Z or an offset'),
  v.check((s) => parseTimestamp(s) !== null, 'must be a real calendar date-time'),
  v.description('RFC 3339 date-time'),
);
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
/** A calendar date (`2027-06-12`) that is a real day. */
export const isCalendarDate = (s: string): boolean => DATE_RE.test(s) && parseTimestamp(`${s}T00:00:00Z`) !== null;
/** An RFC 3339 date-time, or a date alone for an all-day event (`all_day`). */
const TimeOrDate = v.pipe(
  v.string(),
  v.check((s) => RFC3339_RE.test(s) || DATE_RE.test(s), 'must be an RFC 3339 date-time with Z or an offset (or, for an all-day event, a date such as 2027-06-12)'),
  v.check((s) => !DATE_RE.test(s) || isCalendarDate(s), 'must be a real calendar date'),
  v.check((s) => DATE_RE.test(s) || parseTimestamp(s) !== null, 'must be a real calendar date-time'),
  v.description('RFC 3339 date-time; a date (YYYY-MM-DD) for an all-day event'),
);
const Lat = v.pipe(v.number(), v.finite(), v.minValue(-90, 'latitude must be within [-90, 90]'), v.maxValue(90, 'latitude must be within [-90, 90]'));
const Lng = v.pipe(v.number(), v.finite(), v.minValue(-180, 'longitude must be within [-180, 180]'), v.maxValue(180, 'longitude must be within [-180, 180]'));
const LatLng = v.object({ lat: Lat, lng: Lng });
const Position = v.pipe(v.tuple([Lng, Lat]), v.description('[lng, lat] (RFC 7946 order)'));
const SortOrder = v.pipe(v.number(), v.integer('must be an integer'));
const TimeZone = v.pipe(
  v.string(),
  v.check((tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return tz.length > 0;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone such as Europe/Lisbon'),
);
const VersionIds = v.optional(
  v.pipe(v.array(Id), v.description('Map versions that contain this item; omitted means every version of its map')),
);

/** A destination organization that maintains maps. */
export const Publisher = v.object({
  id: Id,
  name: LText,
  slug: Text,
  description: OptLText,
  website: OptUrl,
  logo_url: OptUrl,
  email: OptText,
  phone: OptText,
  address: OptText,
  location: v.optional(LatLng),
});

/** A map version; exactly one published version per map is current (`Map.current_version_id`). */
export const MapVersion = v.object({
  id: Id,
  name: Text,
  status: v.picklist(['published', 'draft'], 'must be "published" or "draft"'),
  published_at: v.optional(Timestamp),
  notes: OptText,
});

/** Logo, colours and imagery; the only content a disabled map still shows. */
export const Branding = v.object({
  logo_url: OptUrl,
  cover_image_url: OptUrl,
  primary_color: v.optional(v.pipe(v.string(), v.regex(/^#[0-9a-fA-F]{6}$/, 'must be a #rrggbb colour'))),
  accent_color: v.optional(v.pipe(v.string(), v.regex(/^#[0-9a-fA-F]{6}$/, 'must be a #rrggbb colour'))),
  attribution: OptText,
});

/** A block of editorial content shown with a map. */
export const ContentBlock = v.object({
  id: Id,
  kind: v.picklist(['text', 'image', 'video', 'link', 'notice'], 'must be one of text, image, video, link, notice'),
  title: LText,
  body: OptLText,
  url: OptUrl,
  image_url: OptUrl,
  sort_order: SortOrder,
});

/** A sponsor credited on a map. */
export const Sponsor = v.object({
  name: Text,
  url: OptUrl,
  logo_url: OptUrl,
  tier: v.optional(v.picklist(['gold', 'silver', 'bronze', 'partner'])),
});

/** A published map and its presentation data. */
export const Map = v.object({
  id: Id,
  publisher_id: Id,
  name: LText,
  slug: Text,
  enabled: v.boolean(),
  time_zone: TimeZone,
  country: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as "PT"'),
    v.description('The country whose public holidays its POIs\' `hours` mean by `PH` (ISO 3166-1 alpha-2); without it `PH` is refused'))),
  default_language: v.optional(v.pipe(LanguageTag,
    v.description('The language of its plain-string texts, served when no offered language fits what a client asks for. Default "en"'))),
  languages: v.optional(v.pipe(v.array(LanguageTag), v.minLength(1, 'must list at least one language'),
    v.description('The languages the map offers, its default language among them. Default: the default language alone'))),
  description: OptLText,
  created_at: Timestamp,
  branding: Branding,
  info: v.object({
    summary: OptLText,
    languages: v.optional(v.pipe(v.array(v.string()), v.description('Languages spoken at the destination, for display (not what the map is served in: see `languages`)'))),
    website: OptUrl,
    opening_season: OptLText,
  }),
  map_data: v.object({
    center: LatLng,
    zoom: v.pipe(v.number(), v.minValue(0), v.maxValue(22)),
    min_zoom: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(22))),
    max_zoom: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(22))),
    bounds: v.optional(v.pipe(v.tuple([Lng, Lat, Lng, Lat]), v.description('[west, south, east, north]'))),
    basemap_url: v.optional(v.string()),
  }),
  contact: v.object({
    email: OptText,
    phone: OptText,
    website: OptUrl,
    address: OptText,
    social: v.optional(v.record(v.string(), Url)),
  }),
  sponsors: v.array(Sponsor),
  content_blocks: v.array(ContentBlock),
  versions: v.pipe(v.array(MapVersion), v.minLength(1, 'a map needs at least one version')),
  current_version_id: Id,
});

/** An icon of the category and tag vocabulary. */
export const Icon = v.object({
  id: Id,
  name: LText,
  url: Url,
  color: v.optional(v.pipe(v.string(), v.regex(/^#[0-9a-fA-F]{6}$/, 'must be a #rrggbb colour'))),
  /** The Maki icon (https://labs.mapbox.com/maki-icons/) the service's own maps draw it with: `museum`, `cafe`. */
  maki: v.optional(v.picklist(MAKI_ICONS, 'must be the name of a Maki 8 icon, such as museum, cafe or park')),
});

/** A category or tag; `parent_id` builds the per-map hierarchy. */
export const Category = v.object({
  id: Id,
  map_id: Id,
  parent_id: v.nullable(Id),
  kind: v.picklist(['category', 'tag'], 'must be "category" or "tag"'),
  name: LText,
  icon_id: v.optional(v.nullable(Id)),
  color: v.optional(v.pipe(v.string(), v.regex(/^#[0-9a-fA-F]{6}$/, 'must be a #rrggbb colour'))),
  sort_order: SortOrder,
  poi_order: v.optional(v.pipe(v.array(Id), v.description('Custom order of POIs under this item'))),
  version_ids: VersionIds,
});

const PoiCommon = {
  id: Id,
  map_id: Id,
  name: LText,
  description: OptLText,
  category_ids: v.array(Id),
  icon_id: v.optional(v.nullable(Id)),
  image_url: OptUrl,
  website: OptUrl,
  hours: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description(
    'Opening hours in OpenStreetMap\'s `opening_hours` syntax (`Tu-Su 10:00-18:00; PH off`), on the map\'s clock: what '
    + '`open_now` and `open_at` compute with. The text `opening_hours` of a marker is what people read'))),
  version_ids: VersionIds,
  created_at: Timestamp,
};

/** A point of interest with a single position. */
export const Marker = v.object({
  ...PoiCommon,
  lat: Lat,
  lng: Lng,
  external_id: v.optional(Text),
  address: OptText,
  phone: OptText,
  opening_hours: OptLText,
});

/** A trail, route or tour as a GeoJSON LineString. */
export const Path = v.object({
  ...PoiCommon,
  geometry: v.object({
    type: v.literal('LineString'),
    coordinates: v.pipe(v.array(Position), v.minLength(2, 'a LineString needs at least 2 positions')),
  }),
  difficulty: v.optional(v.picklist(['easy', 'moderate', 'hard'])),
  duration_min: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});

/** A park, district or area as a GeoJSON Polygon (outer ring first, then holes). */
export const Polygon = v.object({
  ...PoiCommon,
  geometry: v.object({
    type: v.literal('Polygon'),
    coordinates: v.pipe(
      v.array(v.pipe(v.array(Position), v.minLength(4, 'a linear ring needs at least 4 positions'))),
      v.minLength(1, 'a Polygon needs an outer ring'),
    ),
  }),
});

/**
 * Where an event stands, as schema.org's `EventStatusType` says it (`EventScheduled`, `EventCancelled`, …) in the
 * service's own spelling. Default `scheduled`.
 */
export const EVENT_STATUSES = ['scheduled', 'cancelled', 'postponed', 'rescheduled', 'moved_online'] as const;
export type EventStatus = typeof EVENT_STATUSES[number];

/** How people attend, as schema.org's `EventAttendanceModeEnumeration` (offline, online, mixed). */
export const ATTENDANCE_MODES = ['offline', 'online', 'mixed'] as const;

/** Whether tickets or places are left, as schema.org's `ItemAvailability` values an event's offer takes. */
export const AVAILABILITIES = ['in_stock', 'limited_availability', 'sold_out', 'pre_order'] as const;

/**
 * What an event offers people with a disability: schema.org's `accessibilityFeature` values that apply to an event
 * (what is performed, shown or printed), spelled as schema.org spells them.
 */
export const ACCESSIBILITY_FEATURES = ['audioDescription', 'captions', 'signLanguage', 'transcript', 'largePrint', 'braille',
  'tactileGraphic', 'highContrastDisplay'] as const;

const picklistOf = <T extends readonly [string, ...string[]]>(values: T) => v.picklist(values, `must be one of ${values.join(', ')}`);

/** Who runs an event. */
export const Organizer = v.object({
  name: LText,
  url: OptUrl,
  email: OptText,
  phone: OptText,
});

/** What taking part costs, and where to book. */
export const Offers = v.object({
  free: v.optional(v.pipe(v.boolean(), v.description('True when taking part costs nothing'))),
  price: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0, 'must not be negative'), v.description('The price, in `currency`'))),
  currency: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code such as EUR'))),
  booking_url: OptUrl,
  availability: v.optional(picklistOf(AVAILABILITIES)),
});

/** How an event recurs: RFC 5545's RRULE, RDATE and EXDATE, on its map's local clock (docs/bundle-format.md, Recurring series). */
export const Recurrence = v.object({
  rule: v.pipe(v.string(), v.minLength(1, 'must not be empty'),
    v.description('An RFC 5545 RRULE value such as FREQ=WEEKLY;BYDAY=TU,SA, on the map\'s local clock from starts_at')),
  rdates: v.optional(v.pipe(v.array(TimeOrDate), v.description('Starts of occurrences the rule does not make (dates for an all-day series)'))),
  exdates: v.optional(v.pipe(v.array(TimeOrDate), v.description('Starts of occurrences the rule makes that do not take place (dates for an all-day series)'))),
});

/** One occurrence of a series changed, named by its original start (as RFC 5545's RECURRENCE-ID does). */
export const Override = v.object({
  original_start: v.pipe(TimeOrDate, v.description('The start the rule gives the occurrence (its date for an all-day series)')),
  starts_at: v.optional(TimeOrDate),
  ends_at: v.optional(TimeOrDate),
  title: v.optional(LText),
  description: OptLText,
  status: v.optional(picklistOf(EVENT_STATUSES)),
  previous_start: v.optional(Timestamp),
  poi_ids: v.optional(v.array(Id)),
  attendance_mode: v.optional(picklistOf(ATTENDANCE_MODES)),
  online_url: v.optional(v.pipe(Url, v.description('Where to attend this occurrence online (one moved online, say)'))),
});

/** A time-bound event on a map, located by the POIs anchored to it. */
export const Event = v.object({
  id: Id,
  map_id: Id,
  title: LText,
  description: OptLText,
  event_type: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a lowercase slug such as "concert"')),
  tags: v.array(Text),
  starts_at: TimeOrDate,
  ends_at: TimeOrDate,
  all_day: v.optional(v.pipe(v.boolean(), v.description('True for an event of whole days: starts_at and ends_at are then dates, ends_at its last day'))),
  poi_ids: v.array(Id),
  url: OptUrl,
  image_url: OptUrl,
  price: OptLText,
  created_at: Timestamp,
  status: v.optional(v.pipe(picklistOf(EVENT_STATUSES), v.description('Default "scheduled"'))),
  previous_start: v.optional(v.pipe(Timestamp, v.description('The start it had before: required when rescheduled, allowed when postponed or cancelled'))),
  organizer: v.optional(Organizer),
  offers: v.optional(Offers),
  attendance_mode: v.optional(picklistOf(ATTENDANCE_MODES)),
  online_url: v.optional(v.pipe(Url, v.description('Where to attend online: required when attendance_mode is online or mixed, or the status moved_online'))),
  capacity: v.optional(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'), v.description('How many people can attend'))),
  accessibility: v.optional(v.array(picklistOf(ACCESSIBILITY_FEATURES))),
  recurrence: v.optional(Recurrence),
  overrides: v.optional(v.pipe(v.array(Override), v.description('Occurrences of the series changed one by one; only with recurrence'))),
});

/** A POI entry of a list. */
export const ListItem = v.object({ poi_id: Id, note: OptLText });

/** A curated list; only verified lists are public. */
export const List = v.object({
  id: Id,
  map_id: Id,
  name: LText,
  description: OptLText,
  verified: v.boolean(),
  cover_image_url: OptUrl,
  created_at: Timestamp,
  items: v.array(ListItem),
});

/** A link from one POI to another; universal when `list_id` is null. */
export const Association = v.object({
  id: Id,
  poi_id: Id,
  associated_poi_id: Id,
  mutual: v.boolean(),
  list_id: v.nullable(Id),
  label: OptLText,
  sort_order: SortOrder,
  created_at: Timestamp,
});

/** An account session, stored only as the SHA-256 of its bearer token. */
export const Session = v.object({
  token_sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256')),
  account_id: Id,
  expires_at: Timestamp,
  saved_event_ids: v.array(Id),
});

/** A whole content bundle: everything the service serves. */
export const Bundle = v.object({
  format: v.literal(BUNDLE_FORMAT, `must be "${BUNDLE_FORMAT}"`),
  generated_at: v.optional(Timestamp),
  publishers: v.array(Publisher),
  maps: v.array(Map),
  icons: v.array(Icon),
  categories: v.array(Category),
  markers: v.array(Marker),
  paths: v.array(Path),
  polygons: v.array(Polygon),
  events: v.array(Event),
  lists: v.array(List),
  associations: v.array(Association),
  /**
   * Deprecated and ignored: account sessions are not content. They go in a sessions file (`--sessions`);
   * bundles of the first release that still carry them are accepted and their sessions left out.
   */
  sessions: v.optional(v.array(Session), []),
});

export type BundleT = v.InferOutput<typeof Bundle>;
export type PublisherT = v.InferOutput<typeof Publisher>;
export type MapT = v.InferOutput<typeof Map>;
export type IconT = v.InferOutput<typeof Icon>;
export type CategoryT = v.InferOutput<typeof Category>;
export type MarkerT = v.InferOutput<typeof Marker>;
export type PathT = v.InferOutput<typeof Path>;
export type PolygonT = v.InferOutput<typeof Polygon>;
export type EventT = v.InferOutput<typeof Event>;
/**
 * An event as the store keeps it: a single event of the bundle, or an occurrence of a series (src/content/series.ts),
 * which names its series and its original start.
 */
export type StoredEvent = EventT & { series_id?: string; original_start?: string; start_date?: string; end_date?: string };
export type ListT = v.InferOutput<typeof List>;
export type AssociationT = v.InferOutput<typeof Association>;
export type SessionT = v.InferOutput<typeof Session>;
