import type { Address } from 'viem';
import type { Logger } from 'pino';
import type { Account, AccountsService } from '../accounts/accounts.js';
import type { ChainPort } from '../chain/port.js';
import type { FxService } from '../fx/rates.js';
import { newId, nowIso } from '../lib/ids.js';
import { formatUsdc, usdcDecimal } from '../lib/money.js';
import { fail, type Result } from '../lib/results.js';
import { checkPerOperation, limitsFor, releaseSpend, type Limits, type Reservation } from '../limits/limits.js';
import { defineTable, type Store } from '../store/index.js';
import { moveOnce, type MoveOutcome } from '../wallet/custodial-move.js';
import type { RelayAttempts } from '../chain/owned-relay.js';
import { dropHold, holdKey, settleHold, withWalletFunds } from '../wallet/holds.js';
import type { WalletDirectory } from '../wallet/directory.js';
import { marketEscrowIndex } from '../wallet/reserved.js';
import { parimutuelPayouts, refundAll, type Payout } from './parimutuel.js';
import type { CancelMarketInput, CreateMarketInput, ListMarketsInput, ResolveMarketInput, StakeMarketInput } from './market-inputs.js';
import { matchOutcome, questionMatches } from './match.js';

/**
 * Prediction markets with on-chain escrow. Stakes move from the staker's custodial wallet
 * to the market's own escrow wallet (a custodial address in the reserved escrow range);
 * resolution pays the pool out parimutuel, cancellation refunds every stake. Every payout
 * uses the nonce nonceFor('payout', `${marketId}:${stakeId}`), so a stake is paid at most
 * once whatever is retried.
 *
 *   stored: open -> resolving -> resolved        open -> cancelling -> cancelled
 *   shown:  open (before closesAt), closed (open, after closesAt), then as stored
 */
export type MarketStatus = 'open' | 'resolving' | 'resolved' | 'cancelling' | 'cancelled';
export type MarketDisplayStatus = MarketStatus | 'closed';

export interface Market {
  readonly id: string;
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

export interface PayoutReport {
  paid: number;
  unpaid: number;
  /** Sum of payouts to stakes, base units. */
  total: bigint;
  payouts: Array<{ stake_id: string; kind: Payout['kind']; amount: bigint; status: PayoutStatus; tx_hash: string | null }>;
}

export interface MarketsOptions {
  defaultLimits?: Limits;
  /** Latest allowed close time, from now. Default one year. */
  maxHorizonMs?: number;
  confirmTimeoutMs?: number;
  /** The attempt ledger: one owner per relayed move across instances (src/chain/owned-relay.ts, issue 21). */
  attempts?: RelayAttempts;
  /** Payouts sent at once (the relayer's nonce manager orders them). */
  payoutConcurrency?: number;
  logger?: Logger;
  now?: () => Date;
}

const YEAR_MS = 366 * 86_400_000;
const fmtStable = formatUsdc;

export class MarketsService {
  private readonly now: () => Date;

  constructor(
    private readonly store: Store,
    private readonly chain: ChainPort,
    private readonly fx: FxService,
    private readonly accounts: AccountsService,
    private readonly wallets: WalletDirectory,
    private readonly opts: MarketsOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  get(id: string): Promise<Market | undefined> {
    return this.store.table(Markets).get(id);
  }

  /** An account's own stakes, newest first (for its activity list). */
  stakesOf(accountId: string, limit = 50): Promise<Stake[]> {
    return this.store.table(Stakes).findMany({ accountId }, { order: 'desc', limit });
  }

  stakes(marketId: string): Promise<Stake[]> {
    return this.store.table(Stakes).findMany({ marketId });
  }

  escrowAddress(market: Pick<Market, 'escrowIndex'>): Address {
    return this.wallets.address(market.escrowIndex);
  }

  displayStatus(m: Market, now: Date = this.now()): MarketDisplayStatus {
    return m.status === 'open' && Date.parse(m.closesAt) <= now.getTime() ? 'closed' : m.status;
  }

  view(m: Market): MarketView {
    return {
      id: m.id,
      question: m.question,
      outcomes: m.outcomes.map((label, index) => {
        const pool = BigInt(m.pools[index] ?? '0');
        return { index, label, pool: usdcDecimal(pool), pool_base_units: pool.toString() };
      }),
      status: this.displayStatus(m),
      closes_at: m.closesAt,
      total_pool: usdcDecimal(m.totalPool),
      total_pool_base_units: m.totalPool,
      stake_count: m.stakeCount,
      escrow_address: this.escrowAddress(m),
      creator_account_id: m.creatorAccountId,
      winning_outcome: m.winningOutcome === undefined ? null : (m.outcomes[m.winningOutcome] ?? null),
      created_at: m.createdAt,
    };
  }

  // ------------------------------------------------------------------------ create, list

  async create(accountId: string, input: CreateMarketInput): Promise<Result<{ market: Market }, MarketFailure>> {
    const account = await this.accounts.get(accountId);
    if (!account) return fail(MarketReason.accountNotFound, 'Your account was not found.');
    const outcomes = input.outcomes ?? ['Yes', 'No'];
    const seen = new Set<string>();
    for (const o of outcomes) {
      const k = o.trim().toLowerCase();
      if (seen.has(k)) return fail(MarketReason.invalidOutcomes, `The outcome "${o}" appears twice.`, 'outcomes');
      seen.add(k);
    }
    const now = this.now();
    const closes = Date.parse(input.closes_at);
    if (!Number.isFinite(closes) || closes <= now.getTime()) {
      return fail(MarketReason.invalidCloseTime, 'The close time must be in the future.', 'closes_at');
    }
    if (closes - now.getTime() > (this.opts.maxHorizonMs ?? YEAR_MS)) {
      return fail(MarketReason.invalidCloseTime, 'The close time must be within a year.', 'closes_at');
    }
    const market = await this.store.write(Markets, async (t) => {
      // Inside the transaction nobody else can take the same sequence number (and escrow).
      const seq = await t.count();
      return t.insert({
        id: newId('mkt'),
        seq,
        escrowIndex: marketEscrowIndex(seq),
        creatorAccountId: accountId,
        question: input.question.trim(),
        outcomes: outcomes.map((o) => o.trim()),
        closesAt: new Date(closes).toISOString(),
        status: 'open',
        pools: outcomes.map(() => '0'),
        totalPool: '0',
        stakeCount: 0,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      });
    });
    return { ok: true, market };
  }

  /** Newest first; `status` uses the shown status (open means still taking stakes). */
  async list(input: ListMarketsInput = {}, opts: { limit?: number } = {}): Promise<Market[]> {
    const now = this.now();
    const all = await this.store.table(Markets).findMany({}, { order: 'desc' });
    const wanted = (m: Market) => {
      if (!input.status) return true;
      const s = this.displayStatus(m, now);
      if (input.status === 'resolved') return s === 'resolved' || s === 'resolving';
      if (input.status === 'cancelled') return s === 'cancelled' || s === 'cancelling';
      return s === input.status;
    };
    return all.filter(wanted).slice(0, opts.limit ?? 20);
  }

  /**
   * A market by id or by words of its question. `stake` looks among markets taking stakes;
   * `manage` among the account's own unresolved markets (resolve, cancel).
   */
  async find(
    ref: string,
    scope: 'stake' | 'manage',
    accountId: string,
  ): Promise<Result<{ market: Market }, MarketFailure> & { candidates?: MarketView[] }> {
    const text = ref.trim();
    const now = this.now();
    if (/^mkt_[A-Za-z0-9]+$/.test(text)) {
      const m = await this.get(text);
      return m ? { ok: true, market: m } : fail(MarketReason.marketNotFound, `No such market: ${text}.`, 'market');
    }
    const all = await this.store.table(Markets).findMany();
    const matching = all.filter((m) => questionMatches(text, m.question));
    const inScope =
      scope === 'stake'
        ? matching.filter((m) => this.displayStatus(m, now) === 'open')
        : matching.filter((m) => m.creatorAccountId === accountId && (m.status === 'open' || m.status === 'resolving' || m.status === 'cancelling'));
    const exact = inScope.filter((m) => m.question.toLowerCase().replace(/[?!.\s]+$/, '') === text.toLowerCase().replace(/[?!.\s]+$/, ''));
    const pick = exact.length === 1 ? exact : inScope;
    if (pick.length === 1) return { ok: true, market: pick[0]! };
    if (pick.length > 1) {
      return {
        ...fail(
          MarketReason.ambiguousMarket,
          `"${text}" matches ${pick.length} markets: ${pick.slice(0, 5).map((m) => `"${m.question}" (${m.id})`).join(', ')}. Which one?`,
          'market',
        ),
        candidates: pick.slice(0, 5).map((m) => this.view(m)),
      };
    }
    // Nothing in scope: say why, when the words do match a market.
    const newest = matching[matching.length - 1];
    if (newest) return { ok: true, market: newest };
    return fail(MarketReason.marketNotFound, `I couldn't find a market matching "${text}".`, 'market');
  }

  // ------------------------------------------------------------------------ stake

  async stake(accountId: string, input: StakeMarketInput): Promise<Result<{ stake: Stake; market: Market }, MarketFailure>> {
    const account = await this.accounts.get(accountId);
    if (!account) return fail(MarketReason.accountNotFound, 'Your account was not found.');
    const checked = await this.checkStake(account, input);
    if (!checked.ok) return checked;
    const { market, outcome, amount, conversion } = checked;
    const fromAddress = this.wallets.addressOf(account);

    const now = this.now();
    const id = newId('stk');
    // Balance read outside, checked inside net of other moves in flight from this wallet.
    const recorded = await withWalletFunds(this.store, this.chain, fromAddress, async (tx, funds) => {
      const m = await tx.table(Markets).get(market.id);
      if (!m || m.status !== 'open' || Date.parse(m.closesAt) <= now.getTime()) {
        return fail(MarketReason.marketClosed, 'This market is no longer taking stakes.', 'market');
      }
      const reserved = await funds.reserve({
        key: holdKey('stake', id),
        amount,
        limit: { account, amount, now, defaults: this.opts.defaultLimits },
        fmt: fmtStable,
      });
      if (!reserved.ok) return fail(reserved.reason, reserved.message, 'amount');
      const stake = await tx.table(Stakes).insert({
        id,
        marketId: m.id,
        accountId,
        outcome,
        outcomeLabel: m.outcomes[outcome]!,
        amount: amount.toString(),
        currency: conversion.currency,
        localAmount: conversion.amount,
        localAmountMinor: conversion.amountMinor.toString(),
        rate: conversion.rate,
        fromIndex: account.walletIndex,
        fromAddress,
        status: 'submitted',
        reservation: reserved.reservation,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      });
      return { ok: true as const, stake };
    });
    if (!recorded.ok) {
      return recorded.reason === 'chain_unavailable' ? fail(MarketReason.chainUnavailable, 'The network is not reachable right now; nothing was staked.') : recorded;
    }

    const outcomeOfMove = await this.moveStake(recorded.stake, market);
    const stake = await this.recordStake(recorded.stake, outcomeOfMove);
    const latest = (await this.get(market.id))!;
    if (outcomeOfMove.status === 'failed') {
      return outcomeOfMove.reason === 'insufficient_balance'
        ? fail(MarketReason.insufficientBalance, 'Insufficient balance: your wallet no longer holds enough for this stake. Nothing was staked.', 'amount')
        : fail(MarketReason.stakeFailed, `The stake was rejected by the network; nothing was moved. (${outcomeOfMove.message})`);
    }
    return { ok: true, stake, market: latest };
  }

  /** Everything about a stake that can be checked without moving money (also the preview). */
  async checkStake(
    account: Account,
    input: StakeMarketInput,
  ): Promise<
    Result<
      { market: Market; outcome: number; amount: bigint; conversion: { currency: string; amount: string; amountMinor: bigint; rate: string } },
      MarketFailure
    >
  > {
    const found = await this.find(input.market, 'stake', account.id);
    if (!found.ok) return found;
    const market = found.market;
    const shown = this.displayStatus(market);
    if (shown !== 'open') {
      return fail(MarketReason.marketClosed, `The market "${market.question}" is ${shown} and no longer takes stakes.`, 'market');
    }
    const outcome = matchOutcome(market.outcomes, input.outcome);
    if (outcome === undefined) {
      return fail(MarketReason.invalidOutcome, `"${input.outcome}" is not an outcome of this market; choose ${market.outcomes.join(' or ')}.`, 'outcome');
    }
    const conv = this.fx.toStablecoin(input.amount, input.currency ?? account.localCurrency);
    if (!conv.ok) return conv;
    const amount = conv.conversion.stablecoinAmount;
    if (amount <= 0n) return fail(MarketReason.invalidAmount, 'That amount is too small to stake.', 'amount');
    const per = checkPerOperation(limitsFor(account, this.opts.defaultLimits), amount, fmtStable);
    if (!per.ok) return per;
    return { ok: true, market, outcome, amount, conversion: conv.conversion };
  }

  private moveStake(stake: Stake, market: Market): Promise<MoveOutcome> {
    return moveOnce(
      this.chain,
      {
        fromIndex: stake.fromIndex,
        to: this.escrowAddress(market),
        value: BigInt(stake.amount),
        kind: 'stake',
        id: stake.id,
      },
      this.opts.confirmTimeoutMs,
      this.opts.attempts,
    );
  }

  private recordStake(stake: Stake, outcome: MoveOutcome): Promise<Stake> {
    return this.store.transaction(async (tx) => {
      const st = tx.table(Stakes);
      const at = nowIso();
      if (outcome.status === 'settled') {
        const row = await st.update(stake.id, { status: 'settled', txHash: outcome.txHash, updatedAt: at }, { status: 'submitted' });
        if (row) {
          await settleHold(tx, stake.fromAddress, holdKey('stake', stake.id), BigInt(stake.amount));
          const mt = tx.table(Markets);
          const m = (await mt.get(stake.marketId))!;
          const pools = m.pools.map((p, i) => (i === stake.outcome ? (BigInt(p) + BigInt(stake.amount)).toString() : p));
          const updated = await mt.update(
            m.id,
            { pools, totalPool: (BigInt(m.totalPool) + BigInt(stake.amount)).toString(), stakeCount: m.stakeCount + 1, updatedAt: at },
            { totalPool: m.totalPool },
          );
          if (!updated) throw new Error(`market ${m.id} changed concurrently`);
        }
        return row ?? (await st.get(stake.id))!;
      }
      if (outcome.status === 'failed') {
        const row = await st.update(stake.id, { status: 'failed', failureReason: outcome.reason, updatedAt: at }, { status: 'submitted' });
        if (row) {
          await dropHold(tx, stake.fromAddress, holdKey('stake', stake.id));
          if (stake.reservation) await releaseSpend(tx, stake.accountId, stake.reservation);
        }
        return row ?? (await st.get(stake.id))!;
      }
      if (outcome.txHash) await st.update(stake.id, { txHash: outcome.txHash, updatedAt: at }, { status: 'submitted' });
      return (await st.get(stake.id))!;
    });
  }

  /** Ids of markets with stakes or payouts stopped part-way, untouched for `idleMs` (for a periodic sweep). */
  async unfinished(idleMs = 120_000): Promise<{ stakes: string[]; payouts: string[] }> {
    const before = this.now().getTime() - idleMs;
    const idle = (r: { updatedAt: string }) => Date.parse(r.updatedAt) <= before;
    const stakes = (await this.store.table(Stakes).findMany({ status: 'submitted' })).filter(idle).map((s) => s.marketId);
    const mt = this.store.table(Markets);
    const settling = [...(await mt.findMany({ status: 'resolving' })), ...(await mt.findMany({ status: 'cancelling' }))];
    return { stakes: [...new Set(stakes)], payouts: settling.filter(idle).map((m) => m.id) };
  }

  /** Finishes stakes left `submitted` (same nonce: never moves money twice). */
  async reconcileStakes(marketId: string): Promise<number> {
    const market = await this.get(marketId);
    if (!market) return 0;
    let left = 0;
    for (const s of await this.store.table(Stakes).findMany({ marketId, status: 'submitted' })) {
      const row = await this.recordStake(s, await this.moveStake(s, market));
      if (row.status === 'submitted') left++;
    }
    return left;
  }

  // ------------------------------------------------------------------------ resolve, cancel

  async resolve(accountId: string, input: ResolveMarketInput): Promise<Result<{ market: Market; report: PayoutReport }, MarketFailure>> {
    const found = await this.find(input.market, 'manage', accountId);
    if (!found.ok) return found;
    let market = found.market;
    if (market.creatorAccountId !== accountId) {
      return fail(MarketReason.notCreator, 'Only the creator of this market can resolve it.', 'market');
    }
    const outcome = matchOutcome(market.outcomes, input.outcome);
    if (outcome === undefined) {
      return fail(MarketReason.invalidOutcome, `"${input.outcome}" is not an outcome of this market; choose ${market.outcomes.join(' or ')}.`, 'outcome');
    }
    if (market.status === 'resolved' || (market.status === 'resolving' && market.winningOutcome !== outcome)) {
      return fail(MarketReason.alreadyResolved, `This market was already resolved as "${market.outcomes[market.winningOutcome ?? 0]}".`, 'market');
    }
    if (market.status === 'cancelled' || market.status === 'cancelling') {
      return fail(MarketReason.marketCancelled, 'This market was cancelled and its stakes refunded.', 'market');
    }
    if (market.status === 'open') {
      if (Date.parse(market.closesAt) > this.now().getTime()) {
        return fail(MarketReason.notClosedYet, `This market closes at ${market.closesAt}; it can be resolved after that.`, 'market');
      }
      const started = await this.settleBook(market, 'resolving', (stakes) => parimutuelPayouts(stakes, outcome), { winningOutcome: outcome });
      if (!started.ok) return started;
      market = started.market;
    }
    return this.payOut(market, 'resolved');
  }

  async cancel(accountId: string, input: CancelMarketInput): Promise<Result<{ market: Market; report: PayoutReport }, MarketFailure>> {
    const found = await this.find(input.market, 'manage', accountId);
    if (!found.ok) return found;
    let market = found.market;
    if (market.creatorAccountId !== accountId) {
      return fail(MarketReason.notCreator, 'Only the creator of this market can cancel it.', 'market');
    }
    if (market.status === 'resolved' || market.status === 'resolving') {
      return fail(MarketReason.alreadyResolved, 'This market was already resolved and cannot be cancelled.', 'market');
    }
    if (market.status === 'cancelled') {
      return fail(MarketReason.marketCancelled, 'This market is already cancelled.', 'market');
    }
    if (market.status === 'open') {
      const started = await this.settleBook(market, 'cancelling', refundAll, {});
      if (!started.ok) return started;
      market = started.market;
    }
    return this.payOut(market, 'cancelled');
  }

  /** Retries unpaid payouts of a resolving/cancelling market (idempotent). */
  async settlePayouts(marketId: string): Promise<Result<{ market: Market; report: PayoutReport }, MarketFailure>> {
    const market = await this.get(marketId);
    if (!market) return fail(MarketReason.marketNotFound, `No such market: ${marketId}.`);
    if (market.status === 'open') return fail(MarketReason.notClosedYet, 'This market is not being paid out.');
    return this.payOut(market, market.status === 'resolving' || market.status === 'resolved' ? 'resolved' : 'cancelled');
  }

  /**
   * Freezes the book: open -> resolving|cancelling, and every settled stake gets its payout
   * amount, in one transaction. Stakes still in flight are finished first.
   */
  private async settleBook(
    market: Market,
    status: 'resolving' | 'cancelling',
    split: (stakes: Array<{ id: string; outcome: number; amount: bigint }>) => Payout[],
    patch: Partial<Market>,
  ): Promise<Result<{ market: Market }, MarketFailure>> {
    if ((await this.reconcileStakes(market.id)) > 0) {
      return fail(MarketReason.stakesPending, 'Some stakes are still being confirmed on-chain; try again in a minute.');
    }
    return this.store.transaction(async (tx) => {
      const st = tx.table(Stakes);
      if ((await st.count({ marketId: market.id, status: 'submitted' })) > 0) {
        return fail(MarketReason.stakesPending, 'Some stakes are still being confirmed on-chain; try again in a minute.');
      }
      const at = nowIso();
      const row = await tx.table(Markets).update(
        market.id,
        { status, ...patch, ...(status === 'resolving' ? { resolvedAt: at } : { cancelledAt: at }), updatedAt: at },
        { status: 'open' },
      );
      if (!row) return fail(MarketReason.alreadyResolved, 'This market was resolved or cancelled meanwhile.', 'market');
      const settled = await st.findMany({ marketId: market.id, status: 'settled' });
      const payouts = split(settled.map((s) => ({ id: s.id, outcome: s.outcome, amount: BigInt(s.amount) })));
      for (const p of payouts) {
        await st.update(p.id, {
          payoutKind: p.kind,
          payoutAmount: p.amount.toString(),
          payoutStatus: p.amount > 0n ? 'pending' : 'none',
          updatedAt: at,
        });
      }
      return { ok: true as const, market: row };
    });
  }

  /** Sends every pending payout from escrow; the market is final once none is left. */
  private async payOut(market: Market, final: 'resolved' | 'cancelled'): Promise<Result<{ market: Market; report: PayoutReport }, MarketFailure>> {
    const pending = (await this.stakes(market.id)).filter((s) => s.payoutStatus === 'pending');
    const concurrency = this.opts.payoutConcurrency ?? 8;
    for (let i = 0; i < pending.length; i += concurrency) {
      await Promise.all(
        pending.slice(i, i + concurrency).map(async (s) => {
          const outcome = await moveOnce(
            this.chain,
            {
              fromIndex: market.escrowIndex,
              to: s.fromAddress as Address,
              value: BigInt(s.payoutAmount!),
              kind: 'payout',
              id: `${market.id}:${s.id}`,
            },
            this.opts.confirmTimeoutMs,
            this.opts.attempts,
          );
          await this.store.write(Stakes, (t) =>
            outcome.status === 'settled'
              ? t.update(s.id, { payoutStatus: 'paid', payoutTxHash: outcome.txHash, updatedAt: nowIso() }, { payoutStatus: 'pending' })
              : t.update(s.id, { payoutError: outcome.message, ...(outcome.status === 'pending' && outcome.txHash ? { payoutTxHash: outcome.txHash } : {}), updatedAt: nowIso() }),
          );
          if (outcome.status !== 'settled') this.opts.logger?.warn({ marketId: market.id, stakeId: s.id, outcome }, 'payout not done yet');
        }),
      );
    }
    const stakes = await this.stakes(market.id);
    const report: PayoutReport = { paid: 0, unpaid: 0, total: 0n, payouts: [] };
    for (const s of stakes) {
      if (!s.payoutKind) continue;
      const amount = BigInt(s.payoutAmount ?? '0');
      report.total += amount;
      if (s.payoutStatus === 'paid') report.paid++;
      if (s.payoutStatus === 'pending') report.unpaid++;
      report.payouts.push({ stake_id: s.id, kind: s.payoutKind, amount, status: s.payoutStatus ?? 'none', tx_hash: s.payoutTxHash ?? null });
    }
    let latest = (await this.get(market.id))!;
    if (report.unpaid === 0 && latest.status !== final) {
      const from = final === 'resolved' ? 'resolving' : 'cancelling';
      latest = (await this.store.write(Markets, (t) => t.update(market.id, { status: final, updatedAt: nowIso() }, { status: from }))) ?? (await this.get(market.id))!;
    }
    return { ok: true, market: latest, report };
  }
}
