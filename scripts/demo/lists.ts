/** Curated lists and POI associations. */
import type { AssociationT, ListT } from '../../src/content/bundle/bundle-schema.ts';
import { MAP } from './ctx.ts';
import { type Rng, iso, uuid } from './ids.ts';
import type { PoiInfo } from './pois.ts';
import { finder } from './events-base.ts';
import type { MapKey } from './taxonomy.ts';
import { text, type Tr } from './i18n.ts';

type ListDef = readonly [string, MapKey, string, boolean, string, Array<string | readonly [string, string]>];

/** The Portuguese and Spanish of the lists' names, descriptions and notes (by their English; Spanish on the main map). */
const LIST_TR: Record<string, { pt: string; es?: string }> = {
  'Best Miradouros': { pt: 'Os Melhores Miradouros', es: 'Los mejores miradores' },
  'The viewpoints locals climb to at sunset.': { pt: 'Os miradouros onde os lisboetas sobem ao pôr do sol.', es: 'Los miradores a los que suben los lisboetas al atardecer.' },
  'Highest viewpoint; go at sunset': { pt: 'O miradouro mais alto; vá ao pôr do sol', es: 'El mirador más alto; vaya al atardecer' },
  'Tiles and bougainvillea': { pt: 'Azulejos e buganvílias', es: 'Azulejos y buganvillas' },
  'Quiet and off the tourist trail': { pt: 'Sossegado e fora dos roteiros turísticos', es: 'Tranquilo y lejos de las rutas turísticas' },
  'Pastéis de Nata Trail': { pt: 'Roteiro dos Pastéis de Nata', es: 'Ruta de los pastéis de nata' },
  'Taste the custard tart at its best addresses.': { pt: 'Prove o pastel de nata nas suas melhores moradas.', es: 'Pruebe el pastel de nata en sus mejores direcciones.' },
  'The original recipe since 1837': { pt: 'A receita original desde 1837', es: 'La receta original desde 1837' },
  'Watch them come out of the oven': { pt: 'Veja-os sair do forno', es: 'Véalos salir del horno' },
  'Award-winning nata': { pt: 'Pastel de nata premiado', es: 'Pastel de nata premiado' },
  'Rainy Day Museums': { pt: 'Museus para Dias de Chuva', es: 'Museos para días de lluvia' },
  'Big collections to fill a grey afternoon.': { pt: 'Grandes coleções para encher uma tarde cinzenta.', es: 'Grandes colecciones para llenar una tarde gris.' },
  'Do not miss the Lisbon panorama': { pt: 'Não perca o grande panorama de Lisboa', es: 'No se pierda el gran panorama de Lisboa' },
  'Fado Nights': { pt: 'Noites de Fado', es: 'Noches de fado' },
  'Where to hear fado, from tascas to grand houses.': { pt: 'Onde ouvir fado, das tascas às grandes casas.', es: 'Dónde escuchar fado, de las tascas a las grandes casas.' },
  'Start here to learn the history': { pt: 'Comece aqui para conhecer a história', es: 'Empiece aquí para conocer la historia' },
  'Fado vadio: anyone may sing': { pt: 'Fado vadio: qualquer pessoa pode cantar', es: 'Fado vadio: cualquiera puede cantar' },
  'Tram 28 Stops': { pt: 'Paragens do Elétrico 28', es: 'Paradas del tranvía 28' },
  'Hop on and off the most famous tram line.': { pt: 'Entre e saia na linha de elétrico mais famosa.', es: 'Suba y baje en la línea de tranvía más famosa.' },
  'The whole line end to end': { pt: 'A linha inteira, de ponta a ponta', es: 'La línea entera, de punta a punta' },
  'Terminus by the Prazeres cemetery': { pt: 'Terminal junto ao cemitério dos Prazeres', es: 'Final de línea junto al cementerio de los Prazeres' },
  "Editor's Picks (work in progress)": { pt: 'Escolhas da Redação (em preparação)', es: 'Selección de la redacción (en preparación)' },
  'Not reviewed yet.': { pt: 'Ainda não revista.', es: 'Todavía sin revisar.' },
  'Hidden Gems (unreviewed)': { pt: 'Tesouros Escondidos (por rever)', es: 'Joyas ocultas (sin revisar)' },
  'Suggestions from readers.': { pt: 'Sugestões dos leitores.', es: 'Sugerencias de los lectores.' },
  'Lisbon Food Essentials': { pt: 'Sabores Essenciais de Lisboa' },
  'Ten bites every visitor should try.': { pt: 'Dez sabores que todos os visitantes devem provar.' },
  'Palaces of Sintra in One Day': { pt: 'Os Palácios de Sintra num Dia' },
  'A classic day loop through the hills.': { pt: 'Um percurso clássico de um dia pela serra.' },
  'Christmas Village Highlights': { pt: 'O Melhor da Vila Natal' },
  'The best of the Christmas Village.': { pt: 'O melhor da Vila Natal de Sintra.' },
};
const listText = (map: MapKey, en: string): Record<string, string> => text(map, { en, ...LIST_TR[en] });

/** Association labels in every language (all the demo's associations are of the main map, but one). */
const LABELS: Record<string, Tr> = {
  Nearby: { en: 'Nearby', pt: 'Aqui perto', es: 'Cerca' },
  'Part of tour': { en: 'Part of tour', pt: 'Faz parte do percurso', es: 'Parte de la ruta' },
  'Same owner': { en: 'Same owner', pt: 'Do mesmo dono', es: 'Del mismo dueño' },
  'Also try': { en: 'Also try', pt: 'Experimente também', es: 'Pruebe también' },
};

const LIST_DEFS: ListDef[] = [
  ['best-miradouros', 'main', 'Best Miradouros', true, 'The viewpoints locals climb to at sunset.', [
    ['Miradouro da Senhora do Monte', 'Highest viewpoint; go at sunset'], 'Miradouro Sophia de Mello Breyner Andresen',
    ['Miradouro de Santa Luzia', 'Tiles and bougainvillea'], 'Miradouro das Portas do Sol', 'Miradouro de São Pedro de Alcântara',
    'Miradouro de Santa Catarina', ['Miradouro do Monte Agudo', 'Quiet and off the tourist trail'], 'Miradouro da Penha de França',
    'Miradouro do Torel', 'Panorâmico de Monsanto']],
  ['pasteis-de-nata-trail', 'main', 'Pastéis de Nata Trail', true, 'Taste the custard tart at its best addresses.', [
    ['Pastéis de Belém', 'The original recipe since 1837'], ['Manteigaria Chiado', 'Watch them come out of the oven'],
    'Confeitaria Nacional', 'Fábrica da Nata', 'Pastelaria Alcôa', ['Pastelaria Aloma', 'Award-winning nata'], 'Pastelaria Santo António']],
  ['rainy-day-museums', 'main', 'Rainy Day Museums', true, 'Big collections to fill a grey afternoon.', [
    'Museu Calouste Gulbenkian', ['Museu Nacional do Azulejo', 'Do not miss the Lisbon panorama'], 'Museu Nacional de Arte Antiga',
    'MAAT – Museu de Arte, Arquitetura e Tecnologia', 'Oceanário de Lisboa', 'Museu Nacional dos Coches', 'Museu de Marinha',
    'Pavilhão do Conhecimento', 'Museu do Oriente']],
  ['fado-nights', 'main', 'Fado Nights', true, 'Where to hear fado, from tascas to grand houses.', [
    ['Museu do Fado', 'Start here to learn the history'], 'Clube de Fado', ['Tasca do Chico', 'Fado vadio: anyone may sing'],
    'A Baiuca', 'Parreirinha de Alfama', 'O Faia', 'Mesa de Frades', 'Senhor Vinho']],
  ['tram-28-stops', 'main', 'Tram 28 Stops', true, 'Hop on and off the most famous tram line.', [
    ['Tram 28 Route', 'The whole line end to end'], 'Tram 28 stop – Martim Moniz', 'Tram 28 stop – Largo da Graça',
    'Tram 28 stop – Miradouro de Santa Luzia', 'Tram 28 stop – Sé', 'Tram 28 stop – Rua da Conceição', 'Tram 28 stop – Largo Camões',
    'Tram 28 stop – Estrela', ['Tram 28 stop – Prazeres', 'Terminus by the Prazeres cemetery']]],
  ['editors-picks-wip', 'main', "Editor's Picks (work in progress)", false, 'Not reviewed yet.', [
    'Cervejaria Ramiro', 'LX Factory', 'Jardim da Estrela', 'Pensão Amor', 'Palácio Fronteira']],
  ['hidden-gems-unreviewed', 'main', 'Hidden Gems (unreviewed)', false, 'Suggestions from readers.', [
    'Jardim do Torel', 'Casa-Museu Medeiros e Almeida', 'Miradouro da Rocha do Conde de Óbidos', 'Tasca da Esquina', 'Retrosaria Bijou']],
  ['food-essentials', 'food', 'Lisbon Food Essentials', true, 'Ten bites every visitor should try.', [
    'Pastéis de Belém', 'Manteigaria Chiado', 'Cervejaria Ramiro', 'O Trevo', 'Time Out Market (Mercado da Ribeira)',
    'Mercado de Campo de Ourique', 'Zé da Mouraria', 'A Ginjinha Espinheira']],
  ['sintra-palaces', 'sintra', 'Palaces of Sintra in One Day', true, 'A classic day loop through the hills.', [
    'Palácio Nacional de Sintra', 'Quinta da Regaleira', 'Castelo dos Mouros', 'Pena to Castelo dos Mouros Trail', 'Palácio da Pena', 'Parque da Pena']],
  ['xmas-highlights', 'xmas', 'Christmas Village Highlights', true, 'The best of the Christmas Village.', [
    'Christmas Market – Largo Rainha D. Amélia', "Santa's House – Volta do Duche", 'Ice Rink – Parque da Liberdade']],
];

export const listId = (key: string): string => uuid('list:' + key);

export function buildLists(r: Rng, index: PoiInfo[]): ListT[] {
  const find = finder(index);
  return LIST_DEFS.map(([key, map, name, verified, description, items], i) => {
    const l: ListT = {
      id: listId(key), map_id: MAP[map], name: listText(map, name), description: listText(map, description), verified,
      cover_image_url: `https://images.example.org/lists/${key}.jpg`,
      created_at: iso(Date.parse('2025-04-01T10:00:00Z') + i * 9 * 86_400_000 + Math.floor(r() * 3600) * 1000),
      items: items.map((it) => {
        const [poiName, note] = typeof it === 'string' ? [it, undefined] : it;
        const p = find(map, poiName);
        if (p.ver) throw new Error(`list ${key}: ${poiName} is version-limited`);
        return note ? { poi_id: p.id, note: listText(map, note) } : { poi_id: p.id };
      }),
    };
    return l;
  });
}

/** [from, to, label, mutual, listKey|null, sort_order] */
type AssocDef = readonly [string, string, string, boolean, string | null, number];

export function buildAssociations(index: PoiInfo[], lists: ListT[]): AssociationT[] {
  const find = finder(index);
  const defs: AssocDef[] = [];
  const main = index.filter((p) => p.map === 'main' && !p.ver);
  const nearest = (p: PoiInfo, k: number) => main.filter((q) => q.id !== p.id && q.kind === 'marker')
    .map((q) => [q, (q.lat - p.lat) ** 2 + ((q.lng - p.lng) * 0.78) ** 2] as const)
    .sort((a, b) => a[1] - b[1] || (a[0].id < b[0].id ? -1 : 1)).slice(0, k).map((x) => x[0]);

  // Hubs with several "Nearby" links; sort_order has a tie at 2 (broken by created_at).
  const hubs = ['Castelo de São Jorge', 'Mosteiro dos Jerónimos', 'Time Out Market (Mercado da Ribeira)', 'Torre de Belém',
    'Praça do Comércio', 'Museu Calouste Gulbenkian', 'Manteigaria Chiado'];
  hubs.forEach((h, hi) => {
    nearest(find('main', h, 'marker'), 4).forEach((q, k) =>
      defs.push([h, q.name, 'Nearby', (hi + k) % 3 === 0, null, k === 2 ? 2 : k + 1]));
  });
  // Tours: a path linked to the places along it.
  for (const s of ['Martim Moniz', 'Largo da Graça', 'Sé', 'Largo Camões', 'Estrela']) {
    defs.push(['Tram 28 Route', `Tram 28 stop – ${s}`, 'Part of tour', false, null, defs.length % 5]);
  }
  for (const s of ['Miradouro de Santa Luzia', 'Miradouro das Portas do Sol', 'Museu do Fado', 'Sé de Lisboa']) {
    defs.push(['Alfama Walk', s, 'Part of tour', s.startsWith('Miradouro'), null, 1]);
  }
  for (const s of ['Torre de Belém', 'Padrão dos Descobrimentos', 'MAAT – Museu de Arte, Arquitetura e Tecnologia']) {
    defs.push(['Belém Riverside Walk', s, 'Part of tour', false, null, 1]);
  }
  defs.push(['Alfama', 'Castelo de São Jorge', 'Part of tour', true, null, 1]);
  defs.push(['Belém', 'Mosteiro dos Jerónimos', 'Part of tour', true, null, 1]);
  // Same owner.
  defs.push(['Belcanto', 'Cantinho do Avillez', 'Same owner', true, null, 1]);
  defs.push(['Belcanto', 'Bairro do Avillez', 'Same owner', true, null, 2]);
  defs.push(['A Vida Portuguesa Chiado', 'A Vida Portuguesa Intendente', 'Same owner', true, null, 1]);
  defs.push(['Museu Calouste Gulbenkian', 'Centro de Arte Moderna Gulbenkian', 'Same owner', true, null, 0]);
  // Also try.
  for (const s of ['Pastéis de Belém', 'Fábrica da Nata', 'Pastelaria Aloma']) defs.push(['Manteigaria Chiado', s, 'Also try', false, null, 5]);
  defs.push(['Cervejaria Ramiro', 'Cervejaria Pinóquio', 'Also try', false, null, 1]);
  defs.push(['Clube de Fado', 'Parreirinha de Alfama', 'Also try', true, null, 1]);
  // List-scoped links: consecutive items of verified lists.
  const chain = (key: string, label: string, n: number, mutualEvery: number) => {
    const l = lists.find((x) => x.id === listId(key));
    if (!l) throw new Error(`list ${key} missing`);
    const names = l.items.map((it) => index.find((p) => p.id === it.poi_id)!.name);
    for (let i = 0; i < n && i + 1 < names.length; i++) defs.push([names[i], names[i + 1], label, i % mutualEvery === 0, key, i + 1]);
  };
  chain('pasteis-de-nata-trail', 'Also try', 4, 3);
  chain('fado-nights', 'Also try', 3, 2);
  chain('best-miradouros', 'Nearby', 3, 4);

  const seen = new Set<string>();
  const base = Date.parse('2025-05-01T09:00:00Z');
  const unique = defs.filter(([from, to, , , listKey]) => {
    const k = `${from}>${to}>${listKey}`;
    if (seen.has(k)) return false; // a hub's nearest neighbour may repeat an explicit link: keep the first
    seen.add(k);
    return true;
  });
  return unique.map(([from, to, label, mutual, listKey, sort], i) => {
    const a = find('main', from);
    const b = find('main', to);
    if (a.id === b.id || a.ver || b.ver) throw new Error(`bad association ${from} -> ${to}`);
    return {
      id: uuid(`association:${from}>${to}>${listKey ?? ''}`), poi_id: a.id, associated_poi_id: b.id, mutual,
      list_id: listKey ? listId(listKey) : null, label: text('main', LABELS[label]), sort_order: sort,
      created_at: iso(base + i * 3 * 86_400_000 + (i % 5) * 3_600_000),
    };
  });
}

/** The one association of the disabled Christmas map (never served). */
export function xmasAssociation(index: PoiInfo[]): AssociationT {
  const find = finder(index);
  const a = find('xmas', 'Christmas Market – Largo Rainha D. Amélia');
  const b = find('xmas', "Santa's House – Volta do Duche");
  return {
    id: uuid('association:xmas:market>santa'), poi_id: a.id, associated_poi_id: b.id, mutual: true,
    list_id: null, label: text('xmas', LABELS.Nearby), sort_order: 1, created_at: '2025-11-15T10:00:00Z',
  };
}
