import { Router } from 'express';
import type { Core } from '../core/core.js';
import { buildOpenApiDocument, registerRoute } from '../http/openapi.js';
import { devRoutesEnabled } from './dev.router.js';

registerRoute({
  method: 'get',
  path: '/api/openapi.json',
  operationId: 'openapi',
  summary: 'This document (OpenAPI 3.1, generated from the zod schemas)',
  tags: ['Service'],
  auth: 'none',
  responses: { 200: { description: 'The OpenAPI document.' } },
});

/**
 * GET /api/openapi.json: built once, on first request, for this deployment's URL. Every router
 * registers its routes' descriptions when its module loads (src/doors.ts imports them all), so
 * by the first request the registry holds every route the service serves.
 */
export function openapiRouter(deps: Core): Router {
  const r = Router();
  let doc: unknown;
  r.get('/openapi.json', (_req, res) => {
    doc ??= buildOpenApiDocument({ publicUrl: deps.config.PUBLIC_URL, includeDevRoutes: devRoutesEnabled(deps) });
    res.json(doc);
  });
  return r;
}
