import { Router, type Request, type Response } from 'express';
import { CancelPaymentInput, CancelReason } from '../payments/cancel.js';
import type { AppDeps } from './deps.js';
import { ApiError, invalidRequest, notFound, parseInput } from './errors.js';
import { auth, requireKey, requireSession } from './auth.js';
import { paymentResource } from './present.js';

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
export function cancelRouter(deps: AppDeps): Router {
  const r = Router();
  const handle = async (req: Request, res: Response) => {
    if (!deps.cancellation) throw new Error('cancellation is not wired');
    const input = parseInput(CancelPaymentInput, req.body ?? {});
    const done = await deps.cancellation.cancel(auth(res).accountId, String(req.params.id), input);
    if (!done.ok) {
      if (done.reason === CancelReason.notFound) throw notFound(done.message);
      if (done.reason === CancelReason.chainUnavailable) throw new ApiError(503, 'api_error', done.message);
      throw invalidRequest(done.message, undefined, STATUS[done.reason]);
    }
    const p = done.payment;
    res.json(paymentResource(p, deps.payments.checkoutUrl(p.id), deps.paymentExtras ? await deps.paymentExtras(p) : {}));
  };
  r.post('/v1/payments/:id/cancel', requireKey(deps), handle);
  r.post('/app/payments/:id/cancel', requireSession(deps), handle);
  return r;
}
