import { describe, expect } from 'vitest';
import { call, createMerchant, type Merchant, type TestService } from '../helpers/service.js';
import { merchantServiceTest } from '../helpers/service-fixtures.js';
import { PaymentResource } from '../../src/http/present.js';

const it = merchantServiceTest('Payments Shop');
let s: TestService;
let m: Merchant;

it.beforeAll(({ svc, merchant }) => {
  s = svc;
  m = merchant;
});

const base = { amount: 25, currency: 'usd', redirect_url: 'https://shop.example/thanks' };
const create = (body: unknown, headers: Record<string, string> = {}, key = m.key) =>
  call(`${s.api}/v1/payments`, { key, body, headers });

/** Creates with `field: value` added to a valid body. */
const withField = (field: string, value: unknown) => create({ ...base, [field]: value });

function expectInvalid(r: Awaited<ReturnType<typeof call>>, param: string, message?: RegExp) {
  expect(r.status).toBe(400);
  expect(r.body.error.type).toBe('invalid_request_error');
  expect(r.body.error.param).toBe(param);
  if (message) expect(r.body.error.message).toMatch(message);
}

describe('POST /api/v1/payments', () => {
  it('creates a pending payment: 201 with id, checkout_url and the locked stablecoin amount', async () => {
    const r = await create({ ...base, amount: 5000, currency: 'kes', reference: 'order-1', metadata: { order: 1, gift: true, note: 'x' } });
    expect(r.status).toBe(201);
    expect(r.body.id).toMatch(/^pay_[0-9A-Za-z]{24}$/);
    expect(r.body.status).toBe('pending');
    expect(r.body.checkout_url).toBe(`${s.url.replace('127.0.0.1', 'localhost')}/pay/${r.body.id}`);
    expect(r.body).toMatchObject({
      object: 'payment',
      amount: 5000,
      currency: 'KES',
      rate: '129.25',
      // 5000 / 129.25 = 38.684719... rounded half up at 6 decimals.
      stablecoin_amount: '38.68472',
      stablecoin_amount_base_units: '38684720',
      reference: 'order-1',
      metadata: { order: 1, gift: true, note: 'x' },
      expires_in_minutes: 60,
    });
    expect(Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)).toBe(60 * 60_000);
    // The response matches the documented schema exactly (no undocumented fields).
    PaymentResource.strict().parse(r.body);
  });

  it('converts without floating point: 0.1 + 0.2 style amounts stay exact', async () => {
    const r = await create({ ...base, amount: 19.99, currency: 'EUR' });
    expect(r.status).toBe(201);
    // 19.99 / 0.9210 = 21.704668838...
    expect(r.body.stablecoin_amount_base_units).toBe('21704669');
    const usdc = await create({ ...base, amount: 0.000001, currency: 'USDC' });
    expect(usdc.status).toBe(201);
    expect(usdc.body.stablecoin_amount_base_units).toBe('1');
  });

  describe('limits (interface 8) at the boundary and one past it', () => {
    it('amount: 1,000,000,000 ok; 1,000,000,000.01, 0 and negative rejected', async () => {
      expect((await withField('amount', 1_000_000_000)).status).toBe(201);
      expectInvalid(await withField('amount', 1_000_000_000.01), 'amount', /at most 1,000,000,000/);
      expectInvalid(await withField('amount', 0), 'amount', /positive/);
      expectInvalid(await withField('amount', -5), 'amount', /positive/);
      expectInvalid(await withField('amount', '25'), 'amount', /number/);
    });

    it('amount: more decimals than the currency allows is rejected, naming amount', async () => {
      expectInvalid(await withField('amount', 1.001), 'amount', /decimal places than USD allows/);
      expectInvalid(await create({ ...base, currency: 'UGX', amount: 1500.5 }), 'amount', /UGX/);
      expect((await create({ ...base, currency: 'UGX', amount: 1500 })).status).toBe(201);
      // One wording for one mistake, whatever form the number came in (h16tour).
      const tiny = await withField('amount', 1e-7);
      expectInvalid(tiny, 'amount');
      expect(tiny.body.error.message).toBe('Amount has more decimal places than USD allows (2).');
      expect((await withField('amount', 1.001)).body.error.message).toBe(tiny.body.error.message);
    });

    it('currency: 2 and 8 characters pass the length rule, 1 and 9 do not', async () => {
      // No 2- or 8-letter currency is listed, so those reach the currency lookup instead.
      expectInvalid(await withField('currency', 'XX'), 'currency', /Unsupported currency: XX/);
      expectInvalid(await withField('currency', 'ABCDEFGH'), 'currency', /Unsupported currency: ABCDEFGH/);
      expectInvalid(await withField('currency', 'X'), 'currency', /2-8 characters/);
      expectInvalid(await withField('currency', 'ABCDEFGHI'), 'currency', /2-8 characters/);
      expect((await withField('currency', 'usdc')).body.currency).toBe('USDC');
    });

    it('reference: 64 ok, 65 rejected', async () => {
      expect((await withField('reference', 'r'.repeat(64))).status).toBe(201);
      expectInvalid(await withField('reference', 'r'.repeat(65)), 'reference', /at most 64/);
    });

    it('merchant_name: 80 ok, 81 rejected', async () => {
      expect((await withField('merchant_name', 'n'.repeat(80))).status).toBe(201);
      expectInvalid(await withField('merchant_name', 'n'.repeat(81)), 'merchant_name', /at most 80/);
    });

    it('description: 300 ok, 301 rejected', async () => {
      expect((await withField('description', 'd'.repeat(300))).status).toBe(201);
      expectInvalid(await withField('description', 'd'.repeat(301)), 'description', /at most 300/);
    });

    it('expires_in_minutes: 1 and 1440 ok; 0, 1441 and 1.5 rejected; default 60', async () => {
      const one = await withField('expires_in_minutes', 1);
      expect(one.status).toBe(201);
      expect(Date.parse(one.body.expires_at) - Date.parse(one.body.created_at)).toBe(60_000);
      const max = await withField('expires_in_minutes', 1440);
      expect(max.status).toBe(201);
      expect(max.body.expires_in_minutes).toBe(1440);
      expectInvalid(await withField('expires_in_minutes', 0), 'expires_in_minutes', /between 1 and 1440/);
      expectInvalid(await withField('expires_in_minutes', 1441), 'expires_in_minutes', /between 1 and 1440/);
      expectInvalid(await withField('expires_in_minutes', 1.5), 'expires_in_minutes', /whole number/);
    });

    it('metadata: 50 keys, 40-character keys and 500-character strings ok; one more of each rejected', async () => {
      const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
      expect((await withField('metadata', fifty)).status).toBe(201);
      expectInvalid(await withField('metadata', { ...fifty, k50: 1 }), 'metadata', /at most 50 keys/);
      expect((await withField('metadata', { ['k'.repeat(40)]: 'v'.repeat(500) })).status).toBe(201);
      expectInvalid(await withField('metadata', { ['k'.repeat(41)]: 1 }), `metadata.${'k'.repeat(41)}`, /at most 40/);
      expectInvalid(await withField('metadata', { note: 'v'.repeat(501) }), 'metadata.note', /at most 500/);
      expectInvalid(await withField('metadata', { nested: { a: 1 } }), 'metadata.nested', /strings, numbers or booleans/);
      expectInvalid(await withField('metadata', { list: [1] }), 'metadata.list');
      expectInvalid(await withField('metadata', [1, 2]), 'metadata');
    });

    it('metadata keys __proto__, constructor and prototype are refused by name (never silently dropped)', async () => {
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        // JSON.parse keeps "__proto__" as an own key, as a client's JSON body does.
        const metadata = JSON.parse(`{"${key}": "x", "order": 1}`);
        expectInvalid(await withField('metadata', metadata), `metadata.${key}`, new RegExp(`"${key}" is reserved`));
      }
    });
  });

  it('payout_address must be a 0x EVM address (interface 4.1 message)', async () => {
    expectInvalid(await withField('payout_address', '0x123'), 'payout_address', /must be a 0x EVM address/);
    expectInvalid(await withField('payout_address', 'not-an-address'), 'payout_address', /must be a 0x EVM address/);
    const ok = await withField('payout_address', '0x52908400098527886E0F7030069857D2E4169EE7');
    expect(ok.status).toBe(201);
    expect(ok.body.payout_address).toBe('0x52908400098527886E0F7030069857D2E4169EE7');
  });

  it('redirect_url and webhook_url must be http(s) URLs; required fields are named when missing', async () => {
    expectInvalid(await withField('redirect_url', 'javascript:alert(1)'), 'redirect_url');
    expectInvalid(await withField('redirect_url', 'not a url'), 'redirect_url');
    expectInvalid(await withField('webhook_url', 'ftp://x.example/hook'), 'webhook_url');
    // A valid URL over 2048 characters is named as too long, not as invalid (h17tour).
    const long = `https://shop.example/${'a'.repeat(2100)}`;
    expectInvalid(await withField('redirect_url', long), 'redirect_url', /^Invalid redirect_url: must be at most 2048 characters$/);
    expectInvalid(await withField('webhook_url', long), 'webhook_url', /must be at most 2048 characters$/);
    expect((await withField('redirect_url', `https://shop.example/${'a'.repeat(2048 - 21)}`)).status).toBe(201);
    for (const [method, path] of [['PUT', 'webhook-endpoint'], ['POST', 'webhook-endpoints']] as const) {
      const r = await call(`${s.api}/${path}`, { method, key: m.key, body: { url: long } });
      expectInvalid(r, 'url', /must be at most 2048 characters$/);
    }
    expectInvalid(await create({ currency: 'USD', redirect_url: base.redirect_url }), 'amount', /Missing required param: amount/);
    expectInvalid(await create({ amount: 1, redirect_url: base.redirect_url }), 'currency', /Missing required param: currency/);
    expectInvalid(await create({ amount: 1, currency: 'USD' }), 'redirect_url', /Missing required param: redirect_url/);
  });

  it('rejects unknown fields, naming them', async () => {
    expectInvalid(await withField('amount_cents', 100), 'amount_cents', /unknown parameter/);
  });

  // h17tour: JSON can write a lone surrogate ("\ud800"); PostgreSQL refused it with a 500, lowdb
  // stored it (and sent it on in webhooks). Now a 400 on both stores, and nothing is stored.
  it('a lone surrogate in any text of the body is a 400 invalid_request_error, never a 500', async () => {
    const bodies = [
      { ...base, merchant_name: 'Shop \ud800' },
      { ...base, description: '\udc00 tail' },
      { ...base, reference: 'ord-\ud83d' },
      { ...base, metadata: { note: 'x\udfff' } },
      { ...base, metadata: { ['k\ud800']: 'v' } },
    ];
    for (const body of bodies) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toEqual({ type: 'invalid_request_error', message: expect.stringMatching(/valid Unicode/) });
    }
    // A whole pair is one character, accepted as ever.
    const pair = await create({ ...base, merchant_name: 'Shop \ud83d\ude80' });
    expect(pair.status).toBe(201);
    expect(pair.body.merchant_name).toBe('Shop 🚀');
  });
});

describe('reference dedupe', () => {
  it('the same reference with the same body returns the existing payment (200)', async () => {
    const body = { ...base, reference: 'dedupe-1', metadata: { a: 1, b: 2 } };
    const first = await create(body);
    expect(first.status).toBe(201);
    // Key order and currency case do not make a different body.
    const again = await create({ metadata: { b: 2, a: 1 }, reference: 'dedupe-1', redirect_url: base.redirect_url, currency: 'USD', amount: 25 });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
  });

  it('the same reference with a different body is a 409 naming reference', async () => {
    await create({ ...base, reference: 'dedupe-2' });
    const r = await create({ ...base, amount: 26, reference: 'dedupe-2' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'reference' });
  });

  it('references are per account: another merchant may use the same one', async () => {
    await create({ ...base, reference: 'shared-ref' });
    const other = await createMerchant(s.api, 'Other');
    const r = await create({ ...base, reference: 'shared-ref' }, {}, other.key);
    expect(r.status).toBe(201);
  });
});

describe('Idempotency-Key', () => {
  it('the same key and body replay the first response; a different body is a 409', async () => {
    const key = `idem-${Date.now()}`;
    const first = await create(base, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await create(base, { 'Idempotency-Key': key });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const conflict = await create({ ...base, amount: 30 }, { 'Idempotency-Key': key });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.type).toBe('invalid_request_error');
    // Without the key, the same body makes a new payment.
    const fresh = await create(base);
    expect(fresh.body.id).not.toBe(first.body.id);
  });

  it('concurrent retries with one key create exactly one payment', async () => {
    const key = `race-${Date.now()}`;
    const results = await Promise.all(Array.from({ length: 8 }, () => create({ ...base, amount: 31 }, { 'Idempotency-Key': key })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  });

  it('keys are scoped to the account', async () => {
    const key = `scoped-${Date.now()}`;
    const other = await createMerchant(s.api, 'Other 2');
    const a = await create(base, { 'Idempotency-Key': key });
    const b = await create(base, { 'Idempotency-Key': key }, other.key);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('rejects a malformed key, naming the header', async () => {
    expectInvalid(await create(base, { 'Idempotency-Key': 'x'.repeat(256) }), 'Idempotency-Key');
  });
});

describe('GET /api/v1/payments/:id and GET /api/v1/payments', () => {
  it('reads the full record, including metadata', async () => {
    const created = await create({ ...base, metadata: { order: 'A-1' }, webhook_url: 'https://shop.example/hooks', description: 'Socks' });
    const r = await call(`${s.api}/v1/payments/${created.body.id}`, { key: m.key });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(created.body);
    expect(r.body).toMatchObject({ metadata: { order: 'A-1' }, webhook_url: 'https://shop.example/hooks', description: 'Socks' });
  });

  it('an unknown id is a 404 in the developer error shape', async () => {
    const r = await call(`${s.api}/v1/payments/pay_doesnotexist000000000000`, { key: m.key });
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe('invalid_request_error');
    expect(r.body.error.message).toMatch(/No such payment/);
  });

  it('lists newest first and pages with limit and starting_after without gaps or repeats', async () => {
    const shop = await createMerchant(s.api, 'Lister');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await create({ ...base, reference: `L${i}` }, {}, shop.key)).body.id);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const q = new URLSearchParams({ limit: '3', ...(after ? { starting_after: after } : {}) });
      const page = await call(`${s.api}/v1/payments?${q}`, { key: shop.key });
      expect(page.status).toBe(200);
      expect(page.body.object).toBe('list');
      seen.push(...page.body.data.map((p: { id: string }) => p.id));
      if (!page.body.has_more) break;
      after = page.body.data.at(-1).id;
    }
    expect(seen).toEqual([...ids].reverse());
    const first = await call(`${s.api}/v1/payments?limit=2`, { key: shop.key });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const all = await call(`${s.api}/v1/payments?limit=100`, { key: shop.key });
    expect(all.body.has_more).toBe(false);
    expect((await call(`${s.api}/v1/payments`, { key: shop.key })).body.data).toHaveLength(7); // default 10
  });

  it('filters by reference and by status', async () => {
    const shop = await createMerchant(s.api, 'Filter');
    const a = await create({ ...base, reference: 'F-a' }, {}, shop.key);
    await create({ ...base, reference: 'F-b' }, {}, shop.key);
    const byRef = await call(`${s.api}/v1/payments?reference=F-a`, { key: shop.key });
    expect(byRef.body.data.map((p: { id: string }) => p.id)).toEqual([a.body.id]);
    const pending = await call(`${s.api}/v1/payments?status=pending`, { key: shop.key });
    expect(pending.body.data).toHaveLength(2);
    const settled = await call(`${s.api}/v1/payments?status=settled`, { key: shop.key });
    expect(settled.body.data).toEqual([]);
  });

  it('validates the query, naming the parameter', async () => {
    expectInvalid(await call(`${s.api}/v1/payments?limit=0`, { key: m.key }), 'limit', /between 1 and 100/);
    expectInvalid(await call(`${s.api}/v1/payments?limit=101`, { key: m.key }), 'limit');
    expectInvalid(await call(`${s.api}/v1/payments?limit=abc`, { key: m.key }), 'limit');
    expectInvalid(await call(`${s.api}/v1/payments?status=paid`, { key: m.key }), 'status');
    expectInvalid(await call(`${s.api}/v1/payments?colour=red`, { key: m.key }), 'colour', /unknown parameter/);
    expectInvalid(await call(`${s.api}/v1/payments?starting_after=pay_unknown`, { key: m.key }), 'starting_after');
    expect((await call(`${s.api}/v1/payments?limit=100`, { key: m.key })).status).toBe(200);
  });
});
