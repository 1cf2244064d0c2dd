/**
 * A test key's checkout session tells the customer it is a test (h15tour): before, a test-mode
 * page looked exactly like a live one, so someone sent a test link could believe they paid for
 * real. Real Chromium at desktop and phone sizes, a real service on its embedded anvil; the test
 * payment is paid with the page's test wallet and its receipt keeps the notice. A live key's page
 * has none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { call } from '../helpers/service.js';
import { SIZES, launchBrowser, screenshot } from '../web/browser.js';
import { axeViolations } from '../web/a11y.js';
import { createPayment, setup, type Ctx } from '../settlement/helpers.js';

describe('checkout page: test mode says so (Chromium)', () => {
  let ctx: Ctx;
  let browser: Browser;
  let testKey: string;

  beforeAll(async () => {
    ctx = await setup();
    browser = await launchBrowser();
    testKey = (await call(`${ctx.svc.api}/keys`, { cookie: ctx.merchant.cookie, body: { label: 'sandbox', mode: 'test' } })).body.key.secret;
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.svc.stop({ removeData: true });
  });

  for (const size of SIZES) {
    it(`${size.name}: a test payment's page and receipt carry the notice; a live one's does not`, async () => {
      const made = await call(`${ctx.svc.api}/v1/payments`, { key: testKey, body: { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/thanks' } });
      expect(made.status).toBe(201);
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, baseURL: ctx.svc.url });
      try {
        const page = await context.newPage();
        await page.route('https://shop.example/**', (r) => r.fulfill({ status: 204 }));
        await page.goto(`/pay/${made.body.id}`);
        const notice = page.locator('#test-mode');
        expect(await notice.isVisible()).toBe(true);
        expect(await notice.innerText()).toBe('Test mode. This is a test payment on a test network: no real money moves.');
        // Above the heading: read before anything else.
        const [n, h] = await Promise.all([notice.boundingBox(), page.locator('h1').boundingBox()]);
        expect(n!.y).toBeLessThan(h!.y);
        expect(await axeViolations(page)).toEqual([]);
        await screenshot(page, `checkout-test-mode-${size.name}`);
        await page.locator('#pay-test').click();
        await page.getByRole('heading', { level: 1, name: 'Paid to Acme Books' }).waitFor({ timeout: 60_000 });
        expect(await page.locator('#test-mode').isVisible()).toBe(true);

        const live = await createPayment(ctx);
        await page.goto(`/pay/${live.id}`);
        await page.locator('h1').waitFor();
        expect(await page.locator('#test-mode').count()).toBe(0);
      } finally {
        await context.close();
      }
    }, 120_000);
  }
});
