/**
 * Polygons: [name, map, categoryKeys, outer ring, holes, version?]. Rings are written open and in any
 * winding; geometry.ts closes them and fixes the winding (outer counter-clockwise, holes clockwise).
 */
import type { Pos } from './routes.ts';

export type Area = readonly [string, 'main' | 'sintra', string, Pos[], Pos[][], ('2025' | undefined)?];

export const AREAS: Area[] = [
  ['Parque Eduardo VII', 'main', 'parks|districts', [
    [-9.1510, 38.7262], [-9.1492, 38.7272], [-9.1520, 38.7300], [-9.1540, 38.7328], [-9.1558, 38.7340],
    [-9.1578, 38.7330], [-9.1570, 38.7305], [-9.1545, 38.7280], [-9.1525, 38.7262]],
  [[[-9.1535, 38.7291], [-9.1535, 38.7299], [-9.1525, 38.7299], [-9.1525, 38.7291]]]],
  ['Jardim da Estrela', 'main', 'gardens', [
    [-9.1612, 38.7150], [-9.1605, 38.7130], [-9.1585, 38.7127], [-9.1572, 38.7138], [-9.1578, 38.7155],
    [-9.1600, 38.7160]], []],
  ['Parque Florestal de Monsanto', 'main', 'parks', [
    [-9.2200, 38.7250], [-9.2100, 38.7100], [-9.1950, 38.7140], [-9.1800, 38.7230], [-9.1780, 38.7350],
    [-9.1850, 38.7450], [-9.2000, 38.7480], [-9.2150, 38.7400]],
  [[[-9.1990, 38.7290], [-9.1960, 38.7330], [-9.1920, 38.7310], [-9.1940, 38.7270]]]],
  ['Alfama', 'main', 'districts|heritage', [
    [-9.1345, 38.7100], [-9.1300, 38.7095], [-9.1255, 38.7120], [-9.1265, 38.7140], [-9.1300, 38.7140],
    [-9.1330, 38.7125]], []],
  ['Bairro Alto', 'main', 'districts|bars', [
    [-9.1475, 38.7100], [-9.1430, 38.7103], [-9.1425, 38.7140], [-9.1440, 38.7148], [-9.1480, 38.7140],
    [-9.1485, 38.7115]], []],
  ['Baixa Pombalina', 'main', 'districts|heritage', [
    [-9.1395, 38.7080], [-9.1340, 38.7080], [-9.1350, 38.7140], [-9.1380, 38.7145], [-9.1400, 38.7140],
    [-9.1410, 38.7100]], []],
  ['Belém', 'main', 'districts|manueline', [
    [-9.2180, 38.6905], [-9.1950, 38.6940], [-9.1950, 38.6990], [-9.2050, 38.7000], [-9.2150, 38.6975],
    [-9.2190, 38.6935]], []],
  ['Parque das Nações', 'main', 'districts|parks', [
    [-9.1000, 38.7520], [-9.0920, 38.7540], [-9.0890, 38.7700], [-9.0900, 38.7900], [-9.0960, 38.7900],
    [-9.1000, 38.7700]], []],
  ['Jardim Botânico de Lisboa', 'main', 'gardens', [
    [-9.1515, 38.7170], [-9.1490, 38.7165], [-9.1478, 38.7180], [-9.1490, 38.7195], [-9.1510, 38.7192],
    [-9.1520, 38.7182]], []],
  ['Jardim do Torel', 'main', 'gardens|miradouros', [
    [-9.1420, 38.7184], [-9.1408, 38.7183], [-9.1405, 38.7190], [-9.1415, 38.7194], [-9.1422, 38.7190]], []],
  ['Tapada das Necessidades', 'main', 'gardens', [
    [-9.1740, 38.7060], [-9.1700, 38.7050], [-9.1680, 38.7065], [-9.1690, 38.7085], [-9.1720, 38.7090],
    [-9.1742, 38.7078]], []],
  ['Feira Popular Grounds', 'main', 'parks', [
    [-9.1500, 38.7455], [-9.1480, 38.7450], [-9.1460, 38.7455], [-9.1455, 38.7475], [-9.1495, 38.7478]], [], '2025'],
  ['Parque da Pena', 'sintra', 'palaces|gardens_s', [
    [-9.3960, 38.7840], [-9.3860, 38.7850], [-9.3840, 38.7900], [-9.3900, 38.7935], [-9.3960, 38.7910]], []],
  ['Sintra Historic Centre', 'sintra', 'palaces', [
    [-9.3940, 38.7960], [-9.3870, 38.7965], [-9.3860, 38.8000], [-9.3920, 38.8005], [-9.3955, 38.7985]], []],
  ['Duna da Cresmina', 'sintra', 'coast', [
    [-9.4740, 38.7260], [-9.4660, 38.7250], [-9.4640, 38.7300], [-9.4700, 38.7340], [-9.4745, 38.7310]], []],
];

/** Signed area (shoelace, lng as x, lat as y): positive = counter-clockwise. */
export function signedArea(ring: Pos[]): number {
  let s = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x1, y1] = ring[i];
    const [x2, y2] = ring[(i + 1) % ring.length];
    s += x1 * y2 - x2 * y1;
  }
  return s / 2;
}

/** Closes a ring and orients it (ccw true = counter-clockwise). */
export function fixRing(ring: Pos[], ccw: boolean): Pos[] {
  const open = ring.slice();
  const f = open[0];
  const l = open[open.length - 1];
  if (f[0] === l[0] && f[1] === l[1]) open.pop();
  if ((signedArea(open) > 0) !== ccw) open.reverse();
  return [...open.map((p): Pos => [p[0], p[1]]), [open[0][0], open[0][1]]];
}

/** Ray-casting point-in-ring test. */
export function inRing(p: Pos, ring: Pos[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if ((yi > p[1]) !== (yj > p[1]) && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
