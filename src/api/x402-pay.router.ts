import { Router, type Response } from 'express';
import type { Address, Hex } from 'viem';
import type { Core, ManualCaptureDoor } from '../core/core.js';
import { useErrorShape } from '../http/errors.js';
import { SETTLE_STATUS } from './settlement.router.js';
import { networkOf } from '../x402/exact-evm.js';
import { decodePaymentSignature, encodeHeader, paymentRequired, sessionRequirements, x402UrlFor } from '../x402/session.js';
import { X402Reason } from '../x402/x402-reasons.js';
import { fingerprintOf, paymentIdentifierOf } from '../x402/payment-identifier.js';
import { sessionExtensions } from '../x402/discovery.js';
import { isMppRequest, mppChallenge, mppPay } from './x402-mpp.js';
import { ExactEvmPayload } from '../x402/x402-schemas.js';
import { X402Refusal } from '../checkout-sessions/methods/x402.js';
import type { Payment } from '../payments/payments.js';
import { SettleReason, statusFailure } from '../settlement/settlement.js';
import { z } from 'zod';
import { registerRoute } from '../http/openapi.js';

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
  headers: {
    'PAYMENT-SIGNATURE': { description: 'Base64 JSON of an x402 v2 PaymentPayload: exact (EIP-3009), or auth-capture for a manual-capture session (the payment becomes `authorized`).' },
    Authorization: { description: 'MPP: `Payment <credential>` answering the `WWW-Authenticate: Payment` challenge of the 402 (evm charge).' },
  },
  responses: {
    200: { description: 'Settled; `PAYMENT-RESPONSE` (x402) or `Payment-Receipt` (MPP) carries the transaction.', schema: PaidSession },
    202: { description: 'Sent, not confirmed yet; retry the same header to read the outcome.', schema: PaidSession },
    402: { description: 'Payment required (or the signature does not pay these terms): `PAYMENT-REQUIRED` says what to sign for x402, `WWW-Authenticate: Payment` the MPP challenge.' },
    404: { description: 'No such payment.', schema: SessionRefused },
    400: { description: '`invalid_payment_identifier`: the payment-identifier extension carries a malformed id.', schema: SessionRefused },
    409: { description: 'Settled (or refunded) already, canceled by the merchant, failed, being processed, or `payment_identifier_conflict` (this payer used the identifier with another payload) (`reason` says which).', schema: SessionRefused },
    410: { description: 'The session has expired (or closes too soon to be paid).', schema: SessionRefused },
    503: { description: 'The chain could not be reached; nothing was charged.', schema: SessionRefused },
  },
});


/** Refusals a new signature can fix: answered 402 with the requirements again (x402). */
const PAYABLE_AGAIN = new Set<SettleReason>([
  SettleReason.invalidSignature,
  SettleReason.wrongRecipient,
  SettleReason.wrongAmount,
  SettleReason.wrongNonce,
  SettleReason.wrongValidity,
  SettleReason.notYetValid,
  SettleReason.insufficientBalance,
]);

function refuse(res: Response, reason: SettleReason, message: string): void {
  res.status(SETTLE_STATUS[reason]).json({ ok: false, error: message, reason });
}

/** An answer to a paid request, kept as data so a payment identifier can replay it. */
type Answer = { ask: string } | { status: number; body: Record<string, unknown>; paymentResponse?: string };

function refusal(reason: SettleReason, message: string): Answer {
  return { status: SETTLE_STATUS[reason], body: { ok: false, error: message, reason } };
}

function refuseIdentifier(res: Response, status: 400 | 409, reason: string, message: string): void {
  res.status(status).json({ ok: false, error: message, reason });
}

/** Answers why a session that is not `pending` cannot be paid (the hosted page's own reasons). */
function refuseStatus(res: Response, p: Payment): void {
  const why = statusFailure(p);
  if (why) refuse(res, why.reason, why.message);
  else refuse(res, SettleReason.notFound, `No such payment: ${p.id}`);
}

/** How a refused authorize is answered: the identifier's own codes (as for `exact`), else the step's. */
function manualRefusal(r: { status: number; reason: string }): { status: number; reason: string } | undefined {
  if (r.reason === X402Reason.invalidPaymentIdentifier) return { status: 400, reason: r.reason };
  if (r.reason === X402Reason.paymentIdentifierConflict) return { status: 409, reason: r.reason };
  return undefined;
}

/**
 * A manual-capture session's x402 door: 402 with its auth-capture requirement (and the same
 * extensions as an `exact` session: payment-identifier, bazaar when listed), or the authorize step.
 * The step's idempotency key is the payment-identifier id when the payload has one (AuthCaptureService).
 */
async function payManual(mc: ManualCaptureDoor, p: Payment, payTo: Address, url: string, description: string, header: string | undefined, res: Response): Promise<void> {
  const requirements = p.status === 'pending' ? mc.requirements(p, payTo) : undefined;
  const ask = (error: string) => {
    const message = paymentRequired(url, description, requirements ? [requirements] : [], error, sessionExtensions(p));
    res.set('PAYMENT-REQUIRED', encodeHeader(message));
    res.status(402).json({ ...message, reason: error });
  };
  const payload = header ? decodePaymentSignature(header) : undefined;
  if (p.status !== 'pending') {
    // The same authorization again after it went through: its answer again.
    const again = payload && p.paymentInfoHash ? await mc.authorize(p, payTo, payload) : undefined;
    if (again?.ok) return void res.set('PAYMENT-RESPONSE', encodeHeader(again.settle)).status(200).json({ ok: true, id: p.id, status: again.payment.status, tx_hash: again.settle.transaction });
    const id = again && manualRefusal(again);
    if (id && again && !again.ok) return void res.status(id.status).json({ ok: false, error: again.message, reason: id.reason });
    return refuseStatus(res, p);
  }
  if (!requirements) return refuse(res, SettleReason.expired, 'This payment session expires too soon to be paid.');
  if (!header) return ask('PAYMENT-SIGNATURE header is required');
  if (!payload) return ask(X402Reason.invalidPayload);
  const r = await mc.authorize(p, payTo, payload);
  if (r.ok) return void res.set('PAYMENT-RESPONSE', encodeHeader(r.settle)).status(200).json({ ok: true, id: p.id, status: r.payment.status, tx_hash: r.settle.transaction });
  const id = manualRefusal(r);
  if (id) return void res.status(id.status).json({ ok: false, error: r.message, reason: id.reason });
  if (r.status === 402) return ask(r.reason);
  if (r.settle) res.set('PAYMENT-RESPONSE', encodeHeader(r.settle));
  res.status(r.status).json({ ok: false, error: r.message, reason: r.reason });
}

/**
 * x402 door of a hosted payment session (docs/x402.md): `GET` without payment answers 402 with
 * the session's requirements; with a `PAYMENT-SIGNATURE` it settles the session through the same
 * settlement core as the hosted page (exactly once, `payment.settled` webhook, tx hash).
 */
export function x402PayRouter(deps: Core): Router {
  const r = Router();
  r.use('/checkout', useErrorShape('checkout'));
  r.get('/checkout/:id/x402', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const id = String(req.params.id);
    const p = await deps.payments.get(id);
    if (!p) return refuse(res, SettleReason.notFound, `No such payment: ${id}`);
    // The session's one view (src/checkout-sessions): its recipient, name and amount as every door shows them.
    const view = await deps.checkoutSessions.viewOf(p, { deposit: false, receipt: false });
    const payTo = view.payTo as Address | undefined;
    // The session's terms name its mode's chain (docs/test-mode.md).
    const port = deps.forMode(view.livemode).x402Port;
    if (!payTo) return refuse(res, SettleReason.notFound, `No such payment: ${id}`);
    const url = x402UrlFor(deps.config.PUBLIC_URL, id);
    const description = `${view.merchantName}: ${view.description || `payment ${id}`} (${view.stablecoinAmount} ${view.tokenSymbol})`;
    // The requirements are the view's: its amount in base units and its expiry, while it can be paid.
    const requirements = view.status === 'pending' ? sessionRequirements(port, { payTo, amount: BigInt(view.stablecoinBaseUnits), expiresAt: view.expiresAt }) : undefined;
    const ask = (error: string, extra: Record<string, unknown> = {}) => {
      const message = paymentRequired(url, description, requirements ? [requirements] : [], error, sessionExtensions(p));
      res.set('PAYMENT-REQUIRED', encodeHeader(message));
      res.status(402).json({ ...message, ...extra });
    };

    // Manual capture (x402 auth-capture): the agent authorizes, the merchant captures later.
    if (p.captureMethod === 'manual' && deps.manualCapture) return payManual(deps.manualCapture, p, payTo, url, description, req.get('PAYMENT-SIGNATURE'), res);

    const mppTerms = { payment: p, payTo, windowSeconds: requirements?.maxTimeoutSeconds ?? 600, description };
    // MPP beside x402 (src/api/x402-mpp.ts): `Authorization: Payment` is an MPP credential.
    if (isMppRequest(req)) {
      // A settled or settling session still answers its own credential again (the same receipt).
      if (p.status !== 'pending' && p.status !== 'settled' && p.status !== 'processing') return refuseStatus(res, p);
      if (p.status === 'pending' && !requirements) return refuse(res, SettleReason.expired, 'This payment session expires too soon to be paid.');
      const answer = await mppPay(deps, req, mppTerms);
      return void res.status(answer.status).set(answer.headers).json(answer.body);
    }

    const header = req.get('PAYMENT-SIGNATURE');
    if (!header) {
      if (p.status !== 'pending') return refuseStatus(res, p);
      if (!requirements) return refuse(res, SettleReason.expired, 'This payment session expires too soon to be paid.');
      const challenge = await mppChallenge(deps, req, mppTerms);
      if (challenge) res.set('WWW-Authenticate', challenge);
      return ask('PAYMENT-SIGNATURE header is required');
    }

    const payload = decodePaymentSignature(header);
    if (!payload) return ask(X402Reason.invalidPayload);
    const pid = paymentIdentifierOf(payload);
    if (pid.invalid) return refuseIdentifier(res, 400, X402Reason.invalidPaymentIdentifier, pid.invalid);
    const payer = ExactEvmPayload.safeParse(payload.payload).data?.authorization.from;

    /** Checks and settles this payload; the answer is replayable (status, body, PAYMENT-RESPONSE). */
    const attempt = async (): Promise<Answer> => {
      // The x402 adapter (src/checkout-sessions/methods/x402.ts) checks it against the session's
      // terms and hands settlement the authorization with the payer-nonce rule; the settlement
      // core decides: a settled session answers its own authorization again (200) and refuses
      // any other; expired, failed or processing sessions move nothing.
      const result = await deps.checkoutSessions.pay(id, { method: 'x402', payload, requirements });
      if (!result.ok) {
        if (result.reason === X402Refusal.paymentRequired) return { ask: result.message };
        return PAYABLE_AGAIN.has(result.reason) ? { ask: result.reason } : refusal(result.reason, result.message);
      }
      const settled = result.payment.status === 'settled';
      const response = {
        success: settled,
        ...(settled ? {} : { errorReason: X402Reason.settlementPending }),
        payer: (result.payment.payer as Address | undefined) ?? '',
        transaction: (result.txHash as Hex | undefined) ?? '',
        network: networkOf(port),
      };
      return { status: settled ? 200 : 202, body: { ok: true, id, status: result.payment.status, tx_hash: result.txHash ?? null }, paymentResponse: encodeHeader(response) };
    };

    let answer: Answer;
    if (pid.id && payer) {
      // payment-identifier: per payment and payer; a settled answer is stored and replayed.
      const r = await deps.facilitator.ids.run({ scope: `pay:${id}`, payer, id: pid.id }, fingerprintOf(payload), async () => {
        const value = await attempt();
        return { value, final: 'status' in value && value.status === 200 };
      });
      if (r.kind === 'conflict') return refuseIdentifier(res, 409, X402Reason.paymentIdentifierConflict, 'This payment identifier was used with another payment payload.');
      answer = r.value;
    } else {
      answer = await attempt();
    }
    if ('ask' in answer) return ask(answer.ask, { reason: answer.ask });
    if (answer.paymentResponse) res.set('PAYMENT-RESPONSE', answer.paymentResponse);
    res.status(answer.status).json(answer.body);
  });
  return r;
}
