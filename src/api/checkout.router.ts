import { Router } from 'express';
import type { Core } from '../core/core.js';
import { notFound, useErrorShape } from '../http/errors.js';
import { checkoutView } from '../http/present.js';

/** Interface 4.2: public read; the id is the capability. Errors as `{ok:false,error}`. */
export function checkoutRouter(deps: Core): Router {
  const r = Router();
  r.use('/checkout', useErrorShape('checkout'));
  r.get('/checkout/:id', async (req, res) => {
    const id = String(req.params.id);
    const p = await deps.payments.get(id);
    if (!p) throw notFound(`No such payment: ${id}`);
    const account = await deps.accounts.get(p.accountId);
    res.set('Cache-Control', 'no-store');
    res.json({ ok: true, payment: { ...checkoutView(p, account?.name ?? 'Merchant'), ...deps.present.checkout() } });
  });
  return r;
}
