import { z } from 'zod';
import { CurrencyCode, DecimalAmount } from '../lib/money-input.js';

export const QuoteId = z.string().regex(/^qt_[0-9A-Za-z]{10,64}$/, 'must be a quote id ("qt_...").');

/** POST /api/quotes: what a transfer of `amount` would deliver, locked for a short time. */
export const CreateQuoteInput = z.strictObject({
  amount: DecimalAmount.describe('Amount the sender sends, as a plain decimal string ("5000").'),
  currency: CurrencyCode.optional().describe("Currency of the amount; omit for the account's local currency."),
  recipient: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('Who receives (as for a transfer: @username, E.164 phone, email, acct_... or 0x address). Binds the quote to them.'),
  to_currency: CurrencyCode.optional().describe('Without a recipient: the currency the amount arrives in (default: the local currency).'),
});
export type CreateQuoteInput = z.infer<typeof CreateQuoteInput>;

export const QuoteStatus = z.enum(['open', 'used', 'expired']);

export const QuoteResource = z
  .object({
    id: z.string().describe('Send it back as `quote_id` to execute the transfer at exactly these figures.'),
    object: z.literal('quote'),
    status: QuoteStatus.describe('open (can be executed until expires_at), used (a transfer executed it) or expired.'),
    amount: z.string(),
    currency: z.string(),
    recipient: z.string().nullable().describe('Who the quote is bound to, or null (a rate quote into `recipient_currency`).'),
    recipient_currency: z.string(),
    recipient_amount: z.string().describe('What the recipient receives, in recipient_currency.'),
    rate: z.string().describe('Locked: units of recipient_currency per 1 currency (8 decimals).'),
    source_rate: z.string().describe('Units of currency per 1 USDC.'),
    recipient_rate: z.string().describe('Units of recipient_currency per 1 USDC.'),
    stablecoin: z.literal('USDC'),
    stablecoin_amount: z.string().describe('USDC that moves on-chain to the recipient.'),
    fee: z.string().describe('USDC, charged on top.'),
    total_debit: z.string().describe("USDC that leaves the sender's wallet: stablecoin_amount + fee."),
    rate_source: z.string().describe('Where the rate came from: "table" (the shipped table) or "http" (a live provider).'),
    rates_as_of: z.string(),
    expires_at: z.iso.datetime().describe('After it the quote can no longer be executed (ask for a new one).'),
    created_at: z.iso.datetime(),
    transfer_id: z.string().nullable().describe('The transfer that executed it, once used.'),
  })
  .describe('A firm quote: executing it within `expires_at` moves exactly these amounts at this rate.');
export type QuoteResource = z.infer<typeof QuoteResource>;
