import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { createPayment, startReceiver, waitFor, type Receiver } from '../webhooks/helpers.js';
import {
  WebhookDeliveryListResponse,
  WebhookDeliveryResource,
  WebhookEndpointResponse,
  WebhookEndpointSetResponse,
  WebhookRedeliverResponse,
  WebhookSecretResponse,
} from '../../src/api/webhooks.router.js';

/**
 * The webhook developer routes answer exactly the shapes the OpenAPI document declares: each
 * body parses with its schema, and nothing is left over at any depth (zod strips unknown keys,
 * so the parsed copy equals the body only when there are none).
 */
function expectExact(schema: z.ZodType, body: unknown): void {
  const parsed = schema.parse(body);
  expect(parsed).toStrictEqual(body);
  expect(Object.keys(parsed as object).sort()).toEqual(Object.keys(body as object).sort());
}

let s: TestService;
let m: Merchant;
let receiver: Receiver;

beforeAll(async () => {
  s = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,50ms' });
  m = await createMerchant(s.api);
  // Fails the first attempt of each event, so every delivery logs a failure and a success.
  const seen = new Set<string>();
  receiver = await startReceiver((r) => {
    const id = String(r.json?.id);
    if (seen.has(id)) return 200;
    seen.add(id);
    return 500;
  });
});
afterAll(async () => {
  await receiver?.close();
  await s?.stop({ removeData: true });
});

describe('webhook developer routes match their response schemas', () => {
  it('the checker rejects an extra field, nested or not, and a missing one', () => {
    const body = { ok: true, url: null, secret_configured: false, secret_created_at: null, previous_secret_expires_at: null };
    expectExact(WebhookEndpointResponse, body);
    expect(() => expectExact(WebhookEndpointResponse, { ...body, extra: 1 })).toThrow();
    const { secret_configured: _gone, ...missing } = body;
    expect(() => expectExact(WebhookEndpointResponse, missing)).toThrow();
    const list = { ok: true, object: 'list', data: [], has_more: false };
    expectExact(WebhookDeliveryListResponse, list);
    expect(() => expectExact(WebhookDeliveryListResponse, { ...list, data: [{ id: 'whd_x', extra: 1 }] })).toThrow();
  });

  it('GET and PUT /webhook-endpoint, POST /webhook-secret', async () => {
    const empty = await call(`${s.api}/webhook-endpoint`, { key: m.key });
    expect(empty.status).toBe(200);
    expectExact(WebhookEndpointResponse, empty.body);
    expect(empty.body).toMatchObject({ url: null, secret_configured: false, secret_created_at: null });

    // The first endpoint creates the signing secret and shows it once.
    const set = await call(`${s.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: receiver.url } });
    expect(set.status).toBe(200);
    expectExact(WebhookEndpointSetResponse, set.body);
    expect(set.body.secret).toMatch(/^whsec_/);
    const again = await call(`${s.api}/webhook-endpoint`, { method: 'PUT', cookie: m.cookie, body: { url: receiver.url } });
    expectExact(WebhookEndpointSetResponse, again.body);
    expect(Object.keys(again.body).sort()).toEqual(['ok', 'url']);

    const rotated = await call(`${s.api}/webhook-secret`, { method: 'POST', key: m.key });
    expect(rotated.status).toBe(200);
    expectExact(WebhookSecretResponse, rotated.body);
    expect(rotated.body.previous_expires_at).toEqual(expect.any(String));

    const read = await call(`${s.api}/webhook-endpoint`, { key: m.key });
    expectExact(WebhookEndpointResponse, read.body);
    expect(read.body).toMatchObject({ url: receiver.url, secret_configured: true });
    expect(read.body.previous_secret_expires_at).toBe(rotated.body.previous_expires_at);

    // A first secret (no rotation) has no previous_expires_at.
    const fresh = await createMerchant(s.api);
    const first = await call(`${s.api}/webhook-secret`, { method: 'POST', cookie: fresh.cookie });
    expectExact(WebhookSecretResponse, first.body);
    expect(Object.keys(first.body).sort()).toEqual(['ok', 'secret']);

    const cleared = await call(`${s.api}/webhook-endpoint`, { method: 'PUT', key: fresh.key, body: { url: null } });
    expectExact(WebhookEndpointSetResponse, cleared.body);
    expect(cleared.body.url).toBeNull();
  });

  it('GET /webhook-deliveries, GET /webhook-deliveries/:id, POST .../redeliver', async () => {
    // Sent to the default endpoint set above; the first attempt of each fails, the retry succeeds.
    const settled = await createPayment(s.api, m.key);
    await s.deps.payments.transition(settled.id, 'pending', 'processing');
    await s.deps.payments.transition(settled.id, 'processing', 'settled', { txHash: '0xabc', settledAt: new Date().toISOString() });
    const failed = await createPayment(s.api, m.key, { reference: undefined });
    await s.deps.payments.transition(failed.id, 'pending', 'processing');
    await s.deps.payments.transition(failed.id, 'processing', 'failed', { failureReason: 'reverted' });

    const list = await waitFor(async () => {
      const r = await call(`${s.api}/webhook-deliveries`, { key: m.key });
      return r.body.data?.length === 2 && r.body.data.every((d: { status: string }) => d.status === 'delivered') ? r : undefined;
    });
    expect(list.status).toBe(200);
    expectExact(WebhookDeliveryListResponse, list.body);
    const bySettled = list.body.data.find((d: { payment_id: string }) => d.payment_id === settled.id);
    expect(bySettled.event.data.tx_hash).toBe('0xabc');
    expect(bySettled.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200]);
    const byFailed = list.body.data.find((d: { payment_id: string }) => d.payment_id === failed.id);
    expect(byFailed.event.data.failure_reason).toBe('reverted');
    expect(byFailed.event.data.reference).toBe('');

    // A page of one.
    const page = await call(`${s.api}/webhook-deliveries?limit=1`, { cookie: m.cookie });
    expectExact(WebhookDeliveryListResponse, page.body);
    expect(page.body.has_more).toBe(true);

    const one = await call(`${s.api}/webhook-deliveries/${bySettled.id}`, { key: m.key });
    expect(one.status).toBe(200);
    expectExact(WebhookDeliveryResource, one.body);
    expect(one.body).toEqual(bySettled);

    const redone = await call(`${s.api}/webhook-deliveries/${bySettled.id}/redeliver`, { method: 'POST', key: m.key });
    expect(redone.status).toBe(200);
    expectExact(WebhookRedeliverResponse, redone.body);
    expect(redone.body.delivery).toMatchObject({ id: bySettled.id, status: 'delivered', attempt_count: 3 });
    expect(redone.body.delivery.attempts[2]).toMatchObject({ trigger: 'manual', status_code: 200 });
  });

  it('a pending delivery (next_attempt_at set, delivered_at null) parses too', async () => {
    // Its own service, so the retry after the failed first attempt is an hour away.
    const slowSvc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,1h' });
    const down = await startReceiver(() => 500);
    try {
      const owner = await createMerchant(slowSvc.api);
      const p = await createPayment(slowSvc.api, owner.key, { webhook_url: down.url });
      await slowSvc.deps.payments.transition(p.id, 'pending', 'expired');
      const d = await waitFor(async () => {
        const r = await call(`${slowSvc.api}/webhook-deliveries?payment_id=${p.id}`, { key: owner.key });
        return r.body.data?.[0]?.attempt_count === 1 ? r.body.data[0] : undefined;
      });
      const one = await call(`${slowSvc.api}/webhook-deliveries/${d.id}`, { key: owner.key });
      expectExact(WebhookDeliveryResource, one.body);
      expect(one.body).toMatchObject({ status: 'pending', delivered_at: null, event: { type: 'payment.expired' } });
      expect(Date.parse(one.body.next_attempt_at)).toBeGreaterThan(Date.now() + 30 * 60_000);
      expect(one.body.attempts[0]).toMatchObject({ succeeded: false, status_code: 500, error: 'HTTP 500' });
    } finally {
      await down.close();
      await slowSvc.stop({ removeData: true });
    }
  });

  it('the OpenAPI document gives each 200 a schema', async () => {
    const doc = (await call(`${s.api}/openapi.json`)).body;
    const expected: Array<[string, string, string]> = [
      ['/webhook-secret', 'post', 'WebhookSecret'],
      ['/webhook-endpoint', 'get', 'WebhookEndpoint'],
      ['/webhook-endpoint', 'put', 'WebhookEndpointSet'],
      ['/webhook-deliveries', 'get', 'WebhookDeliveryList'],
      ['/webhook-deliveries/{id}', 'get', 'WebhookDelivery'],
      ['/webhook-deliveries/{id}/redeliver', 'post', 'WebhookRedelivered'],
    ];
    for (const [path, method, name] of expected) {
      const schema = doc.paths[path][method].responses['200'].content?.['application/json']?.schema;
      expect(schema, `${method} ${path}`).toEqual({ $ref: `#/components/schemas/${name}` });
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    // The delivery resource is named once and referenced from the list and the redelivery.
    const schemas = doc.components.schemas;
    expect(schemas.WebhookDeliveryList.properties.data.items).toEqual({ $ref: '#/components/schemas/WebhookDelivery' });
    expect(schemas.WebhookRedelivered.properties.delivery).toEqual({ $ref: '#/components/schemas/WebhookDelivery' });
    expect(Object.keys(schemas.WebhookDelivery.properties).sort()).toEqual(Object.keys(WebhookDeliveryResource.shape).sort());
    expect(schemas.WebhookSecret.required.sort()).toEqual(['ok', 'secret']);
  });
});
