import { describe, expect } from 'vitest';
import { call, type Merchant, type TestService } from '../helpers/service.js';
import { merchantServiceTest } from '../helpers/service-fixtures.js';

// Creation rules of src/payments/payment-schemas.ts, checked over HTTP as a merchant sends them.
const it = merchantServiceTest('Schema Shop');
let s: TestService;
let m: Merchant;

it.beforeAll(({ svc, merchant }) => {
  s = svc;
  m = merchant;
});

const base = { amount: 25, currency: 'USD', redirect_url: 'https://shop.example/thanks' };
const create = (body: unknown) => call(`${s.api}/v1/payments`, { key: m.key, body });

describe('payout_address (interface 4.1: the message says it must be a 0x EVM address)', () => {
  it.each([12, null, true, { address: '0x' }])('a payout_address of the wrong type (%j) says so', async (value) => {
    const r = await create({ ...base, payout_address: value });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'payout_address' });
    expect(r.body.error.message).toMatch(/payout_address must be a 0x EVM address/);
  });

  it('refuses the zero address: the token refuses transfers to it, so the payment could never settle', async () => {
    const r = await create({ ...base, payout_address: '0x' + '0'.repeat(40) });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'payout_address' });
    expect(r.body.error.message).toMatch(/must be a 0x EVM address/);
    expect(r.body.error.message).toMatch(/zero address/);
  });
});

describe('merchant_name (interface 2.2: merchantName is the name shown to the customer)', () => {
  it.each(['', '   '])('a blank merchant_name (%j) shows the account name on the checkout view and page', async (name) => {
    const r = await create({ ...base, merchant_name: name });
    expect(r.status).toBe(201);
    expect(r.body.merchant_name).toBeNull();
    const view = await call(`${s.api}/checkout/${r.body.id}`);
    expect(view.body.payment.merchantName).toBe('Schema Shop');
    const page = await fetch(`${s.url}/pay/${r.body.id}`);
    expect(await page.text()).toContain('Pay Schema Shop');
  });

  it('a given merchant_name is still shown as sent', async () => {
    const r = await create({ ...base, merchant_name: 'Corner Store' });
    const view = await call(`${s.api}/checkout/${r.body.id}`);
    expect(view.body.payment.merchantName).toBe('Corner Store');
  });
});
