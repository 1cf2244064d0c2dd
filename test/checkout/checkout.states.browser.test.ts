/**
 * Issue 15 item 6, the checkout page in every state at 1280x800 and 390x844 (headings, titles,
 * axe, no sideways scrolling, screenshots in test/artifacts), and a customer who pays with the
 * keyboard alone, settling on the embedded chain. Real Chromium against a real service.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call } from '../helpers/service.js';
import { SIZES, launchBrowser, screenshot } from '../web/browser.js';
import { axeViolations } from '../web/a11y.js';
import { createPayment, merchantWallet, paymentRecord, setup, until, type Ctx } from '../settlement/helpers.js';

const SHOP = 'https://shop.example';
describe('checkout page states and keyboard (Chromium)', () => {
  let ctx: Ctx;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    ctx = await setup();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.svc.stop({ removeData: true });
  });
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
    expect(problems.splice(0)).toEqual([]);
  });

  async function open(size: (typeof SIZES)[number]): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, baseURL: ctx.svc.url });
    contexts.push(context);
    await context.route(`${SHOP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Shop</title><h1>Shop</h1>' }));
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
    });
    return page;
  }

  /** The page's heading, title, no pay controls, fits the width, passes axe; a screenshot is kept. */
  async function checkState(page: Page, shot: string, heading: string, title: string) {
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(heading);
    await expect(page.title()).resolves.toBe(title);
    expect(await page.locator('main').innerText()).not.toMatch(/You pay|Pay Acme/);
    expect(await page.getByRole('button', { name: /^Pay / }).count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await screenshot(page, `checkout-${shot}`);
    expect(await axeViolations(page)).toEqual([]);
  }

  for (const size of SIZES) {
    it(`${size.name}: canceled, refunded, processing, failed and unknown pages say what happened`, async () => {
      const page = await open(size);

      const canceled = await createPayment(ctx, { redirect_url: `${SHOP}/back` });
      expect((await call(`${ctx.svc.api}/v1/payments/${canceled.id}/cancel`, { method: 'POST', key: ctx.merchant.key })).status).toBe(200);
      await page.goto(`/pay/${canceled.id}`);
      await checkState(page, `${size.name}-canceled`, 'Payment canceled', 'Payment canceled · Acme Books');
      await expect(page.locator('#status').innerText()).resolves.toMatch(/canceled this payment on .+ UTC\. Nothing was charged/);
      const back = new URL((await page.getByRole('link', { name: 'Return to Acme Books' }).getAttribute('href'))!);
      expect(back.searchParams.get('status')).toBe('canceled');

      // Paid, then refunded in full by the merchant: the receipt stays, the heading says so.
      const refunded = await createPayment(ctx, { redirect_url: `${SHOP}/back` });
      expect((await call(`${ctx.svc.api}/dev/test-wallet-pay/${refunded.id}`, { method: 'POST' })).status).toBe(200);
      const refund = await call(`${ctx.svc.api}/v1/payments/${refunded.id}/refunds`, { method: 'POST', key: ctx.merchant.key, body: {} });
      expect(refund.status, JSON.stringify(refund.body)).toBeLessThan(300);
      await until(async () => (await paymentRecord(ctx, refunded.id)).status === 'refunded', 'refunded');
      await page.goto(`/pay/${refunded.id}`);
      await checkState(page, `${size.name}-refunded`, 'Refunded by Acme Books', 'Refunded by Acme Books');
      await page.locator('#receipt').waitFor();
      await expect(page.locator('#pay-label').innerText()).resolves.toBe('Paid');

      // Sent to the chain, not yet confirmed: no way to pay again, no way back mid-flight.
      const processing = await createPayment(ctx, { redirect_url: `${SHOP}/back` });
      await ctx.svc.deps.payments.transition(processing.id, 'pending', 'processing', { payer: '0x000000000000000000000000000000000000dEaD' });
      await page.goto(`/pay/${processing.id}`);
      await checkState(page, `${size.name}-processing`, 'Confirming your payment', 'Confirming your payment · Acme Books');
      expect(await page.getByRole('link', { name: /Return to/ }).count()).toBe(0);

      const failed = await createPayment(ctx, { redirect_url: `${SHOP}/back` });
      await ctx.svc.deps.payments.transition(failed.id, 'pending', 'processing', { payer: '0x000000000000000000000000000000000000dEaD' });
      await ctx.svc.deps.payments.transition(failed.id, 'processing', 'failed', { failureReason: 'reverted' });
      await page.goto(`/pay/${failed.id}`);
      await checkState(page, `${size.name}-failed`, 'Payment failed', 'Payment failed · Acme Books');
      await page.getByRole('link', { name: 'Return to Acme Books' }).waitFor();

      const res = await page.goto('/pay/pay_doesnotexist000000000');
      expect(res?.status()).toBe(404);
      await checkState(page, `${size.name}-not-found`, 'Payment not found', 'Payment not found');
    });
  }

  it('a customer without an account signs up from the checkout and comes back to pay from the new wallet', async () => {
    const pay = await createPayment(ctx, { amount: 3, currency: 'USD', redirect_url: `${SHOP}/new` });
    const page = await open(SIZES[1]);
    await page.goto(`/pay/${pay.id}`);
    await page.getByRole('link', { name: 'Sign in to pay from your StablePay wallet' }).click();
    await page.locator('#checkout-note', { hasText: 'you will be taken back to the payment page' }).waitFor();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL(`**/app/signup?next=${encodeURIComponent(`/pay/${pay.id}`)}`);
    await page.locator('#checkout-note').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Business name').fill('New Customer');
    await page.getByLabel('Email').fill(`new${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`**/pay/${pay.id}`);
    // Signed in now: the page offers the new (empty) wallet and says it is not enough yet.
    await expect(page.locator('#app-wallet-hint').innerText()).resolves.toBe('Signed in as New Customer · balance 0.00 USDC, not enough for this payment');
    await page.getByRole('button', { name: 'Pay 3.00 USDC from your StablePay wallet' }).waitFor();
    await screenshot(page, 'checkout-phone-after-signup');

    // The way back from the sign-up page keeps the payment too.
    const other = await open(SIZES[0]);
    await other.goto(`/app/signup?next=${encodeURIComponent(`/pay/${pay.id}`)}`);
    expect(await other.getByRole('link', { name: 'Log in' }).last().getAttribute('href')).toBe(`/app/login?next=${encodeURIComponent(`/pay/${pay.id}`)}`);
  });

  for (const size of SIZES) {
    it(`${size.name}: keyboard alone: every control is reachable and named, and paying settles on-chain`, async () => {
      const pay = await createPayment(ctx, { amount: 7.25, currency: 'USD', redirect_url: `${SHOP}/keys` });
      const to = await merchantWallet(ctx);
      const before = await ctx.svc.deps.chain.balanceOf(to);
      const page = await open(size);
      await page.goto(`/pay/${pay.id}`);

      const stops: string[] = [];
      const focused = () =>
        page.evaluate(() => {
          const a = document.activeElement as HTMLElement;
          return { id: a.id, tag: a.tagName, name: (a.getAttribute('aria-label') ?? a.innerText ?? '').trim().replace(/\s+/g, ' ') };
        });
      for (let i = 0; i < 14; i++) {
        await page.keyboard.press('Tab');
        const f = await focused();
        if (f.tag === 'BODY') break;
        stops.push(f.name);
      }
      expect(stops).toEqual([
        'Pay with browser wallet',
        'Sign in to pay from your StablePay wallet',
        'Pay with a test wallet',
        // The phone-wallet section is open (issue 27): no disclosure to find first.
        'Open in MetaMask',
        'Open in Coinbase Wallet',
        // The EIP-681 transfer to the session's deposit address (docs/checkout.md).
        'Open the transfer in your wallet app',
        'Copy the deposit address',
        'Return to Acme Books without paying',
      ]);
      expect(await page.locator('#qr svg').isVisible()).toBe(true);

      // Back to the test wallet and pay with Enter.
      for (let i = 0; i < 8 && (await focused()).id !== 'pay-test'; i++) await page.keyboard.press('Shift+Tab');
      expect((await focused()).id).toBe('pay-test');
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/pay/${pay.id}?paid=1`, { timeout: 30_000 });
      await page.getByRole('heading', { level: 1, name: 'Paid to Acme Books' }).waitFor();
      const record = await paymentRecord(ctx, pay.id);
      expect(record.status).toBe('settled');
      expect(await ctx.svc.deps.chain.balanceOf(to)).toBe(before + BigInt(record.stablecoin_amount_base_units));

      // On the receipt: "Stay on this page" is the first stop (issue 27: at the top of the card).
      await page.keyboard.press('Tab');
      expect((await focused()).id).toBe('stay');
      await page.keyboard.press('Enter');
      await page.locator('#auto-return-text', { hasText: 'You can return whenever you are ready.' }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/pay/${pay.id}`);
    });
  }
});
