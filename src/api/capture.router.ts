import { Router, type Request, type Response } from 'express';
import { parseUnits } from 'viem';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { ApiError, invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireKey } from '../http/auth.js';
import { PaymentResource, paymentResource } from '../http/present.js';
import { registerRoute } from '../http/openapi.js';
import { E400, E401, E404payment, err } from '../http/openapi-common.js';
import { MoneyAmount, PaymentId } from '../payments/payment-schemas.js';
import type { Payment } from '../payments/payments.js';

export const CapturePaymentInput = z
  .object({
    amount: MoneyAmount.optional().describe("In the payment's currency, converted at the rate locked at creation; default: everything held."),
  })
  .strict();

registerRoute({
  method: 'post',
  path: '/api/v1/payments/:id/capture',
  operationId: 'capturePayment',
  summary: 'Capture all or part of an authorized (manual-capture) payment',
  description:
    'For `capture_method: "manual"` payments an agent authorized over x402 auth-capture (`authorized`, the funds held in escrow): ' +
    'moves `amount` (default: all that is held) to the merchant. The first capture makes the payment `captured` and sends ' +
    '`payment.captured`; each further capture sends it again with the new amounts. What stays held can be captured later or voided.',
  tags: ['Payments'],
  auth: 'bearer',
  params: z.object({ id: PaymentId }),
  body: CapturePaymentInput,
  responses: {
    200: { description: 'The payment, with `amount_captured` and `amount_capturable`.', schema: PaymentResource },
    400: E400,
    401: E401,
    404: E404payment,
    409: err('Nothing is held (not a manual-capture payment, not authorized yet, voided, or all captured), or the escrow refused (its reason in the message).'),
    503: err('The chain could not be reached or the transaction is not mined yet; retry.'),
  },
});
registerRoute({
  method: 'post',
  path: '/api/v1/payments/:id/void',
  operationId: 'voidPayment',
  summary: 'Release what an authorized (manual-capture) payment still holds back to the payer',
  description:
    'Voids the hold of a manual-capture payment: what is not captured goes back to the payer. A payment with nothing captured ' +
    'becomes `voided`; one captured in part stays `captured`. Sends `payment.voided`. Holds not captured by `capture_before` are voided automatically.',
  tags: ['Payments'],
  auth: 'bearer',
  params: z.object({ id: PaymentId }),
  responses: {
    200: { description: 'The payment, with `amount_voided`.', schema: PaymentResource },
    401: E401,
    404: E404payment,
    409: err('Nothing is held.'),
    503: err('The chain could not be reached or the transaction is not mined yet; retry.'),
  },
});

/** The capture amount in base units: the currency amount at the payment's locked ratio. */
function baseUnits(p: Payment, amount: number): bigint {
  const scale = (n: number | string) => parseUnits(String(n), 8);
  return (BigInt(p.stablecoinAmount) * scale(amount)) / scale(p.amount);
}

/** `POST /api/v1/payments/:id/capture` and `/void` (docs/x402.md, "Manual capture"). */
export function captureRouter(deps: Core): Router {
  const r = Router();
  const load = async (req: Request, res: Response): Promise<Payment> => {
    // In the key's mode only: a test key sees test payments, a live key live ones (docs/test-mode.md).
    const p = await deps.payments.getForAccount(auth(res).accountId, String(req.params.id), auth(res).livemode);
    if (!p) throw notFound(`No such payment: ${String(req.params.id)}`);
    if (!deps.manualCapture) throw invalidRequest('Manual capture is not available on this chain.', undefined, 409);
    return p;
  };
  const answer = async (res: Response, done: Awaited<ReturnType<NonNullable<Core['manualCapture']>['capture']>>) => {
    if (!done.ok) {
      if (done.status === 202 || done.reason === 'unexpected_settle_error') throw new ApiError(503, 'api_error', done.message || done.reason);
      throw invalidRequest(`${done.message} (${done.reason})`, undefined, done.status === 400 ? 400 : 409);
    }
    const p = done.payment;
    res.json(paymentResource(p, deps.payments.checkoutUrl(p.id), await deps.present.payment(p)));
  };
  r.post('/v1/payments/:id/capture', requireKey(deps), async (req, res) => {
    const input = parseInput(CapturePaymentInput, req.body ?? {});
    const p = await load(req, res);
    await answer(res, await deps.manualCapture!.capture(p, input.amount === undefined ? undefined : baseUnits(p, input.amount)));
  });
  r.post('/v1/payments/:id/void', requireKey(deps), async (req, res) => {
    const p = await load(req, res);
    await answer(res, await deps.manualCapture!.void(p));
  });
  return r;
}
