/**
 * Search by name (`q`): a text matches when every word of the query begins a word of the text, compared
 * case- and accent-insensitively ("jeronimos" finds "Mosteiro dos Jerónimos", "mos jer" too). Texts are folded
 * once into one string of words, each preceded by a space, so a test is one `includes` per query word.
 */

/**
 * The marks folding drops, after compatibility decomposition (NFKD): accents, which readers drop without
 * changing the word, and no mark that is part of a letter. Dropped: the combining diacritical blocks
 * (U+0300–036F, U+1AB0–1AFF, U+1DC0–1DFF, U+20D0–20FF, U+FE20–FE2F: Latin, Greek and Cyrillic accents,
 * "Jerónimos" and "Ακρόπολη" alike), Hebrew points and cantillation (niqqud, U+0591–05C7 but its punctuation),
 * Arabic harakat, Quranic annotation marks and the tatweel (U+0610–061A, U+0640, U+064B–065F, U+0670,
 * U+06D6–06ED but its signs and small letters), all usually left out in writing, and variation selectors
 * (U+FE00–FE0F, U+E0100–E01EF), which choose a glyph. Every other mark stays, because it tells words apart:
 * Japanese voicing marks (バス "bus" is not ハス "lotus"), Indic vowel signs and viramas (हिन्दी is not हनद),
 * Thai vowels and tone marks.
 */
const DROPPED_MARKS =
  /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0610-\u061a\u0640\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed\ufe00-\ufe0f\u{e0100}-\u{e01ef}]+/gu;

/**
 * Folds a text: compatibility-decomposed (NFKD: half-width ﾊﾞｽ becomes バス, ligatures and full-width letters
 * plain ones), lowercased, accents dropped (DROPPED_MARKS), then composed again (NFC), so a kept mark stays
 * part of its letter: a query's バ must not begin ハ as a bare ハ would, and Hangul syllables, decomposed
 * into jamo by NFKD, are whole syllables again on both sides. Final sigma is σ, as Unicode case folding has it,
 * so "ΟΔΟΣ" typed as a prefix still begins "οδοστρωτήρας".
 */
export function fold(text: string): string {
  return text.normalize('NFKD').toLowerCase().replace(DROPPED_MARKS, '').normalize('NFC').replace(/ς/g, 'σ');
}

/** The folded words of a text: its runs of letters and digits, with the marks kept on them (vowel signs, viramas). */
export function foldedWords(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu) ?? [];
}

/** A text made searchable: its folded words, each after a space. */
export function searchable(text: string): string {
  return ` ${foldedWords(text).join(' ')}`;
}

/** True when every query word (folded) begins a word of the searchable text. */
export function matchesQuery(searchableText: string, queryWords: readonly string[]): boolean {
  for (const word of queryWords) if (!searchableText.includes(` ${word}`)) return false;
  return true;
}

/** Words of a query at most. */
export const MAX_QUERY_WORDS = 10;
/** Characters of a query at most. */
export const MAX_QUERY_LENGTH = 200;
