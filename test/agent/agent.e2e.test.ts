import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { Markets } from '../../src/markets/markets.js';
import type { Address } from 'viem';

/**
 * The agent endpoint end to end: real HTTP, the local engine, real anvil. Every
 * money-moving message is checked against on-chain balances.
 */
describe('POST /api/agent/settle moves real money (local engine, anvil)', () => {
  let svc: TestService;
  let wanjiru: Merchant; // Kenyan sender
  let amina: Merchant; // Nigerian recipient, @amina
  let kofi: Merchant; // Ghanaian staker
  const wallet = async (m: Merchant): Promise<Address> => {
    const a = await svc.deps.accounts.get(m.accountId);
    return svc.deps.chain.custodialAddress(a!.walletIndex);
  };
  const say = (m: Merchant, message: string) => call(`${svc.api}/agent/settle`, { key: m.key, body: { message } });

  beforeAll(async () => {
    svc = await startTestService();
    [wanjiru, amina, kofi] = await Promise.all([
      createMerchant(svc.api, 'Wanjiru'),
      createMerchant(svc.api, 'Amina'),
      createMerchant(svc.api, 'Kofi'),
    ]);
    await svc.deps.accounts.update(wanjiru.accountId, { country: 'KE', localCurrency: 'KES' });
    await svc.deps.accounts.update(amina.accountId, { country: 'NG', localCurrency: 'NGN', telegramUsername: 'amina' });
    await svc.deps.accounts.update(kofi.accountId, { country: 'GH', localCurrency: 'GHS' });
    for (const m of [wanjiru, amina, kofi]) {
      const a = (await svc.deps.accounts.get(m.accountId))!;
      const res = await svc.deps.chain.faucet(svc.deps.chain.custodialAddress(a.walletIndex), usdc('100'), { nativeAmount: 0n });
      if (!res.ok) throw new Error(res.message);
    }
  });
  afterAll(() => svc?.stop({ removeData: true }));

  it('"send 5,000 KES to @amina" settles on-chain: sender down amount + fee, recipient up the amount, no gas', async () => {
    const [from, to] = [await wallet(wanjiru), await wallet(amina)];
    const [fromBefore, toBefore, ethBefore] = await Promise.all([balance(svc, from), balance(svc, to), svc.deps.chain.nativeBalance(from)]);

    const r = await say(wanjiru, 'send 5,000 KES to @amina');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, action: 'transfer' });
    const t = r.body.transfer;
    expect(t).toMatchObject({
      status: 'settled',
      recipient: '@amina',
      amount: '5000',
      currency: 'KES',
      stablecoin_amount: '38.68472',
      fee: '0.193423',
      recipient_amount: '59787.23',
      recipient_currency: 'NGN',
      rate: '11.95744681',
    });
    expect(t.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.body.reply).toContain('5,000.00 KES');
    expect(r.body.reply).toContain('59,787.23 NGN');
    expect(r.body.reply).toContain('1 KES = 11.95744681 NGN');

    expect(await balance(svc, from)).toBe(fromBefore - 38_684_720n - 193_423n);
    expect(await balance(svc, to)).toBe(toBefore + 38_684_720n);
    expect(await svc.deps.chain.nativeBalance(from)).toBe(ethBefore);
    expect((await svc.deps.transfers!.get(t.id))?.status).toBe('settled');
  });

  it('pays a prepaid electricity bill and returns the receipt and token', async () => {
    const from = await wallet(amina);
    const before = await balance(svc, from);
    const r = await say(amina, 'pay IKEDC 5000 for meter 45123456789');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, action: 'bill' });
    const b = r.body.bill;
    expect(b).toMatchObject({ status: 'completed', biller_id: 'ng-ikedc-prepaid', amount: '5000', currency: 'NGN', stablecoin_amount: '3.235199', units: '23.86' });
    expect(b.receipt_number).toMatch(/^SBX-/);
    expect(b.token).toMatch(/^\d{20}$/);
    expect(r.body.reply).toContain('Token:');
    expect(await balance(svc, from)).toBe(before - 3_235_199n);
  });

  it('creates a market, takes stakes from two accounts, resolves it and pays out pro rata', async () => {
    const created = await say(wanjiru, 'create a market: Will it rain in Nairobi tomorrow? closes in 1 hour');
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ ok: true, action: 'market' });
    const id: string = created.body.market.id;
    const escrow: Address = created.body.market.escrow_address;
    expect(id).toMatch(/^mkt_/);

    const [aminaW, kofiW] = [await wallet(amina), await wallet(kofi)];
    const [aminaBefore, kofiBefore] = [await balance(svc, aminaW), await balance(svc, kofiW)];
    const yes = await say(amina, `bet 3091 NGN on yes in ${id}`); // 2 USDC
    expect(yes.status).toBe(200);
    expect(yes.body.market).toMatchObject({ status: 'settled', outcome: 'Yes', stablecoin_amount: '2' });
    const no = await say(kofi, `bet 92.40 GHS on no in ${id}`); // 6 USDC
    expect(no.status).toBe(200);
    expect(no.body.market).toMatchObject({ status: 'settled', outcome: 'No', stablecoin_amount: '6' });
    expect(await balance(svc, escrow)).toBe(usdc('8'));

    const early = await say(wanjiru, `resolve ${id} as Yes`);
    expect(early.status).toBe(422);
    expect(early.body.reason).toBe('not_closed_yet');

    // Close it: move the stored close time into the past (the clock is not ours to move).
    await svc.deps.store.write(Markets, (t) => t.update(id, { closesAt: new Date(Date.now() - 1000).toISOString() }));
    const closed = await say(kofi, `bet 10 GHS on yes in ${id}`);
    expect(closed.status).toBe(422);
    expect(closed.body).toMatchObject({ ok: false, action: 'market', reason: 'market_closed' });
    expect(await balance(svc, escrow)).toBe(usdc('8'));

    const resolved = await say(wanjiru, `resolve ${id} as Yes`);
    expect(resolved.status).toBe(200);
    expect(resolved.body.market).toMatchObject({ status: 'resolved', winning_outcome: 'Yes', paid: 1, total_paid_out: '8' });
    expect(await balance(svc, escrow)).toBe(0n);
    expect(await balance(svc, aminaW)).toBe(aminaBefore - usdc('2') + usdc('8'));
    expect(await balance(svc, kofiW)).toBe(kofiBefore - usdc('6'));
  });

  it('cancelling a market refunds every stake', async () => {
    const created = await say(kofi, 'create a market: Will Accra host the final? closes in 2 hours');
    const id: string = created.body.market.id;
    const [aminaW, wanjiruW] = [await wallet(amina), await wallet(wanjiru)];
    const [aminaBefore, wanjiruBefore] = [await balance(svc, aminaW), await balance(svc, wanjiruW)];
    expect((await say(amina, `bet 1545.50 NGN on no in ${id}`)).status).toBe(200);
    expect((await say(wanjiru, `bet 258.50 KES on yes in ${id}`)).status).toBe(200);
    expect(await balance(svc, aminaW)).toBe(aminaBefore - usdc('1'));

    const cancelled = await say(kofi, `cancel ${id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.market).toMatchObject({ status: 'cancelled', paid: 2, total_paid_out: '3' });
    expect(await balance(svc, aminaW)).toBe(aminaBefore);
    expect(await balance(svc, wanjiruW)).toBe(wanjiruBefore);
  });

  it('creates a payment link and reports the balance', async () => {
    const link = await say(wanjiru, 'create a payment link for 500 KES');
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({ ok: true, action: 'payment' });
    expect(link.body.payment.checkout_url).toMatch(/\/pay\/pay_/);

    const bal = await say(kofi, "what's my balance");
    expect(bal.status).toBe(200);
    expect(bal.body).toMatchObject({ ok: true, action: 'balance' });
    expect(BigInt(bal.body.balance.balance_base_units)).toBe(await balance(svc, await wallet(kofi)));
    expect(bal.body.balance.currency).toBe('GHS');
  });

  it('in the chat widget the confirmation prompt states exact amounts, rate and fee; Confirm executes it', async () => {
    const [from, to] = [await wallet(wanjiru), await wallet(amina)];
    const [fromBefore, toBefore] = [await balance(svc, from), await balance(svc, to)];
    const turn = await call(`${svc.api}/chat`, { cookie: wanjiru.cookie, body: { message: 'send 1000 KES to @amina' } });
    expect(turn.status).toBe(200);
    const pending = turn.body.pending_action;
    expect(pending.status).toBe('pending');
    // 1000 KES = 7.736944 USDC; fee 0.5% = 0.038684; 7.736944 * 1545.50 = 11957.45 NGN
    expect(pending.description).toMatch(
      // Issue 26: the figures are a firm quote, held for QUOTE_TTL.
      new RegExp(`^${escapeRe('Send 1,000.00 KES to @amina (Amina): they receive 11,957.45 NGN. 7.736944 USDC moves on-chain at 1 KES = 11.95744681 NGN (129.25 KES/USDC) plus a 0.038684 USDC fee (total 7.775628 USDC).')} This rate is held until \\d\\d:\\d\\d:\\d\\d UTC \\(quote qt_\\w+\\)\\.$`),
    );
    expect(await balance(svc, from)).toBe(fromBefore); // nothing moves before Confirm

    const confirmed = await call(`${svc.api}/chat/confirm`, { cookie: wanjiru.cookie, body: { action_id: pending.id } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.transfer).toMatchObject({ status: 'settled', stablecoin_amount: '7.736944', fee: '0.038684' });
    expect(await balance(svc, from)).toBe(fromBefore - 7_736_944n - 38_684n);
    expect(await balance(svc, to)).toBe(toBefore + 7_736_944n);

    const again = await call(`${svc.api}/chat/confirm`, { cookie: wanjiru.cookie, body: { action_id: pending.id } });
    expect(again.body.already).toBe(true);
    expect(await balance(svc, from)).toBe(fromBefore - 7_736_944n - 38_684n);

    // A preview that would fail says so at once, with nothing pending.
    const refused = await call(`${svc.api}/chat`, { cookie: wanjiru.cookie, body: { message: 'send 100 KES to @nobody_here' } });
    expect(refused.status).toBe(422);
    expect(refused.body.reason).toBe('unknown_recipient');
  });

  it('answers 422 with a named reason and moves nothing', async () => {
    const broke = await createMerchant(svc.api, 'Broke');
    await svc.deps.accounts.update(broke.accountId, { country: 'KE', localCurrency: 'KES' });
    const wallets = [await wallet(wanjiru), await wallet(amina), await wallet(broke)];
    const snapshot = async () => Promise.all(wallets.map((w) => balance(svc, w)));
    const before = await snapshot();

    const cases: Array<[Merchant, string, string]> = [
      [broke, 'send 5000 KES to @amina', 'insufficient_balance'],
      [wanjiru, 'send 100 KES to @nobody_here', 'unknown_recipient'],
      [wanjiru, 'send 3000 USD to @amina', 'over_limit'],
      [amina, 'pay IKEDC 500 for meter 45123456789', 'amount_out_of_range'],
      [amina, 'pay IKEDC 5000 for meter 45123450000', 'customer_not_found'],
    ];
    for (const [who, message, reason] of cases) {
      const r = await say(who, message);
      expect({ message, status: r.status, reason: r.body.reason }).toEqual({ message, status: 422, reason });
      expect(r.body.ok).toBe(false);
      expect(typeof r.body.reply).toBe('string');
    }
    expect(await snapshot()).toEqual(before);
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
