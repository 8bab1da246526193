/**
 * Writes data/bundle.schema.json: the JSON Schema of the content bundle format, generated from the
 * valibot schemas the loader validates with. `npm run make-schema` after changing the format.
 */
import { writeFileSync } from 'node:fs';
import { bundleJsonSchema } from '../src/content/bundle/bundle-json-schema.ts';

const path = new URL('../data/bundle.schema.json', import.meta.url);
writeFileSync(path, `${JSON.stringify(bundleJsonSchema(), null, 2)}\n`);
console.log(`wrote ${path.pathname}`);
