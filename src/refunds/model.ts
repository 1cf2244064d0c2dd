/**
 * What a refund is (docs/refunds.md): the stored row, its refusal reasons, the refusals that
 * need no arithmetic, and the resource merchants read. The service is refunds.ts.
 */
import { createHash } from 'node:crypto';
import { defineTable } from '../store/index.js';
import { fail } from '../lib/results.js';
import { usdcDecimal } from '../lib/money.js';
import type { Payment } from '../payments/payments.js';
import type { RefundResource, RefundStatus } from './refund-schemas.js';

export interface Refund {
  readonly id: string;
  accountId: string;
  /** The agent's spend reservation, written with this row; ended by its outcome (docs/policies.md). */
  spendReservationId?: string;
  paymentId: string;
  status: RefundStatus;
  /** Decimal text in `currency`. */
  amount: string;
  /** Minor units of `currency` (integer text). */
  amountMinor: string;
  currency: string;
  /** Stablecoin base units (integer text). */
  stablecoinAmount: string;
  rate: string;
  reason?: string;
  /** Custodial wallet index of the merchant's settlement wallet, and its address. */
  fromIndex: number;
  from: string;
  /** The payer of the payment. */
  to: string;
  txHash?: string;
  failureReason?: string;
  createdAt: string;
  updatedAt: string;
  succeededAt?: string;
  /** The payment's mode (docs/test-mode.md); rows from before test mode are live. */
  livemode?: boolean;
  /**
   * A manual-capture (x402 auth-capture) payment's refund goes through the escrow (escrow.ts):
   * the merchant's wallet funds the operator (`fundedTx`), the operator's escrow refund pays the
   * payer (`snapshot`: the escrow's books it expects, `txHash`: its transaction); funding no
   * refund used goes back to the wallet (`returnTx`).
   */
  escrow?: EscrowRefundState;
}

export interface EscrowRefundState {
  /** The escrow's paymentInfoHash. */
  hash: string;
  fundedTx?: string;
  snapshot?: { capturable: string; refundable: string };
  txHash?: string;
  /** Set when the escrow refused for good after the funding moved: the funding goes back. */
  returning?: string;
  returnTx?: string;
}

export const Refunds = defineTable<Refund>({ name: 'refunds', indexes: ['paymentId', 'accountId', 'status'] });

export interface RefundIdempotency {
  /** sha256 of (account, Idempotency-Key). */
  readonly id: string;
  accountId: string;
  requestHash: string;
  refundId: string;
  createdAt: string;
}
export const RefundIdempotencyKeys = defineTable<RefundIdempotency>({ name: 'refund_idempotency_keys' });

/** The refund kind in the custodial mover's nonce: `nonceFor('refund', refundId)`. */
export const REFUND_NONCE_KIND = 'refund';

export const RefundReason = {
  notFound: 'not_found',
  notSettled: 'not_settled',
  alreadyRefunded: 'already_refunded',
  moreThanLeft: 'more_than_left',
  externalPayout: 'external_payout',
  noPayer: 'no_payer',
  insufficientBalance: 'insufficient_balance',
  invalidAmount: 'invalid_amount',
  idempotencyConflict: 'idempotency_conflict',
  chainUnavailable: 'chain_unavailable',
  refundDeadlinePassed: 'refund_deadline_passed',
} as const;
export type RefundReason = (typeof RefundReason)[keyof typeof RefundReason];

/** Why this payment cannot be refunded at all, or undefined. */
export function refusal(p: Payment) {
  if (p.status === 'refunded') return fail(RefundReason.alreadyRefunded, 'This payment has already been refunded in full.');
  if (p.captureMethod === 'manual' && p.status !== 'captured') {
    const why = p.status === 'authorized'
      ? 'it is authorized and nothing is captured yet: release the hold with POST /v1/payments/:id/void instead'
      : p.status === 'voided' ? 'its hold was voided and nothing was captured' : `it is ${p.status}`;
    return fail(RefundReason.notSettled, `Only captured money can be refunded; ${why}.`);
  }
  if (p.captureMethod !== 'manual' && p.status !== 'settled') {
    const why = p.status === 'canceled' ? 'it was canceled and nothing was paid' : `it is ${p.status}`;
    return fail(RefundReason.notSettled, `Only a settled payment can be refunded; ${why}.`);
  }
  if (p.payoutAddress) {
    return fail(
      RefundReason.externalPayout,
      `This payment settled to its payout_address ${p.payoutAddress}, an external wallet the service holds no key for, so the service cannot refund it. Send the refund from that wallet yourself.`,
    );
  }
  if (!p.payer) return fail(RefundReason.noPayer, 'The paying address of this payment is unknown, so it cannot be refunded.');
  return undefined;
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The refund as merchants read it (API and `data.refund` of events). */
export function refundResource(r: Refund): RefundResource {
  return {
    id: r.id,
    object: 'refund',
    payment_id: r.paymentId,
    status: r.status,
    amount: Number(r.amount),
    currency: r.currency,
    stablecoin_amount: usdcDecimal(BigInt(r.stablecoinAmount)),
    stablecoin_amount_base_units: r.stablecoinAmount,
    rate: r.rate,
    reason: r.reason ?? null,
    from: r.from,
    to: r.to,
    tx_hash: r.txHash ?? null,
    failure_reason: r.failureReason ?? null,
    created_at: r.createdAt,
    livemode: r.livemode !== false,
    succeeded_at: r.succeededAt ?? null,
  };
}
