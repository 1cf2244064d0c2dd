import { Router } from 'express';
import type { Core } from '../core/core.js';
import { auth, requireSession } from '../http/auth.js';
import { useErrorShape } from '../http/errors.js';
import { SETTLE_STATUS, sendSettleResult } from '../http/settle-answer.js';
import { AppWalletRefusal } from '../checkout-sessions/methods/app-wallet.js';
import type { SettleResult } from '../settlement/settlement.js';
import { z } from 'zod';
import { registerRoute } from '../http/openapi.js';
import { E401app } from '../http/openapi-common.js';
import { PaymentId } from '../payments/payment-schemas.js';

const APP_WALLET_STATUS: Record<AppWalletRefusal, number> = {
  own_payment: 409,
  over_limit: 422,
};

const CheckoutFailure = z.object({ ok: z.literal(false), error: z.string(), reason: z.string() });
registerRoute({
  method: 'post',
  path: '/api/checkout/:id/app-wallet-pay',
  operationId: 'checkoutPayFromAppWallet',
  summary: "Pay the checkout session from the signed-in customer's app wallet",
  description:
    "The service signs the payment's EIP-3009 authorization with the customer's custodial key and settles it like `/api/checkout/{id}/settle` (same nonce: a payment settles at most once). Session cookie only, same origin. A wallet hold and the daily limit are taken first.",
  tags: ['Checkout'],
  auth: 'session',
  params: z.object({ id: PaymentId }),
  responses: {
    200: { description: 'Settled: `{ok:true, payment, txHash, redirect}`.' },
    202: { description: 'Sent, not yet confirmed: `{ok:true, payment, txHash}`; read `GET /api/checkout/{id}` for the outcome.' },
    401: E401app,
    402: { description: 'The app wallet holds too little (reason `insufficient_balance`); nothing moved.', schema: CheckoutFailure },
    403: { description: 'Cookie-authenticated request from a foreign Origin.', schema: z.object({ ok: z.literal(false), error: z.string() }) },
    404: { description: 'No such payment.', schema: CheckoutFailure },
    409: { description: 'Already settled, processing, canceled or failed; or the payment settles to this very wallet (`own_payment`).', schema: CheckoutFailure },
    410: { description: 'The checkout session expired.', schema: CheckoutFailure },
    422: { description: 'Over the daily limit (`over_limit`), or the transaction would revert or reverted.', schema: CheckoutFailure },
    503: { description: 'The chain is unavailable.', schema: CheckoutFailure },
  },
});

const isAppWalletRefusal = (reason: string): reason is AppWalletRefusal => reason in APP_WALLET_STATUS;

/**
 * `POST /api/checkout/:id/app-wallet-pay`: the signed-in customer pays the session from their
 * app wallet (session cookie, same origin only; DESIGN.md 5). Answers like `/checkout/:id/settle`.
 */
export function appWalletPayRouter(deps: Core): Router {
  const r = Router();
  r.use('/checkout', useErrorShape('checkout'));
  r.post('/checkout/:id/app-wallet-pay', requireSession(deps), async (req, res) => {
    const id = String(req.params.id);
    const payer = await deps.accounts.get(auth(res).accountId);
    if (!payer) throw new Error(`no account ${auth(res).accountId} behind the session`);
    res.locals.paymentId = id;
    const result = await deps.checkoutSessions.pay(id, { method: 'app-wallet', payer });
    if (!result.ok && isAppWalletRefusal(result.reason)) {
      res.set('Cache-Control', 'no-store');
      res.status(APP_WALLET_STATUS[result.reason]).json({ ok: false, error: result.message, reason: result.reason });
      return;
    }
    await sendSettleResult(deps, res, result as SettleResult);
  });
  return r;
}
