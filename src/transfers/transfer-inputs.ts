import { z } from 'zod';
import { CurrencyCode, DecimalAmount } from '../lib/money-input.js';

export const SendTransferInput = z.object({
  recipient: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .describe('Who receives: a Telegram @username, an E.164 phone number (+254712345678), an email, an account id (acct_...) or a 0x address.'),
  amount: DecimalAmount.describe('Amount as a plain decimal string, e.g. "5000".'),
  currency: CurrencyCode.optional().describe("Currency of the amount (e.g. KES, NGN, USD). Omit to use the sender's local currency."),
  note: z.string().trim().max(140).optional().describe('Optional note for the recipient.'),
  quote_id: z
    .string()
    .regex(/^qt_[0-9A-Za-z]{10,64}$/, 'must be a quote id ("qt_...").')
    .optional()
    .describe('A firm quote (from quote_transfer) to execute at exactly its figures; refused once it has expired.'),
});
export type SendTransferInput = z.infer<typeof SendTransferInput>;

/** A read-only quote: what a transfer would cost and deliver; nothing is recorded or moved. */
export const QuoteTransferInput = z.object({
  amount: DecimalAmount.describe('Amount the sender would send, as a plain decimal string.'),
  currency: CurrencyCode.optional().describe("Currency of the amount; omit for the sender's local currency."),
  recipient: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('Who would receive it (as for send_transfer); their currency is used for the received amount.'),
  to_currency: CurrencyCode.optional().describe('Currency to convert into when there is no recipient (e.g. "how much is 100 USD in NGN").'),
});
export type QuoteTransferInput = z.infer<typeof QuoteTransferInput>;
