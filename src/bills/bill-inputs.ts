import { z } from 'zod';
import { CurrencyCode, DecimalAmount } from '../lib/money-input.js';

export const PayBillInput = z.object({
  biller: z.string().trim().min(1).max(80).describe('Biller name, alias or id, e.g. "IKEDC", "KPLC", "DStv", "MTN airtime".'),
  account_number: z
    .string()
    .trim()
    .min(3)
    .max(32)
    .describe('Customer account at the biller: meter number, smartcard/IUC number, or phone number for airtime.'),
  amount: DecimalAmount.describe('Amount as a plain decimal string.'),
  currency: CurrencyCode.optional().describe("Currency of the amount; omit for the biller's currency."),
});
export type PayBillInput = z.infer<typeof PayBillInput>;
