import { Router } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { registerRoute, registerSchema } from '../http/openapi.js';

export const HealthResponse = z.object({
  ok: z.boolean(),
  ready: z.boolean().optional().describe('False while the service is still starting (it answers from the first connection).'),
  chain: z
    .object({ chain_id: z.number().int(), rpc_url: z.string() })
    .optional()
    .describe('`/readyz` on the embedded development chain only: its JSON-RPC URL, to point a wallet at it. Never shown for an operator RPC_URL.'),
});

registerSchema('Health', HealthResponse);

// Served from the site root, not under /api (the document gives these paths their own server).
registerRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'healthz',
  summary: 'Liveness',
  tags: ['Service'],
  auth: 'none',
  responses: { 200: { description: 'The process is up.', schema: HealthResponse } },
});

registerRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'readyz',
  summary: 'Readiness: the store and the chain are reachable',
  tags: ['Service'],
  auth: 'none',
  responses: { 200: { description: 'Ready.', schema: HealthResponse }, 503: { description: 'Not ready.', schema: HealthResponse } },
});

export function healthRouter(deps: Core): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.json({ ok: true, ready: true });
  });
  r.get('/readyz', async (_req, res) => {
    const ready = await deps.ready().catch(() => false);
    const rpc = deps.wallets.devRpcUrl;
    res.status(ready ? 200 : 503).json({ ok: ready, ...(rpc ? { chain: { chain_id: deps.wallets.chainId, rpc_url: rpc } } : {}) });
  });
  return r;
}
