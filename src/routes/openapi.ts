/**
 * GET /openapi.json: the OpenAPI 3.1 document, generated from the route declarations.
 */
import * as v from 'valibot';
import { buildOpenApi } from './openapi-document.ts';
import { defineRoute, type RouteSpec } from '../http/route.ts';

/** The route serving the OpenAPI document of `routes`. */
export function openApiRoute(routes: readonly RouteSpec[]): RouteSpec {
  const cache = new Map<string, unknown>();
  const self = defineRoute({
    path: '/openapi.json',
    texts: false,
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 document',
    tag: 'Meta',
    pathParams: {},
    query: {},
    response: v.looseObject({ openapi: v.literal('3.1.0'), info: v.looseObject({ title: v.string(), version: v.string() }), paths: v.record(v.string(), v.unknown()) }),
    errors: [],
    handle({ basePath }) {
      let doc = cache.get(basePath);
      if (!doc) cache.set(basePath, (doc = buildOpenApi([...routes, self], basePath)));
      return doc;
    },
  }) as unknown as RouteSpec;
  return self;
}
