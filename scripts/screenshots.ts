/**
 * `npm run screenshots`: the pages as a visitor sees them, and what they cost. Starts the service on the demo at a
 * pinned time (and a second one as a kiosk), drives headless Debian Chromium (tests/helpers/browser.ts) and writes:
 * - docs/screenshots/explorer.png, event.png and kiosk.png (1280x800);
 * - docs/pages.md: what each page weighs (its JavaScript and CSS as the service sends them, br and gzip; the HTML
 *   and the coastline data apart) and the first render of /explore (navigation to its markers drawn), cold, over
 *   several loads, on this machine.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { clickMapNear, launchChromium, openPage } from '../tests/helpers/browser.ts';
import { startServer, type RunningServer } from '../tests/helpers/server.ts';
import { ROOT } from './build-binary.ts';

const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';
const SIGHTS = '891bcaec-a8e1-5200-9452-222a69aa64b2';
const SQUARE = { lat: 38.7075, lng: -9.1364 };
const NOW = '2027-06-10T10:00:00Z';
/** Cold loads of /explore measured. */
const LOADS = 7;
const OUT = join(ROOT, 'docs', 'screenshots');

/** The asset URLs (scripts, style sheets, the coastlines) a page loads, as its HTML names them. */
async function assetsOf(base: string, path: string): Promise<string[]> {
  const html = await (await fetch(`${base}${path}`)).text();
  const config = /id="explorer-config">(.*?)<\/script>/s.exec(html);
  const world = config ? [JSON.parse(config[1]).world as string] : [];
  return [...[...html.matchAll(/(?:src|href)="([^"]*\/assets\/[^"]+)"/g)].map((m) => m[1]), ...world];
}

/** Bytes of a URL as the service sends it in `encoding`, once the strongest compression is in place. */
async function sentBytes(url: string, encoding: string): Promise<number> {
  const get = () => fetch(url, { headers: { 'accept-encoding': encoding } }).then(async (res) => (await res.arrayBuffer(), Number(res.headers.get('content-length'))));
  let least = await get();
  // The second request queues the strong compression on zlib's pool; its bytes are served once made (if smaller).
  for (let i = 0; i < 20; i++) {
    least = Math.min(least, await get());
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return least;
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dataDir = await mkdtemp(join(tmpdir(), 'screenshots-'));
let servers: RunningServer[] = [];
const browser = await launchChromium();
try {
  servers = await Promise.all([
    startServer('node', ['--data-dir', join(dataDir, 'a'), '--fixed-time', NOW, '--log-level', 'info'], 120_000),
    startServer('node', ['--data-dir', join(dataDir, 'b'), '--fixed-time', NOW, '--kiosk', MAIN], 120_000),
  ]);
  const [server, kioskServer] = servers;
  await mkdir(OUT, { recursive: true });

  // The explorer: a category chosen, the events near the square listed.
  const { page, context } = await openPage(browser);
  await page.goto(`${server.base}/explore?map=${MAIN}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.click(`#categories button[data-id="${SIGHTS}"]`);
  await clickMapNear(page, SQUARE);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(OUT, 'explorer.png') });
  // An event and its anchored places: the Arraial in Alfama, on a neighbourhood and two places in it.
  await page.click('#event-list button.event[data-id="179d4d26-d7e6-57b7-94c3-dad40fdbcd1a"]');
  await page.waitForSelector('#event-title');
  await page.waitForTimeout(600);
  await page.screenshot({ path: join(OUT, 'event.png') });
  await context.close();

  // The kiosk at its start view: the map alone, the upcoming events along the side.
  const kiosk = await openPage(browser);
  await kiosk.page.goto(`${kioskServer.base}/`);
  await kiosk.page.waitForSelector('body[data-ready="true"]');
  await kiosk.page.waitForTimeout(400);
  await kiosk.page.screenshot({ path: join(OUT, 'kiosk.png') });
  await kiosk.context.close();

  // First render of /explore, cold (a new context each time: nothing cached), navigation start to markers drawn.
  const renders: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const cold = await openPage(browser);
    await cold.page.goto(`${server.base}/explore`);
    await cold.page.waitForSelector('body[data-ready="true"]');
    renders.push(Number(await cold.page.getAttribute('body', 'data-ready-ms')));
    await cold.context.close();
  }

  // Weights: the JavaScript and CSS of each page as sent, and the rest apart.
  const rows: string[] = [];
  const summary: Record<string, unknown> = {};
  for (const [label, base, path] of [['`/` (home)', server.base, '/'], ['`/explore`', server.base, '/explore'], ['`/` (kiosk)', kioskServer.base, '/'], ['`/docs`', server.base, '/docs']] as const) {
    const urls = await assetsOf(base, path);
    const code = urls.filter((u) => /\.(js|css)\?/.test(u));
    const data = urls.filter((u) => /\.json\?/.test(u));
    const sum = async (list: string[], encoding: string) => (await Promise.all(list.map((u) => sentBytes(`${base}${u}`, encoding)))).reduce((a, b) => a + b, 0);
    const [br, gzip, raw, html, dataBr] = [await sum(code, 'br'), await sum(code, 'gzip'), await sum(code, 'identity'), await sentBytes(`${base}${path}`, 'br'),
      await sum(data, 'br')];
    summary[label] = { js_css_br: br, js_css_gzip: gzip, js_css_raw: raw, html_br: html, data_br: dataBr };
    rows.push(`| ${label} | ${kb(br)} | ${kb(gzip)} | ${kb(raw)} | ${kb(html)} | ${data.length ? kb(dataBr) : 'none'} |`);
  }

  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${loadavg()[0].toFixed(1)} when measured`;
  const doc = `# Pages: weight and first render

Written by \`npm run screenshots\` (scripts/screenshots.ts), which also takes the screenshots in
[screenshots/](screenshots/). The service runs the demo on Node with \`--fixed-time ${NOW}\`; the browser is
headless Debian Chromium, driven by playwright-core, on this machine: ${machine}.

## Weight

What each page loads from the service, as the service sends it (the strongest compression, which it keeps for
assets served more than once). "JS + CSS" is every script and style sheet the page loads; the HTML and the
explorer's coastline data (\`countries-50m.json\`, world-atlas) are counted apart.

| page | JS + CSS, br | JS + CSS, gzip | JS + CSS, uncompressed | HTML, br | data, br |
|---|---|---|---|---|---|
${rows.join('\n')}

The explorer's scripts are Leaflet, topojson-client and its own \`explore.js\`; the docs page's are Redoc's standalone
bundle (React and its renderer inside) and \`docs.js\`. Fingerprinted assets are cached for a year, so a second visit
loads only the HTML.

## First render of \`/explore\`

From the start of navigation to the current version's places drawn and the coastlines loaded (the page sets
\`data-ready\` then), in a new browser context each time (nothing cached), ${LOADS} loads:

| median | fastest | slowest |
|---|---|---|
| ${median(renders)} ms | ${Math.min(...renders)} ms | ${Math.max(...renders)} ms |
`;
  await writeFile(join(ROOT, 'docs', 'pages.md'), doc);
  console.log(JSON.stringify({ explore_first_render_ms: renders, weights: summary }));
} finally {
  await browser.close();
  await Promise.all(servers.map((s) => s.stop()));
  await rm(dataDir, { recursive: true, force: true });
}
