/**
 * Language negotiation: which language an answer is written in. A `lang` query parameter, else the
 * Accept-Language header (with q-values), is matched against the languages offered (a map's, or for an answer
 * not about one map, every map's) by negotiator (RFC 4647-style: an exact tag first, then a region tag to its
 * base language, `pt-BR` → `pt`, or a base language to a regional one offered); when nothing offered fits, the
 * default language is served. `langs=all` asks for every language instead: each text is then an object keyed
 * by language tag.
 */
import Negotiator from 'negotiator';
import * as v from 'valibot';
import { canonicalTag, type Languages } from '../content/model/local-text.ts';
import { sharedLanguages, type ReadModel } from '../content/model/read-model.ts';

const TAG_REASON = 'must be a BCP 47 language tag such as "pt" or "pt-BR"';

/** The query parameters of every route that serves human-readable text. */
export const languageQuery = {
  lang: v.optional(v.pipe(
    v.string(),
    v.check((tag) => canonicalTag(tag) !== null, TAG_REASON),
    v.transform((tag) => canonicalTag(tag)!),
    v.description('The language to answer in, a BCP 47 tag (overrides Accept-Language). A language not offered falls back ' +
      'to its base language, then to the map\'s default language; Content-Language says which was served'),
  )),
  langs: v.optional(v.pipe(
    v.picklist(['all'], 'must be all'),
    v.description('`all`: every text as an object keyed by language tag, with each language it has'),
  )),
};

/**
 * The language to serve from `languages`: the best offered match of `lang` if given, else of `acceptLanguage`,
 * else the default. Never fails: an unmatched or malformed preference gets the default language.
 */
export function negotiateLanguage(languages: Languages, lang: string | undefined, acceptLanguage: string | null): string {
  const preference = lang ?? acceptLanguage;
  if (preference !== null && preference.trim() !== '') {
    const [best] = new Negotiator({ headers: { 'accept-language': preference } }).languages([...languages.offered]);
    if (best !== undefined) return best;
  }
  return languages.default;
}

/** The language an answer is written in: a tag, or null for every language (`langs=all`). */
export type ServedLanguage = string | null;

/**
 * The language choice of one request. A handler that knows which map its answer is about calls `forMap`
 * before writing text itself (event records are written as bytes); otherwise the app decides after the handler.
 */
export class LanguageChoice {
  private readonly lang: string | undefined;
  private readonly all: boolean;
  private readonly acceptLanguage: string | null;
  private readonly model: ReadModel;
  /** What was decided: the language served (null: all) and the languages it was chosen from. */
  decided: { lang: ServedLanguage; from: Languages } | null = null;

  constructor(model: ReadModel, query: { lang?: string; langs?: 'all' }, acceptLanguage: string | null) {
    this.model = model;
    this.lang = query.lang;
    this.all = query.langs === 'all';
    this.acceptLanguage = acceptLanguage;
  }

  /** Negotiates against a map's languages (an enabled or disabled map of the content); the content's when unknown. */
  forMap(mapId: string): ServedLanguage {
    return this.decide(this.model.languages.get(mapId) ?? this.model.contentLanguages);
  }

  /**
   * Negotiates against the languages of several maps (a batch of POIs, a publisher's maps): those they all
   * offer (`sharedLanguages`), so the answer is in one language; the content's when there are no maps.
   */
  forMaps(mapIds: Iterable<string>): ServedLanguage {
    const languages = [...new Set(mapIds)].map((id) => this.model.languages.get(id)).filter((l) => l !== undefined);
    return this.decide(languages.length > 0 ? sharedLanguages(languages) : this.model.contentLanguages);
  }

  /** Negotiates against every language of the content (answers about no map in particular: icons). */
  forContent(): ServedLanguage {
    return this.decide(this.model.contentLanguages);
  }

  private decide(from: Languages): ServedLanguage {
    if (!this.decided) this.decided = { lang: this.all ? null : negotiateLanguage(from, this.lang, this.acceptLanguage), from };
    return this.decided.lang;
  }

  /** The Content-Language header: the language served, or every language offered for `langs=all`. */
  get contentLanguage(): string {
    const { lang, from } = this.decided!;
    return lang ?? from.offered.join(', ');
  }
}

const LANG_PARAM_RE = /[?&]langs?=/;

/**
 * What a cache key adds for the language: the Accept-Language header as sent, unless the target names the
 * language itself (`lang` or `langs`), which the key already holds. Two requests with the same key get the
 * same language, so one never gets an answer made for another.
 */
export function languageKey(target: string, acceptLanguage: string | null): string {
  if (acceptLanguage === null || LANG_PARAM_RE.test(target)) return '';
  return `\u0000${acceptLanguage.trim()}`;
}
