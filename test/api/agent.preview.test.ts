import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { PendingActions } from '../../src/agent/pending-tool-call.js';
import { Transfers } from '../../src/transfers/transfers.js';

/**
 * Preview and confirm on POST /api/agent/settle (DESIGN.md 10, issue 11 item 5) over real
 * HTTP, the local engine and the embedded chain: `{message, confirm:false}` holds the action
 * and moves nothing; `{confirm_action}` runs exactly the stored call once.
 */
describe('POST /api/agent/settle preview and confirm', () => {
  let svc: TestService;
  let sender: Merchant; // Kenyan, funded
  let amina: Merchant; // Nigerian recipient, @amina
  let stranger: Merchant;
  const wallet = async (m: Merchant): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
  const settle = (m: Merchant, body: unknown) => call(`${svc.api}/agent/settle`, { key: m.key, body });
  const balances = async () => Promise.all([balance(svc, await wallet(sender)), balance(svc, await wallet(amina))]);
  const transfersOf = async (m: Merchant) => (await svc.deps.store.table(Transfers).findMany({})).filter((t) => t.accountId === m.accountId);

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '10/min' });
    [sender, amina, stranger] = await Promise.all([createMerchant(svc.api, 'Wanjiru'), createMerchant(svc.api, 'Amina'), createMerchant(svc.api, 'Stranger')]);
    await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
    await svc.deps.accounts.update(amina.accountId, { country: 'NG', localCurrency: 'NGN', telegramUsername: 'amina' });
    await svc.deps.accounts.update(stranger.accountId, { country: 'KE', localCurrency: 'KES' });
    const res = await svc.deps.chain.faucet(await wallet(sender), usdc('100'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
  });
  afterAll(() => svc?.stop({ removeData: true }));

  it('{message, confirm:false} answers the described action as pending and moves nothing on chain', async () => {
    const before = await balances();
    const r = await settle(sender, { message: 'send 1000 KES to @amina', confirm: false });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, action: 'transfer', reply: expect.any(String) });
    expect(Object.keys(r.body.pending).sort()).toEqual(['description', 'expires_at', 'id']);
    expect(r.body.pending.id).toMatch(/^act_/);
    // The figures are a firm quote the confirm executes exactly (issue 26, docs/quotes.md).
    const quoteId = r.body.transfer.quote_id as string;
    expect(r.body.pending.description).toBe(
      'Send 1,000.00 KES to @amina (Amina): they receive 11,957.45 NGN. 7.736944 USDC moves on-chain at 1 KES = 11.95744681 NGN (129.25 KES/USDC) plus a 0.038684 USDC fee (total 7.775628 USDC).' +
        ` This rate is held until ${r.body.transfer.quote_expires_at.slice(11, 19)} UTC (quote ${quoteId}).`,
    );
    expect(Date.parse(r.body.pending.expires_at)).toBeGreaterThan(Date.now());
    expect(r.body.reply).toContain(r.body.pending.description);
    expect(await balances()).toEqual(before);
    expect(await transfersOf(sender)).toEqual([]);
    expect(await svc.deps.store.table(PendingActions).get(r.body.pending.id)).toMatchObject({ status: 'pending', channel: 'api', accountId: sender.accountId });
  });

  it('{confirm_action} executes exactly the stored arguments once; a repeat answers the first outcome', async () => {
    const preview = await settle(sender, { message: 'send 1000 KES to @amina', confirm: false });
    const id: string = preview.body.pending.id;
    const [fromBefore, toBefore] = await balances();

    const done = await settle(sender, { confirm_action: id });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ ok: true, action: 'transfer' });
    expect(done.body.transfer).toMatchObject({ status: 'settled', recipient: '@amina', amount: '1000', currency: 'KES', stablecoin_amount: '7.736944', fee: '0.038684' });
    expect(await balances()).toEqual([fromBefore - 7_736_944n - 38_684n, toBefore + 7_736_944n]);

    const again = await settle(sender, { confirm_action: id });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ ok: true, action: 'transfer', already: true });
    expect(again.body.transfer.id).toBe(done.body.transfer.id);
    expect(await balances()).toEqual([fromBefore - 7_736_944n - 38_684n, toBefore + 7_736_944n]);
  });

  it('20 parallel confirms move the money exactly once and all answer the same transfer', async () => {
    const preview = await settle(sender, { message: 'send 500 KES to @amina', confirm: false });
    const id: string = preview.body.pending.id;
    const [fromBefore, toBefore] = await balances();
    const count = (await transfersOf(sender)).length;

    const answers = await Promise.all(Array.from({ length: 20 }, () => settle(sender, { confirm_action: id })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.body.transfer.id)).size).toBe(1);
    // 500 KES = 3.868472 USDC, fee 0.5% = 0.019342
    expect(await balances()).toEqual([fromBefore - 3_868_472n - 19_342n, toBefore + 3_868_472n]);
    expect((await transfersOf(sender)).length).toBe(count + 1);
  });

  it('an expired action answers 410 and never runs', async () => {
    const preview = await settle(sender, { message: 'send 100 KES to @amina', confirm: false });
    const id: string = preview.body.pending.id;
    await svc.deps.store.write(PendingActions, (t) => t.update(id, { expiresAt: new Date(Date.now() - 1000).toISOString() }));
    const before = await balances();
    for (let i = 0; i < 2; i++) {
      const r = await settle(sender, { confirm_action: id });
      expect(r.status).toBe(410);
      expect(r.body).toMatchObject({ ok: false, reason: 'expired', reply: expect.stringContaining('expired') });
    }
    expect(await balances()).toEqual(before);
    expect((await svc.deps.store.table(PendingActions).get(id))!.status).toBe('expired');
  });

  it("another account's key, an unknown id and a chat-held action answer 404; the owner can still confirm", async () => {
    const preview = await settle(sender, { message: 'send 200 KES to @amina', confirm: false });
    const id: string = preview.body.pending.id;
    const before = await balances();

    const foreign = await settle(stranger, { confirm_action: id });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ ok: false, reason: 'not_found', reply: expect.any(String) });
    const unknown = await settle(sender, { confirm_action: 'act_000000000000000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ ok: false, reason: 'not_found' });
    // The chat door's pending actions are confirmed by the person in the chat, not by a key.
    const chat = await call(`${svc.api}/chat`, { cookie: sender.cookie, body: { message: 'send 200 KES to @amina' } });
    const viaKey = await settle(sender, { confirm_action: chat.body.pending_action.id });
    expect(viaKey.status).toBe(404);
    expect(await balances()).toEqual(before);

    const own = await settle(sender, { confirm_action: id });
    expect(own.status).toBe(200);
    expect(own.body.transfer).toMatchObject({ status: 'settled', amount: '200', currency: 'KES' });
  });

  it('confirm:false on a message that moves nothing answers at once with no pending action', async () => {
    const r = await settle(sender, { message: "what's my balance", confirm: false });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, action: 'balance' });
    expect(r.body.pending).toBeUndefined();
  });

  it('a confirm spends no turn budget: it runs when the account is at its rate limit', async () => {
    const m = await createMerchant(svc.api, 'Limited');
    await svc.deps.accounts.update(m.accountId, { country: 'KE', localCurrency: 'KES' });
    const res = await svc.deps.chain.faucet(await wallet(m), usdc('10'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
    const preview = await settle(m, { message: 'send 100 KES to @amina', confirm: false });
    expect(preview.status).toBe(200);
    let limited = 0;
    for (let i = 0; i < 10 && limited === 0; i++) if ((await settle(m, { message: 'help' })).status === 429) limited++;
    expect(limited).toBe(1);
    const r = await settle(m, { confirm_action: preview.body.pending.id });
    expect(r.status).toBe(200);
    expect(r.body.transfer).toMatchObject({ status: 'settled', amount: '100' });
  });

  it('400 {ok:false, reply} unless exactly one of message and confirm_action is sent', async () => {
    const before = await balances();
    const bodies: unknown[] = [
      {},
      { message: 'send 100 KES to @amina', confirm_action: 'act_000000000000000000000000' },
      { confirm_action: 'act_000000000000000000000000', confirm: true },
      { confirm: false },
      { message: 'send 100 KES to @amina', confirm: 'false' },
      { message: 'send 100 KES to @amina', confrim: false },
      { confirm_action: 'not-an-id' },
      { confirm_action: 42 },
    ];
    for (const body of bodies) {
      const r = await settle(sender, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toEqual({ ok: false, reply: expect.any(String) });
    }
    expect(await balances()).toEqual(before);
  });
});
