/** SHA-256, for what must be the same everywhere: a bundle's checksum, a session token's stored hash. */
import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string (its UTF-8) or of bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
