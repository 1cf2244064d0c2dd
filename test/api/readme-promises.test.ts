/**
 * Issue 27, the README as written: GET /api/me takes a secret key as well as the session (each
 * key reads its own account only), and the dashboard's New payment (POST /api/app/payments) takes
 * the session cookie only, with the same body and answers as POST /api/v1/payments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type TestService } from '../helpers/service.js';

describe('README promises: /api/me with a key, New payment with the session', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
  });

  it('GET /api/me answers a bearer key with the key’s own account, and 401 without one', async () => {
    const a = await createMerchant(svc.api, 'Shop A');
    const b = await createMerchant(svc.api, 'Shop B');
    const byKey = await call(`${svc.api}/me`, { key: a.key });
    expect(byKey.status).toBe(200);
    expect(byKey.body.account).toMatchObject({ id: a.accountId, name: 'Shop A' });
    expect((await call(`${svc.api}/me`, { key: b.key })).body.account.id).toBe(b.accountId);
    expect((await call(`${svc.api}/me`, { cookie: a.cookie })).body.account.id).toBe(a.accountId);
    expect((await call(`${svc.api}/me`, {})).status).toBe(401);
    expect((await call(`${svc.api}/me`, { key: 'sk_live_nonsense' })).status).toBe(401);
  });

  it('/readyz names the embedded chain\'s JSON-RPC URL, which answers eth_chainId', async () => {
    const res = await fetch(`${svc.url}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; chain: { chain_id: number; rpc_url: string } };
    expect(body.chain.rpc_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const rpc = await fetch(body.chain.rpc_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
    expect(Number(((await rpc.json()) as { result: string }).result)).toBe(body.chain.chain_id);
  });

  it('POST /api/app/payments creates a payment for the signed-in account; a key is refused there', async () => {
    const m = await createMerchant(svc.api, 'Shop C');
    const made = await call(`${svc.api}/app/payments`, { cookie: m.cookie, body: { amount: 25, currency: 'USD', description: 'Haircut', redirect_url: 'https://shop.example/thanks' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ status: 'pending', amount: 25, currency: 'USD', description: 'Haircut' });
    expect(made.body.checkout_url).toContain(`/pay/${made.body.id}`);
    expect((await call(`${svc.api}/v1/payments/${made.body.id}`, { key: m.key })).status).toBe(200);
    const bad = await call(`${svc.api}/app/payments`, { cookie: m.cookie, body: { amount: -1, currency: 'USD', redirect_url: 'https://shop.example' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('amount');
    expect((await call(`${svc.api}/app/payments`, { key: m.key, body: { amount: 1, currency: 'USD', redirect_url: 'https://shop.example' } })).status).toBe(401);
  });
});
