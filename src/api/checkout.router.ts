import { createHash } from 'node:crypto';
import { Router } from 'express';
import type { Core } from '../core/core.js';
import { z } from 'zod';
import { CheckoutErrorBody, notFound, useErrorShape } from '../http/errors.js';
import { CheckoutRead, CheckoutView, checkoutView } from '../http/present.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { PaymentId } from '../payments/schemas.js';
import { merchantNameFor } from '../payments/merchant-name.js';
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
  headers: { 'If-None-Match': { description: 'The ETag of the last answer: 304 with no body while nothing changed.' } },
  responses: {
    200: { description: 'The checkout view.', schema: CheckoutRead, headers: { ETag: 'A validator of this answer (send it back as If-None-Match).' } },
    304: { description: 'Not modified since the ETag sent in If-None-Match.' },
    400: { description: 'Not a payment id: `{ok:false, error}`.', schema: CheckoutErrorBody },
    404: { description: 'No such payment: `{ok:false, error:"No such payment: <id>"}`.', schema: CheckoutErrorBody },
  },
});

/** Answers kept per payment, each valid only for the very rows it was built from. */
const CACHE_MAX = 10_000;

interface Cached {
  payment: object;
  account: object | undefined;
  depositKey: string;
  body: string;
  etag: string;
}

/**
 * Interface 4.2: public read; the id is the capability. Errors as `{ok:false,error}`.
 * Mounted at the root (src/doors.ts), ahead of the API's body parsing and routers: it is the
 * most polled route. Every read goes to the store, so a change (settled, a deposit arriving)
 * shows on the next poll on any instance; what is reused is the serialised answer, while the
 * payment, account and deposit it was built from are unchanged (committed rows are replaced,
 * never changed, so identity is the version on lowdb; PostgreSQL hands out fresh rows, which
 * simply never hit). `ETag` / `If-None-Match` lets a poller skip the body, and
 * `Cache-Control: no-cache` makes any cache ask again before every use.
 */
export function checkoutRouter(deps: Core): Router {
  const r = Router();
  const cache = new Map<string, Cached>();
  // Before the route, so a path that fails to decode is answered in the checkout shape too.
  r.use('/api/checkout', useErrorShape('checkout'));
  r.get('/api/checkout/:id', async (req, res) => {
    const id = String(req.params.id);
    const p = await deps.payments.get(id);
    if (!p) throw notFound(`No such payment: ${id}`);
    const account = await deps.accounts.get(p.accountId);
    // The session's deposit address (given out on first read while pending) and its EIP-681 link.
    // A store that cannot give one out now leaves the fields out; the rest of the view still answers.
    const deposit = p.status === 'pending' ? await deps.settlement.deposits.depositFor(p).catch((err) => void req.log.warn({ err, paymentId: p.id }, 'no deposit address for this session now')) : undefined;
    const depositKey = deposit ? `${deposit.address}|${deposit.received}|${deposit.uri ?? ''}` : '';
    let hit = cache.get(id);
    if (!hit || hit.payment !== p || hit.account !== account || hit.depositKey !== depositKey) {
      const body = JSON.stringify({
        ok: true,
        payment: {
          ...checkoutView(p, merchantNameFor(p, account)),
          ...deps.present.checkout(p),
          ...(deposit
            ? {
                depositAddress: deposit.address,
                ...(deposit.uri ? { paymentUri: deposit.uri } : {}),
                ...(deposit.received > 0n ? { depositReceived: usdcDecimal(deposit.received) } : {}),
              }
            : {}),
        },
      });
      hit = { payment: p, account, depositKey, body, etag: `W/"${createHash('sha1').update(body).digest('base64url')}"` };
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(id, hit);
    }
    res.set('Cache-Control', 'no-cache');
    res.set('ETag', hit.etag);
    if (req.headers['if-none-match'] === hit.etag) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(hit.body);
  });
  return r;
}
