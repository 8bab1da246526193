/**
 * Test apps: a real PGlite store loaded with a bundle, and the Fetch handler over it.
 */
import { hoursReader } from '../../src/content/hours.ts';
import { readFile } from 'node:fs/promises';
import { createLogger, type Logger } from '../../src/utils/log.ts';
import { createApp, type App, type AppDeps } from '../../src/app.ts';
import type { BundleT } from '../../src/content/bundle/bundle-schema.ts';
import type { ContentStore } from '../../src/content/content-store.ts';
import { openEmptyStore, publishFixture } from './store.ts';
import { DEMO_BUNDLE_PATH, DEMO_SESSIONS_PATH } from '../../src/serve/config.ts';
import type { SessionT } from '../../src/content/bundle/bundle-schema.ts';
import { F, makeFixture } from './fixture.ts';

/** An app over a loaded store; call `close()` when done or Node will not exit. */
export interface TestApp {
  app: App;
  store: ContentStore;
  bundle: BundleT;
  get(path: string, init?: RequestInit): Promise<Response>;
  json<T = any>(path: string, init?: RequestInit): Promise<{ status: number; body: T; res: Response }>;
  close(): Promise<void>;
}

/** Builds an app over `bundle` (default: the synthetic fixture), with "now" pinned to F.now. */
export async function openTestApp(bundle: BundleT = makeFixture(), deps: Partial<AppDeps> = {}): Promise<TestApp> {
  const store = await openEmptyStore();
  await publishFixture(store, JSON.stringify(bundle));
  const app = createApp({ store, now: () => F.now, logger: QUIET, ...deps });
  const get = (path: string, init?: RequestInit) => app.fetch(new Request(`http://test.local${path}`, init));
  return {
    app, store, bundle, get,
    async json(path, init) {
      const res = await get(path, init);
      return { status: res.status, body: await res.json(), res };
    },
    close: () => store.close(),
  };
}

/** Reads the committed demo bundle. */
export async function readDemoBundle(): Promise<BundleT> {
  // The demo's POIs have hours: validating them needs the library that reads them (src/content/hours.ts).
  await hoursReader();
  return JSON.parse(await readFile(DEMO_BUNDLE_PATH, 'utf8')) as BundleT;
}

/** Reads the demo's sessions file. */
export async function readDemoSessions(): Promise<SessionT[]> {
  return (JSON.parse(await readFile(DEMO_SESSIONS_PATH, 'utf8')) as { sessions: SessionT[] }).sessions;
}

/** A logger that writes nothing. */
export const QUIET: Logger = createLogger('silent');

/** A logger that keeps error lines (parsed) in `into`, and drops the rest. */
export function recordErrors(into: Record<string, unknown>[]): Logger {
  return createLogger('error', (line) => into.push(JSON.parse(line)));
}
