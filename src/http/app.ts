import express, { type Express, type RequestHandler, type Router } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { errorHandler, invalidRequest, notFoundHandler, useErrorShape } from './errors.js';
import { LONE_SURROGATE_MESSAGE, wellFormedText } from './json-body.js';
import type { Metrics } from '../metrics/metrics-port.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's X-Request-Id when it is sane, else a fresh one; echoed on the response. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
  res.setHeader('X-Request-Id', id);
  return id;
}

/**
 * A route answered in front of express (the hottest: the create, the checkout read and settle), or
 * false to leave the request to express untouched. It decides from the method and URL alone,
 * then runs `front.prelude` (what the app's first middlewares do: metrics, request id and log,
 * security headers) and answers; any case it does not handle itself (a 404, an odd body) goes
 * on to express with `front.express`, or to its error handler with `front.fail`, so every
 * answer but the common one is express's own.
 */
export type FrontRoute = (req: IncomingMessage, res: ServerResponse, front: Front) => boolean;

export interface Front {
  /** The app's first middlewares, once per request; then `next`. */
  prelude(req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** Express takes the request as it is (after the prelude, which it does not repeat). */
  express(req: IncomingMessage, res: ServerResponse): void;
  /** Express's error handler answers `err` (the API's default error shape); `route` labels the metrics. */
  fail(req: IncomingMessage, res: ServerResponse, err: unknown, route: string): void;
}

const PRELUDE_DONE = Symbol('prelude done');
const FAILED = Symbol('failed in front');
/** The metrics label of a request answered in front of express (no `req.route` there). */
export const ROUTE_LABEL = Symbol('route label');
type Marked = IncomingMessage & { [PRELUDE_DONE]?: boolean; [FAILED]?: unknown; [ROUTE_LABEL]?: string };

/** Every router of the HTTP doors, from the one list (src/doors.ts). */
export interface HttpRoutes {
  /** Answered in front of express (see FrontRoute), in order. */
  front?: FrontRoute[];
  /**
   * The hottest API routes (the create), mounted first: each names its full path (`/api/...`)
   * and parses its own body with `apiJsonBody()`, so a request skips the other routers' layers.
   */
  hot?: Router[];
  /** Outside /api and before it (health probes). */
  root: Router[];
  /** Mounted under /api, in order, after the JSON body parser. */
  api: Router[];
  /** Pages outside /api (/app, /pay/:id). */
  pages: Router[];
}

/** Builds the express app: pages and the JSON API, each failure answered as JSON. */
export function createApp(
  deps: { config: Pick<Config, 'PUBLIC_URL'>; logger: Logger; metrics?: Pick<Metrics, 'enabled' | 'httpRequest'> },
  routes: HttpRoutes,
): Express & { serve: (req: IncomingMessage, res: ServerResponse) => void } {
  const app = express();
  const { metrics } = deps;
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'simple');
  // JSON answers are per-request (no-store pages, fresh API reads): a weak ETag hashed over every
  // body bought nothing and cost a few percent of each create (docs/performance.md). Static
  // assets keep theirs (express.static sets its own).
  app.set('etag', false);

  const requestLogger = pinoHttp({
    logger: deps.logger,
    genReqId: requestId,
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    // Bodies are never logged: they can hold secrets and personal data.
    serializers: {
      req: (req) => ({ id: req.id, method: req.method, url: req.url?.split('?')[0] }),
      res: (res) => ({ statusCode: res.statusCode }),
    },
  });
  const https = deps.config.PUBLIC_URL.startsWith('https:');
  // helmet's headers depend on nothing in the request (static directives): recorded once and set
  // as they are on every answer, which spares each request helmet's eleven middleware calls.
  const securityHeaders = recordHeaders(
    helmet({
      // HSTS and upgrade-insecure-requests only make sense when we are served over https.
      strictTransportSecurity: https,
      contentSecurityPolicy: {
        directives: {
          'upgrade-insecure-requests': https ? [] : null,
          'default-src': ["'self'"],
          'script-src': ["'self'"],
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:'],
          'connect-src': ["'self'"],
          'form-action': ["'self'", 'http:', 'https:'],
          'frame-ancestors': ["'none'"],
        },
      },
    }),
  );

  // The app's first middlewares as one function, so a front route runs the very same (FrontRoute).
  const prelude = (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    (req as Marked)[PRELUDE_DONE] = true;
    if (metrics?.enabled) {
      const started = performance.now();
      res.once('finish', () => {
        // The matched route's pattern (`/api/v1/payments/:id`), never the raw URL: one series per
        // route, however many ids are requested. Pages and files no route names share one label.
        const r = req as Marked & { route?: { path: unknown }; baseUrl?: string };
        const route = r[ROUTE_LABEL] ?? (r.route ? `${r.baseUrl ?? ''}${String(r.route.path)}` : '(unmatched)');
        metrics.httpRequest(req.method ?? '', route, res.statusCode, (performance.now() - started) / 1000);
      });
    }
    const secured = () => {
      for (const [name, value] of securityHeaders) res.setHeader(name, value);
      next();
    };
    // pino-http builds a child logger per request (serialising and redacting req) even when
    // nothing can be logged: at level silent only the request id is kept. Checked per request,
    // so raising the level at run time brings the request log back.
    if (deps.logger.isLevelEnabled('fatal')) return requestLogger(req, res, secured);
    const r = req as IncomingMessage & { id?: unknown; log?: Logger };
    r.id = requestId(req, res);
    r.log = deps.logger;
    secured();
  };
  app.use((req, res, next) => {
    const r = req as Marked;
    if (!r[PRELUDE_DONE]) return prelude(req, res, next);
    // Handed over by a front route: its error (if any) goes straight to the error handler.
    next(r[FAILED]);
  });

  // Ahead of the root routers and the API chain: the create walked about fifteen layers
  // (checkout, health, metrics, jwks, error shapes, the payments router's own) before its
  // handler; each costs a path match per request (docs/performance.md, issue 23 fourth round).
  for (const r of routes.hot ?? []) app.use(r);
  for (const r of routes.root) app.use(r);

  const api = express.Router();
  // Error body shape per route family (interface 7), chosen before the body is parsed.
  api.use('/checkout', useErrorShape('checkout'));
  api.use(['/agent', '/chat'], useErrorShape('agent'));
  api.use(apiJsonBody());
  for (const r of routes.api) api.use(r);
  api.use(notFoundHandler);
  app.use('/api', api);

  for (const r of routes.pages) app.use(r);
  app.use(notFoundHandler);
  app.use(errorHandler);

  const front: Front = {
    prelude,
    express: (req, res) => app(req, res),
    fail: (req, res, err, route) => {
      const r = req as Marked;
      r[FAILED] = err;
      r[ROUTE_LABEL] = route;
      app(req, res);
    },
  };
  const fronts = routes.front ?? [];
  // The server's request listener: the front routes first, then express.
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    for (const f of fronts) if (f(req, res, front)) return;
    app(req, res);
  };
  return Object.assign(app, { serve });
}

const parseJson = express.json({ limit: '100kb', strict: true });
/** express's JSON parser, then no lone surrogate in any string (json-body.ts, `wellFormedText`). */
const checkedJson: RequestHandler = (req, res, next) =>
  parseJson(req, res, (err?: unknown) => next(err ?? (wellFormedText(req.body) ? undefined : invalidRequest(LONE_SURROGATE_MESSAGE))));

/**
 * The API's body handling, in this order: a body on a state change must be JSON (400 otherwise),
 * then it is parsed (at most 100 kB). The API router uses it for every route; a hot route
 * (`HttpRoutes.hot`) puts it in front of its own handlers.
 */
export function apiJsonBody(): RequestHandler[] {
  return [
    (req, _res, next) => {
      const hasBody = req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0';
      if ((hasBody || req.headers['transfer-encoding']) && !req.is('application/json') && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method)) {
        throw invalidRequest('Content-Type must be application/json.');
      }
      next();
    },
    checkedJson,
  ];
}

/** The headers a middleware that reads nothing of the request sets (helmet with static directives). */
function recordHeaders(middleware: (req: never, res: never, next: (err?: unknown) => void) => void): Array<[string, string]> {
  const headers = new Map<string, string>();
  const res = {
    setHeader: (name: string, value: unknown) => void headers.set(name, String(value)),
    removeHeader: (name: string) => void headers.delete(name),
    getHeader: (name: string) => headers.get(name),
  };
  let failed: unknown;
  middleware({ headers: {} } as never, res as never, (err) => void (failed = err));
  if (failed) throw failed instanceof Error ? failed : new Error(String(failed));
  return [...headers];
}
