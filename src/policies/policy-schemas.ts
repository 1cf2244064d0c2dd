import { z } from 'zod';

/** What a policy can allow or forbid (the money-moving tools and payment links). */
export const PolicyAction = z.enum(['transfer', 'bill', 'market_stake', 'payment_link']);
export type PolicyAction = z.infer<typeof PolicyAction>;
export const POLICY_ACTIONS = PolicyAction.options;

/** A limit as decimal text in its currency ("250", "99.50"); null: no limit. */
const Limit = z
  .string()
  .trim()
  .regex(/^\d{1,12}(\.\d{1,6})?$/, 'must be a decimal amount like "250" or "99.50"')
  .nullable()
  .optional();

export const Caps = z
  .strictObject({
    per_transaction: Limit.describe('Largest single action.'),
    daily: Limit.describe('Total over the last 24 hours (rolling).'),
    weekly: Limit.describe('Total over the last 7 days (rolling).'),
    monthly: Limit.describe('Total over the last 30 days (rolling).'),
  })
  .describe('Caps in one currency; each null or absent: no cap.');
export type Caps = z.infer<typeof Caps>;
export const CAP_WINDOWS = ['daily', 'weekly', 'monthly'] as const;
export type CapWindow = (typeof CAP_WINDOWS)[number];
export const WINDOW_MS: Readonly<Record<CapWindow, number>> = { daily: 86_400_000, weekly: 7 * 86_400_000, monthly: 30 * 86_400_000 };

/** A recipient as a person writes it: @handle, +E.164 phone, email or 0x address. */
export const RecipientPattern = z
  .string()
  .trim()
  .min(2)
  .max(254)
  .regex(/^(@?[A-Za-z][A-Za-z0-9_]{2,31}|\+[1-9]\d{6,14}|[^\s@]+@[^\s@]+\.[^\s@]+|0x[0-9a-fA-F]{40})$/, 'must be a @handle, a +phone, an email or a 0x address');

export const Breaker = z
  .strictObject({
    max_failures: z.number().int().min(1).max(1000).describe('Refusals or failures within the window that trip it.'),
    window_seconds: z.number().int().min(1).max(86_400),
    cooldown_seconds: z.number().int().min(1).max(86_400).describe('How long the key is paused once tripped.'),
  })
  .describe("Circuit breaker for each API key's money-moving turns.");
export type Breaker = z.infer<typeof Breaker>;
export const DEFAULT_BREAKER: Breaker = { max_failures: 10, window_seconds: 60, cooldown_seconds: 120 };

/**
 * A spend policy (docs/policies.md): the account's, and a narrower one per API key (both apply,
 * so a key's can only narrow). Absent fields: no restriction from this policy.
 */
export const SpendPolicy = z
  .strictObject({
    usd: Caps.optional().describe('Caps on the USD value of every action (valued at the FX table transfers use).'),
    currencies: z
      .record(z.string().regex(/^[A-Z]{2,8}$/, 'currency codes are upper-case letters'), Caps)
      .optional()
      .describe('Caps per currency of the amount as asked (e.g. {"KES": {"daily": "5000"}}).'),
    allow_recipients: z
      .array(RecipientPattern)
      .max(200)
      .nullable()
      .optional()
      .describe('Only these recipients (handles, phones, emails, addresses); null or absent: anyone not blocked.'),
    block_recipients: z.array(RecipientPattern).max(200).optional().describe('Never these recipients.'),
    allowed_actions: z.array(PolicyAction).nullable().optional().describe('Only these kinds of action; null or absent: all.'),
    approval_threshold_usd: Limit.describe('Actions above this USD value wait for the signed-in person to confirm them.'),
    breaker: Breaker.optional().describe('Account policy only: the circuit breaker settings for its keys.'),
  })
  .describe('A spend policy.');
export type SpendPolicy = z.infer<typeof SpendPolicy>;

/** PUT body: the policy, and the person's password (re-entered: only the person changes a policy). */
export const PutPolicyInput = z.strictObject({
  policy: SpendPolicy,
  password: z.string().min(1, 'password is required: re-enter your password to change a policy').max(200),
});
export type PutPolicyInput = z.infer<typeof PutPolicyInput>;

/** A policy as read back. */
export const PolicyView = z.object({
  scope: z.enum(['account', 'key']),
  key_id: z.string().nullable(),
  policy: SpendPolicy,
  updated_at: z.string().nullable(),
});
export type PolicyView = z.infer<typeof PolicyView>;

/** One `policy.updated` event (the policy history the app shows). */
export const PolicyEventView = z.object({
  id: z.string().describe('evt_...'),
  type: z.literal('policy.updated'),
  created: z.number().int().describe('Unix seconds.'),
  data: z.object({ scope: z.enum(['account', 'key']), key_id: z.string().nullable(), policy: SpendPolicy, previous: SpendPolicy }),
});
export type PolicyEventView = z.infer<typeof PolicyEventView>;
