import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppDeps } from './deps.js';
import { errorHandler, invalidRequest, notFoundHandler, useErrorShape } from './errors.js';
import { authRouter } from './auth.router.js';
import { keysRouter } from './keys.router.js';
import { paymentsRouter } from './payments.router.js';
import { checkoutRouter } from './checkout.router.js';
import { healthRouter } from './health.router.js';
import { openapiRouter } from './openapi.router.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's X-Request-Id when it is sane, else a fresh one; echoed on the response. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
  res.setHeader('X-Request-Id', id);
  return id;
}

/** Builds the express app: pages and the JSON API, each failure answered as JSON. */
export function createApp(deps: AppDeps): Express {
  const app = express();
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
  app.use((req, res, next) => {
    // pino-http builds a child logger per request (serialising and redacting req) even when
    // nothing can be logged: at level silent only the request id is kept. Checked per request,
    // so raising the level at run time brings the request log back.
    if (deps.logger.isLevelEnabled('fatal')) return requestLogger(req, res, next);
    req.id = requestId(req, res);
    req.log = deps.logger;
    next();
  });
  const https = deps.config.PUBLIC_URL.startsWith('https:');
  app.use(
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

  app.use(healthRouter(deps));

  const api = express.Router();
  // Error body shape per route family (interface 7), chosen before the body is parsed.
  api.use('/checkout', useErrorShape('checkout'));
  api.use(['/agent', '/chat'], useErrorShape('agent'));
  api.use((req, _res, next) => {
    const hasBody = req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0';
    if ((hasBody || req.headers['transfer-encoding']) && !req.is('application/json') && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method)) {
      throw invalidRequest('Content-Type must be application/json.');
    }
    next();
  });
  api.use(express.json({ limit: '100kb', strict: true }));
  api.use(authRouter(deps));
  api.use(keysRouter(deps));
  api.use(paymentsRouter(deps));
  api.use(checkoutRouter(deps));
  api.use(openapiRouter(deps));
  for (const r of deps.apiRouters) api.use(r);
  api.use(notFoundHandler);
  app.use('/api', api);

  for (const r of deps.pageRouters) app.use(r);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
