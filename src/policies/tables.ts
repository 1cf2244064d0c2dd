/** The rows of spend policies (docs/policies.md). */
import { defineTable } from '../store/index.js';
import type { SpendPolicy } from './policy-schemas.js';

/** A policy: the account's (id = account id) or one API key's (id = key id). */
export interface PolicyRow {
  readonly id: string;
  accountId: string;
  scope: 'account' | 'key';
  keyId?: string;
  policy: SpendPolicy;
  updatedAt: string;
}
export const Policies = defineTable<PolicyRow>({ name: 'spend_policies', indexes: ['accountId'] });

/** `policy.updated`: every change, with the policy before and after. */
export interface PolicyEventRow {
  readonly id: string;
  accountId: string;
  type: 'policy.updated';
  scope: 'account' | 'key';
  keyId?: string;
  policy: SpendPolicy;
  previous: SpendPolicy;
  createdAt: string;
}
export const PolicyEvents = defineTable<PolicyEventRow>({ name: 'policy_events', indexes: ['accountId'] });

export type ReservationStatus = 'reserved' | 'committed' | 'released';

/**
 * An amount held against the caps before money moves: `reserved` while the outcome is not
 * known, `committed` once the action went through, `released` when it failed without moving
 * money. Reserved and committed rows count against every cap.
 */
export interface SpendReservation {
  readonly id: string;
  accountId: string;
  keyId?: string;
  /** transfer, bill or market_stake. */
  action: string;
  /** USD value in micro-dollars (6 decimals, the stablecoin's base units). */
  usd: string;
  currency: string;
  /** The amount in `currency`'s minor units. */
  minor: string;
  status: ReservationStatus;
  /** false: spent through a test key. Caps count each mode's spending apart (docs/policies.md); rows before test mode have none and are live. */
  livemode?: boolean;
  createdAt: string;
  updatedAt: string;
}
export const SpendReservations = defineTable<SpendReservation>({
  name: 'spend_reservations',
  indexes: ['accountId'],
  ranges: [['accountId', 'createdAt']],
});

/** One key's circuit breaker: recent refusals and failures, and the pause they caused. */
export interface BreakerRow {
  /** The key id. */
  readonly id: string;
  accountId: string;
  /** ISO times of refusals and failures inside the current window. */
  failures: string[];
  pausedUntil?: string;
}
export const Breakers = defineTable<BreakerRow>({ name: 'policy_breakers', indexes: ['accountId'] });
