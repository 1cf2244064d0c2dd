import { createHash } from 'node:crypto';
import { randomBase62 } from '../lib/ids.js';
import { defineTable } from '../store/index.js';

/**
 * A claim link (docs/claims.md): money sent to a phone or email with no account, held in an
 * escrow wallet of its own until the person claims it, the sender cancels, or it expires.
 *
 *   funding -> open -> claiming -> claimed
 *                   -> returning -> canceled | expired
 *   funding -> failed (nothing moved)
 *
 * The status is the journal: each in-flight status (funding, claiming, returning) is written
 * before its on-chain move, and each move's EIP-3009 nonce is derived from the claim id, so
 * `reconcile` re-runs the step after a crash without ever moving money twice.
 */
export type ClaimStatus = 'funding' | 'open' | 'claiming' | 'claimed' | 'returning' | 'canceled' | 'expired' | 'failed';

export const CLAIM_EVENT_TYPES = ['transfer.claim_created', 'transfer.claimed', 'transfer.claim_canceled', 'transfer.claim_expired'] as const;
export type ClaimEventType = (typeof CLAIM_EVENT_TYPES)[number];

export interface ClaimEvent {
  type: ClaimEventType;
  at: string;
  txHash?: string;
}

export interface Claim {
  readonly id: string;
  senderAccountId: string;
  senderName: string;
  contactKind: 'phone' | 'email';
  /** E.164 phone or lowercase email. */
  contact: string;
  /** sha256 of the link token; the token itself is shown once. */
  tokenHash: string;
  status: ClaimStatus;
  escrowIndex: number;
  escrowAddress: string;
  fromIndex: number;
  fromAddress: string;
  /** Base units the recipient gets. */
  amount: string;
  /** Base units to the fee wallet: once claimed, and (h17claimfee) once canceled or expired too. */
  fee: string;
  /** amount + fee: what left the sender's wallet and what the escrow holds. */
  total: string;
  sourceCurrency: string;
  sourceAmount: string;
  sourceAmountMinor: string;
  note?: string;
  /** The claim page's language (the sender's account language). */
  language: string;
  reservation?: { day: string; amount: string };
  /** The spend policy's reservation, written with this row; ended by its funding (docs/policies.md). */
  spendReservationId?: string;
  claimantAccountId?: string;
  /** Why the money goes back (returning). */
  returnReason?: 'canceled' | 'expired';
  /**
   * Written with `returning` (the same compare-and-set) since h17claimfee: the return leg moves
   * `amount` back to the sender and the fee goes to the fee wallet (DESIGN section 11: our fee is
   * kept on cancel and expiry). Absent on a claim that went `returning` before: its return leg
   * (maybe already signed for amount + fee under `nonceFor('claim-return', id)`) finishes as it
   * started, amount + fee back, and no fee leg.
   */
  feeKept?: boolean;
  fundTxHash?: string;
  payoutTxHash?: string;
  feeTxHash?: string;
  returnTxHash?: string;
  feeSettled?: boolean;
  failureMessage?: string;
  events: ClaimEvent[];
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  /** false: made through a test key (docs/test-mode.md); claims made before test mode have none and are live. */
  livemode?: boolean;
}

export const Claims = defineTable<Claim>({
  name: 'claims',
  unique: [['tokenHash'], ['escrowIndex']],
  indexes: ['senderAccountId', 'claimantAccountId', 'status', 'contact'],
});

export const ClaimReason = {
  notFound: 'claim_not_found',
  alreadyClaimed: 'already_claimed',
  notOpen: 'claim_not_open',
  wrongClaimant: 'wrong_claimant',
  expired: 'claim_expired',
  ownClaim: 'own_claim',
} as const;

export const DEFAULT_CLAIM_TTL_MS = 7 * 86_400_000;

/** An unguessable link token (~190 bits) and the hash stored in its place. */
export function newClaimToken(): { token: string; hash: string } {
  const token = randomBase62(32);
  return { token, hash: hashClaimToken(token) };
}

export function hashClaimToken(token: string): string {
  return createHash('sha256').update(`stablepay.claim.v1:${token}`).digest('hex');
}

/** Base units back to the sender and kept by our fee wallet when the claim is canceled or expires. */
export function returnSplit(c: Pick<Claim, 'amount' | 'fee' | 'total' | 'feeKept'>): { returned: bigint; kept: bigint } {
  return c.feeKept ? { returned: BigInt(c.amount), kept: BigInt(c.fee) } : { returned: BigInt(c.total), kept: 0n };
}

/** Does this claim still owe its fee leg (escrow -> fee wallet)? Claimed, or returned under the fee-kept rule. */
export function feeDue(c: Claim): boolean {
  if (c.feeSettled || BigInt(c.fee) <= 0n) return false;
  return c.status === 'claimed' || ((c.status === 'canceled' || c.status === 'expired') && c.feeKept === true);
}

export const IN_FLIGHT: readonly ClaimStatus[] = ['funding', 'claiming', 'returning'];
