import { Router, type Request, type Response } from 'express';
import { CancelPaymentInput, CancelReason } from '../payments/cancel.js';
import type { Core } from '../core/core.js';
import { ApiError, invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireKey, requireSession } from '../http/auth.js';
import { z } from 'zod';
import { PaymentResource, paymentResource } from '../http/present.js';
import { registerRoute, type RouteResponse } from '../http/openapi.js';
import { E400, E401, E401s, E403, E404payment, err } from '../http/openapi-common.js';
import { PaymentId } from '../payments/payment-schemas.js';

const STATUS: Record<CancelReason, number> = {
  not_found: 404,
  settled: 409,
  processing: 409,
  finished: 409,
  used_on_chain: 409,
  chain_unavailable: 503,
};

const cancelDescription =
  'A `pending` payment becomes `canceled` (terminal) and `payment.canceled` is sent. The hosted page then says the ' +
  'merchant canceled it and no authorization can settle it any more. Canceling a canceled payment returns it again (200). ' +
  'A settled payment cannot be canceled (409): refund it with `POST /api/v1/payments/{id}/refunds`. A payment that is ' +
  '`processing` (the customer is paying right now), `failed` or `expired` is a 409 too.';
for (const [path, auth, unauth] of [
  ['/api/v1/payments/:id/cancel', 'bearer', E401],
  ['/api/app/payments/:id/cancel', 'session', E401s],
] as const) {
  registerRoute({
    method: 'post',
    path,
    operationId: auth === 'bearer' ? 'cancelPayment' : 'appCancelPayment',
    summary: auth === 'bearer' ? 'Cancel a pending payment' : 'Cancel a pending payment (dashboard, session cookie)',
    description: cancelDescription,
    tags: ['Payments'],
    auth,
    params: z.object({ id: PaymentId }),
    body: CancelPaymentInput,
    responses: {
      ...(auth === 'session' ? ({ 403: E403 } as Record<number, RouteResponse>) : {}),
      200: { description: 'The payment, now `canceled`.', schema: PaymentResource },
      400: E400,
      401: unauth,
      404: E404payment,
      409: err('Not cancelable: settled (refund it instead), processing, failed or expired.'),
      503: err('The chain could not be reached to check an earlier settle attempt (api_error); retry.'),
    },
  });
}

/**
 * `POST /api/v1/payments/:id/cancel` (bearer) and the dashboard's `POST /api/app/payments/:id/cancel`
 * (session cookie, same-origin): a pending payment becomes `canceled` (docs/payments-cancel.md).
 */
export function cancelRouter(deps: Core): Router {
  const r = Router();
  const handle = async (req: Request, res: Response) => {
    const input = parseInput(CancelPaymentInput, req.body ?? {});
    const done = await deps.cancellation.cancel(auth(res).accountId, String(req.params.id), input, auth(res).livemode);
    if (!done.ok) {
      if (done.reason === CancelReason.notFound) throw notFound(done.message);
      if (done.reason === CancelReason.chainUnavailable) throw new ApiError(503, 'api_error', done.message);
      throw invalidRequest(done.message, undefined, STATUS[done.reason]);
    }
    const p = done.payment;
    res.json(paymentResource(p, deps.payments.checkoutUrl(p.id), await deps.present.payment(p)));
  };
  r.post('/v1/payments/:id/cancel', requireKey(deps), handle);
  r.post('/app/payments/:id/cancel', requireSession(deps), handle);
  return r;
}
