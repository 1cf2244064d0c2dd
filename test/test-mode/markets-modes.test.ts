import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { usdc } from '../helpers/money.js';
import { Markets, Stakes } from '../../src/markets/markets.js';

/**
 * Issue 24, section 2, on the embedded chain alone (both modes share it): a market made through
 * a test key is a test market, and so are its stakes; a key of the other mode does not find it,
 * by id or by the words of its question, to stake, resolve or list (the unknown-market answer).
 * Real HTTP (POST /api/agent/settle, local engine), real anvil.
 */
describe('markets and stakes are of their maker\'s mode on the shared embedded chain', () => {
  let svc: TestService;
  let maker: Merchant;
  let staker: Merchant;
  const testKeys: Record<string, string> = {};
  const say = (key: string, message: string) => call(`${svc.api}/agent/settle`, { key, body: { message } });

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min' });
    [maker, staker] = await Promise.all([createMerchant(svc.api, 'Maker'), createMerchant(svc.api, 'Staker')]);
    for (const m of [maker, staker]) {
      const made = await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'sandbox', mode: 'test' } });
      testKeys[m.accountId] = made.body.key.secret;
      const a = (await svc.deps.accounts.get(m.accountId))!;
      const res = await svc.deps.chain.faucet(svc.deps.chain.custodialAddress(a.walletIndex), usdc('20'), { nativeAmount: 0n });
      if (!res.ok) throw new Error(res.message);
    }
  });
  afterAll(() => svc?.stop({ removeData: true }));

  /** What an unknown market answers, with this id: the other mode's market must look the same. */
  const unknown = async (key: string, message: (id: string) => string, id: string) => {
    const r = await say(key, message('mkt_0000000000000unknown'));
    return { status: r.status, ok: r.body.ok, reason: r.body.reason, reply: String(r.body.reply).replace('mkt_0000000000000unknown', id) };
  };

  it('a test key\'s market and stakes are test; live keys neither find, stake, resolve nor list it; the test side does', async () => {
    const testMaker = testKeys[maker.accountId]!;
    const testStaker = testKeys[staker.accountId]!;
    const created = await say(testMaker, 'create a market: Will it snow in Nairobi this week? closes in 1 hour');
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id: string = created.body.market.id;
    expect(await svc.deps.store.table(Markets).get(id)).toMatchObject({ livemode: false });

    // The live side: by id and by the question's words, exactly like a market that does not exist.
    const bet = (m: string) => `bet 1 USDC on yes in ${m}`;
    const liveBet = await say(staker.key, bet(id));
    expect({ status: liveBet.status, ok: liveBet.body.ok, reason: liveBet.body.reason, reply: liveBet.body.reply }).toEqual(await unknown(staker.key, bet, id));
    expect(liveBet.body.reason).toBe('market_not_found');
    const byWords = await svc.deps.markets.find('snow in Nairobi', 'stake', staker.accountId, true);
    expect(!byWords.ok && byWords.reason).toBe('market_not_found');
    expect((await svc.deps.markets.list({}, { livemode: true })).map((m) => m.id)).not.toContain(id);
    const resolveMsg = (m: string) => `resolve ${m} as Yes`;
    const liveResolve = await say(maker.key, resolveMsg(id));
    expect(liveResolve.body.reason).toBe('market_not_found');
    expect(await svc.deps.store.table(Stakes).findMany({ marketId: id })).toEqual([]);

    // The test side finds it by words too, and its stake is test.
    expect((await svc.deps.markets.find('snow in Nairobi', 'stake', staker.accountId, false)).ok).toBe(true);
    expect((await svc.deps.markets.list({}, { livemode: false })).map((m) => m.id)).toContain(id);
    const staked = await say(testStaker, bet(id));
    expect(staked.status, JSON.stringify(staked.body)).toBe(200);
    expect(staked.body.market).toMatchObject({ status: 'settled', outcome: 'Yes', stablecoin_amount: '1' });
    const [stake] = await svc.deps.store.table(Stakes).findMany({ marketId: id });
    expect(stake).toMatchObject({ livemode: false, accountId: staker.accountId });
    // The test key's activity lists the stake; the live key's does not.
    const activity = async (key: string) => JSON.stringify((await say(key, 'show my activity')).body);
    expect(await activity(testStaker)).toContain(stake!.id);
    expect(await activity(staker.key)).not.toContain(stake!.id);

    await svc.deps.store.write(Markets, (t) => t.update(id, { closesAt: new Date(Date.now() - 1000).toISOString() }));
    expect((await say(maker.key, resolveMsg(id))).body.reason).toBe('market_not_found');
    const resolved = await say(testMaker, resolveMsg(id));
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body.market).toMatchObject({ status: 'resolved', winning_outcome: 'Yes' });
  });

  it('a live key\'s market is unseen by a test key', async () => {
    const created = await say(maker.key, 'create a market: Will Kisumu host the rally? closes in 1 hour');
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id: string = created.body.market.id;
    expect((await svc.deps.store.table(Markets).get(id))!.livemode).not.toBe(false);
    const r = await say(testKeys[staker.accountId]!, `bet 1 USDC on yes in ${id}`);
    expect(r.body.reason).toBe('market_not_found');
    expect((await svc.deps.markets.list({}, { livemode: false })).map((m) => m.id)).not.toContain(id);
    const ok = await say(staker.key, `bet 1 USDC on yes in ${id}`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});
