/**
 * A network trap preloaded into the service for the kiosk test (`node --import`, `bun --preload`): every
 * attempt to resolve a name or to connect anywhere but the loopback is recorded in the file named by
 * NETWORK_TRAP_LOG and refused.
 */
import { appendFileSync } from 'node:fs';
import dns from 'node:dns';
import net from 'node:net';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i;

function record(what: string): Error {
  const line = `outbound network attempt: ${what}`;
  if (process.env.NETWORK_TRAP_LOG) appendFileSync(process.env.NETWORK_TRAP_LOG, `${line}\n`);
  console.error(line);
  return new Error(line);
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const first = args[0] as { host?: string; path?: string } | number | string;
  const host = typeof first === 'object' && first !== null ? first.host ?? (first.path ? 'unix' : 'localhost')
    : typeof first === 'number' ? String(args[1] ?? 'localhost') : 'unix';
  if (host !== 'unix' && !LOOPBACK.test(host)) throw record(`connect to ${host}`);
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;

for (const name of ['lookup', 'resolve', 'resolve4', 'resolve6', 'resolveAny'] as const) {
  const original = dns[name] as (...a: unknown[]) => unknown;
  (dns as unknown as Record<string, unknown>)[name] = (host: string, ...rest: unknown[]) => {
    if (!LOOPBACK.test(host)) throw record(`dns ${name} ${host}`);
    return original.call(dns, host, ...rest);
  };
}

const realFetch = globalThis.fetch;
globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (!LOOPBACK.test(url.hostname.replace(/^\[|\]$/g, ''))) return Promise.reject(record(`fetch ${url.href}`));
  return realFetch(input, init);
}) as typeof fetch;
