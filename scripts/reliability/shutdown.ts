/**
 * The shutdown probe: does SIGTERM lose requests? On a fresh service, 50 keep-alive connections (raw sockets of
 * raw-http.ts) each send requests for a cached URL back to back; after 2 s the server gets SIGTERM. Counted:
 * requests answered before and after the signal; requests that failed on a connection that was open (reset,
 * closed before the answer, timed out: target 0); new connections refused once the listener had closed (not
 * failures: a client reconnecting after `Connection: close` finds the door shut, and stops once the server has
 * exited); whether the answers after the signal carried `Connection: close`; the time from signal to exit and the
 * exit code. Run by scripts/reliability.ts; no CLI.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Runtime } from '../../tests/helpers/server.ts';
import { hasExited } from '../harness/spawn.ts';
import { round } from '../harness/stats.ts';
import { POIS_PATH, row, say, startService, type ProbeOutcome } from './common.ts';
import { NoAnswerError, RawConnection, requestBytes } from './raw-http.ts';

/** Connections, and how long they load the server before the signal. */
const CONNECTIONS = 50;
const BEFORE_SIGNAL_MS = 2000;
/** The longest wait for the exit after the signal before SIGKILL (the service's own deadline is 10 s). */
const EXIT_BUDGET_MS = 30_000;
/**
 * Requests sent this soon after the signal may be read before the server has run its signal handler (the signal
 * arrives asynchronously, between turns of its event loop): their answers are not held to `Connection: close`.
 */
const SIGNAL_LAG_MS = 50;

/** Runs the shutdown probe on a fresh service on `runtime`. */
export async function probeShutdown(runtime: Runtime, dataDir: string): Promise<ProbeOutcome> {
  const service = await startService(runtime, { dataDir });
  const request = requestBytes('GET', POIS_PATH, [['Host', `127.0.0.1:${service.port}`], ['Accept-Encoding', 'identity']]);
  let signalAt: number | null = null;
  let exited = false;
  const c = {
    answeredBefore: 0, answeredAfter: 0, afterWithClose: 0, sentAfter: 0, sentAfterWithClose: 0, sentLate: 0, sentLateWithClose: 0, latestSentAfterWithoutCloseMs: null as number | null, non200: 0, failures: {} as Record<string, number>, failuresBeforeSignal: 0,
    refusedAfterSignal: 0, refusedBeforeSignal: 0, connectionsOpened: 0, connectionsOpenedAfterSignal: 0, lastAnswerAfterSignalMs: 0,
  };
  const failureExamples: string[] = [];
  void service.exited.then(() => { exited = true; });

  /** One client: keep a connection, send back to back; reconnect when the server closes; stop when it has exited. */
  async function client(): Promise<void> {
    let conn: RawConnection | null = null;
    while (!exited) {
      if (!conn || !conn.open) {
        conn = new RawConnection(service.port);
        try {
          await conn.connected();
          c.connectionsOpened++;
          if (signalAt !== null) c.connectionsOpenedAfterSignal++;
        } catch {
          conn = null;
          if (signalAt === null) c.refusedBeforeSignal++;
          else c.refusedAfterSignal++;
          // The listener is closed: wait a little and try again until the server is gone.
          await sleep(50);
          continue;
        }
      }
      // When the request went out, relative to the signal (null: before it).
      const sentAt = signalAt === null ? null : performance.now() - signalAt;
      try {
        const answer = await conn.send(request, 'GET', 15_000);
        if (answer.status !== 200) c.non200++;
        if (signalAt === null) c.answeredBefore++;
        else {
          c.answeredAfter++;
          c.lastAnswerAfterSignalMs = Math.round(performance.now() - signalAt);
          if (answer.close) c.afterWithClose++;
        }
        if (sentAt !== null) {
          c.sentAfter++;
          if (answer.close) c.sentAfterWithClose++;
          if (sentAt >= SIGNAL_LAG_MS) {
            c.sentLate++;
            if (answer.close) c.sentLateWithClose++;
          }
          else c.latestSentAfterWithoutCloseMs = Math.max(c.latestSentAfterWithoutCloseMs ?? 0, round(sentAt, 1));
        }
      } catch (err) {
        if (!(err instanceof NoAnswerError)) throw err;
        // A request written on an open connection and never answered: what a client sees as a lost request.
        const beforeSignal = signalAt === null;
        const key = `${err.reason}${beforeSignal ? ' (before the signal)' : ''}`;
        c.failures[key] = (c.failures[key] ?? 0) + 1;
        if (beforeSignal) c.failuresBeforeSignal++;
        if (failureExamples.length < 5) {
          failureExamples.push(`${err.message} ${signalAt === null ? 'before the signal' : `${Math.round(performance.now() - signalAt)} ms after the signal`}, ` +
            `on a connection that had answered ${conn.answered} requests`);
        }
        conn = null;
      }
    }
    conn?.destroy();
  }

  try {
    say(`${runtime} shutdown: ${CONNECTIONS} keep-alive connections, SIGTERM after ${BEFORE_SIGNAL_MS / 1000} s`);
    const clients = Array.from({ length: CONNECTIONS }, () => client());
    await sleep(BEFORE_SIGNAL_MS);
    const openAtSignal = c.connectionsOpened;
    signalAt = performance.now();
    service.child.kill('SIGTERM');
    const budget = setTimeout(() => { if (!hasExited(service.child)) service.child.kill('SIGKILL'); }, EXIT_BUDGET_MS);
    const exit = await service.exited;
    clearTimeout(budget);
    const exitMs = Math.round(exit.at - signalAt);
    // The clients stop on the exit; the ones waiting on an answer find the connection closed.
    await Promise.race([Promise.all(clients), sleep(20_000)]);
    const killed = exit.signal === 'SIGKILL';
    const lost = Object.values(c.failures).reduce((s, x) => s + x, 0);
    const lostAfter = lost - c.failuresBeforeSignal;
    say(`${runtime} shutdown: answered ${c.answeredBefore} before + ${c.answeredAfter} after the signal; lost ${lost}; refused ${c.refusedAfterSignal}; ` +
      `exit ${exit.code ?? exit.signal} after ${exitMs} ms`);
    const rows = [
      row(runtime, 'requests answered before / after the signal', `${c.answeredBefore} / ${c.answeredAfter}${c.non200 ? ` (${c.non200} not 200)` : ''}`),
      row(runtime, 'requests lost on open connections (reset, closed before the answer, timeout)',
        `${lost}${lost ? ` (${Object.entries(c.failures).map(([k, v]) => `${k}×${v}`).join(', ')})` : ''}`, '0', lost === 0, -lost),
      row(runtime, 'new connections refused after the listener closed (not failures)', c.refusedAfterSignal),
      row(runtime, 'answers received after the signal carrying Connection: close (requests in flight at the signal included)',
        `${c.afterWithClose} of ${c.answeredAfter}`),
      row(runtime, 'answers to requests sent after the signal carrying Connection: close',
        `${c.sentAfterWithClose} of ${c.sentAfter}${c.latestSentAfterWithoutCloseMs !== null ? ` (the latest without it was sent ${c.latestSentAfterWithoutCloseMs} ms after the signal)` : ''}`),
      row(runtime, `answers to requests sent ${SIGNAL_LAG_MS} ms or more after the signal carrying Connection: close`, `${c.sentLateWithClose} of ${c.sentLate}`,
        'all', c.sentLate === 0 ? null : c.sentLate === c.sentLateWithClose, c.sentLate === 0 ? null : c.sentLateWithClose / c.sentLate),
      row(runtime, 'connections open at the signal; opened after it', `${openAtSignal}; ${c.connectionsOpenedAfterSignal}`),
      row(runtime, 'signal to exit', killed ? `no exit in ${EXIT_BUDGET_MS / 1000} s: SIGKILLed` : `${exitMs} ms (last answer at ${c.lastAnswerAfterSignalMs} ms)`,
        '', killed ? false : null),
      row(runtime, 'exit code', String(exit.code ?? exit.signal), '0', exit.code === 0),
    ];
    const notes = [
      ...(c.refusedBeforeSignal ? [`${runtime} shutdown: ${c.refusedBeforeSignal} connections were refused before the signal`] : []),
      ...(lostAfter !== lost ? [`${runtime} shutdown: ${lost - lostAfter} of the lost requests were lost before the signal`] : []),
      ...failureExamples.map((e) => `${runtime} shutdown, a lost request: ${e}`),
    ];
    return { rows, notes, raw: { ...c, openAtSignal, exitMs, exit: { code: exit.code, signal: exit.signal }, signalToExitS: round(exitMs / 1000, 3) } };
  } finally {
    exited = true;
    await service.stop();
  }
}
