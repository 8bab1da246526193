/**
 * XML written by the service (GPX, and the texts given to the KML writer): escaping, and the characters XML cannot hold.
 */

/**
 * The characters XML 1.0 allows nowhere, not even as a character reference (`&#1;` is not well-formed): the C0
 * controls but tab, line feed and carriage return, lone surrogates, U+FFFE and U+FFFF. A bundle's JSON may hold any.
 */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** A text with the characters XML 1.0 cannot hold removed. */
export function xmlChars(text: string): string {
  return text.replace(NOT_XML, '');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text as XML character data or an attribute value (in either quotes): `&<>"'` escaped, what XML cannot hold removed. */
export function escapeXml(text: string): string {
  return xmlChars(text).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
