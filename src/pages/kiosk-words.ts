/**
 * The kiosk's own words (its rail, its buttons, the detail card), in the languages the record pages speak: the words
 * both have are the record pages' (src/content/model/record-pages.ts), so a place reads the same in the kiosk and on
 * its page; the rest are the kiosk's. A language neither has gets English. Sent to the page in its config, for the
 * kiosk map's languages; `{0}`, `{1}` stand for values the page fills in.
 */
import { wordsFor } from '../content/model/record-pages.ts';

/** The kiosk's words the record pages have not got. */
const OWN: Record<string, Record<string, string>> = {
  en: {
    rail: 'Today and this week', today: 'Today', later: 'Later this week', nothing: 'Nothing on this week.', more: 'and {0} more this week',
    onNowDate: 'On now, until {0}', onNowTime: 'On now, until {0}', explore: 'Explore', openUntil: 'Open now · until {0}', here: 'You are here', phone: 'On your phone',
    upcomingHere: 'Upcoming events here', none: 'None scheduled.', loadingEvents: 'Loading events…', loading: 'Loading…',
    rescheduledFrom: 'Rescheduled (was {0})', pageToShare: 'Page to share', wholeSeries: 'the whole series', whereList: 'Where ({0})',
    starts: 'Starts', ends: 'Ends', tags: 'Tags', moreInfo: 'More', categories: 'Categories and tags', osmHours: 'Hours (OpenStreetMap)',
    close: 'Close', qrOf: 'QR code of {0}', zoomIn: '{0} places: zoom in', placesOf: 'Places of {0}', noPlacesOf: 'No places of {0}', placesIn: '{0} places in {1}',
    openPlaces: '{0} places open now', openPlacesIn: '{0} places open now in {1}', askingOpen: 'Asking what is open now…',
    event: 'Event', placesHere: '{0} places at this spot',
  },
  pt: {
    rail: 'Hoje e esta semana', today: 'Hoje', later: 'Ainda esta semana', nothing: 'Nada previsto esta semana.', more: 'e mais {0} esta semana',
    onNowDate: 'A decorrer, até {0}', onNowTime: 'A decorrer, até às {0}', explore: 'Explorar', openUntil: 'Aberto agora · até {0}', here: 'Está aqui', phone: 'No seu telemóvel',
    upcomingHere: 'Próximos eventos aqui', none: 'Nada previsto.', loadingEvents: 'A carregar eventos…', loading: 'A carregar…',
    rescheduledFrom: 'Reagendado (antes: {0})', pageToShare: 'Página para partilhar', wholeSeries: 'todas as datas', whereList: 'Onde ({0})',
    starts: 'Início', ends: 'Fim', tags: 'Etiquetas', moreInfo: 'Mais informações', categories: 'Categorias e etiquetas', osmHours: 'Horário (OpenStreetMap)',
    close: 'Fechar', qrOf: 'Código QR de {0}', zoomIn: '{0} locais: aproximar', placesOf: 'Locais de {0}', noPlacesOf: 'Nenhum local de {0}', placesIn: '{0} locais em {1}',
    openPlaces: '{0} locais abertos agora', openPlacesIn: '{0} locais abertos agora em {1}', askingOpen: 'A ver o que está aberto…',
    event: 'Evento', placesHere: '{0} locais neste ponto',
  },
  es: {
    rail: 'Hoy y esta semana', today: 'Hoy', later: 'Más adelante esta semana', nothing: 'Nada previsto esta semana.', more: 'y {0} más esta semana',
    onNowDate: 'En curso, hasta el {0}', onNowTime: 'En curso, hasta las {0}', explore: 'Explorar', openUntil: 'Abierto ahora · hasta {0}', here: 'Está aquí', phone: 'En su móvil',
    upcomingHere: 'Próximos eventos aquí', none: 'Nada previsto.', loadingEvents: 'Cargando eventos…', loading: 'Cargando…',
    rescheduledFrom: 'Reprogramado (antes: {0})', pageToShare: 'Página para compartir', wholeSeries: 'todas las fechas', whereList: 'Dónde ({0})',
    starts: 'Empieza', ends: 'Termina', tags: 'Etiquetas', moreInfo: 'Más información', categories: 'Categorías y etiquetas', osmHours: 'Horario (OpenStreetMap)',
    close: 'Cerrar', qrOf: 'Código QR de {0}', zoomIn: '{0} lugares: acercar', placesOf: 'Lugares de {0}', noPlacesOf: 'Ningún lugar de {0}', placesIn: '{0} lugares en {1}',
    openPlaces: '{0} lugares abiertos ahora', openPlacesIn: '{0} lugares abiertos ahora en {1}', askingOpen: 'Consultando qué está abierto…',
    event: 'Evento', placesHere: '{0} lugares en este punto',
  },
};

/**
 * The page's words for a map in `languages` (none: the explorer's), by language code: English, and each of those
 * languages the kiosk speaks (`pt-BR` as `pt`).
 */
export function kioskWordsFor(languages: readonly string[]): Record<string, Record<string, string>> {
  const codes = new Set(['en', ...languages.map((lang) => lang.toLowerCase().split('-')[0]).filter((code) => Object.hasOwn(OWN, code))]);
  return Object.fromEntries([...codes].map((code) => [code, kioskWords(code)]));
}

/** Every word of the kiosk in a language it speaks, by key. */
function kioskWords(code: string): Record<string, string> {
  const page = wordsFor(code);
  return {
    when: page.when, repeats: page.repeats, where: page.where, online: page.online, price: page.price, booking: page.booking,
    organizer: page.organizer, accessibility: page.accessibility, website: page.website, address: page.address, telephone: page.phone,
    hours: page.hours, openNow: page.openNow, closedNow: page.closedNow, difficulty: page.difficulty, duration: page.duration, free: page.free,
    marker: page.marker, path: page.path, polygon: page.polygon, addToCalendar: page.calendar,
    cancelled: page.status.cancelled, postponed: page.status.postponed, rescheduled: page.status.rescheduled, movedOnline: page.status.moved_online,
    ...OWN[code],
  };
}
