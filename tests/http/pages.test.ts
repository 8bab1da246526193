/**
 * The pages for people, over HTTP like the API (in-process and on Node, Bun and Deno): `/`, `/explore`, `/docs`
 * and their assets, with a Content-Security-Policy that allows only the service's own origin, the security headers,
 * fingerprinted assets kept for a year, compression and conditional GET, HEAD and 405, 404 for an unknown asset,
 * and the same pages under a base path. Pages are not API endpoints: /openapi.json does not list them. What the
 * pages do in a browser is tests/browser.test.ts.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PAGE_PATHS } from '../../src/pages/pages.ts';
import { pageCsp } from '../../src/http/page-policy.ts';
import { PAGE_ASSETS } from '../../src/pages/assets.ts';
import { F, makeFixture } from '../helpers/fixture.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';

const bundle = makeFixture();
const enabledMaps = bundle.maps.filter((m) => m.enabled);
let t: TestTarget;

before(async () => {
  t = await openTarget(bundle);
});
after(async () => {
  await t?.close();
});

/** The explorer's settings block of a page. */
function explorerConfig(html: string): { base: string; maps: { id: string; name: string; versions: { id: string }[]; current_version_id: string }[];
  world: string; maki: string; land: string; kiosk: boolean; tiles: string | null } {
  const m = /<script type="application\/json" id="explorer-config">(.*?)<\/script>/s.exec(html);
  assert.ok(m, 'the page has its settings block');
  return JSON.parse(m[1]);
}

/** The URLs of the scripts and style sheets a page loads. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="([^"]*\/assets\/[^"]+)"/g)].map((m) => m[1].replace(/&#38;/g, '&'));
}

describe('pages', () => {
  test('/ names the service, its content version and its enabled maps, with links to the explorer, the docs and /openapi.json', async () => {
    const res = await t.get('/');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await res.text();
    assert.match(html, /<h1>Destination map content service<\/h1>/);
    assert.match(html, new RegExp(`Content version <strong>${res.headers.get('x-content-version') ?? '\\d+'}</strong>`));
    for (const m of enabledMaps) assert.ok(html.includes(`href="/explore?map=${m.id}"`), m.id);
    for (const m of bundle.maps.filter((x) => !x.enabled)) assert.ok(!html.includes(m.id), `the disabled map ${m.id} is not listed`);
    for (const href of ['/explore', '/docs', '/openapi.json', '/ogc']) assert.ok(html.includes(`href="${href}"`), href);
  });

  test('/explore carries the enabled maps and their published versions, and loads only fingerprinted assets of this service', async () => {
    const html = await (await t.get('/explore')).text();
    const config = explorerConfig(html);
    assert.equal(config.base, '');
    assert.equal(config.kiosk, false);
    assert.equal(config.tiles, null);
    assert.deepEqual(config.maps.map((m) => m.id).sort(), enabledMaps.map((m) => m.id).sort());
    const main = config.maps.find((m) => m.id === F.map)!;
    const published = bundle.maps.find((m) => m.id === F.map)!.versions.filter((v) => v.status === 'published').map((v) => v.id);
    assert.deepEqual(main.versions.map((v) => v.id).sort(), published.sort());
    assert.ok(published.includes(main.current_version_id));
    const urls = [...assetUrls(html), config.world, config.maki];
    assert.deepEqual(urls.map((u) => /\/assets\/([^?]+)/.exec(u)![1]).sort(),
      ['countries-50m.json', 'explore.js', 'leaflet.css', 'leaflet.js', 'maki.js', 'protomaps-leaflet.js', 'site.css', 'topojson-client.js']);
    // Land comes as tiles the service cuts from world-atlas' 1:10m land: Lisbon's z10 tile holds land, the mid-Atlantic's none.
    assert.equal(config.land, '/assets/land/{z}/{x}/{y}.mvt');
    const land = await t.get(config.land.replace('{z}/{x}/{y}', '10/485/392'));
    assert.equal(land.status, 200);
    assert.equal(land.headers.get('content-type'), 'application/vnd.mapbox-vector-tile');
    assert.ok((await land.arrayBuffer()).byteLength > 0);
    assert.equal((await (await t.get(config.land.replace('{z}/{x}/{y}', '10/400/400'))).arrayBuffer()).byteLength, 0);
    assert.equal((await t.get('/assets/land/3/9/0.mvt')).status, 404);
    // The kiosk's QR codes: an SVG for an http(s) link, nothing for anything else.
    const qr = await t.get(`/assets/qr.svg?text=${encodeURIComponent('https://visit.example.org/places/belem')}`);
    assert.equal(qr.status, 200);
    assert.equal(qr.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
    assert.match(await qr.text(), /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    for (const text of ['javascript:alert(1)', 'not a link', `https://x.example/${'a'.repeat(1200)}`]) {
      assert.equal((await t.get(`/assets/qr.svg?text=${encodeURIComponent(text)}`)).status, 404, text.slice(0, 30));
    }
    for (const url of urls) {
      assert.match(url, /^\/assets\/[\w.-]+\?v=[0-9a-z]+$/, url);
      const res = await t.get(url);
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', url);
      const name = /\/assets\/([^?]+)/.exec(url)![1] as keyof typeof PAGE_ASSETS;
      assert.equal(res.headers.get('content-type'), PAGE_ASSETS[name].type, url);
      assert.ok((await res.arrayBuffer()).byteLength > 1000, url);
    }
  });

  test('/docs loads Redoc and its own script from this service, and points them at /openapi.json', async () => {
    const html = await (await t.get('/docs')).text();
    assert.match(html, /data-spec="\/openapi\.json"/);
    assert.deepEqual(assetUrls(html).map((u) => /\/assets\/([^?]+)/.exec(u)![1]).sort(), ['docs.js', 'redoc.js', 'site.css']);
    const redoc = await (await t.get(assetUrls(html).find((u) => u.includes('redoc.js'))!)).text();
    assert.ok(redoc.length > 500_000, 'the Redoc bundle is served whole');
    assert.ok(!redoc.includes('https://cdn.redoc.ly'), 'the one remote image of the bundle is replaced');
  });

  test('every page carries a CSP that allows only its own origin, and the other security headers', async () => {
    for (const path of PAGE_PATHS) {
      const res = await t.get(path);
      assert.equal(res.status, 200, path);
      const csp = res.headers.get('content-security-policy')!;
      assert.equal(csp, pageCsp({ inlineStyles: path === '/docs' }), path);
      assert.match(csp, /^default-src 'self'; script-src 'self'; /, path);
      assert.doesNotMatch(csp, /https?:|\*|'unsafe-eval'/, path);
      assert.doesNotMatch(csp.split('; ').find((d) => d.startsWith('script-src'))!, /unsafe-inline/, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
      assert.doesNotMatch(await res.text(), /<script>|<script type="module">|\son[a-z]+=|style=/, `${path}: no inline script, handler or style`);
    }
  });

  test('an asset without its fingerprint is revalidated; an unknown one is 404 problem+json', async () => {
    const res = await t.get('/assets/leaflet.js');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    for (const path of ['/assets/nope.js', '/assets/', '/assets/../package.json', '/assets/leaflet.js/x', '/explore/', '/docs/x', '/index.html']) {
      const missing = await t.get(path);
      assert.equal(missing.status, 404, path);
      assert.equal(missing.headers.get('content-type'), 'application/problem+json; charset=utf-8', path);
      assert.match(missing.headers.get('content-security-policy')!, /^default-src 'none'/, path);
    }
  });

  test('pages and assets are compressed, answer If-None-Match with 304, HEAD with no body, and other methods with 405', async () => {
    const js = await t.get('/assets/leaflet.js', { headers: { 'accept-encoding': 'br' } });
    assert.equal(js.headers.get('content-encoding'), 'br');
    assert.ok(Number(js.headers.get('content-length')) < 60_000, `leaflet.js in br: ${js.headers.get('content-length')} bytes`);
    const page = await t.get('/explore', { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(page.headers.get('content-encoding'), 'gzip');
    const etag = page.headers.get('etag')!;
    const again = await t.get('/explore', { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } });
    assert.equal(again.status, 304);
    const head = await t.get('/docs', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    const post = await t.get('/explore', { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS');
    assert.equal((await t.get('/', { method: 'OPTIONS' })).status, 204);
  });

  test('pages are not API endpoints: /openapi.json does not list them', async () => {
    const doc = (await t.json('/openapi.json')).body;
    for (const path of [...PAGE_PATHS, '/assets/{name}']) assert.ok(!(path in doc.paths), path);
  });
});

describe('pages under a base path', () => {
  test('live under it like the API, with their assets and API calls under it too, and 404 at the root', async () => {
    const mounted = await openTarget(bundle, { basePath: '/maps-api' });
    try {
      for (const path of ['/maps-api', '/maps-api/', '/maps-api/explore', '/maps-api/docs']) assert.equal((await mounted.get(path)).status, 200, path);
      const landing = await (await mounted.get('/maps-api/')).text();
      assert.ok(landing.includes('href="/maps-api/explore"') && landing.includes('href="/maps-api/openapi.json"'));
      const html = await (await mounted.get('/maps-api/explore')).text();
      const config = explorerConfig(html);
      assert.equal(config.base, '/maps-api');
      for (const url of [...assetUrls(html), config.world]) {
        assert.ok(url.startsWith('/maps-api/assets/'), url);
        assert.equal((await mounted.get(url)).status, 200, url);
      }
      assert.match(await (await mounted.get('/maps-api/docs')).text(), /data-spec="\/maps-api\/openapi\.json"/);
      for (const path of ['/', '/explore', '/docs', '/assets/leaflet.js', '/maps-apiexplore']) {
        assert.equal((await mounted.get(path)).status, 404, path);
      }
    } finally {
      await mounted.close();
    }
  });
});
