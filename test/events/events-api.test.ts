import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, type Merchant } from '../helpers/service.js';
import { Payments } from '../../src/payments/payments.js';
import { EVENT_RETENTION_DAYS } from '../../src/events/events.js';
import { WebhookEvents } from '../../src/webhooks/outbox.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';
import { authorize, createPayment, customer, settle, setup, until, usdc, type Ctx } from '../settlement/helpers.js';

/** GET /api/v1/events and /api/v1/events/:id over real HTTP, events from real causes (issue 15, item 3). */
describe('events API', () => {
  let ctx: Ctx;
  let receiver: Receiver;
  let ids: { settled: string; canceled: string; expired: string; silent: string };

  const events = (query = '', key = ctx.merchant.key) => call(`${ctx.svc.api}/v1/events${query}`, { key });

  beforeAll(async () => {
    receiver = await startReceiver();
    ctx = await setup({ WEBHOOK_RETRY_SCHEDULE: '0,200ms,1s', SETTLEMENT_CONFIRM_TIMEOUT: '20s' });
    // Four events in a known order: settled (chain), canceled (API), expired (sweeper), and one
    // for a payment without any webhook URL (stored all the same).
    const settledPay = await createPayment(ctx, { webhook_url: receiver.url, reference: 'ev-settled' });
    const payer = await customer(ctx, usdc('12.5'));
    expect((await settle(ctx, settledPay.id, await authorize(ctx, settledPay.id, payer))).status).toBe(200);
    const canceledPay = await createPayment(ctx, { webhook_url: receiver.url, reference: 'ev-canceled' });
    expect((await call(`${ctx.svc.api}/v1/payments/${canceledPay.id}/cancel`, { method: 'POST', key: ctx.merchant.key })).status).toBe(200);
    const expiredPay = await createPayment(ctx, { webhook_url: receiver.url, reference: 'ev-expired' });
    await ctx.svc.deps.store.write(Payments, (t) => t.update(expiredPay.id, { expiresAt: new Date(Date.now() - 1000).toISOString() }));
    expect(await ctx.svc.deps.payments.sweepExpired()).toBeGreaterThanOrEqual(1);
    const silentPay = await createPayment(ctx, { reference: 'ev-silent' });
    expect((await call(`${ctx.svc.api}/v1/payments/${silentPay.id}/cancel`, { method: 'POST', key: ctx.merchant.key })).status).toBe(200);
    ids = { settled: settledPay.id, canceled: canceledPay.id, expired: expiredPay.id, silent: silentPay.id };
    await until(async () => receiver.received.length >= 3, 'three webhook deliveries');
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
    await receiver?.close();
  });

  it('lists newest first with the exact bodies the webhooks carried', async () => {
    const res = await events();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.has_more).toBe(false);
    expect(res.body.data.map((e: any) => [e.type, e.data.id])).toEqual([
      ['payment.canceled', ids.silent],
      ['payment.expired', ids.expired],
      ['payment.canceled', ids.canceled],
      ['payment.settled', ids.settled],
    ]);
    // Byte for byte what the receiver got (a key order or field change would show here).
    for (const delivered of receiver.received) {
      const one = await call(`${ctx.svc.api}/v1/events/${delivered.json.id}`, { key: ctx.merchant.key });
      expect(one.status).toBe(200);
      expect(JSON.stringify(one.body)).toBe(delivered.body);
    }
    expect(res.body.data.find((e: any) => e.type === 'payment.settled').data.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('pages with limit and starting_after without gaps or repeats', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await events(`?limit=1${after ? `&starting_after=${after}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((e: any) => e.id));
      if (!page.body.has_more) break;
      after = page.body.data.at(-1).id;
    }
    const all = (await events('?limit=100')).body.data.map((e: any) => e.id);
    expect(seen).toEqual(all);
    expect(all).toHaveLength(4);
  });

  it('filters by type, payment and created range', async () => {
    const canceled = await events('?type=payment.canceled');
    expect(canceled.body.data.map((e: any) => e.data.id)).toEqual([ids.silent, ids.canceled]);
    const one = await events(`?payment=${ids.settled}`);
    expect(one.body.data.map((e: any) => e.type)).toEqual(['payment.settled']);

    const all = (await events('?limit=100')).body.data;
    const oldest = all.at(-1).created;
    const newest = all[0].created;
    expect((await events(`?created_gte=${newest + 1}`)).body.data).toEqual([]);
    expect((await events(`?created_lte=${oldest - 1}`)).body.data).toEqual([]);
    expect((await events(`?created_gte=${oldest}&created_lte=${newest}&limit=100`)).body.data).toHaveLength(4);
    const paged = await events(`?created_gte=${oldest}&limit=2`);
    expect(paged.body.data).toHaveLength(2);
    expect(paged.body.has_more).toBe(true);
  });

  it('answers bad queries with invalid_request_error naming the parameter', async () => {
    for (const [q, param] of [
      ['?type=payment.nope', 'type'],
      ['?limit=0', 'limit'],
      ['?created_gte=yesterday', 'created_gte'],
      ['?created_gte=20&created_lte=10', 'created_gte'],
      ['?starting_after=evt_unknown0000000', 'starting_after'],
      ['?colour=blue', 'colour'],
    ] as const) {
      const res = await events(q);
      expect(res.status, q).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    expect((await call(`${ctx.svc.api}/v1/events`)).status).toBe(401);
    expect((await call(`${ctx.svc.api}/v1/events/evt_nope`, { key: ctx.merchant.key })).status).toBe(404);
  });

  it('keeps events at least 30 days: a 31-day-old event is still listed after every scheduled job ran', async () => {
    expect(EVENT_RETENTION_DAYS).toBeGreaterThanOrEqual(30);
    const oldest = (await events('?limit=100')).body.data.at(-1);
    const longAgo = new Date(Date.now() - 31 * 86_400_000);
    await ctx.svc.deps.store.write(WebhookEvents, (t) => t.update(oldest.id, { createdAt: longAgo.toISOString() }));
    const scheduler = ctx.svc.deps.scheduler;
    for (const name of scheduler.names()) await scheduler.runNow(name);
    expect((await call(`${ctx.svc.api}/v1/events/${oldest.id}`, { key: ctx.merchant.key })).status).toBe(200);
    const since = Math.floor(longAgo.getTime() / 1000) - 60;
    const listed = await events(`?created_gte=${since}&created_lte=${since + 3600}`);
    expect(listed.body.data.map((e: any) => e.id)).toEqual([oldest.id]);
    expect((await events('?limit=100')).body.data).toHaveLength(4);
  });

  it("another account's key sees none of them", async () => {
    const other: Merchant = await createMerchant(ctx.svc.api, 'Other Shop');
    const list = await events('', other.key);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    const mine = (await events()).body.data[0].id;
    expect((await call(`${ctx.svc.api}/v1/events/${mine}`, { key: other.key })).status).toBe(404);
    expect((await events(`?starting_after=${mine}`, other.key)).status).toBe(400);
    expect((await events(`?payment=${ids.settled}`, other.key)).body.data).toEqual([]);
  });
});
