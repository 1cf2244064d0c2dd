import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { Claims } from '../../src/claims/claim-record.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 26: a claim link is priced from a firm quote like an ordinary transfer. The preview
 * (`confirm:false`, as chat and Telegram show it) pins the quote in the pending action; a
 * Confirm within the quote's life executes exactly its figures though the rate table changed
 * in between; after it, quote_expired and nothing moves. Real HTTP, embedded anvil.
 */
describe('claim links at a firm quote', () => {
  let svc: TestService;
  let sender: Merchant;
  const TTL_MS = 4_000;
  let kesRate: string;
  const setKes = (rate: string) => void (svc.deps.fx.table.currencies.KES!.rate = rate);
  const wallet = async (): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(sender.accountId))!.walletIndex);
  const settle = (body: unknown) => call(`${svc.api}/agent/settle`, { key: sender.key, body });

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min', QUOTE_TTL: `${TTL_MS}ms` });
    sender = await createMerchant(svc.api, 'Wanjiru');
    await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
    const res = await svc.deps.chain.faucet(await wallet(), usdc('100'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
    kesRate = svc.deps.fx.table.currencies.KES!.rate;
  });
  afterAll(async () => {
    if (svc) setKes(kesRate);
    await svc?.stop({ removeData: true });
  });

  it('preview, the table changes, Confirm in time: exactly the quoted figures leave the wallet', async () => {
    const from = await wallet();
    const start = await balance(svc, from);
    const preview = await settle({ message: 'send 1000 KES to +254 712 000 555', confirm: false });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const d = preview.body.transfer;
    expect(d).toMatchObject({ claim: true, amount: '1000', currency: 'KES' });
    expect(d.quote_id).toMatch(/^qt_/);
    expect(preview.body.pending.description).toContain(`quote ${d.quote_id}`);
    try {
      setKes((Number(kesRate) * 2).toString()); // a shilling is now worth half as many dollars
      const done = await settle({ confirm_action: preview.body.pending.id });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.transfer).toMatchObject({ type: 'claim', status: 'open', stablecoin_amount: d.stablecoin_amount, fee: d.fee, total_debit: d.total_debit });
      const c = (await svc.deps.claims.get(done.body.transfer.id))!;
      expect(await balance(svc, from)).toBe(start - usdc(d.total_debit));
      expect(await balance(svc, c.escrowAddress as Address)).toBe(usdc(d.total_debit));
      expect((await call(`${svc.api}/quotes/${d.quote_id}`, { key: sender.key })).body).toMatchObject({ status: 'used', transfer_id: c.id });
    } finally {
      setKes(kesRate);
    }
  });

  it('Confirm after the quote expired: quote_expired, a new quote offered, nothing moved', async () => {
    const from = await wallet();
    const preview = await settle({ message: 'send 700 KES to later.person@example.com', confirm: false });
    expect(preview.body.transfer.quote_id).toMatch(/^qt_/);
    const before = await balance(svc, from);
    const claims = (await svc.deps.store.table(Claims).findMany({})).length;
    await sleep(TTL_MS + 200);
    const late = await settle({ confirm_action: preview.body.pending.id });
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ ok: false, action: 'transfer', reason: 'quote_expired' });
    expect(late.body.reply).toMatch(/expired.*new quote/s);
    expect(await balance(svc, from)).toBe(before);
    expect(await svc.deps.store.table(Claims).findMany({})).toHaveLength(claims);
  });

  /**
   * h17probe (leftover 6 of h16tour): `POST /api/quotes` to a phone or email with no account answered "couldn't
   * find anyone", though a send to it makes a claim link. Now it is quoted as that claim-link send (into USDC),
   * and `{quote_id}` on /agent/settle sends exactly those figures into a claim for that contact only.
   */
  it('POST /api/quotes to a phone with no account is the claim-link quote; settling it makes the claim at its figures', async () => {
    const from = await wallet();
    const start = await balance(svc, from);
    const q = await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '500', recipient: '+254 712 000 777' } });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    expect(q.body).toMatchObject({ amount: '500', currency: 'KES', recipient_currency: 'USDC', recipient: expect.stringContaining('no account yet') });
    expect(q.body.recipient).not.toContain('712000777'); // masked, as claims show it
    const email = await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '500', recipient: 'nobody-yet@example.org' } });
    expect(email.status).toBe(201);
    expect(email.body.recipient_currency).toBe('USDC');

    // The quote is that contact's: a send to another contact with it is refused, nothing moves.
    const other = await settle({ message: 'send 500 KES to +254712000888' });
    expect(other.status).toBe(200); // an ordinary claim send of its own (no quote given)
    const otherTotal = usdc(other.body.transfer.total_debit);

    const done = await settle({ quote_id: q.body.id });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.transfer).toMatchObject({ type: 'claim', status: 'open', stablecoin_amount: q.body.stablecoin_amount, fee: q.body.fee, total_debit: q.body.total_debit });
    expect(await balance(svc, from)).toBe(start - otherTotal - usdc(q.body.total_debit));
    expect((await call(`${svc.api}/quotes/${q.body.id}`, { key: sender.key })).body).toMatchObject({ status: 'used', transfer_id: done.body.transfer.id });
    expect(await svc.deps.quotes.forClaim(sender.accountId, email.body.id, { amount: '500', recipient: '+254712000888' })).toMatchObject({ ok: false, reason: 'quote_mismatch' });
    // A handle nobody has is still "couldn't find": only phones and emails can be sent a claim link.
    expect((await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '500', recipient: '@nobody_h17' } })).status).toBe(400);
  });
});
