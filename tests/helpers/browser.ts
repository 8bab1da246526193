/**
 * A real browser for the page tests and the screenshots: Debian's Chromium, driven by playwright-core (which
 * downloads no browser of its own). `ensureChromium` installs the Debian package when it is missing, so
 * `npm ci && npm test` does all the set-up on a fresh machine (scripts/run-tests.ts calls it before a run that
 * includes a browser test). `openPage` records every request a page makes and every console error it logs.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ensureDebianPackage } from './debian.ts';

/** The Debian package's browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** The launch flags: headless, no sandbox (root in a container), and nothing that calls home. */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

/**
 * Installs Debian's `chromium` with apt-get when /usr/bin/chromium is missing, printing what it does (about a
 * minute and a half on a fresh machine, its libraries included; 15 s when only the browser is missing). Throws
 * with apt-get's output when it cannot.
 */
export function ensureChromium(log: (line: string) => void = (line) => console.log(line)): void {
  ensureDebianPackage('chromium', CHROMIUM, 'the browser tests', log);
}

/** Launches the headless browser. */
export async function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/** A page with what it did: every request URL (from every page and worker of its context) and every console error. */
export interface RecordedPage {
  context: BrowserContext;
  page: Page;
  requests: string[];
  errors: string[];
}

/** Opens a new context and page of `size`, recording its requests and console errors (CSP violations among them). */
export async function openPage(browser: Browser, size = { width: 1280, height: 800 }, options: { scripts?: boolean } = {}): Promise<RecordedPage> {
  const context = await browser.newContext({ viewport: size, deviceScaleFactor: 1, javaScriptEnabled: options.scripts ?? true });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  context.on('request', (req) => requests.push(req.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (err) => errors.push(String(err)));
  return { context, page, requests, errors };
}

/**
 * Clicks the explorer's map (the page's `explorer.map`) on a spot near `at` that no place covers (no marker or cluster,
 * no path or polygon of the tiles drawn), so the click
 * reaches the map itself, and waits for the events near it to be listed. Returns the point the page took.
 */
export async function clickMapNear(page: Page, at: { lat: number; lng: number }): Promise<{ lat: number; lng: number }> {
  // The map at rest first: no zoom under way and no tile layer still loading, or a marker or shape drawn after the
  // spot was chosen could lie under it (the click then opens that place, and no events are listed).
  await page.waitForFunction(() => {
    const { map } = (window as any).explorer;
    let loading = false;
    map.eachLayer((layer: any) => {
      if (typeof layer.isLoading === 'function' && layer.isLoading()) loading = true;
    });
    return !loading && !map._animatingZoom;
  });
  const spot = await page.evaluate(({ lat, lng }) => {
    const { map } = (window as any).explorer;
    const box = map.getContainer().getBoundingClientRect();
    const p = map.latLngToContainerPoint([lat, lng]);
    for (let r = 0; r < 200; r += 4) {
      for (const [dx, dy] of [[r, 0], [0, r], [-r, 0], [0, -r], [r, r], [-r, -r]]) {
        const x = box.left + p.x + dx;
        const y = box.top + p.y + dy;
        const hit = document.elementFromPoint(x, y);
        // Not a marker or cluster (the tiles' buttons), nor a path or polygon drawn in a tile's canvas (a click there opens it).
        const shape = (window as any).explorer.hitShape(map.containerPointToLatLng([p.x + dx, p.y + dy]));
        if (hit && !hit.closest('.leaflet-interactive, button, a') && hit.closest('#map') && !shape) return { x, y };
      }
    }
    throw new Error('no free spot on the map near the point');
  }, at);
  await page.mouse.click(spot.x, spot.y);
  await page.waitForSelector('path.near-circle');
  await page.waitForFunction(() => /within/.test(document.getElementById('events-title')!.textContent!));
  return page.evaluate(() => {
    const { lat, lng } = (window as any).explorer.state.near;
    return { lat, lng };
  });
}
