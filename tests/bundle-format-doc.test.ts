/**
 * docs/bundle-format.md keeps its promises: it opens with a complete example bundle of about 60 lines that the
 * `check` subcommand finds ok with no warnings, and it documents every field of the map's sub-objects, read from
 * the schemas themselves so that a field added to them and not to the doc fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type * as v from 'valibot';
import { Branding, ContentBlock, Map as MapSchema, Sponsor } from '../src/content/bundle/bundle-schema.ts';
import { checkBundle } from '../src/content/bundle/check.ts';

const doc = readFileSync(new URL('../docs/bundle-format.md', import.meta.url), 'utf8');

test('the doc opens with a complete example of about 60 lines that check finds ok, with no warnings', async () => {
  const first = /```json\n([\s\S]*?)```/.exec(doc);
  assert.ok(first && first.index < doc.indexOf('## Top level'), 'the first JSON block comes before the reference');
  const lines = first[1].trimEnd().split('\n').length;
  assert.ok(lines >= 50 && lines <= 75, `${lines} lines`);
  const report = await checkBundle(first[1]);
  assert.deepEqual(report.problems, []);
  assert.deepEqual(report.warnings, []);
  assert.ok(report.ok);
  const bundle = JSON.parse(first[1]);
  for (const collection of ['publishers', 'maps', 'icons', 'categories', 'markers', 'paths', 'polygons', 'events', 'lists', 'associations']) {
    assert.ok(bundle[collection].length > 0, `the example has ${collection}`);
  }
});

test('every field of branding, info, map_data, contact, sponsors and content_blocks is documented', async () => {
  const keys = (schema: { entries: v.ObjectEntries }) => Object.keys(schema.entries);
  const map = MapSchema.entries;
  const objects: Record<string, string[]> = {
    branding: keys(Branding), info: keys(map.info), map_data: keys(map.map_data), contact: keys(map.contact),
    sponsors: keys(Sponsor), content_blocks: keys(ContentBlock),
  };
  for (const [name, fields] of Object.entries(objects)) {
    assert.ok(doc.includes(`**\`${name}\`**`), `${name} has a paragraph`);
    for (const field of fields) assert.ok(doc.includes(`\`${field}\``), `${name}.${field} is documented`);
  }
});

test('the lowercase event-type rule and how to make ids are stated', async () => {
  assert.match(doc, /## Event types[\s\S]*lowercase slug/);
  assert.match(doc, /event_type must be a lowercase slug such as "concert"/);
  assert.match(doc, /## Ids[\s\S]*crypto\.randomUUID\(\)/);
});
