/**
 * Errors as values: handlers throw HttpError, and `problemAnswer` is the one place that turns an
 * error into RFC 9457 problem+json.
 */
import { CACHE_CONTROL, PROBLEM_TYPE, utf8, type AppResponse } from './respond.ts';

/** One offending request parameter. */
export interface ParamError {
  name: string;
  in: 'query' | 'path' | 'header';
  reason: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  410: 'Gone', 414: 'URI Too Long', 416: 'Range Not Satisfiable', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

/** An error with an HTTP status, turned into problem+json by `problemAnswer`. */
export class HttpError extends Error {
  readonly status: number;
  readonly errors?: ParamError[];
  readonly headers?: Record<string, string>;
  /** Extension members of the problem (RFC 9457, 3.2): a link to what to do instead, say. */
  readonly members?: Record<string, unknown>;
  constructor(status: number, detail: string, options: { errors?: ParamError[]; headers?: Record<string, string>; members?: Record<string, unknown> } = {}) {
    super(detail);
    this.name = 'HttpError';
    this.status = status;
    this.errors = options.errors;
    this.headers = options.headers;
    this.members = options.members;
  }
}

/** A 400 naming every bad parameter at once. */
export function invalidParams(errors: ParamError[]): HttpError {
  const detail = errors.map((e) => `${e.name} ${e.reason}`).join('; ');
  return new HttpError(400, `Invalid request parameters: ${detail}.`, { errors });
}

/** A 404 for a resource that does not exist (or is not public). */
export function notFound(what: string): HttpError {
  return new HttpError(404, `${what} was not found.`);
}

/** Builds the problem+json answer for an HttpError. Errors are never stored by caches. */
export function problemAnswer(err: HttpError, instance: string): AppResponse {
  const body: Record<string, unknown> = {
    type: 'about:blank',
    title: TITLES[err.status] ?? 'Error',
    status: err.status,
    detail: err.message,
    instance,
  };
  if (err.errors) body.errors = err.errors;
  if (err.members) Object.assign(body, err.members);
  const bytes = utf8(JSON.stringify(body));
  return {
    status: err.status,
    headers: { 'content-type': PROBLEM_TYPE, 'content-length': String(bytes.byteLength), 'cache-control': CACHE_CONTROL.none,
      ...err.headers },
    body: bytes,
  };
}
