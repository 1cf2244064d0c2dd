import { z } from 'zod';

/** What a policy can allow or forbid (the money-moving tools and payment links). */
export const PolicyAction = z.enum(['transfer', 'bill', 'market_stake', 'payment_link']);
export type PolicyAction = z.infer<typeof PolicyAction>;
export const POLICY_ACTIONS = PolicyAction.options;
/** On input `market` (DESIGN section 11) and `market_stake` (the editor's) are the same action. */
export const PolicyActionInput = z.enum(['transfer', 'bill', 'market', 'market_stake', 'payment_link']);
/** DESIGN's spelling of an action (`market` for the stored `market_stake`). */
export const DesignAction = z.enum(['transfer', 'bill', 'market', 'payment_link']);

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
/** DESIGN section 11's default (`POLICY_BREAKER=5/10m/15m`). */
export const DEFAULT_BREAKER: Breaker = { max_failures: 5, window_seconds: 600, cooldown_seconds: 900 };

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

const Password = z.string().min(1, 'password is required: re-enter your password to change a policy').max(200);

/** PUT body, the editor's nested form: the policy, and the person's password (re-entered: only the person changes a policy). */
export const PutPolicyInput = z.strictObject({
  policy: SpendPolicy.extend({
    allowed_actions: z.array(PolicyActionInput).nullable().optional().describe('Only these kinds of action (`market` = `market_stake`); null or absent: all.'),
  }),
  password: Password,
});
export type PutPolicyInput = z.infer<typeof PutPolicyInput>;

/** A USD amount as a JSON number (>= 0, at most 6 decimals), read through its shortest text form; null: no rule. */
const UsdNumber = z
  .number()
  .min(0)
  .refine((n) => /^\d{1,12}(\.\d{1,6})?$/.test(String(n)), 'must be a USD amount >= 0 with at most 6 decimals, like 50 or 99.5')
  .nullable()
  .optional();
const FLAT_CAPS = { per_transaction_usd: 'per_transaction', daily_usd: 'daily', weekly_usd: 'weekly', monthly_usd: 'monthly' } as const;

/** The DESIGN fields of a policy (section 11): amounts as JSON numbers in USD, `null` = no rule. */
const FlatFields = {
  per_transaction_usd: UsdNumber.describe('Largest single action (USD); a cap allows an amount equal to it.'),
  daily_usd: UsdNumber.describe('Total over the last 24 hours (rolling), USD.'),
  weekly_usd: UsdNumber.describe('Total over the last 7 days (rolling), USD.'),
  monthly_usd: UsdNumber.describe('Total over the last 30 days (rolling), USD.'),
  approval_threshold_usd: UsdNumber.describe('Actions above this USD value wait for the signed-in person to confirm them.'),
  allow_recipients: z.array(RecipientPattern).max(200).nullable().optional().describe('Only these recipients; null: no rule, []: nobody.'),
  block_recipients: z.array(RecipientPattern).max(200).nullable().optional().describe('Never these recipients; null: no rule.'),
};

/** PUT body, DESIGN's flat form: replaces the whole policy (an omitted field is null, no rule). */
export const FlatPutPolicyInput = z.strictObject({
  password: Password,
  ...FlatFields,
  allowed_actions: z.array(PolicyActionInput).nullable().optional().describe('Only these kinds of action (`transfer`, `bill`, `market`, `payment_link`); null: all.'),
});
export type FlatPutPolicyInput = z.infer<typeof FlatPutPolicyInput>;

/** Either PUT form: `{password, policy:{...}}` (the editor's) or `{password, per_transaction_usd, ...}` (DESIGN's). */
export const AnyPutPolicyInput = z.union([FlatPutPolicyInput, PutPolicyInput]);

/** The stored action names (`market` -> `market_stake`), once each. */
export function storedActions(list: readonly z.infer<typeof PolicyActionInput>[]): PolicyAction[] {
  return [...new Set(list.map((a) => (a === 'market' ? 'market_stake' : a)))];
}

/** DESIGN's flat form as the stored policy: amounts kept as decimal text (their shortest form), never as floats. */
export function fromFlat(input: FlatPutPolicyInput): SpendPolicy {
  const usd: Caps = {};
  for (const [flat, cap] of Object.entries(FLAT_CAPS)) {
    const n = input[flat as keyof typeof FLAT_CAPS];
    if (n != null) usd[cap] = String(n);
  }
  return {
    ...(Object.keys(usd).length ? { usd } : {}),
    ...(input.approval_threshold_usd != null ? { approval_threshold_usd: String(input.approval_threshold_usd) } : {}),
    ...(input.allow_recipients != null ? { allow_recipients: input.allow_recipients } : {}),
    ...(input.block_recipients != null ? { block_recipients: input.block_recipients } : {}),
    ...(input.allowed_actions != null ? { allowed_actions: storedActions(input.allowed_actions) } : {}),
  };
}

const num = (text: string | null | undefined) => (text == null ? null : Number(text));
/** The stored policy in DESIGN's flat fields (numbers or null, `market` for `market_stake`). */
export function toFlat(p: SpendPolicy): FlatPolicy {
  return {
    per_transaction_usd: num(p.usd?.per_transaction),
    daily_usd: num(p.usd?.daily),
    weekly_usd: num(p.usd?.weekly),
    monthly_usd: num(p.usd?.monthly),
    approval_threshold_usd: num(p.approval_threshold_usd),
    allow_recipients: p.allow_recipients ?? null,
    block_recipients: p.block_recipients ?? null,
    allowed_actions: p.allowed_actions ? p.allowed_actions.map((a) => (a === 'market_stake' ? 'market' : a)) : null,
  };
}
const nullableNumber = z.number().nullable();
export const FlatPolicy = z.object({
  per_transaction_usd: nullableNumber,
  daily_usd: nullableNumber,
  weekly_usd: nullableNumber,
  monthly_usd: nullableNumber,
  approval_threshold_usd: nullableNumber,
  allow_recipients: z.array(z.string()).nullable(),
  block_recipients: z.array(z.string()).nullable(),
  allowed_actions: z.array(DesignAction).nullable(),
});
export type FlatPolicy = z.infer<typeof FlatPolicy>;

/** A policy as read back: DESIGN's flat fields, and the stored (nested) form under `policy` for the editor. */
export const PolicyView = FlatPolicy.extend({
  scope: z.enum(['account', 'key']),
  key_id: z.string().nullable(),
  policy: SpendPolicy.describe('The stored form (decimal text, per-currency caps, breaker) the app editor reads.'),
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
