/**
 * The README's curl examples run against the demo and answer as the README says: 200, except the
 * disabled map (404) and the deliberate bad request (400 naming every bad parameter); the calendars are iCalendar,
 * the downloads GPX and KML.
 */
import assert from 'node:assert/strict';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { readDemoBundle, readDemoSessions } from '../helpers/app.ts';
import { openTarget, type TestTarget } from '../helpers/target.ts';
import { textsOf, type BundleText } from '../helpers/texts.ts';
import { changeToken } from '../../src/content/changes.ts';

const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
const examples = [...readme.matchAll(/^curl (.*)'http:\/\/localhost:8787([^']+)'$/gm)].map((m) => ({ flags: m[1], target: m[2] }));

let t: TestTarget;
before(async () => { t = await openTarget({ ...await readDemoBundle(), sessions: await readDemoSessions() }, { now: new Date('2026-11-22T12:00:00Z') }); });
after(async () => { await t?.close(); });

test('the README shows the two set-up commands at the top', () => {
  const top = readme.slice(0, 800);
  assert.match(top, /npm ci && npm start/);
  assert.match(top, /npm ci && npm test/);
});

test('every curl example in the README answers as documented', async () => {
  assert.ok(examples.length >= 20, `found ${examples.length} examples`);
  let cursor: string | null = null;
  let token: string | null = null;
  for (const { flags, target } of examples) {
    const headers: Record<string, string> = {};
    const auth = /-H 'Authorization: ([^']+)'/.exec(flags);
    if (auth) headers.authorization = auth[1];
    const language = /-H 'Accept-Language: ([^']+)'/.exec(flags);
    if (language) headers['accept-language'] = language[1];
    // The "next page" example takes the cursor of the example before it.
    // The change feed example follows from the token of the export before it.
    // (Without change tracking the export has none: a token of no store then asks the feed.)
    const resolved = target.replace('<next_cursor>', cursor ?? '').replace('<token>', token ?? changeToken('00000000-0000-0000-0000-000000000000', 1));
    const res = await t.get(resolved, { headers });
    // A calendar is iCalendar, with a VEVENT at least; a page HTML, JSON-LD schema.org's; every other example answers JSON.
    if (target.split('?')[0].endsWith('.ics')) {
      assert.equal(res.status, 200, target);
      assert.equal(res.headers.get('content-type'), 'text/calendar; charset=utf-8', target);
      assert.match(await res.text(), /^BEGIN:VCALENDAR\r\n[^]*\r\nBEGIN:VEVENT\r\n/, target);
      continue;
    }
    // A page is HTML in the language asked for, with its JSON-LD; JSON-LD is schema.org's.
    if (target.split('?')[0].endsWith('.html')) {
      assert.equal(res.status, 200, target);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8', target);
      const html = await res.text();
      assert.match(html, new RegExp(`^<!doctype html>\n<html lang="${/[?&]lang=([\w-]+)/.exec(target)?.[1] ?? 'en'}">`), target);
      assert.match(html, /<script type="application\/ld\+json">\{"@context":"https:\/\/schema.org"/, target);
      continue;
    }
    // A vector tile: a Mapbox Vector Tile with the map's markers in it.
    if (target.split('?')[0].endsWith('.mvt')) {
      assert.equal(res.status, 200, target);
      assert.equal(res.headers.get('content-type'), 'application/vnd.mapbox-vector-tile', target);
      assert.ok(new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer()))).layers.markers.length > 0, target);
      continue;
    }
    // A download: GPX or KML, in the language asked for.
    const download = /\.(gpx|kml)$/.exec(target.split('?')[0])?.[1];
    if (download) {
      assert.equal(res.status, 200, target);
      assert.equal(res.headers.get('content-type'), download === 'gpx' ? 'application/gpx+xml' : 'application/vnd.google-earth.kml+xml', target);
      assert.equal(res.headers.get('content-language'), /[?&]lang=([\w-]+)/.exec(target)?.[1] ?? 'en', target);
      assert.match(await res.text(), download === 'gpx' ? /^<\?xml [^\n]*\n<gpx version="1\.1"[^]*<trk>/ : /^<\?xml [^\n]*\n<kml [^]*<Placemark>/, target);
      continue;
    }
    if (target.split('?')[0].endsWith('.jsonld')) {
      assert.equal(res.status, 200, target);
      assert.equal(res.headers.get('content-type'), 'application/ld+json; charset=utf-8', target);
      assert.equal((await res.json())['@context'], 'https://schema.org', target);
      continue;
    }
    const body = await res.json();
    if (target.includes('limit=500')) {
      assert.equal(res.status, 400, target);
      assert.deepEqual(body.errors.map((e: { name: string }) => e.name).sort(), ['from', 'limit', 'near']);
    } else if (target.includes('since=<token>') && !t.tracksChanges) {
      // A service without change history (this one serves the caches of a data directory another owns) has no feed.
      assert.equal(token, null);
      assert.equal(res.status, 503, target);
      continue;
    } else if (flags.includes('-i')) {
      assert.equal(res.status, 404, target);
    } else {
      assert.equal(res.status, 200, `${target}: ${JSON.stringify(body).slice(0, 200)}`);
    }
    if (auth) assert.equal(body.is_saved, true);
    // The language examples answer in the language they ask for.
    const asked = /[?&]lang=([\w-]+)/.exec(target)?.[1] ?? (language ? 'es' : null);
    if (asked) assert.equal(res.headers.get('content-language'), asked, target);
    if (target.includes('langs=all')) assert.equal(typeof body.title, 'object', target);
    if (target.includes('q=tranvia')) assert.ok(body.items.length > 0 && body.items.every((p: { name: string }) => p.name.startsWith('Tram 28 ')), target);
    if ('next_cursor' in body) cursor = body.next_cursor;
    if ('token' in body) token = body.token;
    if (target.includes('since=<token>')) assert.deepEqual(body.changes, [], 'nothing changed since the export');
  }
});

test('the demo ids in the README name the content the README says they do', async () => {
  const demo = await readDemoBundle();
  const rows = [...readme.matchAll(/^\| (.+?) \| `([0-9a-f-]{36})`/gm)];
  assert.ok(rows.length >= 12);
  // A name in any of its languages.
  const named = (r: { id: string; name: BundleText }) => [r.id, textsOf(r.name)] as const;
  const names = new Map<string, string[]>([
    ...demo.maps.map(named), ...demo.publishers.map(named), ...demo.markers.map(named), ...demo.paths.map(named),
    ...demo.polygons.map(named), ...demo.categories.map(named), ...demo.lists.map(named),
  ]);
  for (const [, label, id] of rows) {
    const texts = names.get(id);
    if (texts && !label.startsWith('unverified')) {
      assert.ok(texts.some((name) => label.includes(name.replace(/ \(.*\)$/, ''))), `${label} -> ${texts.join(' / ')}`);
    }
  }
});
