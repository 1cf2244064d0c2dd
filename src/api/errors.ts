import type { ErrorRequestHandler, Request, Response, NextFunction } from 'express';
import { z } from 'zod';

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error';

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

/** Turns a zod error into an invalid_request_error naming the first bad field. */
export function fromZodError(error: z.ZodError): ApiError {
  const issue = error.issues[0]!;
  const param = issue.path.map(String).join('.') || undefined;
  const message =
    issue.code === 'invalid_type' && issue.input === undefined
      ? `Missing required param: ${param ?? 'body'}.`
      : param && !issue.message.includes(param)
        ? `Invalid ${param}: ${issue.message}`
        : issue.message;
  return invalidRequest(message, param);
}

/** Parses with a zod schema or throws the documented 400. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw fromZodError(r.error);
  return r.data;
}

/** Last middleware: every error becomes JSON in the route family's shape; never a stack. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  let apiErr: ApiError;
  if (err instanceof ApiError) apiErr = err;
  else if (err instanceof z.ZodError) apiErr = fromZodError(err);
  else if (err?.type === 'entity.parse.failed') apiErr = invalidRequest('Malformed JSON in request body.');
  else if (err?.type === 'entity.too.large') apiErr = new ApiError(413, 'invalid_request_error', 'Request body is larger than 100 kB.');
  else if (err?.type === 'charset.unsupported' || err?.type === 'encoding.unsupported')
    apiErr = invalidRequest('Unsupported body encoding; send UTF-8 JSON.');
  else if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500)
    apiErr = invalidRequest(err.expose && err.message ? err.message : 'Bad request.', undefined, err.status);
  else {
    req.log?.error({ err }, 'unhandled error');
    apiErr = new ApiError(500, 'api_error', 'An internal error occurred. Retry later or contact support with the request id.');
  }
  sendError(res, apiErr);
};

/** 404 for anything no route claimed. */
export function notFoundHandler(req: Request, res: Response): void {
  sendError(res, notFound(`Unrecognized request URL (${req.method} ${req.path}).`));
}
