/**
 * The dashboard's JSON (src/web/data.router.ts) over real HTTP against a real service: session
 * only, scoped to the signed-in account (another account reads nothing), filters, CSV and
 * period totals over payments settled on the embedded chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { Payments } from '../../src/payments/payments.js';

describe('dashboard JSON (session, account-scoped)', () => {
  let svc: TestService;
  let shop: Merchant;
  let other: Merchant;
  const ids: Record<string, string> = {};

  const create = async (m: Merchant, body: Record<string, unknown>) => {
    const r = await call(`${svc.api}/v1/payments`, { key: m.key, body: { redirect_url: 'https://shop.example/done', ...body } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id as string;
  };
  const get = (path: string, m: Merchant | undefined = shop) => call(`${svc.api}${path}`, m ? { cookie: m.cookie } : {});

  beforeAll(async () => {
    svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
    shop = await createMerchant(svc.api, 'Shop');
    other = await createMerchant(svc.api, 'Other');
    ids.a = await create(shop, { amount: 10, currency: 'USD', reference: 'order-100', description: 'First', metadata: { note: '=HYPERLINK("x")' } });
    ids.b = await create(shop, { amount: 5000, currency: 'KES', reference: 'order-200', description: 'Second' });
    ids.c = await create(shop, { amount: 2.5, currency: 'USD', reference: 'gift-300', description: '=SUM(A1:A9)' });
    ids.x = await create(other, { amount: 99, currency: 'USD', reference: 'order-100' });
    // Two settle on the chain; one is made old.
    for (const id of [ids.a, ids.b]) {
      const paid = await call(`${svc.api}/dev/test-wallet-pay/${id}`, { method: 'POST' });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    }
    await svc.deps.store.transaction(async (tx) => {
      await tx.table(Payments).update(ids.c!, { createdAt: '2026-01-15T10:00:00.000Z' });
    });
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
  });

  it('lists only the account’s payments, newest first, with filters', async () => {
    const all = await get('/app/dashboard/payments');
    expect(all.status).toBe(200);
    expect(all.body.data.map((p: any) => p.id)).toEqual([ids.c, ids.b, ids.a]);
    expect(all.body.total_count).toBe(3);
    expect(all.body.data.find((p: any) => p.id === ids.x)).toBeUndefined();

    const settled = await get('/app/dashboard/payments?status=settled');
    expect(settled.body.data.map((p: any) => p.id)).toEqual([ids.b, ids.a]);
    const pending = await get('/app/dashboard/payments?status=pending');
    expect(pending.body.data.map((p: any) => p.id)).toEqual([ids.c]);

    // Search: part of a reference (any case), or a payment id.
    expect((await get('/app/dashboard/payments?q=ORDER')).body.data.map((p: any) => p.id)).toEqual([ids.b, ids.a]);
    expect((await get(`/app/dashboard/payments?q=${ids.b}`)).body.data.map((p: any) => p.id)).toEqual([ids.b]);
    expect((await get(`/app/dashboard/payments?q=${ids.x}`)).body.data).toEqual([]);

    // Date range (UTC days, inclusive).
    expect((await get('/app/dashboard/payments?from=2026-01-01&to=2026-01-31')).body.data.map((p: any) => p.id)).toEqual([ids.c]);
    expect((await get('/app/dashboard/payments?to=2026-01-14')).body.data).toEqual([]);
    // Blank form fields are "not set".
    expect((await get('/app/dashboard/payments?status=&q=&from=&to=')).body.total_count).toBe(3);

    // Paging.
    const first = await get('/app/dashboard/payments?limit=2');
    expect(first.body.has_more).toBe(true);
    const next = await get(`/app/dashboard/payments?limit=2&starting_after=${first.body.data[1].id}`);
    expect(next.body.data.map((p: any) => p.id)).toEqual([ids.a]);
    expect(next.body.has_more).toBe(false);
  });

  it('answers bad filters with invalid_request_error naming the field', async () => {
    const bad = await get('/app/dashboard/payments?status=nope');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param: 'status' });
    const dates = await get('/app/dashboard/payments?from=2026-02-01&to=2026-01-01');
    expect(dates.status).toBe(400);
    expect(dates.body.error.param).toBe('from');
    const day = await get('/app/dashboard/summary?from=yesterday');
    expect(day.body.error).toMatchObject({ type: 'invalid_request_error', param: 'from' });
    const cursor = await get(`/app/dashboard/payments?starting_after=${ids.x}`);
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.param).toBe('starting_after');
  });

  it('exports the current filter as CSV, with formula-looking cells defused', async () => {
    const res = await fetch(`${svc.api}/app/dashboard/payments.csv?q=order`, { headers: { cookie: shop.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,created_at,status,amount,currency,stablecoin_amount,amount_refunded,stablecoin_refunded,reference,description,payer,tx_hash,settled_at,metadata');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`"${ids.b}"`);
    expect(lines[1]).toContain('"5000","KES","38.68472"');
    expect(lines[2]).toContain(`"${ids.a}"`);
    expect(lines[2]).toContain('"settled"');
    expect(lines[2]).toMatch(/"0x[0-9a-f]{64}"/);
    // The metadata cell starts with "{" so it is safe; a value starting with "=" inside JSON stays quoted.
    expect(lines[2]).toContain('"{""note"":""=HYPERLINK(\\""x\\"")""}"');
    const pendingOnly = await (await fetch(`${svc.api}/app/dashboard/payments.csv?status=pending`, { headers: { cookie: shop.cookie } })).text();
    expect(pendingOnly.trimEnd().split('\r\n')).toHaveLength(2);
    // A cell a spreadsheet would run as a formula is prefixed with a quote.
    expect(pendingOnly).toContain(`"'=SUM(A1:A9)"`);
    expect(pendingOnly).not.toContain(`,"=SUM`);
    // Another account's CSV holds only its own payment.
    const theirs = await (await fetch(`${svc.api}/app/dashboard/payments.csv`, { headers: { cookie: other.cookie } })).text();
    expect(theirs).toContain(ids.x);
    expect(theirs).not.toContain(ids.a);
  });

  it('totals the period: settled, refunded, net, per day', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const s = await get('/app/dashboard/summary');
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ to: today, currency: 'USDC', settled_count: 2, settled: '48.68472', refunded: '0', net: '48.68472' });
    expect(s.body.days).toHaveLength(30);
    expect(s.body.days.at(-1)).toMatchObject({ day: today, settled: '48.68472', count: 2 });
    const old = await get('/app/dashboard/summary?from=2026-01-01&to=2026-01-31');
    expect(old.body).toMatchObject({ settled_count: 0, settled: '0', days: expect.any(Array) });
    expect(old.body.days).toHaveLength(31);
    const theirs = await get('/app/dashboard/summary', other);
    expect(theirs.body).toMatchObject({ settled_count: 0, settled: '0' });
  });

  it('shows one payment with its events and deliveries; another account gets 404', async () => {
    const d = await get(`/app/dashboard/payments/${ids.a}`);
    expect(d.status).toBe(200);
    expect(d.body.payment).toMatchObject({ id: ids.a, status: 'settled', amount: '10', currency: 'USD', stablecoin_amount: '10', metadata: { note: '=HYPERLINK("x")' } });
    expect(d.body.payment.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(d.body.network).toMatchObject({ name: 'Local test network', explorer_url: null });
    expect(d.body.timeline.map((t: any) => t.kind)).toEqual(expect.arrayContaining(['created', 'settled', 'event']));
    expect(d.body.events.map((e: any) => e.type)).toContain('payment.settled');

    const foreign = await get(`/app/dashboard/payments/${ids.x}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.type).toBe('invalid_request_error');
    expect((await get(`/app/dashboard/payments/${ids.a}`, other)).status).toBe(404);
  });

  it('needs a session: no cookie and a bearer key are both 401', async () => {
    for (const path of ['/app/dashboard/payments', '/app/dashboard/payments.csv', '/app/dashboard/summary', `/app/dashboard/payments/${ids.a}`]) {
      const anonymous = await call(`${svc.api}${path}`);
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.body.error.type).toBe('authentication_error');
      const keyed = await call(`${svc.api}${path}`, { key: shop.key });
      expect(keyed.status, path).toBe(401);
    }
  });
});
