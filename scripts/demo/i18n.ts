/**
 * The demo's languages: every map speaks English (its default, so clients that ask for nothing read what they
 * read before languages came) and Portuguese; the Lisbon City Guide speaks Spanish too. Texts are written as
 * `{en, pt, es}` and put in the bundle in the languages of their map. Proper names (a restaurant, a church)
 * are the same in every language and stay plain strings.
 */
import type { MapKey } from './taxonomy.ts';

export type Lang = 'en' | 'pt' | 'es';

/** A text in English and Portuguese, and in Spanish where the main map needs it. */
export interface Tr { en: string; pt: string; es?: string }

/** The languages of each map, its default first. */
export const LANGUAGES: Record<MapKey, Lang[]> = { main: ['en', 'pt', 'es'], food: ['en', 'pt'], sintra: ['en', 'pt'], xmas: ['en', 'pt'] };

/** Every language of the demo: what publishers and icons, which belong to no one map, are written in. */
export const ALL_LANGUAGES: Lang[] = ['en', 'pt', 'es'];

/** A text in the languages of a map (or a list of languages), as the bundle holds it; a missing translation is a bug. */
export function text(map: MapKey | readonly Lang[], tr: Tr): Record<string, string> {
  const langs = typeof map === 'string' ? LANGUAGES[map] : map;
  const out: Record<string, string> = {};
  for (const lang of langs) {
    const s = tr[lang];
    if (s === undefined) throw new Error(`no ${lang} text for "${tr.en}"`);
    out[lang] = s;
  }
  return out;
}

/** A proper name: the same in every language. */
export const same = (s: string): Tr => ({ en: s, pt: s, es: s });

/** A name as the bundle holds it: a plain string when it is the same in every language, else the text of its map. */
export function nameText(map: MapKey, tr: Tr): string | Record<string, string> {
  return tr.pt === tr.en && (tr.es === undefined || tr.es === tr.en) ? tr.en : text(map, tr);
}

/** Fills `{name}` placeholders in each language with the text of that language. */
export function fill(tr: Tr, vars: Record<string, Tr>): Tr {
  const one = (lang: Lang): string | undefined => {
    const s = tr[lang];
    if (s === undefined) return undefined;
    return s.replace(/\{(\w+)\}/g, (_, key: string) => {
      const v = vars[key];
      if (!v) throw new Error(`no value for {${key}} in "${tr.en}"`);
      return v[lang] ?? v.en;
    });
  };
  return { en: one('en')!, pt: one('pt')!, ...(tr.es !== undefined ? { es: one('es') } : {}) };
}
