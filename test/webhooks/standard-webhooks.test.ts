import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import Stripe from 'stripe';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { createPayment, deliveries, startReceiver, waitFor, type Received, type Receiver } from './helpers.js';

const stripe = new Stripe('sk_test_unused_for_signature_checks');

/** Real third-party verifiers against our real deliveries (issue 15, item 4). */
describe('Standard Webhooks headers, verified by standardwebhooks, svix and stripe', () => {
  let svc: TestService;
  const received: Received[] = [];
  let receiver: Receiver;
  // The receiver fails the first delivery of each event once, so every event is also retried.
  const failedOnce = new Set<string>();

  beforeAll(async () => {
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,50ms,100ms,200ms' });
    receiver = await startReceiver((r) => {
      received.push(r);
      const id = String(r.headers['webhook-id']);
      if (failedOnce.has(id)) return 200;
      failedOnce.add(id);
      return 500;
    });
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
    await receiver?.close();
  });

  const cancel = (m: Merchant, id: string) => call(`${svc.api}/v1/payments/${id}/cancel`, { method: 'POST', key: m.key });

  /** Every verifier accepts the delivery with `secret` exactly as the API showed it. */
  function verifyAll(r: Received, secret: string) {
    const headers = r.headers as Record<string, string>;
    expect(new StandardWebhook(secret).verify(r.body, headers)).toEqual(JSON.parse(r.body));
    expect(new SvixWebhook(secret).verify(r.body, headers)).toEqual(JSON.parse(r.body));
    const event = stripe.webhooks.constructEvent(r.body, headers['service-signature']!, secret);
    expect(event.id).toBe(JSON.parse(r.body).id);
  }

  it('every delivery and retry carries webhook-id (the event id), webhook-timestamp and webhook-signature', async () => {
    const m = await createMerchant(svc.api);
    const set = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: receiver.url } });
    expect(set.status).toBe(200);
    const secret: string = set.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const p = await createPayment(svc.api, m.key);
    expect((await cancel(m, p.id)).status).toBe(200);
    const mine = () => received.filter((r) => r.json?.data?.id === p.id);
    await waitFor(() => mine().length >= 2, 10_000, 'a failed attempt and its retry');
    const [first, retry] = mine();
    expect(first!.headers['webhook-id']).toBe(first!.json.id);
    expect(retry!.headers['webhook-id']).toBe(first!.json.id);
    expect(retry!.body).toBe(first!.body);
    for (const r of [first!, retry!]) {
      expect(r.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      verifyAll(r, secret);
    }
    // A tampered body fails every verifier.
    const tampered = { ...first!, body: first!.body.replace('"canceled"', '"settled"') };
    expect(() => new StandardWebhook(secret).verify(tampered.body, tampered.headers as Record<string, string>)).toThrow();
    expect(() => new SvixWebhook(secret).verify(tampered.body, tampered.headers as Record<string, string>)).toThrow();
    expect(() => stripe.webhooks.constructEvent(tampered.body, String(tampered.headers['service-signature']), secret)).toThrow();
  });

  it('during a rotation overlap both secrets verify with every library', async () => {
    const m = await createMerchant(svc.api);
    const old: string = (await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: receiver.url } })).body.secret;
    const rotated = await call(`${svc.api}/webhook-secret`, { method: 'POST', key: m.key });
    const fresh: string = rotated.body.secret;
    expect(rotated.body.previous_expires_at).toBeTruthy();
    const p = await createPayment(svc.api, m.key);
    expect((await cancel(m, p.id)).status).toBe(200);
    const r = await waitFor(() => received.find((x) => x.json?.data?.id === p.id), 10_000, 'delivery');
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifyAll(r, fresh);
    verifyAll(r, old);
    expect(() => new StandardWebhook('whsec_' + Buffer.from('someone else').toString('base64')).verify(r.body, r.headers as Record<string, string>)).toThrow();
  });

  it('a secret from before the base64 format (40 base62 characters) verifies too', async () => {
    const { standardWebhookHeaders, signatureHeader } = await import('../../src/webhooks/signing.js');
    const legacy = 'whsec_' + 'Ab3'.repeat(13) + 'Z';
    const body = JSON.stringify({ id: 'evt_legacy', type: 'payment.settled' });
    const headers = { ...standardWebhookHeaders('evt_legacy', body, [legacy]), 'service-signature': signatureHeader(body, [legacy]) };
    verifyAll({ body, headers, json: JSON.parse(body) }, legacy);
  });
});

describe('delivery policy: jitter, Retry-After, 410 Gone, several endpoints with event types', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,1s,1s' });
  });
  afterAll(() => svc?.stop({ removeData: true }));

  const cancel = (m: Merchant, id: string) => call(`${svc.api}/v1/payments/${id}/cancel`, { method: 'POST', key: m.key });

  it('a retry waits its step plus at most 10% jitter, different per delivery', async () => {
    const down = await startReceiver(() => 500);
    try {
      const m = await createMerchant(svc.api);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await createPayment(svc.api, m.key, { webhook_url: down.url })).id);
      await Promise.all(ids.map((id) => cancel(m, id)));
      const waits = await waitFor(async () => {
        const ds = (await deliveries(svc.api, m, '?limit=100')).filter((x) => x.attempts.length === 1 && x.status === 'pending');
        return ds.length === ids.length ? ds.map((d) => Date.parse(d.next_attempt_at) - Date.parse(d.attempts[0].at)) : undefined;
      }, 10_000, 'first attempts');
      for (const wait of waits) {
        expect(wait).toBeGreaterThanOrEqual(1000);
        expect(wait).toBeLessThanOrEqual(1100);
      }
      // Six draws from 100 values: all equal only without jitter (or with odds of 1e-10).
      expect(new Set(waits).size).toBeGreaterThan(1);
    } finally {
      await down.close();
    }
  });

  it('Retry-After on a 429 or 503 puts the next attempt no earlier than asked', async () => {
    for (const status of [429, 503]) {
      const m = await createMerchant(svc.api);
      const busy = await startReceiverWithRetryAfter(status, 30);
      try {
        const p = await createPayment(svc.api, m.key, { webhook_url: busy.url });
        await cancel(m, p.id);
        const d = await waitFor(async () => (await deliveries(svc.api, m, `?payment_id=${p.id}`)).find((x) => x.attempts.length === 1), 10_000, 'first attempt');
        expect(d.attempts[0].status_code).toBe(status);
        expect(d.status).toBe('pending');
        // The schedule says 1 s; the receiver asked for 30 s.
        expect(Date.parse(d.next_attempt_at) - Date.parse(d.attempts[0].at)).toBeGreaterThanOrEqual(30_000);
      } finally {
        await busy.close();
      }
    }
  });

  it('410 Gone stops the retries and disables the endpoint, which says so until it is enabled again', async () => {
    let gone = true;
    const r = await startReceiver(() => (gone ? 410 : 200));
    try {
      const m = await createMerchant(svc.api);
      const made = await call(`${svc.api}/webhook-endpoints`, { key: m.key, body: { url: r.url, description: 'old server' } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const id = made.body.endpoint.id;
      expect(made.body.endpoint).toMatchObject({ status: 'enabled', enabled_events: null, default: false });

      const p = await createPayment(svc.api, m.key);
      await cancel(m, p.id);
      const dead = await waitFor(async () => (await deliveries(svc.api, m, `?payment_id=${p.id}`)).find((x) => x.status === 'dead'), 10_000, 'dead delivery');
      expect(dead.attempts).toHaveLength(1);
      expect(dead.attempts[0].status_code).toBe(410);

      const ep = await call(`${svc.api}/webhook-endpoints/${id}`, { key: m.key });
      expect(ep.body.endpoint.status).toBe('disabled');
      expect(ep.body.endpoint.disabled_reason).toMatch(/410 Gone/);
      const listed = await call(`${svc.api}/webhook-endpoints`, { cookie: m.cookie });
      expect(listed.body.data.find((e: any) => e.id === id).status).toBe('disabled');

      // Disabled: the next event is not sent there at all.
      const q = await createPayment(svc.api, m.key);
      await cancel(m, q.id);
      const before = r.received.length;
      expect(await deliveries(svc.api, m, `?payment_id=${q.id}`)).toEqual([]);
      expect(r.received.length).toBe(before);

      gone = false;
      const enabled = await call(`${svc.api}/webhook-endpoints/${id}`, { method: 'PATCH', key: m.key, body: { disabled: false } });
      expect(enabled.body.endpoint.status).toBe('enabled');
      const s = await createPayment(svc.api, m.key);
      await cancel(m, s.id);
      await waitFor(() => r.received.find((x) => x.json?.data?.id === s.id), 10_000, 'delivery after enabling');
    } finally {
      await r.close();
    }
  });

  it('410 on the default endpoint shows on GET /webhook-endpoint; PUT enables it again', async () => {
    const r = await startReceiver(() => 410);
    try {
      const m = await createMerchant(svc.api);
      await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: r.url } });
      const p = await createPayment(svc.api, m.key);
      await cancel(m, p.id);
      const ep = await waitFor(async () => {
        const got = await call(`${svc.api}/webhook-endpoint`, { key: m.key });
        return got.body.status === 'disabled' ? got.body : undefined;
      }, 10_000, 'disabled default endpoint');
      expect(ep.disabled_reason).toMatch(/410 Gone/);
      await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: r.url } });
      expect((await call(`${svc.api}/webhook-endpoint`, { key: m.key })).body.status).toBe('enabled');
    } finally {
      await r.close();
    }
  });

  it('several endpoints, each with its own event types; another account cannot see them', async () => {
    const all = await startReceiver();
    const settledOnly = await startReceiver();
    try {
      const m = await createMerchant(svc.api);
      const a = await call(`${svc.api}/webhook-endpoints`, { key: m.key, body: { url: all.url } });
      const b = await call(`${svc.api}/webhook-endpoints`, { key: m.key, body: { url: settledOnly.url, enabled_events: ['payment.settled'] } });
      expect(a.status).toBe(201);
      expect(b.body.endpoint.enabled_events).toEqual(['payment.settled']);
      const p = await createPayment(svc.api, m.key);
      await cancel(m, p.id);
      await waitFor(() => all.received.find((x) => x.json?.data?.id === p.id), 10_000, 'delivery to the all-events endpoint');
      expect(settledOnly.received).toEqual([]);
      expect((await deliveries(svc.api, m, `?payment_id=${p.id}`)).map((d) => d.url)).toEqual([all.url]);

      const bad = await call(`${svc.api}/webhook-endpoints`, { key: m.key, body: { url: all.url, enabled_events: ['payment.nope'] } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toMatch(/^enabled_events/);

      const other = await createMerchant(svc.api, 'Other');
      expect((await call(`${svc.api}/webhook-endpoints`, { key: other.key })).body.data).toEqual([]);
      expect((await call(`${svc.api}/webhook-endpoints/${a.body.endpoint.id}`, { key: other.key })).status).toBe(404);
      expect((await call(`${svc.api}/webhook-endpoints/${a.body.endpoint.id}`, { method: 'DELETE', key: other.key })).status).toBe(404);
      expect((await call(`${svc.api}/webhook-endpoints/${a.body.endpoint.id}`, { method: 'DELETE', key: m.key })).status).toBe(200);
      expect((await call(`${svc.api}/webhook-endpoints`, { key: m.key })).body.data).toHaveLength(1);
    } finally {
      await all.close();
      await settledOnly.close();
    }
  });
});

/** A receiver answering `status` with `Retry-After: <seconds>` first, then 200. */
async function startReceiverWithRetryAfter(status: number, seconds: number) {
  const http = await import('node:http');
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (n++ === 0) res.writeHead(status, { 'retry-after': String(seconds) }).end('busy');
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}
