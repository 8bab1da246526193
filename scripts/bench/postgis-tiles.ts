/**
 * The anchor of the vector-tile rows: PostGIS `ST_AsMVT` on the same points and the same distinct tiles, the way
 * Martin, pg_tileserv and Tegola make tiles. Debian's PostgreSQL 15 with PostGIS 3 (installed with apt-get when
 * missing), a throwaway cluster in a temporary directory (as the `postgres` user when run as root: initdb refuses
 * root), the points in EPSG:3857 with a GiST index, and `connections` clients (postgres.js, one query at a time each)
 * sending each tile once, for at most `seconds`. The server runs on the cores the service's runs use when pinning is
 * possible. Reports tiles/s; stops and removes the cluster whatever happens.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import postgres from 'postgres';
import { ensureDebianPackage } from '../../tests/helpers/debian.ts';

const BIN = '/usr/lib/postgresql/15/bin';
const POSTGIS_CONTROL = '/usr/share/postgresql/15/extension/postgis.control';

/** What the anchor measured. */
export interface PostgisTiles {
  version: string;
  points: number;
  /** Tiles answered, over the seconds measured, with `connections` clients. */
  tiles: number;
  seconds: number;
  tilesPerSecond: number;
  connections: number;
  /** Tiles that held no point (an empty tile, as the service's). */
  empty: number;
}

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary, as `postgres` when this process is root; throws with its output when it fails. */
function run(args: string[], pin: string[]): void {
  const asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  const command = [...pin, ...asUser, ...args];
  const result = spawnSync(command[0], command.slice(1), { encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`${command.join(' ')} failed (${result.status}): ${result.stdout}\n${result.stderr}`);
}

/**
 * Loads `points` ([lng, lat] with an id and name) into a throwaway PostGIS and measures ST_AsMVT over `tiles`
 * ([z, x, y], each sent once, in order, shared by the clients). `pin` is a command prefix (`taskset -c 0`) or empty.
 */
export async function postgisTiles(points: readonly { id: string; name: string; lng: number; lat: number }[], tiles: readonly [number, number, number][],
  options: { seconds: number; connections: number; pin: string[]; log: (line: string) => void }): Promise<PostgisTiles> {
  ensureDebianPackage('postgresql-15-postgis-3', POSTGIS_CONTROL, 'the benchmark\'s PostGIS tile anchor', options.log);
  const dir = mkdtempSync(join(tmpdir(), 'postgis-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) chownSync(dir, Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()), Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim()));
  const port = await freePort();
  let started = false;
  try {
    run([`${BIN}/initdb`, '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], []);
    run([`${BIN}/pg_ctl`, '-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=256MB`, 'start'], options.pin);
    started = true;
    const sql = postgres({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: options.connections, onnotice: () => {} });
    try {
      await sql`CREATE EXTENSION postgis`;
      const [{ version }] = await sql<{ version: string }[]>`SELECT postgis_full_version() AS version`;
      await sql`CREATE TABLE pois (id text, name text, geom geometry(Point, 3857))`;
      for (let i = 0; i < points.length; i += 10_000) {
        const batch = points.slice(i, i + 10_000);
        await sql`INSERT INTO pois SELECT id, name, ST_Transform(ST_SetSRID(ST_MakePoint(lng, lat), 4326), 3857)
          FROM unnest(${sql.array(batch.map((p) => p.id))}::text[], ${sql.array(batch.map((p) => p.name))}::text[],
            ${sql.array(batch.map((p) => p.lng))}::float8[], ${sql.array(batch.map((p) => p.lat))}::float8[]) AS t(id, name, lng, lat)`;
      }
      await sql`CREATE INDEX pois_geom ON pois USING gist (geom)`;
      await sql`ANALYZE pois`;
      // One tile: the points in it and a buffer of 64/4096 around it, as Martin's and pg_tileserv's queries do.
      const tile = (z: number, x: number, y: number) => sql<{ mvt: Uint8Array }[]>`
        SELECT ST_AsMVT(q, 'markers', 4096, 'geom') AS mvt FROM (
          SELECT id, name, ST_AsMVTGeom(geom, ST_TileEnvelope(${z}, ${x}, ${y}), 4096, 64, true) AS geom
          FROM pois WHERE geom && ST_TileEnvelope(${z}, ${x}, ${y}, margin => (64.0 / 4096))
        ) q`;
      await tile(14, 7776, 6278); // planned once before the clock starts
      let next = 0;
      let done = 0;
      let empty = 0;
      const began = performance.now();
      const until = began + options.seconds * 1000;
      await Promise.all(Array.from({ length: options.connections }, async () => {
        while (performance.now() < until && next < tiles.length) {
          const [z, x, y] = tiles[next++];
          const [row] = await tile(z, x, y);
          if (!row.mvt || row.mvt.length === 0) empty++;
          done++;
        }
      }));
      const seconds = (performance.now() - began) / 1000;
      return { version: version.split(' ').slice(0, 2).join(' '), points: points.length, tiles: done, seconds: Math.round(seconds * 10) / 10,
        tilesPerSecond: Math.round(done / seconds), connections: options.connections, empty };
    } finally {
      await sql.end({ timeout: 5 });
    }
  } finally {
    if (started) run([`${BIN}/pg_ctl`, '-D', data, '-m', 'immediate', 'stop'], []);
    rmSync(dir, { recursive: true, force: true });
  }
}
