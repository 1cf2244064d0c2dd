import { z } from 'zod';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { AgentErrorBody, CheckoutErrorBody, DeveloperErrorBody } from '../http/errors.js';
import { CheckoutRead, CheckoutView, PaymentList, PaymentResource } from '../http/present.js';
import { IdempotencyKeyHeader, PingResponse } from './payments.router.js';
import { KeyCreatedResponse, KeyListResponse, KeyRevokedResponse } from './keys.router.js';
import { AccountResponse, MeResponse, OkResponse } from './auth.router.js';
import { HealthResponse } from './health.router.js';
import {
  WebhookDeliveryAttempt,
  WebhookDeliveryListResponse,
  WebhookDeliveryResource,
  WebhookEndpointResponse,
  WebhookEndpointSetResponse,
  WebhookRedeliverResponse,
  WebhookSecretResponse,
} from './webhooks.router.js';
import { AgentMessageInput, AgentSettleInput } from './agent.router.js';
import { ChatActionInput } from './chat.router.js';
import { FaucetInput } from './dev.router.js';
import { CreatePaymentInput, ListPaymentsQuery, Metadata, PaymentId } from '../payments/schemas.js';
import { CreateKeyInput, CreatedKey, ListedKey } from '../keys/keys.js';
import { LoginInput, PublicAccount, SignupInput } from '../accounts/accounts.js';
import { DeliveryId, ListDeliveriesQuery, SetEndpointInput, WebhookEventPayload } from '../webhooks/schemas.js';
import { AuthorizationRequest, SettleRequest } from '../settlement/settlement.js';
import './openapi.x402.js';

/**
 * Every route the service serves, described once for GET /api/openapi.json. Add yours here
 * with the zod schemas your handler parses with (never a re-typed copy). The test in
 * test/api/openapi.test.ts fails when a served route is missing from this list.
 */

// Shared schemas get a name and appear once under components.schemas.
registerSchema('Payment', PaymentResource);
registerSchema('PaymentList', PaymentList);
registerSchema('Metadata', Metadata);
registerSchema('CheckoutView', CheckoutView);
registerSchema('ApiKey', ListedKey);
registerSchema('CreatedApiKey', CreatedKey);
registerSchema('Account', PublicAccount);
registerSchema('Error', DeveloperErrorBody);
registerSchema('CheckoutError', CheckoutErrorBody);
registerSchema('AgentError', AgentErrorBody);
registerSchema('CreatePaymentInput', CreatePaymentInput);
registerSchema('CreateKeyInput', CreateKeyInput);
registerSchema('SignupInput', SignupInput);
registerSchema('LoginInput', LoginInput);
registerSchema('AgentMessageInput', AgentMessageInput);
registerSchema('AgentSettleInput', AgentSettleInput);
registerSchema('CheckoutRead', CheckoutRead);
registerSchema('ChatActionInput', ChatActionInput);
registerSchema('SetEndpointInput', SetEndpointInput);
registerSchema('FaucetInput', FaucetInput);
registerSchema('AuthorizationRequest', AuthorizationRequest);
registerSchema('SettleRequest', SettleRequest);
registerSchema('Ping', PingResponse);
registerSchema('KeyList', KeyListResponse);
registerSchema('KeyCreated', KeyCreatedResponse);
registerSchema('KeyRevoked', KeyRevokedResponse);
registerSchema('AccountResponse', AccountResponse);
registerSchema('Ok', OkResponse);
registerSchema('Health', HealthResponse);
registerSchema('WebhookSecret', WebhookSecretResponse);
registerSchema('WebhookEndpoint', WebhookEndpointResponse);
registerSchema('WebhookEndpointSet', WebhookEndpointSetResponse);
registerSchema('WebhookEvent', WebhookEventPayload);
registerSchema('WebhookDeliveryAttempt', WebhookDeliveryAttempt);
registerSchema('WebhookDelivery', WebhookDeliveryResource);
registerSchema('WebhookDeliveryList', WebhookDeliveryListResponse);
registerSchema('WebhookRedelivered', WebhookRedeliverResponse);

const err = (description: string) => ({ description, schema: DeveloperErrorBody });
const E400 = err('Invalid request: `error.param` names the field at fault.');
const E401 = err('No key, a malformed or unknown key, or a revoked key (authentication_error).');
const E401s = err('Not signed in (authentication_error).');
const E403 = err('Cookie-authenticated state change from a foreign Origin (permission_error).');
const E404 = err('No such resource for this account.');
const E409 = err('Conflict with an earlier request (invalid_request_error).');
const E413 = err('Request body over 100 kB.');
const E429 = err('Too many requests (rate_limit_error).');

const IdParam = z.object({ id: z.string() });

// ----------------------------------------------------------------- payments (interface 4.1, 4.3)
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
    404: err("No such payment (another account's payment is a 404 too)."),
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

// ------------------------------------------------------------------ checkout (interface 4.2)
registerRoute({
  method: 'get',
  path: '/api/checkout/:id',
  operationId: 'readCheckout',
  summary: 'Read the public checkout view of a payment',
  description: 'No authentication: the payment id is the capability. For polling and server-side reconciliation.',
  tags: ['Checkout'],
  auth: 'none',
  params: z.object({ id: PaymentId }),
  responses: {
    200: { description: 'The checkout view.', schema: CheckoutRead },
    400: { description: 'Not a payment id: `{ok:false, error}`.', schema: CheckoutErrorBody },
    404: { description: 'No such payment: `{ok:false, error:"No such payment: <id>"}`.', schema: CheckoutErrorBody },
  },
});

const CheckoutFailure = z.object({
  ok: z.literal(false),
  error: z.string(),
  reason: z.string().optional().describe('Named reason of a settlement outcome; absent when the request itself was malformed.'),
  redirect: z.string().optional().describe('Where to send the customer when the payment failed for good.'),
});
registerSchema('SettlementError', CheckoutFailure);
const settleResponses = {
  200: { description: 'Settled: `{ok:true, payment, txHash, redirect}`.' },
  202: { description: 'Sent, not yet confirmed: `{ok:true, payment, txHash}`; resubmit the same body for the outcome.' },
  400: { description: 'Bad signature or authorization.', schema: CheckoutFailure },
  402: { description: 'The payer has too little balance.', schema: CheckoutFailure },
  404: { description: 'No such payment.', schema: CheckoutFailure },
  409: { description: 'Already settled, processing or failed.', schema: CheckoutFailure },
  410: { description: 'The checkout session expired.', schema: CheckoutFailure },
  422: { description: 'The transaction would revert or reverted.', schema: CheckoutFailure },
  503: { description: 'The chain is unavailable.', schema: CheckoutFailure },
};

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
    400: { description: 'Invalid request.', schema: CheckoutFailure },
    404: { description: 'No such payment.', schema: CheckoutFailure },
    409: { description: 'Already settled, processing or failed.', schema: CheckoutFailure },
    410: { description: 'The checkout session expired.', schema: CheckoutFailure },
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
  responses: {
    ...settleResponses,
  },
});

// ------------------------------------------------------------------- keys (interface 4.4, 4.5)
registerRoute({
  method: 'get',
  path: '/api/keys',
  operationId: 'listKeys',
  summary: "List the account's live API keys (never a secret)",
  tags: ['Keys'],
  auth: 'sessionOrBearer',
  responses: { 200: { description: 'The keys.', schema: KeyListResponse }, 401: E401 },
});

registerRoute({
  method: 'post',
  path: '/api/keys',
  operationId: 'createKey',
  summary: 'Create an API key; the secret is returned once, in this response only',
  tags: ['Keys'],
  auth: 'sessionOrBearer',
  body: CreateKeyInput,
  responses: { 201: { description: 'Created.', schema: KeyCreatedResponse }, 400: E400, 401: E401, 403: E403 },
});

registerRoute({
  method: 'delete',
  path: '/api/keys/:id',
  operationId: 'revokeKey',
  summary: 'Revoke an API key (effective on the next request)',
  tags: ['Keys'],
  auth: 'sessionOrBearer',
  params: IdParam,
  responses: {
    200: { description: 'Revoked.', schema: KeyRevokedResponse },
    401: E401,
    403: E403,
    404: err("No such live key for this account (another account's key is a 404 too)."),
  },
});

// ----------------------------------------------------------------------- accounts and sessions
registerRoute({
  method: 'post',
  path: '/api/auth/signup',
  operationId: 'signup',
  summary: 'Create a merchant account and sign in (sets the session cookie)',
  tags: ['Accounts'],
  auth: 'none',
  body: SignupInput,
  responses: {
    201: { description: 'Created and signed in.', schema: AccountResponse, headers: { 'Set-Cookie': 'sp_session: httpOnly, SameSite=Lax, Secure on https.' } },
    400: E400,
    403: E403,
    409: err('An account with this email already exists.'),
    429: E429,
  },
});

registerRoute({
  method: 'post',
  path: '/api/auth/login',
  operationId: 'login',
  summary: 'Sign in (sets the session cookie)',
  tags: ['Accounts'],
  auth: 'none',
  body: LoginInput,
  responses: {
    200: { description: 'Signed in.', schema: AccountResponse, headers: { 'Set-Cookie': 'sp_session: httpOnly, SameSite=Lax, Secure on https.' } },
    400: E400,
    401: err('Incorrect email or password.'),
    403: E403,
    429: E429,
  },
});

registerRoute({
  method: 'post',
  path: '/api/auth/logout',
  operationId: 'logout',
  summary: 'End the session and clear the cookie',
  tags: ['Accounts'],
  auth: 'none',
  responses: { 200: { description: 'Signed out.', schema: OkResponse }, 403: E403 },
});

registerRoute({
  method: 'get',
  path: '/api/me',
  operationId: 'me',
  summary: 'The signed-in account (with its custodial wallet)',
  tags: ['Accounts'],
  auth: 'session',
  responses: { 200: { description: 'The account.', schema: MeResponse }, 401: E401s },
});

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

// ----------------------------------------------------------------------- webhooks (DESIGN.md 7)
registerRoute({
  method: 'post',
  path: '/api/webhook-secret',
  operationId: 'rotateWebhookSecret',
  summary: 'Create or rotate the webhook signing secret (whsec_...); the old one stays valid for the overlap',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  responses: {
    200: {
      description: 'The new secret, shown in this response only; after a rotation, also when the old one stops signing.',
      schema: WebhookSecretResponse,
    },
    401: E401,
    403: E403,
  },
});

registerRoute({
  method: 'get',
  path: '/api/webhook-endpoint',
  operationId: 'getWebhookEndpoint',
  summary: "The account's default webhook endpoint and secret status",
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  responses: {
    200: { description: 'The default endpoint (null when none) and the status of the signing secret.', schema: WebhookEndpointResponse },
    401: E401,
  },
});

registerRoute({
  method: 'put',
  path: '/api/webhook-endpoint',
  operationId: 'setWebhookEndpoint',
  summary: "Set (or clear with null) the account's default webhook endpoint",
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  body: SetEndpointInput,
  responses: {
    200: {
      description: 'The endpoint now set (null when cleared), with the signing secret if setting it created one.',
      schema: WebhookEndpointSetResponse,
    },
    400: E400,
    401: E401,
    403: E403,
  },
});

registerRoute({
  method: 'get',
  path: '/api/webhook-deliveries',
  operationId: 'listWebhookDeliveries',
  summary: 'Webhook deliveries with every attempt, newest first',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  query: ListDeliveriesQuery,
  responses: { 200: { description: 'A page of deliveries, newest first.', schema: WebhookDeliveryListResponse }, 400: E400, 401: E401 },
});

registerRoute({
  method: 'get',
  path: '/api/webhook-deliveries/:id',
  operationId: 'getWebhookDelivery',
  summary: 'One webhook delivery with its attempts and event',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: z.object({ id: DeliveryId }),
  responses: { 200: { description: 'The delivery.', schema: WebhookDeliveryResource }, 401: E401, 404: E404 },
});

registerRoute({
  method: 'post',
  path: '/api/webhook-deliveries/:id/redeliver',
  operationId: 'redeliverWebhook',
  summary: 'Send a delivery again (for example a dead one)',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: z.object({ id: DeliveryId }),
  responses: {
    200: { description: 'The delivery after the new attempt, which is already in its log.', schema: WebhookRedeliverResponse },
    401: E401,
    403: E403,
    404: E404,
  },
});

// ------------------------------------------------------------------ agent and chat (DESIGN.md 6)
const ActionResult = z.looseObject({}).describe("The action's result; its fields depend on the action.");
const PendingActionResource = z.object({
  id: z.string(),
  expires_at: z.iso.datetime(),
  description: z.string().describe('The described action, to show the user before they confirm.'),
  status: z.string().describe('pending, executing, done, failed, cancelled or expired.'),
  tool: z.string(),
});
registerSchema('PendingAction', PendingActionResource);
const AgentReply = z
  .object({
    ok: z.boolean(),
    action: z.enum(['transfer', 'bill', 'market', 'payment', 'balance', 'quote', 'activity', 'info', 'none']).optional(),
    reply: z.string().describe('Human-readable; always show it to the user.'),
    reason: z
      .string()
      .optional()
      .describe('Why a 422 was not done, or why a 200 `none` moved nothing (the gate: negation, question, past_tense, reversed_direction, conditional, scheduled, cancellation, reported_speech, statement).'),
    pending_action: PendingActionResource.optional().describe('Present when the turn concerns an action awaiting confirmation.'),
    already: z.boolean().optional().describe('True when a confirm repeats one already carried out.'),
    transfer: ActionResult.optional(),
    bill: ActionResult.optional(),
    market: ActionResult.optional(),
    payment: ActionResult.optional(),
    balance: ActionResult.optional(),
    quote: ActionResult.optional().describe('quote_transfer: what the recipient would get, rate and fee; nothing moved.'),
    activity: ActionResult.optional().describe("list_activity: the caller's recent transfers, bills, stakes and payment links."),
    info: ActionResult.optional(),
  })
  .describe('`action` names what happened; the field of the same name carries its result.');
registerSchema('AgentReply', AgentReply);
// Confirm and cancel call no model and spend no rate-limit budget: only these apply to them.
const actionErrors = {
  400: { description: 'Bad body: `{ok:false, reply}`.', schema: AgentErrorBody },
  413: { description: 'Body over 100 kB: `{ok:false, reply}`.', schema: AgentErrorBody },
  422: { description: 'Understood but not done: `{ok:false, action, reply}`.', schema: AgentReply },
};
const E403agent = { description: 'Cookie-authenticated call from a foreign Origin: `{ok:false, reply}`.', schema: AgentErrorBody };
const agentErrors = {
  ...actionErrors,
  429: { description: 'Rate-limited; see Retry-After.', schema: AgentErrorBody, headers: { 'Retry-After': 'Seconds to wait.' } },
  503: { description: 'The model provider failed after retries.', schema: AgentErrorBody },
};

const AgentPending = z
  .object({
    id: z.string().describe('Send it back as `confirm_action` to execute the action.'),
    expires_at: z.string().describe('ISO 8601 UTC; after it the action can no longer be confirmed (410).'),
    description: z.string().describe('The exact action: amounts in both currencies, rate, fee, recipient. Show it to your user.'),
  })
  .describe('A money-moving action held by `confirm: false`; nothing has moved.');
registerSchema('AgentPending', AgentPending);
const AgentPreviewReply = AgentReply.extend({ pending: AgentPending.optional() });
registerSchema('AgentPreviewReply', AgentPreviewReply);

registerRoute({
  method: 'post',
  path: '/api/agent/settle',
  operationId: 'agentSettle',
  summary: 'Run one agent turn from a plain-language message, or confirm a previewed action',
  description: [
    'Send exactly one of `message` and `confirm_action`.',
    '',
    '- `{message}`: the turn acts at once (it may move money: show your user what will happen first).',
    '- `{message, confirm: false}`: preview. A money-moving action (transfer, bill, stake, resolve, cancel) is held as `pending` ' +
      '`{id, expires_at, description}` and nothing moves; show `description` to your user. Messages that move no money ' +
      '(balance, lists, payment links, markets created) are answered at once, without `pending`.',
    '- `{confirm_action: "<pending.id>"}`: executes exactly the stored action, once. Repeats (also concurrent ones) answer the ' +
      'first outcome with `already: true` and never move money again. Unknown ids, another account\'s ids and actions held by ' +
      'the chat widget or Telegram answer 404; an expired action 410. A confirm spends no rate-limit budget.',
  ].join('\n'),
  tags: ['Agent'],
  auth: 'bearer',
  body: AgentSettleInput,
  responses: {
    200: { description: 'Done, previewed (`pending`), or the first outcome of a confirmed action.', schema: AgentPreviewReply },
    ...agentErrors,
    401: E401,
    404: { description: '`confirm_action`: no such pending action for this key: `{ok:false, action, reply, reason:"not_found"}`.', schema: AgentReply },
    409: { description: '`confirm_action`: the action is being carried out by another request: `reason:"in_progress"`.', schema: AgentReply },
    410: { description: '`confirm_action`: the action expired before it was confirmed; nothing moved: `reason:"expired"`.', schema: AgentReply },
  },
});

registerRoute({
  method: 'post',
  path: '/api/chat',
  operationId: 'chat',
  summary: "The app's chat widget: one agent turn (money moves wait for /chat/confirm)",
  tags: ['Agent'],
  auth: 'session',
  body: AgentMessageInput,
  responses: { 200: { description: 'The reply, possibly with a pending action.', schema: AgentReply }, ...agentErrors, 401: E401s, 403: E403agent },
});

registerRoute({
  method: 'post',
  path: '/api/chat/confirm',
  operationId: 'chatConfirm',
  summary: 'Confirm a pending action: executes exactly the stored arguments',
  tags: ['Agent'],
  auth: 'session',
  body: ChatActionInput,
  responses: { 200: { description: 'Executed.', schema: AgentReply }, ...actionErrors, 401: E401s, 403: E403agent },
});

registerRoute({
  method: 'post',
  path: '/api/chat/cancel',
  operationId: 'chatCancel',
  summary: 'Cancel a pending action',
  tags: ['Agent'],
  auth: 'session',
  body: ChatActionInput,
  responses: { 200: { description: 'Cancelled.', schema: AgentReply }, ...actionErrors, 401: E401s, 403: E403agent },
});

registerRoute({
  method: 'post',
  path: '/api/telegram/webhook',
  operationId: 'telegramWebhook',
  summary: 'Telegram Bot API updates (webhook mode only, when TELEGRAM_WEBHOOK_URL is set)',
  tags: ['Bridges'],
  auth: 'none',
  headers: {
    'X-Telegram-Bot-Api-Secret-Token': { description: 'Must equal TELEGRAM_WEBHOOK_SECRET.', required: true },
  },
  responses: { 200: { description: 'Update accepted.' }, 401: { description: 'Wrong or missing secret token.' } },
});

// --------------------------------------------------------------------------- dev and service
registerRoute({
  method: 'post',
  path: '/api/dev/faucet',
  operationId: 'devFaucet',
  summary: 'Mint test stablecoin and gas money on the embedded chain (not in production)',
  tags: ['Development'],
  auth: 'none',
  body: FaucetInput,
  devOnly: true,
  responses: {
    200: { description: '`{ok:true, address, amount, amount_base_units, mint_tx_hash, gas_tx_hash}`.' },
    400: E400,
    503: err('The chain refused.'),
  },
});

registerRoute({
  method: 'post',
  path: '/api/dev/test-wallet-pay/:id',
  operationId: 'devTestWalletPay',
  summary: "The checkout page's \"Pay with a test wallet\" (not in production)",
  tags: ['Development'],
  auth: 'none',
  params: z.object({ id: PaymentId }),
  devOnly: true,
  responses: settleResponses,
});

registerRoute({
  method: 'get',
  path: '/api/openapi.json',
  operationId: 'openapi',
  summary: 'This document (OpenAPI 3.1, generated from the zod schemas)',
  tags: ['Service'],
  auth: 'none',
  responses: { 200: { description: 'The OpenAPI document.' } },
});

registerRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'healthz',
  summary: 'Liveness',
  tags: ['Service'],
  auth: 'none',
  responses: { 200: { description: 'The process is up.', schema: HealthResponse } },
});

registerRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'readyz',
  summary: 'Readiness: the store and the chain are reachable',
  tags: ['Service'],
  auth: 'none',
  responses: { 200: { description: 'Ready.', schema: HealthResponse }, 503: { description: 'Not ready.', schema: HealthResponse } },
});
import './openapi.merchant.js';
import './openapi.web.js';
