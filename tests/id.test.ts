/**
 * The `id` subcommand: version 5 UUIDs of keys (RFC 9562's own example), under the namespace that
 * docs/bundle-format.md documents, whose example key and id are checked here; in process and as the real entry.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ID_NAMESPACE, makeUuidV5, runId, URL_NAMESPACE } from '../src/serve/id.ts';
import { runToExit } from './helpers/server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('the id subcommand', () => {
  test('makes RFC 9562\'s example: www.example.com in the DNS namespace', () => {
    assert.equal(makeUuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com'), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
    // Any letter case of the namespace is the same namespace.
    assert.equal(makeUuidV5('6BA7B810-9DAD-11D1-80B4-00C04FD430C8', 'www.example.com'), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
    assert.throws(() => makeUuidV5('demo', 'x'), /a namespace must be a UUID/);
  });

  test('the documented namespace is the version 5 id of urn:destination-map:ids, and the doc\'s example pair holds', async () => {
    assert.equal(makeUuidV5(URL_NAMESPACE, 'urn:destination-map:ids'), ID_NAMESPACE);
    const doc = await readFile(join(ROOT, 'docs', 'bundle-format.md'), 'utf8');
    const ids = doc.slice(doc.indexOf('## Ids'), doc.indexOf('## What the loader checks'));
    assert.ok(ids.includes(ID_NAMESPACE), 'the Ids section names the namespace');
    const example = /npm start --silent -- id ([a-z-]+)\n(?:#.*\n)?([0-9a-f-]{36})\n/.exec(ids);
    assert.ok(example, 'the Ids section shows a key and the id it gives');
    assert.equal(makeUuidV5(ID_NAMESPACE, example[1]), example[2]);
    assert.equal(example[2], 'b7d404a3-3ff4-533b-b1df-65e160e3f551');
  });

  test('prints one id a line per key in order, with another namespace on request; usage errors exit 2', () => {
    assert.deepEqual(runId(['feira-da-ladra', 'Feira da Ladra', 'feira-da-ladra']), {
      exitCode: 0, message: ['b7d404a3-3ff4-533b-b1df-65e160e3f551', makeUuidV5(ID_NAMESPACE, 'Feira da Ladra'), 'b7d404a3-3ff4-533b-b1df-65e160e3f551'].join('\n'),
    });
    assert.notEqual(makeUuidV5(ID_NAMESPACE, 'Feira da Ladra'), 'b7d404a3-3ff4-533b-b1df-65e160e3f551');
    assert.deepEqual(runId(['--namespace', '6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com']),
      { exitCode: 0, message: '2ed6657d-e927-568b-95e1-2665a8aea6a2' });
    assert.equal(runId(['--namespace=6ba7b810-9dad-11d1-80b4-00c04fd430c8', '--', '--odd-key']).message, makeUuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', '--odd-key'));
    for (const [args, message] of [[[], /^error: no key given/], [['--namespace', 'demo', 'x'], /^error: --namespace takes a UUID, not "demo"/],
      [['--nope', 'x'], /^error: unknown option --nope/]] as const) {
      const outcome = runId(args);
      assert.equal(outcome.exitCode, 2, args.join(' '));
      assert.match(outcome.message, message);
    }
  });

  test('runs as the real entry: npm start -- id prints the ids on stdout', async () => {
    const run = await runToExit('node', ['id', 'feira-da-ladra', 'www.example.com']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `b7d404a3-3ff4-533b-b1df-65e160e3f551\n${makeUuidV5(ID_NAMESPACE, 'www.example.com')}\n`);
  });
});
