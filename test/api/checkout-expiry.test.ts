import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { storedTables } from '../helpers/stored.js';
import { Payments } from '../../src/payments/payments.js';
import { CheckoutView } from '../../src/http/present.js';

let s: TestService;
let m: Merchant;

beforeAll(async () => {
  // A fast sweeper so its effect can be observed without waiting a minute.
  s = await startTestService({ EXPIRY_SWEEP_INTERVAL: '50ms' });
  m = await createMerchant(s.api, 'Checkout Shop');
});
afterAll(() => s.stop({ removeData: true }));

const SECRET_WEBHOOK = 'https://hooks.shop.example/very-private-path';
const create = (extra: Record<string, unknown> = {}) =>
  call(`${s.api}/v1/payments`, {
    key: m.key,
    body: {
      amount: 1200.5,
      currency: 'NGN',
      redirect_url: 'https://shop.example/return?secret=redirect-token',
      reference: `co-${Date.now()}-${Math.random()}`,
      description: 'Two tickets',
      metadata: { customer_email: 'private@example.com' },
      webhook_url: SECRET_WEBHOOK,
      ...extra,
    },
  });

/** The interface's 2.2 fields, plus what the page needs to pay (stablecoin amount and chain). */
const VIEW_KEYS = [
  'id',
  'merchantName',
  'description',
  'amount',
  'currency',
  'reference',
  'status',
  'hasPayout',
  'expiresAt',
  'stablecoinAmount',
  'chainId',
  'tokenAddress',
  'tokenSymbol',
  // While pending: the session's deposit address and its EIP-681 link (docs/checkout.md).
  'depositAddress',
  'paymentUri',
].sort();

describe('GET /api/checkout/:id (interface 4.2, 2.2)', () => {
  it('needs no authentication and returns exactly the view fields', async () => {
    const p = (await create()).body;
    const r = await call(`${s.api}/checkout/${p.id}`);
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    expect(Object.keys(r.body).sort()).toEqual(['ok', 'payment']);
    expect(Object.keys(r.body.payment).sort()).toEqual(VIEW_KEYS);
    CheckoutView.strict().parse(r.body.payment);
    expect(r.body.payment).toMatchObject({
      id: p.id,
      merchantName: 'Checkout Shop',
      description: 'Two tickets',
      amount: 1200.5,
      currency: 'NGN',
      reference: p.reference,
      status: 'pending',
      hasPayout: false,
      expiresAt: p.expires_at,
      stablecoinAmount: p.stablecoin_amount,
    });
    // Every use revalidated (no-cache), never served stale; the ETag lets a poller skip an unchanged body.
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(r.headers.get('etag')).toMatch(/^W\/"/);
  });

  it('never leaks the account, redirect_url, metadata, the webhook URL or any secret', async () => {
    const p = (await create({ payout_address: '0x52908400098527886E0F7030069857D2E4169EE7' })).body;
    const r = await call(`${s.api}/checkout/${p.id}`);
    const text = JSON.stringify(r.body);
    for (const leak of [m.accountId, 'redirect-token', 'shop.example/return', 'private@example.com', SECRET_WEBHOOK, m.key, 'sk_live_', 'requestHash', p.payout_address]) {
      expect(text).not.toContain(leak);
    }
    expect(r.body.payment.hasPayout).toBe(true);
  });

  it('uses merchant_name when given, else the account name', async () => {
    const named = (await create({ merchant_name: 'Front Desk' })).body;
    expect((await call(`${s.api}/checkout/${named.id}`)).body.payment.merchantName).toBe('Front Desk');
  });

  it('unknown id -> 404 {ok:false, error:"No such payment: <id>"}', async () => {
    const r = await call(`${s.api}/checkout/pay_nope`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ ok: false, error: 'No such payment: pay_nope' });
  });

  it('a path with bad percent-encoding is a JSON 400 in the checkout shape, never HTML', async () => {
    const r = await call(`${s.api}/checkout/%E0%A4%A`);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.body).toEqual({ ok: false, error: expect.stringMatching(/percent-encoding/) });
  });
});

describe('expiry', () => {
  /** Moves a stored payment's expiry into the past, as time passing would. */
  async function backdate(id: string) {
    const past = new Date(Date.now() - 1000).toISOString();
    await s.deps.store.write(Payments, (t) => t.update(id, { expiresAt: past }));
  }
  const storedStatus = async (id: string) => {
    const db = await storedTables<{ id: string; status: string }>(s.dataDir);
    return db.tables.payments!.find((p) => p.id === id)?.status as string;
  };

  it('a pending payment past expiresAt reads as expired at once, everywhere', async () => {
    const sweeperOff = await startTestService({ EXPIRY_SWEEP_INTERVAL: '1h' });
    try {
      const shop = await createMerchant(sweeperOff.api, 'Slow sweeper');
      const p = (await call(`${sweeperOff.api}/v1/payments`, { key: shop.key, body: { amount: 5, currency: 'USD', redirect_url: 'https://x.example' } })).body;
      const past = new Date(Date.now() - 1000).toISOString();
      await sweeperOff.deps.store.write(Payments, (t) => t.update(p.id, { expiresAt: past }));
      expect((await call(`${sweeperOff.api}/checkout/${p.id}`)).body.payment.status).toBe('expired');
      expect((await call(`${sweeperOff.api}/v1/payments/${p.id}`, { key: shop.key })).body.status).toBe('expired');
      const expiredList = await call(`${sweeperOff.api}/v1/payments?status=expired`, { key: shop.key });
      expect(expiredList.body.data.map((x: { id: string }) => x.id)).toEqual([p.id]);
      expect((await call(`${sweeperOff.api}/v1/payments?status=pending`, { key: shop.key })).body.data).toEqual([]);
      // ...while the stored record is still pending: the read did not wait for the sweeper.
      const db = await storedTables<{ id: string; status: string }>(sweeperOff.dataDir);
      expect(db.tables.payments!.find((x) => x.id === p.id)!.status).toBe('pending');
    } finally {
      await sweeperOff.stop({ removeData: true });
    }
  });

  it('the sweeper stores expired (and leaves payments still in their window alone)', async () => {
    const due = (await create()).body;
    const notDue = (await create()).body;
    await backdate(due.id);
    // The sweeper runs every 50 ms here; wait until it has stored the change.
    for (let i = 0; i < 200 && (await storedStatus(due.id)) !== 'expired'; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await storedStatus(due.id)).toBe('expired');
    expect(await storedStatus(notDue.id)).toBe('pending');
    expect((await call(`${s.api}/checkout/${notDue.id}`)).body.payment.status).toBe('pending');
  });

  it('sweepExpired expires exactly the due pending payments and is idempotent', async () => {
    const a = (await create()).body;
    const b = (await create()).body;
    const later = Date.parse(b.expires_at) + 1;
    // Everything pending in this service expires "later"; a second sweep finds nothing.
    const n = await s.deps.payments.sweepExpired(later);
    expect(n).toBeGreaterThanOrEqual(2);
    expect(await storedStatus(a.id)).toBe('expired');
    expect(await storedStatus(b.id)).toBe('expired');
    expect(await s.deps.payments.sweepExpired(later)).toBe(0);
  });
});
