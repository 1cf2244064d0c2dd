/**
 * Issue 24: the Developers screen shows which mode each key is and switches its views between
 * live and test data (real Chromium). A test key made on the screen is `sk_test_`; the webhook
 * endpoint a test key added appears only under "Test data", the live one only under "Live data", and
 * so do the delivery log's rows (each key's canceled payment's `payment.canceled` delivery).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { launchBrowser, newPage, realErrors, screenshot, signUpThroughUi } from './browser.js';

describe('Developers screen: live and test mode (Chromium)', () => {
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let consoleErrors: string[];
  const paymentOf = { live: '', test: '' };
  /** The delivery log shows the deliveries of the viewed mode only. */
  async function deliveriesShow(mode: 'live' | 'test'): Promise<void> {
    const other = mode === 'live' ? 'test' : 'live';
    await page.locator('#deliveries-body tr', { hasText: paymentOf[mode] }).first().waitFor();
    const text = await page.locator('#deliveries-body').textContent();
    expect(text).toContain(`${mode}-hooks`);
    expect(text).not.toContain(paymentOf[other]);
    expect(text).not.toContain(`${other}-hooks`);
  }

  beforeAll(async () => {
    service = await startTestService();
    browser = await launchBrowser();
    ({ context, page, consoleErrors } = await newPage(browser, service.url));
    await signUpThroughUi(page);
    await page.goto('/app/developers');
    await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await service?.stop({ removeData: true });
  });

  it('creates a live and a test key, each shown with its mode', async () => {
    await page.getByLabel('Key label').fill('Server');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#keys-body tr', { hasText: 'Server' }).waitFor();
    const live = (await page.locator('#new-key-value').textContent()) ?? '';
    expect(live).toMatch(/^sk_live_/);
    await page.getByLabel('Key label').fill('Sandbox');
    await page.getByLabel('Mode').selectOption('test');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#keys-body tr', { hasText: 'Sandbox' }).waitFor();
    const test = (await page.locator('#new-key-value').textContent()) ?? '';
    expect(test).toMatch(/^sk_test_/);
    expect(await page.locator('#keys-body tr', { hasText: 'Sandbox' }).locator('[data-mode]').textContent()).toBe('Test');
    expect(await page.locator('#keys-body tr', { hasText: 'Server' }).locator('[data-mode]').textContent()).toBe('Live');

    // Each key adds an endpoint of its own mode.
    expect((await call(`${service.api}/webhook-endpoints`, { key: live, body: { url: 'http://127.0.0.1:9/live-hooks' } })).status).toBe(201);
    expect((await call(`${service.api}/webhook-endpoints`, { key: test, body: { url: 'http://127.0.0.1:9/test-hooks' } })).status).toBe(201);
    // Each key's canceled payment: a payment.canceled delivery to its mode's endpoint only.
    for (const [mode, key] of [['live', live], ['test', test]] as const) {
      const made = await call(`${service.api}/v1/payments`, { key, body: { amount: 1, currency: 'USD', redirect_url: 'https://shop.example/x' } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect((await call(`${service.api}/v1/payments/${made.body.id}/cancel`, { key, method: 'POST', body: {} })).status).toBe(200);
      paymentOf[mode] = made.body.id;
      for (let i = 0; i < 100 && (await call(`${service.api}/webhook-deliveries`, { key })).body.data.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('switches the views between live and test data', async () => {
    await page.reload();
    await page.locator('#endpoints-body tr', { hasText: 'live-hooks' }).waitFor();
    expect(await page.locator('#endpoints-body').textContent()).not.toContain('test-hooks');
    expect(await page.getByLabel('Live data').isChecked()).toBe(true);
    await deliveriesShow('live');

    await page.getByLabel('Test data').check();
    await page.waitForLoadState('load');
    await page.locator('#endpoints-body tr', { hasText: 'test-hooks' }).waitFor();
    expect(await page.locator('#endpoints-body').textContent()).not.toContain('live-hooks');
    expect(await page.getByLabel('Test data').isChecked()).toBe(true);
    await page.locator('#mode-status', { hasText: 'Test data' }).waitFor();
    await deliveriesShow('test');
    await screenshot(page, 'developers-test-mode');

    await page.getByLabel('Live data').check();
    await page.waitForLoadState('load');
    await page.locator('#endpoints-body tr', { hasText: 'live-hooks' }).waitFor();
    expect(await page.locator('#endpoints-body').textContent()).not.toContain('test-hooks');
    await deliveriesShow('live');
    expect(realErrors(consoleErrors)).toEqual([]);
  });
});
