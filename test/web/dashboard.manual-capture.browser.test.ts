/**
 * Issue 25 point 7 (app): manual-capture payments on the dashboard and the payment page, in real
 * Chromium against a real service on its embedded anvil. Payments are authorized by the
 * unmodified @x402/evm AuthCaptureEvmScheme client and captured or voided through the API: the
 * list shows `authorized` / `captured` / `voided` chips and what is held, the status filter
 * offers them, and the payment page shows the held, captured and voided amounts (axe-clean).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { x402Client, wrapFetchWithPayment } from '@x402/fetch';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { newPayer } from '../x402/helpers.js';
import { launchBrowser, newPage, realErrors, signUpThroughUi } from './browser.js';
import { axeViolations } from './a11y.js';

describe('manual capture in the app (Chromium)', () => {
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    service = await startTestService({ RECONCILE_INTERVAL: '1h' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop({ removeData: true });
  });

  /** A manual-capture payment of `amount` USD, authorized by an agent: held in escrow. */
  async function authorized(key: string, amount: number, reference: string): Promise<string> {
    const r = await call(`${service.api}/v1/payments`, { key, body: { amount, currency: 'USD', reference, redirect_url: 'https://shop.example/done', capture_method: 'manual' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const payer = newPayer();
    expect((await service.deps.chain.faucet(payer.address, BigInt(amount * 1e6), { nativeAmount: 0n })).ok).toBe(true);
    const network = `eip155:${service.deps.chain.chainId}` as const;
    const client = x402Client.fromConfig({
      schemes: [{ network, client: new AuthCaptureEvmScheme(payer as never) }],
      spendControls: { allowedAssets: [{ network, asset: service.deps.chain.tokenAddress, maxAmountPerPayment: '100000000' }] },
    });
    const paid = await wrapFetchWithPayment(fetch, client)(service.url + new URL(r.body.x402_url).pathname);
    expect(paid.status, await paid.clone().text()).toBe(200);
    return r.body.id as string;
  }

  it('lists authorized, captured and voided payments with what is held, and shows the amounts on the payment page', async () => {
    const { context, page, consoleErrors } = await newPage(browser, service.url, { width: 1280, height: 800 });
    await signUpThroughUi(page, 'Held Goods');
    const created = await page.request.post('/api/keys', { data: { label: 'server' } });
    const key = ((await created.json()) as { key: { secret: string } }).key.secret;

    const held = await authorized(key, 2, 'order-held');
    const part = await authorized(key, 2, 'order-part');
    const gone = await authorized(key, 1.5, 'order-gone');
    expect((await call(`${service.api}/v1/payments/${part}/capture`, { key, body: { amount: 0.75 } })).status).toBe(200);
    expect((await call(`${service.api}/v1/payments/${gone}/void`, { key, body: {} })).status).toBe(200);

    await page.goto('/app');
    await page.locator('#payments-body tr').nth(2).waitFor();
    const row = (id: string) => page.locator(`#payments-body tr[data-payment-id="${id}"]`);
    await expect(row(held).locator('.badge').innerText()).resolves.toBe('authorized');
    await expect(row(part).locator('.badge').innerText()).resolves.toBe('captured');
    await expect(row(gone).locator('.badge').innerText()).resolves.toBe('voided');
    await expect(row(held).innerText()).resolves.toContain('2.00 USDC held');
    const partText = await row(part).innerText();
    expect(partText).toContain('1.25 USDC held');
    expect(partText).toContain('0.75 USDC captured');
    await expect(row(gone).innerText()).resolves.toContain('1.50 USDC voided');
    expect(await axeViolations(page)).toEqual([]);

    // The status filter offers the new states.
    await page.getByLabel('Status').selectOption('authorized');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL('**status=authorized**');
    await page.locator('#payments-status', { hasText: 'Showing 1 of 1 payment matching the filters' }).waitFor();
    expect(await page.locator('#payments-body tr').first().getAttribute('data-payment-id')).toBe(held);

    // The payment page: held, captured and voided, the automatic void's time, and how to act on the hold.
    await page.goto(`/app/payments/${part}`);
    await expect(page.locator('.payment-head .badge').innerText()).resolves.toBe('captured');
    await expect(page.locator('#d-held').innerText()).resolves.toMatch(/^1\.25 USDC\s+voided automatically at \S/);
    await expect(page.locator('#d-captured').innerText()).resolves.toBe('0.75 USDC');
    await expect(page.locator('#d-voided').innerText()).resolves.toContain('0.00 USDC');
    await expect(page.locator('#hold-box').innerText()).resolves.toContain(`capture ${part}`);
    await expect(page.locator('section[aria-labelledby="timeline-title"]').innerText()).resolves.toContain('Authorized: held in escrow');
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`/app/payments/${gone}`);
    await expect(page.locator('.payment-head .badge').innerText()).resolves.toBe('voided');
    await expect(page.locator('#d-held').innerText()).resolves.toBe('0.00 USDC');
    await expect(page.locator('#d-voided').innerText()).resolves.toContain('1.50 USDC');
    expect(await page.locator('#hold-box').count()).toBe(0);

    // A payment with no manual capture shows none of it.
    const plain = await call(`${service.api}/v1/payments`, { key, body: { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/done' } });
    await page.goto(`/app/payments/${plain.body.id}`);
    expect(await page.locator('#d-held').count()).toBe(0);

    expect(realErrors(consoleErrors)).toEqual([]);
    await context.close();
  });
});
