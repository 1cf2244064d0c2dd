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
  /** Base units to the fee wallet once claimed (returned with the amount otherwise). */
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

export const IN_FLIGHT: readonly ClaimStatus[] = ['funding', 'claiming', 'returning'];
