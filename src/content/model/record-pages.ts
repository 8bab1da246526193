/**
 * The page of an event and of a place (`/events/{id}.html`, `/markers/{id}.html`, paths, polygons): small HTML
 * written on the server in the language served, read with scripts off, what QR codes and shared links point to.
 * Each embeds its schema.org JSON-LD (structured-data.ts) and Open Graph tags, and loads nothing but the service's
 * own style sheet.
 */
import { documentHead, escapeHtml, jsonBlock } from '../../utils/html.ts';
import { dateAt } from '../series-dates.ts';
import { toUtc } from '../rfc3339.ts';
import type { HoursDay } from './open-hours.ts';
import {
  eventJsonLd, eventPageUrl, placeJsonLd, placePageUrl, type AnchoredPlace, type EventView, type LinkContext,
} from './structured-data.ts';

/** The words of the pages in English. */
const EN = {
  when: 'When', repeats: 'Repeats', where: 'Where', online: 'Online', price: 'Price', booking: 'Booking', organizer: 'Organizer',
  capacity: 'Capacity', accessibility: 'Accessibility', next: 'Next dates', upcoming: 'Coming up here', none: 'Nothing coming up.',
  partOf: 'One date of', allDates: 'every date', calendar: 'Add to calendar', series: 'Add every date to a calendar',
  explorer: 'See it in the explorer', json: 'As JSON', jsonld: 'As JSON-LD', website: 'Website', address: 'Address',
  phone: 'Phone', hours: 'Opening hours', openNow: 'Open now', closedNow: 'Closed now', until: 'until', opens: 'opens',
  closed: 'Closed', allDay: 'Open all day', location: 'Location', difficulty: 'Difficulty', duration: 'Duration',
  minutes: 'min', free: 'Free', bookNow: 'Book', was: 'was', links: 'Links',
  marker: 'Place', path: 'Route', polygon: 'Area', levels: { easy: 'Easy', moderate: 'Moderate', hard: 'Hard' } as Record<string, string>,
  status: { scheduled: 'Scheduled', cancelled: 'Cancelled', postponed: 'Postponed', rescheduled: 'Rescheduled', moved_online: 'Moved online' },
};
type Words = typeof EN;

/** The words of the pages, in the languages the demo offers; any other language gets English. */
const WORDS: Record<string, Words> = {
  en: EN,
  pt: {
    when: 'Quando', repeats: 'Repete-se', where: 'Onde', online: 'Online', price: 'Preço', booking: 'Reservas', organizer: 'Organização',
    capacity: 'Lotação', accessibility: 'Acessibilidade', next: 'Próximas datas', upcoming: 'Em breve aqui', none: 'Nada previsto.',
    partOf: 'Uma data de', allDates: 'todas as datas', calendar: 'Adicionar ao calendário', series: 'Adicionar todas as datas a um calendário',
    explorer: 'Ver no explorador', json: 'Em JSON', jsonld: 'Em JSON-LD', website: 'Sítio web', address: 'Morada',
    phone: 'Telefone', hours: 'Horário', openNow: 'Aberto agora', closedNow: 'Fechado agora', until: 'até', opens: 'abre',
    closed: 'Fechado', allDay: 'Aberto todo o dia', location: 'Localização', difficulty: 'Dificuldade', duration: 'Duração',
    minutes: 'min', free: 'Gratuito', bookNow: 'Reservar', was: 'era', links: 'Ligações',
    marker: 'Local', path: 'Percurso', polygon: 'Área', levels: { easy: 'Fácil', moderate: 'Moderado', hard: 'Difícil' },
    status: { scheduled: 'Agendado', cancelled: 'Cancelado', postponed: 'Adiado', rescheduled: 'Reagendado', moved_online: 'Passou a online' },
  },
  es: {
    when: 'Cuándo', repeats: 'Se repite', where: 'Dónde', online: 'En línea', price: 'Precio', booking: 'Reservas', organizer: 'Organiza',
    capacity: 'Aforo', accessibility: 'Accesibilidad', next: 'Próximas fechas', upcoming: 'Próximamente aquí', none: 'Nada previsto.',
    partOf: 'Una fecha de', allDates: 'todas las fechas', calendar: 'Añadir al calendario', series: 'Añadir todas las fechas a un calendario',
    explorer: 'Ver en el explorador', json: 'En JSON', jsonld: 'En JSON-LD', website: 'Sitio web', address: 'Dirección',
    phone: 'Teléfono', hours: 'Horario', openNow: 'Abierto ahora', closedNow: 'Cerrado ahora', until: 'hasta', opens: 'abre',
    closed: 'Cerrado', allDay: 'Abierto todo el día', location: 'Ubicación', difficulty: 'Dificultad', duration: 'Duración',
    minutes: 'min', free: 'Gratis', bookNow: 'Reservar', was: 'antes', links: 'Enlaces',
    marker: 'Lugar', path: 'Ruta', polygon: 'Zona', levels: { easy: 'Fácil', moderate: 'Moderada', hard: 'Difícil' },
    status: { scheduled: 'Programado', cancelled: 'Cancelado', postponed: 'Aplazado', rescheduled: 'Reprogramado', moved_online: 'Pasa a en línea' },
  },
};

/** The page words for a language tag: its language's, else English. */
export const wordsFor = (lang: string): Words => WORDS[lang.split('-')[0]] ?? EN;

/** What every record page is written with. */
export interface PageContext extends LinkContext {
  /** The base path, for the style sheet (same origin as the page). */
  basePath: string;
  /** The map's name in the language served: the site name of the page. */
  mapName: string;
}

const e = escapeHtml;

/** What a formatter writes: a date, a date and time, a time, or a day of a week (`Monday, Nov 30`). */
type Shown = 'date' | 'datetime' | 'time' | 'day';
const SHOWN: Record<Shown, Intl.DateTimeFormatOptions> = {
  date: { dateStyle: 'full' }, datetime: { dateStyle: 'full', timeStyle: 'short' }, time: { timeStyle: 'short' },
  day: { weekday: 'long', day: 'numeric', month: 'short' },
};
const formatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter in `lang` on `timeZone`, kept; in English when the runtime has no data for `lang`. */
function formatter(lang: string, timeZone: string, shown: Shown): Intl.DateTimeFormat {
  const key = `${lang} ${timeZone} ${shown}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(Intl.DateTimeFormat.supportedLocalesOf([lang]).length > 0 ? lang : 'en', { timeZone, ...SHOWN[shown] });
    formatters.set(key, f);
  }
  return f;
}

/** An instant on the map's clock, as words in a `<time>` element. */
function instantHtml(iso: string, zone: string, lang: string, shown: Shown): string {
  return `<time datetime="${iso}">${e(formatter(lang, zone, shown).format(Date.parse(iso)))}</time>`;
}

/** When an event is, as words with machine-readable `<time>` elements: its days for an all-day event, the end's time alone on its start's day. */
export function whenHtml(ev: EventView, lang: string): string {
  if (ev.all_day) {
    // The days of an all-day event are dates, whatever the clock.
    const day = (d: string) => `<time datetime="${d}">${e(formatter(lang, 'UTC', 'date').format(Date.parse(`${d}T00:00:00Z`)))}</time>`;
    return ev.start_date === ev.end_date ? day(ev.start_date!) : `${day(ev.start_date!)} – ${day(ev.end_date!)}`;
  }
  const sameDay = dateAt(Date.parse(ev.starts_at), ev.time_zone) === dateAt(Date.parse(ev.ends_at), ev.time_zone);
  return `${instantHtml(ev.starts_at, ev.time_zone, lang, 'datetime')} – ${instantHtml(ev.ends_at, ev.time_zone, lang, sameDay ? 'time' : 'datetime')}`;
}

/** The head of a record page: title, description, canonical and alternate links, Open Graph, the JSON-LD. */
function head(o: { title: string; description: string | null; page: string; image: string | null; alternates: [string, string][];
  ld: unknown; ctx: PageContext }): string {
  const description = o.description ? o.description.replace(/\s+/g, ' ').trim().slice(0, 300) : null;
  const meta = (property: string, content: string | null) => (content ? [`<meta property="${property}" content="${e(content)}">`] : []);
  return documentHead(o.ctx.lang, `${o.title} · ${o.ctx.mapName}`, [
    ...(description ? [`<meta name="description" content="${e(description)}">`] : []), `<link rel="canonical" href="${e(o.page)}">`,
    ...o.alternates.map(([type, href]) => `<link rel="alternate" type="${type}" href="${e(href)}">`),
    ...meta('og:type', 'website'), ...meta('og:title', o.title), ...meta('og:description', description), ...meta('og:url', o.page),
    ...meta('og:site_name', o.ctx.mapName), ...meta('og:locale', o.ctx.lang.replace('-', '_')), ...meta('og:image', o.image),
    `<meta name="twitter:card" content="${o.image ? 'summary_large_image' : 'summary'}">`,
    `<link rel="stylesheet" href="${e(`${o.ctx.basePath}/assets/site.css`)}">`,
    `<script type="application/ld+json">${jsonBlock(o.ld)}</script>`,
  ]);
}

/** A day of a place's week as words: `Monday 30 Nov` in the page's language. */
function dayName(date: string, lang: string): string {
  return formatter(lang, 'UTC', 'day').format(Date.parse(`${date}T12:00:00Z`));
}

/**
 * A place's opening hours: the text people read, then, when it has `hours`, whether it is open now and until when (or
 * when it opens), and its open times day by day from today; null when it has neither.
 */
function hoursHtml(p: AnchoredPlace, w: Words, lang: string): string | null {
  const text = p.record.opening_hours ?? null;
  if (!text && !p.hours) return null;
  const parts = text ? [`<span>${e(text)}</span>`] : [];
  if (p.hours) {
    const { state, days, timeZone } = p.hours;
    const at = state.open ? state.closesAt : state.opensAt;
    const when = at === null ? '' : `, ${e(state.open ? w.until : w.opens)} ${instantHtml(toUtc(at), timeZone, lang,
      dateAt(at, timeZone) === days[0]?.date ? 'time' : 'datetime')}`;
    parts.push(`<strong class="${state.open ? 'open' : 'closed'}">${e(state.open ? w.openNow : w.closedNow)}</strong>${when}`);
    const times = (d: HoursDay) => (d.open.length === 0 ? e(w.closed)
      : d.open.length === 1 && d.open[0][0] === '00:00' && d.open[0][1] === '24:00' ? e(w.allDay)
      : d.open.map(([a, b]) => `${a}–${b}`).join(', '));
    parts.push(`<table class="hours">\n${days.map((d) => `<tr><th scope="row">${e(dayName(d.date, lang))}</th><td>${times(d)}</td></tr>`).join('\n')}\n</table>`);
  }
  return parts.join('<br>\n');
}

/** A definition list of the rows that have a value (already HTML). */
const rows = (items: [string, string | null][]) => {
  const shown = items.filter(([, v]) => v);
  return shown.length === 0 ? '' : `<dl>\n${shown.map(([k, v]) => `<dt>${e(k)}</dt><dd>${v}</dd>`).join('\n')}\n</dl>`;
};
const link = (href: string | null, text: string) => (href ? `<a href="${e(href)}">${e(text)}</a>` : null);
const paragraphs = (text: string | null) => (text ? text.split(/\n{2,}/).map((p) => `<p>${e(p)}</p>`).join('\n') : '');
const explorerUrl = (ctx: LinkContext, mapId: string) => `${ctx.publicUrl}/explore?map=${mapId}`;

function statusHtml(ev: EventView, w: Words, lang: string): string {
  if (ev.status === 'scheduled') return '';
  const before = ev.previous_start ? ` (${e(w.was)} ${instantHtml(ev.previous_start, ev.time_zone, lang, ev.all_day ? 'date' : 'datetime')})` : '';
  return `<p class="event-status status-${ev.status}">${e(w.status[ev.status])}${before}</p>`;
}

/** A list of events, each its dates (after its linked title when `titled`, else linked themselves) and its status. */
function eventItems(events: readonly EventView[], ctx: PageContext, w: Words, titled: boolean): string {
  const item = (x: EventView) => {
    const href = e(eventPageUrl(ctx.publicUrl, x.id));
    const when = whenHtml(x, ctx.lang);
    const main = titled ? `<a href="${href}">${e(x.title)}</a><br>${when}` : `<a href="${href}">${when}</a>`;
    return `<li class="status-${x.status}">${main}${x.status === 'scheduled' ? '' : ` · <strong>${e(w.status[x.status])}</strong>`}</li>`;
  };
  return `<ol class="event-list">\n${events.map(item).join('\n')}\n</ol>`;
}

/** The page of an event, an occurrence or a series; `places` are its anchored POIs. */
export function eventPageHtml(ev: EventView, places: readonly AnchoredPlace[], ctx: PageContext): string {
  const w = wordsFor(ctx.lang);
  const page = eventPageUrl(ctx.publicUrl, ev.id);
  const json = `${ctx.publicUrl}/events/${ev.id}`;
  const o = ev.offers;
  const price = [ev.price, o?.free ? w.free : null, o?.price != null ? `${o.price}${o.currency ? ` ${o.currency}` : ''}` : null]
    .filter((x, i, all): x is string => !!x && all.indexOf(x) === i).map(e).join(' · ');
  const organizer = ev.organizer ? [e(ev.organizer.name), link(ev.organizer.url, ev.organizer.url ?? ''),
    ev.organizer.email ? link(`mailto:${ev.organizer.email}`, ev.organizer.email) : null, ev.organizer.phone ? e(ev.organizer.phone) : null]
    .filter(Boolean).join(' · ') : null;
  const where = places.length === 0 ? null : `<ul class="places">${places.map((p) => `<li>${link(placePageUrl(ctx.publicUrl, p.record.type, p.record.id), p.record.name)}` +
    `${p.record.address ? `, ${e(p.record.address)}` : ''}</li>`).join('')}</ul>`;
  const series = ev.recurrence;
  const body = `<body class="record">
<header class="bar"><strong>${link(explorerUrl(ctx, ev.map_id), ctx.mapName)}</strong></header>
<main class="prose record-page">
<p class="kind">${e(ev.event_type)}</p>
<h1>${e(ev.title)}</h1>
${statusHtml(ev, w, ctx.lang)}
${rows([
    [w.when, `${whenHtml(ev, ctx.lang)} <span class="muted">(${e(ev.time_zone)})</span>`],
    [w.repeats, series ? e(series.text) : null],
    [w.where, where],
    [w.online, link(ev.online_url, ev.online_url ?? '')],
    [w.price, price || null],
    [w.booking, link(o?.booking_url ?? null, w.bookNow)],
    [w.organizer, organizer],
    [w.capacity, ev.capacity === null ? null : e(String(ev.capacity))],
    [w.accessibility, ev.accessibility.length > 0 ? e(ev.accessibility.join(', ')) : null],
  ])}
${paragraphs(ev.description)}
${ev.series_id ? `<p>${e(w.partOf)} ${link(eventPageUrl(ctx.publicUrl, ev.series_id), w.allDates)}.</p>` : ''}
${ev.next_occurrences ? `<h2>${e(w.next)}</h2>\n${ev.next_occurrences.length > 0 ? eventItems(ev.next_occurrences, ctx, w, false) : `<p>${e(w.none)}</p>`}` : ''}
<h2>${e(w.links)}</h2>
<ul class="links-list">
<li>${link(`${ctx.publicUrl}/events/${ev.id}.ics`, series ? w.series : w.calendar)}</li>
${ev.url ? `<li>${link(ev.url, w.website)}</li>\n` : ''}<li>${link(explorerUrl(ctx, ev.map_id), w.explorer)}</li>
<li>${link(json, w.json)} · ${link(`${ctx.publicUrl}/events/${ev.id}.jsonld`, w.jsonld)}</li>
</ul>
</main>
</body>
</html>
`;
  return `${head({ title: ev.title, description: ev.description, page, image: ev.image_url, ld: eventJsonLd(ev, places, ctx), ctx,
    alternates: [['application/json', json], ['application/ld+json', `${ctx.publicUrl}/events/${ev.id}.jsonld`], ['text/calendar', `${ctx.publicUrl}/events/${ev.id}.ics`]] })}\n${body}`;
}

/** The page of a POI: what it is, where, its details, and the events coming up there. */
export function placePageHtml(p: AnchoredPlace, categories: readonly string[], events: readonly EventView[], ctx: PageContext): string {
  const w = wordsFor(ctx.lang);
  const r = p.record;
  const page = placePageUrl(ctx.publicUrl, r.type, r.id);
  const json = `${ctx.publicUrl}/${r.type}s/${r.id}`;
  const body = `<body class="record">
<header class="bar"><strong>${link(explorerUrl(ctx, r.map_id), ctx.mapName)}</strong></header>
<main class="prose record-page">
<p class="kind">${e(w[r.type])}${categories.length > 0 ? ` · ${e(categories.join(', '))}` : ''}</p>
<h1>${e(r.name)}</h1>
${rows([
    [w.address, r.address ? e(r.address) : null],
    [w.hours, hoursHtml(p, w, ctx.lang)],
    [w.phone, r.phone ? link(`tel:${r.phone.replace(/\s+/g, '')}`, r.phone) : null],
    [w.website, link(r.website, r.website ?? '')],
    [w.difficulty, r.difficulty ? e(w.levels[r.difficulty] ?? r.difficulty) : null],
    [w.duration, r.duration_min != null ? e(`${r.duration_min} ${w.minutes}`) : null],
    [w.location, `<span class="geo">${p.lat.toFixed(5)}, ${p.lng.toFixed(5)}</span>`],
  ])}
${paragraphs(r.description)}
<h2>${e(w.upcoming)}</h2>
${events.length > 0 ? eventItems(events, ctx, w, true) : `<p>${e(w.none)}</p>`}
<h2>${e(w.links)}</h2>
<ul class="links-list">
<li>${link(explorerUrl(ctx, r.map_id), w.explorer)}</li>
<li>${link(json, w.json)} · ${link(`${json}.jsonld`, w.jsonld)}</li>
</ul>
</main>
</body>
</html>
`;
  return `${head({ title: r.name, description: r.description, page, image: r.image_url, ld: placeJsonLd(p, categories, events, ctx), ctx,
    alternates: [['application/json', json], ['application/ld+json', `${json}.jsonld`]] })}\n${body}`;
}
