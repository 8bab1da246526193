/** Places of the smaller maps: Sintra & Cascais, Sintra Christmas Village, Lisbon Food & Markets. */
import type { Place } from './places-sights.ts';

export const SINTRA: Place[] = [
  ['Palácio da Pena', 38.7876, -9.3906, 'palaces'],
  ['Castelo dos Mouros', 38.7925, -9.3894, 'palaces|viewpoints'],
  ['Quinta da Regaleira', 38.7963, -9.3961, 'palaces'],
  ['Palácio Nacional de Sintra', 38.7975, -9.3906, 'palaces'],
  ['Palácio de Monserrate', 38.7935, -9.4200, 'palaces|gardens_s'],
  ['Convento dos Capuchos', 38.7840, -9.4320, 'palaces'],
  ['Chalet da Condessa d\'Edla', 38.7855, -9.3945, 'palaces|gardens_s'],
  ['Santuário da Peninha', 38.7690, -9.4590, 'viewpoints'],
  ['Cabo da Roca', 38.7804, -9.4989, 'viewpoints|coast'],
  ['Praia da Ursa', 38.7886, -9.4958, 'coast'],
  ['Azenhas do Mar', 38.8400, -9.4610, 'coast|viewpoints'],
  ['Praia do Guincho', 38.7303, -9.4728, 'coast'],
  ['Farol do Cabo Raso', 38.7093, -9.4855, 'coast'],
  ['Boca do Inferno', 38.6913, -9.4306, 'coast|viewpoints'],
  ['Cidadela de Cascais', 38.6925, -9.4210, 'palaces'],
  ['Casa das Histórias Paula Rego', 38.6920, -9.4245, 'palaces'],
  ['Piriquita', 38.7978, -9.3895, 'food_s'],
];

export const XMAS: Place[] = [
  ['Christmas Market – Largo Rainha D. Amélia', 38.7975, -9.3899, 'xmas'],
  ['Santa\'s House – Volta do Duche', 38.7990, -9.3865, 'xmas'],
  ['Ice Rink – Parque da Liberdade', 38.7985, -9.3875, 'xmas'],
  ['Nativity Scene – Igreja de São Martinho', 38.7978, -9.3915, 'xmas'],
];

/** Food map markers: names re-used from the main map's food places, own category keys. */
export const FOOD_MAP: Array<readonly [string, string]> = [
  ['Pastéis de Belém', 'f_pastry'],
  ['Manteigaria Chiado', 'f_pastry'],
  ['Confeitaria Nacional', 'f_pastry'],
  ['Fábrica da Nata', 'f_pastry'],
  ['Pastelaria Aloma', 'f_pastry'],
  ['Cervejaria Ramiro', 'f_rest|f_seafood'],
  ['Taberna da Rua das Flores', 'f_rest'],
  ['O Trevo', 'f_rest'],
  ['Zé da Mouraria', 'f_rest'],
  ['Gambrinus', 'f_rest|f_seafood'],
  ['Time Out Market (Mercado da Ribeira)', 'f_market|f_rest'],
  ['Mercado de Campo de Ourique', 'f_market'],
  ['Mercado de Arroios', 'f_market'],
  ['Mercado 31 de Janeiro', 'f_market'],
  ['Mercado de Fusão (Martim Moniz)', 'f_market'],
  ['A Ginjinha Espinheira', 'f_rest'],
];
