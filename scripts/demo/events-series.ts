/** Recurring and seasonal events of the main map: Feira da Ladra, tours, fado nights, Festas de Lisboa, exhibitions. */
import type { EventT } from '../../src/content/bundle/bundle-schema.ts';
import { type Rng, addDays, int, iso, lisbon, pick, uuid, ANCHOR_MS, END_MS } from './ids.ts';
import type { PoiInfo } from './pois.ts';
import { days, finder, makeEvent, months, pool, ymd } from './events-base.ts';
import { fill, text, type Tr } from './i18n.ts';
import { slugify as slug } from './ctx.ts';

/** Every series of the demo runs to the end of its window (UTC, as RRULE's UNTIL is written). */
const UNTIL = new Date(END_MS).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

export function seriesEvents(r: Rng, index: PoiInfo[]): EventT[] {
  const find = finder(index);
  const out: EventT[] = [];
  const feira = find('main', 'Feira da Ladra (Campo de Santa Clara)');

  /**
   * A series from its occurrences as they were once made one by one: the first becomes the series (its id from
   * `key`, its URL the page of the series), the others are still drawn, so every random choice after them (tags,
   * creation times, the random events) stays as it was.
   */
  const asSeries = (occurrences: EventT[], key: string, rule: string, more: Partial<EventT> = {}): EventT => {
    const [first] = occurrences;
    return { ...first, id: uuid(`event:main:${key}`), url: first.url!.replace(/-\d{4}-\d{2}-\d{2}$/, ''), recurrence: { rule: `${rule};UNTIL=${UNTIL}` }, ...more };
  };

  // Feira da Ladra: every Tuesday and Saturday, 09:00–18:00 local; cancelled on Boxing Day, a day late after New
  // Year, and a Christmas market the Saturday before Christmas.
  const feiraTitle: Tr = { en: 'Feira da Ladra Flea Market', pt: 'Feira da Ladra', es: 'Rastro de la Feira da Ladra' };
  const feiraDays: EventT[] = [];
  for (const { y, m, d, dow } of days()) {
    if (dow !== 2 && dow !== 6) continue;
    feiraDays.push(makeEvent(r, {
      map: 'main', key: `feira-da-ladra:${ymd(y, m, d)}`, type: 'market', title: feiraTitle,
      start: lisbon(y, m, d, 9), end: lisbon(y, m, d, 18), pois: [feira], tags: ['free', 'outdoor'], price: 'Free',
      desc: { en: "Lisbon's oldest flea market fills Campo de Santa Clara with antiques, vinyl and azulejos.",
        pt: 'A mais antiga feira da ladra de Lisboa enche o Campo de Santa Clara de antiguidades, discos de vinil e azulejos.',
        es: 'El mercadillo más antiguo de Lisboa llena el Campo de Santa Clara de antigüedades, vinilos y azulejos.' },
    }));
  }
  out.push(asSeries(feiraDays, 'feira-da-ladra', 'FREQ=WEEKLY;BYDAY=TU,SA', {
    overrides: [
      { original_start: iso(lisbon(2026, 12, 19, 9)), ends_at: iso(lisbon(2026, 12, 19, 20)),
        title: text('main', { en: 'Feira da Ladra Christmas Market', pt: 'Feira da Ladra de Natal', es: 'Mercadillo navideño de la Feira da Ladra' }) },
      { original_start: iso(lisbon(2026, 12, 26, 9)), status: 'cancelled' },
      { original_start: iso(lisbon(2027, 1, 2, 9)), starts_at: iso(lisbon(2027, 1, 3, 9)), status: 'rescheduled' },
    ],
  }));

  // Guided walking tours on Sunday mornings, the four routes in turn: a series each, every fourth Sunday.
  const tours = ['Alfama Walk', 'Belém Riverside Walk', 'Graça Miradouros Walk', 'Chiado–Baixa Walk'].map((n) => find('main', n, 'path'));
  const tourDays: EventT[][] = tours.map(() => []);
  let week = 0;
  for (const { y, m, d, dow } of days()) {
    if (dow !== 0) continue;
    const k = week++ % tours.length;
    const route = tours[k];
    tourDays[k].push(makeEvent(r, {
      map: 'main', key: `sunday-tour:${ymd(y, m, d)}`, type: 'tour',
      title: fill({ en: 'Guided Tour: {route}', pt: 'Visita Guiada: {route}', es: 'Visita guiada: {route}' }, { route: route.label }),
      start: lisbon(y, m, d, 10), end: lisbon(y, m, d, 12, 30), pois: [route], tags: ['outdoor', 'accessible'], price: '€15',
      desc: fill({ en: 'A licensed guide leads the {route} with stories of the city; meet at the start of the route.',
        pt: 'Um guia credenciado conduz o {route} com histórias da cidade; encontro no início do percurso.',
        es: 'Un guía oficial dirige el {route} con historias de la ciudad; el punto de encuentro es el inicio de la ruta.' }, { route: route.label }),
      more: { offers: { price: 15, currency: 'EUR', booking_url: 'https://lisbon-city-guide.example.org/tours/book', availability: 'in_stock' }, capacity: 25 },
    }));
  }
  tours.forEach((route, k) => out.push(asSeries(tourDays[k], `sunday-tour:${slug(route.name)}`, 'FREQ=WEEKLY;INTERVAL=4;BYDAY=SU')));

  // Monthly fado nights at three venues: the Clube's first Friday, the museum's second Thursday, the Tasca's last
  // Wednesday. January 2027's night at the Clube is cancelled; the museum's February recital moved a week on, its
  // April one online; the Tasca's March night postponed (no new date yet).
  const clube = find('main', 'Clube de Fado');
  const museu = find('main', 'Museu do Fado');
  const chico = find('main', 'Tasca do Chico');
  const nights: Record<'clube' | 'museu' | 'chico', EventT[]> = { clube: [], museu: [], chico: [] };
  for (const [y, m] of months()) {
    const first = new Date(Date.UTC(y, m - 1, 1)).getUTCDay();
    const firstFri = 1 + ((5 - first + 7) % 7);
    const secondThu = 1 + ((4 - first + 7) % 7) + 7;
    const lastDay = new Date(Date.UTC(y, m, 0)).getUTCDate();
    const lastDow = new Date(Date.UTC(y, m - 1, lastDay)).getUTCDay();
    const lastWed = lastDay - ((lastDow - 3 + 7) % 7);
    nights.clube.push(makeEvent(r, {
      map: 'main', key: `fado-clube:${y}-${m}`, type: 'fado',
      title: { en: 'Fado Night at Clube de Fado', pt: 'Noite de Fado no Clube de Fado', es: 'Noche de fado en el Clube de Fado' },
      start: lisbon(y, m, firstFri, 21), end: lisbon(y, m, firstFri, 23, 30), pois: [clube], tags: ['live-music', 'night'], price: '€35',
      desc: { en: 'Dinner and an evening of traditional fado under the stone arches of Clube de Fado.',
        pt: 'Jantar e uma noite de fado tradicional sob as arcadas de pedra do Clube de Fado.',
        es: 'Cena y una velada de fado tradicional bajo los arcos de piedra del Clube de Fado.' },
      more: { organizer: { name: 'Clube de Fado', url: 'https://clube-de-fado.example.org/' },
        offers: { price: 35, currency: 'EUR', booking_url: 'https://clube-de-fado.example.org/book', availability: 'limited_availability' },
        attendance_mode: 'offline', capacity: 90 },
    }));
    nights.museu.push(makeEvent(r, {
      map: 'main', key: `fado-museu:${y}-${m}`, type: 'fado',
      title: { en: 'Fado at the Museum', pt: 'Fado no Museu', es: 'Fado en el museo' },
      start: lisbon(y, m, secondThu, 19), end: lisbon(y, m, secondThu, 21), pois: [museu], tags: ['live-music', 'accessible'], price: '€8',
      desc: { en: 'An intimate fado recital followed by a short talk on the history of the genre.',
        pt: 'Um recital intimista de fado, seguido de uma breve conversa sobre a história do género.',
        es: 'Un recital íntimo de fado seguido de una breve charla sobre la historia del género.' },
      more: { organizer: { name: { en: 'Fado Museum', pt: 'Museu do Fado', es: 'Museo del Fado' }, url: 'https://museu-do-fado.example.org/' },
        offers: { price: 8, currency: 'EUR', availability: 'in_stock' }, accessibility: ['signLanguage', 'largePrint'] },
    }));
    nights.chico.push(makeEvent(r, {
      map: 'main', key: `fado-chico:${y}-${m}`, type: 'fado',
      title: { en: 'Fado Vadio Night', pt: 'Noite de Fado Vadio', es: 'Noche de fado vadio' },
      start: lisbon(y, m, lastWed, 21, 30), end: addDays(lisbon(y, m, lastWed, 1), 1), pois: [chico], tags: ['live-music', 'night', 'free'], price: 'Free',
      desc: { en: 'Amateur fado singers take turns at the microphone in this Bairro Alto tasca.',
        pt: 'Fadistas amadores revezam-se ao microfone nesta tasca do Bairro Alto.',
        es: 'Cantantes aficionados de fado se turnan ante el micrófono en esta tasca del Bairro Alto.' },
      more: { offers: { free: true } },
    }));
  }
  out.push(asSeries(nights.clube, 'fado-clube', 'FREQ=MONTHLY;BYDAY=1FR', {
    overrides: [{ original_start: iso(lisbon(2027, 1, 1, 21)), status: 'cancelled' }],
  }));
  out.push(asSeries(nights.museu, 'fado-museu', 'FREQ=MONTHLY;BYDAY=2TH', {
    overrides: [
      { original_start: iso(lisbon(2027, 2, 11, 19)), starts_at: iso(lisbon(2027, 2, 18, 19)), status: 'rescheduled' },
      { original_start: iso(lisbon(2027, 4, 8, 19)), status: 'moved_online', attendance_mode: 'online', online_url: 'https://museu-do-fado.example.org/live' },
    ],
  }));
  out.push(asSeries(nights.chico, 'fado-chico', 'FREQ=MONTHLY;BYDAY=-1WE', {
    overrides: [{ original_start: iso(lisbon(2027, 3, 31, 21, 30)), status: 'postponed' }],
  }));

  // Festas de Lisboa, every June.
  const alfama = find('main', 'Alfama', 'polygon');
  const avenida = find('main', 'Avenida da Liberdade Stroll', 'path');
  const stoAnt = find('main', 'Igreja de Santo António');
  const se = find('main', 'Sé de Lisboa');
  const bairro = find('main', 'Bairro Alto', 'polygon');
  const graca = find('main', 'Miradouro Sophia de Mello Breyner Andresen');
  const mm = find('main', 'Mercado de Fusão (Martim Moniz)');
  for (const y of [2027, 2028]) {
    const ev = (key: string, title: Tr, type: string, start: number, end: number, pois: PoiInfo[], tags: Parameters<typeof makeEvent>[1]['tags'], price: string, desc: Tr,
      more?: Partial<EventT>) =>
      out.push(makeEvent(r, { map: 'main', key: `festas-${y}:${key}`, title: fill({ en: `{t} ${y}`, pt: `{t} ${y}`, es: `{t} ${y}` }, { t: title }), type, start, end, pois, tags, price, desc, more }));
    // The Festas themselves: the whole of June, all day.
    ev('umbrella', { en: 'Festas de Lisboa', pt: 'Festas de Lisboa', es: 'Fiestas de Lisboa' }, 'festival', lisbon(y, 6, 1, 10), lisbon(y, 6, 30, 23, 59), [], ['seasonal', 'outdoor', 'free'], 'Free',
      { en: 'A month of street parties, grilled sardines and popular music across the city.',
        pt: 'Um mês de arraiais, sardinhas assadas e música popular por toda a cidade.',
        es: 'Un mes de fiestas en la calle, sardinas asadas y música popular por toda la ciudad.' },
      { all_day: true, starts_at: `${y}-06-01`, ends_at: `${y}-06-30` });
    ev('marchas', { en: 'Marchas Populares', pt: 'Marchas Populares', es: 'Marchas Populares' }, 'festival', lisbon(y, 6, 12, 21), lisbon(y, 6, 13, 2), [avenida], ['seasonal', 'outdoor', 'free', 'night'], 'Free',
      { en: "The neighbourhoods' costumed marching groups parade down Avenida da Liberdade on Santo António's eve.",
        pt: 'As marchas dos bairros, com os seus trajes, desfilam na Avenida da Liberdade na véspera de Santo António.',
        es: 'Las comparsas disfrazadas de los barrios desfilan por la Avenida da Liberdade la víspera de San Antonio.' });
    ev('arraial-alfama', { en: 'Arraial de Santo António in Alfama', pt: 'Arraial de Santo António em Alfama', es: 'Verbena de San Antonio en Alfama' }, 'festival', lisbon(y, 6, 12, 18), lisbon(y, 6, 13, 4), [alfama, stoAnt, se], ['seasonal', 'outdoor', 'food', 'live-music'], 'Free',
      { en: 'Alfama becomes one big street party with sardines, caldo verde and music until dawn.',
        pt: 'Alfama transforma-se num grande arraial com sardinhas, caldo verde e música até de madrugada.',
        es: 'Alfama se convierte en una gran fiesta callejera con sardinas, caldo verde y música hasta el amanecer.' });
    ev('procissao', { en: 'Procissão de Santo António', pt: 'Procissão de Santo António', es: 'Procesión de San Antonio' }, 'festival', lisbon(y, 6, 13, 17), lisbon(y, 6, 13, 20), [stoAnt, se], ['seasonal', 'accessible', 'free'], 'Free',
      { en: "The procession for Lisbon's patron saint leaves the church where he was born.",
        pt: 'A procissão do padroeiro de Lisboa sai da igreja onde ele nasceu.',
        es: 'La procesión del patrón de Lisboa sale de la iglesia donde nació.' });
    ev('casamentos', { en: 'Casamentos de Santo António', pt: 'Casamentos de Santo António', es: 'Bodas de San Antonio' }, 'festival', lisbon(y, 6, 12, 11), lisbon(y, 6, 12, 13), [se], ['seasonal', 'free'], 'Free',
      { en: 'The traditional collective weddings blessed by the city at the cathedral.',
        pt: 'Os tradicionais casamentos coletivos apadrinhados pela cidade, na Sé.',
        es: 'Las tradicionales bodas colectivas que la ciudad apadrina en la catedral.' });
    ev('arraial-bairro', { en: 'Arraial do Bairro Alto', pt: 'Arraial do Bairro Alto', es: 'Verbena del Bairro Alto' }, 'festival', lisbon(y, 6, 12, 19), lisbon(y, 6, 13, 3), [bairro], ['seasonal', 'night', 'live-music'], 'Free',
      { en: 'Bairro Alto streets hung with garlands, grills and dance floors.',
        pt: 'As ruas do Bairro Alto enfeitadas com bandeirinhas, fogareiros e pistas de dança.',
        es: 'Las calles del Bairro Alto engalanadas con guirnaldas, parrillas y pistas de baile.' });
    ev('sao-joao', { en: 'Arraial de São João na Graça', pt: 'Arraial de São João na Graça', es: 'Verbena de San Juan en Graça' }, 'festival', lisbon(y, 6, 23, 19), lisbon(y, 6, 24, 2), [graca], ['seasonal', 'outdoor', 'night'], 'Free',
      { en: 'A neighbourhood arraial for São João with views over the city.',
        pt: 'Um arraial de bairro pelo São João, com vista sobre a cidade.',
        es: 'Una verbena de barrio por San Juan con vistas sobre la ciudad.' });
    ev('sardinhas', { en: 'Sardine Festival', pt: 'Festival da Sardinha', es: 'Festival de la sardina' }, 'food', lisbon(y, 6, 20, 12), lisbon(y, 6, 21, 23), [mm], ['food', 'outdoor', 'family-friendly'], '€5',
      { en: 'Grilled sardines on bread, sangria and live bands at Martim Moniz.',
        pt: 'Sardinha assada no pão, sangria e bandas ao vivo no Martim Moniz.',
        es: 'Sardinas asadas sobre pan, sangría y grupos en directo en Martim Moniz.' });
    ev('sao-pedro', { en: 'Arraial de São Pedro', pt: 'Arraial de São Pedro', es: 'Verbena de San Pedro' }, 'festival', lisbon(y, 6, 28, 19), lisbon(y, 6, 29, 1), [alfama], ['seasonal', 'outdoor'], 'Free',
      { en: 'The last arraial of the Festas closes June in Alfama.', pt: 'O último arraial das Festas encerra o mês de junho em Alfama.',
        es: 'La última verbena de las Fiestas cierra junio en Alfama.' });
  }

  // Exhibitions: one opens about every three weeks; two long ones span several months.
  const venues = pool(index, 'main', ['museums_art', 'museums_hist']);
  const THEMES: Tr[] = [
    { en: 'Azulejo Now', pt: 'Azulejo Agora', es: 'Azulejo hoy' },
    { en: 'Portugal in Photographs', pt: 'Portugal em Fotografias', es: 'Portugal en fotografías' },
    { en: 'Cartography of the Discoveries', pt: 'Cartografia dos Descobrimentos', es: 'Cartografía de los Descubrimientos' },
    { en: 'Modernist Lisbon', pt: 'Lisboa Modernista', es: 'Lisboa modernista' },
    { en: 'Women of Portuguese Art', pt: 'Mulheres na Arte Portuguesa', es: 'Mujeres del arte portugués' },
    { en: 'The Tagus River', pt: 'O Rio Tejo', es: 'El río Tajo' },
    { en: 'Fado: Voices of the City', pt: 'Fado: Vozes da Cidade', es: 'Fado: voces de la ciudad' },
    { en: 'Design from Lusophone Africa', pt: 'Design da África Lusófona', es: 'Diseño del África lusófona' },
    { en: 'Tram Lines: A Century of Carris', pt: 'Linhas de Elétrico: Um Século de Carris', es: 'Líneas de tranvía: un siglo de Carris' },
    { en: 'Sea Monsters and Maps', pt: 'Monstros Marinhos e Mapas', es: 'Monstruos marinos y mapas' },
    { en: 'Contemporary Ceramics', pt: 'Cerâmica Contemporânea', es: 'Cerámica contemporánea' },
    { en: 'The Baroque Gold Rush', pt: 'A Febre do Ouro Barroco', es: 'La fiebre del oro barroco' },
    { en: 'Street Art in Lisbon', pt: 'Arte Urbana em Lisboa', es: 'Arte urbano en Lisboa' },
    { en: 'Pessoa and His Heteronyms', pt: 'Pessoa e os Seus Heterónimos', es: 'Pessoa y sus heterónimos' },
    { en: 'Coaches of the Royal House', pt: 'Coches da Casa Real', es: 'Carruajes de la Casa Real' },
    { en: 'Silk Road Treasures', pt: 'Tesouros da Rota da Seda', es: 'Tesoros de la Ruta de la Seda' },
  ];
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
      map: 'main', key: `exhibition:${n}`, title: theme, type: 'exhibition', start: lisbon(y, m, d, 10), end,
      pois: [venue], tags: ['art', pick(r, ['accessible', 'family-friendly', 'free'] as const)], price: pick(r, ['€8', '€10', '€12', 'Free']),
      desc: fill({ en: `A ${weeks}-week exhibition at {venue}.`, pt: `Uma exposição de ${weeks} semanas em {venue}.`,
        es: `Una exposición de ${weeks} semanas en {venue}.` }, { venue: venue.label }),
    }));
    n++;
  }
  const azulejo = find('main', 'Museu Nacional do Azulejo');
  out.push(makeEvent(r, {
    map: 'main', key: 'exhibition:azulejo-five-centuries', type: 'exhibition',
    title: { en: 'Azulejo: Five Centuries of Portuguese Tiles', pt: 'Azulejo: Cinco Séculos de Azulejaria Portuguesa', es: 'Azulejo: cinco siglos de azulejería portuguesa' },
    start: lisbon(2026, 11, 14, 10), end: lisbon(2027, 4, 25, 18), pois: [azulejo], tags: ['art', 'accessible'], price: '€10',
    desc: { en: 'A landmark survey of the painted tile, from Moorish geometry to contemporary facades.',
      pt: 'Uma grande retrospetiva do azulejo pintado, da geometria mourisca às fachadas contemporâneas.',
      es: 'Un gran recorrido por el azulejo pintado, de la geometría morisca a las fachadas contemporáneas.' },
  }));
  const story = find('main', 'Lisboa Story Centre');
  const comercio = find('main', 'Praça do Comércio');
  out.push(makeEvent(r, {
    map: 'main', key: 'exhibition:lisbon-1755', type: 'exhibition',
    title: { en: 'Lisbon 1755: The Earthquake and the New City', pt: 'Lisboa 1755: O Terramoto e a Nova Cidade', es: 'Lisboa 1755: el terremoto y la nueva ciudad' },
    start: lisbon(2027, 9, 18, 10), end: lisbon(2028, 2, 27, 18), pois: [story, comercio, find('main', 'Baixa Pombalina', 'polygon')],
    tags: ['art', 'family-friendly', 'kids'], price: '€12',
    desc: { en: 'How the 1755 earthquake destroyed Lisbon and how the Pombaline Baixa rose from the ruins.',
      pt: 'Como o terramoto de 1755 destruiu Lisboa e como a Baixa Pombalina nasceu das ruínas.',
      es: 'Cómo el terremoto de 1755 destruyó Lisboa y cómo la Baixa pombalina surgió de las ruinas.' },
  }));
  return out;
}
