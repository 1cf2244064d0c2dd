/**
 * Issue 27: POST /api/webhook-endpoints/:id/test sends one signed sample event to the endpoint now
 * and answers with the receiver's reply; it is scoped to the account (another account's key gets
 * 404, and nothing reaches the receiver), stores nothing in the delivery log, and the body passes
 * the same signature check (standardwebhooks) as every real event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { call, createMerchant, startTestService, type TestService } from '../helpers/service.js';
import { deliveries, startReceiver, type Received, type Receiver } from './helpers.js';
import { WebhookEventPayload } from '../../src/webhooks/webhook-schemas.js';

describe('send a test event to a webhook endpoint', () => {
  let svc: TestService;
  let receiver: Receiver;
  const received: Received[] = [];
  let answer = 200;

  beforeAll(async () => {
    svc = await startTestService();
    receiver = await startReceiver((r) => {
      received.push(r);
      return answer;
    });
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
    await receiver?.close();
  });

  it('sends a signed sample event of the endpoint\'s first type and answers with the reply; nothing is logged', async () => {
    const m = await createMerchant(svc.api);
    const set = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: `${receiver.url}/default` } });
    const secret: string = set.body.secret;
    const added = await call(`${svc.api}/webhook-endpoints`, { key: m.key, body: { url: `${receiver.url}/refunds`, enabled_events: ['refund.succeeded'] } });
    expect(added.status).toBe(201);

    const res = await call(`${svc.api}/webhook-endpoints/${added.body.endpoint.id}/test`, { method: 'POST', key: m.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true, url: `${receiver.url}/refunds`, succeeded: true, status_code: 200, error: null, event: { type: 'refund.succeeded' } });
    const got = received.at(-1)!;
    expect(got.headers['stablepay-test-event']).toBe('1');
    const body = new StandardWebhook(secret).verify(got.body, got.headers as Record<string, string>) as { id: string };
    expect(body.id).toBe(res.body.event.id);
    expect(body.id).toMatch(/^evt_test_/);
    expect(WebhookEventPayload.safeParse(body).success).toBe(true);

    // The default endpoint by its id, and a failing receiver reported as such.
    answer = 500;
    const failed = await call(`${svc.api}/webhook-endpoints/default/test`, { method: 'POST', key: m.key });
    expect(failed.body).toMatchObject({ ok: true, url: `${receiver.url}/default`, succeeded: false, status_code: 500, event: { type: 'payment.settled' } });
    answer = 200;

    expect(await deliveries(svc.api, { key: m.key })).toEqual([]);
  });

  it("another account's key gets 404 and nothing is sent; unknown ids are 404 too", async () => {
    const owner = await createMerchant(svc.api);
    const other = await createMerchant(svc.api);
    await call(`${svc.api}/webhook-secret`, { method: 'POST', key: owner.key });
    const added = await call(`${svc.api}/webhook-endpoints`, { key: owner.key, body: { url: `${receiver.url}/owner` } });
    const before = received.length;
    const theirs = await call(`${svc.api}/webhook-endpoints/${added.body.endpoint.id}/test`, { method: 'POST', key: other.key });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect((await call(`${svc.api}/webhook-endpoints/default/test`, { method: 'POST', key: other.key })).status).toBe(404);
    expect((await call(`${svc.api}/webhook-endpoints/we_doesnotexist0000/test`, { method: 'POST', key: owner.key })).status).toBe(404);
    expect((await call(`${svc.api}/webhook-endpoints/nonsense/test`, { method: 'POST', key: owner.key })).status).toBe(404);
    expect((await call(`${svc.api}/webhook-endpoints/${added.body.endpoint.id}/test`, { method: 'POST' })).status).toBe(401);
    expect(received.length).toBe(before);
  });
});
