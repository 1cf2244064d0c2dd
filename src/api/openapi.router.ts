import { Router } from 'express';
import type { Core } from '../core/core.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import { devRoutesEnabled } from './dev.router.js';
import './openapi.routes.js';

/** GET /api/openapi.json: built once, on first request, for this deployment's URL. */
export function openapiRouter(deps: Core): Router {
  const r = Router();
  let doc: unknown;
  r.get('/openapi.json', (_req, res) => {
    doc ??= buildOpenApiDocument({ publicUrl: deps.config.PUBLIC_URL, includeDevRoutes: devRoutesEnabled(deps) });
    res.json(doc);
  });
  return r;
}
