import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type TestService } from '../helpers/service.js';

// Issue 3: the custodial wallet appears on /api/me and in the authenticated payment record.
describe('where a payment settles to', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc.stop({ removeData: true });
  });

  const body = { amount: 10, currency: 'USD', redirect_url: 'https://shop.example/done' };

  it("is the merchant's custodial wallet, as /api/me shows it, when no payout address is set", async () => {
    const m = await createMerchant(svc.api);
    const me = await call(`${svc.api}/me`, { cookie: m.cookie });
    const wallet = me.body.account.wallet.address as string;
    expect(wallet).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const created = await call(`${svc.api}/v1/payments`, { key: m.key, body });
    expect(created.status).toBe(201);
    expect(created.body.pay_to).toBe(wallet);
    const read = await call(`${svc.api}/v1/payments/${created.body.id}`, { key: m.key });
    expect(read.body.pay_to).toBe(wallet);
  });

  it('is the payout address when one is given, and never shows on the public checkout view', async () => {
    const m = await createMerchant(svc.api);
    const payout = '0x000000000000000000000000000000000000dEaD';
    const created = await call(`${svc.api}/v1/payments`, { key: m.key, body: { ...body, payout_address: payout } });
    expect(created.body.pay_to).toBe(payout);
    const view = await call(`${svc.api}/checkout/${created.body.id}`);
    expect(JSON.stringify(view.body)).not.toContain('pay_to');
    expect(view.body.payment.hasPayout).toBe(true);
  });
});
