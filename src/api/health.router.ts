import { Router } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';

export const HealthResponse = z.object({
  ok: z.boolean(),
  ready: z.boolean().optional().describe('False while the service is still starting (it answers from the first connection).'),
});

export function healthRouter(deps: Core): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.json({ ok: true, ready: true });
  });
  r.get('/readyz', async (_req, res) => {
    const ready = await deps.ready().catch(() => false);
    res.status(ready ? 200 : 503).json({ ok: ready });
  });
  return r;
}
