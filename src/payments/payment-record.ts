/**
 * The payment row and its table (indexes, ranges): what a checkout session stores. The service
 * over it is payments.ts.
 */
import { defineTable } from '../store/index.js';
import type { Metadata, PaymentStatus } from './payment-schemas.js';

export interface Payment {
  readonly id: string;
  accountId: string;
  status: PaymentStatus;
  /** Decimal text of the amount in `currency` (as sent, normalised). */
  amount: string;
  currency: string;
  /** Stablecoin base units (6 decimals), locked at creation. */
  stablecoinAmount: string;
  /** Units of `currency` per stablecoin, locked at creation. */
  rate: string;
  redirectUrl: string;
  reference?: string;
  merchantName?: string;
  description?: string;
  payoutAddress?: string;
  metadata?: Metadata;
  webhookUrl?: string;
  expiresInMinutes: number;
  createdAt: string;
  expiresAt: string;
  updatedAt: string;
  /**
   * Bumped by the store on every write of the row (TableDef.version): the checkout claim's
   * compare-and-set names the value its read saw (checkout-claim.ts). Rows from before it lack it.
   */
  version?: number;
  /** sha256 of the canonical creation input: decides "same body" for dedupe. */
  requestHash: string;
  txHash?: string;
  payer?: string;
  /**
   * Every payer a settle was started for (`pending -> processing`), kept when the payment goes
   * back to `pending`: one of their authorizations may still be used on-chain (a transaction
   * that reached the node after all), so such a payment only expires once the settlement
   * reconciler has checked the chain (docs/settlement.md, "Expiry after a settle attempt").
   */
  attemptedBy?: string[];
  /**
   * The EIP-3009 nonce of the authorization being settled when the payer chose it (x402 clients
   * sign a random nonce); unset for the nonce derived from the payment id. Set with `payer` on
   * `pending -> processing`, cleared when the payment goes back to `pending`.
   */
  authNonce?: string;
  settledAt?: string;
  failureReason?: string;
  /** Set when the merchant canceled the pending session (src/payments/cancel.ts). */
  canceledAt?: string;
  cancellationReason?: string;
  /**
   * Paid into the session's deposit address (a plain token transfer from a phone wallet) and
   * swept to the merchant by the deposit watcher (src/settlement/deposit-watcher.ts), which alone
   * resolves the payment while it is `processing`.
   */
  viaDeposit?: boolean;
  /** Stablecoin base units paid into the deposit address beyond the amount (swept too; the merchant may refund it). */
  depositExcess?: string;
  /** Decimal text in `currency` of the refunds that succeeded (src/refunds); absent means 0. */
  amountRefunded?: string;
  /** The same in stablecoin base units. */
  stablecoinRefunded?: string;
  /** Listed in the x402 discovery listing while payable (src/x402/discovery.ts). */
  discoverable?: boolean;
  /** false: made with a test key (docs/test-mode.md); rows from before test mode are live (migration 0015). */
  livemode?: boolean;
  /** `manual`: paid by x402 auth-capture, funds held until captured or voided (src/x402/auth-capture/manual-capture-sessions.ts). */
  captureMethod?: 'manual';
  /** Manual capture: minutes an authorization may stay uncaptured (`capture_within_minutes`); unset: `AUTH_CAPTURE_HOLD`. */
  captureWithinMinutes?: number;
  /** The escrow's paymentInfoHash of the authorization (manual capture). */
  paymentInfoHash?: string;
  /** Stablecoin base units held in escrow (capturable), captured, and released back to the payer. */
  amountCapturable?: string;
  amountCaptured?: string;
  amountVoided?: string;
  authorizedAt?: string;
  /** ISO: when an uncaptured hold is voided automatically. */
  captureBefore?: string;
  /** Transactions of the lifecycle steps already applied (each applied once). */
  captureSteps?: string[];
}

export const Payments = defineTable<Payment>({
  name: 'payments',
  // A reference is unique per account and mode: a test payment never dedupes onto a live one.
  unique: [['accountId', 'livemode', 'reference']],
  version: 'version',
  // (accountId, livemode): a list in one mode is one index range scan even when the other
  // mode holds nearly all of the merchant's rows (at a million live rows a test-mode list
  // walked them all: 5-8 s, docs/performance.md). (accountId, livemode, status): a status
  // filter pages through one index range per status (`list`, `anyOf`), not the merchant's rows.
  // No `accountId` alone: every read of a merchant's payments names the mode too, and each index
  // costs every payment update an insertion (issue 23, eleventh round; migration 0019 drops it).
  // `status` alone serves the on-chain audit and the x402 discovery listing.
  indexes: ['status', ['accountId', 'livemode'], ['accountId', 'livemode', 'status']],
  // The background passes read only what is due through these (payments.ts `sweepExpired`,
  // `processing`, `pendingWithAttempts`), never every pending payment.
  ranges: [
    ['status', 'expiresAt'],
    ['status', 'updatedAt'],
    ['status', 'attemptedBy'],
  ],
});
