import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { Transfers } from '../../src/transfers/transfers.js';

/**
 * Issue 11 item 4 over real HTTP with the local engine and the embedded chain: quote_transfer
 * answers what the recipient gets, the rate and the fee and moves nothing (balances read on the
 * chain, no transfer recorded); list_activity lists the caller's own transfers, bills, stakes and
 * payment links, newest first, and never another account's.
 */
describe('read-only agent tools through POST /api/agent/settle', () => {
  let svc: TestService;
  let sender: Merchant; // Kenyan, funded
  let amina: Merchant; // Nigerian recipient, @amina
  let other: Merchant; // another funded Kenyan
  const wallet = async (m: Merchant): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
  const settle = (m: Merchant, message: string) => call(`${svc.api}/agent/settle`, { key: m.key, body: { message } });
  const balances = async () => Promise.all([sender, amina, other].map(async (m) => balance(svc, await wallet(m))));

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min' });
    [sender, amina, other] = await Promise.all([createMerchant(svc.api, 'Wanjiru'), createMerchant(svc.api, 'Amina'), createMerchant(svc.api, 'Other')]);
    await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
    await svc.deps.accounts.update(amina.accountId, { country: 'NG', localCurrency: 'NGN', telegramUsername: 'amina' });
    await svc.deps.accounts.update(other.accountId, { country: 'KE', localCurrency: 'KES' });
    for (const m of [sender, other]) {
      const res = await svc.deps.chain.faucet(await wallet(m), usdc('100'), { nativeAmount: 0n });
      if (!res.ok) throw new Error(res.message);
    }
  });
  afterAll(() => svc?.stop({ removeData: true }));

  it('quote_transfer: what @amina would get, the rate and the fee; nothing moves', async () => {
    const before = await balances();
    const r = await settle(sender, 'how much does @amina get if I send 1000 KES?');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, action: 'quote' });
    expect(r.body.quote).toMatchObject({ amount: '1000', currency: 'KES', recipient_currency: 'NGN', moved: false });
    expect(Number(r.body.quote.recipient_amount)).toBeGreaterThan(1000);
    expect(r.body.quote.rate).toEqual(expect.any(String));
    expect(r.body.quote.fee).toEqual(expect.any(String));
    expect(r.body.reply).toMatch(/^Quote \(nothing sent\)/);

    const fx = await settle(sender, 'how much is 100 USD in NGN');
    expect(fx.body).toMatchObject({ ok: true, action: 'quote', quote: { amount: '100', currency: 'USD', recipient_currency: 'NGN', moved: false } });

    expect(await balances()).toEqual(before);
    expect((await svc.deps.store.table(Transfers).findMany({})).filter((t) => t.accountId === sender.accountId)).toEqual([]);
  });

  it("list_activity: the caller's own transfers, bills, stakes and payment links, newest first, no one else's", async () => {
    const sent = await settle(sender, 'send 500 KES to @amina');
    expect(sent.body).toMatchObject({ ok: true, action: 'transfer' });
    // The network named: one inferred from the number's prefix is held for confirmation (grounding).
    const bill = await settle(sender, 'buy 100 KES Safaricom airtime for 0712345678');
    expect(bill.body).toMatchObject({ ok: true, action: 'bill' });
    const market = await svc.deps.markets!.create(other.accountId, { question: 'Will it rain in Nairobi on Saturday?', outcomes: ['Yes', 'No'], closes_at: new Date(Date.now() + 86_400_000).toISOString() });
    if (!market.ok) throw new Error(market.message);
    const stake = await settle(sender, `stake 50 KES on Yes in ${market.market.id}`);
    expect(stake.body).toMatchObject({ ok: true, action: 'market' });
    const link = await settle(sender, 'create a payment link for 300 KES for braids');
    expect(link.body).toMatchObject({ ok: true, action: 'payment' });
    const foreign = await settle(other, 'send 200 KES to @amina');
    expect(foreign.body).toMatchObject({ ok: true, action: 'transfer' });

    const before = await balances();
    const r = await settle(sender, 'what did I pay this month');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, action: 'activity' });
    const entries: Array<{ kind: string; id: string; at: string; text: string; [k: string]: unknown }> = r.body.activity.entries;
    expect(new Set(entries.map((e) => e.kind))).toEqual(new Set(['transfer', 'bill', 'stake', 'payment']));
    expect(entries.map((e) => e.id)).toContain(sent.body.transfer.id);
    expect(entries.map((e) => e.id)).not.toContain(foreign.body.transfer.id);
    expect(entries.find((e) => e.kind === 'transfer')!.text).toBe('Sent 500.00 KES to @amina');
    expect([...entries].map((e) => e.at)).toEqual([...entries].map((e) => e.at).sort().reverse());
    expect(await balances()).toEqual(before);

    // The same question in other corridor languages: every line phrased from the entries, no English left (h13fix).
    const transfer = entries.find((e) => e.kind === 'transfer')!;
    expect(transfer).toMatchObject({ direction: 'out', amount: '500.00', currency: 'KES', counterparty: '@amina' });
    for (const message of ['historique de mes paiements', 'maine kya pay kiya', 'ano mga binayaran ko', 'malipo yangu']) {
      const again = await settle(sender, message);
      expect(again.body, message).toMatchObject({ ok: true, action: 'activity' });
      const lines: string[] = again.body.reply.split('\n');
      expect(lines, message).toHaveLength(entries.length + 1);
      expect(again.body.reply, message).not.toMatch(/\b(Sent|Received|Paid|Staked|Payment link|recent activity|settled|submitted|completed|pending)\b/);
      expect(again.body.reply, message).toContain('500.00 KES');
      expect(again.body.reply, message).toContain('@amina');
    }
  });
});
