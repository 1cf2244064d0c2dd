/**
 * Issue 24, section 2: test mode beside live, through real HTTP on a real service (embedded
 * anvil; run again on PostgreSQL by the `pg` project, vitest.config.ts CORE_ON_POSTGRES). A test
 * key sees only test-mode objects in every list (payments, refunds, events, webhook endpoints,
 * deliveries, agent actions) and a live key only live ones; ids never cross modes (404); events
 * and webhooks carry `livemode`; a test-key payment settles on the embedded chain. Also
 * `policy.updated`: a real event, delivered signed to a loopback receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { startReceiver, waitFor, type Receiver } from '../webhooks/helpers.js';
import { authorize, customer, settle, usdc, type Ctx } from '../settlement/helpers.js';
import { fund, newAccount } from '../helpers/money.js';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';

let svc: TestService;
let m: Merchant;
let testKey: string;
let liveRx: Receiver;
let testRx: Receiver;
let secret: string;
let testSecret: string;
const ids = { live: {} as Record<string, string>, test: {} as Record<string, string> };

const createPayment = (key: string, body: Record<string, unknown> = {}) =>
  call(`${svc.api}/v1/payments`, { key, body: { amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/thanks', reference: 'order-1', ...body } });

async function payOnChain(paymentId: string) {
  const ctx: Ctx = { svc, merchant: m };
  const payer = await customer(ctx, usdc('100'));
  const signed = await authorize(ctx, paymentId, payer);
  const res = await settle(ctx, paymentId, signed);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0', RECONCILE_INTERVAL: '1h', AGENT_RATE_LIMIT: '1000/min' });
  m = await createMerchant(svc.api, 'Two Modes Shop');
  const amina = await newAccount(svc, { name: 'Amina', country: 'NG' });
  await svc.deps.accounts.update(amina.id, { telegramUsername: 'amina_modes' });
  await fund(svc, (await svc.deps.accounts.get(m.accountId))!, '50');
  liveRx = await startReceiver();
  testRx = await startReceiver();
});
afterAll(async () => {
  await liveRx?.close();
  await testRx?.close();
  await svc?.stop({ removeData: true });
});

describe('test and live keys', () => {
  it('a new account gets a live key; a test key is made on request (sk_test_), listed with its mode', async () => {
    expect(m.key).toMatch(/^sk_live_/);
    const made = await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'sandbox', mode: 'test' } });
    expect(made.status).toBe(201);
    expect(made.body.key).toMatchObject({ label: 'sandbox', mode: 'test', livemode: false });
    testKey = made.body.key.secret;
    expect(testKey).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(made.body.key.prefix).toBe(`sk_test_…${testKey.slice(-4)}`);
    const list = await call(`${svc.api}/keys`, { cookie: m.cookie });
    expect(list.body.keys.map((k: { mode: string }) => k.mode).sort()).toEqual(['live', 'test']);
    const bad = await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'x', mode: 'sandbox' } });
    expect(bad.status).toBe(400);
  });

  it('ping: live:true for the live key (the interface form), live:false for the test key', async () => {
    expect((await call(`${svc.api}/v1/ping`, { key: m.key })).body).toEqual({ ok: true, account: m.accountId, live: true });
    expect((await call(`${svc.api}/v1/ping`, { key: testKey })).body).toEqual({ ok: true, account: m.accountId, live: false });
  });
});

describe('isolation in every list and by id', () => {
  beforeAll(async () => {
    const live = await call(`${svc.api}/webhook-endpoints`, { key: m.key, body: { url: liveRx.url } });
    expect(live.status).toBe(201);
    secret = live.body.secret;
    const test = await call(`${svc.api}/webhook-endpoints`, { key: testKey, body: { url: testRx.url } });
    expect(test.status).toBe(201);
    expect(test.body.endpoint.livemode).toBe(false);
    testSecret = test.body.secret;
    ids.live.endpoint = live.body.endpoint.id;
    ids.test.endpoint = test.body.endpoint.id;

    // The same reference in both modes: two payments, never a dedupe across modes.
    const lp = await createPayment(m.key);
    const tp = await createPayment(testKey);
    expect([lp.status, tp.status]).toEqual([201, 201]);
    expect(tp.body.id).not.toBe(lp.body.id);
    ids.live.payment = lp.body.id;
    ids.test.payment = tp.body.id;
  });

  it('a test-key payment settles on the embedded chain; its webhook carries livemode:false and goes to the test endpoint only', async () => {
    const done = await payOnChain(ids.test.payment!);
    expect(done.payment.status).toBe('settled');
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await svc.deps.chain.publicClient.getTransactionReceipt({ hash: done.txHash });
    expect(receipt.status).toBe('success');
    const got = await waitFor(() => testRx.received.find((r) => r.json?.data?.id === ids.test.payment));
    expect(got.json).toMatchObject({ type: 'payment.settled', livemode: false });
    expect(verifyWebhookSignature(got.body, String(got.headers['service-signature']), testSecret)).toBe(true);
    expect(liveRx.received.some((r) => r.json?.data?.id === ids.test.payment)).toBe(false);

    await payOnChain(ids.live.payment!);
    const live = await waitFor(() => liveRx.received.find((r) => r.json?.data?.id === ids.live.payment));
    expect(live.json).toMatchObject({ type: 'payment.settled', livemode: true });
    expect(testRx.received.some((r) => r.json?.data?.id === ids.live.payment)).toBe(false);
  });

  it('refunds: each mode refunds its own payment; the other mode gets 404', async () => {
    for (const mode of ['live', 'test'] as const) {
      const key = mode === 'live' ? m.key : testKey;
      const r = await call(`${svc.api}/v1/payments/${ids[mode].payment}/refunds`, { key, body: { amount: 1 } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.livemode).toBe(mode === 'live');
      ids[mode].refund = r.body.id;
    }
    expect((await call(`${svc.api}/v1/payments/${ids.live.payment}/refunds`, { key: testKey, body: { amount: 1 } })).status).toBe(404);
  });

  it('agent actions: a test key holds a test action; lists and confirm are per mode', async () => {
    for (const mode of ['live', 'test'] as const) {
      const key = mode === 'live' ? m.key : testKey;
      const held = await call(`${svc.api}/agent/settle`, { key, body: { message: 'send 1 USD to @amina_modes', confirm: false } });
      expect(held.status, JSON.stringify(held.body)).toBe(200);
      ids[mode].action = held.body.pending.id;
    }
    const crossConfirm = await call(`${svc.api}/agent/settle`, { key: testKey, body: { confirm_action: ids.live.action } });
    expect(crossConfirm.status).toBe(404);
    expect((await svc.deps.agentActions.get(ids.live.action!))!.status).toBe('pending');
    const receipt = await call(`${svc.api}/agent/actions/${ids.live.action}/receipt`, { key: testKey });
    expect(receipt.status).toBe(404);
  });

  it('every list shows only its own mode', async () => {
    const lists: Array<[string, (body: any) => string[]]> = [
      ['/v1/payments', (b) => b.data.map((x: any) => x.id)],
      ['/v1/events', (b) => b.data.map((x: any) => x.data.id)],
      ['/webhook-endpoints', (b) => b.data.map((x: any) => x.id)],
      ['/webhook-deliveries', (b) => b.data.map((x: any) => x.payment_id)],
      ['/agent/actions', (b) => b.data.map((x: any) => x.id)],
    ];
    for (const [mode, other] of [['live', 'test'], ['test', 'live']] as const) {
      const key = mode === 'live' ? m.key : testKey;
      for (const [path, pick] of lists) {
        const res = await call(`${svc.api}${path}`, { key });
        expect(res.status, path).toBe(200);
        const got = pick(res.body);
        const own = path === '/webhook-endpoints' ? ids[mode].endpoint : path === '/agent/actions' ? ids[mode].action : ids[mode].payment;
        const theirs = path === '/webhook-endpoints' ? ids[other].endpoint : path === '/agent/actions' ? ids[other].action : ids[other].payment;
        expect(got, `${mode} ${path}`).toContain(own);
        expect(got, `${mode} ${path}`).not.toContain(theirs);
        for (const item of res.body.data) expect(item.livemode, `${mode} ${path}`).toBe(mode === 'live');
      }
      const refunds = await call(`${svc.api}/v1/payments/${ids[mode].payment}/refunds`, { key });
      expect(refunds.body.data.map((r: any) => r.id)).toEqual([ids[mode].refund]);
      expect((await call(`${svc.api}/v1/payments/${ids[other].payment}/refunds`, { key })).status).toBe(404);
      // The same filter by the other mode's payment finds nothing.
      expect((await call(`${svc.api}/v1/events?payment=${ids[other].payment}`, { key })).body.data).toEqual([]);
      expect((await call(`${svc.api}/webhook-deliveries?payment_id=${ids[other].payment}`, { key })).body.data).toEqual([]);
    }
  });

  it('ids never cross modes: every get by id is a 404 from the other mode', async () => {
    const events = (await call(`${svc.api}/v1/events`, { key: m.key })).body.data;
    const testEvents = (await call(`${svc.api}/v1/events`, { key: testKey })).body.data;
    const deliveries = (await call(`${svc.api}/webhook-deliveries`, { key: m.key })).body.data;
    const testDeliveries = (await call(`${svc.api}/webhook-deliveries`, { key: testKey })).body.data;
    ids.live.event = events[0].id;
    ids.test.event = testEvents[0].id;
    ids.live.delivery = deliveries[0].id;
    ids.test.delivery = testDeliveries[0].id;
    for (const [mode, other] of [['live', 'test'], ['test', 'live']] as const) {
      const key = mode === 'live' ? m.key : testKey;
      const paths = [
        `/v1/payments/${ids[other].payment}`,
        `/v1/refunds/${ids[other].refund}`,
        `/v1/events/${ids[other].event}`,
        `/webhook-endpoints/${ids[other].endpoint}`,
        `/webhook-deliveries/${ids[other].delivery}`,
        `/agent/actions/${ids[other].action}`,
      ];
      for (const path of paths) expect((await call(`${svc.api}${path}`, { key })).status, `${mode} GET ${path}`).toBe(404);
      const own = [`/v1/payments/${ids[mode].payment}`, `/v1/refunds/${ids[mode].refund}`, `/v1/events/${ids[mode].event}`, `/webhook-endpoints/${ids[mode].endpoint}`, `/webhook-deliveries/${ids[mode].delivery}`, `/agent/actions/${ids[mode].action}`];
      for (const path of own) {
        const res = await call(`${svc.api}${path}`, { key });
        expect(res.status, `${mode} GET ${path}`).toBe(200);
      }
      expect((await call(`${svc.api}/webhook-deliveries/${ids[other].delivery}/redeliver`, { key, method: 'POST' })).status).toBe(404);
      expect((await call(`${svc.api}/webhook-endpoints/${ids[other].endpoint}`, { key, method: 'DELETE' })).status).toBe(404);
      expect((await call(`${svc.api}/v1/payments/${ids[other].payment}/cancel`, { key, body: {} })).status).toBe(404);
    }
  });

  it("the app's mode switch (cookie sp_mode=test) shows the session the test-mode views", async () => {
    const testCookie = `${m.cookie}; sp_mode=test`;
    const eps = await call(`${svc.api}/webhook-endpoints`, { cookie: testCookie });
    expect(eps.body.data.map((e: any) => e.id)).toEqual([ids.test.endpoint]);
    const live = await call(`${svc.api}/webhook-endpoints`, { cookie: m.cookie });
    expect(live.body.data.map((e: any) => e.id)).toEqual([ids.live.endpoint]);
    const dash = await call(`${svc.api}/app/dashboard/payments`, { cookie: testCookie });
    expect(dash.body.data.map((p: any) => p.id)).toEqual([ids.test.payment]);
  });
});

describe('policy.updated is a real event', () => {
  it('is listed in the events API and delivered signed to the live endpoint', async () => {
    const put = await call(`${svc.api}/policies`, { method: 'PUT', cookie: m.cookie, body: { policy: { usd: { per_transaction: '40' } }, password: 'correct horse battery' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const got = await waitFor(() => liveRx.received.find((r) => r.json?.type === 'policy.updated'));
    expect(got.json).toMatchObject({ type: 'policy.updated', livemode: true, data: { scope: 'account', key_id: null, policy: { usd: { per_transaction: '40' } } } });
    expect(verifyWebhookSignature(got.body, String(got.headers['service-signature']), secret)).toBe(true);
    expect(got.headers['webhook-id']).toBe(got.json.id);
    const listed = await call(`${svc.api}/v1/events?type=policy.updated`, { key: m.key });
    expect(listed.body.data.map((e: any) => e.id)).toEqual([got.json.id]);
    const asBefore = await call(`${svc.api}/policies/events`, { cookie: m.cookie });
    expect(asBefore.body.data[0].id).toBe(got.json.id);
    expect(testRx.received.some((r) => r.json?.type === 'policy.updated')).toBe(false);
  });
});

describe('claims carry the mode of the key that made them', () => {
  it("a test key's claim is test mode (its transfer.* events too); a live key's is live", async () => {
    const made: Record<'live' | 'test', string> = { live: '', test: '' };
    for (const [mode, key, phone] of [['test', testKey, '+254711999801'], ['live', m.key, '+254711999802']] as const) {
      const sent = await call(`${svc.api}/agent/settle`, { key, body: { message: `send 1 USD to ${phone}` } });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      made[mode] = sent.body.transfer.id;
      expect((await svc.deps.claims.get(made[mode]))!.livemode).toBe(mode === 'live');
    }
    const created = (rx: Receiver, id: string) => waitFor(() => rx.received.find((r) => r.json?.type === 'transfer.claim_created' && r.json.data?.id === id));
    const testEvent = await created(testRx, made.test);
    expect(testEvent.json.livemode).toBe(false);
    const liveEvent = await created(liveRx, made.live);
    expect(liveEvent.json.livemode).toBe(true);
    // Each went to its own mode's endpoint only, and is read back only with its own mode's key.
    expect(liveRx.received.some((r) => r.json?.data?.id === made.test)).toBe(false);
    expect(testRx.received.some((r) => r.json?.data?.id === made.live)).toBe(false);
    expect((await call(`${svc.api}/v1/events/${testEvent.json.id}`, { key: testKey })).body).toEqual(testEvent.json);
    expect((await call(`${svc.api}/v1/events/${testEvent.json.id}`, { key: m.key })).status).toBe(404);
    expect((await call(`${svc.api}/v1/events/${liveEvent.json.id}`, { key: testKey })).status).toBe(404);
    // The claims list is per mode, and the other mode's claim cannot be canceled (404, like an unknown id).
    for (const [mode, key, other] of [['live', m.key, 'test'], ['test', testKey, 'live']] as const) {
      const listed = (await call(`${svc.api}/claims`, { key })).body.data.map((c: { id: string }) => c.id);
      expect(listed, mode).toContain(made[mode]);
      expect(listed, mode).not.toContain(made[other]);
      const cancel = await call(`${svc.api}/claims/${made[other]}/cancel`, { key, method: 'POST' });
      expect(cancel.status, mode).toBe(404);
      expect(cancel.body.error.message).toBe(`No such claim: ${made[other]}.`);
    }
    expect((await svc.deps.claims.get(made.live))!.status).not.toBe('canceled');
  });
});

describe('each mode has its own webhook signing secret (h16tour)', () => {
  /** Verified exactly as a merchant does, with the `standardwebhooks` package; throws if invalid. */
  const verifies = (r: { body: string; headers: Record<string, unknown> }, whsec: string): boolean => {
    try {
      new StandardWebhook(whsec).verify(r.body, r.headers as Record<string, string>);
      return verifyWebhookSignature(r.body, String(r.headers['service-signature']), whsec);
    } catch {
      return false;
    }
  };
  const testEventTo = async (key: string, endpoint: string, rx: Receiver) => {
    const n = rx.received.length;
    const sent = await call(`${svc.api}/webhook-endpoints/${endpoint}/test`, { method: 'POST', key });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    return waitFor(() => rx.received[n]);
  };

  it("a test key's first endpoint shows the test secret; test events verify with it and never with the live one, live events the other way round", async () => {
    expect(testSecret).toMatch(/^whsec_/);
    expect(testSecret).not.toBe(secret);
    const t = await testEventTo(testKey, ids.test.endpoint!, testRx);
    expect(t.json.livemode).toBe(false);
    expect(verifies(t, testSecret)).toBe(true);
    expect(verifies(t, secret)).toBe(false);
    const l = await testEventTo(m.key, ids.live.endpoint!, liveRx);
    expect(l.json.livemode).toBe(true);
    expect(verifies(l, secret)).toBe(true);
    expect(verifies(l, testSecret)).toBe(false);
  });

  it('a test key rotates the test secret only (the live one keeps signing live events); a live key the live one only', async () => {
    const liveBefore = (await call(`${svc.api}/webhook-endpoint`, { key: m.key })).body.secret_created_at;
    const r = await call(`${svc.api}/webhook-secret`, { method: 'POST', key: testKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const rotated = r.body.secret as string;
    expect(rotated).toMatch(/^whsec_/);
    expect([secret, testSecret]).not.toContain(rotated);
    expect(r.body.previous_expires_at).toEqual(expect.any(String));
    expect((await call(`${svc.api}/webhook-endpoint`, { key: m.key })).body).toMatchObject({ secret_created_at: liveBefore, previous_secret_expires_at: null });
    expect((await call(`${svc.api}/webhook-endpoint`, { key: testKey })).body.previous_secret_expires_at).toBe(r.body.previous_expires_at);
    // During the overlap a test event carries the new and the old test secret, never the live one.
    const t = await testEventTo(testKey, ids.test.endpoint!, testRx);
    expect([verifies(t, rotated), verifies(t, testSecret), verifies(t, secret)]).toEqual([true, true, false]);
    const l = await testEventTo(m.key, ids.live.endpoint!, liveRx);
    expect([verifies(l, secret), verifies(l, rotated)]).toEqual([true, false]);
    testSecret = rotated;
    // The app in test mode rotates the test secret too; a live key the live one.
    const viaApp = await call(`${svc.api}/webhook-secret`, { method: 'POST', cookie: m.cookie, headers: { 'StablePay-Mode': 'test' } });
    expect((await call(`${svc.api}/webhook-endpoint`, { key: m.key })).body.secret_created_at).toBe(liveBefore);
    const liveRotated = (await call(`${svc.api}/webhook-secret`, { method: 'POST', key: m.key })).body.secret as string;
    const t2 = await testEventTo(testKey, ids.test.endpoint!, testRx);
    expect([verifies(t2, viaApp.body.secret), verifies(t2, liveRotated)]).toEqual([true, false]);
    const l2 = await testEventTo(m.key, ids.live.endpoint!, liveRx);
    expect([verifies(l2, liveRotated), verifies(l2, secret), verifies(l2, viaApp.body.secret)]).toEqual([true, true, false]);
  });

  it("on a fresh account a test key's first endpoint is shown the test secret, the live key's first endpoint the live one", async () => {
    for (const path of ['/webhook-endpoints', '/webhook-endpoint'] as const) {
      const fresh = await createMerchant(svc.api, `Fresh ${path}`);
      const key = (await call(`${svc.api}/keys`, { cookie: fresh.cookie, body: { label: 'sandbox', mode: 'test' } })).body.key.secret as string;
      const add = (k: string) => call(`${svc.api}${path}`, { key: k, method: path === '/webhook-endpoint' ? 'PUT' : 'POST', body: { url: testRx.url } });
      const byTest = await add(key);
      expect(byTest.status, JSON.stringify(byTest.body)).toBe(path === '/webhook-endpoint' ? 200 : 201);
      expect(byTest.body.secret).toMatch(/^whsec_/);
      expect((await add(key)).body.secret).toBeUndefined();
      expect((await call(`${svc.api}/webhook-endpoint`, { key: fresh.key })).body.secret_configured).toBe(false);
      const byLive = await add(fresh.key);
      expect(byLive.body.secret, JSON.stringify(byLive.body)).toMatch(/^whsec_/);
      expect(byLive.body.secret).not.toBe(byTest.body.secret);
      expect((await add(fresh.key)).body.secret).toBeUndefined();
    }
  });
});
