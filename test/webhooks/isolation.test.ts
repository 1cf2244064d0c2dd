import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { createPayment, deliveries, startReceiver, waitFor, type Receiver } from './helpers.js';

describe('webhook deliveries are scoped to their account', () => {
  let svc: TestService;
  let a: Merchant;
  let b: Merchant;
  let receiver: Receiver;
  let deliveryId: string;
  let paymentId: string;

  beforeAll(async () => {
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0' });
    receiver = await startReceiver();
    a = await createMerchant(svc.api, 'Shop A');
    b = await createMerchant(svc.api, 'Shop B');
    const p = await createPayment(svc.api, a.key, { webhook_url: receiver.url });
    paymentId = p.id;
    await svc.deps.payments.transition(p.id, 'pending', 'processing');
    await svc.deps.payments.transition(p.id, 'processing', 'settled');
    const [d] = await waitFor(async () => {
      const list = await deliveries(svc.api, { key: a.key });
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    deliveryId = d.id;
  });
  afterAll(async () => {
    await receiver?.close();
    await svc?.stop({ removeData: true });
  });

  it("does not list another account's deliveries, even filtered by its payment id", async () => {
    expect(await deliveries(svc.api, { key: b.key })).toEqual([]);
    expect(await deliveries(svc.api, { cookie: b.cookie }, `?payment_id=${paymentId}`)).toEqual([]);
    const cursor = await call(`${svc.api}/webhook-deliveries?starting_after=${deliveryId}`, { key: b.key });
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.param).toBe('starting_after');
  });

  it("answers 404 to reading or redelivering another account's delivery", async () => {
    const read = await call(`${svc.api}/webhook-deliveries/${deliveryId}`, { key: b.key });
    expect(read.status).toBe(404);
    expect(read.body.error.type).toBe('invalid_request_error');
    const before = receiver.received.length;
    const redeliver = await call(`${svc.api}/webhook-deliveries/${deliveryId}/redeliver`, { method: 'POST', key: b.key });
    expect(redeliver.status).toBe(404);
    const viaCookie = await call(`${svc.api}/webhook-deliveries/${deliveryId}/redeliver`, { method: 'POST', cookie: b.cookie });
    expect(viaCookie.status).toBe(404);
    expect(receiver.received.length).toBe(before);
    const unknown = await call(`${svc.api}/webhook-deliveries/whd_doesnotexist000000/redeliver`, { method: 'POST', key: b.key });
    expect(unknown.status).toBe(404);
  });

  it('lets the owner read and redeliver it (a delivered event can be sent again)', async () => {
    const read = await call(`${svc.api}/webhook-deliveries/${deliveryId}`, { cookie: a.cookie });
    expect(read.status).toBe(200);
    expect(read.body.payment_id).toBe(paymentId);
    const again = await call(`${svc.api}/webhook-deliveries/${deliveryId}/redeliver`, { method: 'POST', key: a.key });
    expect(again.status).toBe(200);
    expect(again.body.delivery).toMatchObject({ id: deliveryId, status: 'delivered', attempt_count: 2 });
    expect(again.body.delivery.attempts[1].trigger).toBe('manual');
  });
});
