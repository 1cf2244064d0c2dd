import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { startTestService, type TestService } from '../helpers/service.js';
import { balance, fund, newAccount, walletOf } from '../helpers/money.js';
import type { Account } from '../../src/accounts/accounts.js';
import { MarketsService, type Market } from '../../src/markets/markets.js';
import { WalletDirectory } from '../../src/wallet/directory.js';
import { MARKET_ESCROW_BASE } from '../../src/wallet/reserved.js';
import { moveOnce } from '../../src/wallet/custodial-move.js';

describe('prediction markets on anvil', () => {
  let svc: TestService;
  let markets: MarketsService;
  let clock: Date;
  let creator: Account, bob: Account, carol: Account, dave: Account;
  const inOneHour = () => new Date(clock.getTime() + 3_600_000).toISOString();
  const afterClose = () => (clock = new Date(clock.getTime() + 2 * 3_600_000));

  beforeAll(async () => {
    svc = await startTestService();
    clock = new Date();
    // A clock the test moves past the close time; everything else is the live service's.
    markets = new MarketsService(svc.deps.store, svc.deps.chain, svc.deps.fx, svc.deps.accounts, new WalletDirectory(svc.deps.chain, svc.deps.store), {
      now: () => clock,
    });
    [creator, bob, carol, dave] = await Promise.all([
      newAccount(svc, { name: 'Creator', country: 'KE' }),
      newAccount(svc, { name: 'Bob', country: 'KE' }),
      newAccount(svc, { name: 'Carol', country: 'NG' }),
      newAccount(svc, { name: 'Dave', country: 'GH' }),
    ]);
    for (const a of [bob, carol, dave]) await fund(svc, a, '50');
  });
  afterAll(() => svc?.stop({ removeData: true }));

  const escrow = (m: Market): Address => markets.escrowAddress(m);

  it('validates what a market is created with', async () => {
    const past = await markets.create(creator.id, { question: 'Will it have rained yesterday?', closes_at: new Date(clock.getTime() - 1000).toISOString() });
    expect(!past.ok && past.reason).toBe('invalid_close_time');
    const far = await markets.create(creator.id, { question: 'Will it rain in two years?', closes_at: new Date(clock.getTime() + 2 * 366 * 86_400_000).toISOString() });
    expect(!far.ok && far.reason).toBe('invalid_close_time');
    const dup = await markets.create(creator.id, { question: 'Who wins the derby?', outcomes: ['Home', 'home'], closes_at: inOneHour() });
    expect(!dup.ok && dup.reason).toBe('invalid_outcomes');
  });

  it('stakes into escrow, resolves after close and pays winners pro rata with dust to the largest remainder', async () => {
    const created = await markets.create(creator.id, { question: 'Will it rain in Nairobi tomorrow?', closes_at: inOneHour() });
    if (!created.ok) throw new Error(created.message);
    const m = created.market;
    expect(m.outcomes).toEqual(['Yes', 'No']);
    expect(m.escrowIndex).toBeGreaterThanOrEqual(MARKET_ESCROW_BASE);
    expect(await balance(svc, escrow(m))).toBe(0n);

    const start = { bob: await balance(svc, walletOf(svc, bob)), carol: await balance(svc, walletOf(svc, carol)), dave: await balance(svc, walletOf(svc, dave)) };
    const s1 = await markets.stake(bob.id, { market: 'rain Nairobi', outcome: 'yes', amount: '1', currency: 'USDC' });
    const s2 = await markets.stake(carol.id, { market: m.id, outcome: 'No', amount: '1.000001', currency: 'USDC' });
    const s3 = await markets.stake(dave.id, { market: m.id, outcome: 'No', amount: '2', currency: 'USDC' });
    for (const s of [s1, s2, s3]) expect(s.ok && s.stake.status).toBe('settled');
    expect(await balance(svc, escrow(m))).toBe(4_000_001n);
    const pooled = await markets.get(m.id);
    expect(pooled?.pools).toEqual(['1000000', '3000001']);
    expect(pooled?.stakeCount).toBe(3);

    // Refusals before close, with nothing moved.
    const early = await markets.resolve(creator.id, { market: m.id, outcome: 'No' });
    expect(!early.ok && early.reason).toBe('not_closed_yet');
    const bad = await markets.stake(bob.id, { market: m.id, outcome: 'Maybe', amount: '1', currency: 'USDC' });
    expect(!bad.ok && bad.reason).toBe('invalid_outcome');
    const broke = await markets.stake(bob.id, { market: m.id, outcome: 'Yes', amount: '1000', currency: 'USDC' });
    expect(!broke.ok && broke.reason).toBe('insufficient_balance');
    const big = await markets.stake(bob.id, { market: m.id, outcome: 'Yes', amount: '2001', currency: 'USDC' });
    expect(!big.ok && big.reason).toBe('over_limit');
    expect(await balance(svc, escrow(m))).toBe(4_000_001n);

    afterClose();
    const late = await markets.stake(bob.id, { market: m.id, outcome: 'Yes', amount: '1', currency: 'USDC' });
    expect(!late.ok && late.reason).toBe('market_closed');
    expect(markets.displayStatus((await markets.get(m.id))!)).toBe('closed');
    const notMine = await markets.resolve(bob.id, { market: m.id, outcome: 'Yes' });
    expect(!notMine.ok && notMine.reason).toBe('not_creator');

    const resolved = await markets.resolve(creator.id, { market: 'Nairobi rain', outcome: 'no' });
    expect(resolved.ok).toBe(true);
    if (!resolved.ok) return;
    expect(resolved.market.status).toBe('resolved');
    expect(resolved.report.paid).toBe(2);
    expect(resolved.report.total).toBe(4_000_001n);
    // Carol: 1000001 * 4000001 / 3000001 = 1333334.56 -> 1333334 (+1 dust, larger remainder)
    // Dave:  2000000 * 4000001 / 3000001 = 2666666.44 -> 2666666
    const byStake = Object.fromEntries(resolved.report.payouts.map((p) => [p.stake_id, p.amount]));
    expect(s2.ok && byStake[s2.stake.id]).toBe(1_333_335n);
    expect(s3.ok && byStake[s3.stake.id]).toBe(2_666_666n);
    expect(s1.ok && byStake[s1.stake.id]).toBe(0n);

    expect(await balance(svc, escrow(m))).toBe(0n);
    expect(await balance(svc, walletOf(svc, bob))).toBe(start.bob - 1_000_000n);
    expect(await balance(svc, walletOf(svc, carol))).toBe(start.carol - 1_000_001n + 1_333_335n);
    expect(await balance(svc, walletOf(svc, dave))).toBe(start.dave - 2_000_000n + 2_666_666n);

    // Paying again (a retry, a second resolve) moves nothing.
    const retry = await markets.settlePayouts(m.id);
    expect(retry.ok && retry.report.paid).toBe(2);
    const again = await markets.resolve(creator.id, { market: m.id, outcome: 'No' });
    expect(!again.ok && again.reason).toBe('already_resolved');
    if (s2.ok) {
      const replay = await moveOnce(svc.deps.chain, {
        fromIndex: m.escrowIndex,
        to: walletOf(svc, carol),
        value: 1_333_335n,
        kind: 'payout',
        id: `${m.id}:${s2.stake.id}`,
      });
      expect(replay.status).toBe('settled');
    }
    expect(await balance(svc, walletOf(svc, carol))).toBe(start.carol - 1_000_001n + 1_333_335n);
    expect((await markets.list({ status: 'resolved' })).map((x) => x.id)).toContain(m.id);
  });

  it('cancel refunds every stake on-chain', async () => {
    const created = await markets.create(creator.id, { question: 'Who wins the Mashemeji derby?', outcomes: ['Gor Mahia', 'AFC Leopards', 'Draw'], closes_at: inOneHour() });
    if (!created.ok) throw new Error(created.message);
    const m = created.market;
    const before = { bob: await balance(svc, walletOf(svc, bob)), carol: await balance(svc, walletOf(svc, carol)) };
    const a = await markets.stake(bob.id, { market: 'Mashemeji', outcome: 'gor', amount: '129.25', currency: 'KES' });
    const b = await markets.stake(carol.id, { market: m.id, outcome: 'Draw', amount: '3091', currency: 'NGN' });
    expect(a.ok && a.stake.amount).toBe('1000000');
    expect(b.ok && b.stake.amount).toBe('2000000');
    expect(await balance(svc, escrow(m))).toBe(3_000_000n);

    const notMine = await markets.cancel(bob.id, { market: m.id });
    expect(!notMine.ok && notMine.reason).toBe('not_creator');
    const cancelled = await markets.cancel(creator.id, { market: 'derby' });
    expect(cancelled.ok && cancelled.market.status).toBe('cancelled');
    expect(cancelled.ok && cancelled.report.payouts.every((p) => p.kind === 'refund' && p.status === 'paid')).toBe(true);
    expect(await balance(svc, escrow(m))).toBe(0n);
    expect(await balance(svc, walletOf(svc, bob))).toBe(before.bob);
    expect(await balance(svc, walletOf(svc, carol))).toBe(before.carol);

    const after = await markets.stake(bob.id, { market: m.id, outcome: 'Draw', amount: '1', currency: 'USDC' });
    expect(!after.ok && after.reason).toBe('market_closed');
    expect((await markets.list({ status: 'cancelled' })).map((x) => x.id)).toContain(m.id);
  });

  it('refunds everyone when nobody backed the winning outcome', async () => {
    const created = await markets.create(creator.id, { question: 'Will the shilling hit 120 per dollar?', closes_at: inOneHour() });
    if (!created.ok) throw new Error(created.message);
    const m = created.market;
    const before = await balance(svc, walletOf(svc, dave));
    const s = await markets.stake(dave.id, { market: m.id, outcome: 'Yes', amount: '3', currency: 'USDC' });
    expect(s.ok).toBe(true);
    afterClose();
    const r = await markets.resolve(creator.id, { market: m.id, outcome: 'No' });
    expect(r.ok && r.report.payouts.map((p) => p.kind)).toEqual(['refund']);
    expect(await balance(svc, walletOf(svc, dave))).toBe(before);
    expect(await balance(svc, escrow(m))).toBe(0n);
  });

  it('finds markets by words: unique among open markets, else ambiguous', async () => {
    const one = await markets.create(creator.id, { question: 'Will Arsenal win the league?', closes_at: inOneHour() });
    const two = await markets.create(bob.id, { question: 'Will Arsenal win the cup?', closes_at: inOneHour() });
    expect(one.ok && two.ok).toBe(true);
    const amb = await markets.stake(carol.id, { market: 'Arsenal', outcome: 'Yes', amount: '1', currency: 'USDC' });
    expect(!amb.ok && amb.reason).toBe('ambiguous_market');
    const none = await markets.stake(carol.id, { market: 'Chelsea relegation', outcome: 'Yes', amount: '1', currency: 'USDC' });
    expect(!none.ok && none.reason).toBe('market_not_found');
    const exact = await markets.find('arsenal league', 'stake', carol.id);
    expect(exact.ok && one.ok && exact.market.id).toBe(one.ok ? one.market.id : '');
    // For managing, only the account's own markets count: "Arsenal" is the creator's one.
    const mine = await markets.find('Arsenal', 'manage', creator.id);
    expect(mine.ok && one.ok && mine.market.id).toBe(one.ok ? one.market.id : '');
    const open = await markets.list({ status: 'open' });
    expect(open.every((x) => markets.displayStatus(x) === 'open')).toBe(true);
  });
});
