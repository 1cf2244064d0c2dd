import { z } from 'zod';
import { registerRoute, type RouteResponse } from './openapi.js';
import { DeveloperErrorBody } from './errors.js';
import { PaymentResource } from './present.js';
import { PaymentId } from '../payments/schemas.js';
import { CancelPaymentInput } from '../payments/cancel.js';
import { EventId, ListEventsQuery } from '../events/events.js';
import { EventList } from './events.router.js';
import { WebhookEventPayload } from '../webhooks/schemas.js';

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
