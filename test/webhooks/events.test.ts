import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type TestService } from '../helpers/service.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { createPayment, deliveries, startReceiver, waitFor, type Receiver } from './helpers.js';

describe('webhook events and endpoints', () => {
  let svc: TestService;
  let receiver: Receiver;

  beforeAll(async () => {
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await svc?.stop({ removeData: true });
  });

  it('sends payment.expired when the sweeper expires a payment (its real cause)', async () => {
    const m = await createMerchant(svc.api);
    const p = await createPayment(svc.api, m.key, { webhook_url: receiver.url, expires_in_minutes: 1 });
    expect(await svc.deps.payments.sweepExpired(Date.now() + 61_000)).toBeGreaterThanOrEqual(1);
    const got = await waitFor(() => receiver.received.find((r) => r.json?.data?.id === p.id), 10_000, 'expired event');
    expect(got.json).toMatchObject({ type: 'payment.expired', data: { id: p.id, status: 'expired', amount: 25, currency: 'USD' } });
    expect(got.json.data.tx_hash).toBeUndefined();
  });

  it('produces payment.settled and payment.failed from any transition into those states, and nothing for others', async () => {
    const m = await createMerchant(svc.api);
    const a = await createPayment(svc.api, m.key, { webhook_url: receiver.url });
    const b = await createPayment(svc.api, m.key, { webhook_url: receiver.url });
    for (const p of [a, b]) await svc.deps.payments.transition(p.id, 'pending', 'processing');
    await svc.deps.payments.transition(a.id, 'processing', 'settled', { txHash: '0x01' });
    await svc.deps.payments.transition(b.id, 'processing', 'failed', { failureReason: 'insufficient balance' });
    const types = await waitFor(() => {
      const t = receiver.received.filter((r) => [a.id, b.id].includes(r.json?.data?.id)).map((r) => `${r.json.data.id}:${r.json.type}`);
      return t.length === 2 ? t.sort() : undefined;
    });
    expect(types).toEqual([`${a.id}:payment.settled`, `${b.id}:payment.failed`].sort());
    // pending -> processing produced no event.
    const list = await deliveries(svc.api, { key: m.key });
    expect(list.map((d) => d.event_type).sort()).toEqual(['payment.failed', 'payment.settled']);
  });

  it('uses the account default endpoint when the payment has none; the payment URL wins otherwise', async () => {
    const m = await createMerchant(svc.api);
    const other = await startReceiver();
    try {
      const empty = await call(`${svc.api}/webhook-endpoint`, { key: m.key });
      expect(empty.body).toMatchObject({ ok: true, url: null, secret_configured: false });

      const put = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', cookie: m.cookie, body: { url: other.url } });
      expect(put.status).toBe(200);
      expect(put.body.url).toBe(other.url);
      // The first endpoint brings the account a signing secret, shown this once.
      expect(put.body.secret).toMatch(/^whsec_/);
      const secret = put.body.secret as string;
      const again = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: other.url } });
      expect(again.body.secret).toBeUndefined();
      const read = await call(`${svc.api}/webhook-endpoint`, { key: m.key });
      expect(read.body).toMatchObject({ url: other.url, secret_configured: true });
      expect(JSON.stringify(read.body)).not.toContain(secret);

      const viaDefault = await createPayment(svc.api, m.key);
      const viaOwn = await createPayment(svc.api, m.key, { webhook_url: receiver.url });
      for (const p of [viaDefault, viaOwn]) {
        await svc.deps.payments.transition(p.id, 'pending', 'processing');
        await svc.deps.payments.transition(p.id, 'processing', 'settled');
      }
      const d = await waitFor(() => other.received.find((r) => r.json?.data?.id === viaDefault.id));
      expect(verifyWebhookSignature(d.body, String(d.headers['service-signature']), secret)).toBe(true);
      await waitFor(() => receiver.received.find((r) => r.json?.data?.id === viaOwn.id));
      expect(other.received.some((r) => r.json?.data?.id === viaOwn.id)).toBe(false);

      const cleared = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: null } });
      expect(cleared.body).toMatchObject({ ok: true, url: null });
      const none = await createPayment(svc.api, m.key);
      await svc.deps.payments.transition(none.id, 'pending', 'processing');
      await svc.deps.payments.transition(none.id, 'processing', 'settled');
      expect(await deliveries(svc.api, { key: m.key }, `?payment_id=${none.id}`)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('validates the endpoint body and the list query', async () => {
    const m = await createMerchant(svc.api);
    const bad = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: 'ftp://x.example' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param: 'url' });
    const missing = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: {} });
    expect(missing.status).toBe(400);
    const q = await call(`${svc.api}/webhook-deliveries?limit=0`, { key: m.key });
    expect(q.status).toBe(400);
    expect(q.body.error.param).toBe('limit');
    const unauth = await call(`${svc.api}/webhook-deliveries`);
    expect(unauth.status).toBe(401);
    expect(unauth.body.error.type).toBe('authentication_error');
  });

  it('lists newest first with limit and starting_after', async () => {
    const m = await createMerchant(svc.api);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await createPayment(svc.api, m.key, { webhook_url: receiver.url });
      await svc.deps.payments.transition(p.id, 'pending', 'processing');
      await svc.deps.payments.transition(p.id, 'processing', 'settled');
      ids.push(p.id);
    }
    const page1 = await call(`${svc.api}/webhook-deliveries?limit=2`, { key: m.key });
    expect(page1.body.has_more).toBe(true);
    expect(page1.body.data.map((d: any) => d.payment_id)).toEqual([ids[2], ids[1]]);
    const page2 = await call(`${svc.api}/webhook-deliveries?limit=2&starting_after=${page1.body.data[1].id}`, { key: m.key });
    expect(page2.body.has_more).toBe(false);
    expect(page2.body.data.map((d: any) => d.payment_id)).toEqual([ids[0]]);
  });

  it('signs with a secret created at the first event, which rotating then replaces without overlap', async () => {
    const m = await createMerchant(svc.api);
    const p = await createPayment(svc.api, m.key, { webhook_url: receiver.url });
    await svc.deps.payments.transition(p.id, 'pending', 'processing');
    await svc.deps.payments.transition(p.id, 'processing', 'settled');
    const first = await waitFor(() => receiver.received.find((r) => r.json?.data?.id === p.id));
    expect(String(first.headers['service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // Never shown, so no receiver can hold it: the rotation drops it at once.
    const rotated = await call(`${svc.api}/webhook-secret`, { method: 'POST', key: m.key });
    expect(rotated.body.ok).toBe(true);
    expect(rotated.body.previous_expires_at).toBeUndefined();
    const q = await createPayment(svc.api, m.key, { webhook_url: receiver.url });
    await svc.deps.payments.transition(q.id, 'pending', 'processing');
    await svc.deps.payments.transition(q.id, 'processing', 'failed');
    const second = await waitFor(() => receiver.received.find((r) => r.json?.data?.id === q.id));
    const header = String(second.headers['service-signature']);
    expect(header.match(/v1=/g)).toHaveLength(1);
    expect(verifyWebhookSignature(second.body, header, rotated.body.secret)).toBe(true);
  });
});
