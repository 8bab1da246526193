/**
 * The benchmark's result shape: what scripts/bench.ts measures, scripts/bench/report.ts judges and writes, and
 * the measurements of scripts/bench/publish.ts and scripts/bench/fleet.ts return. Types only, so every one of those
 * modules can name them without importing another's code.
 */
import type { Commit, MachineFacts } from '../harness/machine.ts';
import type { LoadResult } from './run-load.ts';

/** The runtimes measured. */
export type RuntimeName = 'node' | 'bun' | 'deno';

/** The machine the numbers come from: CPU, cores, memory and OS (scripts/harness/machine.ts), and how the run used it. */
export interface Machine extends MachineFacts {
  /** True when servers ran on core 0 and load generators on core 1 (taskset). */
  pinned: boolean;
  pinningNote: string;
  /** 1, 5 and 15-minute load averages when the run began and ended (other work skews every number). */
  loadAvgStart: number[];
  loadAvgEnd: number[] | null;
}

/** How the run was configured. */
export interface BenchOptions {
  quick: boolean;
  durationS: number;
  warmupS: number;
  connections: number;
  runtimes: RuntimeName[];
  skipLarge: boolean;
  startupRepeats: number;
  serviceLogLevel: string | null;
  /** The phases run (`--only`): demo, large, filters, publish, fleet. */
  phases: string[];
  /** The row groups of the large phase run (`--rows`; absent in older results: all of them). */
  rows?: string[];
  /** Distinct filters walked to page 200 for the cursor rows (`--cursor-filters`). */
  cursorFilters?: number;
}

/** Resident memory of a server process, in MB. */
export interface Rss {
  afterStartMb: number | null;
  afterLoadMb: number | null;
  /** VmHWM: the peak over the process's life, start-up included. */
  peakMb: number | null;
  /** The executable /proc says the measured pid runs (the runtime itself, never a wrapper). */
  exe: string | null;
}

/** One representative request measured on the service and on the ceiling. */
export interface RequestRun {
  name: string;
  path: string;
  contentType: string;
  bodyBytes: number;
  service: LoadResult;
  ceiling: LoadResult;
  /** service req/s ÷ ceiling req/s. */
  ratio: number;
}

/** Everything measured for one runtime on the demo bundle. */
export interface RuntimeDemo {
  runtime: RuntimeName;
  /** Spawn to the first 200 on /maps/:id, each from an existing snapshot. */
  startupMs: number[];
  startupMedianMs: number;
  /** Spawn to exit of open-snapshot.ts: PGlite alone opening the same snapshot. */
  snapshotOpenMs: number[];
  snapshotOpenMedianMs: number;
  /** Spawn to its printed line (opened and queried, before process teardown). */
  snapshotReadyMs: number[];
  /** RSS open-snapshot.ts reports for itself once open (median). */
  snapshotRssMb: number;
  /** startupMedianMs ÷ snapshotOpenMedianMs. */
  startupRatio: number;
  rss: Rss;
  requests: RequestRun[];
  /** Mean service req/s over the content requests. */
  contentRps: number;
  /** Mean of the per-request ratios to the ceiling. */
  contentRatio: number;
}

/** One /events request on the large dataset. */
export interface EventsRun {
  name: string;
  /** `cached`: one URL repeated (the response cache answers); `distinct`: every request a question not asked before. */
  kind: 'cached' | 'distinct';
  /** A distinct run's first path (each request sends another). */
  path: string;
  /** The response cache's hits ÷ cacheable answers over the measured run (from /readyz), or null. */
  cacheHitRate: number | null;
  /** For a distinct run: the totals of a sample of its questions (asked outside the run). */
  sample?: { count: number; meanTotal: number; nonEmpty: number; meanBytes?: number };
  /** `total` of the first page: how many events the filter matched. */
  total: number;
  bodyBytes: number;
  /** One request alone (no other load), before the load run: its wall time in ms. */
  singleMs: number;
  load: LoadResult;
  /** req/s ÷ the same runtime's content-GET req/s on the demo. */
  ratioToContent: number | null;
  /**
   * The rows users produce (absent: the identity rows above them): `encoded`, the distinct kinds and their cached
   * reference asked with a browser's Accept-Encoding; `cursor`, page 1 and page 200 of distinct filters, neither
   * cache able to answer them; `misses`, distinct values of declared parameters of the cached URL, with the browser's Accept-Encoding.
   */
  group?: 'fields' | 'encoded' | 'cursor' | 'misses' | 'calendar' | 'hours' | 'tiles' | 'ogc';
  /** The Accept-Encoding sent (absent: identity), and the coding the service answered with (absent: none). */
  acceptEncoding?: string;
  contentEncoding?: string | null;
  /** The name of the row this one is compared with in its group (its cached URL, or page 1), and the ratio of their req/s. */
  reference?: string;
  ratioToReference?: number | null;
  /** A run that sends each of its paths once (`once`): how many there were (warm-up included). */
  paths?: number;
}

/** Everything measured for one runtime on the large dataset. */
export interface RuntimeLarge {
  runtime: RuntimeName;
  /** Spawn to the first 200 on /maps/:id, on a start from the snapshot. */
  startupMs: number;
  /** `snapshot` or `bundle`, from the service's "content loaded" log line (null when not logged). */
  loadedFrom: string | null;
  rss: Rss;
  requests: EventsRun[];
  /** req/s of page 1 ÷ req/s of page 200 (null when no page-200 request completed). */
  cursorRatio: number | null;
  /**
   * The same for distinct filters, each asked once, their page-200 cursors walked during the set-up (null when no
   * page-200 request completed; absent when not run).
   */
  distinctCursorRatio?: number | null;
  /** How the distinct cursor rows were set up (filters walked, requests, seconds), or why they were not measured. */
  cursorSetup?: { filters: number; windowDays: number; walkRequests: number; walkS: number; evicted: number; checked: string } | { skipped: string };
  /** Distinct near 5 km questions with `--workers 1` and `--workers 2`, side by side, nothing pinned (both cores). */
  workers?: WorkersRun[];
  /**
   * What the calendar feed's cap does to a 30-day window of the whole map: how many windows were asked (each once,
   * alone), all refused with 400; the VEVENTs they would have held (mean, least); the refusal's wall time (median ms).
   */
  calendarCap?: { windows: number; refused: number; meanEvents: number; leastEvents: number; medianMs: number; cap: number };
  /** PostGIS ST_AsMVT on the same markers and distinct tiles as the tiles rows (measured once per bench run), or why not. */
  postgisTiles?: import('./postgis-tiles.ts').PostgisTiles | { skipped: string };
}

/** The load generators: autocannon (Node) for every row, wrk (C) beside it for the serving threads. */
export type LoadGenerator = 'autocannon' | 'wrk';

/** One run of distinct questions against the service started with `workers` serving threads, unpinned. */
export interface WorkersRun {
  workers: number;
  generator: LoadGenerator;
  /** Which round of one thread then two (from 1; absent in reports of one round). */
  round?: number;
  load: LoadResult;
  cacheHitRate: number | null;
  /** The whole process, every thread: after start-up, and after the load. */
  rssMb: number | null;
}

/** A part of the run that was skipped, and why. */
export interface NotRun { status: 'not run'; reason: string }

/** The large-dataset phase. */
export type LargePhase = NotRun | {
  status: 'ran';
  bundle: string;
  bundleBytes: number;
  mapId: string;
  /** Items of each top-level array of the bundle (markers, events, ...), counted from the file. */
  counts: Record<string, number>;
  /** Where near and bbox point. */
  aim: { near: string; bbox: string; tags: string; source: string };
  runtimes: RuntimeLarge[];
};

/** One filter of scripts/bench/filters.ts. */
export interface FilterRow {
  name: string;
  query: string;
  total: number;
  readPathUs: { median: number; p90: number };
  sqlUs: { median: number; p90: number };
  ratio: number;
}

/** The in-process filter comparison (scripts/bench/filters.ts). */
export type FiltersPhase = NotRun | {
  status: 'ran';
  result: { dataset: Record<string, unknown>; load: { source: string; ms: number }; filters: FilterRow[] };
};

/** A load run of the publishing benchmark, with the /healthz probes taken during it. */
export interface PublishRun {
  load: LoadResult;
  /** /healthz probed one at a time (a fresh connection each) from the publishing process, `intervalMs` apart. */
  healthz: { probes: number; slowestMs: number; p99Ms: number; failed: number; intervalMs: number };
}

/** Publishing under load on the demo (scripts/bench/publish.ts, `measurePublishUnderLoad`). */
export interface PublishUnderLoad {
  bundle: string;
  runtime: 'node';
  connections: number;
  /** The requests the load sends, each connection in turn. */
  paths: string[];
  /** The service's --log-level. */
  logLevel: string;
  warmupS: number;
  /** Seconds of the run without publishes. */
  baselineS: number;
  publishes: number;
  /** What each publish edits. */
  edit: string;
  baseline: PublishRun;
  /** The load from the first SIGHUP until the last new version was served. */
  during: PublishRun;
  /** Non-2xx, errors and timeouts. */
  failed: { baseline: number; during: number };
  /** during p99 ÷ baseline p99 (the baseline at least 1 ms). */
  p99Ratio: number;
  /** Each SIGHUP to /readyz showing the new version, in ms. */
  sighupToServedMs: number[];
  sighupMedianMs: number;
  sighupMaxMs: number;
  /** The service's own `last_publish.ms` of each publish. */
  publishMs: (number | null)[];
  /**
   * Spawn to /readyz 200 with an empty data directory, on every core with no load running: the median of
   * `runsMs`, and the highest VmHWM then.
   */
  firstLoad: { ms: number; runsMs: number[]; peakRssMb: number | null };
  /** VmHWM at the end (the process's whole life). */
  peakRssMb: number | null;
}

/** The 1M-event first load and SIGHUP publishes (scripts/bench/publish.ts, `measureLargePublish`). */
export interface LargePublish {
  bundle: string;
  bundleBytes: number;
  /** Events in the bundle, when counted (scripts/bench.ts counts them). */
  events?: number | null;
  /** Spawn to /readyz 200 with an empty data directory; null when it did not finish within `timeoutMs`. */
  firstLoad: {
    ms: number | null; timeoutMs: number;
    /** VmHWM of the service process (its publisher worker thread included) when served, or when the wait ended. */
    peakRssMb: number | null;
    /** The service's "content loaded" log line (source, ms), when it was logged. */
    logged: { source: string | null; ms: number | null } | null;
  };
  /** The event whose title each publish edits. */
  edit: string;
  publishTimeoutMs: number;
  /** Each SIGHUP: to /readyz showing the new version (null: not within publishTimeoutMs), and the service's own ms. */
  publishes: { sighupToServedMs: number | null; publishMs: number | null }[];
  sighupMedianMs: number | null;
  sighupMaxMs: number | null;
  /** /healthz probed during the SIGHUP publishes. */
  healthz: { probes: number; slowestMs: number; p99Ms: number; failed: number; intervalMs: number } | null;
  /** VmHWM at the end (first load and publishes). */
  peakRssMb: number | null;
  /** Why the publishes were not (all) measured. */
  skipped: string | null;
  /** The change feed after one more publish that changes 1% of the map's events, against the export (null: not measured). */
  feed?: ChangeFeedMeasure | null;
}

/** One download, first asked after the publish, with a browser's Accept-Encoding. */
export interface Download {
  /** Requests made (the feed's pages, or the one export), and ms from the first request to the last byte of the last. */
  requests: number; ms: number;
  /** Bytes on the wire (compressed) and of the JSON itself. */
  wireBytes: number; bytes: number;
  /** The Content-Encoding answered (of the first answer). */
  encoding: string | null;
  /** The service's response cache over these requests (0: each made afresh). */
  cacheHitRate: number | null;
}

/** The change feed for one publish that changed 1% of the map's events, against the export a client fetches instead. */
export interface ChangeFeedMeasure {
  /** The map's events (every status, every occurrence) and how many the publish changed (the titles of single events). */
  events: number | null; edited: number;
  /** SIGHUP to the new version served. */
  publishMs: number | null;
  /** Changes the feed listed (`total`), each page `limit` of them. */
  changes: number; limit: number;
  feed: Download;
  export: Download;
  /** The feed against the export: bytes on the wire, and time. */
  wireRatio: number; msRatio: number;
}

/** A fleet over PostgreSQL (scripts/bench/fleet.ts, `measureFleet`). */
export interface FleetResult {
  database: string;
  demo: {
    publishes: number;
    /** Each publish: the command's own time, and its start to both replicas serving the new version. */
    runs: { publishMs: number; toEveryReplicaMs: number }[];
    medianToEveryReplicaMs: number;
    maxToEveryReplicaMs: number;
    requests: number;
    failed: number;
    /**
     * Transactions the database counted during `contentRequests` content requests to one replica in `seconds`,
     * and during as many seconds with no request at all (polls, statistics reads, background work).
     */
    queries: { contentRequests: number; seconds: number; transactions: number; idleTransactions: number };
  };
  large: null | {
    bundle: string;
    publishMs: number;
    fromDatabaseMs: number;
    fromDatabasePeakRssMb: number | null;
    fromCacheMs: number;
    /** One edited title: the publish command's start to both replicas serving it. */
    publishToEveryReplicaMs: number;
  };
}

/** The publishing phase under load on the demo. */
export type PublishPhase = NotRun | ({ status: 'ran' } & PublishUnderLoad);
/** The publishing phase on the large bundle. */
export type LargePublishPhase = NotRun | ({ status: 'ran' } & LargePublish);
/** The fleet phase. */
export type FleetPhase = NotRun | ({ status: 'ran' } & FleetResult);

/** One target: what was measured and whether it holds ('—': a figure with no target, shown beside them). */
/**
 * A target and its verdict: 'interference' when a runtime's ratio to its ceiling is above 100%, so the figure is
 * not the service's and the run is to be done again.
 */
export interface Target { name: string; measured: string; holds: 'yes' | 'no' | 'not measured' | 'interference' | '—' }

/** The whole result, embedded as raw JSON in the document. */
export interface BenchResult {
  generatedAt: string;
  command: string;
  /** The commit measured (scripts/harness/machine.ts readCommit). */
  commit: Commit;
  elapsedS: number;
  options: BenchOptions;
  machine: Machine;
  versions: Record<string, string>;
  datasets: { demo: Record<string, number | string>; large: Record<string, number | string> | null };
  demo: RuntimeDemo[];
  large: LargePhase;
  filters: FiltersPhase;
  publish: PublishPhase;
  publishLarge: LargePublishPhase;
  fleet: FleetPhase;
  targets: Target[];
  /** What broke (non-2xx, a server that did not start, mismatched bodies): the run exits non-zero. */
  failures: string[];
  notes: string[];
}
