/**
 * Requests each runtime's HTTP parser answers (or drops) before the app sees them, against the table in
 * docs/deployment.md ("What the runtime answers before the app"): the table is what each runtime does, and this
 * test keeps it true. Every answer the app makes (it carries X-Request-Id) to these requests is problem+json
 * for a 4xx, and the app's answers agree across runtimes wherever the request reaches it on more than one.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { RawConnection, type RawAnswer } from '../scripts/reliability/raw-http.ts';
import { RUNTIME_NAMES, startServer, type Runtime } from './helpers/server.ts';

/** The requests, by the name the table gives them. */
export const EDGE_REQUESTS: Record<string, { raw: Buffer; method?: string }> = Object.fromEntries(Object.entries({
  'a space in the target': 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n',
  'a NUL in the target': 'GET /a\x00b HTTP/1.1\r\nHost: x\r\n\r\n',
  'bytes 0x7f 0x80 in the target': 'GET /\x7f\x80nope HTTP/1.1\r\nHost: x\r\n\r\n',
  'an unknown method (FOO)': 'FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
  'a lowercase method (get)': 'get /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
  'CONNECT': 'CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n',
  'OPTIONS *': 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
  'no Host (HTTP/1.1)': 'GET /healthz HTTP/1.1\r\n\r\n',
  'version HTTP/2.0 on HTTP/1 framing': 'GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n',
  'version HTTP/9.9': 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n',
  'headers over 16 KB (a 20 KB header)': `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  'a target over 16 KB (20 KB)': `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'a target of 9 KB': `GET /${'a'.repeat(9000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'a space in a header name': 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
  'Content-Length and Transfer-Encoding': 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  'a Content-Length that is not a number': 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
  'lines ending in LF alone': 'GET /healthz HTTP/1.1\nHost: x\n\n',
}).map(([name, raw]) => [name, { raw: Buffer.from(raw, 'latin1'), method: raw.split(' ', 1)[0] }]));

/** What came back, as the table writes it: `app 404`, `400 (runtime)`, or `closed`. */
function describeAnswer(a: RawAnswer | null): string {
  if (!a) return 'closed';
  return 'x-request-id' in a.headers ? `app ${a.status}` : `${a.status} (runtime)`;
}

/** The table in docs/deployment.md: request name → runtime → cell. */
async function documented(): Promise<Map<string, Record<Runtime, string>>> {
  const lines = (await readFile(new URL('../docs/deployment.md', import.meta.url), 'utf8')).split('\n');
  const header = lines.indexOf('| request | Node | Deno | Bun |');
  assert.ok(header > 0, 'docs/deployment.md has the table');
  const table = new Map<string, Record<Runtime, string>>();
  for (const row of lines.slice(header + 2)) {
    if (!row.startsWith('|')) break;
    const [name, node, deno, bun] = row.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, ''));
    table.set(name, { node, deno, bun });
  }
  return table;
}

describe('what the runtime answers before the app', () => {
  test('docs/deployment.md has a row for every request, and none more', async () => {
    assert.deepEqual([...(await documented()).keys()].sort(), Object.keys(EDGE_REQUESTS).sort());
  });

  for (const runtime of RUNTIME_NAMES) {
    test(`on ${runtime}, each request gets what the table says; the app's 4xx are problem+json`, async () => {
      const table = await documented();
      const server = await startServer(runtime);
      const seen: Record<string, string> = {};
      try {
        for (const [name, { raw, method }] of Object.entries(EDGE_REQUESTS)) {
          const c = new RawConnection(server.port);
          let answer: RawAnswer | null = null;
          try {
            await c.connected();
            answer = await c.send(raw, method ?? 'GET', 5000);
          } catch {
            answer = null;
          } finally {
            c.destroy();
          }
          seen[name] = describeAnswer(answer);
          if (answer && 'x-request-id' in answer.headers && answer.status >= 400) {
            assert.match(answer.headers['content-type'] ?? '', /^application\/problem\+json/, `${name}: the app's ${answer.status}`);
          }
        }
        const expected = Object.fromEntries(Object.keys(EDGE_REQUESTS).map((name) => [name, table.get(name)?.[runtime]]));
        assert.deepEqual(seen, expected);
        assert.equal((await fetch(`${server.base}/healthz`)).status, 200, 'still serving');
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  }
});
