/**
 * GDAL's command-line tools for the tests that read the service's files back as a GIS tool does (GPX and KML with
 * `ogrinfo`): Debian's `gdal-bin`, installed with apt-get when it is missing, so `npm ci && npm test` does all the
 * set-up on a fresh machine (scripts/run-tests.ts calls `ensureGdal` before a run that includes such a test).
 */
import { spawnSync } from 'node:child_process';
import { ensureDebianPackage } from './debian.ts';

/** The Debian package's `ogrinfo`. */
export const OGRINFO = '/usr/bin/ogrinfo';

/** Installs Debian's `gdal-bin` with apt-get when /usr/bin/ogrinfo is missing (about half a minute), printing what it does. */
export function ensureGdal(log: (line: string) => void = (line) => console.log(line)): void {
  ensureDebianPackage('gdal-bin', OGRINFO, 'the GDAL tests', log);
}

/** A layer as `ogrinfo -so` summarises it. */
export interface OgrLayer { name: string; geometry: string; features: number }

/**
 * The layers of a file as GDAL reads it (`ogrinfo -ro -al -so`, read-only, every layer, a summary of each), with the
 * driver that opened it. Throws with ogrinfo's output when it cannot read the file.
 */
export function ogrLayers(file: string): { driver: string; layers: OgrLayer[] } {
  ensureGdal();
  const run = spawnSync(OGRINFO, ['-ro', '-al', '-so', file], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0 || /^(ERROR|Warning)\b/m.test(run.stderr)) throw new Error(`ogrinfo ${file} failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  const driver = /using driver `([^']+)'/.exec(run.stdout)?.[1] ?? '';
  const layers = run.stdout.split(/^Layer name: /m).slice(1).map((block) => ({
    name: block.slice(0, block.indexOf('\n')),
    geometry: /^Geometry: (.+)$/m.exec(block)?.[1] ?? '',
    features: Number(/^Feature Count: (\d+)$/m.exec(block)?.[1] ?? NaN),
  }));
  return { driver, layers };
}
