/**
 * The OpenAPI 3.1 document, generated from the route declarations and their valibot schemas, so the
 * document cannot drift from what the routes validate and return.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { CategoryNode, StyleValue } from './schemas.ts';
import { queryEntries, type RouteSpec } from '../http/route.ts';
import { JSON_TYPE } from '../http/respond.ts';

/** The API's own version, reported in the document. */
export const API_VERSION = '1.0.0';

type JsonSchema = Record<string, unknown>;

/** Converts a valibot schema to JSON Schema; transforms (parsing steps) are ignored, only the input shape is described. */
function toSchema(schema: v.GenericSchema): JsonSchema {
  const out = convert(schema);
  // Shared definitions live under components; rewrite the refs and drop the per-schema copies.
  delete out.$schema;
  delete out.$defs;
  return JSON.parse(JSON.stringify(out).replaceAll('"#/$defs/', '"#/components/schemas/'));
}

function convert(schema: v.GenericSchema): JsonSchema {
  return toJsonSchema(schema, { errorMode: 'ignore', target: 'draft-2020-12', definitions: { CategoryNode, StyleValue } }) as JsonSchema;
}

/** A recursive schema (the category node, a style's value), as a shared component. */
function recursiveComponent(name: 'CategoryNode' | 'StyleValue'): JsonSchema {
  const defs = convert(name === 'CategoryNode' ? CategoryNode : StyleValue).$defs as Record<string, JsonSchema>;
  return JSON.parse(JSON.stringify(defs[name]).replaceAll('"#/$defs/', '"#/components/schemas/'));
}

const PROBLEM: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'detail', 'instance'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    errors: {
      type: 'array',
      description: 'Every offending parameter (400 only)',
      items: {
        type: 'object', required: ['name', 'in', 'reason'],
        properties: { name: { type: 'string' }, in: { enum: ['query', 'path', 'header'] }, reason: { type: 'string' } },
      },
    },
  },
};

const NOT_LOADED: JsonSchema = {
  type: ['object', 'null'], description: 'The version made current that could not be loaded here, and why',
  required: ['version', 'content_version', 'error', 'at'],
  properties: { version: { type: 'integer' }, content_version: { type: 'string' }, error: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
};

const LAST_PUBLISH: JsonSchema = {
  type: ['object', 'null'], description: 'The outcome of the last publish, with up to 100 problems',
  required: ['at', 'source', 'checksum', 'outcome', 'version', 'problems', 'error', 'warnings', 'ms', 'problem_count'],
  properties: {
    at: { type: 'string', format: 'date-time' }, source: { type: 'string', description: 'The bundle\'s path, or a label' },
    checksum: { type: ['string', 'null'], description: 'The bundle\'s SHA-256, when it could be read' },
    outcome: { enum: ['published', 'unchanged', 'refused', 'failed', 'followed'] },
    version: { type: ['integer', 'null'], description: 'The version serving afterwards' },
    problems: { type: 'array', items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
    problem_count: { type: 'integer' }, error: { type: ['string', 'null'] }, warnings: { type: 'array', items: { type: 'string' } },
    ms: { type: 'number', description: 'How long it took' },
  },
};

const DATABASE: JsonSchema = {
  type: 'object', description: 'A replica only: whether its PostgreSQL is reachable, and its last error (unreachable, or refusing: privileges)',
  required: ['reachable', 'error', 'last_contact'],
  properties: { reachable: { type: 'boolean' }, error: { type: ['string', 'null'] }, last_contact: { type: ['string', 'null'], format: 'date-time' } },
};

/**
 * The health checks: served at the root whatever the base path (each path says so with its own `servers`),
 * never cached, and answered with plain JSON (not problem+json) also when not ready.
 */
const HEALTH_PATHS: Record<string, JsonSchema> = {
  '/healthz': {
    servers: [{ url: '/' }],
    get: {
      operationId: 'getHealth', summary: 'Liveness: 200 while the process runs, from the moment the port opens', tags: ['Health'],
      parameters: [],
      responses: {
        200: { description: 'The process is alive', content: { 'application/json': { schema: {
          type: 'object', required: ['status'], properties: { status: { const: 'ok' } },
        } } } },
      },
    },
  },
  '/readyz': {
    servers: [{ url: '/' }],
    get: {
      operationId: 'getReadiness', tags: ['Health'],
      summary: 'Readiness: 200 once a content version is served (degraded: behind the version the store makes current, or a database in trouble), 503 while loading or stopping',
      parameters: [],
      responses: {
        200: { description: 'Serving a content version', content: { 'application/json': { schema: {
          type: 'object', required: ['status', 'version', 'content_version'],
          properties: {
            status: { enum: ['ready', 'degraded'] }, version: { type: 'integer' }, content_version: { type: 'string' },
            published_at: { type: ['string', 'null'] },
            behind: { type: 'boolean', description: 'True when the version served is not the one the store (a replica: its database) makes current, or that one could not be loaded' },
            current_version: { type: ['integer', 'null'], description: 'The version the store makes current, as last seen' },
            not_loaded: NOT_LOADED,
            warnings: { type: ['array', 'null'], items: { type: 'string' }, description: 'The first 100 warnings check found in the served version\'s bundle (null: not kept for a version published before)' },
            warning_count: { type: ['integer', 'null'], description: 'How many warnings that bundle had' },
            serving_last_good: { type: 'boolean' },
            last_publish: LAST_PUBLISH,
            response_cache: { type: 'object', description: 'The response cache: hits and misses since start, entries and bytes kept', required: ['hits', 'misses', 'entries', 'bytes'],
              properties: { hits: { type: 'integer' }, misses: { type: 'integer' }, entries: { type: 'integer' }, bytes: { type: 'integer' } } },
            database: DATABASE,
            thread: { type: 'integer', description: 'With --workers: the serving thread that answered' },
          },
        } } } },
        503: { description: 'Not ready: loading (no version served yet) or stopping (shutting down)', content: { 'application/json': { schema: {
          type: 'object', required: ['status'],
          properties: { status: { enum: ['loading', 'unavailable', 'stopping'] }, current_version: { type: ['integer', 'null'] }, not_loaded: NOT_LOADED,
            last_publish: LAST_PUBLISH, database: DATABASE, reason: { type: 'string', description: 'unavailable: why nothing can be served until a good bundle is published' } },
        } } } },
      },
    },
  },
};

/** The headers of every answer in a language. */
const CONTENT_LANGUAGE: JsonSchema = {
  'Content-Language': {
    description: 'The language the texts are in (BCP 47); with langs=all, every language offered. The answer also varies by Accept-Language.',
    schema: { type: 'string' },
  },
};

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid parameters; `errors` names each one',
  401: 'Invalid or expired account-session token',
  403: 'Asked for lists that are not public',
  404: 'Not found, not part of the given map, or not public',
  416: 'Range Not Satisfiable: no byte of the range asked for exists (Content-Range says how many there are)',
  503: 'Account sessions cannot be checked right now (the session database is unreachable); try again',
};

/** A route's media type without its parameters (`text/calendar`). */
function mediaType(r: RouteSpec): string {
  return (r.contentType ?? JSON_TYPE).split(';')[0].trim();
}

/** True for JSON media types (`application/json`, `application/geo+json`, `application/ld+json`). */
function isJson(type: string): boolean {
  return /^application\/([\w.-]+\+)?json$/.test(type);
}

/** True for text media types (iCalendar, HTML, GPX and KML as XML). */
function isText(type: string): boolean {
  return type.startsWith('text/') || /[+/]xml$/.test(type);
}

/** The schema of a route's 200 body: its valibot schema for JSON, else text or binary of its media type. */
function bodySchema(r: RouteSpec): JsonSchema {
  const type = mediaType(r);
  if (isJson(type)) return toSchema(r.response);
  return isText(type) ? { type: 'string', contentMediaType: type } : { type: 'string', format: 'binary', contentMediaType: type };
}

function parameters(entries: v.ObjectEntries, where: 'path' | 'query') {
  return Object.entries(entries).map(([name, schema]) => {
    const json = toSchema(schema as v.GenericSchema);
    // A parameter may declare its documented form (an integer, say) through `v.metadata({ openapi })`.
    const { description, openapi, ...rest } = json as JsonSchema & { openapi?: JsonSchema };
    const documented = openapi ? { ...openapi, ...(rest.default !== undefined ? { default: Number(rest.default) } : {}) } : rest;
    return {
      name, in: where, required: where === 'path' || (schema as { type: string }).type !== 'optional',
      ...(description ? { description } : {}), schema: documented,
    };
  });
}

/** Builds the whole document for `routes` mounted under `basePath`. */
export function buildOpenApi(routes: readonly RouteSpec[], basePath: string): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  for (const r of routes) {
    const query = queryEntries(r);
    const responses: Record<string, unknown> = {
      200: {
        description: 'OK',
        ...(r.texts !== false ? { headers: CONTENT_LANGUAGE } : {}),
        content: { [mediaType(r)]: { schema: bodySchema(r) } },
      },
    };
    if (r.ranges) {
      responses[206] = { description: 'Partial Content: the byte range asked for with Range (RFC 9110 §14)',
        headers: { 'Content-Range': { schema: { type: 'string' } } }, content: { [mediaType(r)]: { schema: { type: 'string', format: 'binary' } } } };
    }
    const hasParams = Object.keys(r.pathParams).length + Object.keys(query).length > 0;
    for (const status of [...(hasParams ? [400] : []), ...(r.ranges ? [416] : []), ...r.errors]) {
      responses[status] = {
        description: ERROR_TEXT[status] ?? 'Error',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    paths[r.path.replace(/:(\w+)/g, '{$1}')] = {
      get: {
        operationId: r.operationId, summary: r.summary, ...(r.description ? { description: r.description } : {}), tags: [r.tag],
        // An empty requirement first: the session is optional, anonymous calls are the norm.
        ...(r.errors.includes(401) ? { security: [{}, { accountSession: [] }] } : {}),
        parameters: [...parameters(r.pathParams, 'path'), ...parameters(query, 'query')],
        responses,
      },
    };
  }
  Object.assign(paths, HEALTH_PATHS);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Destination Map Content Service: Read API',
      version: API_VERSION,
      description: 'Read-only API for published destination maps. Every route also answers HEAD (same headers, no ' +
        'body) and OPTIONS (CORS preflight, 204); any other method gets 405 with an Allow header. Every 200 carries a ' +
        'strong ETag, and If-None-Match answers 304. A request target over 8 KiB gets 414, and every route answers 503 ' +
        'until the content is loaded. Errors are application/problem+json (RFC 9457). Texts are served in one language: ' +
        '`lang`, else Accept-Language, matched against the map\'s languages by CLDR best fit within the language asked for ' +
        '(zh-Hant-TW gets zh-Hant, pt-PT gets pt-BR, pt-BR gets pt), else the map\'s default; Content-Language names it. `langs=all` gives every text as an object keyed by language tag.',
    },
    servers: [{ url: basePath === '' ? '/' : basePath }],
    paths,
    components: {
      schemas: { Problem: PROBLEM, CategoryNode: recursiveComponent('CategoryNode'), StyleValue: recursiveComponent('StyleValue') },
      securitySchemes: { accountSession: { type: 'http', scheme: 'bearer', description: 'Account session token (GET /events/:id only)' } },
    },
  };
}
