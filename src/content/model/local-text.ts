/**
 * Texts in several languages. In a bundle a human-readable text is a plain string (in its map's default
 * language) or an object keyed by BCP 47 language tag (`{"pt": "…", "en": "…"}`). The read model keeps every
 * such text as a `LocalText`; an answer is written in one language by `renderIn`, which makes `JSON.stringify`
 * write each LocalText as the string of that language (or, for `langs=all`, as the object of every language).
 */

/** The BCP 47 tag in its canonical case (`pt-br` → `pt-BR`), or null when it is not a well-formed tag. */
export function canonicalTag(tag: string): string | null {
  // Intl's own parser (on Node, Bun and Deno alike) knows BCP 47's grammar; `*` and `_` forms are refused.
  if (!/^[A-Za-z0-9-]{1,64}$/.test(tag)) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical ?? null;
  } catch {
    return null;
  }
}

/** The languages a map (or the whole content) serves: the default first, then the others in declared order. */
export interface Languages {
  default: string;
  /** Every offered tag, the default first. */
  offered: readonly string[];
}

/** A text as a bundle writes it: a plain string, or an object keyed by language tag. */
export type TextValue = string | Readonly<Record<string, string>>;

/** The language answers are written in while `renderIn` runs, or `all` for every language. */
let rendering: string | typeof ALL | null = null;
const ALL = Symbol('all languages');

/** A text in one or more languages, with the language it falls back to. */
export class LocalText {
  /** Tag → text; the fallback language's first when it has one. */
  readonly values: Readonly<Record<string, string>>;
  /** The language a text is served in when it has none in the language asked for: its map's default. */
  readonly fallback: string;

  constructor(value: TextValue, fallback: string, order?: readonly string[]) {
    this.fallback = fallback;
    if (typeof value === 'string') this.values = { [fallback]: value };
    else {
      // Canonical tags, in the map's order (default first), then any other tags in the bundle's order.
      const entries = Object.entries(value).map(([tag, text]) => [canonicalTag(tag) ?? tag, text] as const);
      const rank = (tag: string) => {
        const k = order ? order.indexOf(tag) : tag === fallback ? 0 : -1;
        return k < 0 ? Infinity : k;
      };
      entries.sort((a, b) => rank(a[0]) - rank(b[0]));
      this.values = Object.fromEntries(entries);
    }
  }

  /** The text in `lang`, else in the fallback language, else the first one there is. */
  in(lang: string): string {
    return this.values[lang] ?? this.values[this.fallback] ?? Object.values(this.values)[0];
  }

  /** The text in the fallback language (what old code and sorting see). */
  toString(): string {
    return this.in(this.fallback);
  }

  /** As JSON: the string of the language being rendered (see `renderIn`), or every language's for `langs=all`. */
  toJSON(): string | Readonly<Record<string, string>> {
    if (rendering === ALL) return this.values;
    return this.in(rendering ?? this.fallback);
  }
}

/** A LocalText of an optional text: null when it is absent. */
export function localText(value: TextValue | undefined | null, fallback: string, order?: readonly string[]): LocalText | null {
  return value === undefined || value === null ? null : new LocalText(value, fallback, order);
}

/**
 * Runs `fn` (a `JSON.stringify` of an answer) with every LocalText written in `lang`, or as the object of every
 * language when `lang` is null. Synchronous, so no other answer can be written meanwhile on this thread.
 */
export function renderIn<T>(lang: string | null, fn: () => T): T {
  const before = rendering;
  rendering = lang ?? ALL;
  try {
    return fn();
  } finally {
    rendering = before;
  }
}
