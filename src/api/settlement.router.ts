import { Router, type Response } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { fromZodError, useErrorShape } from '../http/errors.js';
import { sendSettleResult } from '../http/settle-answer.js';
import { AuthorizationRequest, SettleRequest } from '../settlement/settlement.js';
import { SETTLE_STATUS } from '../http/settle-answer.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { SettlementError, settleResponses } from '../http/openapi-common.js';
import { PaymentId } from '../payments/payment-schemas.js';

export { redirectFor, SETTLE_STATUS, sendSettleResult } from '../http/settle-answer.js';

/** Parses a body or answers 400 `{ok:false, error, reason:"invalid_request"}`. */
function parseBody<S extends z.ZodType>(schema: S, body: unknown, res: Response): z.output<S> | undefined {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  res.status(400).json({ ok: false, error: fromZodError(r.error).message, reason: 'invalid_request' });
  return undefined;
}

registerSchema('AuthorizationRequest', AuthorizationRequest);
registerSchema('SettleRequest', SettleRequest);

registerRoute({
  method: 'post',
  path: '/api/checkout/:id/authorization',
  operationId: 'checkoutAuthorization',
  summary: 'Typed data for the payer to sign (EIP-3009 TransferWithAuthorization)',
  tags: ['Checkout'],
  auth: 'none',
  params: z.object({ id: PaymentId }),
  body: AuthorizationRequest,
  responses: {
    200: { description: '`{ok:true, typedData}`: sign it with eth_signTypedData_v4.' },
    400: { description: 'Invalid request.', schema: SettlementError },
    404: { description: 'No such payment.', schema: SettlementError },
    409: { description: 'Already settled, processing or failed.', schema: SettlementError },
    410: { description: 'The checkout session expired.', schema: SettlementError },
  },
});

registerRoute({
  method: 'post',
  path: '/api/checkout/:id/settle',
  operationId: 'checkoutSettle',
  summary: 'Relay a signed authorization and settle the payment (gas paid by the service)',
  tags: ['Checkout'],
  auth: 'none',
  params: z.object({ id: PaymentId }),
  body: SettleRequest,
  responses: { ...settleResponses },
});

/** Public settlement API: the payment id is the capability, the signature the authority. */
export function settlementRouter(deps: Core): Router {
  const r = Router();
  r.use('/checkout', useErrorShape('checkout'));

  r.post('/checkout/:id/authorization', async (req, res) => {
    const input = parseBody(AuthorizationRequest, req.body, res);
    if (!input) return;
    const result = await deps.settlement.authorizationFor(String(req.params.id), input.from);
    res.set('Cache-Control', 'no-store');
    if (!result.ok) {
      res.status(SETTLE_STATUS[result.reason]).json({ ok: false, error: result.message, reason: result.reason });
      return;
    }
    res.json({ ok: true, typedData: result.typedData });
  });

  r.post('/checkout/:id/settle', async (req, res) => {
    const input = parseBody(SettleRequest, req.body, res);
    if (!input) return;
    res.locals.paymentId = String(req.params.id);
    await sendSettleResult(deps, res, await deps.checkoutSessions.pay(String(req.params.id), { method: 'signed-authorization', ...input }));
  });
  return r;
}
