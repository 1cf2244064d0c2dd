import { createHmac } from 'node:crypto';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { createPayment, deliveries, waitFor } from './helpers.js';

const MERCHANT = 'https://merchant.example';

describe('webhooks to a nock-intercepted merchant receiver', () => {
  let svc: TestService;
  let m: Merchant;
  let secret: string;

  beforeAll(async () => {
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms' });
    m = await createMerchant(svc.api);
    secret = (await call(`${svc.api}/webhook-secret`, { method: 'POST', key: m.key })).body.secret;
    // Only the merchant's host is faked; the service itself stays reachable on loopback.
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  });
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    nock.enableNetConnect();
    nock.restore();
    await svc?.stop({ removeData: true });
  });

  it('POSTs the signed JSON event over https', async () => {
    const seen: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
    const scope = nock(MERCHANT)
      .post('/hooks')
      .reply(function (_uri, _body) {
        return [200, 'received'];
      });
    scope.on('request', (req: { headers: Record<string, string> }, _i: unknown, body: string) => seen.push({ body, headers: req.headers }));

    const p = await createPayment(svc.api, m.key, { webhook_url: `${MERCHANT}/hooks`, reference: 'nock-1' });
    await svc.deps.payments.transition(p.id, 'pending', 'processing');
    await svc.deps.payments.transition(p.id, 'processing', 'settled', { txHash: '0xfeed' });
    await waitFor(() => scope.isDone(), 10_000, 'nock receiver called');
    const got = await waitFor(() => seen[0]);

    expect(got.headers['content-type']).toBe('application/json');
    const header = String(got.headers['service-signature']);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${got.body}`).digest('hex'));
    expect(verifyWebhookSignature(got.body, header, secret)).toBe(true);
    expect(JSON.parse(got.body)).toMatchObject({ type: 'payment.settled', data: { id: p.id, reference: 'nock-1', tx_hash: '0xfeed' } });

    const [d] = await waitFor(async () => {
      const list = await deliveries(svc.api, { key: m.key }, `?payment_id=${p.id}`);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(d.attempts[0]).toMatchObject({ status_code: 200, response_body: 'received' });
  });

  it('retries through failures and a connection error until the receiver answers 2xx', async () => {
    const scope = nock(MERCHANT)
      .post('/flaky')
      .reply(500, 'boom')
      .post('/flaky')
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
      .post('/flaky')
      .reply(202);
    const p = await createPayment(svc.api, m.key, { webhook_url: `${MERCHANT}/flaky` });
    await svc.deps.payments.transition(p.id, 'pending', 'processing');
    await svc.deps.payments.transition(p.id, 'processing', 'failed');
    const [d] = await waitFor(async () => {
      const list = await deliveries(svc.api, { key: m.key }, `?payment_id=${p.id}`);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(scope.isDone()).toBe(true);
    expect(d.attempts.map((a: any) => a.status_code)).toEqual([500, null, 202]);
    expect(d.attempts[1].error).toMatch(/ECONNRESET|socket hang up/);
  });
});
