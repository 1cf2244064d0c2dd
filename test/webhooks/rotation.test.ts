import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type TestService } from '../helpers/service.js';
import { storedText } from '../helpers/stored.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { createPayment, startReceiver, waitFor, type Receiver } from './helpers.js';

const hmac = (secret: string, t: string, body: string) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

describe('signing secret rotation', () => {
  let svc: TestService;
  let receiver: Receiver;

  beforeAll(async () => {
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,50ms', WEBHOOK_SECRET_OVERLAP: '4s' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await svc?.stop({ removeData: true });
  });

  async function settle(key: string) {
    const p = await createPayment(svc.api, key, { webhook_url: receiver.url });
    await svc.deps.payments.transition(p.id, 'pending', 'processing');
    await svc.deps.payments.transition(p.id, 'processing', 'settled');
    return waitFor(() => receiver.received.find((r) => r.json?.data?.id === p.id));
  }

  it('sends both v1 values during the overlap and only the new one after it', async () => {
    const m = await createMerchant(svc.api);
    const first = await call(`${svc.api}/webhook-secret`, { method: 'POST', cookie: m.cookie });
    expect(first.status).toBe(200);
    expect(first.body.previous_expires_at).toBeUndefined();
    const oldSecret = first.body.secret as string;

    const second = await call(`${svc.api}/webhook-secret`, { method: 'POST', key: m.key });
    const newSecret = second.body.secret as string;
    expect(newSecret).not.toBe(oldSecret);
    expect(Date.parse(second.body.previous_expires_at)).toBeGreaterThan(Date.now() - 1000);

    const during = await settle(m.key);
    const header = String(during.headers['service-signature']);
    const parts = /^t=(\d+),v1=([0-9a-f]{64}),v1=([0-9a-f]{64})$/.exec(header);
    expect(parts).not.toBeNull();
    expect(parts![2]).toBe(hmac(newSecret, parts![1]!, during.body));
    expect(parts![3]).toBe(hmac(oldSecret, parts![1]!, during.body));
    expect(verifyWebhookSignature(during.body, header, oldSecret)).toBe(true);
    expect(verifyWebhookSignature(during.body, header, newSecret)).toBe(true);

    const expiresAt = Date.parse(second.body.previous_expires_at);
    await waitFor(() => Date.now() > expiresAt + 5, 10_000, 'overlap end');
    const status = await call(`${svc.api}/webhook-endpoint`, { key: m.key });
    expect(status.body.previous_secret_expires_at).toBeNull();

    const after = await settle(m.key);
    const header2 = String(after.headers['service-signature']);
    const one = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header2);
    expect(one).not.toBeNull();
    expect(one![2]).toBe(hmac(newSecret, one![1]!, after.body));
    expect(verifyWebhookSignature(after.body, header2, oldSecret)).toBe(false);
    expect(verifyWebhookSignature(after.body, header2, newSecret)).toBe(true);
  });

  it('never returns a secret again and never writes it in clear to the data dir', async () => {
    const m = await createMerchant(svc.api);
    const created = await call(`${svc.api}/webhook-secret`, { method: 'POST', key: m.key });
    const secret = created.body.secret as string;
    const endpoint = await call(`${svc.api}/webhook-endpoint`, { key: m.key });
    expect(JSON.stringify(endpoint.body)).not.toContain(secret);
    // Let the store flush, then look at what is on disk.
    const db = await storedText(svc.dataDir);
    expect(db).not.toContain(secret);
    expect(db).not.toContain(secret.slice(6));
  });
});
