/**
 * Issue 27, the dashboard as a merchant selling from it, at 1280x800 and 390x844: New payment
 * creates a payment and shows its link with Copy (and Open); the pending payment's page offers
 * the same link to share; times carry their zone; the search placeholder is not cut; on a phone
 * the Assistant is a bar at the bottom edge that leaves every card readable; nothing overflows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.js';
import { SIZES, launchBrowser, newPage, realErrors, screenshot, signUpThroughUi } from './browser.js';
import { layoutProblems } from './layout.js';
import { axeViolations } from './a11y.js';

const TIME = /\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC/;

describe('Dashboard: sell from it (Chromium)', () => {
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    service = await startTestService();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop({ removeData: true });
  });

  for (const size of SIZES) {
    it(`${size.name}: New payment gives a link to copy; the payment page shares it; everything fits`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, size);
      await signUpThroughUi(page, `Seller ${size.name}`);
      // The search placeholder is shown whole.
      expect(await page.locator('#f-q').evaluate((i: HTMLInputElement) => i.scrollWidth <= i.clientWidth)).toBe(true);

      await page.getByLabel('Amount', { exact: true }).fill('25');
      await page.getByLabel('Description (optional)').fill('Haircut and beard trim');
      await page.getByLabel('Your reference (optional)').fill(`cut-${size.name}`);
      await page.getByRole('button', { name: 'Create payment link' }).click();
      await page.locator('#np-result').waitFor();
      const link = (await page.locator('#np-link-value').innerText()).trim();
      expect(link).toMatch(/^http:\/\/(localhost|127\.0\.0\.1):\d+\/pay\/pay_/);
      await expect(page.locator('#np-status').innerText()).resolves.toMatch(TIME);
      await page.getByRole('button', { name: 'Copy link' }).click();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(link);
      await page.locator('#payments-table tbody tr', { hasText: `cut-${size.name}` }).waitFor();
      await screenshot(page, `dashboard-27-${size.name}-new-payment`);
      expect(await layoutProblems(page, 'main')).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);

      // Scrolled to the very bottom, the last card ends above the Assistant.
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const clear = await page.evaluate(() => {
        const cards = Array.from(document.querySelectorAll('main .card'));
        const last = cards.at(-1)!.getBoundingClientRect();
        const toggle = document.getElementById('chat-toggle')!.getBoundingClientRect();
        return last.bottom <= toggle.top + 1;
      });
      expect(clear).toBe(true);

      // The pending payment's page: the same link, to copy or share.
      const id = link.split('/pay/')[1]!;
      await page.goto(`/app/payments/${id}`);
      await expect(page.locator('#pay-link-value').innerText()).resolves.toBe(link);
      await expect(page.locator('#pay-link-open').getAttribute('href')).resolves.toBe(link);
      await expect(page.locator('main').innerText()).resolves.toMatch(TIME);
      expect(await page.locator('main').innerText()).not.toMatch(/\d{4}-\d\d-\d\dT/);
      await screenshot(page, `payment-27-${size.name}-pending`);
      expect(await layoutProblems(page, 'main')).toEqual([]);

      // Paid, then partly refunded: the refund's amount stays in its value column on a phone.
      expect((await page.request.post(`/api/dev/test-wallet-pay/${id}`)).status()).toBe(200);
      const refund = await page.request.post(`/api/app/payments/${id}/refunds`, { data: { amount: 5 }, headers: { origin: service.url } });
      expect(refund.status(), await refund.text()).toBeLessThan(300);
      await page.goto(`/app/payments/${id}`);
      const cell = page.locator('tr[data-refund-id] td[data-label="Amount"]').first();
      await cell.waitFor();
      const [amount, sub] = await Promise.all([cell.locator('.amount').boundingBox(), cell.locator('.sub').boundingBox()]);
      expect(Math.abs(amount!.x - sub!.x)).toBeLessThan(2); // both in the value column, one under the other
      await screenshot(page, `payment-27-${size.name}-refunded`);
      expect(await layoutProblems(page, 'main')).toEqual([]);
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    });
  }
});
