import { Router, type Response } from 'express';
import type { Core } from '../core/core.js';
import { auth, requireKey } from '../http/auth.js';
import { FacilitatorRequest, SettleResponse, SupportedResponse, VerifyResponse, X402Usage } from '../x402/x402-schemas.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E401key } from '../http/openapi-common.js';
import { X402Reason } from '../x402/x402-reasons.js';

registerSchema('X402FacilitatorRequest', FacilitatorRequest);
registerSchema('X402VerifyResponse', VerifyResponse);
registerSchema('X402SettleResponse', SettleResponse);
registerSchema('X402SupportedResponse', SupportedResponse);
registerSchema('X402Usage', X402Usage);

registerRoute({
  method: 'get',
  path: '/api/x402/supported',
  operationId: 'x402Supported',
  summary: 'x402 v2: the payment kinds this facilitator settles',
  description: 'Scheme `exact` (EIP-3009) on `eip155:<chainId>` of the configured chain; `signers` lists the relayer that pays the gas.',
  tags: ['x402'],
  auth: 'bearer',
  responses: { 200: { description: 'Supported kinds.', schema: SupportedResponse }, 401: E401key },
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
    400: { description: 'Malformed request (`invalid_payload`, `invalid_payment_requirements` or `invalid_payment_identifier`).', schema: VerifyResponse },
    401: E401key,
    409: { description: '`payment_identifier_conflict`: this payer used the payment identifier with another payload.', schema: VerifyResponse },
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
    'with the hash that used it. With the `payment-identifier` extension the same identifier and payload from the same payer ' +
    'get the first successful answer again, another payload 409. The gas is booked to the calling account (see `GET /api/x402/usage`).',
  tags: ['x402'],
  auth: 'bearer',
  body: FacilitatorRequest,
  responses: {
    200: { description: 'The outcome.', schema: SettleResponse },
    400: { description: 'Malformed request (or `invalid_payment_identifier`).', schema: SettleResponse },
    401: E401key,
    409: { description: '`payment_identifier_conflict`: this payer used the payment identifier with another payload; nothing was sent.', schema: SettleResponse },
  },
});

registerRoute({
  method: 'get',
  path: '/api/x402/usage',
  operationId: 'x402Usage',
  summary: "Gas the relayer spent on this account's x402 settles",
  tags: ['x402'],
  auth: 'bearer',
  responses: { 200: { description: 'Totals and the most recent settlements.', schema: X402Usage }, 401: E401key },
});

/** A body that is not a facilitator request: the reason names the part at fault. */
function badRequest(body: unknown): { reason: X402Reason; message: string } | { req: FacilitatorRequest } {
  const r = FacilitatorRequest.safeParse(body ?? {});
  if (r.success) return { req: r.data };
  const issue = r.error.issues[0]!;
  const where = issue.path.map(String).join('.') || 'body';
  const reason = issue.path[0] === 'paymentRequirements' ? X402Reason.invalidPaymentRequirements : X402Reason.invalidPayload;
  return { reason, message: `${where}: ${issue.message}` };
}

/** The payment-identifier extension's own statuses (409 conflict, 400 bad id); every other verdict is 200. */
function statusOf(reason: string | undefined): number {
  if (reason === X402Reason.paymentIdentifierConflict) return 409;
  if (reason === X402Reason.invalidPaymentIdentifier) return 400;
  return 200;
}

function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
}

/**
 * x402 v2 facilitator (docs/x402.md): the merchant's secret key authenticates every call; a
 * well-formed request is answered 200 with the verdict, a malformed one 400 in the same shape.
 */
export function x402Router(deps: Core): Router {
  const r = Router();
  r.use('/x402', requireKey(deps));

  r.get('/x402/supported', (_req, res) => {
    // A key's mode picks the network: a test key's facilitator settles on test mode's chain only.
    res.json(deps.forMode(auth(res).livemode).facilitator.supported());
  });

  r.post('/x402/verify', async (req, res) => {
    noStore(res);
    const parsed = badRequest(req.body);
    if (!('req' in parsed)) {
      res.status(400).json({ isValid: false, invalidReason: parsed.reason, invalidMessage: parsed.message });
      return;
    }
    const verdict = await deps.forMode(auth(res).livemode).facilitator.verify(auth(res).accountId, parsed.req);
    res.status(statusOf(verdict.invalidReason)).json(verdict);
  });

  r.post('/x402/settle', async (req, res) => {
    noStore(res);
    const parsed = badRequest(req.body);
    if (!('req' in parsed)) {
      res.status(400).json({ success: false, errorReason: parsed.reason, errorMessage: parsed.message, transaction: '', network: deps.forMode(auth(res).livemode).facilitator.network });
      return;
    }
    const outcome = await deps.forMode(auth(res).livemode).facilitator.settle(auth(res).accountId, parsed.req);
    res.status(statusOf(outcome.errorReason)).json(outcome);
  });

  r.get('/x402/usage', async (_req, res) => {
    noStore(res);
    res.json(await deps.facilitator.usage(auth(res).accountId));
  });
  return r;
}
