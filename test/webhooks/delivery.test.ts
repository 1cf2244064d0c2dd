import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { createPayment, deliveries, startReceiver, waitFor, type Receiver } from './helpers.js';

describe('webhook delivery to a real local receiver', () => {
  let svc: TestService;
  let m: Merchant;
  let receiver: Receiver;
  let secret: string;

  beforeAll(async () => {
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms' });
    m = await createMerchant(svc.api);
    receiver = await startReceiver();
    const rotated = await call(`${svc.api}/webhook-secret`, { method: 'POST', key: m.key });
    expect(rotated.status).toBe(200);
    secret = rotated.body.secret;
  });
  afterAll(async () => {
    await receiver?.close();
    await svc?.stop({ removeData: true });
  });

  it('signs payment.settled so both an independent HMAC and the verifier accept it', async () => {
    expect(secret).toMatch(/^whsec_[0-9A-Za-z+/]{32}$/);
    const p = await createPayment(svc.api, m.key, { webhook_url: receiver.url, reference: 'order-42' });
    await svc.deps.payments.transition(p.id, 'pending', 'processing');
    await svc.deps.payments.transition(p.id, 'processing', 'settled', { txHash: '0xabc', settledAt: new Date().toISOString() });
    const got = await waitFor(() => receiver.received.find((r) => r.json?.data?.id === p.id), 10_000, 'settled event');

    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/StablePay-Webhooks/);
    const header = String(got.headers['service-signature']);
    const m1 = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
    expect(m1).not.toBeNull();
    const expected = createHmac('sha256', secret).update(`${m1![1]}.${got.body}`).digest('hex');
    expect(m1![2]).toBe(expected);
    expect(verifyWebhookSignature(got.body, header, secret)).toBe(true);
    expect(verifyWebhookSignature(got.body.replace('order-42', 'order-43'), header, secret)).toBe(false);
    expect(verifyWebhookSignature(got.body, header, 'whsec_wrong')).toBe(false);

    expect(got.json).toMatchObject({
      type: 'payment.settled',
      data: { id: p.id, reference: 'order-42', amount: 25, currency: 'USD', status: 'settled', metadata: { order: 'o-1' }, tx_hash: '0xabc' },
    });
    expect(got.json.id).toMatch(/^evt_/);
    expect(Math.abs(got.json.created - Date.now() / 1000)).toBeLessThan(120);

    const list = await waitFor(async () => {
      const d = await deliveries(svc.api, { key: m.key }, `?payment_id=${p.id}`);
      return d[0]?.status === 'delivered' ? d : undefined;
    });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ event_type: 'payment.settled', payment_id: p.id, url: receiver.url, attempt_count: 1 });
    expect(list[0].attempts[0]).toMatchObject({ status_code: 200, succeeded: true, error: null, response_body: 'ok' });
    expect(typeof list[0].attempts[0].latency_ms).toBe('number');
    expect(list[0].event.id).toBe(got.json.id);
  });

  it('retries a receiver that fails twice: one delivered event, three attempts in the log', async () => {
    const flaky = await startReceiver((_r, n) => (n < 2 ? 503 : 200));
    try {
      const p = await createPayment(svc.api, m.key, { webhook_url: flaky.url });
      await svc.deps.payments.transition(p.id, 'pending', 'processing');
      await svc.deps.payments.transition(p.id, 'processing', 'failed', { failureReason: 'reverted' });
      const [d] = await waitFor(async () => {
        const list = await deliveries(svc.api, { cookie: m.cookie }, `?payment_id=${p.id}`);
        return list[0]?.status === 'delivered' ? list : undefined;
      });
      expect(d.event_type).toBe('payment.failed');
      expect(d.attempts.map((a: any) => a.status_code)).toEqual([503, 503, 200]);
      expect(d.attempts.map((a: any) => a.succeeded)).toEqual([false, false, true]);
      expect(d.attempts[0].error).toBe('HTTP 503');
      expect(d.attempts[0].response_body).toBe('nope 503');
      // The same event (same id, same bytes) was sent each time.
      expect(new Set(flaky.received.map((r) => r.body)).size).toBe(1);
      expect(flaky.received).toHaveLength(3);
      expect(flaky.received[0]!.json).toMatchObject({ type: 'payment.failed', data: { status: 'failed', failure_reason: 'reverted' } });
    } finally {
      await flaky.close();
    }
  });

  it('marks a delivery dead after the last attempt, and redelivers it through the API', async () => {
    let up = false;
    const r = await startReceiver(() => (up ? 200 : 500));
    try {
      const p = await createPayment(svc.api, m.key, { webhook_url: r.url });
      await svc.deps.payments.transition(p.id, 'pending', 'processing');
      await svc.deps.payments.transition(p.id, 'processing', 'settled');
      const [dead] = await waitFor(async () => {
        const list = await deliveries(svc.api, { key: m.key }, `?payment_id=${p.id}`);
        return list[0]?.status === 'dead' ? list : undefined;
      });
      expect(dead.attempt_count).toBe(3);
      expect(dead.next_attempt_at).toBeNull();

      up = true;
      const again = await call(`${svc.api}/webhook-deliveries/${dead.id}/redeliver`, { method: 'POST', key: m.key });
      expect(again.status).toBe(200);
      expect(again.body.delivery.status).toBe('delivered');
      expect(again.body.delivery.attempt_count).toBe(4);
      expect(again.body.delivery.attempts[3]).toMatchObject({ trigger: 'manual', status_code: 200, succeeded: true });
      expect(r.received).toHaveLength(4);
      expect(r.received[3]!.json.id).toBe(r.received[0]!.json.id);
    } finally {
      await r.close();
    }
  });
});
