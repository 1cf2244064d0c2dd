import { Router } from 'express';
import { ListPaymentsQuery } from '../payments/payment-schemas.js';
import type { Core } from '../core/core.js';
import { invalidRequest, parseInput } from '../http/errors.js';
import { auth, requireSession } from '../http/auth.js';
import { PaymentList, paymentResource } from '../http/present.js';
import { registerRoute } from '../http/openapi.js';
import { E400, E401s } from '../http/openapi-common.js';

registerRoute({
  method: 'get',
  path: '/api/app/payments',
  operationId: 'appListPayments',
  summary: "The web app's payments list (same query and shape as GET /v1/payments)",
  tags: ['Payments'],
  auth: 'session',
  query: ListPaymentsQuery,
  responses: { 200: { description: 'A page of payments.', schema: PaymentList }, 400: E400, 401: E401s },
});

/**
 * The dashboard's payments list, read with the session cookie (the browser never holds a
 * secret key). Same query and shape as `GET /api/v1/payments`, newest first.
 */
export function appPaymentsRouter(deps: Core): Router {
  const r = Router();
  r.get('/app/payments', requireSession(deps), async (req, res) => {
    const q = parseInput(ListPaymentsQuery, req.query);
    const listed = await deps.payments.list(auth(res).accountId, q, auth(res).livemode);
    if (!listed.ok) throw invalidRequest(listed.message, listed.param);
    const data = await Promise.all(
      listed.data.map(async (p) =>
        paymentResource(p, deps.payments.checkoutUrl(p.id), await deps.present.payment(p)),
      ),
    );
    res.set('Cache-Control', 'no-store');
    res.json({ object: 'list', data, has_more: listed.hasMore });
  });
  return r;
}
