import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { CreateRefundInput, ListRefundsQuery, RefundId, RefundList, RefundResource } from '../refunds/refund-schemas.js';
import { RefundReason, refundResource } from '../refunds/refunds.js';
import type { Core, RefundsDoor } from '../core/core.js';
import { ApiError, invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireKey, requireSession } from '../http/auth.js';
import { registerRoute, registerSchema, type RouteResponse } from '../http/openapi.js';
import { E400, E401, E401s, E403, E404payment, err } from '../http/openapi-common.js';
import { PaymentId } from '../payments/payment-schemas.js';
import { IdempotencyKeyHeader } from './payments.router.js';

registerSchema('Refund', RefundResource);
registerSchema('RefundList', RefundList);
const refundDescription =
  "Full by default (`amount` omitted), or partial; several partial refunds up to the settled amount. `amount` is in the payment's " +
  'currency; the stablecoin sent is the same share of the stablecoin amount locked at creation (so at the locked rate), and the ' +
  'refund that completes the payment takes exactly what is left. Paid on-chain from the merchant\'s settlement wallet back to the ' +
  'address that paid, gas paid by the service, exactly once (the nonce is derived from the refund id). The answer waits for the ' +
  'receipt: `succeeded`, `failed` (nothing moved; create a new refund to retry) or `pending` (finished by the reconciler). ' +
  'Refused (400 invalid_request_error, the message says why): the payment is not settled, the amount is more than what is left, ' +
  'the payment settled to an external `payout_address` (the service holds no key for it), or the settlement wallet holds too little. ' +
  'A manual-capture (x402 auth-capture) payment refunds only what was captured (the held part is released by void), through the ' +
  "escrow, funded from the settlement wallet, until its refund deadline (`refund_deadline_passed` after it).";
const PaymentParams = z.object({ id: PaymentId });
for (const [path, auth] of [
  ['/api/v1/payments/:id/refunds', 'bearer'],
  ['/api/app/payments/:id/refunds', 'session'],
] as const) {
  const bearer = auth === 'bearer';
  registerRoute({
    method: 'post',
    path,
    operationId: bearer ? 'createRefund' : 'appCreateRefund',
    summary: bearer ? 'Refund a settled payment (full, partial, several)' : 'Refund a settled payment (dashboard, session cookie)',
    description: refundDescription,
    tags: ['Refunds'],
    auth,
    params: PaymentParams,
    body: CreateRefundInput,
    headers: {
      'Idempotency-Key': { description: 'Makes a retry safe: the same key and body replay the first refund; another body is a 409.', schema: IdempotencyKeyHeader },
    },
    responses: {
      ...(bearer ? {} : ({ 403: E403 } as Record<number, RouteResponse>)),
      201: {
        description: 'The refund (`succeeded`, `failed` or `pending`).',
        schema: RefundResource,
        headers: { 'Idempotent-Replayed': 'true when this answer replays an earlier request with the same Idempotency-Key.' },
      },
      400: err('Refused: not settled, more than is left, external payout_address, too little in the settlement wallet, or a bad field.'),
      401: bearer ? E401 : E401s,
      404: E404payment,
      409: err('Idempotency-Key reused with a different body.'),
      503: err('The chain could not be reached (api_error); nothing was created.'),
    },
  });
  registerRoute({
    method: 'get',
    path,
    operationId: bearer ? 'listRefunds' : 'appListRefunds',
    summary: bearer ? "List a payment's refunds, newest first" : "List a payment's refunds (dashboard, session cookie)",
    tags: ['Refunds'],
    auth,
    params: PaymentParams,
    query: ListRefundsQuery,
    responses: { 200: { description: 'A page of refunds.', schema: RefundList }, 400: E400, 401: bearer ? E401 : E401s, 404: E404payment },
  });
}
registerRoute({
  method: 'get',
  path: '/api/v1/refunds/:id',
  operationId: 'getRefund',
  summary: 'Read a refund',
  tags: ['Refunds'],
  auth: 'bearer',
  params: z.object({ id: RefundId }),
  responses: { 200: { description: 'The refund.', schema: RefundResource }, 401: E401, 404: err("No such refund (another account's refund is a 404 too).") },
});

/**
 * Refunds (docs/refunds.md): `POST/GET /api/v1/payments/:id/refunds`, `GET /api/v1/refunds/:id`
 * with a bearer key, and the dashboard's `/api/app/payments/:id/refunds` with the session cookie.
 */
export function refundsRouter(deps: Core, refunds: RefundsDoor): Router {
  const r = Router();

  const create = async (req: Request, res: Response) => {
    const key = req.get('Idempotency-Key');
    if (key !== undefined && !IdempotencyKeyHeader.safeParse(key).success) {
      throw invalidRequest('Idempotency-Key must be 1-255 printable ASCII characters.', 'Idempotency-Key');
    }
    const input = parseInput(CreateRefundInput, req.body ?? {});
    const made = await refunds.create(auth(res).accountId, String(req.params.id), input, key, auth(res).livemode);
    if (!made.ok) {
      if (made.reason === RefundReason.notFound) throw notFound(made.message);
      if (made.reason === RefundReason.chainUnavailable) throw new ApiError(503, 'api_error', made.message);
      throw invalidRequest(made.message, made.param, made.reason === RefundReason.idempotencyConflict ? 409 : 400);
    }
    if (made.replayed) res.set('Idempotent-Replayed', 'true');
    res.status(201).json(refundResource(made.refund));
  };

  const list = async (req: Request, res: Response) => {
    const q = parseInput(ListRefundsQuery, req.query);
    const listed = await refunds.list(auth(res).accountId, String(req.params.id), q, auth(res).livemode);
    if (!listed.ok) {
      if (listed.reason === 'not_found') throw notFound(listed.message);
      throw invalidRequest(listed.message, listed.param);
    }
    res.set('Cache-Control', 'no-store');
    res.json({ object: 'list', data: listed.data.map(refundResource), has_more: listed.hasMore } satisfies RefundList);
  };

  r.post('/v1/payments/:id/refunds', requireKey(deps), create);
  r.get('/v1/payments/:id/refunds', requireKey(deps), list);
  r.post('/app/payments/:id/refunds', requireSession(deps), create);
  r.get('/app/payments/:id/refunds', requireSession(deps), list);

  r.get('/v1/refunds/:id', requireKey(deps), async (req, res) => {
    const id = String(req.params.id);
    const found = RefundId.safeParse(id).success ? await refunds.get(auth(res).accountId, id, auth(res).livemode) : undefined;
    if (!found) throw notFound(`No such refund: ${id}`);
    res.set('Cache-Control', 'no-store');
    res.json(refundResource(found));
  });
  return r;
}
