import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { call, createMerchant, startTestService, type TestService } from '../helpers/service.js';
import { createPayment, merchantWallet, setup, usdc, type Ctx } from '../settlement/helpers.js';

describe('dev faucet and test wallet (development)', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await setup();
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  it('mints the stablecoin and sends gas money', async () => {
    const { chain } = ctx.svc.deps;
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const res = await call(`${ctx.svc.api}/dev/faucet`, { body: { address: address.toLowerCase(), amount: '100.5' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true, address, amount: '100.5', amount_base_units: '100500000' });
    expect(res.body.mint_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(address)).toBe(usdc('100.5'));
    expect(await chain.nativeBalance(address)).toBe(parseEther('0.1'));
  });

  it('validates the input with the developer error body', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const bad: Array<[unknown, string]> = [
      [{ address: '0x123', amount: '1' }, 'address'],
      [{ address: '0x0000000000000000000000000000000000000000', amount: '1' }, 'address'],
      [{ address, amount: -1 }, 'amount'],
      [{ address, amount: 0 }, 'amount'],
      [{ address, amount: 1.1234567 }, 'amount'],
      [{ address, amount: 1e21 }, 'amount'],
      [{ address, amount: true }, 'amount'],
      [{ address, amount: '0' }, 'amount'],
      [{ address, amount: '-1' }, 'amount'],
      [{ address, amount: '1.1234567' }, 'amount'],
      [{ address, amount: '1000000.000001' }, 'amount'],
      [{ address, amount: '1e3' }, 'amount'],
      [{ address }, 'amount'],
      [{ address, amount: '1', extra: true }, ''],
    ];
    for (const [body, param] of bad) {
      const res = await call(`${ctx.svc.api}/dev/faucet`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      if (param) expect(res.body.error.param).toBe(param);
    }
    const max = await call(`${ctx.svc.api}/dev/faucet`, { body: { address, amount: '1000000' } });
    expect(max.status).toBe(200);
    const zero = await call(`${ctx.svc.api}/dev/faucet`, { body: { address: '0x0000000000000000000000000000000000000000', amount: '1' } });
    expect(zero.body.error.message).toMatch(/zero address/);
  });

  it('takes amount as a number too, like the payments API', async () => {
    const { chain } = ctx.svc.deps;
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const res = await call(`${ctx.svc.api}/dev/faucet`, { body: { address, amount: 12.75 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ amount: '12.75', amount_base_units: '12750000' });
    expect(await chain.balanceOf(address)).toBe(usdc('12.75'));
  });

  it('pays a checkout with a throwaway test wallet', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx, { amount: 7.25 });
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const res = await call(`${ctx.svc.api}/dev/test-wallet-pay/${pay.id}`, { method: 'POST' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true, payment: { id: pay.id, status: 'settled' } });
    expect(new URL(res.body.redirect).searchParams.get('status')).toBe('settled');
    expect(await chain.balanceOf(to)).toBe(before + usdc('7.25'));

    const again = await call(`${ctx.svc.api}/dev/test-wallet-pay/${pay.id}`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ ok: false, reason: 'already_settled' });
    expect(await chain.balanceOf(to)).toBe(before + usdc('7.25'));

    const unknown = await call(`${ctx.svc.api}/dev/test-wallet-pay/pay_nope00000000000000`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ ok: false, reason: 'not_found' });
  });
});

describe('dev routes in production', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ NODE_ENV: 'production', RECONCILE_INTERVAL: '1h' });
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
  });

  it('are not mounted (404), and the page offers no test wallet', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const faucet = await call(`${svc.api}/dev/faucet`, { body: { address, amount: '1' } });
    expect(faucet.status).toBe(404);
    expect(faucet.body.error.type).toBe('invalid_request_error');
    const pay = await call(`${svc.api}/dev/test-wallet-pay/pay_nope00000000000000`, { method: 'POST' });
    expect(pay.status).toBe(404);
    expect(await svc.deps.chain.balanceOf(address)).toBe(0n);

    const merchant = await createMerchant(svc.api);
    const created = await call(`${svc.api}/v1/payments`, {
      key: merchant.key,
      body: { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/done' },
    });
    const page = await fetch(`${svc.url}/pay/${created.body.id}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('Pay with browser wallet');
    expect(html).not.toContain('test wallet');
  });
});
