/**
 * Deno entry: the Node server (node-server.ts) on Deno's node:http.
 *
 * Deno.serve was the first choice and is measured no faster here (docs/reliability.md), but it has no timeouts
 * and no connection cap to set (slowloris and idle sockets stay open for good), it keeps a connection open after
 * answering `Connection: close`, its shutdown() dropped requests on keep-alive connections in an outside probe,
 * and when it runs out of file descriptors its listener stops for good. Deno's node:http has Node's timers,
 * connection cap and shutdown sequence, so all three runtimes keep the same limits and lose nothing on SIGTERM.
 * The handler is the same app either way.
 */
import './utc-clock.ts';

await import('./node-server.ts');
