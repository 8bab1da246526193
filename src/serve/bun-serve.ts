/**
 * Serving on Bun.serve: shared by the Bun entry (src/serve/bun.ts) and the single binary (src/serve/binary.ts),
 * with `--workers N` the serving threads of serving-threads.ts beside the main thread (not in the binary).
 */
import { bunIdleTimeout } from './limits.ts';
import { runServer } from './run-server.ts';
import type { Listen } from './serving-threads.ts';
import { ranFor, until } from './shutdown.ts';
import { start, type StartOptions } from './start.ts';

declare const Bun: {
  serve(options: { port: number; hostname: string; idleTimeout: number; reusePort: boolean; fetch(req: Request): Promise<Response> }):
    { port: number; stop(closeActiveConnections?: boolean): Promise<void> };
  gc(full: boolean): void;
};

/** How long answers are held after the signal before Bun's listener closes (see `stop` in listenBun). */
export const BUN_HOLD_MS = 250;

/** Listens with Bun.serve; with `reusePort`, on a socket other threads' listeners share (SO_REUSEPORT). */
export const listenBun: Listen = async (app, config, _logger, reusePort) => {
  // While stopping, answers wait at this gate until the listener is closed (see stop).
  let gate: Promise<void> | null = null;
  // Bun sends Date on every answer but those to HEAD; RFC 9110 asks for it on all of them.
  const fetch = async (req: Request) => {
    const res = await app.fetch(req);
    if (gate) await gate;
    if (req.method === 'HEAD' && !res.headers.has('date')) res.headers.set('date', new Date().toUTCString());
    return res;
  };
  const server = Bun.serve({ port: config.port, hostname: config.host, idleTimeout: bunIdleTimeout(config.limits), reusePort, fetch });
  // Bun.serve's stop() closes the listener and every idle connection at once, so a keep-alive client about to
  // send on one loses that request, and one reconnecting after a Connection: close just before the listener
  // closes is reset. So answers are held at a gate for HOLD_MS: every keep-alive client sending back to back has
  // a request in flight by then, which stop() waits for; the listener closes; then the held answers go out, all
  // saying Connection: close, and a client that reconnects is refused (it goes to another replica) instead of
  // being reset. The hold is counted in turns of the event loop (`ranFor`), so requests that arrived while the
  // process was not running are read, and in flight, before the listener closes. What is still open at the
  // shutdown timeout is closed.
  const stop = async (deadline: number) => {
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    await ranFor(BUN_HOLD_MS, deadline);
    const stopped = server.stop();
    open();
    if (!(await until(stopped, deadline))) await server.stop(true);
  };
  return { port: server.port, stop };
};

/**
 * Starts the service on Bun.serve: stage, listen, load; stops gracefully on SIGTERM and SIGINT. What opening the
 * store and the start-up publish used is garbage once each is done (the bundle's text and its parse, the rows
 * read back, the store files' old buffers), but JavaScriptCore counts the embedded database's wasm memory in the heap it
 * grows from, so it would wait long to collect them: a full collection after staging and one once the content is
 * loaded give that memory back, and keep the publish from piling on top of the staging's.
 */
export async function serveOnBun(runtime: string, args: readonly string[], options: StartOptions = {}): Promise<void> {
  const started = await start(args, process.env, options);
  if ('exitCode' in started) {
    (started.exitCode === 0 || started.report ? console.log : console.error)(started.message);
    process.exit(started.exitCode);
  }
  if (started.config.workers > 1 && options.worker === false) {
    await started.close();
    console.error('error: --workers above 1 needs the npm package or the container: the single binary serves on one thread');
    process.exit(2);
  }
  Bun.gc(true);
  await runServer(started, { runtime, server: 'Bun.serve', listen: listenBun, threadFile: new URL('./bun-thread.ts', import.meta.url) });
  Bun.gc(true);
}
