/**
 * The docs stand alone: every relative link in the README, the changelog and docs/ names a file of this
 * repository that exists (and a heading of it that exists, for links with #anchors), and no text points outside
 * the repository (a clone has no ../shared).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILES = ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1])));
}

test('every relative link in the README, the changelog and docs/ resolves to a file and heading of the repository', () => {
  const broken: string[] = [];
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const absolute = path ? resolve(ROOT, dirname(file), path) : join(ROOT, file);
      if (relative(ROOT, absolute).startsWith('..')) broken.push(`${file}: ${target} points outside the repository`);
      else if (!existsSync(absolute)) broken.push(`${file}: ${target} does not exist`);
      else if (anchor && absolute.endsWith('.md') && !anchors(absolute).has(anchor)) broken.push(`${file}: ${target} names no heading`);
    }
  }
  assert.deepEqual(broken, []);
});

test('no doc refers to files outside the repository', () => {
  for (const file of FILES) {
    assert.doesNotMatch(readFileSync(join(ROOT, file), 'utf8'), /\.\.\/shared\b|\/work\//, file);
  }
});
