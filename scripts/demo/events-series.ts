/** Recurring and seasonal events of the main map: Feira da Ladra, tours, fado nights, Festas de Lisboa, exhibitions. */
import type { EventT } from '../../src/content/bundle/bundle-schema.ts';
import { type Rng, addDays, int, lisbon, pick, ANCHOR_MS } from './ids.ts';
import type { PoiInfo } from './pois.ts';
import { days, finder, makeEvent, months, pool, ymd } from './events-base.ts';

export function seriesEvents(r: Rng, index: PoiInfo[]): EventT[] {
  const find = finder(index);
  const out: EventT[] = [];
  const feira = find('main', 'Feira da Ladra (Campo de Santa Clara)');

  // Feira da Ladra: every Tuesday and Saturday, 09:00–18:00 local.
  for (const { y, m, d, dow } of days()) {
    if (dow !== 2 && dow !== 6) continue;
    out.push(makeEvent(r, {
      map: 'main', key: `feira-da-ladra:${ymd(y, m, d)}`, title: 'Feira da Ladra Flea Market', type: 'market',
      start: lisbon(y, m, d, 9), end: lisbon(y, m, d, 18), pois: [feira], tags: ['free', 'outdoor'], price: 'Free',
      desc: "Lisbon's oldest flea market fills Campo de Santa Clara with antiques, vinyl and azulejos.",
    }));
  }

  // Weekly guided walking tours on Sunday mornings, rotating through four routes.
  const tours = ['Alfama Walk', 'Belém Riverside Walk', 'Graça Miradouros Walk', 'Chiado–Baixa Walk'].map((n) => find('main', n, 'path'));
  let week = 0;
  for (const { y, m, d, dow } of days()) {
    if (dow !== 0) continue;
    const route = tours[week++ % tours.length];
    out.push(makeEvent(r, {
      map: 'main', key: `sunday-tour:${ymd(y, m, d)}`, title: `Guided Tour: ${route.name}`, type: 'tour',
      start: lisbon(y, m, d, 10), end: lisbon(y, m, d, 12, 30), pois: [route], tags: ['outdoor', 'accessible'], price: '€15',
      desc: `A licensed guide leads the ${route.name} with stories of the city; meet at the start of the route.`,
    }));
  }

  // Monthly fado nights at three venues.
  const clube = find('main', 'Clube de Fado');
  const museu = find('main', 'Museu do Fado');
  const chico = find('main', 'Tasca do Chico');
  for (const [y, m] of months()) {
    const first = new Date(Date.UTC(y, m - 1, 1)).getUTCDay();
    const firstFri = 1 + ((5 - first + 7) % 7);
    const secondThu = 1 + ((4 - first + 7) % 7) + 7;
    const lastDay = new Date(Date.UTC(y, m, 0)).getUTCDate();
    const lastDow = new Date(Date.UTC(y, m - 1, lastDay)).getUTCDay();
    const lastWed = lastDay - ((lastDow - 3 + 7) % 7);
    out.push(makeEvent(r, {
      map: 'main', key: `fado-clube:${y}-${m}`, title: 'Fado Night at Clube de Fado', type: 'fado',
      start: lisbon(y, m, firstFri, 21), end: lisbon(y, m, firstFri, 23, 30), pois: [clube], tags: ['live-music', 'night'], price: '€35',
      desc: 'Dinner and an evening of traditional fado under the stone arches of Clube de Fado.',
    }));
    out.push(makeEvent(r, {
      map: 'main', key: `fado-museu:${y}-${m}`, title: 'Fado at the Museum', type: 'fado',
      start: lisbon(y, m, secondThu, 19), end: lisbon(y, m, secondThu, 21), pois: [museu], tags: ['live-music', 'accessible'], price: '€8',
      desc: 'An intimate fado recital followed by a short talk on the history of the genre.',
    }));
    out.push(makeEvent(r, {
      map: 'main', key: `fado-chico:${y}-${m}`, title: 'Fado Vadio Night', type: 'fado',
      start: lisbon(y, m, lastWed, 21, 30), end: addDays(lisbon(y, m, lastWed, 1), 1), pois: [chico], tags: ['live-music', 'night', 'free'], price: 'Free',
      desc: 'Amateur fado singers take turns at the microphone in this Bairro Alto tasca.',
    }));
  }

  // Festas de Lisboa, every June.
  const alfama = find('main', 'Alfama', 'polygon');
  const avenida = find('main', 'Avenida da Liberdade Stroll', 'path');
  const stoAnt = find('main', 'Igreja de Santo António');
  const se = find('main', 'Sé de Lisboa');
  const bairro = find('main', 'Bairro Alto', 'polygon');
  const graca = find('main', 'Miradouro Sophia de Mello Breyner Andresen');
  const mm = find('main', 'Mercado de Fusão (Martim Moniz)');
  for (const y of [2027, 2028]) {
    const ev = (key: string, title: string, type: string, start: number, end: number, pois: PoiInfo[], tags: Parameters<typeof makeEvent>[1]['tags'], price: string, desc: string) =>
      out.push(makeEvent(r, { map: 'main', key: `festas-${y}:${key}`, title: `${title} ${y}`, type, start, end, pois, tags, price, desc }));
    ev('umbrella', 'Festas de Lisboa', 'festival', lisbon(y, 6, 1, 10), lisbon(y, 6, 30, 23, 59), [], ['seasonal', 'outdoor', 'free'], 'Free',
      'A month of street parties, grilled sardines and popular music across the city.');
    ev('marchas', 'Marchas Populares', 'festival', lisbon(y, 6, 12, 21), lisbon(y, 6, 13, 2), [avenida], ['seasonal', 'outdoor', 'free', 'night'], 'Free',
      "The neighbourhoods' costumed marching groups parade down Avenida da Liberdade on Santo António's eve.");
    ev('arraial-alfama', 'Arraial de Santo António in Alfama', 'festival', lisbon(y, 6, 12, 18), lisbon(y, 6, 13, 4), [alfama, stoAnt, se], ['seasonal', 'outdoor', 'food', 'live-music'], 'Free',
      'Alfama becomes one big street party with sardines, caldo verde and music until dawn.');
    ev('procissao', 'Procissão de Santo António', 'festival', lisbon(y, 6, 13, 17), lisbon(y, 6, 13, 20), [stoAnt, se], ['seasonal', 'accessible', 'free'], 'Free',
      "The procession for Lisbon's patron saint leaves the church where he was born.");
    ev('casamentos', 'Casamentos de Santo António', 'festival', lisbon(y, 6, 12, 11), lisbon(y, 6, 12, 13), [se], ['seasonal', 'free'], 'Free',
      'The traditional collective weddings blessed by the city at the cathedral.');
    ev('arraial-bairro', 'Arraial do Bairro Alto', 'festival', lisbon(y, 6, 12, 19), lisbon(y, 6, 13, 3), [bairro], ['seasonal', 'night', 'live-music'], 'Free',
      'Bairro Alto streets hung with garlands, grills and dance floors.');
    ev('sao-joao', 'Arraial de São João na Graça', 'festival', lisbon(y, 6, 23, 19), lisbon(y, 6, 24, 2), [graca], ['seasonal', 'outdoor', 'night'], 'Free',
      'A neighbourhood arraial for São João with views over the city.');
    ev('sardinhas', 'Sardine Festival', 'food', lisbon(y, 6, 20, 12), lisbon(y, 6, 21, 23), [mm], ['food', 'outdoor', 'family-friendly'], '€5',
      'Grilled sardines on bread, sangria and live bands at Martim Moniz.');
    ev('sao-pedro', 'Arraial de São Pedro', 'festival', lisbon(y, 6, 28, 19), lisbon(y, 6, 29, 1), [alfama], ['seasonal', 'outdoor'], 'Free',
      'The last arraial of the Festas closes June in Alfama.');
  }

  // Exhibitions: one opens about every three weeks; two long ones span several months.
  const venues = pool(index, 'main', ['museums_art', 'museums_hist']);
  const THEMES = ['Azulejo Now', 'Portugal in Photographs', 'Cartography of the Discoveries', 'Modernist Lisbon',
    'Women of Portuguese Art', 'The Tagus River', 'Fado: Voices of the City', 'Design from Lusophone Africa',
    'Tram Lines: A Century of Carris', 'Sea Monsters and Maps', 'Contemporary Ceramics', 'The Baroque Gold Rush',
    'Street Art in Lisbon', 'Pessoa and His Heteronyms', 'Coaches of the Royal House', 'Silk Road Treasures'];
  let n = 0;
  for (let t = addDays(ANCHOR_MS, 3); t < addDays(ANCHOR_MS, 760); t = addDays(t, int(r, 16, 24))) {
    const dt = new Date(t);
    const y = dt.getUTCFullYear();
    const m = dt.getUTCMonth() + 1;
    const d = dt.getUTCDate();
    const venue = venues[(n * 7) % venues.length];
    const weeks = int(r, 3, 10);
    const end = Math.min(addDays(lisbon(y, m, d, 18), weeks * 7), lisbon(2028, 12, 30, 18));
    const theme = THEMES[n % THEMES.length];
    out.push(makeEvent(r, {
      map: 'main', key: `exhibition:${n}`, title: `${theme}`, type: 'exhibition', start: lisbon(y, m, d, 10), end,
      pois: [venue], tags: ['art', pick(r, ['accessible', 'family-friendly', 'free'] as const)], price: pick(r, ['€8', '€10', '€12', 'Free']),
      desc: `A ${weeks}-week exhibition at ${venue.name}.`,
    }));
    n++;
  }
  const azulejo = find('main', 'Museu Nacional do Azulejo');
  out.push(makeEvent(r, {
    map: 'main', key: 'exhibition:azulejo-five-centuries', title: 'Azulejo: Five Centuries of Portuguese Tiles', type: 'exhibition',
    start: lisbon(2026, 11, 14, 10), end: lisbon(2027, 4, 25, 18), pois: [azulejo], tags: ['art', 'accessible'], price: '€10',
    desc: 'A landmark survey of the painted tile, from Moorish geometry to contemporary facades.',
  }));
  const story = find('main', 'Lisboa Story Centre');
  const comercio = find('main', 'Praça do Comércio');
  out.push(makeEvent(r, {
    map: 'main', key: 'exhibition:lisbon-1755', title: 'Lisbon 1755: The Earthquake and the New City', type: 'exhibition',
    start: lisbon(2027, 9, 18, 10), end: lisbon(2028, 2, 27, 18), pois: [story, comercio, find('main', 'Baixa Pombalina', 'polygon')],
    tags: ['art', 'family-friendly', 'kids'], price: '€12',
    desc: 'How the 1755 earthquake destroyed Lisbon and how the Pombaline Baixa rose from the ruins.',
  }));
  return out;
}
