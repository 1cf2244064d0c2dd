import { Router } from 'express';
import { ListPaymentsQuery } from '../payments/schemas.js';
import type { AppDeps } from './deps.js';
import { invalidRequest, parseInput } from './errors.js';
import { auth, requireSession } from './auth.js';
import { paymentResource } from './present.js';

/**
 * The dashboard's payments list, read with the session cookie (the browser never holds a
 * secret key). Same query and shape as `GET /api/v1/payments`, newest first.
 */
export function appPaymentsRouter(deps: AppDeps): Router {
  const r = Router();
  r.get('/app/payments', requireSession(deps), async (req, res) => {
    const q = parseInput(ListPaymentsQuery, req.query);
    const listed = await deps.payments.list(auth(res).accountId, q);
    if (!listed.ok) throw invalidRequest(listed.message, listed.param);
    const data = await Promise.all(
      listed.data.map(async (p) =>
        paymentResource(p, deps.payments.checkoutUrl(p.id), deps.paymentExtras ? await deps.paymentExtras(p) : {}),
      ),
    );
    res.set('Cache-Control', 'no-store');
    res.json({ object: 'list', data, has_more: listed.hasMore });
  });
  return r;
}
