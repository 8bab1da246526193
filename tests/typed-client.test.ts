/**
 * A typed client, as the README shows it: `openapi-typescript` generates the API's types from a running service's
 * /openapi.json (on a real port), no documented field comes out `unknown` (the OpenAPI document's own `paths`
 * excepted: the OpenAPI specification describes them), the README's example client type-checks against them with
 * `openapi-fetch` under `strict`, and runs against the service. The answers of the routes beside the spec's 27 (the
 * export, the change feed, the style, OGC API Features) conform to the schemas the types are generated from (the
 * 27 are checked by tests/http/openapi.test.ts).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import * as v from 'valibot';
import { routes } from '../src/routes/index.ts';
import { startServer, type RunningServer } from './helpers/server.ts';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'node_modules', '.bin');
const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';

let server: RunningServer;
let dir: string;
before(async () => {
  server = await startServer('node');
  dir = await mkdtemp(join(tmpdir(), 'typed-client-'));
  // The example resolves openapi-fetch as an app that installed it would.
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
});
after(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The README's example client: the TypeScript block of its "A typed client" section. */
async function readmeExample(): Promise<{ install: string; code: string }> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### A typed client'));
  const install = /```sh\n([^]*?)\n```/.exec(section)![1];
  const code = /```ts\n([^]*?)\n```/.exec(section)![1];
  return { install, code };
}

test('the generated types have no unknown for any documented field, and the README example type-checks and runs', async () => {
  const { install, code } = await readmeExample();
  assert.match(install, /npx openapi-typescript http:\/\/localhost:8787\/openapi\.json -o api\.d\.ts/);
  // As the README says, against this service's own port.
  await run(join(BIN, 'openapi-typescript'), [`${server.base}/openapi.json`, '-o', join(dir, 'api.d.ts')], { cwd: dir });
  const types = await readFile(join(dir, 'api.d.ts'), 'utf8');
  assert.match(types, /"\/maps\/\{map_id\}\/changes": \{/, 'the new routes are there');
  // `unknown` outside comments, response headers' index signatures and the OpenAPI document's own operation.
  const own = types.indexOf('    getOpenApi: {');
  const ownEnd = types.indexOf('\n    };', own);
  let offset = 0;
  const offending = types.split('\n').map((line) => ({ line, at: (offset += line.length + 1) - line.length - 1 }))
    .filter(({ line, at }) => /\bunknown\b/.test(line) && !/^\s*(\*|\/\*\*)/.test(line) && !/^\s*\[name: string\]: unknown;$/.test(line) &&
      !(at > own && at < ownEnd));
  assert.deepEqual(offending.map((o) => o.line.trim()), [], 'no documented field is unknown');
  assert.ok(!/Record<string, never>;\n(?!export type)/.test(types.replace(/export type (webhooks|\$defs) = Record<string, never>;/g, '')),
    'no documented object comes out as an empty record');

  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(join(dir, 'client.ts'), code);
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', skipLibCheck: true,
      types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')] },
    files: ['client.ts', 'api.d.ts'],
  }));
  const checked = await run(join(BIN, 'tsc'), ['-p', 'tsconfig.json'], { cwd: dir }).catch((err) => err);
  assert.equal(checked.code ?? 0, 0, `the README example type-checks:\n${checked.stdout}${checked.stderr}`);

  // A mistake is a compile error: a required parameter left out, a number for a string, a field no event has.
  await writeFile(join(dir, 'client.ts'), `${code}\nawait api.GET('/events', { params: { query: { from: '2027-06-01' } } });\n` +
    `await api.GET('/events', { params: { query: { map_id: 42 } } });\nif (june.data) console.log(june.data.events[0].titel);\n`);
  const wrong = await run(join(BIN, 'tsc'), ['-p', 'tsconfig.json'], { cwd: dir }).catch((err) => err);
  assert.notEqual(wrong.code ?? 0, 0);
  assert.match(wrong.stdout, /Property 'map_id' is missing/);
  assert.match(wrong.stdout, /Type 'number' is not assignable to type 'string'/);
  assert.match(wrong.stdout, /'titel' does not exist/);

  await writeFile(join(dir, 'client.ts'), code);
  const ran = await run(join(BIN, 'tsx'), ['client.ts'], { cwd: dir, env: { ...process.env, API_URL: server.base } });
  assert.match(ran.stdout, /^2027-06-\d\dT[^ ]+ \S/m, 'June\'s events, with their titles');
  assert.match(ran.stdout, /^\d+ POIs, \d+ events at \S+$/m);
  assert.match(ran.stdout, /^0 changes; next time, since \S+$/m);
});

test('the answers of the export, the change feed, the style and OGC API Features conform to their documented schemas', async () => {
  const details = await fetch(`${server.base}/maps/${MAIN}/details`);
  const token = details.headers.get('x-change-token')!;
  const samples = [
    `/maps/${MAIN}/export`, `/maps/${MAIN}/export?langs=all`, `/maps/${MAIN}/changes?since=${token}`, `/maps/${MAIN}/style.json`,
    `/maps/${MAIN}/tiles.json`, '/ogc', '/ogc/collections', `/ogc/collections/${MAIN}-markers/items?limit=5`,
    `/ogc/collections/${MAIN}-paths/items?limit=5`, `/ogc/collections/${MAIN}-polygons/items?limit=5`, `/ogc/collections/${MAIN}-events/items?limit=5`,
    '/readyz',
  ];
  for (const path of samples) {
    const res = await fetch(server.base + path);
    assert.equal(res.status, 200, path);
    const body = await res.json();
    if (path === '/readyz') {
      // Described in the document itself (the health checks are not routes): every field it documents is typed.
      const doc = await (await fetch(`${server.base}/openapi.json`)).json();
      const schema = doc.paths['/readyz'].get.responses['200'].content['application/json'].schema;
      for (const key of Object.keys(body)) assert.ok(key in schema.properties, `/readyz documents ${key}`);
      continue;
    }
    const route = routes.find((r) => new RegExp(`^${r.path.replace(/:\w+/g, '[^/]+').replace(/\./g, '\\.')}$`).test(path.split('?')[0]))!;
    assert.ok(route, path);
    const parsed = v.safeParse(route.response, body);
    assert.ok(parsed.success, `${path}: ${parsed.issues?.slice(0, 3).map((i) => `${(i.path ?? []).map((p) => String(p.key)).join('.')}: ${i.message}`).join('; ')}`);
  }
});
