import { z } from 'zod';
import { PageLimit, startingAfter } from '../lib/paging.js';
import { MoneyAmount } from '../payments/payment-schemas.js';

const Timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const RefundStatus = z.enum(REFUND_STATUSES);
export type RefundStatus = z.infer<typeof RefundStatus>;

/** POST /api/v1/payments/:id/refunds */
export const CreateRefundInput = z
  .object({
    amount: MoneyAmount.optional().describe("In the payment's currency; default: everything not refunded yet."),
    reason: z
      .string({ message: 'reason must be a string' })
      .min(1, 'reason must be 1-300 characters')
      .max(300, 'reason must be at most 300 characters')
      .optional()
      .describe('Why the money goes back (shown to you, kept with the refund).'),
  })
  .strict();
export type CreateRefundInput = z.infer<typeof CreateRefundInput>;

export const ListRefundsQuery = z
  .object({
    limit: PageLimit,
    starting_after: startingAfter('A refund'),
  })
  .strict();
export type ListRefundsQuery = z.infer<typeof ListRefundsQuery>;

export const RefundId = z.string().regex(/^re_[0-9A-Za-z]{10,64}$/, 'not a refund id');

/** The refund as merchants read it, and as `refund.*` / `payment.refunded` events carry it in `data.refund`. */
export const RefundResource = z.object({
  id: z.string().describe('Refund id: re_...'),
  object: z.literal('refund'),
  payment_id: z.string(),
  status: RefundStatus.describe('`pending` while on its way on-chain; `succeeded` once mined; `failed` when nothing moved.'),
  amount: z.number().describe("Amount refunded, in the payment's currency."),
  currency: z.string(),
  stablecoin_amount: z.string().describe('Stablecoin sent back (decimal text), at the rate locked when the payment was created.'),
  stablecoin_amount_base_units: z.string(),
  rate: z.string().describe("The payment's locked rate: units of `currency` per 1 stablecoin."),
  reason: z.string().nullable(),
  from: z.string().describe("The merchant's settlement wallet the refund is paid from."),
  to: z.string().describe('The address that paid the payment.'),
  tx_hash: z.string().nullable(),
  failure_reason: z.string().nullable(),
  created_at: Timestamp,
  succeeded_at: Timestamp.nullable(),
  livemode: z.boolean().optional().describe("The payment's mode (docs/test-mode.md); always present on the API, absent in events stored before test mode."),
});
export type RefundResource = z.infer<typeof RefundResource>;

export const RefundList = z.object({
  object: z.literal('list'),
  data: z.array(RefundResource).describe('Newest first.'),
  has_more: z.boolean(),
});
export type RefundList = z.infer<typeof RefundList>;
