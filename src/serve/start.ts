/**
 * Start-up shared by every runtime. `start` reads the settings and stages the bundle (everything that can
 * refuse it) before any port is opened; the entry file then listens, and calls `load`, during which
 * /healthz answers and /readyz says 503.
 */
import { createApp, type App } from '../app.ts';
import { ContentStore, type BundleSource, type SnapshotOptions, type StagedContent } from '../content/store.ts';
import { BundleError } from '../content/bundle/validate-bundle.ts';
import type { PgliteAssets } from '../db/pglite.ts';
import { createLogger, type Logger } from '../http/log.ts';
import { ConfigError, parseConfig, USAGE, type ServerConfig } from './config.ts';

/** What a packaged program (the compiled binary) brings along instead of files on disk. */
export interface StartOptions {
  /** PGlite's wasm modules and data files. */
  assets?: PgliteAssets;
  /** A prebuilt data snapshot of the demo bundle. */
  builtInSnapshot?: SnapshotOptions['builtIn'];
  /** The demo bundle's text, served when no bundle path is set. */
  demoBundle?: () => Promise<string>;
}

/** A staged app with its config (`load` logs a failure and answers false), or the exit code and message to stop with. */
export type Started =
  | { app: App; config: ServerConfig; store: ContentStore; logger: Logger; load(): Promise<boolean> }
  | { exitCode: number; message: string };

/** Parses settings and stages the bundle; a bad bundle stops start-up before any port is opened. */
export async function start(args: readonly string[], env: Record<string, string | undefined>, options: StartOptions = {}): Promise<Started> {
  let config: ServerConfig;
  try {
    const parsed = parseConfig(args, env);
    if (parsed === 'help') return { exitCode: 0, message: USAGE };
    config = parsed;
  } catch (err) {
    if (err instanceof ConfigError) return { exitCode: 2, message: `error: ${err.message}` };
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const useBuiltIn = options.demoBundle && !config.bundleGiven;
  // A file is streamed through the checksum, and read whole only when no data snapshot has its content.
  let text: BundleSource | null;
  try {
    text = useBuiltIn ? await options.demoBundle!() : { path: config.bundlePath };
  } catch (err) {
    return cannotRead(config.bundlePath, err);
  }
  const began = performance.now();
  const snapshots: SnapshotOptions = { dir: config.dataDir, builtIn: options.builtInSnapshot };
  let staged: StagedContent | null;
  try {
    staged = await ContentStore.stage(text, snapshots);
  } catch (err) {
    if (err instanceof BundleError) return { exitCode: 1, message: `error: ${config.bundlePath}: ${err.message}` };
    if ((err as NodeJS.ErrnoException).code) return cannotRead(config.bundlePath, err);
    throw err;
  }
  const store = ContentStore.pending();
  const fixed = config.fixedTime;
  if (useBuiltIn) config = { ...config, bundlePath: 'built-in demo' };
  const app = createApp({ store, basePath: config.basePath, logger, corsOrigins: config.corsOrigins, ...(fixed ? { now: () => fixed } : {}) });
  return {
    app, config, store, logger,
    async load() {
      let from: Awaited<ReturnType<typeof store.loadStaged>>;
      try {
        if (!text || !staged) throw new Error('load() runs once');
        from = await store.loadStaged(text, staged, config.dataDir, { assets: options.assets });
      } catch (err) {
        logger.log('error', 'the content failed to load', { error: String(err) });
        logger.flush();
        return false;
      } finally {
        // The bundle's bytes and the validated bundle are not needed once loaded: let them go.
        text = null;
        staged = null;
      }
      if (from.warning) logger.log('warn', from.warning);
      logger.log('info', 'content loaded', { source: from.source, content_version: store.model.checksum,
        ms: Math.round(performance.now() - began), ...(from.wroteSnapshot ? { snapshot: from.wroteSnapshot } : {}) });
      return true;
    },
  };
}

/** The exit for a bundle that cannot be read (missing, a directory, no permission). */
function cannotRead(path: string, err: unknown): { exitCode: number; message: string } {
  return { exitCode: 1, message: `error: cannot read the content bundle ${path}: ${(err as Error).message}` };
}

/** Logs that the server listens. */
export function logListening(logger: Logger, runtime: string, config: ServerConfig, port: number): void {
  logger.log('info', 'listening', { runtime, host: config.host, port, base_path: config.basePath || '/', bundle: config.bundlePath });
}
