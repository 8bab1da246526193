/**
 * negotiateLanguage of src/http/language.ts over a table: CLDR best fit within the language asked for, languages
 * in the client's order (q-values, then header order), q=0 refusing, `*`, lang over the header, malformed input
 * to the default (docs: api-conventions.md, "Languages"). The HTTP-level cases are in tests/http/languages.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { negotiateLanguage } from '../src/http/language.ts';

/** Offered tags, the default first. */
const offer = (...offered: string[]) => ({ default: offered[0], offered });

/** [offered (default first), lang, Accept-Language, served]. */
const CASES: [string[], string | undefined, string | null, string][] = [
  // Nothing asked for: the default.
  [['pt', 'en'], undefined, null, 'pt'],
  [['pt', 'en'], undefined, '', 'pt'],
  [['pt', 'en'], undefined, '  ', 'pt'],
  // Exact tags, any case and spacing.
  [['pt', 'en', 'es'], undefined, 'es', 'es'],
  [['pt', 'en', 'es'], undefined, ' EN ', 'en'],
  [['pt', 'en-GB'], undefined, 'en-gb', 'en-GB'],
  // A longer tag is served the tag it shortens to (RFC 4647 lookup).
  [['el', 'zh-Hant'], 'zh-Hant-TW', null, 'zh-Hant'],
  [['el', 'zh-Hant'], undefined, 'zh-Hant-TW', 'zh-Hant'],
  [['pt', 'en'], 'pt-BR', null, 'pt'],
  [['en', 'pt'], undefined, 'en-u-ca-buddhist', 'en'],
  [['en', 'de'], undefined, 'de-DE-1996', 'de'],
  [['en', 'pt'], undefined, 'pt-x-lisbon', 'pt'],
  // Best fit within the language: the closest offered tag (CLDR's likely subtags and regions).
  [['el', 'pt-BR'], 'pt-PT', null, 'pt-BR'],
  [['en', 'pt-PT'], 'pt', null, 'pt-PT'],
  [['en', 'pt-PT', 'pt-BR'], 'pt', null, 'pt-BR'],
  [['en', 'pt-PT', 'pt-BR'], 'pt-AO', null, 'pt-PT'],
  [['pt', 'en-GB'], 'en', null, 'en-GB'],
  [['pt', 'en-US', 'en-GB'], 'en-IN', null, 'en-GB'],
  [['pt', 'en-GB', 'en-US'], 'en', null, 'en-US'],
  [['en', 'es-419', 'es-ES'], 'es-MX', null, 'es-419'],
  [['en', 'es-419', 'es-ES'], 'es', null, 'es-ES'],
  [['en', 'es-ES'], 'es-MX', null, 'es-ES'],
  [['en', 'zh-Hant', 'zh-Hans'], 'zh-TW', null, 'zh-Hant'],
  [['en', 'zh-Hant', 'zh-Hans'], 'zh-CN', null, 'zh-Hans'],
  [['en', 'zh-Hant', 'zh-Hans'], 'zh', null, 'zh-Hans'],
  [['en', 'zh-Hant', 'zh-Hans'], 'zh-SG', null, 'zh-Hans'],
  [['en', 'sr-Cyrl'], 'sr-Latn', null, 'sr-Cyrl'],
  [['en', 'sr-Latn'], 'sr', null, 'sr-Latn'],
  [['en', 'fr'], 'fr-CA', null, 'fr'],
  [['en', 'de-CH'], 'de-AT', null, 'de-CH'],
  [['en', 'pt'], 'pt-XX', null, 'pt'],
  // A script apart is no match (CLDR): the default, or the next language asked for.
  [['en', 'zh-Hans'], 'zh-TW', null, 'en'],
  [['el', 'zh-Hant'], 'zh', null, 'el'],
  [['en', 'zh'], 'zh-Hant', null, 'en'],
  [['ja', 'zh-Hans', 'en'], undefined, 'zh-Hant, en;q=0.5', 'en'],
  // Another language is never served, however close CLDR calls it.
  [['en', 'pt'], 'fr', null, 'en'],
  [['en', 'pt'], undefined, 'fr', 'en'],
  [['pt', 'en'], undefined, 'af', 'pt'],
  [['en', 'es'], undefined, 'ca', 'en'],
  [['en', 'fr'], undefined, 'br', 'en'],
  [['en', 'da'], undefined, 'nb', 'en'],
  [['en', 'nb'], undefined, 'no', 'en'],
  [['en', 'id'], undefined, 'ms', 'en'],
  [['en', 'de'], undefined, 'gsw', 'en'],
  // An alias is the same language (Intl canonicalizes it; Bun's Intl leaves some, such as tl for fil).
  [['en', 'he'], undefined, 'iw', 'he'],
  // q-values: the best-liked language with an offered tag wins, near match or not; ties keep header order.
  [['pt', 'en', 'es'], undefined, 'es;q=0.2, en;q=0.8', 'en'],
  [['pt', 'en', 'es'], undefined, 'fr, es;q=0.5', 'es'],
  [['en', 'pt-BR'], undefined, 'pt-PT, en;q=0.9', 'pt-BR'],
  [['el', 'pt-BR', 'en-GB'], undefined, 'en;q=0.5, pt-PT;q=0.6', 'pt-BR'],
  [['pt', 'en', 'es'], undefined, 'en;q=0.5, es;q=0.5', 'en'],
  [['pt', 'en', 'es'], undefined, 'es;q=0.5, en;q=0.5', 'es'],
  [['en-GB', 'pt'], undefined, 'en;q=0.5, pt;q=0.5', 'en-GB'],
  [['pt', 'en', 'es'], undefined, 'de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7', 'en'],
  // Within a language, CLDR weighs the client's tags of it in their order.
  [['en', 'pt-BR', 'pt'], undefined, 'pt-PT, pt-BR;q=0.9', 'pt-BR'],
  [['pt', 'en-AU', 'en-US'], undefined, 'en-GB, fr;q=0.9, en-US;q=0.8', 'en-AU'],
  // q=0 is never chosen: it refuses the tags it covers (itself and longer ones), and the next language is tried.
  [['pt', 'en', 'es'], undefined, 'en;q=0, es;q=0.1', 'es'],
  [['pt', 'en', 'es'], undefined, 'en;q=0', 'pt'],
  [['en', 'pt-BR', 'pt-PT'], undefined, 'pt;q=0, en;q=0.1', 'en'],
  [['en', 'pt-BR', 'pt-PT'], undefined, 'pt-PT;q=0, pt', 'pt-BR'],
  [['el', 'pt-BR'], undefined, 'pt-BR;q=0, pt-PT', 'el'],
  [['en', 'pt'], undefined, 'pt, pt;q=0', 'en'],
  [['en', 'pt'], undefined, 'pt;q=0.000', 'en'],
  // `*`: the default, else the first offered tag no other range names; `*;q=0` changes nothing.
  [['pt', 'en', 'es'], undefined, '*', 'pt'],
  [['pt', 'en', 'es'], undefined, 'de, *;q=0.1', 'pt'],
  [['en', 'pt'], undefined, 'en;q=0, *', 'pt'],
  [['en', 'pt', 'es'], undefined, '*, en;q=0.5', 'pt'],
  [['en', 'pt'], undefined, '*;q=0, pt', 'pt'],
  [['en', 'pt'], undefined, '*;q=0', 'en'],
  [['en', 'pt'], undefined, 'en;q=0, pt;q=0, *', 'en'],
  // lang wins over the header, even one that refuses it.
  [['pt', 'en', 'es'], 'es', 'en', 'es'],
  [['pt', 'en', 'es'], 'es', 'es;q=0', 'es'],
  [['pt', 'en', 'es'], 'ja', 'en', 'pt'],
  // Malformed: an entry is skipped, the rest still counts; nothing left is the default.
  [['pt', 'en', 'es'], undefined, ';;garbage,,', 'pt'],
  [['pt', 'en', 'es'], undefined, 'pt_BR', 'pt'],
  [['pt', 'en', 'es'], undefined, 'en;q=abc, es;q=0.5', 'es'],
  [['pt', 'en', 'es'], undefined, 'en;q=1.5, es;q=0.5', 'es'],
  [['pt', 'en', 'es'], undefined, 'en;q=-1, es;q=0.5', 'es'],
  [['pt', 'en', 'es'], undefined, 'en;q=, es;q=0.5', 'es'],
  [['pt', 'en', 'es'], undefined, 'en;q=0.12345, es;q=0.5', 'es'],
  [['pt', 'en', 'es'], undefined, 'x-klingon, en;q=0.5', 'en'],
  [['pt', 'en', 'es'], undefined, 'EN-gb;Q=0.9 , es ; q = 0.8', 'en'],
  [['pt', 'en', 'es'], undefined, 'es;level=1', 'es'],
  [['pt', 'en', 'es'], undefined, 'es;q=0.5;q=0', 'pt'],
];

test('negotiateLanguage: best fit within the language asked for, in the order asked, else the default', () => {
  for (const [offered, lang, header, served] of CASES) {
    assert.equal(negotiateLanguage(offer(...offered), lang, header), served, `${offered.join('/')} lang=${lang} Accept-Language: ${header}`);
  }
});

test('the same answers the second time (kept), for lang and header alike, and for a preference too long to keep', () => {
  for (let k = 0; k < 2; k++) {
    for (const [offered, lang, header, served] of CASES) assert.equal(negotiateLanguage(offer(...offered), lang, header), served);
  }
  const long = `${Array.from({ length: 60 }, (_, i) => `x${i}`).join(', ')}, pt-PT;q=0.5`;
  assert.ok(long.length > 256);
  for (let k = 0; k < 2; k++) assert.equal(negotiateLanguage(offer('el', 'pt-BR'), undefined, long), 'pt-BR');
  // The same tags with another default are another negotiation: what is kept is told apart by the default too.
  assert.equal(negotiateLanguage(offer('el', 'pt-BR'), undefined, 'fr'), 'el');
  assert.equal(negotiateLanguage(offer('pt-BR', 'el'), undefined, 'fr'), 'pt-BR');
});

test('a header of many made-up tags (unknown scripts, private regions, variants) still finds the tag offered', () => {
  const made = Array.from({ length: 300 }, (_, i) => `pt-Q${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x-QM-v${1000 + i}`);
  assert.equal(negotiateLanguage(offer('el', 'pt-BR'), undefined, made.join(',')), 'pt-BR');
  assert.equal(negotiateLanguage(offer('el', 'en'), undefined, `${made.join(',')}, en;q=0.1`), 'en');
});
