import type { Address } from 'viem';
import { usdcDecimal } from '../lib/money.js';
import type { Reservation } from '../limits/limits.js';
import { defineTable } from '../store/index.js';
import type { Payout } from './parimutuel.js';

/**
 * What the markets module stores and answers with: the market and stake rows and their
 * tables, the refusal reasons, and the shapes users see (a market's view, a payout report).
 *
 *   stored: open -> resolving -> resolved        open -> cancelling -> cancelled
 *   shown:  open (before closesAt), closed (open, after closesAt), then as stored
 */
export type MarketStatus = 'open' | 'resolving' | 'resolved' | 'cancelling' | 'cancelled';
export type MarketDisplayStatus = MarketStatus | 'closed';

export interface Market {
  readonly id: string;
  /** false: a test-mode market (made through a test key, or on test mode's chain; docs/test-mode.md). */
  livemode?: boolean;
  /** 0-based creation sequence: picks the escrow wallet. */
  seq: number;
  escrowIndex: number;
  creatorAccountId: string;
  question: string;
  outcomes: string[];
  closesAt: string;
  status: MarketStatus;
  /** Settled stakes per outcome, base units. */
  pools: string[];
  totalPool: string;
  stakeCount: number;
  winningOutcome?: number;
  createdAt: string;
  updatedAt: string;
  resolvedAt?: string;
  cancelledAt?: string;
}

export const Markets = defineTable<Market>({
  name: 'markets',
  unique: [['seq'], ['escrowIndex']],
  indexes: ['creatorAccountId', 'status'],
});

export type StakeStatus = 'submitted' | 'settled' | 'failed';
export type PayoutStatus = 'none' | 'pending' | 'paid';

export interface Stake {
  readonly id: string;
  /** false: on a test-mode market (a stake is of its market's mode). */
  livemode?: boolean;
  marketId: string;
  accountId: string;
  outcome: number;
  outcomeLabel: string;
  /** Base units moved into escrow. */
  amount: string;
  currency: string;
  localAmount: string;
  localAmountMinor: string;
  rate: string;
  fromIndex: number;
  fromAddress: string;
  status: StakeStatus;
  reservation?: Reservation;
  /** The spend policy's reservation, written with this row; ended by its outcome (docs/policies.md). */
  spendReservationId?: string;
  txHash?: string;
  failureReason?: string;
  payoutKind?: Payout['kind'];
  payoutAmount?: string;
  payoutStatus?: PayoutStatus;
  payoutTxHash?: string;
  payoutError?: string;
  createdAt: string;
  updatedAt: string;
}

export const Stakes = defineTable<Stake>({ name: 'market_stakes', indexes: ['marketId', 'accountId', 'status'] });

export const MarketReason = {
  accountNotFound: 'account_not_found',
  marketNotFound: 'market_not_found',
  ambiguousMarket: 'ambiguous_market',
  marketClosed: 'market_closed',
  notCreator: 'not_creator',
  notClosedYet: 'not_closed_yet',
  invalidOutcome: 'invalid_outcome',
  invalidOutcomes: 'invalid_outcomes',
  invalidCloseTime: 'invalid_close_time',
  insufficientBalance: 'insufficient_balance',
  overLimit: 'over_limit',
  alreadyResolved: 'already_resolved',
  marketCancelled: 'market_cancelled',
  stakesPending: 'stakes_pending',
  stakeFailed: 'stake_failed',
  chainUnavailable: 'chain_unavailable',
  unsupportedCurrency: 'unsupported_currency',
  tooManyDecimals: 'too_many_decimals',
  invalidAmount: 'invalid_amount',
} as const;
export type MarketFailure = (typeof MarketReason)[keyof typeof MarketReason];

/** A market as users see it. */
export interface MarketView {
  id: string;
  question: string;
  outcomes: Array<{ index: number; label: string; pool: string; pool_base_units: string }>;
  status: MarketDisplayStatus;
  closes_at: string;
  total_pool: string;
  total_pool_base_units: string;
  stake_count: number;
  escrow_address: Address;
  creator_account_id: string;
  winning_outcome: string | null;
  created_at: string;
}

/** The status users see: an open market past its close time is `closed`. */
export function shownStatus(m: Market, now: Date): MarketDisplayStatus {
  return m.status === 'open' && Date.parse(m.closesAt) <= now.getTime() ? 'closed' : m.status;
}

export function marketView(m: Market, escrowAddress: Address, now: Date): MarketView {
  return {
    id: m.id,
    question: m.question,
    outcomes: m.outcomes.map((label, index) => {
      const pool = BigInt(m.pools[index] ?? '0');
      return { index, label, pool: usdcDecimal(pool), pool_base_units: pool.toString() };
    }),
    status: shownStatus(m, now),
    closes_at: m.closesAt,
    total_pool: usdcDecimal(m.totalPool),
    total_pool_base_units: m.totalPool,
    stake_count: m.stakeCount,
    escrow_address: escrowAddress,
    creator_account_id: m.creatorAccountId,
    winning_outcome: m.winningOutcome === undefined ? null : (m.outcomes[m.winningOutcome] ?? null),
    created_at: m.createdAt,
  };
}

export interface PayoutReport {
  paid: number;
  unpaid: number;
  /** Sum of payouts to stakes, base units. */
  total: bigint;
  payouts: Array<{ stake_id: string; kind: Payout['kind']; amount: bigint; status: PayoutStatus; tx_hash: string | null }>;
}
