import { Router, type Request, type Response } from 'express';
import { CancelPaymentInput, CancelReason } from '../payments/cancel.js';
import type { Core } from '../core/core.js';
import { ApiError, invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireKey, requireSession } from '../http/auth.js';
import { paymentResource } from '../http/present.js';

const STATUS: Record<CancelReason, number> = {
  not_found: 404,
  settled: 409,
  processing: 409,
  finished: 409,
  used_on_chain: 409,
  chain_unavailable: 503,
};

/**
 * `POST /api/v1/payments/:id/cancel` (bearer) and the dashboard's `POST /api/app/payments/:id/cancel`
 * (session cookie, same-origin): a pending payment becomes `canceled` (docs/payments-cancel.md).
 */
export function cancelRouter(deps: Core): Router {
  const r = Router();
  const handle = async (req: Request, res: Response) => {
    const input = parseInput(CancelPaymentInput, req.body ?? {});
    const done = await deps.cancellation.cancel(auth(res).accountId, String(req.params.id), input);
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
