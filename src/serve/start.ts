/**
 * Start-up shared by every runtime: read the config, load the bundle into PGlite, build the app.
 * The runtime entry files only add the listening socket.
 */
import { readFile } from 'node:fs/promises';
import { createApp, type App } from '../app.ts';
import { ContentStore } from '../content/store.ts';
import { BundleError } from '../content/validate-bundle.ts';
import { ConfigError, parseConfig, USAGE, type ServerConfig } from './config.ts';

/** A loaded app with its config, or the exit code and message to stop with. */
export type Started = { app: App; config: ServerConfig; store: ContentStore } | { exitCode: number; message: string };

/** Parses settings and loads the bundle; a bad bundle stops start-up before any port is opened. */
export async function start(args: readonly string[], env: Record<string, string | undefined>): Promise<Started> {
  let config: ServerConfig;
  try {
    const parsed = parseConfig(args, env);
    if (parsed === 'help') return { exitCode: 0, message: USAGE };
    config = parsed;
  } catch (err) {
    if (err instanceof ConfigError) return { exitCode: 2, message: `error: ${err.message}` };
    throw err;
  }
  let text: string;
  try {
    text = await readFile(config.bundlePath, 'utf8');
  } catch (err) {
    return { exitCode: 1, message: `error: cannot read the content bundle ${config.bundlePath}: ${(err as Error).message}` };
  }
  const began = performance.now();
  let opened: Awaited<ReturnType<typeof ContentStore.openBundle>>;
  try {
    opened = await ContentStore.openBundle(text, { dir: config.dataDir });
  } catch (err) {
    if (err instanceof BundleError) return { exitCode: 1, message: `error: ${config.bundlePath}: ${err.message}` };
    throw err;
  }
  const { store, from } = opened;
  if (from.warning) console.error(JSON.stringify({ level: 'warn', msg: from.warning }));
  console.log(JSON.stringify({ level: 'info', msg: 'content loaded', source: from.source, checksum: store.model.checksum,
    ms: Math.round(performance.now() - began), ...(from.wroteSnapshot ? { snapshot: from.wroteSnapshot } : {}) }));
  return { app: createApp({ store, basePath: config.basePath }), config, store };
}

/** The line printed once the server listens. */
export function listeningMessage(runtime: string, config: ServerConfig, port: number): string {
  return JSON.stringify({ level: 'info', msg: 'listening', runtime, host: config.host, port, base_path: config.basePath || '/',
    bundle: config.bundlePath });
}
