import { Router } from 'express';
import type { Core } from '../core/core.js';
import { z } from 'zod';
import { CheckoutErrorBody, notFound, useErrorShape } from '../http/errors.js';
import { CheckoutRead, CheckoutView, checkoutView } from '../http/present.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { PaymentId } from '../payments/schemas.js';
import { usdcDecimal } from '../lib/money.js';

registerSchema('CheckoutView', CheckoutView);
registerSchema('CheckoutError', CheckoutErrorBody);
registerSchema('CheckoutRead', CheckoutRead);

registerRoute({
  method: 'get',
  path: '/api/checkout/:id',
  operationId: 'readCheckout',
  summary: 'Read the public checkout view of a payment',
  description: 'No authentication: the payment id is the capability. For polling and server-side reconciliation.',
  tags: ['Checkout'],
  auth: 'none',
  params: z.object({ id: PaymentId }),
  responses: {
    200: { description: 'The checkout view.', schema: CheckoutRead },
    400: { description: 'Not a payment id: `{ok:false, error}`.', schema: CheckoutErrorBody },
    404: { description: 'No such payment: `{ok:false, error:"No such payment: <id>"}`.', schema: CheckoutErrorBody },
  },
});

/** Interface 4.2: public read; the id is the capability. Errors as `{ok:false,error}`. */
export function checkoutRouter(deps: Core): Router {
  const r = Router();
  r.use('/checkout', useErrorShape('checkout'));
  r.get('/checkout/:id', async (req, res) => {
    const id = String(req.params.id);
    const p = await deps.payments.get(id);
    if (!p) throw notFound(`No such payment: ${id}`);
    const account = await deps.accounts.get(p.accountId);
    // The session's deposit address (given out on first read while pending) and its EIP-681 link.
    // A store that cannot give one out now leaves the fields out; the rest of the view still answers.
    const deposit = p.status === 'pending' ? await deps.settlement.deposits.depositFor(p).catch((err) => void req.log.warn({ err, paymentId: p.id }, 'no deposit address for this session now')) : undefined;
    res.set('Cache-Control', 'no-store');
    res.json({
      ok: true,
      payment: {
        ...checkoutView(p, account?.name ?? 'Merchant'),
        ...deps.present.checkout(),
        ...(deposit
          ? {
              depositAddress: deposit.address,
              ...(deposit.uri ? { paymentUri: deposit.uri } : {}),
              ...(deposit.received > 0n ? { depositReceived: usdcDecimal(deposit.received) } : {}),
            }
          : {}),
      },
    });
  });
  return r;
}
