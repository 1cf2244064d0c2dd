import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type TestService } from '../helpers/service.js';
import { createWebhookReceiver, type PaymentEvent } from '../../examples/webhook-receiver.js';
import { createPayment, deliveries, waitFor } from './helpers.js';

describe('examples/webhook-receiver.ts', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,50ms' });
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
  });

  it('accepts signed events once each and answers 400 to a bad signature', async () => {
    const m = await createMerchant(svc.api);
    const { secret } = (await call(`${svc.api}/webhook-secret`, { method: 'POST', key: m.key })).body;
    const handled: PaymentEvent[] = [];
    const server = createWebhookReceiver(secret, async (e) => void handled.push(e));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    try {
      const p = await createPayment(svc.api, m.key, { webhook_url: url });
      await svc.deps.payments.transition(p.id, 'pending', 'processing');
      await svc.deps.payments.transition(p.id, 'processing', 'settled');
      await waitFor(() => handled.length === 1);
      expect(handled[0]).toMatchObject({ type: 'payment.settled', data: { id: p.id } });

      // A redelivery (same event) is answered 2xx but not handled twice.
      const [d] = await deliveries(svc.api, { key: m.key }, `?payment_id=${p.id}`);
      const again = await call(`${svc.api}/webhook-deliveries/${d.id}/redeliver`, { method: 'POST', key: m.key });
      expect(again.body.delivery.status).toBe('delivered');
      expect(handled).toHaveLength(1);

      const forged = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
        body: JSON.stringify(handled[0]),
      });
      expect(forged.status).toBe(400);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
