/**
 * The socket holder of the slow-client probe, run as its own process (slow.ts spawns it through bash with a
 * raised open-file limit, since a Node process cannot raise its own hard limit): opens `--slow` slowloris
 * sockets, each sending a partial request line or partial headers and then one more byte every `--interval`
 * seconds without ever finishing, and `--idle` sockets that connect and send nothing. It never reconnects: it
 * records when the server closed each socket (and what the server said first, e.g. a 408), so the report can
 * tell how long the server let such clients hold a connection.
 *
 *   node scripts/reliability/slow-holder.ts --port 8787 --slow 1000 --idle 1100 --interval 5
 *
 * Prints one JSON line `{"event":"held",...}` once every socket has connected (or failed to), a status line
 * for each `status` line read on stdin, and a final summary when stdin ends or on SIGTERM; then exits.
 */
import { connect, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { fdLimits } from '../harness/process-stats.ts';
import { median, round } from '../harness/stats.ts';

const { values } = parseArgs({
  options: { port: { type: 'string' }, slow: { type: 'string' }, idle: { type: 'string' }, interval: { type: 'string' }, path: { type: 'string' } },
});
const PORT = Number(values.port);
const SLOW = Number(values.slow ?? 1000);
const IDLE = Number(values.idle ?? 1100);
const INTERVAL_MS = Number(values.interval ?? 5) * 1000;
const PATH = values.path ?? '/';

type Kind = 'slow' | 'idle';

/** One held socket. */
interface Held {
  kind: Kind;
  socket: Socket;
  openedAt: number;
  connected: boolean;
  /** Seconds from connect to the server's close, or null while open. */
  closedAfterS: number | null;
  /** Why connecting failed, if it did. */
  connectError: string | null;
  /** The first line the server sent (a 408 or 400 before closing), if any. */
  said: string | null;
  /** The slowloris's next bytes, one at a time. */
  rest: string;
  /** When it sends its next byte (ms, performance.now()). */
  nextAt: number;
  bytesSent: number;
}

const began = performance.now();
const held: Held[] = [];
let stopping = false;

/** Opens one socket; the slow ones start their never-ending request at once. */
function open(kind: Kind, i: number): Promise<void> {
  return new Promise((resolve) => {
    // Half the slowloris sockets stall inside the request line, half inside the headers.
    const inLine = i % 2 === 0;
    const first = inLine ? `GET ${PATH}?slow=` : `GET ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `;
    const socket = connect({ port: PORT, host: '127.0.0.1' });
    const h: Held = { kind, socket, openedAt: performance.now(), connected: false, closedAfterS: null, connectError: null, said: null,
      rest: '', nextAt: 0, bytesSent: 0 };
    held.push(h);
    // A connect the server never completes (a full backlog) counts as failed after 10 s.
    const timer = setTimeout(() => {
      if (h.connected) return;
      h.connectError = 'connect timeout';
      socket.destroy();
      resolve();
    }, 10_000);
    socket.once('connect', () => {
      clearTimeout(timer);
      h.connected = true;
      h.openedAt = performance.now();
      if (kind === 'slow') {
        socket.write(first);
        h.bytesSent += first.length;
        // Spread the trickle: each socket sends its next byte at its own offset within the interval.
        h.nextAt = h.openedAt + INTERVAL_MS * (0.5 + Math.random());
      }
      resolve();
    });
    socket.on('data', (d: Buffer) => { h.said ??= d.toString('latin1').split('\r\n')[0].slice(0, 80); });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!h.connected) {
        clearTimeout(timer);
        h.connectError ??= err.code ?? err.message;
        resolve();
      }
    });
    socket.on('close', () => {
      if (h.connected && h.closedAfterS === null && !stopping) h.closedAfterS = Math.round(performance.now() - h.openedAt) / 1000;
      resolve();
    });
  });
}

/** Every 100 ms, the slowloris sockets that are due send one more byte. */
const trickle = setInterval(() => {
  const now = performance.now();
  for (const h of held) {
    if (h.kind !== 'slow' || !h.connected || h.closedAfterS !== null || now < h.nextAt) continue;
    h.socket.write('a');
    h.bytesSent++;
    h.nextAt = now + INTERVAL_MS;
  }
}, 100);

/** Counts by kind: open, closed by the server, never connected. */
function status(): Record<string, unknown> {
  const of = (kind: Kind) => {
    const mine = held.filter((h) => h.kind === kind);
    const closed = mine.filter((h) => h.closedAfterS !== null).map((h) => h.closedAfterS!).sort((a, b) => a - b);
    const failed: Record<string, number> = {};
    for (const h of mine) if (h.connectError) failed[h.connectError] = (failed[h.connectError] ?? 0) + 1;
    const said: Record<string, number> = {};
    for (const h of mine) if (h.said) said[h.said] = (said[h.said] ?? 0) + 1;
    return {
      asked: kind === 'slow' ? SLOW : IDLE, connected: mine.filter((h) => h.connected).length,
      open: mine.filter((h) => h.connected && h.closedAfterS === null).length, closedByServer: closed.length,
      closedAfterS: { first: closed[0] ?? null, median: closed.length ? round(median(closed), 3) : null, last: closed[closed.length - 1] ?? null }, connectFailed: failed, serverSaid: said,
      bytesSent: mine.reduce((s, h) => s + h.bytesSent, 0),
    };
  };
  return { atS: Math.round(performance.now() - began) / 1000, slow: of('slow'), idle: of('idle') };
}

/** The open-file limits this process got, as "soft/hard". */
function limits(): string | null {
  const got = fdLimits('self');
  return got ? `${got.soft}/${got.hard}` : null;
}

function finish(): void {
  if (stopping) return;
  const summary = { event: 'summary', ...status() };
  stopping = true;
  clearInterval(trickle);
  for (const h of held) h.socket.destroy();
  process.stdout.write(`${JSON.stringify(summary)}\n`, () => process.exit(0));
}

process.once('SIGTERM', finish);
process.stdin.setEncoding('utf8');
let input = '';
process.stdin.on('data', (d: string) => {
  input += d;
  let nl: number;
  while ((nl = input.indexOf('\n')) >= 0) {
    const line = input.slice(0, nl).trim();
    input = input.slice(nl + 1);
    if (line === 'status') process.stdout.write(`${JSON.stringify({ event: 'status', ...status() })}\n`);
    if (line === 'stop') finish();
  }
});
process.stdin.on('end', finish);

// Connect in batches of 100, so the listener's backlog is not the limit being measured.
const kinds: Kind[] = [...Array.from({ length: SLOW }, () => 'slow' as const), ...Array.from({ length: IDLE }, () => 'idle' as const)];
for (let i = 0; i < kinds.length; i += 100) {
  await Promise.all(kinds.slice(i, i + 100).map((kind, j) => open(kind, i + j)));
}
process.stdout.write(`${JSON.stringify({ event: 'held', fdLimit: limits(), ...status() })}\n`);
