import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import type { Address } from 'viem';

/**
 * h17eval, through the real endpoint (local engine, anvil): a stake whose side is named by who wins is
 * staked on the market's matching side; a side the market does not have is asked about (200 `none`,
 * the outcomes named), not refused with a 422, and nothing moves.
 */
describe('POST /api/agent/settle: the side of a stake', () => {
  let svc: TestService;
  let creator: Merchant;
  let staker: Merchant;
  let stakerWallet: Address;
  const say = (m: Merchant, message: string) => call(`${svc.api}/agent/settle`, { key: m.key, body: { message } });

  beforeAll(async () => {
    svc = await startTestService();
    [creator, staker] = await Promise.all([createMerchant(svc.api, 'Creator'), createMerchant(svc.api, 'Staker')]);
    await svc.deps.accounts.update(staker.accountId, { country: 'GH', localCurrency: 'GHS' });
    const a = (await svc.deps.accounts.get(staker.accountId))!;
    stakerWallet = svc.deps.chain.custodialAddress(a.walletIndex);
    const res = await svc.deps.chain.faucet(stakerWallet, usdc('50'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
    for (const q of ['create a market: Will Chelsea win the FA Cup? closes in 2 hours', 'create a market: Who wins the final: Nigeria or Senegal? outcomes Nigeria, Senegal closes in 2 hours']) {
      const r = await say(creator, q);
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    }
  });
  afterAll(() => svc?.stop({ removeData: true }));

  it('"put 15.40 on Chelsea winning the cup" stakes on Yes of the market that asks whether Chelsea wins', async () => {
    const r = await say(staker, 'put 15.40 on Chelsea winning the cup');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, action: 'market' });
    expect(r.body.market).toMatchObject({ status: 'settled', outcome: 'Yes', stablecoin_amount: '1' });
  });

  it('a side named by a nickname of several words ("Super Eagles") is that outcome', async () => {
    const r = await say(staker, 'put 15.40 on Super Eagles for the final market');
    expect(r.status).toBe(200);
    expect(r.body.market).toMatchObject({ status: 'settled', outcome: 'Nigeria' });
  });

  it('a side the market does not have is asked about with its outcomes; nothing moves', async () => {
    const before = await balance(svc, stakerWallet);
    const r = await say(staker, 'put 15.40 on Black Stars for the final market');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, action: 'none', reason: 'which_outcome' });
    expect(r.body.reply).toMatch(/Nigeria or Senegal/);
    expect(await balance(svc, stakerWallet)).toBe(before);
  });
});
