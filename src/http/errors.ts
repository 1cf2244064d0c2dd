import type { ErrorRequestHandler, Request, Response, NextFunction } from 'express';
import { z } from 'zod';
import { isStoreUnavailable, STORE_RETRY_AFTER_S } from '../lib/store-unavailable.js';
import { LONE_SURROGATE_MESSAGE } from './json-body.js';

export const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'rate_limit_error',
  'api_error',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/** Developer endpoints' error body (interface 7, DESIGN.md 4). */
export const DeveloperErrorBody = z.object({
  error: z.object({
    type: z.enum(ERROR_TYPES),
    message: z.string(),
    param: z.string().optional().describe('The request field (or header) at fault, when there is one.'),
  }),
});
/** The checkout read's error body (interface 4.2, 7). */
export const CheckoutErrorBody = z.object({ ok: z.literal(false), error: z.string() });
/** The agent and chat endpoints' error body (interface 4.6, 7). */
export const AgentErrorBody = z.object({ ok: z.literal(false), reply: z.string() });

/** An error that maps straight onto the developer error body `{error:{type,message,param?}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export const invalidRequest = (message: string, param?: string, status = 400) =>
  new ApiError(status, 'invalid_request_error', message, param);
export const notFound = (message: string) => new ApiError(404, 'invalid_request_error', message);
export const unauthenticated = (message: string) => new ApiError(401, 'authentication_error', message);

/**
 * Which error body a route family speaks: developer endpoints use `{error:{...}}`, the
 * checkout read `{ok:false,error}`, the agent and chat `{ok:false,reply}` (interface 7).
 */
export type ErrorShape = 'developer' | 'checkout' | 'agent';

export function useErrorShape(shape: ErrorShape) {
  return (_req: Request, res: Response, next: NextFunction) => {
    res.locals.errorShape = shape;
    next();
  };
}

export function sendError(res: Response, err: ApiError): void {
  const shape = (res.locals.errorShape as ErrorShape | undefined) ?? 'developer';
  // Auth failures always use the developer body, as DESIGN.md 6 says for the agent too.
  if (shape === 'checkout' && err.status !== 401) {
    res.status(err.status).json({ ok: false, error: err.message });
  } else if (shape === 'agent' && err.status !== 401) {
    res.status(err.status).json({ ok: false, reply: err.message });
  } else {
    const error: Record<string, string> = { type: err.type, message: err.message };
    if (err.param) error.param = err.param;
    res.status(err.status).json({ error });
  }
}

type Issue = z.core.$ZodIssue;

/** The value at `path` inside `input` (undefined when any step is missing). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/**
 * The issue a person should read: zod wraps record-key and union failures in a generic
 * "Invalid input"; the inner issue carries the schema's own message (e.g. a length limit).
 */
function innermost(issue: Issue): Issue {
  if ((issue.code === 'invalid_key' || issue.code === 'invalid_element') && issue.issues[0]) {
    return { ...innermost(issue.issues[0]), path: issue.path };
  }
  if (issue.code === 'invalid_union') {
    // Prefer a branch that failed on a rule (too long, out of range) over one of the wrong type.
    const branch = issue.errors.find((b) => b[0] && b[0].code !== 'invalid_type')?.[0];
    if (branch) return { ...innermost(branch), path: [...issue.path, ...branch.path] };
  }
  return issue;
}

/**
 * Turns a zod error into an invalid_request_error naming the first bad field. `source.input`
 * is what was parsed, so a missing field can be told apart from one of the wrong type (zod 4
 * issues do not carry the input).
 */
export function fromZodError(error: z.ZodError, source?: { input: unknown }): ApiError {
  const first = error.issues[0]!;
  if (first.code === 'unrecognized_keys') {
    const key = first.keys[0]!;
    const param = [...first.path.map(String), key].join('.');
    return invalidRequest(`Received unknown parameter: ${param}.`, param);
  }
  const issue = innermost(first);
  const param = issue.path.map(String).join('.') || undefined;
  if (issue.code === 'invalid_type' && issue.path.length === 0 && source) {
    return invalidRequest(
      source.input === undefined ? 'Missing request body: send a JSON object.' : 'Request body must be a JSON object.',
    );
  }
  const missing = issue.code === 'invalid_type' && source !== undefined && valueAt(source.input, issue.path) === undefined;
  const message = missing
    ? `Missing required param: ${param}.`
    : param && !issue.message.includes(param)
      ? `Invalid ${param}: ${issue.message}`
      : issue.message;
  return invalidRequest(message, param);
}

/** Parses with a zod schema or throws the documented 400. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw fromZodError(r.error, { input });
  return r.data;
}

export const STORE_UNAVAILABLE_MESSAGE = 'The service could not reach its database just now; retry shortly (with the same Idempotency-Key for a create).';

/** JSON the strict body parser refused only for not being an object or array (`null`, `5`, `"x"`; h16tour: called malformed). */
function wellFormed(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/** Last middleware: every error becomes JSON in the route family's shape; never a stack. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  let apiErr: ApiError;
  if (err instanceof ApiError) apiErr = err;
  else if (err instanceof z.ZodError) apiErr = fromZodError(err);
  else if (err?.type === 'entity.parse.failed') apiErr = invalidRequest(wellFormed(err.body) ? 'The request body must be a JSON object.' : 'Malformed JSON in request body.');
  else if (err?.type === 'entity.too.large') apiErr = new ApiError(413, 'invalid_request_error', 'Request body is larger than 100 kB.');
  else if (err?.type === 'charset.unsupported' || err?.type === 'encoding.unsupported')
    apiErr = invalidRequest('Unsupported body encoding; send UTF-8 JSON.');
  // The router fails to decode a path parameter such as /checkout/%E0%A4%A.
  else if (err instanceof URIError || (err?.status === 400 && String(err?.message).startsWith('Failed to decode param')))
    apiErr = invalidRequest('Malformed percent-encoding in the request URL.');
  else if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500)
    apiErr = invalidRequest(err.expose && err.message ? err.message : 'Bad request.', undefined, err.status);
  // PostgreSQL refuses NUL in text (22021, 22P05): bad input that lowdb would have stored.
  else if (err?.code === '22021' || err?.code === '22P05') apiErr = invalidRequest('Text in the request may not contain the NUL character (\\u0000).');
  // A lone surrogate that reached the database another way than a JSON body (the door refuses those).
  else if (err?.code === '22P02' && /surrogate/i.test(String(err?.detail))) apiErr = invalidRequest(LONE_SURROGATE_MESSAGE);
  else if (isStoreUnavailable(err)) {
    // The database refused or timed out (docs/store.md): a retry soon can succeed, so 503, not 500.
    req.log?.warn({ err: { message: (err as Error).message, code: (err as { code?: unknown }).code } }, 'store unavailable');
    res.setHeader('Retry-After', String(STORE_RETRY_AFTER_S));
    apiErr = new ApiError(503, 'api_error', STORE_UNAVAILABLE_MESSAGE);
  } else {
    req.log?.error({ err }, 'unhandled error');
    apiErr = new ApiError(500, 'api_error', 'An internal error occurred. Retry later or contact support with the request id.');
  }
  sendError(res, apiErr);
};

/** 404 for anything no route claimed. */
export function notFoundHandler(req: Request, res: Response): void {
  // The full path as requested (req.path drops the /api mount point), without the query.
  sendError(res, notFound(`Unrecognized request URL (${req.method} ${req.originalUrl.split('?')[0]}).`));
}
