/**
 * The committed JSON Schema of the bundle format matches the valibot schemas it is generated from.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { bundleJsonSchema } from '../src/content/bundle/bundle-json-schema.ts';

test('data/bundle.schema.json is what scripts/make-bundle-schema.ts generates from the valibot schemas', async () => {
  const committed = JSON.parse(await readFile(new URL('../data/bundle.schema.json', import.meta.url), 'utf8'));
  assert.deepEqual(committed, JSON.parse(JSON.stringify(bundleJsonSchema())));
});

test('the JSON Schema requires every top-level collection of the format', () => {
  const schema = bundleJsonSchema() as { required: string[]; properties: Record<string, unknown> };
  for (const key of ['format', 'publishers', 'maps', 'icons', 'categories', 'markers', 'paths', 'polygons', 'events', 'lists', 'associations']) {
    assert.ok(schema.required.includes(key), key);
    assert.ok(schema.properties[key], key);
  }
  assert.ok(!schema.required.includes('sessions'), 'sessions are not content: a bundle need not carry them');
});
