import { z } from 'zod';
import { CurrencyCode, DecimalAmount } from '../lib/money-input.js';

const MarketRef = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe('The market: its id (mkt_...) or words from its question.');

export const CreateMarketInput = z.object({
  question: z.string().trim().min(5).max(200).describe('The yes/no or multiple-choice question.'),
  outcomes: z
    .array(z.string().trim().min(1).max(60))
    .min(2)
    .max(10)
    .optional()
    .describe('2-10 outcomes; omit for ["Yes","No"].'),
  closes_at: z.iso.datetime({ offset: true }).describe('When staking closes, ISO 8601 with time zone.'),
});
export type CreateMarketInput = z.infer<typeof CreateMarketInput>;

export const StakeMarketInput = z.object({
  market: MarketRef,
  outcome: z.string().trim().min(1).max(60).describe('The outcome to back, e.g. "Yes".'),
  amount: DecimalAmount,
  currency: CurrencyCode.optional().describe("Omit for the user's local currency."),
});
export type StakeMarketInput = z.infer<typeof StakeMarketInput>;

export const ResolveMarketInput = z.object({
  market: MarketRef,
  outcome: z.string().trim().min(1).max(60).describe('The winning outcome.'),
});
export type ResolveMarketInput = z.infer<typeof ResolveMarketInput>;

export const CancelMarketInput = z.object({ market: MarketRef });
export type CancelMarketInput = z.infer<typeof CancelMarketInput>;

export const ListMarketsInput = z.object({
  status: z.enum(['open', 'closed', 'resolved', 'cancelled']).optional(),
});
export type ListMarketsInput = z.infer<typeof ListMarketsInput>;
