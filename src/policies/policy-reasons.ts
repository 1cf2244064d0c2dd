/**
 * Why a spend policy refused or held an action (the `reason` of the agent's 422, or 429 for
 * `paused`). Each door shows the reply, which names the rule and what the person can do.
 */
export const PolicyReason = {
  /** Over a per-transaction, daily, weekly or monthly cap (USD or per currency). */
  overCap: 'policy_over_cap',
  /** The recipient is not on the allowlist. */
  recipientNotAllowed: 'policy_recipient_not_allowed',
  /** The recipient is on the blocklist. */
  recipientBlocked: 'policy_recipient_blocked',
  /** The kind of action (transfer, bill, market stake, payment link) is not allowed. */
  actionNotAllowed: 'policy_action_not_allowed',
  /** The circuit breaker paused this key's money-moving turns (Retry-After says how long). */
  paused: 'policy_paused',
  /** Over the approval threshold: only the signed-in person can confirm it. */
  approvalRequired: 'policy_approval_required',
} as const;
export type PolicyReason = (typeof PolicyReason)[keyof typeof PolicyReason];

/** Outcome reasons after which whether money moved is not known: the reservation stays. */
export const UNKNOWN_OUTCOME_REASONS: ReadonlySet<string> = new Set(['internal_error', 'interrupted', 'timeout', 'chain_unavailable', 'outcome_unknown']);
