import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';

// `POST /api/checkout/:id/app-wallet-pay` over real HTTP and the embedded chain: the door calls
// `checkoutSessions.pay(id, { method: 'app-wallet', payer })` (src/checkout-sessions/methods/app-wallet.ts)
// and answers its named refusals and settle's outcomes with their status codes.
describe('paying a checkout session from the signed-in app wallet', () => {
  let svc: TestService;
  let shop: Merchant;
  let customer: Merchant;
  let customerWallet: string;

  beforeAll(async () => {
    svc = await startTestService();
    shop = await createMerchant(svc.api, 'Book Shop');
    customer = await createMerchant(svc.api, 'Pat Customer');
    customerWallet = (await call(`${svc.api}/me`, { cookie: customer.cookie })).body.account.wallet.address;
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
  });

  const newPayment = async (m: Merchant) => {
    const r = await call(`${svc.api}/v1/payments`, { key: m.key, body: { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/done' } });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };
  const payFromWallet = (id: string, cookie = customer.cookie) => call(`${svc.api}/checkout/${id}/app-wallet-pay`, { method: 'POST', cookie, headers: { origin: svc.url } });

  it('402 insufficient_balance from an empty wallet, then 200 settled once funded; 409 already_settled after', async () => {
    const id = await newPayment(shop);
    const empty = await payFromWallet(id);
    expect(empty.status).toBe(402);
    expect(empty.body).toMatchObject({ ok: false, reason: 'insufficient_balance' });
    expect((await call(`${svc.api}/checkout/${id}`)).body.payment.status).toBe('pending');

    const funded = await call(`${svc.api}/dev/faucet`, { body: { address: customerWallet, amount: '10' } });
    expect(funded.status).toBe(200);
    const paid = await payFromWallet(id);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ ok: true, payment: { status: 'settled' } });
    expect(paid.body.redirect).toContain(`payment_id=${id}`);
    expect(paid.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);

    const again = await payFromWallet(id);
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('already_settled');
  });

  it('409 own_payment for a session that settles to the payer\'s own wallet; 404 for no such session; 401 signed out', async () => {
    const own = await newPayment(customer);
    const r = await payFromWallet(own);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ ok: false, reason: 'own_payment' });
    const missing = await payFromWallet('pay_doesnotexist00000000');
    expect(missing.status).toBe(404);
    expect(missing.body.reason).toBe('not_found');
    expect((await call(`${svc.api}/checkout/${own}/app-wallet-pay`, { method: 'POST' })).status).toBe(401);
  });
});
