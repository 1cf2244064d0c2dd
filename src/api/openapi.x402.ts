/** OpenAPI entries for the x402 facilitator (docs/x402.md); imported by openapi.routes.ts. */
import { registerRoute, registerSchema } from '../http/openapi.js';
import { z } from 'zod';
import { DeveloperErrorBody } from '../http/errors.js';
import { FacilitatorRequest, SettleResponse, SupportedResponse, VerifyResponse, X402Usage } from '../x402/schemas.js';

registerSchema('X402FacilitatorRequest', FacilitatorRequest);
registerSchema('X402VerifyResponse', VerifyResponse);
registerSchema('X402SettleResponse', SettleResponse);
registerSchema('X402SupportedResponse', SupportedResponse);
registerSchema('X402Usage', X402Usage);

const E401 = { description: 'No key, or an unknown or revoked key (authentication_error).', schema: DeveloperErrorBody };

registerRoute({
  method: 'get',
  path: '/api/x402/supported',
  operationId: 'x402Supported',
  summary: 'x402 v2: the payment kinds this facilitator settles',
  description: 'Scheme `exact` (EIP-3009) on `eip155:<chainId>` of the configured chain; `signers` lists the relayer that pays the gas.',
  tags: ['x402'],
  auth: 'bearer',
  responses: { 200: { description: 'Supported kinds.', schema: SupportedResponse }, 401: E401 },
});

registerRoute({
  method: 'post',
  path: '/api/x402/verify',
  operationId: 'x402Verify',
  summary: 'x402 v2: verify a payment payload against payment requirements',
  description:
    'Checks the signature recovers to `from`, recipient, exact amount, validity window, nonce unused, balance and a simulation. ' +
    'Moves nothing. A well-formed request is answered 200 with `isValid`; `invalidReason` uses the x402 reason names.',
  tags: ['x402'],
  auth: 'bearer',
  body: FacilitatorRequest,
  responses: {
    200: { description: 'The verdict.', schema: VerifyResponse },
    400: { description: 'Malformed request (`invalid_payload` or `invalid_payment_requirements`).', schema: VerifyResponse },
    401: E401,
  },
});

registerRoute({
  method: 'post',
  path: '/api/x402/settle',
  operationId: 'x402Settle',
  summary: 'x402 v2: settle a payment on-chain (gas paid by the service)',
  description:
    'Re-verifies, relays `transferWithAuthorization` from the relayer and answers once the receipt is mined: `success: true` only then. ' +
    'Concurrent settles of one authorization share one transaction; later ones answer `invalid_exact_evm_nonce_already_used` ' +
    'with the hash that used it. The gas is booked to the calling account (see `GET /api/x402/usage`).',
  tags: ['x402'],
  auth: 'bearer',
  body: FacilitatorRequest,
  responses: {
    200: { description: 'The outcome.', schema: SettleResponse },
    400: { description: 'Malformed request.', schema: SettleResponse },
    401: E401,
  },
});

registerRoute({
  method: 'get',
  path: '/api/x402/usage',
  operationId: 'x402Usage',
  summary: "Gas the relayer spent on this account's x402 settles",
  tags: ['x402'],
  auth: 'bearer',
  responses: { 200: { description: 'Totals and the most recent settlements.', schema: X402Usage }, 401: E401 },
});

const PaidSession = z.object({
  ok: z.literal(true),
  id: z.string(),
  status: z.string().describe('`settled`, or `processing` while the receipt is not in yet (202).'),
  tx_hash: z.string().nullable(),
});
const SessionRefused = z.object({ ok: z.literal(false), error: z.string(), reason: z.string() });

registerRoute({
  method: 'get',
  path: '/api/checkout/:id/x402',
  operationId: 'payCheckoutX402',
  summary: 'Pay a payment session over x402 (the `x402_url` of a payment)',
  description:
    'No authentication: the payment id is the capability. Without a `PAYMENT-SIGNATURE` header: 402 with the session ' +
    'requirements in `PAYMENT-REQUIRED` (exact amount in base units, the session pay_to, a window closing before the session ' +
    'expiry). With one: settles the session exactly as the hosted page does and answers 200 with `PAYMENT-RESPONSE`.',
  tags: ['x402', 'Checkout'],
  auth: 'none',
  headers: { 'PAYMENT-SIGNATURE': { description: 'Base64 JSON of an x402 v2 PaymentPayload (exact, EIP-3009).' } },
  responses: {
    200: { description: 'Settled; `PAYMENT-RESPONSE` carries the transaction.', schema: PaidSession },
    202: { description: 'Sent, not confirmed yet; retry the same header to read the outcome.', schema: PaidSession },
    402: { description: 'Payment required (or the signature does not pay these terms): `PAYMENT-REQUIRED` says what to sign.' },
    404: { description: 'No such payment.', schema: SessionRefused },
    409: { description: 'Settled already (by another authorization), failed, or being processed.', schema: SessionRefused },
    410: { description: 'The session has expired (or closes too soon to be paid).', schema: SessionRefused },
    503: { description: 'The chain could not be reached; nothing was charged.', schema: SessionRefused },
  },
});


// ------------------------------------------------------------------ MCP (docs/mcp.md)
registerRoute({
  method: 'post',
  path: '/api/mcp',
  operationId: 'mcp',
  summary: "MCP (Streamable HTTP, stateless): the agent's tools for an AI assistant",
  description:
    'JSON-RPC 2.0 per the Model Context Protocol (`initialize`, `tools/list`, `tools/call`), bearer key. Tools that move money ' +
    'return a pending action and a confirmation link (`structuredContent.pending_confirmation`); nothing moves until the signed-in ' +
    'account holder confirms it on that page.',
  tags: ['MCP'],
  auth: 'bearer',
  body: z.object({ jsonrpc: z.literal('2.0'), method: z.string(), id: z.union([z.string(), z.number()]).optional(), params: z.record(z.string(), z.unknown()).optional() }),
  responses: { 200: { description: 'The JSON-RPC response.' }, 202: { description: 'A notification was accepted.' }, 401: E401 },
});
for (const method of ['get', 'delete'] as const) {
  registerRoute({
    method,
    path: '/api/mcp',
    operationId: `mcp${method === 'get' ? 'Stream' : 'EndSession'}`,
    summary: 'Not offered: the MCP endpoint is stateless (405)',
    tags: ['MCP'],
    auth: 'bearer',
    responses: { 405: { description: 'Use POST.' }, 401: E401 },
  });
}
