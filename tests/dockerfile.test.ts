/**
 * The Dockerfile, without a Docker engine: dockerfilelint passes, and its structure is what
 * docs/deployment.md promises. A build stage runs `npm run build:binary` (the build tests/binary.test.ts
 * runs and checks); the final stage runs that binary as a non-root user, with one port, a health check, a
 * bundle volume and a writable data directory. The image itself is not built here.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One instruction: its keyword (upper case), its flags (`--from=build`) and the rest of its line. */
interface Instruction { keyword: string; flags: string[]; args: string }

/** The instructions of a Dockerfile: comments dropped, continuation lines joined. */
function parseDockerfile(text: string): Instruction[] {
  const lines = text.split('\n').filter((l) => !/^\s*#/.test(l));
  const joined = lines.join('\n').replace(/\\\n/g, ' ');
  return joined.split('\n').map((l) => l.trim()).filter(Boolean).map((line) => {
    const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(line)!;
    const flags: string[] = [];
    let args = rest;
    for (let m = /^(--\S+)\s*/.exec(args); m; m = /^(--\S+)\s*/.exec(args)) {
      flags.push(m[1]);
      args = args.slice(m[0].length);
    }
    return { keyword: keyword.toUpperCase(), flags, args };
  });
}

/** The stages of a parsed Dockerfile, each from its FROM to the next. */
function splitStages(instructions: Instruction[]): { from: string; name?: string; body: Instruction[] }[] {
  const stages: { from: string; name?: string; body: Instruction[] }[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      stages.push({ from: image, ...(as?.toUpperCase() === 'AS' ? { name } : {}), body: [] });
    } else {
      assert.ok(stages.length > 0, `${ins.keyword} before any FROM`);
      stages.at(-1)!.body.push(ins);
    }
  }
  return stages;
}

/** The command of a CMD, ENTRYPOINT or HEALTHCHECK CMD in exec (JSON) form. */
function execForm(args: string): string[] {
  const json = args.replace(/^CMD\s+/i, '');
  const parsed: unknown = JSON.parse(json);
  assert.ok(Array.isArray(parsed) && parsed.every((a) => typeof a === 'string'), `not exec form: ${args}`);
  return parsed as string[];
}

/** `KEY=value` pairs of ENV instructions (the `KEY=value` form only). */
function envOf(body: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const ins of body.filter((i) => i.keyword === 'ENV')) {
    for (const pair of ins.args.split(/\s+/)) {
      const [key, ...value] = pair.split('=');
      assert.ok(value.length > 0, `ENV ${ins.args} is not in KEY=value form`);
      env[key] = value.join('=');
    }
  }
  return env;
}

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const instructions = parseDockerfile(dockerfile);
const stages = splitStages(instructions);
const build = stages[0];
const final = stages.at(-1)!;

describe('the Dockerfile', () => {
  test('passes dockerfilelint', () => {
    const run = spawnSync(join(ROOT, 'node_modules/.bin/dockerfilelint'), ['Dockerfile'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });

  test('builds in one stage on Node 24 with npm ci and npm run build:binary, and runs in another', () => {
    assert.ok(stages.length >= 2, 'at least two FROM stages');
    assert.match(build.from, /^node:24[-.\w]*$/);
    assert.ok(build.name, 'the build stage is named, for COPY --from');
    const runs = build.body.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    assert.ok(runs.some((r) => /\bnpm ci\b/.test(r)), 'npm ci');
    assert.ok(runs.some((r) => /\bnpm run build:binary\b/.test(r)), 'npm run build:binary');
    // The same script the binary test runs through buildBinary().
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts['build:binary'], 'node scripts/build-binary.ts');
    assert.notEqual(final.from, build.from);
  });

  test('copies into the build stage only sources that exist and the build context keeps', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    for (const ins of build.body.filter((i) => i.keyword === 'COPY')) {
      for (const source of ins.args.split(/\s+/).slice(0, -1)) {
        assert.ok(existsSync(join(ROOT, source)), `COPY ${source}: no such file`);
        assert.ok(!ignored.includes(source.replace(/^\.\/|\/$/g, '')), `COPY ${source} is excluded by .dockerignore`);
      }
    }
  });

  test('keeps node_modules, data snapshots, benchmarks, build output and coverage out of the build context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    for (const path of ['node_modules', '.data', '.bench', '.build', 'dist', 'coverage']) assert.ok(ignored.includes(path), path);
  });

  test('runs the built binary from the final stage as a non-root user', () => {
    const copy = final.body.find((i) => i.keyword === 'COPY' && i.flags.includes(`--from=${build.name}`) && /\/dist\/destination-map\s/.test(i.args));
    assert.ok(copy, 'the final stage copies dist/destination-map from the build stage');
    const binary = copy.args.split(/\s+/).at(-1)!;
    const entry = final.body.filter((i) => i.keyword === 'ENTRYPOINT' || i.keyword === 'CMD');
    assert.ok(entry.length > 0, 'an ENTRYPOINT or CMD');
    assert.equal(execForm(entry[0].args)[0], binary);
    const users = final.body.filter((i) => i.keyword === 'USER').map((i) => i.args);
    assert.ok(users.length > 0, 'a USER in the final stage');
    assert.doesNotMatch(users.at(-1)!, /^(root|0)(:|$)/);
    // Nothing of the build stage's toolchain reaches the final image: only COPY --from brings files in.
    assert.deepEqual(final.body.filter((i) => i.keyword === 'RUN' || i.keyword === 'ADD'), []);
  });

  test('exposes exactly one port, 8787, and listens on it on every interface', () => {
    const exposes = instructions.filter((i) => i.keyword === 'EXPOSE');
    assert.equal(exposes.length, 1);
    assert.equal(exposes[0].args, '8787');
    const env = envOf(final.body);
    assert.equal(env.PORT, '8787');
    assert.equal(env.HOST, '0.0.0.0');
  });

  test('checks its health with the binary itself', () => {
    const checks = final.body.filter((i) => i.keyword === 'HEALTHCHECK');
    assert.equal(checks.length, 1);
    const binary = execForm(final.body.find((i) => i.keyword === 'ENTRYPOINT' || i.keyword === 'CMD')!.args)[0];
    assert.deepEqual(execForm(checks[0].args), [binary, '--healthcheck']);
  });

  test('declares a bundle volume and a data directory the non-root user owns', () => {
    const volumes = final.body.filter((i) => i.keyword === 'VOLUME');
    assert.ok(volumes.length > 0, 'a VOLUME');
    assert.ok(volumes.some((v) => /["\s]\/bundle["\s\]]|^\/bundle$/.test(v.args)), 'the bundle volume is /bundle');
    const env = envOf(final.body);
    assert.ok(env.DATA_DIR, 'DATA_DIR is set');
    assert.equal(env.BUNDLE_PATH, undefined, 'no BUNDLE_PATH: without a mounted bundle it serves the demo');
    const user = final.body.filter((i) => i.keyword === 'USER').at(-1)!.args;
    const owned = final.body.filter((i) => i.keyword === 'COPY' && i.flags.includes(`--chown=${user}`));
    assert.ok(owned.length > 0, `a COPY --chown=${user} gives the user its data directory`);
    // That COPY brings a directory the build stage created empty, at DATA_DIR.
    const [source, dest] = owned[0].args.split(/\s+/);
    const created = posix.join(source, posix.relative(dest, env.DATA_DIR));
    const runs = build.body.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    assert.ok(runs.some((r) => r.includes(`mkdir -p ${created}`)), `the build stage creates ${created}`);
  });
});
