import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { CreatePaymentInput, ListPaymentsQuery, PaymentId } from '../payments/payment-schemas.js';
import type { Core } from '../core/core.js';
import { invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireKey, requireSession } from '../http/auth.js';
import { apiJsonBody, ROUTE_LABEL, type FrontRoute } from '../http/app.js';
import type { IncomingMessage } from 'node:http';
import { PaymentList, PaymentResource, paymentResource } from '../http/present.js';
import { sendJson } from '../http/send-json.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E400, E401, E401s, E409, E413, E404payment } from '../http/openapi-common.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
export const IdempotencyKeyHeader = z.string().regex(IDEMPOTENCY_KEY).max(255);

/** Interface 4.3: what a verified key reports. */
export const PingResponse = z.object({
  ok: z.literal(true),
  account: z.string().describe('Id of the account the key is scoped to.'),
  live: z.boolean().describe('Whether the key is a live key (`sk_live_`); false for test keys (`sk_test_`).'),
});
export type PingResponse = z.infer<typeof PingResponse>;

registerSchema('CreatePaymentInput', CreatePaymentInput);
registerSchema('Ping', PingResponse);

/**
 * The one table from a create's outcome to its HTTP status (DESIGN.md 4): a new payment 201, one
 * found by its reference 200 (a replay repeats the first answer's), a conflict 409, any other
 * refusal 400.
 */
const CREATE_STATUS = {
  created: 201,
  found: 200,
  refused: { reference_conflict: 409, idempotency_conflict: 409 } as Readonly<Partial<Record<string, number>>>,
  invalid: 400,
} as const;

// ----------------------------------------------- OpenAPI (interface 4.1, 4.3), one per handler below
registerRoute({
  method: 'post',
  path: '/api/app/payments',
  operationId: 'appCreatePayment',
  summary: "The dashboard's New payment: the same body and answers as POST /v1/payments, with the session cookie",
  tags: ['Payments'],
  auth: 'session',
  body: CreatePaymentInput,
  responses: { 201: { description: 'Created.', schema: PaymentResource }, 200: { description: 'An existing payment (same reference and body).', schema: PaymentResource }, 400: E400, 401: E401s, 409: E409 },
});
registerRoute({
  method: 'post',
  path: '/api/v1/payments',
  operationId: 'createPayment',
  summary: 'Create a payment (hosted checkout session)',
  description:
    'Converts the amount to the stablecoin at the rate of the moment (locked for the session) and returns the ' +
    'hosted `checkout_url`. The same `reference` with the same body returns the existing payment (200); with a ' +
    'different body, 409. With an `Idempotency-Key`, the same key and body replay the first answer; another body, 409.',
  tags: ['Payments'],
  auth: 'bearer',
  body: CreatePaymentInput,
  headers: {
    'Idempotency-Key': { description: 'Makes a retry safe: 1-255 printable ASCII characters.', schema: IdempotencyKeyHeader },
  },
  responses: {
    201: { description: 'Created.', schema: PaymentResource },
    200: {
      description: 'An existing payment: same `reference` and body, or an idempotent replay of a 200.',
      schema: PaymentResource,
      headers: { 'Idempotent-Replayed': 'true when this answer replays an earlier request with the same Idempotency-Key.' },
    },
    400: E400,
    401: E401,
    409: E409,
    413: E413,
  },
});

registerRoute({
  method: 'get',
  path: '/api/v1/payments',
  operationId: 'listPayments',
  summary: "List the account's payments, newest first",
  tags: ['Payments'],
  auth: 'bearer',
  query: ListPaymentsQuery,
  responses: { 200: { description: 'A page of payments.', schema: PaymentList }, 400: E400, 401: E401 },
});

registerRoute({
  method: 'get',
  path: '/api/v1/payments/:id',
  operationId: 'getPayment',
  summary: 'Read a payment (full record, with metadata)',
  tags: ['Payments'],
  auth: 'bearer',
  params: z.object({ id: PaymentId }),
  responses: {
    200: { description: 'The payment. A pending payment past `expires_at` reads as `expired`.', schema: PaymentResource },
    401: E401,
    404: E404payment,
  },
});

registerRoute({
  method: 'get',
  path: '/api/v1/ping',
  operationId: 'ping',
  summary: 'Verify a key and report its account',
  tags: ['Keys'],
  auth: 'bearer',
  responses: { 200: { description: 'The key is valid.', schema: PingResponse }, 401: E401 },
});

/** Interface 4.1: the create, shared by the bearer route and the dashboard's session route. */
function createHandler(deps: Core): RequestHandler {
  return async (req, res) => {
    // As `req.get` reads it; a front route's request is node's own (no express methods).
    const key = req.headers['idempotency-key'] as string | undefined;
    if (key !== undefined && !IdempotencyKeyHeader.safeParse(key).success) {
      throw invalidRequest('Idempotency-Key must be 1-255 printable ASCII characters.', 'Idempotency-Key');
    }
    const input = parseInput(CreatePaymentInput, req.body);
    if (input.webhook_url !== undefined && deps.webhooks) {
      // Production refuses non-https and non-public webhook targets (src/webhooks/url-guard.ts).
      const checked = await deps.webhooks.checkUrl(input.webhook_url, 'webhook_url');
      if (!checked.ok) throw invalidRequest(checked.message, checked.param);
    }
    const who = auth(res);
    const created = await deps.payments.create(who.accountId, input, key, who.livemode);
    if (!created.ok) throw invalidRequest(created.message, created.param, CREATE_STATUS.refused[created.reason] ?? CREATE_STATUS.invalid);
    // Stripe's convention: tell the client this answer repeats an earlier request.
    if (created.replayed) res.setHeader('Idempotent-Replayed', 'true');
    const p = created.payment;
    sendJson(res, created.created ? CREATE_STATUS.created : CREATE_STATUS.found, paymentResource(p, deps.payments.checkoutUrl(p.id), await deps.present.payment(p)));
  };
}

/**
 * `POST /api/v1/payments`, the hottest route: mounted ahead of every other router
 * (`HttpRoutes.hot`) with the API's own body handling, then the key, in the order the API chain
 * applies them (a non-JSON body 400, a malformed one 400, then 401 without a valid key).
 */
export function paymentsCreateRouter(deps: Core): Router {
  const r = Router();
  r.post('/api/v1/payments', ...apiJsonBody(), requireKey(deps), createHandler(deps));
  return r;
}

const CREATE_PATH = '/api/v1/payments';
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * The create in front of express (`HttpRoutes.front`): a POST with a JSON Content-Type and a
 * Content-Length is answered here by the same steps as `paymentsCreateRouter` (express's JSON
 * parser, the key, the handler) on node's own request, without express's routing and request
 * set-up; any failure goes to express's error handler, which answers it as the route would.
 * Anything else (no length, another type, a HEAD) goes to express untouched.
 */
export function paymentsCreateFront(deps: Core): FrontRoute {
  const [, parseJson] = apiJsonBody() as [unknown, (req: unknown, res: unknown, next: (err?: unknown) => void) => void];
  const key = requireKey(deps);
  const handler = createHandler(deps);
  return (req, res, front) => {
    if (req.method !== 'POST') return false;
    const url = req.url;
    if (url !== CREATE_PATH && !(url?.startsWith(CREATE_PATH) && url[CREATE_PATH.length] === '?')) return false;
    const type = req.headers['content-type'];
    if (type === undefined || !JSON_TYPE.test(type) || req.headers['content-length'] === undefined || req.headers['transfer-encoding'] !== undefined) return false;
    (req as IncomingMessage & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] = CREATE_PATH;
    const r = req as unknown as Parameters<RequestHandler>[0];
    const s = res as unknown as Parameters<RequestHandler>[1];
    // What express's own set-up gives every response, and the handlers read.
    s.locals = Object.create(null) as Record<string, unknown>;
    const fail = (err: unknown) => front.fail(req, res, err, CREATE_PATH);
    front.prelude(req, res, () =>
      parseJson(r, s, (err) => {
        if (err) return fail(err);
        Promise.resolve(
          key(r, s, (e?: unknown) => {
            if (e) return fail(e);
            Promise.resolve(handler(r, s, fail)).catch(fail);
          }),
        ).catch(fail);
      }),
    );
    return true;
  };
}

/** Interface 4.1, 4.3; DESIGN.md 4 (read and list). Bearer key only. */
export function paymentsRouter(deps: Core): Router {
  const r = Router();
  r.use('/v1', requireKey(deps));
  const present = async (p: Parameters<typeof paymentResource>[0]) =>
    paymentResource(p, deps.payments.checkoutUrl(p.id), await deps.present.payment(p));

  r.get('/v1/ping', (_req, res) => {
    res.json({ ok: true, account: auth(res).accountId, live: auth(res).livemode } satisfies PingResponse);
  });

  // POST /v1/payments is answered ahead of this router (paymentsCreateRouter); the dashboard's
  // "New payment" (issue 27) is the same use case with the session cookie.
  r.post('/app/payments', requireSession(deps), createHandler(deps));

  r.get('/v1/payments', async (req, res) => {
    const q = parseInput(ListPaymentsQuery, req.query);
    const listed = await deps.payments.list(auth(res).accountId, q, auth(res).livemode);
    if (!listed.ok) throw invalidRequest(listed.message, listed.param);
    res.json({ object: 'list', data: await Promise.all(listed.data.map(present)), has_more: listed.hasMore });
  });

  r.get('/v1/payments/:id', async (req, res) => {
    const p = await deps.payments.getForAccount(auth(res).accountId, String(req.params.id), auth(res).livemode);
    if (!p) throw notFound(`No such payment: ${req.params.id}`);
    res.json(await present(p));
  });
  return r;
}
