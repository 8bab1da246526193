/** Name-based UUIDs (version 5, RFC 9562): the same name in the same namespace always gives the same id. */
import { createHash } from 'node:crypto';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The version 5 UUID of `name` (its UTF-8 bytes, as given) in `namespace`: SHA-1 of the namespace's 16 bytes and the name. */
export function makeUuidV5(namespace: string, name: string): string {
  if (!UUID_RE.test(namespace)) throw new RangeError(`a namespace must be a UUID, not "${namespace}"`);
  const hash = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
