/**
 * What every ceiling server reads: its flags and the prebuilt answers (status, content-type and the exact
 * body bytes the service sent), loaded once from the manifest the benchmark wrote.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One prebuilt answer as the manifest lists it. */
interface Entry { key: string; status: number; contentType: string; file: string }

/** A prebuilt answer, ready to send. */
export interface Prebuilt { status: number; contentType: string; body: Uint8Array<ArrayBuffer> }

/** Reads a `--name value` flag. */
export function flag(args: readonly string[], name: string, fallback?: string): string {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? args[at + 1] : fallback;
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
}

/** The answers of `--manifest`, keyed by path and query. */
export function readPrebuilt(args: readonly string[]): Map<string, Prebuilt> {
  const manifest = flag(args, 'manifest');
  const entries = (JSON.parse(readFileSync(manifest, 'utf8')) as { entries: Entry[] }).entries;
  return new Map(entries.map((e) => [e.key, {
    status: e.status, contentType: e.contentType, body: new Uint8Array(readFileSync(join(dirname(manifest), e.file))),
  }]));
}
