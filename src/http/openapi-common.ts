import { z } from 'zod';
import { registerSchema, type RouteResponse } from './openapi.js';
import { DeveloperErrorBody } from './errors.js';
import { PaymentList, PaymentResource } from './present.js';
import { Metadata } from '../payments/payment-schemas.js';
import { WebhookEventPayload } from '../webhooks/webhook-schemas.js';

/**
 * The pieces of the OpenAPI description that several routers' routes share: the documented
 * error responses and the named schemas more than one router answers with. Each route is
 * registered next to its handler (in the router that serves it); a schema only one router uses
 * is registered there too. Importing this module registers the shared schemas.
 */

registerSchema('Payment', PaymentResource);
registerSchema('PaymentList', PaymentList);
registerSchema('Metadata', Metadata);
registerSchema('Error', DeveloperErrorBody);
// The webhook body: webhook deliveries carry it and GET /v1/events/:id answers with it.
registerSchema('WebhookEvent', WebhookEventPayload);

/** A documented error in the developer error shape (`{error: {type, message, param?}}`). */
export const err = (description: string): RouteResponse => ({ description, schema: DeveloperErrorBody });
export const E400 = err('Invalid request: `error.param` names the field at fault.');
export const E401 = err('No key, a malformed or unknown key, or a revoked key (authentication_error).');
/** Bearer-key routes of the x402 facilitator and MCP. */
export const E401key = err('No key, or an unknown or revoked key (authentication_error).');
export const E401s = err('Not signed in (authentication_error).');
/** Session-only routes of the web app and the checkout page. */
export const E401app = err('Not signed in (authentication_error). A bearer key is not accepted: these routes are for the app.');
export const E403 = err('Cookie-authenticated state change from a foreign Origin (permission_error).');
export const E404 = err('No such resource for this account.');
export const E404payment = err("No such payment (another account's payment is a 404 too).");
export const E409 = err('Conflict with an earlier request (invalid_request_error).');
export const E413 = err('Request body over 100 kB.');
export const E429 = err('Too many requests (rate_limit_error).');

/**
 * The checkout-shaped settle answers (src/http/settle-answer.ts) of the checkout page's settle
 * and of the dev-only test-wallet pay.
 */
export const SettlementError = registerSchema(
  'SettlementError',
  z.object({
    ok: z.literal(false),
    error: z.string(),
    reason: z.string().optional().describe('Named reason of a settlement outcome; absent when the request itself was malformed.'),
    redirect: z.string().optional().describe('Where to send the customer when the payment failed for good.'),
  }),
);
export const settleResponses: Record<number, RouteResponse> = {
  200: { description: 'Settled: `{ok:true, payment, txHash, redirect}`.' },
  202: { description: 'Sent, not yet confirmed: `{ok:true, payment, txHash}`; resubmit the same body for the outcome.' },
  400: { description: 'Bad signature or authorization.', schema: SettlementError },
  402: { description: 'The payer has too little balance.', schema: SettlementError },
  404: { description: 'No such payment.', schema: SettlementError },
  409: { description: 'Already settled, processing or failed.', schema: SettlementError },
  410: { description: 'The checkout session expired.', schema: SettlementError },
  422: { description: 'The transaction would revert or reverted.', schema: SettlementError },
  503: { description: 'The chain is unavailable.', schema: SettlementError },
};
