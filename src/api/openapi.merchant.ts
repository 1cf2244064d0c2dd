import { z } from 'zod';
import { registerRoute, type RouteResponse } from '../http/openapi.js';
import { DeveloperErrorBody } from '../http/errors.js';
import { PaymentResource } from '../http/present.js';
import { PaymentId } from '../payments/schemas.js';
import { CancelPaymentInput } from '../payments/cancel.js';
import { EventId, ListEventsQuery } from '../events/events.js';
import { EventList } from './events.router.js';
import { WebhookEventPayload } from '../webhooks/schemas.js';
import { CreateEndpointInput, EndpointId, UpdateEndpointInput } from '../webhooks/endpoints.js';
import {
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointOne,
  WebhookEndpointResource,
} from './webhook-endpoints.router.js';
import { registerSchema } from '../http/openapi.js';
import { CreateRefundInput, ListRefundsQuery, RefundId, RefundList, RefundResource } from '../refunds/schemas.js';
import { IdempotencyKeyHeader } from './payments.router.js';

/**
 * Issue 15's merchant operations (cancel, refunds, events, webhook endpoints), described for
 * GET /api/openapi.json. Kept apart from openapi.routes.ts, which imports this file.
 */

const err = (description: string) => ({ description, schema: DeveloperErrorBody });
const E400 = err('Invalid request: `error.param` names the field at fault.');
const E401 = err('No key, a malformed or unknown key, or a revoked key (authentication_error).');
const E401s = err('Not signed in (authentication_error).');
const E403 = err('Cookie-authenticated state change from a foreign Origin (permission_error).');
const E404 = err("No such payment (another account's payment is a 404 too).");
const PaymentParams = z.object({ id: PaymentId });

// ------------------------------------------------------------------------------------ cancel
const cancelDescription =
  'A `pending` payment becomes `canceled` (terminal) and `payment.canceled` is sent. The hosted page then says the ' +
  'merchant canceled it and no authorization can settle it any more. Canceling a canceled payment returns it again (200). ' +
  'A settled payment cannot be canceled (409): refund it with `POST /api/v1/payments/{id}/refunds`. A payment that is ' +
  '`processing` (the customer is paying right now), `failed` or `expired` is a 409 too.';
for (const [path, auth, unauth] of [
  ['/api/v1/payments/:id/cancel', 'bearer', E401],
  ['/api/app/payments/:id/cancel', 'session', E401s],
] as const) {
  registerRoute({
    method: 'post',
    path,
    operationId: auth === 'bearer' ? 'cancelPayment' : 'appCancelPayment',
    summary: auth === 'bearer' ? 'Cancel a pending payment' : 'Cancel a pending payment (dashboard, session cookie)',
    description: cancelDescription,
    tags: ['Payments'],
    auth,
    params: PaymentParams,
    body: CancelPaymentInput,
    responses: {
      ...(auth === 'session' ? ({ 403: E403 } as Record<number, RouteResponse>) : {}),
      200: { description: 'The payment, now `canceled`.', schema: PaymentResource },
      400: E400,
      401: unauth,
      404: E404,
      409: err('Not cancelable: settled (refund it instead), processing, failed or expired.'),
      503: err('The chain could not be reached to check an earlier settle attempt (api_error); retry.'),
    },
  });
}

// ------------------------------------------------------------------------------------ events
registerRoute({
  method: 'get',
  path: '/api/v1/events',
  operationId: 'listEvents',
  summary: "List the account's events, newest first (the webhook bodies, kept at least 30 days)",
  description:
    'Every event a payment produced, whether or not a webhook endpoint was set, as the exact JSON its webhook carries. ' +
    'Page with `limit` and `starting_after` (the last id of the previous page); filter by `type`, `payment` and ' +
    '`created_gte` / `created_lte` (unix seconds, inclusive). A receiver that was down pages through what it missed.',
  tags: ['Events'],
  auth: 'bearer',
  query: ListEventsQuery,
  responses: {
    200: { description: 'A page of events.', schema: EventList },
    400: E400,
    401: E401,
  },
});

registerRoute({
  method: 'get',
  path: '/api/v1/events/:id',
  operationId: 'getEvent',
  summary: 'Read one event (the exact webhook body)',
  tags: ['Events'],
  auth: 'bearer',
  params: z.object({ id: EventId }),
  responses: {
    200: { description: 'The event.', schema: WebhookEventPayload },
    401: E401,
    404: err("No such event (another account's event is a 404 too)."),
  },
});

// ------------------------------------------------------------------------- webhook endpoints
registerSchema('WebhookEndpointResource', WebhookEndpointResource);
const E401b = err('Not signed in and no valid key (authentication_error).');
const EndpointParams = z.object({ id: EndpointId });
registerRoute({
  method: 'get',
  path: '/api/webhook-endpoints',
  operationId: 'listWebhookEndpoints',
  summary: "List the account's webhook endpoints (the default one first), with their status",
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  responses: { 200: { description: 'The endpoints.', schema: WebhookEndpointList }, 401: E401b },
});
registerRoute({
  method: 'post',
  path: '/api/webhook-endpoints',
  operationId: 'addWebhookEndpoint',
  summary: 'Add a webhook endpoint, optionally for some event types only',
  description: `Every event of the account whose type the endpoint subscribes to is sent to it (at most 16 added endpoints).`,
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  body: CreateEndpointInput,
  responses: {
    201: { description: 'Added.', schema: WebhookEndpointCreated },
    400: E400,
    401: E401b,
    403: E403,
    409: err('Too many endpoints.'),
  },
});
registerRoute({
  method: 'get',
  path: '/api/webhook-endpoints/:id',
  operationId: 'getWebhookEndpointById',
  summary: 'Read a webhook endpoint (status `disabled` after a 410 Gone)',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: EndpointParams,
  responses: { 200: { description: 'The endpoint.', schema: WebhookEndpointOne }, 401: E401b, 404: err('No such endpoint.') },
});
registerRoute({
  method: 'patch',
  path: '/api/webhook-endpoints/:id',
  operationId: 'updateWebhookEndpointById',
  summary: 'Change, enable (`disabled:false`) or disable a webhook endpoint',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: EndpointParams,
  body: UpdateEndpointInput,
  responses: {
    200: { description: 'The endpoint.', schema: WebhookEndpointOne },
    400: E400,
    401: E401b,
    403: E403,
    404: err('No such endpoint.'),
  },
});
registerRoute({
  method: 'delete',
  path: '/api/webhook-endpoints/:id',
  operationId: 'deleteWebhookEndpointById',
  summary: 'Delete a webhook endpoint',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: EndpointParams,
  responses: { 200: { description: '`{ok:true}`.' }, 401: E401b, 403: E403, 404: err('No such endpoint.') },
});

// ------------------------------------------------------------------------------------ refunds
registerSchema('Refund', RefundResource);
registerSchema('RefundList', RefundList);
const refundDescription =
  "Full by default (`amount` omitted), or partial; several partial refunds up to the settled amount. `amount` is in the payment's " +
  'currency; the stablecoin sent is the same share of the stablecoin amount locked at creation (so at the locked rate), and the ' +
  'refund that completes the payment takes exactly what is left. Paid on-chain from the merchant\'s settlement wallet back to the ' +
  'address that paid, gas paid by the service, exactly once (the nonce is derived from the refund id). The answer waits for the ' +
  'receipt: `succeeded`, `failed` (nothing moved; create a new refund to retry) or `pending` (finished by the reconciler). ' +
  'Refused (400 invalid_request_error, the message says why): the payment is not settled, the amount is more than what is left, ' +
  'the payment settled to an external `payout_address` (the service holds no key for it), or the settlement wallet holds too little.';
for (const [path, auth] of [
  ['/api/v1/payments/:id/refunds', 'bearer'],
  ['/api/app/payments/:id/refunds', 'session'],
] as const) {
  const bearer = auth === 'bearer';
  registerRoute({
    method: 'post',
    path,
    operationId: bearer ? 'createRefund' : 'appCreateRefund',
    summary: bearer ? 'Refund a settled payment (full, partial, several)' : 'Refund a settled payment (dashboard, session cookie)',
    description: refundDescription,
    tags: ['Refunds'],
    auth,
    params: PaymentParams,
    body: CreateRefundInput,
    headers: {
      'Idempotency-Key': { description: 'Makes a retry safe: the same key and body replay the first refund; another body is a 409.', schema: IdempotencyKeyHeader },
    },
    responses: {
      ...(bearer ? {} : ({ 403: E403 } as Record<number, RouteResponse>)),
      201: {
        description: 'The refund (`succeeded`, `failed` or `pending`).',
        schema: RefundResource,
        headers: { 'Idempotent-Replayed': 'true when this answer replays an earlier request with the same Idempotency-Key.' },
      },
      400: err('Refused: not settled, more than is left, external payout_address, too little in the settlement wallet, or a bad field.'),
      401: bearer ? E401 : E401s,
      404: E404,
      409: err('Idempotency-Key reused with a different body.'),
      503: err('The chain could not be reached (api_error); nothing was created.'),
    },
  });
  registerRoute({
    method: 'get',
    path,
    operationId: bearer ? 'listRefunds' : 'appListRefunds',
    summary: bearer ? "List a payment's refunds, newest first" : "List a payment's refunds (dashboard, session cookie)",
    tags: ['Refunds'],
    auth,
    params: PaymentParams,
    query: ListRefundsQuery,
    responses: { 200: { description: 'A page of refunds.', schema: RefundList }, 400: E400, 401: bearer ? E401 : E401s, 404: E404 },
  });
}
registerRoute({
  method: 'get',
  path: '/api/v1/refunds/:id',
  operationId: 'getRefund',
  summary: 'Read a refund',
  tags: ['Refunds'],
  auth: 'bearer',
  params: z.object({ id: RefundId }),
  responses: { 200: { description: 'The refund.', schema: RefundResource }, 401: E401, 404: err("No such refund (another account's refund is a 404 too).") },
});
