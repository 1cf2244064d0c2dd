import type { Address } from 'viem';
import type { Account } from '../accounts/accounts.js';
import { newId } from '../lib/ids.js';
import { callerMark, inMode, isLive, servedBy, type CallMeta } from '../lib/livemode.js';
import { formatUsdc } from '../lib/money.js';
import { fail, type Result } from '../lib/results.js';
import { checkPerOperation, limitsFor } from '../limits/limits.js';
import type { MoveOutcome } from '../wallet/custodial-move.js';
import { holdKey, withWalletFunds } from '../wallet/holds.js';
import { MoneyModule, endRowSpend, moveFailure, recordUserMove, spentBy, submittedMove, type MoneyModuleOptions, type SpendInTx } from '../wallet/money-module.js';
import { marketEscrowIndex } from '../wallet/reserved.js';
import { MarketReason, Markets, Stakes, marketView, shownStatus, type Market, type MarketDisplayStatus, type MarketFailure, type MarketView, type PayoutReport, type Stake } from './market-records.js';
import type { CancelMarketInput, CreateMarketInput, ListMarketsInput, ResolveMarketInput, StakeMarketInput } from './market-inputs.js';
import { freezeBook, payOut } from './market-payouts.js';
import { parimutuelPayouts, refundAll, type Payout } from './parimutuel.js';
import { matchOutcome } from './match.js';
import { findByWords, type Found } from './market-lookup.js';

/**
 * Prediction markets with on-chain escrow. Stakes move from the staker's custodial wallet
 * to the market's own escrow wallet (a custodial address in the reserved escrow range);
 * resolution pays the pool out parimutuel, cancellation refunds every stake
 * (market-payouts.ts). The rows, reasons and views are in market-records.ts.
 */
export {
  MarketReason,
  Markets,
  Stakes,
  type Market,
  type MarketDisplayStatus,
  type MarketFailure,
  type MarketStatus,
  type MarketView,
  type PayoutReport,
  type PayoutStatus,
  type Stake,
  type StakeStatus,
} from './market-records.js';

export interface MarketsOptions extends MoneyModuleOptions {
  /** Latest allowed close time, from now. Default one year. */
  maxHorizonMs?: number;
  /** Payouts sent at once (the relayer's nonce manager orders them). */
  payoutConcurrency?: number;
}

const YEAR_MS = 366 * 86_400_000;
const fmtStable = formatUsdc;

export class MarketsService extends MoneyModule<MarketsOptions> {
  /**
   * `livemode`: the caller's mode (a key's); the other mode's market is not found, also on the
   * embedded chain both modes share. Omitted: any mode this service serves (sweeps, internal reads).
   */
  async get(id: string, livemode?: boolean): Promise<Market | undefined> {
    const m = await this.store.table(Markets).get(id);
    return m && this.sees(m, livemode) ? m : undefined;
  }

  /** The caller's mode: a call's meta without one is live (CallMeta), or this service's mode when it serves one. */
  private callerMode(meta: CallMeta): boolean {
    return meta.livemode ?? this.opts.livemode ?? true;
  }

  /** One chain per market (the other chain's are unseen), and the caller sees its own mode only. */
  private sees(m: Market, livemode: boolean | undefined): boolean {
    return servedBy(m, this.opts.livemode) && servedBy(m, livemode);
  }

  /** An account's own stakes, newest first (for its activity list); `livemode`: on that mode's markets only. */
  async stakesOf(accountId: string, limit = 50, livemode?: boolean): Promise<Stake[]> {
    const stakes = await this.store.table(Stakes).findMany({ accountId }, { order: 'desc', ...(livemode === undefined ? { limit } : {}) });
    if (livemode === undefined) return stakes;
    // A stake is of its market's mode (a market is of one mode).
    const ids = [...new Set(stakes.map((s) => s.marketId))];
    const markets = await Promise.all(ids.map((id) => this.store.table(Markets).get(id)));
    const mine = new Set(markets.filter((m) => m && inMode(m, livemode)).map((m) => m!.id));
    return stakes.filter((s) => mine.has(s.marketId)).slice(0, limit);
  }

  stakes(marketId: string): Promise<Stake[]> {
    return this.store.table(Stakes).findMany({ marketId });
  }

  escrowAddress(market: Pick<Market, 'escrowIndex'>): Address {
    return this.wallets.address(market.escrowIndex);
  }

  displayStatus(m: Market, now: Date = this.now()): MarketDisplayStatus {
    return shownStatus(m, now);
  }

  view(m: Market): MarketView {
    return marketView(m, this.escrowAddress(m), this.now());
  }

  // ------------------------------------------------------------------------ create, list

  /** A market is of its creator's mode (`meta.livemode`: false for a test key) or of this service's chain. */
  async create(accountId: string, input: CreateMarketInput, meta: CallMeta = {}): Promise<Result<{ market: Market }, MarketFailure>> {
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
        ...callerMark(this.opts.livemode, meta.livemode),
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

  /** Newest first; `status` uses the shown status (open means still taking stakes); `livemode`: the caller's mode. */
  async list(input: ListMarketsInput = {}, opts: { limit?: number; livemode?: boolean } = {}): Promise<Market[]> {
    const now = this.now();
    const all = (await this.store.table(Markets).findMany({}, { order: 'desc' })).filter((m) => this.sees(m, opts.livemode));
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
   * A market by id or by words of its question (market-lookup.ts), among the caller's mode's
   * (`livemode`). `stake` looks among markets taking stakes; `manage` among the account's own
   * unresolved markets (resolve, cancel).
   */
  async find(ref: string, scope: 'stake' | 'manage', accountId: string, livemode?: boolean): Promise<Found> {
    const text = ref.trim();
    if (/^mkt_[A-Za-z0-9]+$/.test(text)) {
      const m = await this.get(text, livemode);
      return m ? { ok: true, market: m } : fail(MarketReason.marketNotFound, `No such market: ${text}.`, 'market');
    }
    const all = (await this.store.table(Markets).findMany()).filter((m) => this.sees(m, livemode));
    const now = this.now();
    return findByWords(all, text, scope, accountId, { shown: (m) => this.displayStatus(m, now), view: (m) => this.view(m) });
  }

  // ------------------------------------------------------------------------ stake

  /** `meta.livemode`: the caller's mode; only its mode's markets take its stakes. */
  async stake(accountId: string, input: StakeMarketInput, meta: CallMeta & { spend?: SpendInTx } = {}): Promise<Result<{ stake: Stake; market: Market }, MarketFailure>> {
    const account = await this.accounts.get(accountId);
    if (!account) return fail(MarketReason.accountNotFound, 'Your account was not found.');
    const checked = await this.checkStake(account, input, this.callerMode(meta));
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
      // The spend policy's reservation in the stake's own transaction (over a cap it aborts it).
      const spendReservationId = await meta.spend?.reserveIn(tx);
      const reserved = await funds.reserve({
        key: holdKey('stake', id),
        amount,
        limit: { account, amount, now, defaults: this.opts.defaultLimits },
        fmt: fmtStable,
      });
      if (!reserved.ok) {
        await meta.spend?.finishIn(tx, { ok: false, reason: reserved.reason });
        return fail(reserved.reason, reserved.message, 'amount');
      }
      const stake = await tx.table(Stakes).insert({
        ...(isLive(m) ? {} : { livemode: false as const }),
        ...(spendReservationId ? { spendReservationId } : {}),
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
      return moveFailure(outcomeOfMove, { rejected: MarketReason.stakeFailed, thing: 'stake', done: 'staked', rejectedDone: 'moved', param: 'amount' });
    }
    return { ok: true, stake, market: latest };
  }

  /** Everything about a stake that can be checked without moving money (also the preview). */
  async checkStake(
    account: Account,
    input: StakeMarketInput,
    livemode?: boolean,
  ): Promise<
    Result<
      { market: Market; outcome: number; amount: bigint; conversion: { currency: string; amount: string; amountMinor: bigint; rate: string } },
      MarketFailure
    >
  > {
    const found = await this.find(input.market, 'stake', account.id, livemode);
    if (!found.ok) return found;
    const market = found.market;
    const shown = this.displayStatus(market);
    if (shown !== 'open') {
      return fail(MarketReason.marketClosed, `The market "${market.question}" is ${shown} and no longer takes stakes.`, 'market');
    }
    const outcome = matchOutcome(market.outcomes, input.outcome, market.question);
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
    return this.move({ fromIndex: stake.fromIndex, to: this.escrowAddress(market), value: BigInt(stake.amount), kind: 'stake', id: stake.id });
  }

  /** A settled stake joins its market's pools in the same transaction (the pools count settled stakes only). */
  private async recordStake(stake: Stake, outcome: MoveOutcome): Promise<Stake> {
    const recorded = await recordUserMove<Stake>(this.store, outcome, {
      ...submittedMove(Stakes, stake, 'stake'),
      moved: BigInt(stake.amount),
      settled: (txHash) => ({ status: 'settled', txHash }),
      failed: (o) => ({ status: 'failed', failureReason: o.reason }),
      alsoIn: (tx) => endRowSpend(tx, this.opts, stake, spentBy(outcome), this.now()),
      afterSettled: async (tx, row) => {
        const mt = tx.table(Markets);
        const m = (await mt.get(stake.marketId))!;
        const pools = m.pools.map((p, i) => (i === stake.outcome ? (BigInt(p) + BigInt(stake.amount)).toString() : p));
        const updated = await mt.update(
          m.id,
          { pools, totalPool: (BigInt(m.totalPool) + BigInt(stake.amount)).toString(), stakeCount: m.stakeCount + 1, updatedAt: row.updatedAt },
          { totalPool: m.totalPool },
        );
        if (!updated) throw new Error(`market ${m.id} changed concurrently`);
      },
    });
    return recorded.row;
  }

  /** Ids of markets with stakes or payouts stopped part-way, untouched for `idleMs` (for a periodic sweep). */
  async unfinished(idleMs = 120_000): Promise<{ stakes: string[]; payouts: string[] }> {
    const before = this.now().getTime() - idleMs;
    const idle = (r: { updatedAt: string }) => Date.parse(r.updatedAt) <= before;
    const stakes = (await this.store.table(Stakes).findMany({ status: 'submitted' })).filter(idle).map((s) => s.marketId);
    const mt = this.store.table(Markets);
    const settling = [...(await mt.findMany({ status: 'resolving' })), ...(await mt.findMany({ status: 'cancelling' }))].filter((m) => servedBy(m, this.opts.livemode));
    const ours = new Set((await Promise.all([...new Set(stakes)].map((id) => this.get(id)))).filter((m) => m !== undefined).map((m) => m.id));
    return { stakes: [...ours], payouts: settling.filter(idle).map((m) => m.id) };
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

  async resolve(accountId: string, input: ResolveMarketInput, meta: CallMeta = {}): Promise<Result<{ market: Market; report: PayoutReport }, MarketFailure>> {
    const found = await this.find(input.market, 'manage', accountId, this.callerMode(meta));
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

  async cancel(accountId: string, input: CancelMarketInput, meta: CallMeta = {}): Promise<Result<{ market: Market; report: PayoutReport }, MarketFailure>> {
    const found = await this.find(input.market, 'manage', accountId, this.callerMode(meta));
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
    return freezeBook(this.store, market, status, split, patch);
  }

  private payOut(market: Market, final: 'resolved' | 'cancelled'): Promise<Result<{ market: Market; report: PayoutReport }, MarketFailure>> {
    return payOut({ store: this.store, move: (req) => this.move(req), logger: this.opts.logger, concurrency: this.opts.payoutConcurrency }, market, final);
  }
}
