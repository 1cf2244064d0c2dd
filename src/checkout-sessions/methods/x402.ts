/**
 * x402 (and MPP beside it) on a session's `x402_url` (docs/x402.md; src/api/x402-pay.router.ts,
 * src/api/x402-mpp.ts): the agent signs an EIP-3009 authorization of its own, with a nonce and
 * window it chose, in an x402 PaymentPayload. This adapter holds the x402 rule:
 *
 * - while the session is pending, the payload is checked against the session's requirements
 *   (network, asset, recipient, window, amount: checkExact), unless MPP's facilitator already
 *   verified it (`checkedBy: 'mpp'`);
 * - settlement compares it by PAYER_NONCE_TERMS: our recipient and exact amount, a window that
 *   closes no later than the session, and the payer's nonce kept with the attempt. The payment
 *   still settles once: one authorization is in flight at a time, and every attempted (payer,
 *   nonce) is kept and checked on-chain.
 *
 * A session no longer pending still takes the payload (the same authorization again answers its
 * outcome again); settlement refuses any other.
 */
import { fail } from '../../lib/results.js';
import { comparePayerNonceAuthorization, SettleReason, SettleRequest, statusFailure, type AuthorizationTerms } from '../../settlement/settlement.js';
import { checkExact } from '../../x402/exact-evm.js';
import { X402Reason } from '../../x402/x402-reasons.js';
import type { PaymentPayload, PaymentRequirements } from '../../x402/x402-schemas.js';
import type { PaymentMethod } from '../pay.js';

export const X402Refusal = {
  /** The payload does not pay these terms; `message` is the x402 reason (answered 402 with the requirements again). */
  paymentRequired: 'payment_required',
} as const;
export type X402Refusal = (typeof X402Refusal)[keyof typeof X402Refusal];

export interface X402Input {
  method: 'x402';
  payload: PaymentPayload;
  /** The session's exact requirements (undefined: it closes too soon to be paid). */
  requirements?: PaymentRequirements | undefined;
  /** Verified already by the MPP facilitator (x402-mpp.ts): no requirements to check here. */
  checkedBy?: 'mpp';
}

/** The payer chose the nonce and the window (closing no later than the session expiry). */
export const PAYER_NONCE_TERMS: AuthorizationTerms = {
  compare: comparePayerNonceAuthorization,
  chosenNonce: (got) => got.nonce,
};

export const x402: PaymentMethod<X402Input, X402Refusal> = {
  name: 'x402',
  async authorize({ payment, x402Port }, { payload, requirements, checkedBy }) {
    let signed: unknown = payload.payload;
    if (payment.status === 'pending' && checkedBy !== 'mpp') {
      if (!requirements) return fail(SettleReason.expired, 'This payment session expires too soon to be paid.');
      const checked = checkExact(x402Port, { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
      if (!checked.isValid) return fail(X402Refusal.paymentRequired, checked.invalidReason!);
      signed = { authorization: checked.payment.auth, signature: checked.payment.signature };
    }
    const parsed = SettleRequest.safeParse(signed);
    if (!parsed.success) {
      if (payment.status === 'pending' || checkedBy === 'mpp') return fail(X402Refusal.paymentRequired, X402Reason.invalidPayload);
      return statusFailure(payment) ?? fail(SettleReason.notFound, `No such payment: ${payment.id}`);
    }
    return { ok: true, request: parsed.data, terms: PAYER_NONCE_TERMS, noIo: true };
  },
};
