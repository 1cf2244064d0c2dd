import { usdcDecimal } from '../lib/money.js';
import { z } from 'zod';
import type { Payment } from '../payments/payments.js';
import { stablecoinText } from '../payments/payments.js';
import { Metadata, PaymentStatus } from '../payments/payment-schemas.js';

const Timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');

/**
 * The authenticated payment resource (snake_case, as merchants read it). The presenter below
 * is typed against this schema, and the OpenAPI document is generated from it.
 */
export const PaymentResource = z.object({
  id: z.string().describe('Payment id: pay_ followed by 24 base62 characters.'),
  object: z.literal('payment'),
  status: PaymentStatus,
  amount: z.number().describe('Amount charged, in `currency`.'),
  currency: z.string(),
  stablecoin_amount: z.string().describe('Stablecoin amount to pay (decimal text, 6 decimals), locked at creation.'),
  stablecoin_amount_base_units: z.string().describe('The same amount in base units (integer text).'),
  rate: z.string().describe('Units of `currency` per 1 stablecoin, locked at creation.'),
  checkout_url: z.string().describe('Hosted page to redirect the customer to.'),
  redirect_url: z.string(),
  reference: z.string().nullable(),
  merchant_name: z.string().nullable(),
  description: z.string().nullable(),
  payout_address: z.string().nullable(),
  metadata: Metadata,
  webhook_url: z.string().nullable(),
  expires_in_minutes: z.number().int(),
  created_at: Timestamp,
  expires_at: Timestamp,
  tx_hash: z.string().nullable(),
  payer: z.string().nullable(),
  settled_at: Timestamp.nullable(),
  failure_reason: z.string().nullable(),
  amount_refunded: z
    .number()
    .describe('Total of the refunds that succeeded, in `currency`; 0 when none. A partial refund leaves the status `settled`.'),
  canceled_at: Timestamp.nullable().describe('When the merchant canceled the pending session.'),
  cancellation_reason: z.string().nullable(),
  stablecoin_excess: z
    .string()
    .optional()
    .describe('Present when the customer paid more than the amount into the deposit address: the excess (decimal text), given back to the sender of the transfer that went over (only the amount goes to pay_to).'),
  pay_to: z
    .string()
    .nullable()
    .optional()
    .describe("Address the stablecoin settles to: payout_address, else the merchant's custodial wallet."),
  x402_url: z
    .string()
    .optional()
    .describe('Where an AI agent pays this session over x402: GET answers 402 with the requirements; a paid retry settles it.'),
  discoverable: z.boolean().describe('Listed in the public x402 discovery listing while payable.'),
  livemode: z.boolean().describe('false for a test-mode payment (made with an `sk_test_` key; docs/test-mode.md).'),
  capture_method: z.enum(['automatic', 'manual']).optional().describe('`manual`: x402 auth-capture, funds held until captured or voided.'),
  amount_capturable: z.string().optional().describe('Manual capture: stablecoin held in escrow, capturable now (decimal text).'),
  amount_captured: z.string().optional().describe('Manual capture: stablecoin captured to the merchant so far (decimal text).'),
  amount_voided: z.string().optional().describe('Manual capture: stablecoin released back to the payer (decimal text).'),
  capture_before: Timestamp.nullable().optional().describe('Manual capture: an uncaptured hold is voided automatically at this time.'),
});
export type PaymentResource = z.infer<typeof PaymentResource>;

export const PaymentList = z.object({
  object: z.literal('list'),
  data: z.array(PaymentResource).describe('Newest first.'),
  has_more: z.boolean().describe('More payments follow; pass the last id as `starting_after`.'),
});
export type PaymentList = z.infer<typeof PaymentList>;

/** Interface 2.2: the public checkout view, rendered from the session's one view (src/checkout-sessions). */
export { CheckoutRead, CheckoutView } from '../checkout-sessions/view.js';

/** The authenticated payment resource. */
export function paymentResource(p: Payment, checkoutUrl: string, extra: Record<string, unknown> = {}): PaymentResource {
  return {
    id: p.id,
    object: 'payment',
    status: p.status,
    amount: Number(p.amount),
    currency: p.currency,
    stablecoin_amount: stablecoinText(p),
    stablecoin_amount_base_units: p.stablecoinAmount,
    rate: p.rate,
    checkout_url: checkoutUrl,
    redirect_url: p.redirectUrl,
    reference: p.reference ?? null,
    merchant_name: p.merchantName ?? null,
    description: p.description ?? null,
    payout_address: p.payoutAddress ?? null,
    metadata: p.metadata ?? {},
    webhook_url: p.webhookUrl ?? null,
    expires_in_minutes: p.expiresInMinutes,
    created_at: p.createdAt,
    expires_at: p.expiresAt,
    tx_hash: p.txHash ?? null,
    payer: p.payer ?? null,
    settled_at: p.settledAt ?? null,
    failure_reason: p.failureReason ?? null,
    amount_refunded: Number(p.amountRefunded ?? '0'),
    canceled_at: p.canceledAt ?? null,
    cancellation_reason: p.cancellationReason ?? null,
    ...(p.depositExcess ? { stablecoin_excess: usdcDecimal(p.depositExcess) } : {}),
    discoverable: p.discoverable === true,
    livemode: p.livemode !== false,
    ...(p.captureMethod === 'manual'
      ? {
          capture_method: 'manual' as const,
          amount_capturable: usdcDecimal(p.amountCapturable ?? '0'),
          amount_captured: usdcDecimal(p.amountCaptured ?? '0'),
          amount_voided: usdcDecimal(p.amountVoided ?? '0'),
          capture_before: p.captureBefore ?? null,
        }
      : {}),
    ...extra,
  };
}
