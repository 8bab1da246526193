/**
 * Language negotiation: which language an answer is written in. A `lang` query parameter, else the
 * Accept-Language header, is matched against the languages offered (a map's, or for an answer not about one
 * map, every map's) by @formatjs/intl-localematcher's CLDR best fit, one language at a time in the client's
 * order: the first language the client likes (q-values, then header order) of which a tag is offered is served,
 * in the offered tag closest to what was asked (`zh-Hant-TW` → `zh-Hant`, `pt-PT` → `pt-BR`, `pt-BR` → `pt`).
 * Another language is never served, however close CLDR calls it (`ca` is not served `es`): when nothing
 * offered fits, the default language is. `langs=all` asks for every language instead: each text is then an
 * object keyed by language tag.
 */
import { match } from '@formatjs/intl-localematcher';
import * as v from 'valibot';
import { canonicalTag, type Languages } from '../content/model/local-text.ts';
import { Lru } from '../utils/lru.ts';
import { sharedLanguages, type ReadModel } from '../content/model/read-model.ts';

const TAG_REASON = 'must be a BCP 47 language tag such as "pt" or "pt-BR"';

/** The query parameters of every route that serves human-readable text. */
export const languageQuery = {
  lang: v.optional(v.pipe(
    v.string(),
    v.check((tag) => canonicalTag(tag) !== null, TAG_REASON),
    v.transform((tag) => canonicalTag(tag)!),
    v.description('The language to answer in, a BCP 47 tag (overrides Accept-Language). A tag not offered is served the ' +
      'closest offered tag of the same language by CLDR best fit (zh-Hant-TW gets zh-Hant, pt-PT gets pt-BR, pt-BR gets pt), ' +
      'else the map\'s default language; Content-Language says which was served'),
  )),
  langs: v.optional(v.pipe(
    v.picklist(['all'], 'must be all'),
    v.description('`all`: every text as an object keyed by language tag, with each language it has'),
  )),
};

/** The 400 of `langs=all` on a route whose answers are written in one language (RouteSpec.oneLanguage). */
export const ONE_LANGUAGE_ONLY = { name: 'langs', in: 'query', reason: 'is for JSON records; this answer is written in one language: ask for it with lang' } as const;

/**
 * The language parameters of a route whose answers are written in one language: `langs` is refused whatever its
 * value (named in the 400 with any other bad parameter), and OpenAPI says so.
 */
export const oneLanguageQuery = {
  lang: languageQuery.lang,
  langs: v.optional(v.pipe(
    v.picklist(['all'], 'must be all'),
    v.check(() => false, ONE_LANGUAGE_ONLY.reason),
    v.description('Not taken here: this answer is written in one language (ask for it with `lang`), so `langs=all` is 400'),
  )),
};

/** Languages already negotiated, by languages offered and preference: the same few headers come again and again. */
const negotiated = new Lru<string, string>(1024);

/** A preference longer than this (no browser sends one) is negotiated each time, so the cache stays small. */
const MAX_KEPT_PREFERENCE = 256;

/**
 * The language to serve from `languages`: for `lang` if given, else for `acceptLanguage`, the offered tag that
 * best fits the first language asked for of which one is offered, else the default. Never fails: an unmatched
 * or malformed preference gets the default language.
 */
export function negotiateLanguage(languages: Languages, lang: string | undefined, acceptLanguage: string | null): string {
  const preference = lang ?? acceptLanguage?.trim() ?? '';
  if (preference === '') return languages.default;
  const choose = () => chooseLanguage(languages, lang !== undefined ? [{ tag: lang, q: 1 }] : parseAcceptLanguage(preference));
  if (preference.length > MAX_KEPT_PREFERENCE) return choose();
  // No tag holds a NUL, and the last field says which of `lang` and the header the preference is.
  return negotiated.get(`${languages.offered.join(',')}\u0000${languages.default}\u0000${lang !== undefined ? 'l' : 'h'}${preference}`, choose);
}

/** Negotiates `ranges` (a `lang`, or the ranges of a header) against `languages`, as `negotiateLanguage` says. */
function chooseLanguage(languages: Languages, ranges: readonly Range[]): string {
  // Array.prototype.sort is stable: ranges of equal q stay in header order.
  const asked = ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q).map((r) => reduceTag(r.tag));
  const named = ranges.filter((r) => r.tag !== '*').map((r) => r.tag.toLowerCase());
  const refused = ranges.filter((r) => r.q === 0 && r.tag !== '*').map((r) => r.tag.toLowerCase());
  const offered = languages.offered.map((tag) => ({ tag, language: reduceTag(tag).language }));
  for (const language of new Set(asked.map((a) => a.language))) {
    let served: string | undefined;
    if (language === '*') {
      // `*` stands for every offered tag no other range names (RFC 2616 §14.4): the default first.
      served = languages.offered.find((tag) => !named.some((r) => covers(r, tag)));
    } else {
      // A range with q=0 refuses the tags it covers (RFC 4647 basic filtering: `pt;q=0` refuses pt-BR too).
      const candidates = offered.filter((o) => o.language === language && !refused.some((r) => covers(r, o.tag))).map((o) => o.tag);
      served = findClosest(asked.filter((a) => a.language === language).map((a) => a.lsr), candidates);
    }
    if (served !== undefined) return served;
  }
  return languages.default;
}

/**
 * The candidate that best fits `asked` (one language's tags, best-liked first) by CLDR best fit, or undefined
 * when none is close enough (a script apart, such as zh-Hant from zh-Hans).
 */
function findClosest(asked: readonly string[], candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  // 'und', which no map offers, is what the matcher answers when nothing fits.
  const served = match(asked, candidates, 'und', { algorithm: 'best fit' });
  return candidates.includes(served) ? served : undefined;
}

/** A language range of an Accept-Language header, a tag in canonical case or `*`, with its q-value. */
interface Range {
  tag: string;
  q: number;
}

const QVALUE_RE = /^\s*[0-9.]{1,5}\s*$/;

/**
 * Reads an Accept-Language header (RFC 9110 §12.5.4) into its ranges, in header order. An entry that is neither
 * a well-formed tag nor `*`, or whose q is not a number from 0 to 1, is skipped. Parameters other than q mean
 * nothing in this header and are ignored.
 */
function parseAcceptLanguage(header: string): Range[] {
  const ranges: Range[] = [];
  for (const entry of header.split(',')) {
    const [range, ...params] = entry.split(';');
    const tag = range.trim() === '*' ? '*' : canonicalTag(range.trim());
    if (tag === null) continue;
    let q = 1;
    for (const param of params) {
      const [name, value = ''] = param.split('=');
      if (name.trim().toLowerCase() === 'q') q = QVALUE_RE.test(value) ? Number(value) : NaN;
    }
    if (q >= 0 && q <= 1) ranges.push({ tag, q });
  }
  return ranges;
}

/** Language, script and region at the head of a canonical tag (lower, title and upper case). */
const LSR_RE = /^([a-z]{2,3}|[a-z]{5,8})(?:-([A-Z][a-z]{3}))?(?:-([A-Z]{2}|[0-9]{3}))?(?=-|$)/;
const scriptNames = new Intl.DisplayNames(['en'], { type: 'script', fallback: 'none' });
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/**
 * What best fit compares of a canonical tag (`*` stands for itself): its language, and the tag cut to that
 * language with the script and region CLDR knows. The matcher remembers every tag it is given for good, so it
 * is given none of the endless ones a client could make up (variants, extensions, unassigned codes), which it
 * would not tell apart anyway.
 */
function reduceTag(tag: string): { language: string; lsr: string } {
  const [, language, script, region] = LSR_RE.exec(tag) ?? [tag, tag];
  const known = [script && scriptNames.of(script) ? script : '', region && regionNames.of(region) ? region : ''];
  return { language, lsr: [language, ...known].filter((subtag) => subtag !== '').join('-') };
}

/** Whether a range (lower case) covers a tag: the same tag, or a prefix of it ending at a `-`. */
function covers(range: string, tag: string): boolean {
  const lower = tag.toLowerCase();
  return lower === range || lower.startsWith(`${range}-`);
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

  /** True when the request names its language (`lang`, `langs=all`): the answer does not depend on Accept-Language. */
  get named(): boolean {
    return this.lang !== undefined || this.all;
  }

  /** The map the answer is about, when a handler negotiated against one map (its answers carry its change token). */
  mapId: string | null = null;

  /** Negotiates against a map's languages (an enabled or disabled map of the content); the content's when unknown. */
  forMap(mapId: string): ServedLanguage {
    this.mapId ??= mapId;
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
