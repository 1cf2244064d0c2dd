import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { Quotes } from '../../src/quotes/quotes.js';
import { Transfers } from '../../src/transfers/transfers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 26 part 2 (firm quotes) through the real doors with the embedded anvil: POST/GET
 * /api/quotes (scoped to the key's account), `quote_id` confirmed through
 * POST /api/agent/settle at exactly the quoted figures after the rate table changed, the
 * chat-style preview (confirm:false) that pins a quote, and an expired quote refused with a
 * new one offered and nothing moved. Run on lowdb (quotes.test.ts) and PostgreSQL (quotes.pg.test.ts).
 */
export function quoteSuite(title: string): void {
  describe(title, () => {
    let svc: TestService;
    let sender: Merchant; // Kenyan, funded
    let amina: Merchant; // Nigerian, @amina
    let other: Merchant;
    const TTL_MS = 4_000;
    const wallet = async (m: Merchant): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
    const settle = (m: Merchant, body: unknown) => call(`${svc.api}/agent/settle`, { key: m.key, body });
    let ngnRate: string;
    const setNgn = (rate: string) => {
      svc.deps.fx.table.currencies.NGN!.rate = rate;
    };

    beforeAll(async () => {
      svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min', QUOTE_TTL: `${TTL_MS}ms` });
      [sender, amina, other] = await Promise.all([createMerchant(svc.api, 'Wanjiru'), createMerchant(svc.api, 'Amina'), createMerchant(svc.api, 'Other')]);
      await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
      await svc.deps.accounts.update(amina.accountId, { country: 'NG', localCurrency: 'NGN', telegramUsername: 'amina' });
      const res = await svc.deps.chain.faucet(await wallet(sender), usdc('100'), { nativeAmount: 0n });
      if (!res.ok) throw new Error(res.message);
      ngnRate = svc.deps.fx.table.currencies.NGN!.rate;
    });
    afterAll(async () => {
      if (svc) setNgn(ngnRate);
      await svc?.stop({ removeData: true });
    });

    it('POST /api/quotes answers a firm quote; GET reads it back; another account gets 404; bad input 400', async () => {
      const made = await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '1000', currency: 'KES', recipient: '@amina' } });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ object: 'quote', status: 'open', amount: '1000', currency: 'KES', recipient: '@amina', recipient_currency: 'NGN', rate_source: 'table', transfer_id: null });
      expect(made.body.id).toMatch(/^qt_/);
      const ttl = Date.parse(made.body.expires_at) - Date.parse(made.body.created_at);
      expect(ttl).toBe(TTL_MS);
      expect(Number(made.body.fee)).toBeGreaterThan(0);

      const read = await call(`${svc.api}/quotes/${made.body.id}`, { key: sender.key });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(made.body);
      const foreign = await call(`${svc.api}/quotes/${made.body.id}`, { key: other.key });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.type).toBe('invalid_request_error');
      // Nor can another account execute it.
      const stolen = await settle(other, { quote_id: made.body.id });
      expect(stolen.status).toBe(404);

      const rateOnly = await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '100', currency: 'USD', to_currency: 'NGN' } });
      expect(rateOnly.status).toBe(201);
      expect(rateOnly.body).toMatchObject({ recipient: null, recipient_currency: 'NGN' });

      for (const body of [{ amount: 'ten' }, { amount: '10', currency: 'XXX' }, { amount: '10', recipient: '@nobody_here_xyz' }, { amount: '10', extra: 1 }]) {
        const bad = await call(`${svc.api}/quotes`, { key: sender.key, body });
        expect(bad.status, JSON.stringify(body)).toBe(400);
        expect(bad.body.error.type).toBe('invalid_request_error');
      }
      // Each bad currency is named as written (h17tour: a bad to_currency was blamed on currency).
      const badTo = await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '10', currency: 'USD', to_currency: 'XXX' } });
      expect(badTo.status).toBe(400);
      expect(badTo.body.error).toMatchObject({ type: 'invalid_request_error', param: 'to_currency', message: expect.stringMatching(/^Unsupported currency: XXX\. Supported: .*KES/) });
      const badFrom = await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '10', currency: 'XXX', to_currency: 'KES' } });
      expect(badFrom.body.error.param).toBe('currency');
      expect((await call(`${svc.api}/quotes`, { body: { amount: '10' } })).status).toBe(401);
    });

    it('a quote confirmed in time executes at the locked rate even after the table changed', async () => {
      const made = await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '1000', currency: 'KES', recipient: '@amina' } });
      expect(made.status).toBe(201);
      const q = made.body;
      const [fromBefore, toBefore] = [await balance(svc, await wallet(sender)), await balance(svc, await wallet(amina))];

      setNgn('9999'); // The table moves after the quote.
      try {
        const fresh = await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '1000', currency: 'KES', recipient: '@amina' } });
        expect(fresh.body.recipient_amount).not.toBe(q.recipient_amount);

        const sent = await settle(sender, { quote_id: q.id });
        expect(sent.status, JSON.stringify(sent.body)).toBe(200);
        expect(sent.body).toMatchObject({ ok: true, action: 'transfer' });
        expect(sent.body.transfer).toMatchObject({
          status: 'settled',
          quote_id: q.id,
          rate: q.rate,
          recipient_amount: q.recipient_amount,
          stablecoin_amount: q.stablecoin_amount,
          fee: q.fee,
        });
        const moved = usdc(q.stablecoin_amount);
        expect(await balance(svc, await wallet(amina))).toBe(toBefore + moved);
        expect(await balance(svc, await wallet(sender))).toBe(fromBefore - usdc(q.total_debit));

        const after = await call(`${svc.api}/quotes/${q.id}`, { key: sender.key });
        expect(after.body).toMatchObject({ status: 'used', transfer_id: sent.body.transfer.id });
        // A quote is used once.
        const again = await settle(sender, { quote_id: q.id });
        expect(again.status).toBe(422);
        expect(again.body.reason).toBe('quote_used');
        expect(await balance(svc, await wallet(amina))).toBe(toBefore + moved);
      } finally {
        setNgn(ngnRate);
      }
    });

    it('an expired quote is refused, nothing moves, and a new quote is offered', async () => {
      const made = await call(`${svc.api}/quotes`, { key: sender.key, body: { amount: '500', currency: 'KES', recipient: '@amina' } });
      const before = [await balance(svc, await wallet(sender)), await balance(svc, await wallet(amina))];
      await sleep(TTL_MS + 200);
      const late = await settle(sender, { quote_id: made.body.id });
      expect(late.status).toBe(410);
      expect(late.body).toMatchObject({ ok: false, reason: 'quote_expired' });
      expect(late.body.reply).toMatch(/expired/);
      const offered = /quote (qt_[0-9A-Za-z]+)/.exec(late.body.reply)?.[1];
      expect(offered).toBeDefined();
      expect([await balance(svc, await wallet(sender)), await balance(svc, await wallet(amina))]).toEqual(before);
      expect((await call(`${svc.api}/quotes/${made.body.id}`, { key: sender.key })).body.status).toBe('expired');
      // The offered quote is a real one and works in time.
      const ok = await settle(sender, { quote_id: offered });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.transfer).toMatchObject({ status: 'settled', quote_id: offered });
    });

    it('a previewed transfer (confirm:false) pins a firm quote: confirmed in time at its rate after the table changed; late, refused', async () => {
      const preview = await settle(sender, { message: 'send 1000 KES to @amina', confirm: false });
      expect(preview.status).toBe(200);
      const pinned = preview.body.transfer as { quote_id: string; rate: string; recipient_amount: string };
      expect(pinned.quote_id).toMatch(/^qt_/);
      expect(preview.body.pending.description).toContain(`quote ${pinned.quote_id}`);
      setNgn('9999');
      try {
        const done = await settle(sender, { confirm_action: preview.body.pending.id });
        expect(done.status, JSON.stringify(done.body)).toBe(200);
        expect(done.body.transfer).toMatchObject({ status: 'settled', quote_id: pinned.quote_id, rate: pinned.rate, recipient_amount: pinned.recipient_amount });
      } finally {
        setNgn(ngnRate);
      }

      const slow = await settle(sender, { message: 'send 700 KES to @amina', confirm: false });
      const before = await balance(svc, await wallet(amina));
      await sleep(TTL_MS + 200);
      const late = await settle(sender, { confirm_action: slow.body.pending.id });
      expect(late.status).toBe(410); // As for an expired action: nothing was done.
      expect(late.body).toMatchObject({ ok: false, action: 'transfer', reason: 'quote_expired' });
      expect(late.body.reply).toMatch(/expired.*new quote/s);
      expect(await balance(svc, await wallet(amina))).toBe(before);
    });

    it('a quote is of its key\'s mode: the other mode\'s key reads or executes it as 404; executed, the transfer is in that mode', async () => {
      const made = await call(`${svc.api}/keys`, { cookie: sender.cookie, body: { label: 'sandbox', mode: 'test' } });
      expect(made.status).toBe(201);
      const testKey = made.body.key.secret as string;
      const quote = async (key: string) => (await call(`${svc.api}/quotes`, { key, body: { amount: '200', currency: 'KES', recipient: '@amina' } })).body;
      const [tq, lq] = [await quote(testKey), await quote(sender.key)];
      expect(await svc.deps.store.table(Quotes).get(tq.id)).toMatchObject({ livemode: false });
      // Each mode reads its own; the other mode's id answers exactly like an unknown one.
      expect((await call(`${svc.api}/quotes/${tq.id}`, { key: testKey })).status).toBe(200);
      for (const [key, id] of [[sender.key, tq.id], [testKey, lq.id]] as const) {
        const read = await call(`${svc.api}/quotes/${id}`, { key });
        expect(read.status).toBe(404);
        const unknown = await call(`${svc.api}/quotes/qt_0000000000unknown`, { key });
        expect(read.body.error).toMatchObject({ type: unknown.body.error.type, message: `No such quote: ${id}.` });
        const run = await call(`${svc.api}/agent/settle`, { key, body: { quote_id: id } });
        expect(run.status).toBe(404);
        expect((await svc.deps.store.table(Quotes).get(id))!.status).toBe('open');
      }
      // Executed with its own mode's key: a test transfer (the embedded chain is both modes').
      const done = await call(`${svc.api}/agent/settle`, { key: testKey, body: { quote_id: tq.id } });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.transfer).toMatchObject({ status: 'settled', quote_id: tq.id });
      expect(await svc.deps.store.table(Transfers).get(done.body.transfer.id)).toMatchObject({ livemode: false, quoteId: tq.id });
    });

    it('quote_transfer records a firm quote with an id and expiry', async () => {
      const r = await settle(sender, { message: 'how much does @amina get if I send 1000 KES?' });
      expect(r.body).toMatchObject({ ok: true, action: 'quote', quote: { moved: false } });
      const id = r.body.quote.quote_id as string;
      expect(id).toMatch(/^qt_/);
      const row = await svc.deps.store.table(Quotes).get(id);
      expect(row).toMatchObject({ accountId: sender.accountId, status: 'open', recipientAmount: r.body.quote.recipient_amount });
      expect(r.body.quote.expires_at).toBe(row!.expiresAt);
    });
  });
}
