import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant } from '../helpers/service.js';
import { Payments } from '../../src/payments/payments.js';
import { WebhookEvents } from '../../src/webhooks/outbox.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';
import { authorize, createPayment, customer, merchantWallet, settle, setup, until, usdc, type Ctx } from '../settlement/helpers.js';

/** POST /api/v1/payments/:id/cancel over real HTTP against the embedded chain (issue 15, item 2). */
describe('cancel a pending payment', () => {
  let ctx: Ctx;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    ctx = await setup({ WEBHOOK_RETRY_SCHEDULE: '0,200ms,1s', SETTLEMENT_CONFIRM_TIMEOUT: '20s' });
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
    await receiver?.close();
  });

  const cancel = (id: string, key = ctx.merchant.key, body?: unknown) =>
    call(`${ctx.svc.api}/v1/payments/${id}/cancel`, { method: 'POST', key, ...(body === undefined ? {} : { body }) });

  it('pending becomes canceled: webhook, checkout read, hosted page; an authorization signed before cannot settle it', async () => {
    const pay = await createPayment(ctx, { webhook_url: receiver.url, reference: 'cancel-1' });
    const payer = await customer(ctx, usdc('12.5'));
    // The customer signed before the merchant called it off.
    const signed = await authorize(ctx, pay.id, payer);
    const wallet = await merchantWallet(ctx);
    const before = { payer: await ctx.svc.deps.chain.balanceOf(payer.address), merchant: await ctx.svc.deps.chain.balanceOf(wallet) };

    const res = await cancel(pay.id, ctx.merchant.key, { reason: 'customer changed their mind' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: pay.id, status: 'canceled', cancellation_reason: 'customer changed their mind' });
    expect(Date.parse(res.body.canceled_at)).toBeGreaterThan(0);

    const read = await call(`${ctx.svc.api}/v1/payments/${pay.id}`, { key: ctx.merchant.key });
    expect(read.body.status).toBe('canceled');
    const view = await call(`${ctx.svc.api}/checkout/${pay.id}`);
    expect(view.body.payment.status).toBe('canceled');

    const event = await until(async () => receiver.received.find((r) => r.json?.type === 'payment.canceled'), 'payment.canceled');
    expect(event.json.data).toMatchObject({ id: pay.id, status: 'canceled', reference: 'cancel-1' });

    const page = await fetch(pay.checkout_url);
    const html = await page.text();
    // The canceled page says when (issue 27) and that nothing was charged.
    expect(html).toMatch(/The merchant canceled this payment on [^<]+\. Nothing was charged\./);
    expect(html).not.toContain('id="pay-wallet"');

    // The earlier signature is refused, a new one is never issued, and nothing moves on chain.
    const late = await settle(ctx, pay.id, signed);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ ok: false, reason: 'canceled' });
    const issue = await call(`${ctx.svc.api}/checkout/${pay.id}/authorization`, { body: { from: payer.address } });
    expect(issue.status).toBe(409);
    expect(issue.body.reason).toBe('canceled');
    expect(await ctx.svc.deps.chain.balanceOf(payer.address)).toBe(before.payer);
    expect(await ctx.svc.deps.chain.balanceOf(wallet)).toBe(before.merchant);
    expect(await ctx.svc.deps.chain.authorizationState(payer.address, ctx.svc.deps.settlement!.nonceFor(pay.id))).toBe(false);

    // Canceling again answers with the canceled payment; the event is not sent twice.
    const again = await cancel(pay.id);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('canceled');
    const events = await ctx.svc.deps.store.table(WebhookEvents).findMany({ paymentId: pay.id });
    expect(events.filter((e) => e.type === 'payment.canceled')).toHaveLength(1);
  });

  it('a settled payment is a 409 that points to refunds', async () => {
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('12.5'));
    const done = await settle(ctx, pay.id, await authorize(ctx, pay.id, payer));
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const res = await cancel(pay.id);
    expect(res.status).toBe(409);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toContain(`/api/v1/payments/${pay.id}/refunds`);
  });

  it('expired and unknown payments, another account, bad bodies', async () => {
    const pay = await createPayment(ctx);
    const other = await createMerchant(ctx.svc.api, 'Other Shop');
    const foreign = await cancel(pay.id, other.key);
    expect(foreign.status).toBe(404);
    expect((await call(`${ctx.svc.api}/v1/payments/${pay.id}`, { key: ctx.merchant.key })).body.status).toBe('pending');

    expect((await cancel('pay_doesnotexist000')).status).toBe(404);
    expect((await call(`${ctx.svc.api}/v1/payments/${pay.id}/cancel`, { method: 'POST' })).status).toBe(401);
    const bad = await cancel(pay.id, ctx.merchant.key, { reason: 'x'.repeat(301) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('reason');

    // Past its expiry a pending payment reads as expired: nothing to cancel.
    await ctx.svc.deps.store.write(Payments, (t) => t.update(pay.id, { expiresAt: new Date(Date.now() - 1000).toISOString() }),
    );
    const expired = await cancel(pay.id);
    expect(expired.status).toBe(409);
    expect(expired.body.error.message).toMatch(/expired/);
  });

  it('the dashboard cancels with the session cookie', async () => {
    const pay = await createPayment(ctx);
    const res = await call(`${ctx.svc.api}/app/payments/${pay.id}/cancel`, { method: 'POST', cookie: ctx.merchant.cookie, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('canceled');
    const foreignOrigin = await call(`${ctx.svc.api}/app/payments/${pay.id}/cancel`, {
      method: 'POST',
      cookie: ctx.merchant.cookie,
      body: {},
      headers: { origin: 'https://evil.example' },
    });
    expect(foreignOrigin.status).toBe(403);
  });
});
