import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import type { Address } from 'viem';

/**
 * Issue 10 item 1: a custodial money move after the chain sat idle. The latest block is then
 * older than the wall clock, and an authorization whose `validAfter` came from the wall clock
 * was "not yet valid" for the simulation against that block. Idling is simulated by mining one
 * block with anvil's clock set minutes back, then putting the clock right again: the latest
 * block is old, the next one gets today's time, exactly as after a quiet spell.
 */
describe('custodial moves after the embedded chain sat idle (real HTTP, anvil)', () => {
  let svc: TestService;
  let payer: Merchant;
  let payee: Merchant;
  const wallet = async (m: Merchant): Promise<Address> =>
    svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
  const say = (m: Merchant, message: string) => call(`${svc.api}/agent/settle`, { key: m.key, body: { message } });

  /** Leaves the latest block `seconds` old, as if no block had been mined for that long. */
  async function idle(seconds: number): Promise<void> {
    const rpc = svc.deps.chain.publicClient;
    const now = Math.floor(Date.now() / 1000);
    await rpc.request({ method: 'evm_setTime' as never, params: [now - seconds] as never });
    await rpc.request({ method: 'evm_mine' as never, params: [] as never });
    await rpc.request({ method: 'evm_setTime' as never, params: [now] as never });
    const latest = await rpc.getBlock({ blockTag: 'latest' });
    expect(Number(latest.timestamp)).toBeLessThanOrEqual(now - seconds + 1);
  }

  beforeAll(async () => {
    svc = await startTestService();
    [payer, payee] = await Promise.all([createMerchant(svc.api, 'Amina'), createMerchant(svc.api, 'Wanjiru')]);
    await svc.deps.accounts.update(payer.accountId, { country: 'NG', localCurrency: 'NGN', telegramUsername: 'amina_idle' });
    await svc.deps.accounts.update(payee.accountId, { country: 'NG', localCurrency: 'NGN', telegramUsername: 'wanjiru_idle' });
    const res = await svc.deps.chain.faucet(await wallet(payer), usdc('100'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
  });
  afterAll(() => svc?.stop({ removeData: true }));

  it('pays a bill through POST /api/agent/settle after 5 idle minutes', async () => {
    await idle(300);
    const from = await wallet(payer);
    const before = await balance(svc, from);
    const r = await say(payer, 'pay IKEDC 5000 for meter 45123456789');
    expect(r.body.reply).not.toMatch(/not yet valid/i);
    expect(r.status).toBe(200);
    expect(r.body.bill).toMatchObject({ status: 'completed' });
    expect(await balance(svc, from)).toBe(before - 3_235_199n);
  });

  it('sends a transfer through POST /api/agent/settle after 2 idle minutes', async () => {
    await idle(120);
    const [from, to] = [await wallet(payer), await wallet(payee)];
    const [fromBefore, toBefore] = [await balance(svc, from), await balance(svc, to)];
    const r = await say(payer, 'send 1000 NGN to @wanjiru_idle');
    expect(r.status).toBe(200);
    expect(r.body.transfer).toMatchObject({ status: 'settled' });
    expect(await balance(svc, to)).toBeGreaterThan(toBefore);
    expect(await balance(svc, from)).toBeLessThan(fromBefore);
  });
});
