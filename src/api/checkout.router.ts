import { Router } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROUTE_LABEL, type FrontRoute } from '../http/app.js';
import type { Core } from '../core/core.js';
import { z } from 'zod';
import { CheckoutErrorBody, notFound, useErrorShape } from '../http/errors.js';
import { CheckoutRead, CheckoutView } from '../checkout-sessions/view.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { PaymentId } from '../payments/payment-schemas.js';

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

/**
 * Interface 4.2: public read; the id is the capability. Errors as `{ok:false,error}`.
 * Mounted first at the root (src/doors.ts), ahead of the API's body parsing and routers: it is
 * the most polled route. The answer is the session's one view rendered as JSON
 * (src/checkout-sessions), reused while the payment and its deposit are unchanged and checked
 * against the store on every read, so a change (settled, a deposit arriving) shows on the next
 * poll on any instance. `ETag` / `If-None-Match` lets a poller skip the body, and
 * `Cache-Control: no-cache` makes any cache ask again before every use.
 */
export function checkoutRouter(deps: Pick<Core, 'checkoutSessions'>): Router {
  const r = Router();
  // Before the route, so a path that fails to decode is answered in the checkout shape too.
  r.use('/api/checkout', useErrorShape('checkout'));
  r.get('/api/checkout/:id', async (req, res) => {
    const id = String(req.params.id);
    const answer = await deps.checkoutSessions.read(id);
    if (!answer) throw notFound(`No such payment: ${id}`);
    sendRead(req, res, answer);
  });
  return r;
}

type Answer = NonNullable<Awaited<ReturnType<Core['checkoutSessions']['read']>>>;

function sendRead(req: IncomingMessage, res: ServerResponse, answer: Answer): void {
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('ETag', answer.etag);
  if (req.headers['if-none-match'] === answer.etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  // Written directly: the body is already JSON text (express's send would look it over again).
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(answer.body));
  res.end(answer.body);
}

const PREFIX = '/api/checkout/';
/** An id as the route's `:id` would take it with nothing to decode; anything else goes to express. */
const PLAIN_ID = /^[A-Za-z0-9_-]+$/;

/**
 * The same read in front of express (`HttpRoutes.front`): a GET of a plain id that the store
 * has is answered here, with the app's prelude (request id, security headers, metrics); a
 * missing payment, a failed read, a HEAD or an id to decode go to the route above, which
 * answers as it always did.
 */
export function checkoutReadFront(deps: Pick<Core, 'checkoutSessions'>): FrontRoute {
  return (req, res, front) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX)) return false;
    const q = url.indexOf('?');
    const id = url.slice(PREFIX.length, q < 0 ? undefined : q);
    if (!PLAIN_ID.test(id)) return false;
    front.prelude(req, res, () => {
      deps.checkoutSessions.read(id).then(
        (answer) => {
          if (!answer) return front.express(req, res);
          (req as IncomingMessage & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] = '/api/checkout/:id';
          sendRead(req, res, answer);
        },
        () => front.express(req, res),
      );
    });
    return true;
  };
}
