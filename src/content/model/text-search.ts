/**
 * Search by name (`q`): a text matches when every word of the query begins a word of the text, compared
 * case- and accent-insensitively ("jeronimos" finds "Mosteiro dos Jerónimos", "mos jer" too). Texts are folded
 * once into one string of words, each preceded by a space, so a test is one `includes` per query word.
 */

/** Folds a text: compatibility-decomposed, combining marks dropped, lowercased ("Jerónimos" → "jeronimos"). */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** The folded words of a text: its runs of letters and digits. */
export function foldedWords(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
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
