/**
 * `--workers N`: N threads answer requests in one process. The main thread keeps everything else (the store,
 * publishing, the replica's database, the signals) and answers requests too; N - 1 worker threads each listen on
 * the same port (SO_REUSEPORT: the kernel spreads connections over the listeners) with an app and a response cache
 * of their own.
 *
 * Every thread serves a read model of the same version. The store copies each version's payload into shared
 * memory (ContentStore.sharePayloads), so the event tables, which are most of a large version, are one set of
 * bytes viewed by every thread; each thread parses the rest (maps, POIs, categories) into its own objects.
 * A new version reaches a worker as an event (src/content/journey.ts says the whole journey); it builds its model in
 * slices, answering meanwhile from the
 * version it has, and swaps it in: for a moment threads may serve different versions, as replicas do, and each
 * answer says which (`X-Content-Version`). Sessions are asked of the main thread, which holds them.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { createApp, type App } from '../app.ts';
import type { NotLoaded, PublishRecord, ServedContent } from '../content/content-store.ts';
import type { VersionInfo } from '../content/store/sql-store.ts';
import type { ContentStore } from '../content/content-store.ts';
import { changesFor, fromWire, ServedVersion, toWire, type WirePayload } from '../content/journey.ts';
import type { ChangeSummary, RecordChange } from '../content/changes.ts';
import type { ReadModel } from '../content/model/read-model.ts';
import type { DatabaseState } from '../content/content-store.ts';
import type { SessionAnswer } from '../content/sessions.ts';
import { createLogger, type Logger } from '../utils/log.ts';
import { RpcPeer } from '../utils/rpc.ts';
import { appSettings, type ServerConfig } from './config.ts';

/** A runtime's way to serve an app: listens (sharing the port when `reusePort`), and stops letting requests finish. */
export type Listen = (app: App, config: ServerConfig, logger: Logger, reusePort: boolean) => Promise<Listener>;

/** A listening server. */
export interface Listener {
  /** The port listened on (the one chosen when the config says 0). */
  port: number;
  /** Stops accepting, lets requests in flight finish, gives up at `deadline` (performance.now()). */
  stop(deadline: number): Promise<void>;
  /** Open connections, where the runtime can tell. */
  open?(): number;
}

/**
 * What crosses between the main thread and a worker, over RpcPeer (src/utils/rpc.ts): the main thread sends events
 * `content` (a new version's payload, or null, with the state /readyz shows) and `stop`; a worker sends `listening`,
 * `failed` and `stopped`, and calls `lookupSession` (the sessions are held by the main thread) and `changeHistory` (the
 * store is).
 */
interface ContentEvent { payload: WirePayload | null; changes?: ChangeSummary | null; state: ContentState }

/** What the main thread knows of its content besides the version served, which every thread's /readyz shows. */
type ContentState = Pick<ServedContent, 'lastPublish' | 'database' | 'storeCurrent' | 'notLoaded'>;

/** The state of `store` as sent. */
function stateOf(store: ContentStore): ContentState {
  return { lastPublish: store.lastPublish, database: store.database, storeCurrent: store.storeCurrent, notLoaded: store.notLoaded };
}

/** What a worker thread starts with. */
interface WorkerStart { config: ServerConfig; port: number; thread: number }

/**
 * The young generation of each worker thread's heap, in MB. V8 lets it grow several times larger on a machine with
 * memory to spare, and each thread's stays resident once grown: memory paid once more per thread. Requests' garbage
 * dies young and what survives is small, so a smaller one costs no measurable CPU a request and saves memory per
 * thread (docs/decisions.md, What a thread costs). Node and Deno honour it; Bun ignores it. The main thread keeps
 * V8's default.
 */
const WORKER_YOUNG_GENERATION_MB = 32;

/** How often a replica's database state is sent on to the workers (for their /readyz). */
const DATABASE_STATE_MS = 1000;

/** The worker threads of one process, seen from the main thread. */
export class ServingThreads {
  private readonly workers: Worker[];
  private readonly peers: RpcPeer[];
  private readonly exited: Promise<void>[];
  private readonly timer: ReturnType<typeof setInterval> | null;
  /** Resolves once every worker listens (or failed to start, which is logged). */
  readonly listening: Promise<void>;

  private readonly stopping: { value: boolean };

  private constructor(workers: Worker[], peers: RpcPeer[], exited: Promise<void>[], timer: ReturnType<typeof setInterval> | null,
    listening: Promise<void>, stopping: { value: boolean }) {
    this.stopping = stopping;
    this.workers = workers;
    this.peers = peers;
    this.exited = exited;
    this.timer = timer;
    this.listening = listening;
  }

  /**
   * Starts `count` worker threads running `entry` (a runtime's thread file, which calls `serveInThread`) for
   * `port`. Each is sent the version served now (if any) and every later one, and listens once it has built the
   * model of its first version, so it never answers 503 while the main thread answers 200. `listening` resolves
   * when every thread listens; a thread that fails to start is logged and the others go on.
   */
  static start(count: number, entry: URL, store: ContentStore, config: ServerConfig, port: number, logger: Logger): ServingThreads {
    const workers: Worker[] = [];
    const exited: Promise<void>[] = [];
    const listening: Promise<void>[] = [];
    const stopping = { value: false };
    const content = (): ContentEvent => ({ payload: store.payload && toWire(store.payload), changes: store.changeSummary, state: stateOf(store) });
    const peers: RpcPeer[] = [];
    for (let thread = 1; thread <= count; thread++) {
      const start: WorkerStart = { config, port, thread };
      const worker = new Worker(entry, { workerData: start, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
      workers.push(worker);
      exited.push(new Promise((resolve) => worker.once('exit', (code: number) => {
        // The other threads go on; the kernel stops sending connections to a listener that is gone.
        if (!stopping.value) logger.log('error', 'a serving thread stopped unexpectedly; the other threads go on serving', { thread, code });
        resolve();
      })));
      const peer = new RpcPeer(worker);
      peers.push(peer);
      peer.serve(async (method, args) => {
        if (method === 'changeHistory') {
          const [after, upTo, mapId, publisherId] = args as [number, number, string, string];
          return { result: await store.changeHistory(after, upTo, mapId, publisherId) };
        }
        if (method !== 'lookupSession') throw new Error(`a serving thread called ${method}`);
        const [tokenSha256, eventIds, nowMs] = args;
        return { result: await store.lookupSession(tokenSha256 as string, eventIds as string[], new Date(nowMs as number)) };
      });
      peer.on('stopped', () => void worker.terminate());
      listening.push(new Promise<void>((resolve, reject) => {
        worker.once('error', reject);
        peer.on('listening', () => resolve());
        peer.on<string>('failed', (error) => reject(new Error(error)));
      }).catch((err: Error) => logger.log('error', 'a serving thread failed to start', { thread, error: String(err.message ?? err) })));
      peer.emit('content', content());
    }
    const previous = store.onChange;
    store.onChange = () => {
      previous?.();
      for (const peer of peers) peer.emit('content', content());
    };
    const timer = store.database
      ? setInterval(() => { for (const peer of peers) peer.emit('content', { payload: null, state: stateOf(store) } satisfies ContentEvent); },
        DATABASE_STATE_MS)
      : null;
    timer?.unref?.();
    return new ServingThreads(workers, peers, exited, timer, Promise.all(listening).then(() => undefined), stopping);
  }

  /** Threads answering besides the main one. */
  get count(): number {
    return this.workers.length;
  }

  /** Has every worker drain and stop its listener by `deadline`; then ends them. */
  async stop(deadline: number): Promise<void> {
    this.stopping.value = true;
    if (this.timer) clearInterval(this.timer);
    for (const peer of this.peers) peer.emit('stop', Math.max(0, deadline - performance.now()));
    const stopped = Promise.all(this.exited);
    const late = new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, deadline - performance.now()) + 500).unref?.());
    await Promise.race([stopped, late]);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/**
 * What a worker thread serves: the model of the last version it was sent, built in its own thread
 * (src/content/journey.ts); sessions asked of the main thread.
 */
class ContentMirror implements ServedContent {
  private readonly served = new ServedVersion();
  lastPublish: PublishRecord | null = null;
  database: DatabaseState | null = null;
  storeCurrent: VersionInfo | null = null;
  notLoaded: NotLoaded | null = null;
  private readonly peer: RpcPeer;
  /** Versions are built one after the other, in the order sent. */
  private queue: Promise<void> = Promise.resolve();

  constructor(peer: RpcPeer) {
    this.peer = peer;
  }

  get model(): ReadModel {
    return this.served.model;
  }

  get ready(): boolean {
    return this.served.ready;
  }

  lookupSession(tokenSha256: string, eventIds: readonly string[], now: Date): Promise<SessionAnswer | null> {
    return this.peer.call<SessionAnswer | null>('lookupSession', tokenSha256, eventIds, now.getTime());
  }

  changeHistory(after: number, upTo: number, mapId: string, publisherId: string): Promise<RecordChange[]> {
    return this.peer.call<RecordChange[]>('changeHistory', after, upTo, mapId, publisherId);
  }

  /** Resolves once every version received so far is built and served. */
  settled(): Promise<void> {
    return this.queue;
  }

  /** Takes up what the main thread sent: a new version once its model is built, the record and database state with it. */
  receive({ payload, changes = null, state }: ContentEvent): void {
    this.queue = this.queue.then(async () => {
      if (payload && !this.served.serves(payload)) {
        const built = await this.served.build(fromWire(payload), false);
        built.model.changes = changesFor(built.model, changes);
        this.served.swapIn(built);
      } else if (payload) {
        this.served.restamp(changes);
      }
      Object.assign(this, state);
    });
  }
}

/** The body of a worker thread (called by a runtime's thread file with its way to listen). */
export async function serveInThread(listen: Listen): Promise<void> {
  if (isMainThread || !parentPort) throw new Error('serveInThread runs in a worker thread');
  const port = parentPort;
  const { config, port: listenPort, thread } = workerData as WorkerStart;
  const logger = createLogger(config.logLevel);
  const peer = new RpcPeer(port);
  const content = new ContentMirror(peer);
  const app = createApp({ store: content, logger, thread, ...appSettings(config) });
  let listener: Listener | null = null;
  let stopping = false;
  /** Listens once the first version's model is built (till then the main thread answers alone). */
  const listenOnceReady = async () => {
    if (listener || stopping || !content.ready) return;
    try {
      listener = await listen(app, { ...config, port: listenPort }, logger, true);
    } catch (err) {
      peer.emit('failed', String((err as Error).message ?? err));
      return;
    }
    logger.log('debug', 'serving thread listening', { thread, port: listener.port, heap_mb: Math.round(process.memoryUsage().heapUsed / 2 ** 20) });
    peer.emit('listening');
  };
  peer.on<ContentEvent>('content', (m) => {
    content.receive(m);
    void content.settled().then(listenOnceReady);
  });
  peer.on<number>('stop', (inMs) => {
    stopping = true;
    app.drain();
    void (listener ? listener.stop(performance.now() + inMs) : Promise.resolve()).then(() => {
      logger.flush();
      // The main thread ends the thread when it hears this.
      peer.emit('stopped');
    });
  });
}
