/**
 * Test targets: what the HTTP-level suite (tests/http/) talks to. The same requests are answered either
 * in-process, by the app's Fetch handler, or by the real service on Node, Bun or Deno over a real port,
 * as the TEST_RUNTIME environment variable says (unset: in-process). scripts/run-tests.ts runs that
 * suite once in-process (with coverage), once per runtime, and once more on Node with TEST_STORE=postgres:
 * the bundle is then published into a real PostgreSQL with the `publish` subcommand's code, its sessions
 * written into the sessions tables as an account system would, and the service runs as a replica of it.
 *
 * Over HTTP a request is sent with node:http, not fetch: fetch adds headers of its own (Accept-Encoding,
 * Accept, User-Agent, ...) and decompresses, while the service must see exactly the request the test
 * wrote. The request target is the one `new Request('http://test.local' + path)` gives in-process.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.ts';
import type { BundleT, SessionT } from '../../src/content/bundle/bundle-schema.ts';
import { connectPostgres } from '../../src/db/postgres.ts';
import { SESSIONS } from '../../src/db/schema.ts';
import { ownedElsewhere } from '../../src/content/store/data-dir.ts';
import { runPublish } from '../../src/serve/publish.ts';
import { testDatabase } from './postgres.ts';
import type { ContentStore } from '../../src/content/content-store.ts';
import { openEmptyStore, publishFixture, splitSessions } from './store.ts';
import { createLogger } from '../../src/utils/log.ts';
import { F, makeFixture } from './fixture.ts';
import { RUNTIMES, startServer, type Runtime, type RunningServer } from './server.ts';

/** Where requests are answered: in-process, or by the service on a runtime. */
export type TargetKind = 'in-process' | Runtime;

/** The target of this test process, from TEST_RUNTIME (node, bun or deno; unset or empty: in-process). */
export const TARGET: TargetKind = targetFromEnv(process.env.TEST_RUNTIME);

function targetFromEnv(value: string | undefined): TargetKind {
  if (!value) return 'in-process';
  if (!(value in RUNTIMES)) throw new Error(`TEST_RUNTIME must be one of ${Object.keys(RUNTIMES).join(', ')}, not "${value}"`);
  return value as Runtime;
}

/** A running service to send requests to; call `close()` when done. */
export interface TestTarget {
  kind: TargetKind;
  /** Sends a request for `path` (path and query) and returns the response as received. */
  get(path: string, init?: RequestInit): Promise<Response>;
  /** `get`, with the body parsed as JSON. */
  json<T = any>(path: string, init?: RequestInit): Promise<{ status: number; body: T; res: Response }>;
  /** Every error-level log line so far (unexpected errors), as JSON text. */
  errorLog(): string[];
  /** Stops the service; fails if it logged an unexpected error or (over HTTP) did not exit with 0. */
  close(): Promise<void>;
  /**
   * False when the service keeps no change history: it serves the model caches of a data directory another of the
   * suite's services owns (it said so as it started), as a second process on one directory does. Answers then carry
   * no change token and the feed is 503 (docs/api-conventions.md, A full download and a change feed).
   */
  tracksChanges: boolean;
}

/** How the service is configured, the same way in-process and on every runtime. */
export interface TargetOptions {
  /** The clock ("now"); default F.now. Over HTTP, --fixed-time. */
  now?: Date;
  /** Mounts every route under this prefix. Over HTTP, --base-path. */
  basePath?: string;
}

/** Opens a target of kind TARGET over `bundle` (a bundle, or its JSON text; default: the synthetic fixture). */
export async function openTarget(bundle: BundleT | string = makeFixture(), options: TargetOptions = {}): Promise<TestTarget> {
  const text = typeof bundle === 'string' ? bundle : JSON.stringify(bundle);
  return TARGET === 'in-process' ? openInProcess(text, options) : openOverHttp(TARGET, text, options);
}

/** In-process stores by bundle text, shared by the targets open on the same bundle (as over HTTP, a snapshot is). */
const stores = new Map<string, { store: Promise<ContentStore>; users: number }>();

async function openInProcess(text: string, options: TargetOptions): Promise<TestTarget> {
  let shared = stores.get(text);
  if (!shared) {
    shared = { store: openEmptyStore().then(async (store) => { await publishFixture(store, text); return store; }), users: 0 };
    stores.set(text, shared);
  }
  shared.users++;
  const store = await shared.store;
  const errors: string[] = [];
  const now = options.now ?? F.now;
  const app = createApp({ store, now: () => now, logger: createLogger('error', (line) => errors.push(line)),
    ...(options.basePath !== undefined ? { basePath: options.basePath } : {}) });
  const get = (path: string, init?: RequestInit) => app.fetch(new Request(`http://test.local${path}`, init));
  return {
    kind: 'in-process',
    tracksChanges: true,
    get,
    async json(path, init) {
      const res = await get(path, init);
      return { status: res.status, body: await res.json(), res };
    },
    errorLog: () => [...errors],
    async close() {
      if (--shared.users === 0) {
        stores.delete(text);
        await store.close();
      }
      if (errors.length > 0) throw new Error(`the app logged unexpected errors:\n${errors.join('\n')}`);
    },
  };
}

/** The store the HTTP-level suite runs on, from TEST_STORE: `embedded` (default) or `postgres`. */
export const STORE: 'embedded' | 'postgres' = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'embedded';

/** A database of its own holding the bundle as its current version and the bundle's sessions; dropped by `drop`. */
async function publishToPostgres(text: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { file, sessions } = stageBundle(text);
  const db = await testDatabase();
  const published = await runPublish([file], { DATABASE_URL: db.url });
  if (published.exitCode !== 0) throw new Error(`publish failed: ${published.message}`);
  if (sessions) {
    const rows = JSON.parse(readFileSync(sessions, 'utf8')).sessions as SessionT[];
    const sql = connectPostgres(db.url, { max: 1 });
    try {
      await sql.query(SESSIONS.insert, [JSON.stringify(rows.map(({ token_sha256, account_id, expires_at }) => ({ token_sha256, account_id, expires_at })))]);
      await sql.query(SESSIONS.insertSaved, [JSON.stringify(rows.flatMap((s) => s.saved_event_ids.map((event_id) => ({ account_id: s.account_id, event_id }))))]);
    } finally {
      await sql.close();
    }
  }
  return db;
}

/**
 * The first start on each data snapshot in this process. Until it has loaded, the snapshot holds no cache another
 * start could serve, so a start beside it would publish the bundle again in a store of its own: when the suite runs
 * in one process, every file's `before` hook opens its target at once, and the fixture's was published six times.
 */
const firstStarts = new Map<string, Promise<RunningServer>>();

async function openOverHttp(runtime: Runtime, text: string, options: TargetOptions): Promise<TestTarget> {
  const { file, dataDir, sessions } = stageBundle(text);
  const database = STORE === 'postgres' ? await publishToPostgres(text) : null;
  const args = database
    ? ['--database-url', database.url, '--data-dir', `${dataDir}-replica-${randomUUID()}`, '--fixed-time', (options.now ?? F.now).toISOString()]
    : ['--bundle', file, '--data-dir', dataDir, '--fixed-time', (options.now ?? F.now).toISOString(), ...(sessions ? ['--sessions', sessions] : [])];
  if (options.basePath !== undefined) args.push('--base-path', options.basePath);
  // A start on a snapshot this process is already starting a service on waits until that one has loaded (see
  // firstStarts); the first one registers itself before anything else can run, so two never both count as first.
  const first = database ? undefined : firstStarts.get(dataDir);
  if (first) await first.catch(() => undefined);
  // The flags win over the environment, and LOG_LEVEL is pinned: startServer waits for the info lines.
  const starting = startServer(runtime, args, 120_000, { LOG_LEVEL: 'info' }, database ? /"msg":"content followed"/ : undefined);
  if (!database && !first) firstStarts.set(dataDir, starting);
  const server = await starting.catch(async (err) => { await database?.drop(); throw err; });
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const errorLog = () => server.output().split('\n').filter((line) => line.includes('"level":"error"'));
  const get = (path: string, init?: RequestInit) => send(runtime, server, agent, path, init);
  return {
    kind: runtime,
    get,
    // The service's own warning, as its JSON log line writes it.
    tracksChanges: !server.output().includes(JSON.stringify(ownedElsewhere(dataDir)).slice(1, -1)),
    async json(path, init) {
      const res = await get(path, init);
      return { status: res.status, body: await res.json(), res };
    },
    errorLog,
    async close() {
      agent.destroy();
      const code = await server.stop();
      await database?.drop();
      const errors = errorLog();
      if (code !== 0 || errors.length > 0) {
        throw new Error(`the service on ${runtime} exited with ${code}${errors.length ? ' and logged unexpected errors' : ''}:\n${tail(server.output())}`);
      }
    },
  };
}

/**
 * Sends one request over node:http, exactly as the test wrote it, and builds a Fetch Response from the answer. A
 * request on a kept-alive connection the service closed as it was sent (its idle timeout reached at that moment) is
 * sent once more on a new one, as Node's documentation advises for `request.reusedSocket`: no answer was lost.
 */
async function send(runtime: Runtime, server: RunningServer, agent: Agent, path: string, init?: RequestInit, retried = false): Promise<Response> {
  // The same parsing and normalisation as the in-process target's Request.
  const req = new Request(`http://test.local${path}`, init);
  const url = new URL(req.url);
  const target = url.pathname + url.search;
  // The headers the in-process app would see: the test's, plus the content-type a string body implies.
  const headers = Object.fromEntries(req.headers);
  const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
  return new Promise<Response>((resolve, reject) => {
    const out = request({ host: '127.0.0.1', port: server.port, method: req.method, path: target, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const answer = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
        const bytes = Buffer.concat(chunks);
        const status = res.statusCode!;
        if (bytes.length > 0 && [204, 205, 304].includes(status)) {
          reject(new Error(`${runtime}: ${req.method} ${target.slice(0, 200)} answered ${status} with a body`));
          return;
        }
        resolve(new Response(bytes.length > 0 ? bytes : null, { status, statusText: res.statusMessage, headers: answer }));
      });
    });
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (out.reusedSocket && err.code === 'ECONNRESET' && !retried) resolve(send(runtime, server, agent, path, init, true));
      else reject(new Error(`${runtime}: ${req.method} ${target.slice(0, 200)} failed: ${err.message}\n${tail(server.output())}`));
    });
    out.end(body);
  });
}

/** The last lines of a service's output, for error messages. */
function tail(output: string): string {
  return output.split('\n').slice(-30).join('\n');
}

let scratch: string | undefined;
/**
 * The directory for bundle files and data snapshots: TEST_SCRATCH_DIR (set by scripts/run-tests.ts, so a
 * whole run shares the snapshots), else a temporary one of this process.
 */
function scratchDir(): string {
  if (scratch) return scratch;
  if (process.env.TEST_SCRATCH_DIR) return (scratch = process.env.TEST_SCRATCH_DIR);
  const dir = mkdtempSync(join(tmpdir(), 'dmcs-test-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return (scratch = dir);
}

/**
 * Writes the bundle text to a file named by its checksum, with its own data directory: a service started
 * again on the same bundle (another test file, another runtime) reopens the data snapshot instead of loading.
 * One directory per bundle, because the service removes the snapshots of other bundles from its data directory.
 */
function stageBundle(text: string): { file: string; dataDir: string; sessions: string | null } {
  const dir = join(scratchDir(), createHash('sha256').update(text).digest('hex').slice(0, 16));
  const file = join(dir, 'bundle.json');
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const split = splitSessions(text);
  const sessions = split.sessions ? join(dir, 'sessions.json') : null;
  const write = (path: string, content: string) => {
    if (existsSync(path)) return;
    const temporary = `${path}.${randomUUID()}.tmp`;
    writeFileSync(temporary, content);
    renameSync(temporary, path);
  };
  write(file, split.bundle);
  if (sessions) write(sessions, JSON.stringify({ format: 'destination-sessions/1', sessions: split.sessions }));
  return { file, dataDir, sessions };
}
