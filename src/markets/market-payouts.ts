import type { Address } from 'viem';
import type { Logger } from 'pino';
import { nowIso } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import type { Store } from '../store/index.js';
import type { MoveOutcome, MoveRequest } from '../wallet/custodial-move.js';
import { MarketReason, Markets, Stakes, type Market, type MarketFailure, type PayoutReport } from './market-records.js';
import type { Payout } from './parimutuel.js';

/**
 * The end of a market's book: freezing it (open -> resolving|cancelling with every settled
 * stake's payout amount, in one transaction) and sending the payouts from escrow. Every payout
 * uses the nonce nonceFor('payout', `${marketId}:${stakeId}`), so a stake is paid at most once
 * whatever is retried (resolving again, `settlePayouts`, the sweep).
 */
export interface PayoutDeps {
  store: Store;
  /** One custodial move (the markets service's, with its receipt wait and attempt ledger). */
  move: (req: MoveRequest) => Promise<MoveOutcome>;
  logger?: Logger | undefined;
  /** Payouts sent at once (the relayer's nonce manager orders them). Default 8. */
  concurrency?: number | undefined;
}

/** The freeze itself; the caller has finished the stakes still in flight first. */
export function freezeBook(
  store: Store,
  market: Market,
  status: 'resolving' | 'cancelling',
  split: (stakes: Array<{ id: string; outcome: number; amount: bigint }>) => Payout[],
  patch: Partial<Market>,
): Promise<Result<{ market: Market }, MarketFailure>> {
  return store.transaction(async (tx) => {
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
export async function payOut(
  deps: PayoutDeps,
  market: Market,
  final: 'resolved' | 'cancelled',
): Promise<Result<{ market: Market; report: PayoutReport }, MarketFailure>> {
  const { store } = deps;
  const pending = (await store.table(Stakes).findMany({ marketId: market.id })).filter((s) => s.payoutStatus === 'pending');
  const concurrency = deps.concurrency ?? 8;
  for (let i = 0; i < pending.length; i += concurrency) {
    await Promise.all(
      pending.slice(i, i + concurrency).map(async (s) => {
        const outcome = await deps.move({
          fromIndex: market.escrowIndex,
          to: s.fromAddress as Address,
          value: BigInt(s.payoutAmount!),
          kind: 'payout',
          id: `${market.id}:${s.id}`,
        });
        await store.write(Stakes, (t) =>
          outcome.status === 'settled'
            ? t.update(s.id, { payoutStatus: 'paid', payoutTxHash: outcome.txHash, updatedAt: nowIso() }, { payoutStatus: 'pending' })
            : t.update(s.id, { payoutError: outcome.message, ...(outcome.status === 'pending' && outcome.txHash ? { payoutTxHash: outcome.txHash } : {}), updatedAt: nowIso() }),
        );
        if (outcome.status !== 'settled') deps.logger?.warn({ marketId: market.id, stakeId: s.id, outcome }, 'payout not done yet');
      }),
    );
  }
  const stakes = await store.table(Stakes).findMany({ marketId: market.id });
  const report: PayoutReport = { paid: 0, unpaid: 0, total: 0n, payouts: [] };
  for (const s of stakes) {
    if (!s.payoutKind) continue;
    const amount = BigInt(s.payoutAmount ?? '0');
    report.total += amount;
    if (s.payoutStatus === 'paid') report.paid++;
    if (s.payoutStatus === 'pending') report.unpaid++;
    report.payouts.push({ stake_id: s.id, kind: s.payoutKind, amount, status: s.payoutStatus ?? 'none', tx_hash: s.payoutTxHash ?? null });
  }
  const markets = store.table(Markets);
  let latest = (await markets.get(market.id))!;
  if (report.unpaid === 0 && latest.status !== final) {
    const from = final === 'resolved' ? 'resolving' : 'cancelling';
    latest = (await store.write(Markets, (t) => t.update(market.id, { status: final, updatedAt: nowIso() }, { status: from }))) ?? (await markets.get(market.id))!;
  }
  return { ok: true, market: latest, report };
}
