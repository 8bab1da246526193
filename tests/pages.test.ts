/**
 * The pages' settings and what they change, in-process: --kiosk and --tiles (flags, environment, refusals, --help),
 * `/` as the kiosk on its map (or the home page with a notice when the map is not an enabled one), a tile server's
 * origin in the CSP, names escaped in HTML and in the settings block, pages answering 503 before the content is
 * loaded while their assets are served, and assets from a loader (as the binary hands them over).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp } from '../src/app.ts';
import { PAGE_ASSETS, type AssetTexts } from '../src/pages/assets.ts';
import { pageCsp } from '../src/http/page-policy.ts';
import { pageOptions, parseConfig, usage, type ServerConfig } from '../src/serve/config.ts';
import { openTestApp, QUIET } from './helpers/app.ts';
import { F, makeFixture } from './helpers/fixture.ts';
import { openEmptyStore } from './helpers/store.ts';

/** The explorer's settings block of a page. */
function explorerConfig(html: string) {
  return JSON.parse(/<script type="application\/json" id="explorer-config">(.*?)<\/script>/s.exec(html)![1]);
}

describe('settings', () => {
  test('--kiosk and KIOSK name the kiosk map; --tiles and TILES_URL a tile template; both are checked', () => {
    const flags = parseConfig(['--kiosk', F.map, '--tiles', 'https://tiles.example.org/{z}/{x}/{y}.png'], {}) as ServerConfig;
    assert.equal(flags.kiosk, F.map);
    assert.equal(flags.tiles, 'https://tiles.example.org/{z}/{x}/{y}.png');
    const env = parseConfig([], { KIOSK: F.map, TILES_URL: '/tiles/{z}/{x}/{y}.png' }) as ServerConfig;
    assert.deepEqual(pageOptions(env), { kiosk: F.map, tiles: '/tiles/{z}/{x}/{y}.png' });
    assert.deepEqual(pageOptions(parseConfig([], {}) as ServerConfig), {});
    // The kiosk's QR codes of the service's own pages: only under a public URL the operator set.
    assert.equal(pageOptions(parseConfig(['--public-url', 'https://visit.example.org/guide/'], {}) as ServerConfig).shareUrl, 'https://visit.example.org/guide');
    // A basemap takes precedence over --tiles; the kiosk's own place is a latitude and a longitude.
    const based = parseConfig(['--basemap', '/srv/lisbon.pmtiles', '--tiles', '/tiles/{z}/{x}/{y}.png', '--kiosk-here', '38.7075, -9.1364'], {}) as ServerConfig;
    assert.equal(based.basemap, '/srv/lisbon.pmtiles');
    assert.equal(pageOptions(based).tiles, undefined);
    assert.deepEqual(pageOptions(based).here, { lat: 38.7075, lng: -9.1364 });
    assert.equal((parseConfig([], { BASEMAP: '/srv/x.pmtiles', KIOSK_HERE: '1,2' }) as ServerConfig).basemap, '/srv/x.pmtiles');
    for (const here of ['38.7', '91,0', 'north,west', '1,2,3']) assert.throws(() => parseConfig(['--kiosk-here', here], {}), /kiosk-here must be a latitude and a longitude/, here);
    assert.throws(() => parseConfig(['--kiosk', 'a map'], {}), /kiosk must be a map id/);
    for (const tiles of ['tiles/{z}/{x}/{y}.png', 'https://tiles.example.org/{z}/{x}.png', 'ftp://x/{z}/{x}/{y}', 'javascript:{z}{x}{y}']) {
      assert.throws(() => parseConfig(['--tiles', tiles], {}), /tiles must be a URL template/, tiles);
    }
    for (const words of ['--kiosk <map id>', 'KIOSK', '--tiles <url>', 'TILES_URL', '--basemap <file>', 'BASEMAP', '--kiosk-here', 'KIOSK_HERE', '/explore', '/docs']) {
      assert.ok(usage().includes(words), words);
    }
  });
});

describe('the pages of an app', () => {
  test('with a kiosk map, / is the explorer in kiosk mode on that map alone; /explore stays the explorer', async () => {
    const t = await openTestApp(makeFixture(), { pages: { kiosk: F.map } });
    try {
      const kiosk = await (await t.get('/')).text();
      assert.match(kiosk, /<body class="kiosk">/);
      const config = explorerConfig(kiosk);
      assert.equal(config.kiosk, true);
      assert.equal(config.idle_ms, 60_000);
      assert.equal(config.share_url, null, 'no QR code of a page of this machine without --public-url');
      assert.deepEqual(Object.keys(config.words).sort(), ['en'], 'the fixture map speaks English only');
      assert.deepEqual(config.maps.map((m: { id: string }) => m.id), [F.map]);
      assert.doesNotMatch(kiosk, /id="map-select"/);
      const explore = await (await t.get('/explore')).text();
      assert.equal(explorerConfig(explore).kiosk, false);
      assert.ok(explorerConfig(explore).maps.length > 1);
    } finally {
      await t.close();
    }
  });

  test('a kiosk map that is not an enabled map leaves / the home page, with a notice naming it', async () => {
    const t = await openTestApp(makeFixture(), { pages: { kiosk: F.disabled } });
    try {
      const html = await (await t.get('/')).text();
      assert.match(html, /<body class="landing">/);
      assert.match(html, new RegExp(`The kiosk map ${F.disabled} is not an enabled map`));
    } finally {
      await t.close();
    }
  });

  test('a tile server on another origin is allowed for images only; one on the service\'s origin adds nothing', async () => {
    const remote = 'https://tiles.example.org/base/{z}/{x}/{y}.png';
    const t = await openTestApp(makeFixture(), { pages: { tiles: remote } });
    try {
      const res = await t.get('/explore');
      assert.equal(res.headers.get('content-security-policy'), pageCsp({ tiles: remote }));
      assert.match(res.headers.get('content-security-policy')!, /img-src 'self' data: https:\/\/tiles\.example\.org; connect-src 'self'/);
      assert.equal(explorerConfig(await res.text()).tiles, remote);
    } finally {
      await t.close();
    }
    assert.equal(pageCsp({ tiles: '/tiles/{z}/{x}/{y}.png' }), pageCsp());
  });

  test('names from the content are escaped in the HTML and cannot close the settings block', async () => {
    const bundle = makeFixture();
    const map = bundle.maps.find((m) => m.id === F.map)!;
    map.name = '<img src=x onerror=alert(1)></script><script>alert(2)</script> & "Co"';
    const t = await openTestApp(bundle);
    try {
      const landing = await (await t.get('/')).text();
      assert.ok(landing.includes('&#60;img src=x onerror=alert(1)&#62;&#60;/script&#62;'));
      assert.ok(!landing.includes('<img') && !landing.includes('<script>alert'));
      const explore = await (await t.get('/explore')).text();
      assert.equal(explorerConfig(explore).maps.find((m: { id: string }) => m.id === F.map).name, map.name);
      assert.equal(explore.match(/<\/script>/g)!.length, 5, 'only the page\'s own five script elements close');
    } finally {
      await t.close();
    }
  });

  test('before the content is loaded the pages answer 503 and their assets are served; assets may come from a loader', async () => {
    const store = await openEmptyStore();
    try {
      const texts = Object.fromEntries(Object.keys(PAGE_ASSETS).map((name) => [name, `/* ${name} from the loader */`])) as AssetTexts;
      texts['redoc.js'] = 'img("https://cdn.redoc.ly/redoc/logo-mini.svg")';
      const app = createApp({ store, logger: QUIET, pages: { assets: async () => texts } });
      const get = (path: string) => app.fetch(new Request(`http://test.local${path}`));
      for (const path of ['/', '/explore', '/docs']) {
        const res = await get(path);
        assert.equal(res.status, 503, path);
        assert.equal(res.headers.get('retry-after'), '1');
      }
      assert.equal(await (await get('/assets/leaflet.js')).text(), '/* leaflet.js from the loader */');
      assert.equal(await (await get('/assets/redoc.js')).text(), 'img("data:,")', 'the remote logo is replaced');
    } finally {
      await store.close();
    }
  });
});
