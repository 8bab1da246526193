/**
 * The fuzz probe as the report runs it: a fresh service, `count` seeded requests of fuzz.ts over 16 keep-alive
 * sockets, then the checks as table rows (service 5xx and problem+json violations must be 0). Run by
 * scripts/reliability.ts; no CLI of its own (fuzz.ts has one against a running service).
 */
import type { Runtime } from '../../tests/helpers/server.ts';
import { get } from '../harness/http.ts';
import { hasExited } from '../harness/spawn.ts';
import { row, say, startService, type ProbeOutcome } from './common.ts';
import { FUZZ_SEED, loadDemoIds, loadTemplates, runFuzz, showCounts, total, type FuzzSample } from './fuzz.ts';

/** Markdown-safe one-line text. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/`/g, "'");

/** Formats samples for the notes. */
function showSamples(title: string, samples: FuzzSample[], max: number): string[] {
  if (samples.length === 0) return [];
  return [`${title}:`, ...samples.slice(0, max).map((s) => `  - #${s.index} \`${cell(s.label)}\` → ${s.status ?? 'no answer'}: ${cell(s.detail.slice(0, 200))}; request \`${cell(s.request.slice(0, 160))}\``)];
}

/** Fuzzes a fresh service on `runtime` with `count` requests. */
export async function probeFuzz(runtime: Runtime, dataDir: string, count: number): Promise<ProbeOutcome> {
  const service = await startService(runtime, { dataDir });
  try {
    const templates = await loadTemplates(service.base);
    say(`${runtime} fuzz: ${count} requests over ${templates.length} path templates (seed ${FUZZ_SEED})`);
    const r = await runFuzz({ port: service.port, count, seed: FUZZ_SEED, templates, ids: loadDemoIds(), sockets: 16, timeoutMs: 10_000,
      maxSeconds: 900, onProgress: (sent) => say(`${runtime} fuzz: ${sent} sent`) });
    const alive = !hasExited(service.child) && (await get(`${service.base}/healthz`, { timeoutMs: 15_000 }).then((a) => a.status === 200, () => false));
    const wellFormedLost = total(r.noAnswer.wellFormed);
    const logged = service.errors();
    say(`${runtime} fuzz: ${r.sent} in ${r.seconds} s (${r.rps}/s); service 5xx ${r.service5xx}, problem violations ${r.problemViolations}, ` +
      `no answer ${wellFormedLost} well-formed + ${total(r.noAnswer.malformed)} malformed`);
    const rows = [
      row(runtime, 'requests sent (requests/s)', `${r.sent} of ${r.requested} in ${r.seconds} s (${r.rps}/s)`, `${r.requested}`, r.sent === r.requested,
        r.sent / r.requested),
      row(runtime, 'service answers ≥ 500', r.service5xx, '0', r.service5xx === 0, -r.service5xx),
      row(runtime, 'service 4xx not problem+json with type/title/status/detail', r.problemViolations, '0', r.problemViolations === 0, -r.problemViolations),
      // Reported, not a target: a runtime may drop a request it will not parse (Bun closes on an unknown method) before the app sees it.
      row(runtime, 'well-formed requests with no answer (closed, reset, timeout)',
        wellFormedLost ? `${wellFormedLost} (${showCounts(r.noAnswer.wellFormed)}; by method ${showCounts(r.noAnswerByMethod)})` : '0'),
      row(runtime, 'malformed requests with no answer (the runtime may close)', `${total(r.noAnswer.malformed)} (${showCounts(r.noAnswer.malformed)})`),
      row(runtime, 'service answers by status', showCounts(r.service)),
      row(runtime, 'runtime answers (no x-request-id) by status', showCounts(r.runtime)),
      row(runtime, 'connections opened (16 to start; one more per connection the server closed)', r.connectionsOpened),
      row(runtime, 'error lines in the service log', logged.count),
      row(runtime, 'service alive and healthy after the run', alive ? 'yes' : 'no', 'yes', alive),
    ];
    const notes = [
      ...(r.stoppedEarly ? [`${runtime}: the fuzz run stopped early: ${r.stoppedEarly}`] : []),
      ...showSamples(`${runtime}: service 5xx and problem+json violations (examples)`, r.samples.violations, 20),
      ...showSamples(`${runtime}: requests with no answer (examples)`, r.samples.noAnswer, 8),
      ...showSamples(`${runtime}: answers made by the runtime itself (examples)`, r.samples.runtime, 6),
      ...(logged.first.length ? [`${runtime}: first error lines the service logged:`, ...logged.first.slice(0, 5).map((l) => `  - \`${cell(l.slice(0, 300))}\``)] : []),
    ];
    return { rows, notes, raw: r };
  } finally {
    await service.stop();
  }
}
