/**
 * Start-up shared by every runtime. `start` reads the settings, opens the store and stages the bundle
 * (everything that can refuse it) before any port is opened; the entry file then listens and calls `load`,
 * during which /healthz answers and /readyz says 503. `reload` publishes the bundle again (SIGHUP, --watch)
 * while the current version keeps serving.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { createApp, type App } from '../app.ts';
import { runCheck } from '../content/bundle/check.ts';
import type { BundleSource } from '../content/bundle/parse.ts';
import { BundleError } from '../content/bundle/validate-bundle.ts';
import { ContentStore } from '../content/content-store.ts';
import { ReplicaFollower } from '../content/replica.ts';
import { isDamaged, isDamagedStoreError, type Staged } from '../content/publisher.ts';
import { parseSessions } from '../content/sessions.ts';
import type { PgliteAssets } from '../db/pglite.ts';
import type { ModelPayload } from '../content/model/model-cache.ts';
import { createLogger, type Logger } from '../utils/log.ts';
import type { AssetLoader } from '../pages/assets.ts';
import { PmtilesArchive } from '../geo/pmtiles-archive.ts';
import { basemapLayersWarning } from '../routes/basemap.ts';
import { kioskWarnings } from '../pages/pages.ts';
import { appSettings, ConfigError, optionWarnings, DEMO_SESSIONS_PATH, listensOnLoopback, parseConfig, publicUrlOf, usage, type ServerConfig } from './config.ts';
import { runId } from './id.ts';
import { runPublish } from './publish.ts';
import { runReload } from './reload.ts';

/** What a packaged program (the compiled binary) brings along instead of files on disk. */
export interface StartOptions {
  /** PGlite's wasm modules and data files. */
  assets?: PgliteAssets;
  /** An empty, migrated database that the built-in demo's in-memory store starts from, instead of running initdb. */
  emptyDatabase?: Blob;
  /** The demo bundle's text, served when no bundle path is set. */
  demoBundle?: () => Promise<string>;
  /** The demo's sessions file text. */
  demoSessions?: () => Promise<string>;
  /**
   * The built-in demo's payload, built ahead with the program (scripts/build-binary.ts): the demo is served from it
   * without opening a store (src/content/prebuilt-publisher.ts).
   */
  demoModel?: () => Promise<ModelPayload>;
  /** Run the publisher in a worker thread (default) or inline. */
  worker?: boolean;
  /** How the program is started, for --help (default `npm start --`). */
  command?: string;
  /** The program answers `--healthcheck` itself (the binary), so its --help lists it. */
  healthcheck?: boolean;
  /** The pages' assets (Leaflet, the coastlines, Redoc, the pages' scripts); default read from the checkout. */
  pageAssets?: AssetLoader;
}

/**
 * A staged app with its config, or the exit code and message to stop with: on stdout when the exit code is 0 or
 * the message is a `report` (check's, with problems: it is output to keep, `> report.json`), else on stderr.
 */
export type Started =
  | { app: App; config: ServerConfig; store: ContentStore; logger: Logger; load(): Promise<boolean>; reload(trigger: string): Promise<void>;
    close(): Promise<void> }
  | { exitCode: number; message: string; report?: boolean };

/** Parses settings, opens the store and stages the bundle; a bad bundle with nothing stored stops start-up before any port is opened. */
export async function start(args: readonly string[], env: Record<string, string | undefined>, options: StartOptions = {}): Promise<Started> {
  if (args[0] === 'check') {
    const { exitCode, output } = await runCheck(args.slice(1), (path) => readFile(path), options.command);
    return { exitCode, message: output, report: exitCode !== 2 };
  }
  if (args[0] === 'publish') return runPublish(args.slice(1), env, options.command);
  if (args[0] === 'reload') return runReload(args.slice(1), env, options.command);
  if (args[0] === 'id') return runId(args.slice(1), options.command);
  let config: ServerConfig;
  try {
    const parsed = parseConfig(args, env);
    if (parsed === 'help') return { exitCode: 0, message: usage(options.command, { healthcheck: options.healthcheck }) };
    config = parsed;
  } catch (err) {
    if (err instanceof ConfigError) return { exitCode: 2, message: `error: ${err.message}` };
    throw err;
  }
  const logger = createLogger(config.logLevel);
  // A basemap that cannot be served stops the start, as a bad setting does; one the pages cannot draw is served, with a warning.
  if (config.basemap) {
    const opened = await new PmtilesArchive(config.basemap).info().then((info) => ({ info }), (err: Error) => ({ problem: err.message }));
    if ('problem' in opened) return { exitCode: 2, message: `error: basemap ${opened.problem}` };
    const warning = basemapLayersWarning(opened.info);
    if (warning) logger.log('warn', warning, { basemap: config.basemap, layers: opened.info.layers.map((layer) => layer.id) });
  }
  for (const warning of optionWarnings(config)) logger.log('warn', warning);
  if (config.databaseUrl) return startReplica(config, config.databaseUrl, logger, options);
  const useBuiltIn = Boolean(options.demoBundle && !config.bundleGiven);
  // A file is streamed through the checksum, and read whole only when the store does not hold its content.
  let source: BundleSource;
  try {
    source = useBuiltIn ? await options.demoBundle!() : { path: config.bundlePath };
  } catch (err) {
    return cannotRead(config.bundlePath, err);
  }
  const sessionsFile = config.sessionsPath ?? (config.bundleGiven ? undefined : DEMO_SESSIONS_PATH);
  const readSessions = async () => parseSessions(useBuiltIn && !config.sessionsPath && options.demoSessions
    ? await options.demoSessions() : await readFile(sessionsFile!, 'utf8'));
  const label = useBuiltIn ? 'built-in demo' : config.bundlePath;
  if (useBuiltIn) config = { ...config, bundlePath: 'built-in demo' };

  const began = performance.now();
  // The built-in demo of a packaged program runs on a store in memory: it writes nothing next to itself.
  // An embedded payload that does not verify is not served: the demo is then published at start, as without one.
  const prebuilt = useBuiltIn && options.demoModel ? await options.demoModel().catch((err: Error) => {
    logger.log('warn', 'the built-in demo model does not verify; publishing the demo instead', { error: err.message });
    return undefined;
  }) : undefined;
  const store = await ContentStore.open({ ...(useBuiltIn ? {} : { dataDir: config.dataDir }), worker: options.worker ?? true, assets: options.assets,
    strict: config.strict, ...(config.seriesHorizonDays !== undefined ? { seriesHorizonDays: config.seriesHorizonDays } : {}), ...(prebuilt ? { prebuilt } : {}),
    ...(config.historyDays !== undefined ? { historyDays: config.historyDays } : {}),
    ...(options.emptyDatabase ? { emptyDatabase: options.emptyDatabase } : {}),
    onProgress: (progress) => logger.log('debug', 'staging', { bundle: label, ...progress }) });
  const opened = await store.opened();
  for (const warning of opened.warnings) logger.log('warn', warning);
  const refuse = async (exitCode: number, message: string) => {
    await store.close();
    return { exitCode, message };
  };
  if (sessionsFile) {
    try {
      await store.setSessions(await readSessions());
    } catch (err) {
      if (err instanceof BundleError) return refuse(1, `error: ${sessionsFile}: ${err.message.replace('content bundle', 'sessions file')}`);
      return refuse(1, `error: cannot read the sessions file ${sessionsFile}: ${(err as Error).message}`);
    }
  }
  let staged: Staged;
  try {
    staged = await store.stage(source);
  } catch (err) {
    // A file system's error (ENOENT, EISDIR…): the store's own (PostgreSQL's XX001…) are not the bundle's.
    if (/^E[A-Z]+$/.test(String((err as NodeJS.ErrnoException).code))) return refuse(1, cannotRead(config.bundlePath, err).message);
    throw err;
  }
  // With a damaged store moved aside, the process stays up and says why it serves nothing (see load).
  if (staged.problems && !staged.current && staged.damaged.length === 0) {
    return refuse(1, `error: ${config.bundlePath}: ${new BundleError(staged.problems).message}`);
  }

  const app = createApp({ store, logger, ...appSettings(config, options.pageAssets), ...(config.workers > 1 ? { thread: 0 } : {}) });
  let watcher: FSWatcher[] = [];

  async function load(): Promise<boolean> {
    try {
      if (staged.problems && !staged.current) {
        await store.serveCurrent(label, staged);
        return stayUnavailable(`the bundle ${label} is refused (${staged.problems.length} problem(s), in last_publish), and the store was damaged: ` +
          staged.damaged.join('; '));
      }
      if (staged.problems) {
        await store.serveCurrent(label, staged);
        logger.log('error', 'the bundle was refused; serving the last good version', { bundle: label, version: store.model.version,
          content_version: store.model.checksum, problems: staged.problems.slice(0, 50) });
        await logLoaded();
      } else {
        await store.commitStaged(label, staged);
        await logLoaded();
      }
    } catch (err) {
      const error = String((err as Error).message ?? err);
      // The store was moved aside (or could not be made anew): a restart would find the same, so the process stays up.
      if (isDamagedStoreError(err) || isDamaged(err)) return stayUnavailable(staged.problems ? `${error}, and the bundle ${label} is refused` : error);
      logger.log('error', 'the content failed to load', { error });
      logger.flush();
      return false;
    }
    watchBundle();
    return true;
  }

  /**
   * Serves nothing and says why, on /readyz (503) and in the log with the damaged store's warnings, until a publish of
   * a good bundle (reload, --watch) succeeds: a restart loop would change nothing.
   */
  function stayUnavailable(why: string): true {
    store.unavailable = `no content can be served: ${why}; publish a good bundle (reload) or restart with one`;
    for (const warning of store.lastPublish?.warnings ?? []) logger.log('warn', warning);
    logger.log('error', 'no content can be served', { reason: store.unavailable });
    watchBundle();
    return true;
  }

  /** With --watch, publishes the bundle (and sessions file) again when either changes. */
  function watchBundle(): void {
    if (config.watch && !useBuiltIn) watcher = watchFiles([config.bundlePath, ...(config.sessionsPath ? [config.sessionsPath] : [])], () => void reload('watch'));
  }

  /**
   * The start-up line: `source` is `bundle` when the bundle was written as a new version, `store` when it was already
   * stored; `store_open` is false when the store was not opened to serve it (src/content/store/clean-close.ts).
   */
  async function logLoaded(): Promise<void> {
    const last = store.lastPublish;
    const storeOpen = (await store.opened()).open;
    for (const warning of last?.warnings ?? []) logger.log('warn', warning);
    for (const warning of kioskWarnings(config.kiosk, config.kioskHere, store.model)) logger.log('warn', warning);
    logger.log('info', 'content loaded', { source: last?.outcome === 'published' ? 'bundle' : 'store', store_open: storeOpen,
      version: store.model.version, content_version: store.model.checksum, ms: Math.round(performance.now() - began), publish_ms: last?.ms });
  }

  /** Publishes the bundle (and the sessions file) again; the served version changes only if it succeeds. */
  async function reload(trigger: string): Promise<void> {
    logger.log('info', 'publishing', { trigger, bundle: label });
    if (sessionsFile) {
      try {
        await store.setSessions(await readSessions());
      } catch (err) {
        logger.log('error', 'the sessions file was refused; the stored sessions stay', { sessions: sessionsFile, error: (err as Error).message });
      }
    }
    try {
      const model = await store.publish(source, label);
      const last = store.lastPublish!;
      for (const warning of last.warnings) logger.log('warn', warning);
      logger.log('info', last.outcome === 'published' ? 'content published' : 'content unchanged', { trigger, version: model.version,
        content_version: model.checksum, ms: last.ms });
    } catch (err) {
      const problems = err instanceof BundleError ? err.problems : undefined;
      logger.log('error', problems ? 'the bundle was refused; the current version keeps serving' : 'the publish failed; the current version keeps serving',
        { trigger, bundle: label, ...(problems ? { problems: problems.slice(0, 50) } : { error: String((err as Error).message ?? err) }) });
    }
  }

  async function close(): Promise<void> {
    for (const w of watcher) w.close();
    await store.close();
  }

  return { app, config, store, logger, load, reload, close };
}

/**
 * A replica of a PostgreSQL store: the port opens at once (/readyz 503 until a version is loaded), and the
 * version the database makes current is followed from then on, with the database retried while it is down.
 */
async function startReplica(config: ServerConfig, databaseUrl: string, logger: Logger, options: StartOptions): Promise<Started> {
  const store = await ContentStore.open({ databaseUrl, dataDir: config.dataDir, worker: options.worker ?? true, assets: options.assets,
    onProgress: (progress) => logger.log('debug', 'staging', { ...progress }) });
  const follower = new ReplicaFollower(store, databaseUrl, logger);
  store.database = follower.state;
  const app = createApp({ store, logger, ...appSettings(config, options.pageAssets), ...(config.workers > 1 ? { thread: 0 } : {}) });
  return {
    app, config, store, logger,
    // Never fails: an unreachable database is tried again until it answers.
    load: async () => {
      follower.start();
      return true;
    },
    reload: (trigger) => follower.check(trigger),
    close: async () => {
      await follower.stop();
      await store.close();
    },
  };
}

/** A database URL with its password hidden, for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

/** Watches files (through their directories, so a save by rename is seen too); calls `onChange` once things settle. */
function watchFiles(paths: readonly string[], onChange: () => void): FSWatcher[] {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settle = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, 300);
  };
  const byDir = new Map<string, Set<string>>();
  for (const p of paths) {
    const full = resolve(p);
    const names = byDir.get(dirname(full)) ?? new Set<string>();
    names.add(basename(full));
    byDir.set(dirname(full), names);
  }
  return [...byDir].map(([dir, names]) => watch(dir, (_event, name) => {
    if (name && names.has(String(name))) settle();
  }));
}

/** The exit for a bundle that cannot be read (missing, a directory, no permission). */
function cannotRead(path: string, err: unknown): { exitCode: number; message: string } {
  return { exitCode: 1, message: `error: cannot read the content bundle ${path}: ${(err as Error).message}` };
}

/** Logs that the server listens, with the pid to signal (npm's own pid is not the server's). */
export function logListening(logger: Logger, runtime: string, config: ServerConfig, port: number): void {
  const publicUrl = publicUrlOf(config);
  logger.log('info', 'listening', { runtime, pid: process.pid, host: config.host, port, base_path: config.basePath || '/', public_url: publicUrl,
    ...(config.databaseUrl ? { database: redactUrl(config.databaseUrl) } : { bundle: config.bundlePath }) });
  if (config.publicUrl === undefined && !listensOnLoopback(config.host)) {
    logger.log('warn', `links in answers are built from ${publicUrl}, which clients beyond this machine cannot reach: set --public-url ` +
      '(PUBLIC_URL) to the address they use (the proxy\'s, with its path)', { public_url: publicUrl });
  }
}
