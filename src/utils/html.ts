/**
 * HTML written on the server: escaping text and attribute values, and JSON inside a `<script>` data block.
 */

/** HTML text and attribute values, escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON for a `<script>` data block (`application/json`, `application/ld+json`): no `<` can close the element early. */
export function jsonBlock(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The start of an HTML document up to `</head>`: language, title, and the other lines of its head (already HTML). */
export function documentHead(lang: string, title: string, lines: readonly string[]): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
${lines.join('\n')}
</head>`;
}
