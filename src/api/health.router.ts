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

export const ReadinessResponse = z.object({
  ok: z.boolean(),
  details: z
    .object({
      store: z.boolean().describe('The store answers.'),
      chain: z.boolean().describe('The chain RPC answers with the expected chain id.'),
      relayer: z.object({
        address: z.string(),
        gas_balance_wei: z.string().optional().describe('The relayer\'s native balance (absent when the node did not answer).'),
        min_gas_balance_wei: z.string().describe('RELAYER_MIN_GAS_BALANCE in wei.'),
        low_gas: z.boolean().describe('True when the balance is under the floor: top it up (the instance stays ready).'),
        nonce_lag: z.number().int().optional().describe('Transactions sent by the relayer and not yet mined.'),
      }),
    })
    .describe('What was checked.'),
});

registerSchema('Readiness', ReadinessResponse);

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
  responses: { 200: { description: 'Ready.', schema: ReadinessResponse }, 503: { description: 'Not ready.', schema: ReadinessResponse } },
});

export function healthRouter(deps: Core): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.json({ ok: true, ready: true });
  });
  r.get('/readyz', async (_req, res) => {
    const { ok, details } = await deps.readiness();
    const { relayer } = details;
    // The embedded chain's JSON-RPC URL, so a real wallet can be pointed at it (README).
    const rpc = deps.wallets.devRpcUrl;
    res.status(ok ? 200 : 503).json({
      ok,
      ...(rpc ? { chain: { chain_id: deps.wallets.chainId, rpc_url: rpc } } : {}),
      details: {
        store: details.store,
        chain: details.chain,
        relayer: {
          address: relayer.address,
          ...(relayer.gasBalanceWei !== undefined ? { gas_balance_wei: relayer.gasBalanceWei } : {}),
          min_gas_balance_wei: relayer.minGasBalanceWei,
          low_gas: relayer.lowGas,
          ...(relayer.nonceLag !== undefined ? { nonce_lag: relayer.nonceLag } : {}),
        },
      },
    });
  });
  return r;
}
