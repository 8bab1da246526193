/**
 * The first stage of the pipeline: a bundle's bytes, their checksum, and the validated bundle.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { BundleT } from './bundle-schema.ts';
import { BundleError, validateBundle } from './validate-bundle.ts';

/** A bundle file, read only as far as needed: streamed through the hash when the store has its content. */
export interface BundleFile { path: string }

/** A bundle as text, as UTF-8 bytes, or as a file. */
export type BundleSource = string | Uint8Array | BundleFile;

/** Hex SHA-256 of a string (its UTF-8) or of bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The SHA-256 of a bundle's UTF-8 bytes; a file is streamed, never held whole. */
export async function checksumOf(source: BundleSource): Promise<string> {
  if (typeof source === 'string' || source instanceof Uint8Array) return sha256Hex(source);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(source.path)) hash.update(chunk as Uint8Array);
  return hash.digest('hex');
}

/** Reads, checksums and validates a whole bundle (the checksum is of exactly the bytes validated). */
export async function readBundle(source: BundleSource): Promise<{ checksum: string; bundle: BundleT }> {
  const content = typeof source === 'string' || source instanceof Uint8Array ? source : await readFile(source.path);
  return { checksum: sha256Hex(content), bundle: parseBundle(content) };
}

/** Parses and validates a bundle; BundleError lists every problem. */
export function parseBundle(source: string | Uint8Array): BundleT {
  let input: unknown;
  try {
    input = JSON.parse(typeof source === 'string' ? source : new TextDecoder().decode(source));
  } catch (err) {
    throw new BundleError([{ path: '$', message: `not valid JSON: ${(err as Error).message}` }]);
  }
  return validateBundle(input);
}
