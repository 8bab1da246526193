/**
 * Content edges beyond the fixture, below HTTP: the representative point of shapes across the
 * antimeridian, and impossible years. (The served edges: tests/http/edge-content.test.ts.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { representativePoint } from '../src/geo/geojson.ts';
import { BundleError, validateBundle } from '../src/content/bundle/validate-bundle.ts';
import { makeFixture } from './helpers/fixture.ts';

test('the representative point of a shape across the antimeridian lies on the dateline side, not near Greenwich', () => {
  const p = representativePoint({ type: 'LineString', coordinates: [[179.5, -17], [-179.5, -18]] });
  assert.ok(Math.abs(Math.abs(p.lng) - 180) < 1, JSON.stringify(p));
  assert.equal(p.lat, -17.5);
  const ordinary = representativePoint({ type: 'LineString', coordinates: [[-9.2, 38.7], [-9.1, 38.8]] });
  assert.deepEqual(ordinary, { lng: -9.15, lat: 38.75 });
});

test('a timestamp in year 0 is refused with its path, not left for the database to choke on', () => {
  const bad = makeFixture();
  bad.events[3].starts_at = '0000-06-01T00:00:00Z';
  assert.throws(() => validateBundle(bad), (err: unknown) =>
    err instanceof BundleError && err.problems.some((p) => p.path === '$.events[3].starts_at'));
});
