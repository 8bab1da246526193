/**
 * Server settings from command-line flags and environment variables (flags win). Pure: the runtime
 * entry files pass in their own argv and env.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseTimestamp } from '../content/rfc3339.ts';
import { parseHorizonDays, SERIES_HORIZON_DAYS } from '../content/series-dates.ts';
import { HISTORY_DAYS, parseHistoryDays } from '../content/changes.ts';
import { LOG_LEVELS, type LogLevel } from '../utils/log.ts';
import type { AssetLoader } from '../pages/assets.ts';
import { normaliseBasePath, normalisePublicUrl, type AppDeps } from '../app.ts';
import type { PageOptions } from '../pages/pages.ts';
import { PmtilesArchive } from '../geo/pmtiles-archive.ts';

/** Every setting the server reads. */
export interface ServerConfig {
  port: number;
  host: string;
  bundlePath: string;
  /** False when bundlePath is the default (the demo). */
  bundleGiven: boolean;
  basePath: string;
  /** The data directory: the embedded store (every published version, sessions) and the model caches. */
  dataDir: string;
  /** A sessions file to load into the store on start and on every reload; unset: the demo's with the demo, else the stored ones. */
  sessionsPath?: string;
  /** Publish again when the bundle (or sessions) file changes. */
  watch: boolean;
  /** Refuse a bundle with any warning of check, as if each were a problem (serving keeps the last good version). */
  strict: boolean;
  /** Days a recurring series without an end is expanded after the publish in which it last changed (SERIES_HORIZON_DAYS unless set). */
  seriesHorizonDays?: number;
  /** Days the history of changes is kept, which change tokens can be followed for (HISTORY_DAYS unless set). */
  historyDays?: number;
  logLevel: LogLevel;
  /** `*`, or the origins CORS allows. */
  corsOrigins: '*' | string[];
  /** Answer as if the time were this (demos, kiosks pinned to a day, reproducible tests); default the real clock. */
  fixedTime?: Date;
  /**
   * A PostgreSQL shared by a fleet: this process is then a replica that serves whatever version the database
   * makes current (content gets there with the `publish` subcommand), and the data directory holds only its
   * model caches.
   */
  databaseUrl?: string;
  /** Connection limits and timeouts (see `ConnectionLimits`). */
  limits: ConnectionLimits;
  /**
   * Threads answering requests, each on its own listener of the same port (SO_REUSEPORT), sharing the content's
   * tables; 1 (the default) serves on the main thread alone.
   */
  workers: number;
  /** A map id: `/` is then the kiosk on that map (full screen, touch-friendly, back to its start view after a minute). */
  kiosk?: string;
  /** A raster tile URL template (`{z}`, `{x}`, `{y}`) the explorer and kiosk draw under the content; default the offline base. */
  tiles?: string;
  /** The kiosk's "you are here" point (`--kiosk-here`). */
  kioskHere?: { lat: number; lng: number };
  /** A PMTiles archive served under /basemap and drawn under the pages' maps (`--basemap`); takes precedence over `tiles`. */
  basemap?: string;
  /**
   * The absolute URL clients reach the routes under (behind a proxy: its address), which links in answers are built
   * from; unset: `http://localhost:PORT` and the base path (see `publicUrlOf`).
   */
  publicUrl?: string;
}

/** The most serving threads `--workers` takes. */
export const MAX_WORKERS = 64;

/**
 * What one client connection may take. Slow and idle connections are closed on these timers, and connections
 * past `maxConnections` are closed as soon as they are accepted, so the process never runs out of file
 * descriptors while the connections it has keep being served.
 */
export interface ConnectionLimits {
  /** Seconds a client has to send a request's headers (a slowloris client is closed after this). */
  headersTimeoutS: number;
  /** Seconds a client has to send a whole request. */
  requestTimeoutS: number;
  /** Seconds an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutS: number;
  /** Open client connections at most; `auto`: the open-file soft limit less a reserve (see limits.ts). */
  maxConnections: number | 'auto';
  /** Seconds to wait after SIGTERM for requests in flight before closing what is left. */
  shutdownTimeoutS: number;
}

/** The defaults of `ConnectionLimits`. */
export const DEFAULT_LIMITS: ConnectionLimits = { headersTimeoutS: 10, requestTimeoutS: 30, keepAliveTimeoutS: 5, maxConnections: 'auto', shutdownTimeoutS: 10 };

/** The demo destination shipped in data/. */
export const DEMO_BUNDLE_PATH = fileURLToPath(new URL('../../data/demo-bundle.json', import.meta.url));
/** The demo's account sessions. */
export const DEMO_SESSIONS_PATH = fileURLToPath(new URL('../../data/demo-sessions.json', import.meta.url));
/** Default data directory, relative to the working directory. */
export const DEFAULT_DATA_DIR = '.data';
/** Default port, as hosting platforms expect it to be overridable with PORT. */
export const DEFAULT_PORT = 8787;

/** The subcommands: a first argument that is one of these is never taken for a bundle. */
export const SUBCOMMANDS = ['check', 'publish', 'id', 'reload'] as const;

/**
 * Usage text for --help; `command` is how this program is started (`npm start --`, or the binary's name), and
 * `healthcheck` says that it answers `--healthcheck` itself (the binary).
 */
export function usage(command = 'npm start --', { healthcheck = false } = {}): string {
  const probe = healthcheck ? `
  --healthcheck            start no server: ask GET /healthz of the instance these settings (--port, --host)
                           describe, and exit 0 when it answers 200, 1 otherwise (the container's HEALTHCHECK)` : '';
  return `Destination map content service: a read-only HTTP JSON API.

Usage: ${command} [options] [<bundle.json>]   serve (the bundle as an argument, or with --bundle)
       ${command} check <bundle.json>... [--json]   validate bundles and exit (0: ok, 1: problems)
       ${command} publish --database-url <url> [--sessions <sessions.json>] <bundle.json>   publish into PostgreSQL and exit
       ${command} publish --database-url <url> --rollback <version>   make a kept version current again
       ${command} publish --database-url <url> --list   the versions kept, newest first
       ${command} reload [--data-dir <path>]   have the server on that data directory publish its bundle again (SIGHUP)
       ${command} id [--namespace <uuid>] <key>...   the name-based UUID (version 5) of each key, for bundle ids
Each subcommand's --help says more (${command} check --help).

Options (each also read from the environment variable in brackets; a flag wins):
  --bundle <path>      content bundle to serve [BUNDLE_PATH]   default: the demo, data/demo-bundle.json
                       (or name it as the argument; once: one bundle a server)
  --port <n>           port to listen on [PORT]                default: ${DEFAULT_PORT}
  --host <addr>        address to bind [HOST]                  default: 0.0.0.0
  --base-path <path>   mount every route under this prefix [BASE_PATH], e.g. /api/v1
  --data-dir <path>    the store and its caches [DATA_DIR]     default: ${DEFAULT_DATA_DIR}
                       Every published version is kept there (the newest two); a restart with the same
                       bundle serves the stored version. Unwritable: a warning, the store kept in memory.
  --sessions <path>    account sessions file, loaded on start and reload [SESSIONS_PATH]
                       default: the demo's sessions with the demo bundle, else the stored sessions
  --watch              publish again when the bundle or sessions file changes [WATCH]
  --strict             refuse a bundle with any warning of check, as a problem is refused [STRICT]
  --series-horizon-days <n>  how far a recurring series without an end is expanded: days after the publish in
                       which it last changed, 1 to 3650 [SERIES_HORIZON_DAYS]   default: ${SERIES_HORIZON_DAYS}
  --history-days <n>   days the history of changes is kept, which a change token can be followed for (older
                       answers 410), 1 to 36500 [HISTORY_DAYS]   default: ${HISTORY_DAYS}
  --log-level <level>  ${LOG_LEVELS.join(', ')} [LOG_LEVEL]   default: info
                       info writes one JSON access-log line per request, with its request id.
  --cors-origin <list> * or comma-separated origins allowed by CORS [CORS_ORIGIN]   default: *
  --fixed-time <time>  answer as if it were this RFC 3339 time [FIXED_TIME]   default: the real clock
                       (for demos and kiosks pinned to a day, and reproducible tests)
  --database-url <url> serve as a replica of a PostgreSQL store (postgres://…) [DATABASE_URL]
                       The version the database makes current is served (LISTEN, and a poll every 5 s);
                       sessions are read there per request. No --bundle, --sessions, --watch or --strict then.
  --headers-timeout <s>    seconds to send a request's headers [HEADERS_TIMEOUT]   default: ${DEFAULT_LIMITS.headersTimeoutS}
  --request-timeout <s>    seconds to send a whole request [REQUEST_TIMEOUT]       default: ${DEFAULT_LIMITS.requestTimeoutS}
  --keep-alive-timeout <s> seconds an idle connection stays open [KEEP_ALIVE_TIMEOUT]   default: ${DEFAULT_LIMITS.keepAliveTimeoutS}
  --max-connections <n>    open connections at most; more are closed at once [MAX_CONNECTIONS]
                           default: auto, the open-file limit less 128 (see docs/deployment.md)
  --shutdown-timeout <s>   seconds SIGTERM waits for requests in flight [SHUTDOWN_TIMEOUT]   default: ${DEFAULT_LIMITS.shutdownTimeoutS}
  --workers <n>            threads answering requests, sharing the content's tables [WORKERS]   default: 1
                           auto: one per core. Raise it when one core is busy with requests the response
                           cache cannot answer (distinct searches); see docs/deployment.md
  --kiosk <map id>         serve / as a kiosk on this map: full screen, touch-friendly, upcoming events,
                           back to its start view after a minute with no touch [KIOSK]   default: the home page
  --kiosk-here <lat,lng>   the kiosk's own place, drawn as "you are here" [KIOSK_HERE]   default: none
  --public-url <url>       the absolute URL clients reach this service under (https://maps.example.org/api):
                           links in answers are built from it, never from the Host header [PUBLIC_URL]
                           default: http://localhost:PORT and the base path (logged at start)
  --basemap <file>         a PMTiles archive of your region (vector or raster) served under /basemap and drawn
                           under the explorer's and the kiosk's maps, with no internet [BASEMAP]
                           default: none (land and water, coastlines and borders from Natural Earth)
  --tiles <url>            raster tiles under the explorer's maps, a template with {z}, {x} and {y}, on this
                           service's origin (/tiles/{z}/{x}/{y}.png behind the same proxy) or an http(s) URL
                           [TILES_URL]   default: none, the offline base (coastlines, borders, the map's own areas)
  --help                   print this text${probe}

Publishing: \`${command} reload\` (or SIGHUP to the pid the "listening" log line names, also written to
<data dir>/server.pid) publishes the bundle file again; the current version keeps serving until the new one
is ready, and a bad bundle changes nothing (see GET /readyz).
Pages: / (the service, its content version and maps), /explore (a map explorer that needs no internet) and
/docs (the API reference), under the base path like the API.
Health: GET /healthz answers 200 while the process runs; GET /readyz answers 200 once a content
version is served (with the last publish's outcome), 503 before.
`;
}

/** Every flag that takes a value. */
const FLAGS = ['bundle', 'port', 'host', 'base-path', 'data-dir', 'log-level', 'cors-origin', 'fixed-time', 'sessions', 'database-url',
  'headers-timeout', 'request-timeout', 'keep-alive-timeout', 'max-connections', 'shutdown-timeout', 'workers', 'kiosk', 'kiosk-here', 'tiles', 'basemap', 'public-url',
  'series-horizon-days', 'history-days'];
/** Flags that take no value. */
const SWITCHES = ['watch', 'strict'];

/** Thrown for a bad flag or setting; the message says which. */
export class ConfigError extends Error {}

/** Parses flags and environment variables into a config. */
export function parseConfig(args: readonly string[], env: Record<string, string | undefined>): ServerConfig | 'help' {
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') return 'help';
    if (!arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (m && SWITCHES.includes(m[1]) && m[2] === undefined) {
      flags.set(m[1], 'true');
      continue;
    }
    if (!m || !FLAGS.includes(m[1])) throw new ConfigError(`unknown option ${arg}; see --help`);
    const value = m[2] ?? args[++i];
    if (value === undefined) throw new ConfigError(`option --${m[1]} needs a value`);
    if (m[1] === 'bundle' && flags.has('bundle')) throw new ConfigError(`one bundle is served: --bundle is given twice (${flags.get('bundle')}, ${value})`);
    flags.set(m[1], value);
  }
  takeBundleArgument(positionals, flags);
  const pick = (flag: string, envName: string) => flags.get(flag) ?? (env[envName] || undefined);
  const portText = pick('port', 'PORT') ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 0 || port > 65535) throw new ConfigError(`port must be an integer from 0 to 65535, not "${portText}"`);
  const basePath = pick('base-path', 'BASE_PATH') ?? '';
  if (!/^[A-Za-z0-9._~\/-]*$/.test(basePath)) {
    throw new ConfigError(`base path must hold only letters, digits and . _ ~ - /, not "${basePath}"`);
  }
  const logLevel = (pick('log-level', 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError(`log level must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`);
  const cors = (pick('cors-origin', 'CORS_ORIGIN') ?? '*').trim();
  const corsOrigins = cors === '*' ? '*' : cors.split(',').map((o) => o.trim()).filter(Boolean);
  for (const origin of corsOrigins === '*' ? [] : corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) throw new ConfigError(`CORS origin must be * or origins like https://example.org, not "${origin}"`);
  }
  if (corsOrigins !== '*' && corsOrigins.length === 0) throw new ConfigError('CORS origin must be * or at least one origin');
  const fixedText = pick('fixed-time', 'FIXED_TIME');
  const fixedMs = fixedText === undefined ? undefined : parseTimestamp(fixedText);
  if (fixedMs === null) throw new ConfigError(`fixed time must be an RFC 3339 date-time, not "${fixedText}"`);
  const databaseUrl = pick('database-url', 'DATABASE_URL');
  if (databaseUrl !== undefined) {
    checkDatabaseUrl(databaseUrl);
    for (const [flag, envName] of [['bundle', 'BUNDLE_PATH'], ['sessions', 'SESSIONS_PATH'], ['watch', 'WATCH'], ['strict', 'STRICT']]) {
      if (pick(flag, envName) !== undefined) {
        throw new ConfigError(`--${flag} (${envName}) does not go with --database-url: a replica serves what the database holds; ` +
          'publish bundles with the publish subcommand, and the account system writes the sessions tables');
      }
    }
  }
  const workersText = pick('workers', 'WORKERS') ?? '1';
  const workers = workersText === 'auto' ? Math.min(MAX_WORKERS, availableParallelism()) : Number(workersText);
  if (workersText !== 'auto' && (!/^\d+$/.test(workersText) || workers < 1 || workers > MAX_WORKERS)) {
    throw new ConfigError(`workers must be auto or a whole number from 1 to ${MAX_WORKERS}, not "${workersText}"`);
  }
  const horizonText = pick('series-horizon-days', 'SERIES_HORIZON_DAYS');
  const horizon = horizonText === undefined ? undefined : parseHorizonDays(horizonText);
  if (typeof horizon === 'string') throw new ConfigError(`series-horizon-days ${horizon}`);
  const historyText = pick('history-days', 'HISTORY_DAYS');
  const history = historyText === undefined ? undefined : parseHistoryDays(historyText);
  if (typeof history === 'string') throw new ConfigError(`history-days ${history}`);
  const kiosk = pick('kiosk', 'KIOSK');
  if (kiosk !== undefined && !/^[A-Za-z0-9_-]{1,128}$/.test(kiosk)) throw new ConfigError(`kiosk must be a map id, not "${kiosk}"`);
  const tiles = pick('tiles', 'TILES_URL');
  if (tiles !== undefined && (!/^(https?:\/\/[^/\s]+)?\/\S*$/i.test(tiles) || !['{z}', '{x}', '{y}'].every((p) => tiles.includes(p)))) {
    throw new ConfigError(`tiles must be a URL template with {z}, {x} and {y}, a path (/tiles/{z}/{x}/{y}.png) or http(s), not "${tiles}"`);
  }
  const hereText = pick('kiosk-here', 'KIOSK_HERE');
  const here = hereText === undefined ? undefined : hereText.split(',').map((part) => Number(part.trim()));
  if (here && (here.length !== 2 || here.some((n) => !Number.isFinite(n)) || Math.abs(here[0]) > 90 || Math.abs(here[1]) > 180)) {
    throw new ConfigError(`kiosk-here must be a latitude and a longitude in degrees, such as 38.7075,-9.1364, not "${hereText}"`);
  }
  const basemap = pick('basemap', 'BASEMAP');
  if (basemap !== undefined && !/\.pmtiles$/i.test(basemap)) throw new ConfigError(`basemap must be a PMTiles archive (a .pmtiles file), not "${basemap}"`);
  const publicUrl = pick('public-url', 'PUBLIC_URL');
  if (publicUrl !== undefined) checkPublicUrl(publicUrl);
  return {
    ...(basemap !== undefined ? { basemap } : {}),
    ...(here ? { kioskHere: { lat: here[0], lng: here[1] } } : {}),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    ...(kiosk !== undefined ? { kiosk } : {}),
    ...(tiles !== undefined ? { tiles } : {}),
    limits: parseLimits(pick),
    workers,
    ...(databaseUrl !== undefined ? { databaseUrl } : {}),
    logLevel: logLevel as LogLevel,
    corsOrigins,
    ...(fixedMs !== undefined ? { fixedTime: new Date(fixedMs) } : {}),
    port,
    host: pick('host', 'HOST') ?? '0.0.0.0',
    bundlePath: pick('bundle', 'BUNDLE_PATH') ?? DEMO_BUNDLE_PATH,
    bundleGiven: pick('bundle', 'BUNDLE_PATH') !== undefined,
    basePath,
    dataDir: pick('data-dir', 'DATA_DIR') ?? DEFAULT_DATA_DIR,
    ...(pick('sessions', 'SESSIONS_PATH') ? { sessionsPath: pick('sessions', 'SESSIONS_PATH') } : {}),
    watch: parseSwitch(pick('watch', 'WATCH'), 'watch'),
    strict: parseSwitch(pick('strict', 'STRICT'), 'strict'),
    ...(horizon !== undefined ? { seriesHorizonDays: horizon } : {}),
    ...(history !== undefined ? { historyDays: history } : {}),
  };
}

/**
 * The bundle named as an argument goes where --bundle would: it may be given one way, once. A bare lowercase
 * word is refused as a mistyped subcommand rather than read as a file that is not there (name such a file ./word).
 */
function takeBundleArgument(positionals: readonly string[], flags: Map<string, string>): void {
  if (positionals.length === 0) return;
  const [first] = positionals;
  if (/^[a-z][a-z-]*$/.test(first)) {
    throw new ConfigError(`unknown subcommand "${first}": the subcommands are ${SUBCOMMANDS.join(', ')} (a bundle file of that name: ./${first})`);
  }
  if (positionals.length > 1) throw new ConfigError(`one bundle is served, not ${positionals.length} (${positionals.join(', ')})`);
  if (flags.has('bundle')) {
    throw new ConfigError(`the bundle is given twice, with --bundle (${flags.get('bundle')}) and as an argument (${first}): give it once`);
  }
  flags.set('bundle', first);
}

/** Throws ConfigError unless `url` is an absolute http(s) URL with no query, fragment or credentials. */
function checkPublicUrl(url: string): void {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // reported below
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.search || parsed.hash || parsed.username || parsed.password || url.includes('?') || url.includes('#')) {
    throw new ConfigError(`public URL must be an absolute http(s) URL such as https://maps.example.org or https://example.org/api, with no query, not "${url}"`);
  }
}

/**
 * The public URL links are built from: `--public-url`, else `http://localhost:PORT` and the base path (with
 * `--port 0`, which port is chosen is known only later: set `--public-url` where links matter).
 */
export function publicUrlOf(config: ServerConfig): string {
  return normalisePublicUrl(config.publicUrl ?? `http://localhost${config.port === 80 ? '' : `:${config.port}`}${normaliseBasePath(config.basePath)}`);
}

/** True when the server listens on loopback only (then `http://localhost` is the address clients use). */
export function listensOnLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * Options that do nothing as given, said to the operator at start (the service starts all the same): `--tiles` beside
 * `--basemap`, which takes precedence; `--kiosk-here` with no kiosk to draw it.
 */
export function optionWarnings(config: ServerConfig): string[] {
  const warnings: string[] = [];
  if (config.tiles && config.basemap) warnings.push(`tiles ${config.tiles} is not used: the basemap (--basemap) is drawn under the pages' maps instead`);
  if (config.kioskHere && !config.kiosk) warnings.push('kiosk-here is drawn by the kiosk only, and no kiosk is set (--kiosk <map id>)');
  return warnings;
}

/** What the app is built from, as the settings say (the store, the logger and the thread aside). */
export function appSettings(config: ServerConfig, assets?: AssetLoader): Pick<AppDeps, 'basePath' | 'corsOrigins' | 'now' | 'publicUrl' | 'pages' | 'basemap'> {
  const fixed = config.fixedTime;
  return { basePath: config.basePath, corsOrigins: config.corsOrigins, ...(fixed ? { now: () => fixed } : {}), publicUrl: publicUrlOf(config),
    pages: pageOptions(config, assets), ...(config.basemap ? { basemap: new PmtilesArchive(config.basemap) } : {}) };
}

/** What the app's pages are configured with: the kiosk map and tile source of the settings, and where the assets come from. */
export function pageOptions(config: ServerConfig, assets?: AssetLoader): PageOptions {
  return { ...(config.kiosk ? { kiosk: config.kiosk } : {}), ...(config.tiles && !config.basemap ? { tiles: config.tiles } : {}), ...(assets ? { assets } : {}),
    ...(config.kioskHere ? { here: config.kioskHere } : {}), ...(config.fixedTime ? { now: config.fixedTime.toISOString() } : {}),
    ...(config.publicUrl !== undefined ? { shareUrl: publicUrlOf(config) } : {}) };
}

/** The connection limits, each checked: a positive number of seconds, or a positive count (or `auto`). */
function parseLimits(pick: (flag: string, envName: string) => string | undefined): ConnectionLimits {
  const seconds = (flag: string, envName: string, fallback: number) => {
    const text = pick(flag, envName);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text) || n <= 0 || n > 3600) throw new ConfigError(`${flag} must be a number of seconds above 0 and at most 3600, not "${text}"`);
    return n;
  };
  const limits: ConnectionLimits = {
    headersTimeoutS: seconds('headers-timeout', 'HEADERS_TIMEOUT', DEFAULT_LIMITS.headersTimeoutS),
    requestTimeoutS: seconds('request-timeout', 'REQUEST_TIMEOUT', DEFAULT_LIMITS.requestTimeoutS),
    keepAliveTimeoutS: seconds('keep-alive-timeout', 'KEEP_ALIVE_TIMEOUT', DEFAULT_LIMITS.keepAliveTimeoutS),
    maxConnections: DEFAULT_LIMITS.maxConnections,
    shutdownTimeoutS: seconds('shutdown-timeout', 'SHUTDOWN_TIMEOUT', DEFAULT_LIMITS.shutdownTimeoutS),
  };
  if (limits.headersTimeoutS > limits.requestTimeoutS) {
    throw new ConfigError(`headers-timeout (${limits.headersTimeoutS} s) must not exceed request-timeout (${limits.requestTimeoutS} s)`);
  }
  const max = pick('max-connections', 'MAX_CONNECTIONS');
  if (max !== undefined && max !== 'auto') {
    if (!/^\d+$/.test(max) || Number(max) < 1) throw new ConfigError(`max-connections must be auto or a whole number above 0, not "${max}"`);
    limits.maxConnections = Number(max);
  }
  return limits;
}

/** A switch's value: a flag given, or 1/true/0/false in the environment. */
function parseSwitch(value: string | undefined, name: string): boolean {
  if (value === undefined) return false;
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be 1 or 0 (true or false), not "${value}"`);
}

/** Throws ConfigError unless `url` is a PostgreSQL connection URL. */
export function checkDatabaseUrl(url: string): void {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // reported below
  }
  if (!parsed || !/^postgres(ql)?:$/.test(parsed.protocol) || !parsed.hostname) {
    throw new ConfigError('database URL must look like postgres://user:password@host:5432/database');
  }
}
