/**
 * Opening hours whatever the server's `TZ`: the library evaluates in the process's own zone, so the service runs its
 * process on UTC (src/serve/utc-clock.ts) and feeds it the map's wall clock. The service is started with TZ set to
 * three zones (one without clock changes ahead of UTC, one with them behind it, the maps' own) on Node, and on Bun and
 * Deno with a zone each; every answer of `open_at` around both clock changes of both maps equals the brute forces.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hoursReader } from '../src/content/hours.ts';
import { reachableBy, startServer, type Runtime } from './helpers/server.ts';
import { HOURS, hoursBundle } from './helpers/small-bundles.ts';
import { instantsAround, intervalsOpen, libraryNextChange, libraryOpen, MAPS, RULES, setReader, type Key } from './helpers/hours-oracle.ts';

const dir = mkdtempSync(join(reachableBy('node', '/tmp'), 'hours-zones-'));
after(() => rmSync(dir, { recursive: true, force: true }));
before(async () => setReader(await hoursReader()));

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
/** The clock-change days of both maps and a holiday. */
const DATES: Record<Key, string[]> = { lisbon: ['2027-03-28', '2027-10-31', '2026-12-25'], newyork: ['2027-03-14', '2027-11-07', '2026-11-26'] };

const STARTS: [Runtime, string][] = [['node', 'Asia/Tokyo'], ['node', 'America/New_York'], ['node', 'Europe/Lisbon'], ['bun', 'America/Los_Angeles'],
  ['deno', 'Australia/Sydney']];

describe('open_at with the server in other time zones', () => {
  for (const [runtime, zone] of STARTS) {
    test(`${runtime} with TZ=${zone}: every answer is the brute forces'`, async () => {
      const home = mkdtempSync(join(reachableBy(runtime, dir), `${runtime}-`));
      const file = join(home, 'bundle.json');
      writeFileSync(file, JSON.stringify(hoursBundle()));
      const server = await startServer(runtime, ['--bundle', file, '--data-dir', join(home, 'data')], 120_000, { TZ: zone });
      try {
        let compared = 0;
        for (const key of Object.keys(MAPS) as Key[]) {
          for (const date of DATES[key]) {
            for (const at of instantsAround(date, MAPS[key].zone, 3)) {
              const res = await fetch(`${server.base}/maps/${HOURS.map(key)}/pois?tags=${HOURS.category(key)}&open_at=${iso(at)}&end=500`);
              const body = await res.json() as { items: { id: string; closes_at: string | null }[] };
              assert.equal(res.status, 200, JSON.stringify(body));
              const got = body.items.map((p) => p.id).sort();
              const expected = [...RULES].filter(([, r]) => r.key === key && libraryOpen(key, r.rule, at)).map(([id]) => id).sort();
              assert.deepEqual(got, expected, `${key} ${iso(at)}`);
              assert.deepEqual(got, [...RULES].filter(([, r]) => r.key === key && intervalsOpen(key, r.rule, at)).map(([id]) => id).sort());
              for (const p of body.items) {
                const next = libraryNextChange(key, RULES.get(p.id)!.rule, at);
                assert.equal(p.closes_at, next === null ? null : iso(next), `${key} ${iso(at)}: closes_at`);
              }
              compared++;
            }
          }
        }
        assert.ok(compared > 100, `${compared} instants`);
      } finally {
        assert.equal(await server.stop(), 0, server.output());
      }
    });
  }
});
