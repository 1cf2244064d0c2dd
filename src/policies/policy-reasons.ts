/**
 * Why a spend policy refused or held an action (DESIGN section 11, "policy outcomes on any door"):
 * the `reason` of the agent's 422, 429 for the breaker, and the held 200's `approval_required`.
 * Each door shows the reply, which names the rule and what the person can do.
 */
export const PolicyReason = {
  /** Over a per-transaction cap (USD, or one currency's). */
  perTransaction: 'policy_per_transaction',
  /** Over a rolling 24-hour cap (USD, or one currency's). */
  daily: 'policy_daily',
  /** Over a rolling 7-day cap. */
  weekly: 'policy_weekly',
  /** Over a rolling 30-day cap. */
  monthly: 'policy_monthly',
  /** The recipient is not on the allowlist, or is on the blocklist. */
  recipient: 'policy_recipient',
  /** The kind of action (transfer, bill, market, payment link) is not allowed. */
  action: 'policy_action',
  /** The circuit breaker paused this key's money-moving turns (429, Retry-After says how long). */
  breaker: 'policy_breaker',
  /** Over the approval threshold: held (200 with `pending`); only the signed-in person can confirm it. */
  approvalRequired: 'approval_required',
} as const;
export type PolicyReason = (typeof PolicyReason)[keyof typeof PolicyReason];

/** The refusal reason of a cap by its window. */
export const CAP_REASON = {
  per_transaction: PolicyReason.perTransaction,
  daily: PolicyReason.daily,
  weekly: PolicyReason.weekly,
  monthly: PolicyReason.monthly,
} as const;

/** Outcome reasons after which whether money moved is not known: the reservation stays. */
export const UNKNOWN_OUTCOME_REASONS: ReadonlySet<string> = new Set(['internal_error', 'interrupted', 'timeout', 'chain_unavailable', 'outcome_unknown']);
