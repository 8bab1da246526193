/**
 * Node's connection limits and graceful shutdown, on node:http.
 *
 * Limits: node:http's own timers for headers, whole requests and idle keep-alive connections, checked every
 * second (Node's default is every 30 s, so a slow client outlived its timeout by up to half a minute), and
 * `maxConnections`, past which node:http closes a new connection as soon as it is accepted.
 *
 * Shutdown (`drain`): the app marks every answer `Connection: close` (see App.drain); the listener stops
 * accepting; a connection is closed once it is idle, but only after it has been idle for IDLE_GRACE_MS since the
 * signal, so a keep-alive client that was about to send its next request gets it answered (with
 * `Connection: close`) instead of finding the connection reset under it; requests in flight finish; what is
 * left at the deadline is closed. Idle time is counted in turns of the event loop (`ticks` in shutdown.ts), so a
 * request that arrived while the process was not running is read before its connection counts as idle.
 * node:http's own `server.close()` closes idle connections at once, which is how every keep-alive client lost a
 * request in an outside probe (docs/decisions.md, Engineering).
 */
import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { ConnectionLimits } from './config.ts';
import { ticks } from './shutdown.ts';

/** How long a connection that is idle after the signal is left open for a request already on its way. */
export const IDLE_GRACE_MS = 500;

/** Applies the limits to a node:http server (before it listens). */
export function applyNodeLimits(server: Server, limits: ConnectionLimits, maxConnections: number): void {
  server.headersTimeout = limits.headersTimeoutS * 1000;
  server.requestTimeout = limits.requestTimeoutS * 1000;
  server.keepAliveTimeout = limits.keepAliveTimeoutS * 1000;
  server.maxConnections = maxConnections;
}

/** The options of node:http's createServer that cannot be set afterwards. */
export const NODE_SERVER_OPTIONS = { connectionsCheckingInterval: 1000 } as const;

/** Requests in flight on a connection, and how long it has been idle while draining (by `ticks`; 0 before). */
interface ConnectionState { busy: number; idleMs: number }

/** Tracks a server's connections and whether each has a request in flight; `drain` shuts it down gracefully. */
export function trackConnections(server: Server): { drain(deadline: number): Promise<void>; open(): number } {
  const connections = new Map<Socket, ConnectionState>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { busy: 0, idleMs: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (req, res) => {
    const state = connections.get(req.socket);
    if (!state) return;
    state.busy++;
    res.once('close', () => {
      state.busy--;
      state.idleMs = 0;
    });
  });

  /** Stops the server gracefully; what is still open at `deadline` (performance.now()) is closed. */
  async function drain(deadline: number): Promise<void> {
    // Stop accepting, without node:http's closing of idle connections.
    NetServer.prototype.close.call(server);
    await ticks(() => connections.size > 0 && performance.now() < deadline, (step) => {
      for (const [socket, state] of connections) {
        if (state.busy > 0) continue;
        state.idleMs += step;
        if (state.idleMs >= IDLE_GRACE_MS && !socket.writableEnded) socket.end();
      }
    });
    for (const socket of connections.keys()) socket.destroy();
  }

  return { drain, open: () => connections.size };
}
