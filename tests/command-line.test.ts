/**
 * The command line, in process and as the real entry: the bundle given as an argument or with --bundle to the
 * server, `check` and `publish` (both, or two for one, is a usage error); check's report on stdout whatever it
 * finds; and every --flag the README and docs/ show with a command listed by that command's --help.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkUsage, runCheck } from '../src/content/bundle/check.ts';
import { ConfigError, DEMO_BUNDLE_PATH, optionWarnings, parseConfig, SUBCOMMANDS, usage } from '../src/serve/config.ts';
import { kioskWarnings } from '../src/pages/pages.ts';
import { openTestApp, readDemoBundle } from './helpers/app.ts';
import { TILES, tilesBundle } from './helpers/small-bundles.ts';
import { idUsage } from '../src/serve/id.ts';
import { publishUsage, runPublish } from '../src/serve/publish.ts';
import { reloadUsage } from '../src/serve/reload.ts';
import { start } from '../src/serve/start.ts';
import { runToExit, startServer } from './helpers/server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DB = { DATABASE_URL: 'postgres://u:p@127.0.0.1:9/none' };

describe('the bundle, as an argument or with --bundle', () => {
  test('the server takes it either way, and refuses it given both ways, twice, or as a bare word', () => {
    for (const args of [['my.json'], ['--bundle', 'my.json'], ['--bundle=my.json'], ['--port', '0', 'my.json', '--watch']]) {
      const config = parseConfig(args, { BUNDLE_PATH: 'env.json' });
      assert.ok(config !== 'help');
      assert.equal(config.bundlePath, 'my.json', args.join(' '));
      assert.equal(config.bundleGiven, true);
    }
    const refusals: [string[], RegExp][] = [
      [['a.json', '--bundle', 'b.json'], /the bundle is given twice, with --bundle \(b\.json\) and as an argument \(a\.json\)/],
      [['--bundle', 'a.json', '--bundle', 'b.json'], /--bundle is given twice \(a\.json, b\.json\)/],
      [['a.json', 'b.json'], /one bundle is served, not 2 \(a\.json, b\.json\)/],
      [['chekc'], /unknown subcommand "chekc": the subcommands are check, publish, id, reload \(a bundle file of that name: \.\/chekc\)/],
      [['my.json', '--database-url', DB.DATABASE_URL], /--bundle \(BUNDLE_PATH\) does not go with --database-url/],
    ];
    for (const [args, message] of refusals) assert.throws(() => parseConfig(args, {}), (err) => err instanceof ConfigError && message.test(err.message), args.join(' '));
  });

  test('the server refuses both ways with exit 2 before opening anything, as the real entry', async () => {
    const run = await runToExit('node', ['a.json', '--bundle', 'b.json']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^error: the bundle is given twice/);
    assert.doesNotMatch(run.stdout, /listening/);
  });

  test('check takes them as arguments or with --bundle (again for each), not both', async () => {
    const read = async (path: string) => (path === 'missing.json' ? Promise.reject(Object.assign(new Error('x'), { code: 'ENOENT' })) : '{}');
    const files = async (args: string[]) => {
      const { exitCode, output } = await runCheck(['--json', ...args], read);
      return { exitCode, files: exitCode === 2 ? output : (JSON.parse(output) as { file: string }[]).map((r) => r.file) };
    };
    assert.deepEqual(await files(['a.json', 'b.json']), { exitCode: 1, files: ['a.json', 'b.json'] });
    assert.deepEqual(await files(['--bundle', 'a.json', '--bundle=b.json']), { exitCode: 1, files: ['a.json', 'b.json'] });
    const both = await runCheck(['a.json', '--bundle', 'b.json'], read);
    assert.equal(both.exitCode, 2);
    assert.match(both.output, /^error: name the bundles either as arguments or with --bundle, not both \(b\.json, a\.json\)\n\nUsage: /);
    const empty = await runCheck(['--bundle'], read);
    assert.equal(empty.exitCode, 2);
    assert.match(empty.output, /^error: option --bundle needs a value/);
  });

  test('publish takes one bundle either way; both, or two, is a usage error before any connection', async () => {
    for (const [args, message] of [
      [['a.json', '--bundle', 'b.json'], /^error: publish takes one bundle, given with --bundle and as an argument \(b\.json, a\.json\)/],
      [['a.json', 'b.json'], /^error: publish takes one bundle, given twice \(a\.json, b\.json\)/],
      [['--bundle', 'a.json', '--bundle', 'b.json'], /^error: publish takes one bundle, given twice/],
      [['--sessions', 's.json', '--list'], /^error: publish takes a bundle \(and\/or --sessions FILE\), or --rollback VERSION, or --list/],
      [[], /^error: publish takes a bundle/],
    ] as const) {
      const outcome = await runPublish(args, DB);
      assert.equal(outcome.exitCode, 2, args.join(' '));
      assert.match(outcome.message, message, args.join(' '));
    }
    // Either way it gets as far as the database (which is not there): the arguments were accepted.
    for (const args of [['data/demo-bundle.json'], ['--bundle', 'data/demo-bundle.json'], ['--sessions', 'data/demo-sessions.json']]) {
      const outcome = await runPublish(args, DB);
      assert.equal(outcome.exitCode, 1, args.join(' '));
      assert.match(outcome.message, /^error: cannot reach the database/, args.join(' '));
    }
  });

  test('a bad sessions file is refused before the database is asked anything', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dmcs-cli-'));
    try {
      await writeFile(join(dir, 'bad.json'), JSON.stringify({ format: 'destination-sessions/1', sessions: [{ token_sha256: 'nope' }] }));
      const outcome = await runPublish(['--sessions', join(dir, 'bad.json'), DEMO_BUNDLE_PATH], DB);
      assert.equal(outcome.exitCode, 1);
      assert.match(outcome.message, /sessions file refused: \d+ problems?[\s\S]*\$\.sessions\[0\]\.token_sha256[\s\S]*nothing was published$/);
      const missing = await runPublish(['--sessions', join(dir, 'none.json')], DB);
      assert.match(missing.message, /^error: cannot read the sessions file .*none\.json: .*; nothing was published$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('check writes its report on stdout', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dmcs-cli-'));
    await writeFile(join(dir, 'bad.json'), '{');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('the report of a bundle with problems goes to stdout with exit 1, as JSON and as text; a usage error to stderr', async () => {
    const json = await runToExit('node', ['check', join(dir, 'bad.json'), '--json']);
    assert.equal(json.code, 1);
    assert.equal(json.stderr, '');
    const [report] = JSON.parse(json.stdout) as { ok: boolean; problems: unknown[] }[];
    assert.equal(report.ok, false);
    assert.equal(report.problems.length, 1);
    const text = await runToExit('node', ['check', '--bundle', join(dir, 'bad.json')]);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^error {2}not valid JSON at line 1, column 2: unexpected end of the file\n/);
    const usageError = await runToExit('node', ['check', '--strikt']);
    assert.equal(usageError.code, 2);
    assert.equal(usageError.stdout, '');
    assert.match(usageError.stderr, /^error: unknown option --strikt/);
  });

  test('start() marks a check outcome as a report, unless it is a usage error', async () => {
    const bad = await start(['check', join(dir, 'bad.json'), '--json'], {});
    assert.ok('exitCode' in bad);
    assert.deepEqual([bad.exitCode, bad.report], [1, true]);
    const usageError = await start(['check'], {});
    assert.ok('exitCode' in usageError);
    assert.deepEqual([usageError.exitCode, usageError.report], [2, false]);
  });
});

/** A command line of the docs that runs the service: how (npm start or the binary), which subcommand, and its flags. */
interface DocCommand { where: string; line: string; binary: boolean; command: string; flags: string[] }

/**
 * The service's command lines in Markdown: every line of a code block and every inline code span that runs
 * `npm start`, `npm run start:bun|deno` (their arguments are those after `--`: before it they are npm's own)
 * or the binary (a first word ending in `destination-map`). The subcommand is the first argument when it is
 * one; redirections and comments end the arguments.
 */
function findDocCommands(markdown: string, where: string): DocCommand[] {
  const blocks = [...markdown.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n').map((l) => l.replace(/\s+#.*$/, '')));
  const spans = [...markdown.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  const out: DocCommand[] = [];
  for (const line of [...blocks, ...spans]) {
    for (const segment of line.split(/&&|\|\||;|\|/)) {
      const words = segment.trim().replace(/^([A-Z_]+=\S*\s+)+/, '').split(/\s+/).filter(Boolean);
      let args: string[] | null = null;
      let binary = false;
      if (words[0] === 'npm' && (words[1] === 'start' || /^start:(bun|deno)$/.test(words[2] ?? '') && words[1] === 'run')) {
        const dashes = words.indexOf('--');
        args = dashes < 0 ? [] : words.slice(dashes + 1);
      } else if (/(^|\/)destination-map$/.test(words[0] ?? '')) {
        args = words.slice(1);
        binary = true;
      }
      if (!args) continue;
      const end = args.findIndex((a) => /^(\d?>|<|&$)/.test(a));
      if (end >= 0) args = args.slice(0, end);
      const command = (SUBCOMMANDS as readonly string[]).includes(args[0]) ? args[0] : 'serve';
      const flags = args.filter((a) => /^--[a-z]/.test(a)).map((a) => a.replace(/=.*$/, ''));
      out.push({ where, line: segment.trim(), binary, command, flags });
    }
  }
  return out;
}

/** The --help text of a command, as `npm start --` or as the binary. */
function helpOf(command: string, binary: boolean): string {
  const name = binary ? 'destination-map' : 'npm start --';
  switch (command) {
    case 'check': return checkUsage(name);
    case 'publish': return publishUsage(name);
    case 'reload': return reloadUsage(name);
    case 'id': return idUsage(name);
    default: return usage(name, { healthcheck: binary });
  }
}

/** True when `help` lists `flag` as an option (not merely as part of a longer flag). */
const lists = (help: string, flag: string) => new RegExp(`(^|[\\s\\[(])${flag}(?![a-z-])`, 'm').test(help);

describe('--help lists every flag the docs use', () => {
  test('the docs\' command lines are attributed to their subcommand, npm\'s own flags and redirections left out', () => {
    const sample = [
      '```sh', 'npm start --silent -- check a.json --json > report.json   # the report', 'PORT=8788 npm start -- --bundle b.json --watch &',
      'npm ci && npm start', './destination-map --healthcheck', 'cp dist/destination-map /srv/', 'npm run start:bun -- publish --list', '```',
      'Run `npm start -- reload --data-dir /srv/data` or `destination-map id --namespace x k`; `--port` alone is no command.',
    ].join('\n');
    assert.deepEqual(findDocCommands(sample, 'sample').map(({ binary, command, flags }) => ({ binary, command, flags })), [
      { binary: false, command: 'check', flags: ['--json'] },
      { binary: false, command: 'serve', flags: ['--bundle', '--watch'] },
      { binary: false, command: 'serve', flags: [] },
      { binary: true, command: 'serve', flags: ['--healthcheck'] },
      { binary: false, command: 'publish', flags: ['--list'] },
      { binary: false, command: 'reload', flags: ['--data-dir'] },
      { binary: true, command: 'id', flags: ['--namespace'] },
    ]);
    assert.ok(lists(usage('destination-map', { healthcheck: true }), '--healthcheck'));
    assert.ok(!lists(usage(), '--healthcheck'), 'npm start does not answer --healthcheck');
    assert.ok(!lists('  --data-dir <path>', '--data'), 'a longer flag is not the shorter one');
  });

  test('every --flag of a command in README.md and docs/*.md is in that command\'s --help', async () => {
    const files = ['README.md', ...(await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const commands = (await Promise.all(files.map(async (f) => findDocCommands(await readFile(join(ROOT, f), 'utf8'), f)))).flat();
    const missing = commands.flatMap((c) => c.flags.filter((flag) => !lists(helpOf(c.command, c.binary), flag))
      .map((flag) => `${c.where}: ${flag} of \`${c.line}\` is not in ${c.binary ? 'destination-map' : 'npm start --'} ${c.command === 'serve' ? '' : `${c.command} `}--help`));
    assert.deepEqual(missing, []);
    // The walk finds the commands the docs are known to show, so an empty walk cannot pass.
    const seen = new Set(commands.flatMap((c) => c.flags.map((flag) => `${c.binary ? 'binary ' : ''}${c.command} ${flag}`)));
    for (const expected of ['check --json', 'publish --rollback', 'publish --list', 'publish --sessions', 'serve --watch', 'serve --bundle',
      'binary serve --healthcheck', 'binary serve --bundle', 'reload --data-dir', 'id --namespace']) {
      assert.ok(seen.has(expected), `the docs show ${expected}: ${[...seen].join(', ')}`);
    }
  });

  test('the binary\'s --help lists --healthcheck, npm start\'s does not', async () => {
    const binary = await start(['--help'], {}, { command: 'destination-map', healthcheck: true });
    assert.ok('exitCode' in binary && binary.exitCode === 0);
    assert.match(binary.message, /^ {2}--healthcheck +start no server: ask GET \/healthz/m);
    const npm = await start(['--help'], {});
    assert.ok('exitCode' in npm);
    assert.doesNotMatch(npm.message, /--healthcheck/);
    assert.match(npm.message, /npm start -- reload \[--data-dir <path>\]/);
    assert.match(npm.message, /npm start -- id \[--namespace <uuid>\] <key>\.\.\./);
  });
});

describe('options that do nothing as given, or look mistaken, are said at start', () => {
  const MAIN = '8a434eb5-da02-5a4d-9418-14bc57c86c50';

  test('--tiles beside --basemap, --kiosk-here with no kiosk; none for options that each do something', () => {
    const warnings = (args: string[]) => {
      const config = parseConfig(args, {});
      assert.ok(config !== 'help');
      return optionWarnings(config);
    };
    assert.deepEqual(warnings(['--tiles', '/tiles/{z}/{x}/{y}.png', '--basemap', 'lisbon.pmtiles']),
      ['tiles /tiles/{z}/{x}/{y}.png is not used: the basemap (--basemap) is drawn under the pages\' maps instead']);
    assert.deepEqual(warnings(['--kiosk-here', '38.7075,-9.1364']), ['kiosk-here is drawn by the kiosk only, and no kiosk is set (--kiosk <map id>)']);
    assert.deepEqual(warnings(['--kiosk', MAIN, '--kiosk-here', '38.7075,-9.1364', '--tiles', '/tiles/{z}/{x}/{y}.png']), []);
    assert.deepEqual(warnings([]), []);
  });

  test('a kiosk map the content has not, and a "you are here" far from the kiosk map (swapped, or just far)', async () => {
    const { store, close } = await openTestApp(await readDemoBundle());
    try {
      const model = store.model;
      assert.deepEqual(kioskWarnings(MAIN, { lat: 38.7075, lng: -9.1364 }, model), []);
      assert.deepEqual(kioskWarnings(MAIN, undefined, model), []);
      assert.deepEqual(kioskWarnings(undefined, { lat: 38.7075, lng: -9.1364 }, model), []);
      assert.deepEqual(kioskWarnings('00000000-0000-4000-8000-000000000000', undefined, model),
        ['kiosk 00000000-0000-4000-8000-000000000000 is not an enabled map of this content: / shows the home page instead']);
      const [swapped] = kioskWarnings(MAIN, { lat: -9.1364, lng: 38.7075 }, model);
      assert.match(swapped, /^kiosk-here -9\.1364,38\.7075 is [\d,]+ km from the kiosk map's area \(its map_data\.bounds\): its latitude and longitude look swapped \(it is lat,lng\)$/);
      const [far] = kioskWarnings(MAIN, { lat: 41.1579, lng: -8.6291 }, model);
      assert.match(far, /^kiosk-here 41\.1579,-8\.6291 is 2\d\d km from the kiosk map's area \(its map_data\.bounds\)$/);
    } finally {
      await close();
    }
  });

  test('"you are here" is measured from the map\'s bounds when it has them, as check measures POIs: a wide map\'s far corner is in it', async () => {
    const { store, close } = await openTestApp(tilesBundle());
    try {
      // About 320 km from the map's centre (-17, 179), inside its bounds across the antimeridian (178..-178, -19..-15).
      assert.deepEqual(kioskWarnings(TILES.acrossDateLine, { lat: -15.5, lng: -178.2 }, store.model), []);
      const [outside] = kioskWarnings(TILES.acrossDateLine, { lat: -12, lng: -178.2 }, store.model);
      assert.match(outside, /^kiosk-here -12,-178\.2 is 3\d\d km from the kiosk map's area \(its map_data\.bounds\)$/);
    } finally {
      await close();
    }
  });

  test('the server logs them as warnings, and serves', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kiosk-here-'));
    const server = await startServer('node', ['--kiosk', MAIN, '--kiosk-here', '-9.1364,38.7075', '--data-dir', dataDir]);
    try {
      const warnings = server.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: string; msg: string })
        .filter((line) => line.level === 'warn').map((line) => line.msg);
      assert.equal(warnings.filter((msg) => /^kiosk-here .* look swapped/.test(msg)).length, 1, server.output());
      assert.equal((await fetch(`${server.base}/healthz`)).status, 200);
    } finally {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
