/**
 * The Content-Security-Policy of every HTML answer: the pages (src/pages/) and the pages of records
 * (`/events/{id}.html`, `/markers/{id}.html`…).
 */

/** The origin of an absolute http(s) tile template, or null for one on the service's own origin. */
export function tilesOrigin(tiles: string | undefined): string | null {
  if (!tiles || !/^https?:\/\//i.test(tiles)) return null;
  return new URL(tiles.replace(/[{}]/g, '')).origin;
}

/**
 * The Content-Security-Policy of a page: everything from the service's own origin only, no inline script, no
 * plugins, no framing. The docs page allows inline styles (Redoc writes its style sheet at run time); the
 * operator's tile server, when set, is allowed for images.
 */
export function pageCsp(options: { inlineStyles?: boolean; tiles?: string } = {}): string {
  const tiles = tilesOrigin(options.tiles);
  return [
    "default-src 'self'", "script-src 'self'", `style-src 'self'${options.inlineStyles ? " 'unsafe-inline'" : ''}`,
    `img-src 'self' data:${tiles ? ` ${tiles}` : ''}`, "connect-src 'self'", "font-src 'self'", "object-src 'none'",
    "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; ');
}
