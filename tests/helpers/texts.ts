/**
 * Texts of a bundle as the tests read them: a plain string, or an object keyed by language tag.
 */

/** A bundle text: a string (the map's default language) or `{tag: text}`. */
export type BundleText = string | Readonly<Record<string, string>>;

/** Every language's text of a bundle text (one for a plain string). */
export function textsOf(value: BundleText): string[] {
  return typeof value === 'string' ? [value] : Object.values(value);
}

/**
 * The text served in `lang`: that language's, else the default language's (a plain string is in the default
 * language), else the first there is.
 */
export function textIn(value: BundleText, lang: string, defaultLanguage: string): string {
  if (typeof value === 'string') return value;
  return value[lang] ?? value[defaultLanguage] ?? Object.values(value)[0];
}

/** `textIn` of an optional text: null when absent. */
export function optTextIn(value: BundleText | undefined | null, lang: string, defaultLanguage: string): string | null {
  return value === undefined || value === null ? null : textIn(value, lang, defaultLanguage);
}

/** Where a bundle keeps its human-readable texts: collection, then dotted fields (`[]` walks an array). */
export const TEXT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  publishers: ['name', 'description'],
  maps: ['name', 'description', 'info.summary', 'info.opening_season', 'content_blocks[].title', 'content_blocks[].body'],
  icons: ['name'],
  categories: ['name'],
  markers: ['name', 'description', 'opening_hours'],
  paths: ['name', 'description'],
  polygons: ['name', 'description'],
  events: ['title', 'description', 'price'],
  lists: ['name', 'description', 'items[].note'],
  associations: ['label'],
};

/** Calls `fn` with each text of a record at `field` (dotted, `[]` for arrays), and sets what it returns. */
function mapField(record: Record<string, unknown>, field: string, fn: (value: BundleText) => BundleText): void {
  const [head, ...rest] = field.split('.');
  if (head.endsWith('[]')) {
    const items = record[head.slice(0, -2)];
    if (Array.isArray(items)) for (const item of items) mapField(item as Record<string, unknown>, rest.join('.'), fn);
  } else if (rest.length > 0) {
    const inner = record[head];
    if (inner && typeof inner === 'object') mapField(inner as Record<string, unknown>, rest.join('.'), fn);
  } else if (record[head] !== undefined && record[head] !== null) {
    record[head] = fn(record[head] as BundleText);
  }
}

/** Rewrites every text of a bundle (in place) with `fn`. */
export function mapTexts(bundle: Record<string, unknown>, fn: (value: BundleText, collection: string) => BundleText): void {
  for (const [collection, fields] of Object.entries(TEXT_FIELDS)) {
    const items = bundle[collection];
    if (!Array.isArray(items)) continue;
    for (const item of items) for (const field of fields) mapField(item as Record<string, unknown>, field, (v) => fn(v, collection));
  }
}

/** Every text of a bundle, each with the language it is in (plain strings: `plainLanguage`). */
export function textLanguages(bundle: Record<string, unknown>, plainLanguage: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const note = (text: string, lang: string) => {
    let set = out.get(text);
    if (!set) out.set(text, (set = new Set()));
    set.add(lang);
  };
  mapTexts(bundle, (value) => {
    if (typeof value === 'string') note(value, plainLanguage);
    else for (const [lang, text] of Object.entries(value)) note(text, lang);
    return value;
  });
  return out;
}

/** Every string of a JSON value. */
export function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) stringsOf(item, out);
  return out;
}
