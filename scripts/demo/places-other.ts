/** Lisbon parks, shops, hotels, transport, plus version-limited places: [name, lat, lng, 'categoryKeys'] */
import type { Place } from './places-sights.ts';

export const PARKS: Place[] = [
  ['Jardim do Príncipe Real', 38.7165, -9.1485, 'gardens'],
  ['Jardim Gulbenkian', 38.7380, -9.1540, 'gardens'],
  ['Jardim Botânico Tropical', 38.6985, -9.2035, 'gardens'],
  ['Jardim da Praça do Império', 38.6960, -9.2065, 'gardens'],
  ['Jardim Amália Rodrigues', 38.7318, -9.1560, 'gardens|parks'],
  ['Jardim Zoológico de Lisboa', 38.7425, -9.1697, 'parks'],
  ['Estufa Fria', 38.7290, -9.1545, 'gardens'],
  ['Jardim do Campo Grande', 38.7560, -9.1520, 'parks'],
  ['Parque do Tejo', 38.7820, -9.0930, 'parks'],
  ['Jardim Garcia de Orta', 38.7590, -9.0940, 'gardens'],
  ['Jardim da Cerca da Graça', 38.7170, -9.1305, 'gardens|miradouros'],
  ['Tapada da Ajuda', 38.7080, -9.1880, 'parks'],
  ['Jardim Botânico da Ajuda', 38.7060, -9.2000, 'gardens'],
  ['Parque da Bela Vista', 38.7530, -9.1190, 'parks'],
  ['Jardim Constantino', 38.7315, -9.1360, 'gardens'],
  ['Jardim do Arco do Cego', 38.7370, -9.1425, 'gardens'],
  ['Jardim Vasco da Gama', 38.6962, -9.2010, 'gardens'],
  ['Quinta das Conchas', 38.7680, -9.1500, 'parks'],
  ['Jardim 9 de Abril', 38.7045, -9.1610, 'gardens|miradouros'],
];

export const SHOPS: Place[] = [
  ['Livraria Bertrand Chiado', 38.7108, -9.1418, 'shops'],
  ['A Vida Portuguesa Chiado', 38.7104, -9.1414, 'shops|crafts'],
  ['A Vida Portuguesa Intendente', 38.7215, -9.1353, 'shops|crafts'],
  ['Conserveira de Lisboa', 38.7092, -9.1338, 'shops|crafts'],
  ['Luvaria Ulisses', 38.7117, -9.1409, 'shops|crafts'],
  ['Armazéns do Chiado', 38.7108, -9.1396, 'malls'],
  ['Embaixada Concept Store', 38.7164, -9.1490, 'shops'],
  ['Loja das Conservas', 38.7079, -9.1397, 'shops|crafts'],
  ['Chapelaria Azevedo Rua', 38.7138, -9.1391, 'shops|crafts'],
  ['LX Factory', 38.7035, -9.1785, 'shops|markets'],
  ['Ler Devagar', 38.7033, -9.1791, 'shops'],
  ['Centro Colombo', 38.7545, -9.1890, 'malls'],
  ['El Corte Inglés Lisboa', 38.7340, -9.1540, 'malls'],
  ['Amoreiras Shopping Center', 38.7235, -9.1620, 'malls'],
  ['Centro Vasco da Gama', 38.7675, -9.0975, 'malls'],
  ['Garrafeira Nacional', 38.7119, -9.1380, 'shops'],
  ['Cortiço & Netos', 38.7168, -9.1355, 'shops|crafts'],
  ['Claus Porto Chiado', 38.7107, -9.1411, 'shops|crafts'],
  ['Retrosaria Bijou', 38.7111, -9.1370, 'shops|crafts'],
];

export const HOTELS: Place[] = [
  ['Pestana Palace Lisboa', 38.7055, -9.1850, 'hotels|luxury'],
  ['Four Seasons Hotel Ritz Lisbon', 38.7285, -9.1560, 'hotels|luxury'],
  ['Bairro Alto Hotel', 38.7103, -9.1435, 'hotels|luxury'],
  ['Memmo Alfama', 38.7107, -9.1316, 'hotels'],
  ['Palácio Belmonte', 38.7125, -9.1322, 'hotels|luxury'],
  ['Tivoli Avenida Liberdade', 38.7200, -9.1450, 'hotels|luxury'],
  ['Altis Belém Hotel', 38.6937, -9.2033, 'hotels'],
  ['Olissippo Lapa Palace', 38.7080, -9.1600, 'hotels|luxury'],
  ['Hotel Avenida Palace', 38.7149, -9.1413, 'hotels'],
  ['The Lumiares', 38.7138, -9.1455, 'hotels'],
  ['Santiago de Alfama', 38.7115, -9.1325, 'hotels'],
  ['Verride Palácio Santa Catarina', 38.7098, -9.1478, 'hotels|luxury'],
  ['Hotel Mundial', 38.7162, -9.1363, 'hotels'],
  ['Myriad by SANA', 38.7705, -9.0935, 'hotels|luxury'],
  ['Sheraton Lisboa', 38.7315, -9.1477, 'hotels'],
];

export const TRANSPORT: Place[] = [
  ['Estação do Rossio', 38.7141, -9.1411, 'stations|heritage'],
  ['Estação de Santa Apolónia', 38.7138, -9.1225, 'stations'],
  ['Estação do Cais do Sodré', 38.7059, -9.1445, 'stations'],
  ['Gare do Oriente', 38.7679, -9.0991, 'stations'],
  ['Terminal Fluvial do Cais do Sodré', 38.7054, -9.1437, 'stations'],
  ['Estação Fluvial Terreiro do Paço', 38.7068, -9.1338, 'stations'],
  ['Aeroporto Humberto Delgado', 38.7742, -9.1342, 'stations'],
  ['Elevador da Glória', 38.7153, -9.1428, 'elevadores|heritage'],
  ['Elevador da Bica', 38.7088, -9.1468, 'elevadores|heritage'],
  ['Elevador do Lavra', 38.7183, -9.1404, 'elevadores'],
  ['Metro Baixa-Chiado', 38.7106, -9.1395, 'stations'],
  ['Metro Marquês de Pombal', 38.7255, -9.1495, 'stations'],
  ['Estação de Belém', 38.6963, -9.2013, 'stations'],
  ['Terminal Rodoviário de Sete Rios', 38.7415, -9.1670, 'stations'],
  ['Tram 28 stop – Martim Moniz', 38.7160, -9.1362, 'tram28'],
  ['Tram 28 stop – Largo da Graça', 38.7170, -9.1310, 'tram28'],
  ['Tram 28 stop – Miradouro de Santa Luzia', 38.7115, -9.1308, 'tram28'],
  ['Tram 28 stop – Sé', 38.7097, -9.1340, 'tram28'],
  ['Tram 28 stop – Rua da Conceição', 38.7103, -9.1375, 'tram28'],
  ['Tram 28 stop – Largo Camões', 38.7105, -9.1435, 'tram28'],
  ['Tram 28 stop – Estrela', 38.7130, -9.1598, 'tram28'],
  ['Tram 28 stop – Prazeres', 38.7160, -9.1680, 'tram28'],
];

/** Only in the 2026 edition (category new2026 is itself 2026-only). */
export const ONLY_2026: Place[] = [
  ['Museu de Arte Popular', 38.6948, -9.2090, 'new2026|museums_art'],
  ['Hub Criativo do Beato', 38.7330, -9.1030, 'new2026|shops'],
  ['Fábrica Braço de Prata', 38.7475, -9.1045, 'new2026|livemusic'],
  ['Museu Judaico de Lisboa', 38.7113, -9.1298, 'new2026|museums_hist'],
  ['Quake – Lisbon Earthquake Museum', 38.7000, -9.1950, 'new2026|museums_hist'],
  ['Museu de Lisboa – Santo António', 38.7100, -9.1334, 'new2026|museums_hist'],
  ['Underdogs Gallery', 38.7365, -9.1000, 'new2026|museums_art'],
  ['Carpintarias de São Lázaro', 38.7198, -9.1363, 'new2026|museums_art'],
  ['Atelier-Museu Júlio Pomar', 38.7110, -9.1515, 'new2026|museums_art'],
  ['Estação Sul e Sueste', 38.7075, -9.1320, 'new2026|stations'],
];

/** Only in the 2025 edition (closed or moved since). */
export const ONLY_2025: Place[] = [
  ['Pastelaria Suíça', 38.7143, -9.1392, 'cafes|nata'],
  ['Museu da Electricidade', 38.6960, -9.1945, 'museums_hist'],
  ['Livraria Portugal', 38.7112, -9.1395, 'shops'],
  ['Ginjinha Rubi', 38.7137, -9.1380, 'bars'],
  ['Feira Popular de Entrecampos', 38.7465, -9.1480, 'parks'],
];

/** Only in the 2027 draft. */
export const ONLY_DRAFT: Place[] = [
  ['(draft) Rooftop at Hotel Mundial', 38.7163, -9.1365, 'draftRooftops|bars'],
  ['(draft) Rooftop at Lumiares', 38.7139, -9.1454, 'draftRooftops|bars'],
  ['(draft) Rooftop at Tivoli Sky Bar', 38.7201, -9.1451, 'draftRooftops|bars'],
];
