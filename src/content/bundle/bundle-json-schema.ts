/**
 * The JSON Schema of the bundle format, generated from the valibot schemas (committed as
 * data/bundle.schema.json, so bundle authors can validate in their own tools).
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import { Bundle, BUNDLE_FORMAT } from './bundle-schema.ts';

/** The bundle JSON Schema (draft 2020-12). Cross-record rules are listed in its description. */
export function bundleJsonSchema(): Record<string, unknown> {
  const schema = toJsonSchema(Bundle, { errorMode: 'ignore', target: 'draft-2020-12' }) as Record<string, unknown>;
  return {
    ...schema,
    title: `Destination map content bundle (${BUNDLE_FORMAT})`,
    description: 'Structure only. The loader also checks: unique ids per kind (markers, paths, polygons and categories ' +
      'share one id space); every reference resolves (publisher, map, version, category, parent, icon, POI, list, event) and stays ' +
      'within the same map; the category hierarchy has no cycle; the current version is published; polygon rings are ' +
      'closed; ends_at is not before starts_at; an association does not link a POI to itself.',
  };
}
