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
