/**
 * Entry of the single binary (`npm run build:binary`, see scripts/build-binary.ts): the Bun entry with
 * everything it reads embedded (PGlite's wasm and data files, the demo bundle and its sessions, the pages' assets), so it runs
 * from an empty directory with no node_modules and no network. The built-in demo is served from its model built
 * ahead (embedded by the build: no store is opened for it) and writes nothing; other content opens a store in memory
 * from the embedded empty store (no initdb), and a bundle given with --bundle is stored in the data directory.
 * `destination-map --healthcheck` asks a running instance instead: the container's HEALTHCHECK has no curl. The
 * subcommands (check, publish, reload, id) reach start() like a server's flags do.
 */
import './utc-clock.ts';
import pgliteWasm from '@electric-sql/pglite/pglite.wasm' with { type: 'file' };
import initdbWasm from '@electric-sql/pglite/initdb.wasm' with { type: 'file' };
import pgliteData from '@electric-sql/pglite/pglite.data' with { type: 'file' };
// Written by scripts/build-binary.ts: the demo's exact bytes, its sessions, and an empty migrated store.
import demoBundle from '../../.build/binary/demo-bundle.txt' with { type: 'file' };
import demoSessions from '../../.build/binary/demo-sessions.txt' with { type: 'file' };
import emptyStore from '../../.build/binary/empty-store.tar.gz' with { type: 'file' };
// The pages' assets (src/pages/assets.ts) as one JSON text, name -> text.
import pageAssets from '../../.build/binary/page-assets.txt' with { type: 'file' };
// The demo's payload, built ahead: a model cache's files, named as scripts/build-binary.ts's demoModelFile names them.
import demoModelDocs from '../../.build/binary/demo-model-content.bin' with { type: 'file' };
import demoModelTables from '../../.build/binary/demo-model-event-tables.bin' with { type: 'file' };
import demoModelPlaces from '../../.build/binary/demo-model-event-places.bin' with { type: 'file' };
import demoModelManifest from '../../.build/binary/demo-model-manifest.bin' with { type: 'file' };
import type { StartOptions } from './start.ts';

declare const Bun: { file(path: string): Blob & { bytes(): Promise<Uint8Array> } };

/** Each embedded file of the demo's payload by its name in a model cache (CACHE_FILES). */
const DEMO_MODEL: Record<string, string> = {
  'content.jsonl': demoModelDocs, 'event-tables.bin': demoModelTables, 'event-places.bin': demoModelPlaces, 'manifest.json': demoModelManifest,
};

/** The flag that turns the binary into its own health probe. */
const HEALTHCHECK_FLAG = '--healthcheck';

/** 0 when GET /healthz of the instance these settings describe answers 200, else 1. */
async function checkHealth(args: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  try {
    const { parseConfig } = await import('./config.ts');
    const config = parseConfig(args, env);
    if (config === 'help') return 1;
    // A wildcard bind is reached on loopback; a specific address only on itself.
    const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
    const res = await fetch(`http://${host}:${config.port}/healthz`, { signal: AbortSignal.timeout(3000) });
    console.log(`healthz: ${res.status}`);
    return res.status === 200 ? 0 : 1;
  } catch (err) {
    console.error(`healthz: ${(err as Error).message}`);
    return 1;
  }
}

/**
 * What start() reads from disk elsewhere, here from the files embedded in the binary. The wasm modules are
 * compiled on other threads while the service's code loads and the store is unpacked; PGlite awaits them.
 */
function embedded(): StartOptions {
  const compile = async (path: string) => WebAssembly.compile(await Bun.file(path).arrayBuffer());
  const pgliteWasmModule = compile(pgliteWasm);
  const initdbWasmModule = compile(initdbWasm);
  // Handled where PGlite awaits them; a subcommand that opens no PGlite never does, and must not die of it.
  for (const module of [pgliteWasmModule, initdbWasmModule]) module.catch(() => {});
  return {
    assets: { pgliteWasmModule, initdbWasmModule, fsBundle: Bun.file(pgliteData) },
    demoBundle: () => Bun.file(demoBundle).text(),
    demoSessions: () => Bun.file(demoSessions).text(),
    // Verified against its manifest as a model cache on disk is; the code that reads it loads only when it is asked for.
    demoModel: async () => {
      const { readCacheFiles } = await import('../content/model/model-cache.ts');
      return readCacheFiles((name) => Bun.file(embeddedDemoModel(name)).bytes(), 'the embedded demo model');
    },
    emptyDatabase: Bun.file(emptyStore),
    pageAssets: async () => JSON.parse(await Bun.file(pageAssets).text()),
    // The publisher runs inline: a compiled binary has no separate worker file to start.
    worker: false,
    command: 'destination-map',
    healthcheck: true,
  };
}

/** The embedded path of one of the demo payload's files. */
function embeddedDemoModel(name: string): string {
  const path = DEMO_MODEL[name];
  if (!path) throw new Error(`${name} is not embedded (embedded: ${Object.keys(DEMO_MODEL).join(', ')})`);
  return path;
}

const args = process.argv.slice(2);
if (args.includes(HEALTHCHECK_FLAG)) {
  process.exit(await checkHealth(args.filter((a) => a !== HEALTHCHECK_FLAG), process.env));
}
// The compile starts first; the service's code is loaded (imported) while it runs.
const options = embedded();
const { serveOnBun } = await import('./bun-serve.ts');
await serveOnBun('binary', args, options);
