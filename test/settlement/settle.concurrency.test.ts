import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { authorize, createPayment, customer, merchantWallet, paymentRecord, settle, setup, stored, until, usdc, type Ctx } from './helpers.js';
import { hashRecordCounter, holdChain } from './hash-records.js';
import { SettlementAttempts, attemptId } from '../../src/settlement/attempts.js';

describe('settlement: concurrency and double submits', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await setup();
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  const relayerNonce = () => ctx.svc.deps.chain.publicClient.getTransactionCount({ address: ctx.svc.deps.chain.relayerAddress });

  it('20 payments settled at once share relayer transactions (batch relay), each settled by its own log, balances exact', async () => {
    const { chain } = ctx.svc.deps;
    const n = 20;
    const payouts = Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()).address);
    const prepared = await Promise.all(
      payouts.map(async (payout, i) => {
        const amount = `1.${String(i).padStart(2, '0')}`; // 1.00 .. 1.19 USD, all different
        const pay = await createPayment(ctx, { amount: Number(amount), payout_address: payout });
        const payer = await customer(ctx, usdc(amount));
        return { pay, payer, payout, due: usdc(amount), signed: await authorize(ctx, pay.id, payer) };
      }),
    );
    const nonceBefore = await relayerNonce();
    const records = hashRecordCounter(ctx.svc);
    records.start();
    const results = await Promise.all(prepared.map((p) => settle(ctx, p.pay.id, p.signed))).finally(() => records.restore());
    const hashRecords = records.stop();
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    // Fifteenth round (h15hash): a batch member's receipt came back within the hash record's
    // grace (relay.ts SENT_RECORD_GRACE_MS) and said it moved, so no member wrote its hash in a
    // commit of its own (one per batched member before); the settled write carries it.
    expect(hashRecords.length, 'hash records written in a commit of their own').toBe(0);
    // Fewer relayer transactions than settlements: the ones that arrived together went as one.
    const txs = await relayerNonce() - nonceBefore;
    expect(txs).toBeLessThan(n);
    expect(new Set(results.map((r) => r.body.txHash)).size).toBe(txs);
    for (const [i, p] of prepared.entries()) {
      expect(await chain.balanceOf(p.payout)).toBe(p.due);
      expect(await chain.balanceOf(p.payer.address)).toBe(0n);
      const record = await paymentRecord(ctx, p.pay.id);
      expect(record.status).toBe('settled');
      // The hash is stored on the payment and on its attempt row (whose answer names it too).
      expect(record.tx_hash).toBe(results[i]!.body.txHash);
      const attempt = await ctx.svc.deps.store.table(SettlementAttempts).get(attemptId('checkout', p.payer.address, p.signed.authorization.nonce as string));
      expect(attempt).toMatchObject({ state: 'done', txHash: results[i]!.body.txHash, answer: { ok: true, txHash: results[i]!.body.txHash } });
      // The recorded transaction is the one whose AuthorizationUsed log names this payment's authorization.
      const nonce = p.signed.authorization.nonce as Hex;
      expect(await chain.findAuthorizationTx(p.payer.address, nonce, { txHash: results[i]!.body.txHash })).toBe(results[i]!.body.txHash);
    }
  });

  it('a batch whose receipt comes later than the hash record\'s grace: each member shows processing with its hash before its outcome, then settles', async () => {
    const prepared = await Promise.all(
      Array.from({ length: 3 }, async (_, i) => {
        const pay = await createPayment(ctx, { amount: 2 + i });
        const payer = await customer(ctx, usdc(String(2 + i)));
        return { pay, payer, signed: await authorize(ctx, pay.id, payer) };
      }),
    );
    // The first send waits until all three reached the chain port (the other two then leave as
    // one batch); every receipt is held until the test has seen the hashes stored.
    const held = holdChain(ctx.svc, { handed: 3, receipts: true });
    let answers: Array<Awaited<ReturnType<typeof settle>>>;
    try {
      const settling = Promise.all(prepared.map((p) => settle(ctx, p.pay.id, p.signed)));
      const batch = await until(async () => held.sent.length >= 2 && held.sent[1], 'the batch to be sent');
      for (const p of prepared) {
        // The alone one recorded its hash with its journal entry; the batch's members once the grace passed.
        const got = await until(async () => {
          const now = await stored(ctx, p.pay.id);
          return now.txHash ? now : undefined;
        }, 'the hash stored while the receipt is held');
        expect(got.status).toBe('processing');
        expect(held.sent).toContain(got.txHash);
        // A poll of the page reads it processing (the public view names no hash).
        const view = await fetch(`${ctx.svc.api}/checkout/${p.pay.id}`).then((r) => r.json() as Promise<{ payment: { status: string } }>);
        expect(view.payment.status).toBe('processing');
        const attempt = await ctx.svc.deps.store.table(SettlementAttempts).get(attemptId('checkout', p.payer.address, p.signed.authorization.nonce as string));
        expect(attempt).toMatchObject({ state: 'open', txHash: got.txHash });
      }
      // One went alone, the other two as members of one batch: the case the grace is for.
      const hashes = await Promise.all(prepared.map(async (p) => (await stored(ctx, p.pay.id)).txHash));
      expect(hashes.filter((h) => h === batch)).toHaveLength(2);
      expect(hashes.filter((h) => h === held.sent[0])).toHaveLength(1);
      held.release();
      answers = await settling;
    } finally {
      held.release();
      held.restore();
    }
    for (const [i, r] of answers.entries()) {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(await paymentRecord(ctx, prepared[i]!.pay.id)).toMatchObject({ status: 'settled', tx_hash: r.body.txHash });
    }
  });

  it('a payer spending the same balance twice among other settles: one of its two pays, the other is refused with the reason, the rest all pay', async () => {
    const { chain } = ctx.svc.deps;
    const others = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const pay = await createPayment(ctx, { amount: 2 });
        const payer = await customer(ctx, usdc('2'));
        return { pay, payer, signed: await authorize(ctx, pay.id, payer) };
      }),
    );
    const twice = await customer(ctx, usdc('3')); // enough for one of its two payments only
    const mine = await Promise.all(
      [0, 1].map(async () => {
        const pay = await createPayment(ctx, { amount: 3 });
        return { pay, payer: twice, signed: await authorize(ctx, pay.id, twice) };
      }),
    );
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const nonceBefore = await relayerNonce();
    const all = [...mine, ...others];
    const results = await Promise.all(all.map((p) => settle(ctx, p.pay.id, p.signed)));
    for (const r of results.slice(2)) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [a, b] = results;
    // The refused one is caught before its own transaction, or, when both left in separate
    // transactions before either was mined, its transaction reverts for the spent balance; either
    // way 402 insufficient_balance and the payment open again (docs/settlement.md, "A revert for a
    // spent balance"), never `failed`. Nothing of it was charged.
    const refused = [a, b].find((r) => r!.status !== 200)!;
    expect([a!.status, b!.status].filter((s) => s === 200), JSON.stringify([a!.body, b!.body])).toHaveLength(1);
    expect(refused.status, JSON.stringify(refused.body)).toBe(402);
    expect(refused.body).toMatchObject({ ok: false, reason: 'insufficient_balance' });
    const records = await Promise.all(all.map((p) => paymentRecord(ctx, p.pay.id)));
    expect(records.filter((r) => r.status === 'settled')).toHaveLength(all.length - 1);
    expect(records.filter((r) => r.status === 'pending')).toHaveLength(1);
    expect(await chain.balanceOf(twice.address)).toBe(0n);
    expect(await chain.balanceOf(to)).toBe(before + usdc('3') + usdc('2') * 8n);
    expect(await relayerNonce() - nonceBefore).toBeLessThan(all.length - 1);
  });

  it('the same authorization submitted twice at once moves money once; both get the same outcome', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('25')); // enough for two, so only the nonce can stop a second
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const signed = await authorize(ctx, pay.id, payer);
    const nonceBefore = await relayerNonce();

    const [a, b] = await Promise.all([settle(ctx, pay.id, signed), settle(ctx, pay.id, signed)]);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    expect(b.body.txHash).toBe(a.body.txHash);
    expect(b.body.redirect).toBe(a.body.redirect);
    expect(await chain.balanceOf(to)).toBe(before + usdc('12.5'));
    expect(await chain.balanceOf(payer.address)).toBe(usdc('12.5'));
    expect(await relayerNonce()).toBe(nonceBefore + 1);
  });

  it('the same authorization submitted again later returns the settled payment, sending nothing', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('25'));
    const signed = await authorize(ctx, pay.id, payer);
    const first = await settle(ctx, pay.id, signed);
    expect(first.status).toBe(200);
    const nonceAfterFirst = await relayerNonce();
    const again = await settle(ctx, pay.id, signed);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ ok: true, txHash: first.body.txHash, redirect: first.body.redirect });
    expect(again.body.payment.status).toBe('settled');
    expect(await relayerNonce()).toBe(nonceAfterFirst);
    expect(await chain.balanceOf(payer.address)).toBe(usdc('12.5'));
  });

  it('two different payers racing for one payment: one pays, the other is refused and keeps their money', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx);
    const [p1, p2] = await Promise.all([customer(ctx, usdc('12.5')), customer(ctx, usdc('12.5'))]);
    const [s1, s2] = await Promise.all([authorize(ctx, pay.id, p1), authorize(ctx, pay.id, p2)]);
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const results = await Promise.all([settle(ctx, pay.id, s1), settle(ctx, pay.id, s2)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409)!;
    expect(loser.body).toMatchObject({ ok: false, reason: 'already_settled' });
    expect(await chain.balanceOf(to)).toBe(before + usdc('12.5'));
    const balances = [await chain.balanceOf(p1.address), await chain.balanceOf(p2.address)].sort();
    expect(balances).toEqual([0n, usdc('12.5')]);
  });
});
