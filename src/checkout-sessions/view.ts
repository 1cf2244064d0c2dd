/**
 * The one view of a checkout session (issue 22, step 1). Every door renders it: the public JSON
 * (`GET /api/checkout/:id`, interface 2.2), the hosted page `/pay/:id`, the settle answers and
 * the x402 door's description. Built in one place (checkout-sessions.ts) so no door re-reads the payment,
 * the account, the deposit or the chain to guess a field.
 *
 * The view holds more than the public JSON (the way back to the merchant, the receipt, the
 * recipient): `checkoutJson` below picks exactly the interface's fields and nothing private.
 */
import { z } from 'zod';
import { PaymentStatus } from '../payments/payment-schemas.js';

const Timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');

/** The session's own deposit address while it can be paid (docs/checkout.md). */
export const DepositView = z.object({
  address: z.string(),
  /** EIP-681 link for what is still due; absent once the whole amount arrived. */
  uri: z.string().optional(),
  /** Base units received so far, and still due. */
  received: z.string(),
  remaining: z.string(),
});
export type DepositView = z.infer<typeof DepositView>;

/** Manual capture (x402 auth-capture, docs/x402.md): what is held, captured and given back. */
export const CaptureView = z.object({
  /** Base units held in escrow (capturable now), captured to the merchant, released to the payer. */
  capturable: z.string(),
  captured: z.string(),
  voided: z.string(),
  authorizedAt: Timestamp.optional(),
  /** An uncaptured hold is voided automatically at this time. */
  captureBefore: Timestamp.optional(),
});
export type CaptureView = z.infer<typeof CaptureView>;

export const RefundView = z.object({
  /** Decimal text in the payment's currency, and base units of the stablecoin. */
  amount: z.string(),
  stablecoinBaseUnits: z.string(),
  status: z.enum(['pending', 'succeeded']),
  at: Timestamp,
  txHash: z.string().optional(),
});
export type RefundView = z.infer<typeof RefundView>;

/** What a paid session's receipt shows (settled, refunded, captured). */
export const ReceiptView = z.object({
  paidAt: Timestamp.optional(),
  txHash: z.string().optional(),
  payer: z.string().optional(),
  /** Refunds that succeeded or are on their way, oldest first. */
  refunds: z.array(RefundView),
  /** Totals of the refunds that succeeded: decimal text in `currency`, stablecoin base units. */
  amountRefunded: z.string().optional(),
  stablecoinRefunded: z.string().optional(),
});
export type ReceiptView = z.infer<typeof ReceiptView>;

export const CheckoutSessionView = z.object({
  id: z.string(),
  merchantName: z.string(),
  description: z.string(),
  /** The amount in `currency` (a number, interface 2.2) and as written at creation. */
  amount: z.number(),
  amountDecimal: z.string(),
  currency: z.string(),
  reference: z.string(),
  status: PaymentStatus,
  /** The session's mode: which chain it pays on (docs/test-mode.md). */
  livemode: z.boolean(),
  hasPayout: z.boolean(),
  expiresAt: Timestamp,
  /** Stablecoin to pay: decimal text and base units, locked at creation with `rate`. */
  stablecoinAmount: z.string(),
  stablecoinBaseUnits: z.string(),
  /** Units of `currency` per 1 stablecoin. */
  rate: z.string(),
  chainId: z.number().int(),
  tokenAddress: z.string(),
  tokenSymbol: z.string(),
  networkName: z.string(),
  explorerUrl: z.string().optional(),
  /** Where the stablecoin settles (payout address or the merchant's wallet); undefined for an account gone. */
  payTo: z.string().optional(),
  /** `redirect_url` with `payment_id` and `status` added: private (never in the public JSON). */
  returnUrl: z.string(),
  canceledAt: Timestamp.optional(),
  deposit: DepositView.optional(),
  capture: CaptureView.optional(),
  receipt: ReceiptView.optional(),
});
export type CheckoutSessionView = z.infer<typeof CheckoutSessionView>;

/**
 * Interface 2.2: the public checkout view. Exactly these fields, plus what the page needs to
 * pay (the stablecoin amount and the chain) and, for a manual-capture session, what is held.
 * Never the account, redirect_url, metadata, webhook URL or any secret.
 */
export const CheckoutView = z.object({
  id: z.string(),
  merchantName: z.string(),
  description: z.string(),
  amount: z.number(),
  currency: z.string(),
  reference: z.string(),
  status: PaymentStatus,
  hasPayout: z.boolean(),
  expiresAt: Timestamp,
  stablecoinAmount: z.string().describe('Stablecoin amount to pay (decimal text).'),
  chainId: z.number().int().optional().describe('Chain the page pays on.'),
  tokenAddress: z.string().optional().describe('Stablecoin contract address.'),
  tokenSymbol: z.string().optional(),
  depositAddress: z
    .string()
    .optional()
    .describe("While pending: this session's own deposit address. A plain token transfer of the amount to it (from any wallet; the sender pays the gas) settles the session."),
  paymentUri: z
    .string()
    .optional()
    .describe('While pending: EIP-681 link `ethereum:<token>@<chainId>/transfer?address=<deposit>&uint256=<base units still due>` for phone wallets; absent once the whole amount arrived (it is being confirmed).'),
  depositReceived: z.string().optional().describe('While pending: stablecoin received at the deposit address so far (decimal text); present once something arrived.'),
  captureMethod: z.literal('manual').optional().describe('Present for a manual-capture session (x402 auth-capture): funds are held, then captured or voided.'),
  amountCapturable: z.string().optional().describe('Manual capture: stablecoin held in escrow, not yet charged (decimal text).'),
  amountCaptured: z.string().optional().describe('Manual capture: stablecoin captured to the merchant (decimal text).'),
  amountVoided: z.string().optional().describe('Manual capture: stablecoin returned to the payer (decimal text).'),
  captureBefore: Timestamp.optional().describe('Manual capture: an uncaptured hold is voided automatically at this time.'),
});
export type CheckoutView = z.infer<typeof CheckoutView>;

export const CheckoutRead = z.object({ ok: z.literal(true), payment: CheckoutView });
export type CheckoutRead = z.infer<typeof CheckoutRead>;
