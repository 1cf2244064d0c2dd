/**
 * The vocabulary of checkout settlement: its inputs, its answers (SettleReason and the payer's
 * messages), and the checks on an authorization against the one we issued. Shared by the
 * settle use case (settlement.ts) and the processing resolver (processing-resolver.ts).
 */
import { getAddress, isAddressEqual, type Address, type Hex } from 'viem';
import { z } from 'zod';
import type { RelayOutcome } from '../chain/relay.js';
import { EvmAddress, SignatureHex, TransferAuthorization, type TransferTypedDataJson } from '../chain/authorization.js';
import type { Payment } from '../payments/payments.js';
import { fail, type Fail, type Result } from '../lib/results.js';
import { PaymentReason, SettleReason, type SubmitReason } from '../lib/payment-reasons.js';

// ---------------------------------------------------------------------------- inputs

export const AuthorizationRequest = z.object({ from: EvmAddress });
export type AuthorizationRequest = z.infer<typeof AuthorizationRequest>;

export const SettleRequest = z.object({
  /** The signed message, uint256 fields as decimal strings (what eth_signTypedData_v4 signed). */
  authorization: TransferAuthorization,
  signature: SignatureHex,
});
export type SettleRequest = z.infer<typeof SettleRequest>;

// ---------------------------------------------------------------------------- results

// One vocabulary with the chain and the relay (src/lib/payment-reasons.ts); HTTP status per
// reason is the door's table (src/http/settle-answer.ts).
export { SettleReason };

export type AuthorizationFailure = Fail<
  | typeof SettleReason.notFound
  | typeof SettleReason.expired
  | typeof SettleReason.alreadySettled
  | typeof SettleReason.paymentFailed
  | typeof SettleReason.processing
  | typeof SettleReason.canceled
>;
export type AuthorizationResult =
  | {
      ok: true;
      /** For `eth_signTypedData_v4` (send `JSON.stringify(typedData)`). */
      typedData: TransferTypedDataJson;
      payment: Payment;
    }
  | AuthorizationFailure;

/**
 * `payment.status` is `settled`, or `processing` when the receipt did not arrive within the
 * confirm timeout (the reconciler or a resubmit of the same authorization finishes it).
 */
export type SettleResult = Result<{ payment: Payment; txHash?: Hex }, SettleReason>;

export interface ReconcileSummary {
  checked: number;
  settled: number;
  failed: number;
  pending: number;
  processing: number;
  /** Pending payments with a settle attempt that the reconciler expired (none of it was used). */
  expired: number;
}

export interface UsedAuthorization {
  payer: Address;
  txHash: Hex;
  /** Set when the payer chose the nonce (x402); else the payment's derived nonce. */
  nonce?: string;
}

/**
 * An `attemptedBy` entry: the payer (the payment's derived nonce), or `payer:nonce` when the payer
 * chose the nonce (x402 clients sign a random one).
 */
export function attemptKey(payer: string, nonce?: string): string {
  const a = getAddress(payer.toLowerCase());
  return nonce ? `${a}:${nonce.toLowerCase()}` : a;
}

export function parseAttempt(entry: string): { payer: Address; nonce?: string } {
  const [payer, nonce] = entry.split(':');
  return nonce ? { payer: getAddress(payer!.toLowerCase()), nonce } : { payer: getAddress(payer!.toLowerCase()) };
}

/** `attemptedBy` with this attempt added (checksummed, once). */
export function withAttempt(p: Pick<Payment, 'attemptedBy'>, payer: Address, nonce?: string): string[] {
  const list = p.attemptedBy ?? [];
  const key = attemptKey(payer, nonce);
  return list.some((a) => a.toLowerCase() === key.toLowerCase()) ? list : [...list, key];
}

// ---------------------------------------------------------------------------- helpers

/** The session expiry in unix seconds: the authorization's validBefore. */
export function validBeforeOf(p: Payment): bigint {
  return BigInt(Math.floor(Date.parse(p.expiresAt) / 1000));
}

/** Why a payment (by its effective status) cannot be paid now, or undefined when it can. */
export function statusFailure(p: Payment): AuthorizationFailure | undefined {
  switch (p.status) {
    case 'pending':
      return undefined;
    case 'expired':
      return fail(SettleReason.expired, 'This payment session has expired.');
    case 'settled':
    case 'refunded':
      return fail(SettleReason.alreadySettled, 'This payment has already been paid.');
    case 'canceled':
      return fail(SettleReason.canceled, 'The merchant canceled this payment. Nothing was charged.');
    case 'failed':
      return fail(SettleReason.paymentFailed, 'This payment has failed and can no longer be paid.');
    case 'processing':
      return fail(SettleReason.processing, 'A payment for this checkout is already being processed.');
    // Manual capture (x402 auth-capture): paid by an authorization already.
    case 'authorized':
    case 'captured':
      return fail(SettleReason.alreadySettled, 'This payment has already been paid (authorized).');
    case 'voided':
      return fail(SettleReason.canceled, 'The authorization of this payment was voided. Nothing was charged.');
  }
}

/** The fields we issued must come back unchanged (x402: recipient, value, validity window). */
export function compareAuthorization(got: TransferAuthorization, want: TransferAuthorization): Fail<SettleReason> | undefined {
  if (!isAddressEqual(got.to, want.to)) {
    return fail(SettleReason.wrongRecipient, 'The authorization pays the wrong recipient.', 'authorization.to');
  }
  if (got.value !== want.value) {
    return fail(SettleReason.wrongAmount, `The authorization must be for exactly ${want.value} base units.`, 'authorization.value');
  }
  if (got.nonce.toLowerCase() !== want.nonce.toLowerCase()) {
    return fail(SettleReason.wrongNonce, 'The authorization nonce was not issued for this payment.', 'authorization.nonce');
  }
  if (got.validBefore !== want.validBefore) {
    return fail(SettleReason.wrongValidity, 'The authorization must be valid until the session expiry.', 'authorization.validBefore');
  }
  if (got.validAfter > got.validBefore) {
    return fail(SettleReason.wrongValidity, 'The authorization validity window is empty.', 'authorization.validAfter');
  }
  return undefined;
}

/**
 * An authorization whose payer chose the nonce and window (x402): the recipient and exact amount
 * we issue, a window that is open now and closes no later than the session expiry.
 */
export function comparePayerNonceAuthorization(got: TransferAuthorization, want: TransferAuthorization): Fail<SettleReason> | undefined {
  if (!isAddressEqual(got.to, want.to)) {
    return fail(SettleReason.wrongRecipient, 'The authorization pays the wrong recipient.', 'authorization.to');
  }
  if (got.value !== want.value) {
    return fail(SettleReason.wrongAmount, `The authorization must be for exactly ${want.value} base units.`, 'authorization.value');
  }
  if (got.validBefore > want.validBefore) {
    return fail(SettleReason.wrongValidity, 'The authorization must expire no later than the session.', 'authorization.validBefore');
  }
  if (got.validAfter > got.validBefore) {
    return fail(SettleReason.wrongValidity, 'The authorization validity window is empty.', 'authorization.validAfter');
  }
  return undefined;
}

/**
 * A reason of the one vocabulary as settlement answers it: the same word, except that a used
 * authorization means the payment was already paid, and a send the node refused means it was
 * not sent (`submit_failed`). Every reason has a settle answer, so every reason has an HTTP
 * status at the door (SETTLE_STATUS).
 */
export function settleReasonOf(reason: PaymentReason): SettleReason {
  if (reason === PaymentReason.authorizationUsed) return SettleReason.alreadySettled;
  if (reason === PaymentReason.rejected) return SettleReason.submitFailed;
  return reason;
}

export const MESSAGES: Partial<Record<SettleReason, string>> = {
  invalid_signature: 'The signature does not match the paying wallet.',
  insufficient_balance: 'The wallet does not hold enough USDC for this payment.',
  expired: 'This payment session has expired.',
  not_yet_valid: 'The authorization is not valid yet.',
  chain_unavailable: 'The payment network could not be reached. Nothing was charged; try again shortly.',
  submit_failed: 'The payment could not be sent. Nothing was charged; try again shortly.',
};

/** The verify/submit reason a failed relay stands for (the customer's message depends on it). */
export function relayFailureReason(r: Extract<RelayOutcome, { status: 'failed' }>): SubmitReason {
  if (r.reason === 'rejected') return r.cause ?? 'submit_failed';
  if (r.reason === 'reverted') return 'simulation_failed';
  return r.reason;
}

export function mapVerifyFailure(f: Fail<SubmitReason>): Fail<SettleReason> {
  const reason = settleReasonOf(f.reason);
  return fail(reason, MESSAGES[reason] ?? f.message, f.param ? `authorization.${f.param}` : undefined);
}
