import { Router } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { AgentErrorBody, ApiError, notFound } from '../http/errors.js';
import { auth, requireSessionOrKey } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E401 } from '../http/openapi-common.js';

export const ReceiptResponse = registerSchema(
  'ApprovalReceipt',
  z.object({
    ok: z.literal(true),
    receipt: z.object({
      id: z.string().describe('The action id.'),
      jws: z.string().describe('Compact JWS (a JWT, ES256) signed with a key of /.well-known/jwks.json.'),
      created_at: z.string(),
    }),
  }),
);
const Jwks = registerSchema('Jwks', z.object({ keys: z.array(z.looseObject({ kty: z.string(), kid: z.string() })) }));

registerRoute({
  method: 'get',
  path: '/api/agent/actions/:id/receipt',
  operationId: 'getActionReceipt',
  summary: 'The signed receipt of a confirmed action: who approved, through which door, the exact action, when, the outcome',
  description: 'Verify `receipt.jws` with any JOSE library against /.well-known/jwks.json (docs/receipts.md).',
  tags: ['Agent'],
  auth: 'sessionOrBearer',
  params: z.object({ id: z.string() }),
  responses: {
    200: { description: 'The receipt (the same one every time).', schema: ReceiptResponse },
    401: E401,
    404: { description: "No such action for this account (another account's too): `{ok:false, reply}`.", schema: AgentErrorBody },
    409: { description: 'The action was never confirmed, or it is still being carried out: `{ok:false, reply}`.', schema: AgentErrorBody },
  },
});
registerRoute({
  method: 'get',
  path: '/.well-known/jwks.json',
  operationId: 'jwks',
  summary: 'The public keys that sign approval receipts (JWK Set)',
  tags: ['Agent'],
  auth: 'none',
  responses: { 200: { description: 'The key set.', schema: Jwks } },
});

/** GET /.well-known/jwks.json, at the root. */
export function jwksRouter(deps: Core): Router {
  const r = Router();
  r.get('/.well-known/jwks.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300');
    res.json(deps.receipts.jwks());
  });
  return r;
}

/** GET /api/agent/actions/:id/receipt (docs/receipts.md). */
export function receiptsRouter(deps: Core): Router {
  const r = Router();
  r.get('/agent/actions/:id/receipt', requireSessionOrKey(deps), async (req, res) => {
    const got = await deps.receipts.forAction(auth(res).accountId, String(req.params.id), auth(res).livemode);
    if (!got.ok) {
      if (got.reason === 'not_found') throw notFound(got.message);
      throw new ApiError(409, 'invalid_request_error', got.message);
    }
    const { id, jws, createdAt } = got.receipt;
    res.json({ ok: true, receipt: { id, jws, created_at: createdAt } } satisfies z.infer<typeof ReceiptResponse>);
  });
  return r;
}
