/**
 * The bundle check behind the `check` subcommand: problems name their record and say what is wrong in
 * plain words with the bad value; warnings (unknown keys, POIs far outside their map's area, shapes across the
 * antimeridian) never fail a check; invalid JSON is one problem with its line and column; `runCheck` exits 0, 1 or 2.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { checkBundle, formatReport, runCheck, type CheckReport, type Finding } from '../src/content/bundle/check.ts';
import { F, makeFixture, uuidFor } from './helpers/fixture.ts';

const DEMO_PATH = join(import.meta.dirname, '..', 'data', 'demo-bundle.json');
const demoText = readFileSync(DEMO_PATH, 'utf8');

/** A bundle that can be broken freely: a deep clone, typed loosely. */
/** The fixture as a bundle: without the sessions tests keep in it (they belong in a sessions file). */
const cloneFixture = (): any => {
  const { sessions: _sessions, ...bundle } = structuredClone(makeFixture());
  return bundle;
};
/** Checks a bundle object as its JSON text. */
const check = (bundle: unknown): Promise<CheckReport> => checkBundle(JSON.stringify(bundle));
/** The index of the first record of `items` that `pick` accepts. */
const indexWhere = (items: any[], pick: (x: any) => boolean) => {
  const i = items.findIndex(pick);
  assert.ok(i >= 0, 'the fixture has such a record');
  return i;
};
/** The one finding at `path`, asserting there is exactly one. */
function findingAt(findings: Finding[], path: string): Finding {
  const at = findings.filter((f) => f.path === path);
  assert.equal(at.length, 1, `one finding at ${path}; all:\n${findings.map((f) => `  ${f.path}: ${f.message}`).join('\n')}`);
  return at[0];
}

describe('checkBundle', () => {
  test('the demo bundle checks ok, with no problems and no warnings', async () => {
    const report = await checkBundle(demoText);
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.warnings, [], 'the demo has no unknown keys and every POI lies inside its map\'s bounds');
    assert.equal(report.ok, true);
    const demo = JSON.parse(demoText);
    const pois = demo.markers.length + demo.paths.length + demo.polygons.length;
    assert.deepEqual(report.summary, {
      publishers: demo.publishers.length, maps: demo.maps.length, categories: demo.categories.length, markers: demo.markers.length,
      paths: demo.paths.length, polygons: demo.polygons.length, pois, events: demo.events.length, lists: demo.lists.length,
    });
    assert.equal(formatReport(report, 'data/demo-bundle.json'),
      `data/demo-bundle.json: ok, ${demo.maps.length} maps, ${pois} POIs, ${demo.events.length} events, no warnings`);
  });

  test('the same bundle as UTF-8 bytes, or as text with a byte order mark, checks the same', async () => {
    const bytes = await checkBundle(new TextEncoder().encode(`\uFEFF${demoText}`));
    assert.deepEqual(bytes, await checkBundle(demoText));
    assert.deepEqual(await checkBundle(`\uFEFF${demoText}`), bytes);
  });

  test('the fixture checks ok; its two markers near the poles, in a map of Lisbon, and its path across the antimeridian are warned about', async () => {
    const b = cloneFixture();
    const report = await check(b);
    assert.equal(report.ok, true);
    assert.deepEqual(report.problems, []);
    const north = indexWhere(b.markers, (m) => m.id === uuidFor('marker:edge-north'));
    const south = indexWhere(b.markers, (m) => m.id === uuidFor('marker:edge-south'));
    const dateline = indexWhere(b.paths, (p) => p.name === 'Dateline walk');
    assert.deepEqual(report.warnings.map((w) => w.path), [`$.markers[${north}]`, `$.markers[${south}]`, `$.paths[${dateline}].geometry.coordinates[2]`]);
    assert.match(report.warnings[0].message, /^marker "Marker edge-north" \(\$\.markers\[\d+\]\) is [\d,]+ km from its map's area$/);
    // The Pacific map straddles the antimeridian: its POIs at +179.9 and -179.9 are close to its centre, not far.
    assert.ok(report.warnings.every((w) => !w.message.includes('Pacific') && !/Dateline.* km from/.test(w.message)));
  });

  test('a missing required field names the record and says "missing required field"', async () => {
    const b = cloneFixture();
    delete b.events[4].starts_at;
    delete b.events[5].title;
    delete b.maps[1].map_data.center;
    delete b.icons;
    const report = await check(b);
    assert.equal(report.ok, false);
    assert.equal(findingAt(report.problems, '$.events[4].starts_at').message,
      'event "Event main:4" ($.events[4]): missing required field "starts_at"');
    // Without its title, an event is named by its id.
    assert.equal(findingAt(report.problems, '$.events[5].title').message,
      `event ${b.events[5].id} ($.events[5]): missing required field "title"`);
    assert.equal(findingAt(report.problems, '$.maps[1].map_data.center').message,
      'map "Pacific" ($.maps[1]): missing required field "map_data.center"');
    assert.equal(findingAt(report.problems, '$.icons').message, 'missing required field "icons"');
  });

  test('a bad value is shown, as JSON cut to about 60 characters, after what it must be', async () => {
    const b = cloneFixture();
    b.events[6].starts_at = '2027-13-01';
    b.events[7].ends_at = '2027-02-30T10:00:00Z';
    b.markers[2].lat = 91;
    b.paths[0].difficulty = 'extreme';
    b.maps[0].enabled = 'yes';
    b.lists[1].verified = { why: 'x'.repeat(100) };
    const tag = indexWhere(b.categories, (c) => c.kind === 'tag');
    b.categories[tag].color = 'red';
    b.maps[1].map_data.zoom = 23;
    b.paths[1].duration_min = 1.5;
    b.paths[2].duration_min = -5;
    b.paths[3].geometry.coordinates[0] = [-9.1];
    b.maps[2].map_data.bounds = [-9.5, 38.9, -9.3, 38.7];
    const report = await check(b);
    const message = (path: string) => findingAt(report.problems, path).message;
    assert.equal(message('$.events[6].starts_at'),
      'event "Event main:6" ($.events[6]): starts_at must be a real calendar date, got "2027-13-01"');
    assert.equal(message('$.events[7].ends_at'),
      'event "Event main:7" ($.events[7]): ends_at must be a real calendar date-time, got "2027-02-30T10:00:00Z"');
    assert.equal(message('$.markers[2].lat'), `marker "${b.markers[2].name}" ($.markers[2]): lat: latitude must be within [-90, 90], got 91`);
    assert.equal(message('$.paths[0].difficulty'), 'path "Path 0" ($.paths[0]): difficulty must be one of "easy", "moderate", "hard", got "extreme"');
    assert.equal(message('$.maps[0].enabled'), 'map "Main" ($.maps[0]): enabled must be true or false, got "yes"');
    assert.equal(message(`$.categories[${tag}].color`), `tag "${b.categories[tag].name}" ($.categories[${tag}]): color must be a #rrggbb colour, got "red"`);
    const long = message('$.lists[1].verified');
    assert.equal(message('$.maps[1].map_data.zoom'), 'map "Pacific" ($.maps[1]): map_data.zoom must be at most 22, got 23');
    assert.equal(message('$.paths[1].duration_min'), 'path "Path 1" ($.paths[1]): duration_min must be an integer, got 1.5');
    assert.equal(message('$.paths[2].duration_min'), 'path "Path 2" ($.paths[2]): duration_min must be at least 0, got -5');
    assert.equal(message('$.paths[3].geometry.coordinates[0][1]'), 'path "Path 3" ($.paths[3]): geometry.coordinates[0][1] is missing: it must be a number');
    assert.equal(message('$.maps[2].map_data.bounds'),
      'map "Disabled" ($.maps[2]): map_data.bounds has its south greater than its north: it must be [west, south, east, north], got [-9.5,38.9,-9.3,38.7]');
    assert.match(long, /^list "Unverified" \(\$\.lists\[1\]\): verified must be true or false, got \{"why":"x+…$/);
    assert.equal(long.length - long.indexOf('got ') - 4, 60, 'the value is cut to 60 characters, the ellipsis included');
  });

  test('a value that breaks several rules is reported once, by the first rule it breaks', async () => {
    const b = cloneFixture();
    b.events[3].starts_at = '2027-01-01T10:00:00'; // no offset: not RFC 3339, and so no real date-time either
    const report = await check(b);
    assert.deepEqual(report.problems.map((p) => p.path), ['$.events[3].starts_at']);
    assert.match(report.problems[0].message, /with Z or an offset \(or, for an all-day event, a date such as 2027-06-12\), got "2027-01-01T10:00:00"$/);
  });

  test('cross-record problems name the record and the id they name', async () => {
    const b = cloneFixture();
    const unknown = uuidFor('nothing:at-all');
    b.events[1].poi_ids = [unknown];
    b.markers.push({ ...b.markers[30] });
    const report = await check(b);
    assert.equal(findingAt(report.problems, '$.events[1].poi_ids[0]').message,
      `event "Event main:1" ($.events[1]): poi_ids[0] names an unknown POI ${unknown}`);
    const last = b.markers.length - 1;
    assert.equal(findingAt(report.problems, `$.markers[${last}].id`).message,
      `marker "${b.markers[30].name}" ($.markers[${last}]): id is a duplicate category or POI id ${b.markers[30].id}, ` +
      `first used by marker "${b.markers[30].name}" ($.markers[30])`);
  });

  test('a misspelt key is a warning with the key it was probably meant to be, and the bundle stays ok', async () => {
    const b = cloneFixture();
    b.markers[3].opening_hourz = 'Mo-Fr 09:00-17:00';
    b.maps[0].map_data.centre = b.maps[0].map_data.center;
    b.lists[0].items[0].nots = 'typo';
    b.events[2].Title = 'capitalised';
    b.markers[4].longitude = -9.1;
    b.evnts = [];
    b.markers[5].colour_scheme = 'dark';
    const report = await check(b);
    assert.equal(report.ok, true);
    assert.deepEqual(report.problems, []);
    const message = (path: string) => findingAt(report.warnings, path).message;
    assert.equal(message('$.markers[3].opening_hourz'),
      `marker "${b.markers[3].name}" ($.markers[3]): unknown key "opening_hourz" (did you mean "opening_hours"?) — it is ignored`);
    assert.equal(message('$.maps[0].map_data.centre'), 'map "Main" ($.maps[0]): unknown key "centre" in map_data (did you mean "center"?) — it is ignored');
    assert.equal(message('$.lists[0].items[0].nots'), 'list "Verified" ($.lists[0]): unknown key "nots" in items[0] (did you mean "note"?) — it is ignored');
    assert.match(message('$.events[2].Title'), /unknown key "Title" \(did you mean "title"\?\)/);
    assert.match(message('$.markers[4].longitude'), /unknown key "longitude" \(did you mean "lng"\?\)/);
    assert.equal(message('$.evnts'), 'unknown key "evnts" (did you mean "events"?) — it is ignored');
    // Nothing close: no suggestion.
    assert.equal(message('$.markers[5].colour_scheme'), `marker "${b.markers[5].name}" ($.markers[5]): unknown key "colour_scheme" — it is ignored`);
    assert.match(formatReport(report, 'b.json'), /^b\.json: ok, 3 maps, \d+ POIs, \d+ events, 10 warnings$/m);
  });

  test('a marker with lat and lng swapped is far outside its map\'s area, with a hint that they look swapped', async () => {
    const b = cloneFixture();
    const i = indexWhere(b.markers, (m) => m.map_id === F.map && m.name.startsWith('Café'));
    const m = b.markers[i];
    [m.lat, m.lng] = [m.lng, m.lat];
    const report = await check(b);
    assert.equal(report.ok, true, 'a warning never fails the check');
    const w = findingAt(report.warnings, `$.markers[${i}]`);
    assert.match(w.message, new RegExp(`^marker "${m.name}" \\(\\$\\.markers\\[${i}\\]\\) is [\\d,]+ km from its map's area; ` +
      `lat and lng look swapped: lat ${m.lng}, lng ${m.lat} would put it in the area$`));
    const km = Number(/is ([\d,]+) km/.exec(w.message)![1].replaceAll(',', ''));
    assert.ok(km > 5000 && km < 9000, `a place near Lisbon swapped lands in East Africa, thousands of km away (${km})`);
  });

  test('a path with [lat, lng] positions hints at the GeoJSON order; a far point that swapping does not fix gets no hint', async () => {
    const b = cloneFixture();
    const p = b.paths[2];
    p.geometry.coordinates = p.geometry.coordinates.map(([lng, lat]: number[]) => [lat, lng]);
    b.paths[3].geometry.coordinates[4] = [139.69, 35.69]; // Tokyo, in a map of Lisbon
    b.markers[6].lat = -33.87; // Sydney's latitude, Lisbon's longitude
    const report = await check(b);
    assert.equal(findingAt(report.warnings, '$.paths[2].geometry.coordinates').message.replace(/[\d,]+ km/, 'N km'),
      'path "Path 2" ($.paths[2]) is N km from its map\'s area; [lng, lat] may be swapped: GeoJSON coordinates are [longitude, latitude]');
    assert.match(findingAt(report.warnings, '$.paths[3].geometry.coordinates[4]').message,
      /^path "Path 3" \(\$\.paths\[3\]\): geometry\.coordinates\[4\] is [\d,]+ km from its map's area$/);
    assert.match(findingAt(report.warnings, '$.markers[6]').message, /is [\d,]+ km from its map's area$/);
  });

  test('a map whose own centre is swapped gets one warning, not one per POI', async () => {
    const b = cloneFixture();
    const centre = b.maps[0].map_data.center;
    b.maps[0].map_data.center = { lat: centre.lng, lng: centre.lat };
    const report = await check(b);
    const w = findingAt(report.warnings, '$.maps[0].map_data.center');
    assert.match(w.message, /^map "Main" \(\$\.maps\[0\]\): map_data\.center is [\d,]+ km from most of its POIs \(\d+ of \d+ are more than 200 km away\); its lat and lng look swapped; /);
    // Measured from their median position, the map's POIs are where they were: only the polar markers are far
    // (the other two warnings: the swapped centre, and the Pacific path across the antimeridian).
    assert.equal(report.warnings.length, 4, report.warnings.map((x) => x.message).join('\n'));
  });

  test('bounds given as [south, west, north, east] get a hint at the order', async () => {
    const b = cloneFixture();
    b.maps[0].map_data.bounds = [38.6, -9.3, 38.85, -9.0];
    const w = findingAt((await check(b)).warnings, '$.maps[0].map_data.bounds');
    assert.match(w.message, /^map "Main" \(\$\.maps\[0\]\): map_data\.bounds is [\d,]+ km from most of its POIs \(\d+ of \d+ are more than 200 km away\); it looks like \[south, west, north, east\], but the order is \[west, south, east, north\]; /);
  });

  test('a path or polygon that jumps more than 180° of longitude between two positions is warned about as crossing the antimeridian', async () => {
    const b = cloneFixture();
    const islands = uuidFor('category:pacific');
    const polygon = (key: string, ring: number[][]) => {
      b.polygons.push({ id: uuidFor(`polygon:${key}`), map_id: F.pacific, name: key, category_ids: [islands], created_at: '2026-01-01T00:00:00Z',
        geometry: { type: 'Polygon', coordinates: [ring] } });
      return b.polygons.length - 1;
    };
    const path = (key: string, line: number[][]) => {
      b.paths.push({ id: uuidFor(`path:${key}`), map_id: F.pacific, name: key, category_ids: [islands], created_at: '2026-01-01T00:00:00Z',
        geometry: { type: 'LineString', coordinates: line } });
    };
    const reef = polygon('Reef across', [[179.5, -17], [179.5, -18], [-179.5, -18], [-179.5, -17], [179.5, -17]]);
    // The same reef split at 180°: two polygons, one each side, each touching the antimeridian without crossing it.
    polygon('Reef west', [[179.5, -17], [179.5, -18], [180, -18], [180, -17], [179.5, -17]]);
    polygon('Reef east', [[-180, -17], [-180, -18], [-179.5, -18], [-179.5, -17], [-180, -17]]);
    path('Near the line', [[179.2, -17.2], [179.6, -17.3], [179.99, -17.4], [180, -17.5]]);
    // Exactly 180° is not more than 180°.
    path('Half the world', [[-90, -17], [90, -17]]);
    const dateline = indexWhere(b.paths, (p) => p.name === 'Dateline walk');
    const report = await check(b);
    assert.equal(report.ok, true, report.problems.map((p) => p.message).join('\n'));
    const crossing = report.warnings.filter((w) => w.message.includes('antimeridian'));
    assert.deepEqual(crossing.map((w) => w.path), [`$.paths[${dateline}].geometry.coordinates[2]`, `$.polygons[${reef}].geometry.coordinates[0][2]`]);
    assert.equal(crossing[0].message, `path "Dateline walk" ($.paths[${dateline}]): geometry.coordinates jumps 359.9° of longitude from ` +
      'position 1 to 2 (179.95 to -179.95), as a shape that crosses the antimeridian does: it is drawn the long way round the world; ' +
      'split it at 180° into two paths, one each side (RFC 7946 §3.1.9)');
    assert.equal(crossing[1].message, `polygon "Reef across" ($.polygons[${reef}]): geometry.coordinates[0] jumps 359° of longitude from ` +
      'position 1 to 2 (179.5 to -179.5), as a shape that crosses the antimeridian does: it is drawn the long way round the world; ' +
      'split it at 180° into two polygons, one each side (RFC 7946 §3.1.9)');
    assert.equal(report.ok, true, 'a warning never fails the check');
  });

  test('languages: bad tags and a default left out of languages are problems; translation gaps are warnings', async () => {
    const b = cloneFixture();
    const m = indexWhere(b.maps, (x: any) => x.id === F.map);
    Object.assign(b.maps[m], { default_language: 'pt', languages: ['en', 'es'] });
    const marker = indexWhere(b.markers, (x: any) => x.map_id === F.map);
    const other = b.markers.findIndex((x: any, i: number) => x.map_id === F.map && i !== marker);
    b.markers[marker].name = { pt: 'Sé', 'not a tag!': 'x' };
    b.markers[other].name = { pt: 'Sé de Lisboa', en: 'Lisbon Cathedral', fr: 'Cathédrale' };
    b.maps[m].name = {};
    const report = await check(b);
    assert.match(findingAt(report.problems, `$.maps[${m}].languages`).message, /languages must include the default language "pt", got \["en","es"\]$/);
    assert.ok(report.problems.some((p) => p.path === `$.markers[${marker}].name` || p.path.startsWith(`$.markers[${marker}].name`)), 'the bad tag');
    assert.match(findingAt(report.problems, `$.maps[${m}].name`).message, /at least one language/);

    const fixed = cloneFixture();
    Object.assign(fixed.maps[m], { default_language: 'pt', languages: ['pt', 'en'] });
    fixed.markers[other].name = { pt: 'Sé de Lisboa', fr: 'Cathédrale' };
    const warned = await check(fixed);
    assert.equal(warned.ok, true, warned.problems.map((p) => p.message).join('\n'));
    const gaps = warned.warnings.filter((w) => w.path === `$.markers[${other}].name`).map((w) => w.message);
    assert.equal(gaps.length, 2, gaps.join('\n'));
    assert.match(gaps[0], /name has no text in en: the default language's is served instead$/);
    assert.match(gaps[1], /name has text in fr, which its map does not offer \(see the map's languages\): served only with langs=all$/);
  });

  test('invalid JSON is one problem at $ with its line and column', async () => {
    const text = '{\n  "format": "destination-bundle/1",\n  "maps": [\n    {"name": "Lisbon" "slug": "lisbon"}\n  ]\n}';
    const report = await checkBundle(text);
    assert.equal(report.ok, false);
    assert.deepEqual(report.problems, [{ path: '$', message: 'not valid JSON at line 4, column 23: expected "," or "}" after a property value' }]);
    assert.deepEqual(report.warnings, []);
    assert.equal(report.summary.maps, 0);
    for (const [bad, where] of [['', 'line 1, column 1'], ['{"a": [1, 2,]}', 'line 1, column 13'], ['{\n"a": NaN}', 'line 2, column 6'],
      ["{'a': 1}", 'line 1, column 2'], ['{"a": "x\ny"}', 'line 1, column 9'], ['{} {}', 'line 1, column 4'],
      ['{\n  "a": "no end', 'line 2, column 8'], ['{"a": "ok\\"\\u00e9", "b": "\\x"}', 'line 1, column 27']]) {
      const problems = (await checkBundle(bad)).problems;
      assert.equal(problems.length, 1, bad);
      assert.match(problems[0].message, new RegExp(`^not valid JSON at ${where}: `), bad);
    }
  });

  test('several problems are all listed at once, structural and cross-record, with the warnings', async () => {
    const b = cloneFixture();
    delete b.events[4].starts_at;
    b.events[6].starts_at = '2027-13-01';
    b.events[8].poi_ids = [uuidFor('nothing:at-all')];
    b.markers[2].lat = 91;
    b.maps[1].time_zone = 'Mars/Olympus_Mons';
    b.markers[3].opening_hourz = 'always';
    const report = await check(b);
    assert.deepEqual(report.problems.map((p) => p.path).sort(), [
      '$.events[4].starts_at', '$.events[6].starts_at', '$.events[8].poi_ids[0]', '$.maps[1].time_zone', '$.markers[2].lat',
    ].sort());
    assert.ok(report.warnings.some((w) => w.path === '$.markers[3].opening_hourz'));
    const text = formatReport(report, 'broken.json').split('\n');
    assert.equal(text.filter((l) => l.startsWith('error  ')).length, 5);
    assert.equal(text.filter((l) => l.startsWith('warning  ')).length, report.warnings.length);
    assert.equal(text.at(-1), `broken.json: 5 problems, ${report.warnings.length} warnings`);
  });

  test('a missing record field does not cascade into reports about the references to it', async () => {
    const b = cloneFixture();
    delete b.events[8].map_id; // its anchors cannot be said to belong to another map
    b.lists[0] = null; // associations naming this list cannot be said to name an unknown list
    const report = await check(b);
    assert.deepEqual(report.problems.map((p) => p.path).sort(), ['$.events[8].map_id', '$.lists[0]']);
    assert.equal(findingAt(report.problems, '$.lists[0]').message, 'list ($.lists[0]) must be an object, got null');
  });
});

/** A readText over in-memory files; any other path fails as a missing file does. */
function readFrom(files: Record<string, string>) {
  return async (path: string) => {
    if (Object.hasOwn(files, path)) return files[path];
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
  };
}

describe('runCheck', () => {
  const broken = cloneFixture();
  delete broken.events[4].starts_at;
  const warned = cloneFixture();
  warned.markers[3].opening_hourz = 'always';
  const read = readFrom({
    'demo.json': demoText, 'broken.json': JSON.stringify(broken), 'warned.json': JSON.stringify(warned), 'bad.json': '{"format": ',
  });

  test('exit 0 for an ok bundle, with one summary line', async () => {
    const { exitCode, output } = await runCheck(['demo.json'], read);
    assert.equal(exitCode, 0);
    assert.match(output, /^demo\.json: ok, 4 maps, \d+ POIs, \d+ events, no warnings$/);
  });

  test('exit 0 for a bundle with warnings only; they are printed', async () => {
    const { exitCode, output } = await runCheck(['warned.json'], read);
    assert.equal(exitCode, 0);
    const lines = output.split('\n');
    assert.ok(lines.some((l) => /^warning {2}marker .*unknown key "opening_hourz" \(did you mean "opening_hours"\?\)/.test(l)), output);
    assert.match(lines.at(-1)!, /^warned\.json: ok, 3 maps, \d+ POIs, \d+ events, 4 warnings$/);
  });

  test('with --strict, a bundle with warnings is refused (exit 1) and one without is ok', async () => {
    const { exitCode, output } = await runCheck(['--strict', 'warned.json', 'demo.json'], read);
    assert.equal(exitCode, 1);
    const lines = output.split('\n');
    assert.ok(lines.includes('warned.json: 0 problems, 4 warnings (refused with --strict)'), output);
    assert.match(lines.at(-1)!, /^demo\.json: ok, /);
    const json = JSON.parse((await runCheck(['--strict', '--json', 'warned.json'], read)).output);
    assert.equal(json[0].ok, false);
    assert.equal(json[0].warnings.length, 4);
    assert.equal((await runCheck(['--strict', 'demo.json'], read)).exitCode, 0);
  });

  test('exit 1 when any bundle has problems, every bundle still checked', async () => {
    const { exitCode, output } = await runCheck(['demo.json', 'broken.json', 'bad.json'], read);
    assert.equal(exitCode, 1);
    const lines = output.split('\n');
    assert.ok(lines.includes('error  event "Event main:4" ($.events[4]): missing required field "starts_at"'), output);
    assert.ok(lines.includes('broken.json: 1 problem, 3 warnings'), output);
    assert.ok(lines.includes('error  not valid JSON at line 1, column 12: unexpected end of the file'), output);
    assert.ok(lines.includes('bad.json: 1 problem, no warnings'), output);
    assert.match(lines[0], /^demo\.json: ok/);
  });

  test('exit 1 when a file cannot be read, naming the path', async () => {
    const { exitCode, output } = await runCheck(['demo.json', 'missing.json'], read);
    assert.equal(exitCode, 1);
    assert.match(output, /^error {2}cannot read missing\.json: no such file$/m);
  });

  test('exit 2 for no file or an unknown option, with the usage; --help prints the usage and exits 0', async () => {
    for (const args of [[], ['--json'], ['--strikt', 'demo.json']]) {
      const { exitCode, output } = await runCheck(args, read);
      assert.equal(exitCode, 2, args.join(' '));
      assert.match(output, /^error: (no bundle file given|unknown option --strikt)\n\nUsage: npm start -- check /);
    }
    const help = await runCheck(['--help'], read);
    assert.equal(help.exitCode, 0);
    assert.match(help.output, /^Usage: npm start -- check \[--json\] \[--strict\] <bundle\.json>\.\.\./);
    assert.match((await runCheck(['--help'], read, 'destination-map')).output, /^Usage: destination-map check /);
    const dashed = await runCheck(['--', '--strikt'], readFrom({ '--strikt': demoText }));
    assert.equal(dashed.exitCode, 0, 'after --, every argument is a file');
  });

  test('--json prints an array with one report per file', async () => {
    const { exitCode, output } = await runCheck(['--json', 'demo.json', 'broken.json', 'missing.json'], read);
    assert.equal(exitCode, 1);
    const reports = JSON.parse(output);
    assert.deepEqual(reports.map((r: any) => [r.file, r.ok, r.problems.length]), [['demo.json', true, 0], ['broken.json', false, 1], ['missing.json', false, 1]]);
    assert.deepEqual(reports[0], { file: 'demo.json', ...await checkBundle(demoText) });
    assert.deepEqual(reports[1].problems[0], { path: '$.events[4].starts_at', message: 'event "Event main:4" ($.events[4]): missing required field "starts_at"' });
    assert.deepEqual(reports[2].problems, [{ path: '$', message: 'cannot read missing.json: no such file' }]);
    const one = await runCheck(['demo.json', '--json'], read);
    assert.equal(one.exitCode, 0);
    assert.equal(JSON.parse(one.output).length, 1);
  });
});

describe('opening hours in check', () => {
  /** The fixture with hours on its first three markers (its first map given a country unless `country` is null). */
  const withHours = (hours: string[], country: string | null = 'PT'): any => {
    const b = cloneFixture();
    if (country) b.maps[0].country = country;
    hours.forEach((h, i) => { b.markers[i].hours = h; });
    for (const m of b.markers) delete m.opening_hours;
    return b;
  };

  test('a rule the library cannot read is refused at its POI with the library\'s own pointer', async () => {
    const report = await check(withHours(['Mo-Su 10:00-18:00', 'Mo-X 10:00-12:00', 'Tu-Su 25:00-26:00']));
    assert.equal(report.ok, false);
    const bad = findingAt(report.problems, '$.markers[1].hours');
    assert.match(bad.message, /^marker "[^"]+" \(\$\.markers\[1\]\): hours is not opening hours it can read: Mo-X <--- \(/);
    assert.ok(report.problems.some((p) => p.path === '$.markers[2].hours'), 'every bad rule is listed');
    assert.ok(!report.problems.some((p) => p.path === '$.markers[0].hours'));
  });

  test('PH is refused on a map without a country, and accepted with one; a country the library has no holidays for is refused', async () => {
    const without = await check(withHours(['Mo-Su 10:00-18:00; PH off'], null));
    assert.match(findingAt(without.problems, '$.markers[0].hours').message, /uses public holidays \(PH\): give its map a "country"/);
    assert.deepEqual((await check(withHours(['Mo-Su 10:00-18:00; PH off', 'Mo-Fr 09:00-17:00 "PH in a comment is words"'], 'PT'))).problems, []);
    assert.deepEqual((await check(withHours(['Mo-Fr 09:00-17:00 "PH in a comment is words"'], null))).problems, [], 'PH inside a comment is no rule');
    const unknown = await check(withHours(['Mo-Su 10:00-18:00; PH off'], 'XK'));
    assert.match(findingAt(unknown.problems, '$.markers[0].hours').message, /no holidays \(PH\) defined for country xk/i);
    const badCountry = await check(withHours(['Mo-Su 10:00-18:00'], 'Portugal'));
    assert.match(findingAt(badCountry.problems, '$.maps[0].country').message, /must be an ISO 3166-1 alpha-2 country code/);
  });

  test('what the library warns about is a warning; a text it can read is suggested as hours', async () => {
    const trailing = await check(withHours(['Mo-Su 10:00-18:00;']));
    assert.equal(trailing.ok, true);
    assert.match(findingAt(trailing.warnings, '$.markers[0].hours').message, /hours reads, with a warning: Mo-Su 10:00-18:00; <--- \(This rule does not contain anything useful/);
    const b = cloneFixture();
    b.markers[0].opening_hours = { en: 'Daily 19:30–02:00' };
    b.markers[1].opening_hours = 'Trams every 10–15 min';
    b.markers[2].opening_hours = 'Daily 19:30–02:00';
    b.markers[2].hours = 'Mo-Su 19:30-02:00';
    const report = await check(b);
    assert.equal(report.ok, true);
    assert.equal(findingAt(report.warnings, '$.markers[0].opening_hours').message,
      `marker "${b.markers[0].name}" ($.markers[0]): opening_hours "Daily 19:30–02:00" reads as OpenStreetMap hours: add "hours": "Mo-Su 19:30-02:00" so that open now and open at can find it`);
    assert.ok(!report.warnings.some((w) => w.path === '$.markers[1].opening_hours'), 'a text the library cannot read: no suggestion');
    assert.ok(!report.warnings.some((w) => w.path === '$.markers[2].opening_hours'), 'a marker that has hours: no suggestion');
  });
});
