/**
 * A recurring series as GET /events/{series id} answers it: the series' own record (the fields of an event, its
 * first start and end), its recurrence (the rule as given and in words, its extra and excluded dates) and its next
 * occurrences. Its occurrences were expanded when the version was published (src/content/series.ts); nothing is
 * expanded here.
 */
import { localText } from './local-text.ts';
import { tailOf } from './event-table.ts';
import { toUtc } from '../rfc3339.ts';
import { icalWall, wallTimeAt } from '../../utils/zoned-time.ts';
import { allDayBounds, hasEnd, ruleOf } from '../series-dates.ts';
import type { MapView, ReadModel, SeriesDoc } from './read-model.ts';

/** How many occurrences from now a series answer lists. */
export const NEXT_OCCURRENCES = 10;

/** Languages whose words `rrule-temporal` writes a rule in; any other gets English. */
const RULE_TEXT_LANGUAGES = ['en', 'es', 'fr', 'de', 'ar', 'he', 'hi', 'yue', 'zh'];

/**
 * The answer about series `s` of `map`, its texts as LocalTexts (written in the request's language), its next
 * occurrences from `nowMs` as records in language piece `lang` of the map's event table, the rule's words in `served`.
 */
export async function seriesRecord(model: ReadModel, map: MapView, s: SeriesDoc, nowMs: number, lang: number, served: string | null): Promise<Record<string, unknown>> {
  // Loaded the first time a series is asked for: the serving threads load no rule engine at start.
  const [{ RRuleTemporal }, { toText }] = await Promise.all([import('rrule-temporal'), import('rrule-temporal/totext')]);
  const { doc } = s;
  const { default: fallback, offered } = map.languages;
  const text = (value: Parameters<typeof localText>[0]) => localText(value, fallback, offered);
  const pois = [...new Set(doc.poi_ids.map((id) => id.toLowerCase()))].map((id) => model.pois.get(id)).filter((p) => p !== undefined && p.record.map_id === map.id);
  const events = map.events;
  const occurrences = events.occurrencesOf(doc.id.toLowerCase());
  const next: Record<string, unknown>[] = [];
  for (let k = 0; k < occurrences.length && next.length < NEXT_OCCURRENCES; k++) {
    if (events.endMs[occurrences[k]] >= nowMs) next.push(events.summary(occurrences[k], lang));
  }
  const rule = ruleOf(doc.recurrence!);
  const allDay = doc.all_day === true;
  // An all-day series' start is a date: its rule in words says no time.
  const dtstart = allDay ? `DTSTART;VALUE=DATE:${doc.starts_at.replace(/-/g, '')}`
    : `DTSTART;TZID=${events.timeZone}:${icalWall(wallTimeAt(Date.parse(doc.starts_at), events.timeZone))}`;
  const locale = served?.split('-')[0] ?? fallback;
  const words = toText(new RRuleTemporal({ rruleString: `${dtstart}\nRRULE:${rule}`, cache: false }),
    RULE_TEXT_LANGUAGES.includes(locale) ? locale : 'en', { excludeTzAbbreviation: true });
  const first = allDay ? allDayBounds(doc.starts_at, doc.ends_at, events.timeZone) : { starts_at: toUtc(Date.parse(doc.starts_at)), ends_at: toUtc(Date.parse(doc.ends_at)) };
  return {
    id: doc.id, map_id: doc.map_id, title: text(doc.title), description: text(doc.description), event_type: doc.event_type, tags: doc.tags,
    ...first, time_zone: events.timeZone,
    ...tailOf(doc, text), ...(allDay ? { start_date: doc.starts_at, end_date: doc.ends_at } : {}), created_at: toUtc(Date.parse(doc.created_at)),
    anchors: pois.map((p) => ({ id: p!.record.id, type: p!.record.type })),
    recurrence: {
      rule, text: words, rdates: (doc.recurrence!.rdates ?? []).map((d) => toUtc(Date.parse(d))),
      exdates: (doc.recurrence!.exdates ?? []).map((d) => toUtc(Date.parse(d))),
      // Only a series without an end has a horizon to count from.
      expanded_from: hasEnd(rule) ? null : toUtc(Date.parse(s.expanded_from)), occurrence_count: occurrences.length,
      last_start: occurrences.length > 0 ? toUtc(events.startMs[occurrences[occurrences.length - 1]]) : null,
    },
    next_occurrences: next,
    pois: pois.map((p) => p!.record),
  };
}
