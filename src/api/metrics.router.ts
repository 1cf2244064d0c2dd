/**
 * `GET /metrics` (DESIGN.md 11, docs/metrics.md): the Prometheus text format, for operators.
 * Without METRICS_TOKEN the route does not exist (404, as any unknown URL); with it, only
 * `Authorization: Bearer <METRICS_TOKEN>` reads it (401 in the developer error shape otherwise).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import type { Core } from '../core/core.js';
import { registerRoute } from '../http/openapi.js';
import { unauthenticated } from '../http/errors.js';

registerRoute({
  method: 'get',
  path: '/metrics',
  operationId: 'metrics',
  summary: 'Prometheus metrics (operators)',
  description:
    'Prometheus text format (version 0.0.4). Served only when the service has METRICS_TOKEN, and only to `Authorization: Bearer <METRICS_TOKEN>` (not an API key).',
  tags: ['Service'],
  auth: 'none',
  responses: {
    200: { description: 'The metrics, as `text/plain; version=0.0.4`.' },
    401: { description: 'Missing or wrong bearer token.' },
    404: { description: 'Metrics are off (no METRICS_TOKEN).' },
  },
});

const digest = (s: string) => createHash('sha256').update(s).digest();

export function metricsRouter(deps: Core): Router {
  const r = Router();
  const token = deps.config.METRICS_TOKEN;
  if (!token) return r;
  const expected = digest(token);
  r.get('/metrics', async (req, res) => {
    const given = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    // Compared as digests in constant time: the token's length and prefix give nothing away.
    if (!given || !timingSafeEqual(digest(given), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      throw unauthenticated('Metrics need Authorization: Bearer <METRICS_TOKEN>.');
    }
    const { contentType, body } = await deps.metrics.exposition();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(body);
  });
  return r;
}
