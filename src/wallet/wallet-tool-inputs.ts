import { z } from 'zod';
import { CurrencyCode, DecimalAmount } from '../lib/money-input.js';

export const GetBalanceInput = z.object({});
export type GetBalanceInput = z.infer<typeof GetBalanceInput>;

/** A hosted-checkout payment link created from chat (goes through the payments module). */
export const CreatePaymentLinkInput = z.object({
  amount: DecimalAmount,
  currency: CurrencyCode.optional().describe("Omit for the user's local currency."),
  description: z.string().trim().max(300).optional(),
});
export type CreatePaymentLinkInput = z.infer<typeof CreatePaymentLinkInput>;

/** The caller's recent activity (read-only): transfers, bills, stakes and payment links. */
export const ListActivityInput = z.object({
  kind: z.enum(['transfer', 'bill', 'stake', 'payment']).optional().describe('Only this kind of activity; omit for all.'),
  limit: z.number().int().min(1).max(50).optional().describe('How many entries, newest first (default 10).'),
});
export type ListActivityInput = z.infer<typeof ListActivityInput>;
