/**
 * Fuzzing the real server (on Node, over a real port, serving the demo): a seeded sample of 2,000 raw HTTP/1.1
 * requests from the generator of scripts/reliability/fuzz.ts (mutated ids and query values over every path
 * template of /openapi.json, odd methods and headers, raw bytes in the target), checked the way the reliability
 * report checks them: no answer from the service (one carrying x-request-id) is a 5xx, and every 4xx it makes is
 * problem+json with type, title, status and detail. Answers the runtime makes itself are not the service's.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadDemoIds, loadTemplates, runFuzz, type FuzzResult } from '../scripts/reliability/fuzz.ts';
import { startServer, type RunningServer } from './helpers/server.ts';

/** Not the report's seed: the test samples other requests than the report sends first. */
const SEED = 7;
const COUNT = 2000;

describe('fuzzed requests against the real server on Node', () => {
  let server: RunningServer;
  let dataDir: string;
  let result: FuzzResult;
  before(async () => {
    // A data directory of its own, so no other test's server shares the store.
    dataDir = await mkdtemp(join(process.env.TEST_SCRATCH_DIR ?? tmpdir(), 'fuzz-'));
    server = await startServer('node', ['--data-dir', dataDir]);
    const templates = await loadTemplates(server.base);
    result = await runFuzz({ port: server.port, count: COUNT, seed: SEED, templates, ids: loadDemoIds(), sockets: 16, timeoutMs: 10_000, maxSeconds: 45 });
  });
  after(async () => {
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const examples = () => JSON.stringify(result.samples.violations.slice(0, 5), null, 1);

  test('every request was sent, and the service answered most of them', () => {
    assert.equal(result.stoppedEarly, null);
    assert.equal(result.sent, COUNT);
    const answered = Object.values(result.service).reduce((s, x) => s + x, 0);
    assert.ok(answered > COUNT / 2, `only ${answered} of ${COUNT} answers came from the service`);
    // The sample reaches both the handlers (2xx) and the parameter checks (4xx).
    assert.ok((result.service['200'] ?? 0) > 0 && (result.service['400'] ?? 0) > 0 && (result.service['404'] ?? 0) > 0, JSON.stringify(result.service));
  });

  test('no service answer is a 5xx', () => {
    assert.equal(result.service5xx, 0, `service 5xx answers, e.g. ${examples()}`);
  });

  test('every service 4xx is problem+json with type, title, status and detail', () => {
    assert.equal(result.problemViolations, 0, `malformed problem answers, e.g. ${examples()}`);
  });

  test('every well-formed request got an answer', () => {
    const lost = Object.values(result.noAnswer.wellFormed).reduce((s, x) => s + (x ?? 0), 0);
    assert.equal(lost, 0, `well-formed requests with no answer: ${JSON.stringify(result.noAnswer.wellFormed)}, ` +
      `e.g. ${JSON.stringify(result.samples.noAnswer.filter((s) => s.label.startsWith('well-formed')).slice(0, 3), null, 1)}`);
  });

  test('the server is still healthy afterwards', async () => {
    assert.equal((await fetch(`${server.base}/healthz`)).status, 200);
  });
});
