/**
 * The `id` subcommand: the name-based UUID (version 5, RFC 9562) of each key given, under the documented
 * namespace (docs/bundle-format.md, "Ids") or another one. An exporter that makes a bundle's ids from keys it
 * already has (a CRM id, a slug) gets the same id for the same key on every export, in any language that has
 * SHA-1, with no memory of earlier runs.
 */
import { makeUuidV5 } from '../utils/uuid.ts';

export { makeUuidV5 };

/** RFC 9562's namespace for names that are URLs (and URNs). */
export const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/** The namespace of bundle ids made from keys: the version 5 UUID of `urn:destination-map:ids` in the URL namespace. */
export const ID_NAMESPACE = 'f3aac1b7-6077-5d07-871a-940a5deb0c6e';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Usage of the subcommand. */
export function idUsage(command = 'npm start --'): string {
  return `Usage: ${command} id [--namespace <uuid>] <key>...

Prints the id a bundle record made from a key should have: the name-based UUID (version 5, RFC 9562) of each
key, one a line, in the order given. The key is taken as it is (its UTF-8 bytes: case and spaces count), so
the same key always gives the same id.

  --namespace <uuid>   the namespace   default: ${ID_NAMESPACE} (see docs/bundle-format.md, "Ids")
  --help               print this help

Exit status: 0 when every id was printed, 2 for a usage error (no key, a namespace that is not a UUID).
`;
}

/** Runs `id` with the arguments after the word; a key that starts with `-` follows `--`. */
export function runId(args: readonly string[], command?: string): { exitCode: number; message: string } {
  const usage = idUsage(command);
  let namespace = ID_NAMESPACE;
  const keys: string[] = [];
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const m = /^--namespace(?:=(.*))?$/.exec(arg);
    if (optionsEnded || !arg.startsWith('-')) keys.push(arg);
    else if (arg === '--') optionsEnded = true;
    else if (arg === '--help' || arg === '-h') return { exitCode: 0, message: usage };
    else if (m) {
      const value = m[1] ?? args[++i];
      if (value === undefined || !UUID_RE.test(value)) return { exitCode: 2, message: `error: --namespace takes a UUID, not "${value ?? ''}"\n\n${usage}` };
      namespace = value;
    } else return { exitCode: 2, message: `error: unknown option ${arg}\n\n${usage}` };
  }
  if (keys.length === 0) return { exitCode: 2, message: `error: no key given\n\n${usage}` };
  return { exitCode: 0, message: keys.map((key) => makeUuidV5(namespace, key)).join('\n') };
}
