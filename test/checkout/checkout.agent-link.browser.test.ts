/**
 * h16tour: a payment link the agent made (`create_payment_link`, redirect = the merchant's own
 * dashboard) paid by a customer in real Chromium: the customer stays on the receipt, with no
 * countdown and no "Return to …" (before, six seconds after paying they were sent to the
 * merchant's dashboard, which is a log-in page to them). A merchant's own redirect_url still
 * returns. Real service on its embedded anvil; the page's test wallet pays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { call } from '../helpers/service.js';
import { launchBrowser } from '../web/browser.js';
import { setup, type Ctx } from '../settlement/helpers.js';

describe("checkout: the agent's payment link keeps the payer on the receipt (Chromium)", () => {
  let ctx: Ctx;
  let browser: Browser;

  beforeAll(async () => {
    ctx = await setup();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.svc.stop({ removeData: true });
  });

  it('paid, the receipt stays (no return to the dashboard); before paying there is no way "back" to it either', async () => {
    const made = await call(`${ctx.svc.api}/agent/settle`, { key: ctx.merchant.key, body: { message: 'create a payment link for 4 USD for a tshirt' } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.payment.id as string;
    const context = await browser.newContext({ baseURL: ctx.svc.url });
    try {
      const page = await context.newPage();
      await page.goto(`/pay/${id}`);
      expect(await page.locator('#return').count()).toBe(0);
      await page.locator('#pay-test').click();
      await page.getByRole('heading', { level: 1, name: /^Paid to / }).waitFor({ timeout: 60_000 });
      // Longer than the 6-second countdown a merchant's redirect gets.
      await page.waitForTimeout(8_000);
      expect(new URL(page.url()).pathname).toBe(`/pay/${id}`);
      expect(await page.locator('#return').count()).toBe(0);
      expect((await call(`${ctx.svc.api}/checkout/${id}`)).body.payment.status).toBe('settled');
    } finally {
      await context.close();
    }
  }, 120_000);
});
