import { Router, type Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { fromZodError, useErrorShape } from '../http/errors.js';
import { ROUTE_LABEL, type FrontRoute } from '../http/app.js';
import { plainJsonRequest, readJsonBody } from '../http/json-body.js';
import { sendJson } from '../http/send-json.js';
import { readSettleBody } from '../http/settle-body.js';
import { SETTLE_STATUS, sendSettleResult, settleAnswer } from '../http/settle-answer.js';
import { AuthorizationRequest, SettleRequest } from '../settlement/settlement.js';
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
    const input = readSettleBody(req.body);
    if (!input.ok) {
      res.status(400).json({ ok: false, error: input.error, reason: 'invalid_request' });
      return;
    }
    res.locals.paymentId = String(req.params.id);
    await sendSettleResult(deps, res, await deps.checkoutSessions.pay(String(req.params.id), { method: 'signed-authorization', ...input.data }));
  });
  return r;
}

const SETTLE_PREFIX = '/api/checkout/';
const SETTLE_SUFFIX = '/settle';
const SETTLE_LABEL = '/api/checkout/:id/settle';
/** An id as the route's `:id` takes it with nothing to decode; anything else goes to express. */
const PLAIN_ID = /^[A-Za-z0-9_-]+$/;

/** The payment id of `POST /api/checkout/<plain id>/settle[?...]`, else undefined. */
function settlePathId(url: string | undefined): string | undefined {
  if (url === undefined || !url.startsWith(SETTLE_PREFIX)) return undefined;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.endsWith(SETTLE_SUFFIX)) return undefined;
  const id = path.slice(SETTLE_PREFIX.length, path.length - SETTLE_SUFFIX.length);
  return PLAIN_ID.test(id) ? id : undefined;
}

/**
 * The settle in front of express (`HttpRoutes.front`), the customer's route at checkout: a POST
 * of a plain id with a plain UTF-8 JSON body of a stated length (`plainJsonRequest`) is answered
 * here by the same steps as the route above (the app's prelude, the body read as the API's JSON
 * parser reads it, the same body rules and answers, the checkout error shape) on node's own
 * request, without express's routing and request set-up (about a sixth of the settle's CPU in
 * its profile, docs/performance.md). A body that fails to parse, or a failure, goes to express's
 * error handler, which answers as the route would; anything else (no length, another type or
 * charset, a compressed or larger body, a path to decode) goes to express untouched.
 */
export function checkoutSettleFront(deps: Core): FrontRoute {
  /** The route's answer once the body is parsed: a 400 in the route's shape, or the settle's. */
  async function answer(id: string, body: unknown, res: ServerResponse): Promise<void> {
    const input = readSettleBody(body);
    if (!input.ok) return sendJson(res, 400, { ok: false, error: input.error, reason: 'invalid_request' });
    const result = await deps.checkoutSessions.pay(id, { method: 'signed-authorization', ...input.data });
    const { status, body: json } = await settleAnswer(deps, result, id);
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, status, json);
  }
  return (req, res, front) => {
    if (req.method !== 'POST') return false;
    const id = settlePathId(req.url);
    if (id === undefined || !plainJsonRequest(req)) return false;
    (req as IncomingMessage & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] = SETTLE_LABEL;
    // What express's set-up and the checkout family's middleware give the route: its error shape.
    const locals = Object.create(null) as Record<string, unknown>;
    locals.errorShape = 'checkout';
    (res as ServerResponse & { locals?: Record<string, unknown> }).locals = locals;
    // Inline callbacks, no named closures per request (tsx's keepNames renames each one it creates).
    front.prelude(req, res, () =>
      readJsonBody(req, (err, body) => {
        if (err) return front.fail(req, res, err, SETTLE_LABEL);
        answer(id, body, res).catch((e: unknown) => front.fail(req, res, e, SETTLE_LABEL));
      }),
    );
    return true;
  };
}
