import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, toHex, type Address } from 'viem';
import { call, createMerchant } from '../helpers/service.js';
import { WebhookEvents } from '../../src/webhooks/outbox.js';
import { REFUND_NONCE_KIND, Refunds, type RefundsService } from '../../src/refunds/refunds.js';
import { WebhookEventPayload } from '../../src/webhooks/webhook-schemas.js';
import { createWebhookReceiver, type PaymentEvent } from '../../examples/webhook-receiver.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';
import { anvil, authorize, createPayment, customer, merchantWallet, settle, setup, until, usdc, type Ctx } from '../settlement/helpers.js';

/** Refunds over real HTTP, paid on the embedded chain (issue 15, item 1). */
describe('refunds', () => {
  let ctx: Ctx;
  let receiver: Receiver;
  let wallet: Address;

  beforeAll(async () => {
    receiver = await startReceiver();
    ctx = await setup({ WEBHOOK_RETRY_SCHEDULE: '0,200ms,1s', SETTLEMENT_CONFIRM_TIMEOUT: '20s' });
    wallet = await merchantWallet(ctx);
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
    await receiver?.close();
  });

  const chain = () => ctx.svc.deps.chain;
  const refund = (id: string, body: unknown = {}, headers: Record<string, string> = {}, key = ctx.merchant.key) =>
    call(`${ctx.svc.api}/v1/payments/${id}/refunds`, { key, body, headers });
  const read = (id: string) => call(`${ctx.svc.api}/v1/payments/${id}`, { key: ctx.merchant.key });

  /** A settled payment and its payer (paid from a fresh funded wallet). */
  async function paid(body: Record<string, unknown> = {}, funds = '12.5') {
    const pay = await createPayment(ctx, { webhook_url: receiver.url, ...body });
    const payer = await customer(ctx, usdc(funds));
    const done = await settle(ctx, pay.id, await authorize(ctx, pay.id, payer));
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    return { pay, payer };
  }

  it('a full refund by default: on-chain from the settlement wallet back to the payer, gas paid by the service', async () => {
    const { pay, payer } = await paid({ reference: 'full-1' });
    const before = { payer: await chain().balanceOf(payer.address), merchant: await chain().balanceOf(wallet) };
    expect(before.payer).toBe(0n);
    const nativeBefore = await chain().nativeBalance(wallet);

    const res = await refund(pay.id, { reason: 'requested_by_customer' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      object: 'refund',
      payment_id: pay.id,
      status: 'succeeded',
      amount: 12.5,
      currency: 'USD',
      stablecoin_amount: '12.5',
      reason: 'requested_by_customer',
      from: wallet,
      to: payer.address,
    });
    expect(res.body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain().balanceOf(payer.address)).toBe(before.payer + usdc('12.5'));
    expect(await chain().balanceOf(wallet)).toBe(before.merchant - usdc('12.5'));
    expect(await chain().nativeBalance(wallet)).toBe(nativeBefore);
    // The EIP-3009 nonce is derived from the refund id: the token has recorded exactly that one.
    expect(await chain().authorizationState(wallet, chain().nonceFor(REFUND_NONCE_KIND, res.body.id))).toBe(true);

    const p = (await read(pay.id)).body;
    expect(p).toMatchObject({ status: 'refunded', amount_refunded: 12.5 });
    const listed = await call(`${ctx.svc.api}/v1/payments/${pay.id}/refunds`, { key: ctx.merchant.key });
    expect(listed.body.data.map((r: any) => r.id)).toEqual([res.body.id]);
    const one = await call(`${ctx.svc.api}/v1/refunds/${res.body.id}`, { key: ctx.merchant.key });
    expect(one.body).toEqual(res.body);

    const types = await until(async () => {
      const got = receiver.received.filter((r) => r.json?.data?.id === pay.id).map((r) => r.json);
      // Two deliveries, each on its own: they may arrive in either order.
      return got.some((e) => e.type === 'payment.refunded') && got.some((e) => e.type === 'refund.succeeded') ? got : undefined;
    }, 'refund webhooks');
    const succeeded = types.find((e) => e.type === 'refund.succeeded');
    const refunded = types.find((e) => e.type === 'payment.refunded');
    expect(succeeded.data.refund).toMatchObject({ id: res.body.id, status: 'succeeded', amount: 12.5 });
    expect(refunded.data).toMatchObject({ status: 'refunded', amount_refunded: 12.5, refund: { id: res.body.id } });
    // The documented event body, and the same bytes from the events API.
    for (const e of [succeeded, refunded]) {
      expect(WebhookEventPayload.parse(e)).toEqual(e);
      const one = await call(`${ctx.svc.api}/v1/events/${e.id}`, { key: ctx.merchant.key });
      expect(one.body).toEqual(e);
    }
    const listedEvents = await call(`${ctx.svc.api}/v1/events?payment=${pay.id}&type=refund.succeeded`, { key: ctx.merchant.key });
    expect(listedEvents.body.data.map((e: any) => e.id)).toEqual([succeeded.id]);

    // Nothing is left: another refund and a cancel are refused with the reason.
    const again = await refund(pay.id);
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(again.body.error.message).toMatch(/refunded in full/);
  });

  it('partial refunds in the payment currency at the locked rate, several, up to the settled amount', async () => {
    // 5,000 KES at the rate locked at creation.
    const { pay, payer } = await paid({ amount: 5000, currency: 'KES' }, '100');
    const created = (await read(pay.id)).body;
    const total = BigInt(created.stablecoin_amount_base_units);
    const first = await refund(pay.id, { amount: 1000 });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ status: 'succeeded', amount: 1000, currency: 'KES', rate: created.rate });
    expect(BigInt(first.body.stablecoin_amount_base_units)).toBe((total * 1000n) / 5000n);
    expect((await read(pay.id)).body).toMatchObject({ status: 'settled', amount_refunded: 1000 });

    const tooMuch = await refund(pay.id, { amount: 4000.01 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error).toMatchObject({ param: 'amount' });
    expect(tooMuch.body.error.message).toMatch(/at most 4,?000(\.00)? KES/);
    const decimals = await refund(pay.id, { amount: 1.001 });
    expect(decimals.status).toBe(400);
    expect(decimals.body.error.param).toBe('amount');
    // The same mistake gets the same words as on creating a payment (h16tour: two wordings).
    expect(decimals.body.error.message).toBe('Amount has more decimal places than KES allows (2).');
    const onCreate = await call(`${ctx.svc.api}/v1/payments`, { key: ctx.merchant.key, body: { amount: 1.001, currency: 'KES', redirect_url: 'https://shop.example/thanks' } });
    expect(onCreate.body.error).toMatchObject({ type: 'invalid_request_error', param: 'amount', message: decimals.body.error.message });

    const second = await refund(pay.id, { amount: 1500.5 });
    expect(second.body.status).toBe('succeeded');
    const rest = await refund(pay.id);
    expect(rest.body).toMatchObject({ status: 'succeeded', amount: 2499.5 });
    // The last refund takes exactly what is left: the refunds add up to the settled amount.
    const sum = [first, second, rest].reduce((s, r) => s + BigInt(r.body.stablecoin_amount_base_units), 0n);
    expect(sum).toBe(total);
    expect(await chain().balanceOf(payer.address)).toBe(usdc('100'));
    expect((await read(pay.id)).body).toMatchObject({ status: 'refunded', amount_refunded: 5000 });
    const listed = await call(`${ctx.svc.api}/v1/payments/${pay.id}/refunds?limit=2`, { key: ctx.merchant.key });
    expect(listed.body.data.map((r: any) => r.id)).toEqual([rest.body.id, second.body.id]);
    expect(listed.body.has_more).toBe(true);
  });

  it('20 parallel requests for the full amount produce one refund', async () => {
    const { pay, payer } = await paid();
    const merchantBefore = await chain().balanceOf(wallet);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(pay.id)));
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(1);
    expect(created[0]!.body.status).toBe('succeeded');
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(400);
      expect(a.body.error.message).toMatch(/Nothing is left to refund|refunded in full/);
    }
    expect(await chain().balanceOf(payer.address)).toBe(usdc('12.5'));
    expect(await chain().balanceOf(wallet)).toBe(merchantBefore - usdc('12.5'));
    const listed = await call(`${ctx.svc.api}/v1/payments/${pay.id}/refunds`, { key: ctx.merchant.key });
    expect(listed.body.data).toHaveLength(1);
  });

  it('Idempotency-Key replays the first refund; another body with it is a 409', async () => {
    const { pay } = await paid();
    const headers = { 'Idempotency-Key': `refund-${pay.id}` };
    const [a, b] = await Promise.all([refund(pay.id, { amount: 2 }, headers), refund(pay.id, { amount: 2 }, headers)]);
    const ids = new Set([a.body.id, b.body.id]);
    expect(ids.size).toBe(1);
    expect([a.status, b.status]).toEqual([201, 201]);
    const replay = await refund(pay.id, { amount: 2 }, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(a.body.id);
    expect((await refund(pay.id, { amount: 3 }, headers)).status).toBe(409);
    expect((await read(pay.id)).body.amount_refunded).toBe(2);
  });

  it('refuses with the reason: not settled, external payout_address, too little in the wallet, another account', async () => {
    const pending = await createPayment(ctx);
    const r1 = await refund(pending.id);
    expect(r1.status).toBe(400);
    expect(r1.body.error.message).toMatch(/Only a settled payment can be refunded; it is pending/);

    const external = await paid({ payout_address: '0x000000000000000000000000000000000000dEaD' });
    const r2 = await refund(external.pay.id);
    expect(r2.status).toBe(400);
    expect(r2.body.error.message).toMatch(/payout_address .* holds no key/);

    const other = await createMerchant(ctx.svc.api, 'Other');
    expect((await refund(external.pay.id, {}, {}, other.key)).status).toBe(404);
    expect((await call(`${ctx.svc.api}/v1/payments/${external.pay.id}/refunds`, { key: other.key })).status).toBe(404);

    const { pay } = await paid();
    // Move the merchant's money elsewhere: the settlement wallet can no longer pay the refund.
    const account = (await ctx.svc.deps.accounts.get(ctx.merchant.accountId))!;
    const all = await chain().balanceOf(wallet);
    const drained = await chain().custodialTransferAndWait({
      fromIndex: account.walletIndex,
      to: '0x000000000000000000000000000000000000bEEF',
      value: all,
      nonce: chain().nonceFor('test-drain', pay.id),
    });
    expect(drained.ok).toBe(true);
    const r3 = await refund(pay.id);
    expect(r3.status).toBe(400);
    expect(r3.body.error.message).toMatch(/settlement wallet .* holds 0 USDC available; this refund needs 12.5 USDC/);
    const foreignRefund = await call(`${ctx.svc.api}/v1/refunds/re_doesnotexist00000`, { key: ctx.merchant.key });
    expect(foreignRefund.status).toBe(404);
    // Put the money back for the next test.
    expect((await chain().faucet(wallet, all, { nativeAmount: 0n })).ok).toBe(true);
  });

  it('a refund that fails on the chain reports failed, sends refund.failed, and can be retried', async () => {
    const { pay, payer } = await paid();
    const relayer = chain().relayerAddress;
    const gas = await chain().nativeBalance(relayer);
    await anvil(ctx, 'anvil_setBalance', [relayer, '0x0']);
    let failed;
    try {
      failed = await refund(pay.id);
    } finally {
      await anvil(ctx, 'anvil_setBalance', [relayer, toHex(gas > parseEther('1') ? gas : parseEther('100'))]);
    }
    expect(failed.status, JSON.stringify(failed.body)).toBe(201);
    expect(failed.body.status).toBe('failed');
    expect(failed.body.failure_reason).toMatch(/Nothing was refunded/);
    expect(await chain().balanceOf(payer.address)).toBe(0n);
    expect((await read(pay.id)).body).toMatchObject({ status: 'settled', amount_refunded: 0 });
    const events = await ctx.svc.deps.store.table(WebhookEvents).findMany({ paymentId: pay.id });
    expect(events.map((e) => e.type)).toContain('refund.failed');
    // refund.failed carries the failed refund in data.refund (read back through the events API).
    const failedEvents = await call(`${ctx.svc.api}/v1/events?payment=${pay.id}&type=refund.failed`, { key: ctx.merchant.key });
    expect(failedEvents.body.data).toHaveLength(1);
    expect(failedEvents.body.data[0].data).toMatchObject({ id: pay.id, status: 'settled', refund: { id: failed.body.id, status: 'failed' } });
    expect(WebhookEventPayload.parse(failedEvents.body.data[0])).toEqual(failedEvents.body.data[0]);

    const retry = await refund(pay.id);
    expect(retry.status).toBe(201);
    expect(retry.body.status).toBe('succeeded');
    expect(retry.body.id).not.toBe(failed.body.id);
    expect(await chain().balanceOf(payer.address)).toBe(usdc('12.5'));
    expect((await read(pay.id)).body.status).toBe('refunded');
  });

  it('a refund cut off before it reached the chain is finished by the reconciler, once', async () => {
    const { pay, payer } = await paid();
    const account = (await ctx.svc.deps.accounts.get(ctx.merchant.accountId))!;
    // What a crash right after the reservation leaves behind: a pending refund, nothing sent.
    const at = new Date().toISOString();
    await ctx.svc.deps.store.write(Refunds, (t) =>
      t.insert({
        id: 're_crashedbeforesend0001',
        accountId: ctx.merchant.accountId,
        paymentId: pay.id,
        status: 'pending',
        amount: '12.5',
        amountMinor: '1250',
        currency: 'USD',
        stablecoinAmount: usdc('12.5').toString(),
        rate: '1',
        fromIndex: account.walletIndex,
        from: wallet,
        to: payer.address,
        createdAt: at,
        updatedAt: at,
      }),
    );
    // One chain serves both modes here, so the core's refunds are the service itself.
    const refunds = ctx.svc.deps.refunds as RefundsService;
    // Two reconcile passes at once (two instances after a restart): the nonce lets one through.
    await Promise.all([refunds.reconcile(), refunds.reconcile(), refunds.execute('re_crashedbeforesend0001')]);
    const r = await call(`${ctx.svc.api}/v1/refunds/re_crashedbeforesend0001`, { key: ctx.merchant.key });
    expect(r.body.status).toBe('succeeded');
    expect(await chain().balanceOf(payer.address)).toBe(usdc('12.5'));
    expect((await read(pay.id)).body).toMatchObject({ status: 'refunded', amount_refunded: 12.5 });
    await refunds.reconcile();
    expect(await chain().balanceOf(payer.address)).toBe(usdc('12.5'));
  });

  it('the example receiver handles each partial refund of one payment (dedupe on the event id)', async () => {
    const { secret } = (await call(`${ctx.svc.api}/webhook-secret`, { method: 'POST', key: ctx.merchant.key })).body;
    const handled: PaymentEvent[] = [];
    const server = createWebhookReceiver(secret, async (e) => void handled.push(e));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/webhooks`;
      const { pay } = await paid({ webhook_url: url });
      const a = await refund(pay.id, { amount: 2 });
      const b = await refund(pay.id, { amount: 3 });
      expect([a.body.status, b.body.status]).toEqual(['succeeded', 'succeeded']);
      const refunds = await until(async () => {
        const got = handled.filter((e) => e.type === 'refund.succeeded');
        return got.length >= 2 ? got : undefined;
      }, 'two refund.succeeded events');
      expect(refunds.map((e) => e.data.refund?.id).sort()).toEqual([a.body.id, b.body.id].sort());
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('the dashboard refunds with the session cookie', async () => {
    const { pay } = await paid();
    const res = await call(`${ctx.svc.api}/app/payments/${pay.id}/refunds`, { cookie: ctx.merchant.cookie, body: { amount: 1 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const listed = await call(`${ctx.svc.api}/app/payments/${pay.id}/refunds`, { cookie: ctx.merchant.cookie });
    expect(listed.body.data[0].id).toBe(res.body.id);
  });
});
