/**
 * Issue 27, the payer's pages as a person sees them at 1280x800 and 390x844 (real Chromium, a real
 * service on its embedded chain): nothing overflows its container or is cut, the QR codes and the
 * deposit address (one line, Copy) are in view without opening anything, the order reference is
 * shown, the receipt names the merchant once, links and copies the transaction and prints as a
 * receipt, a partial and a full refund each say amount, date and transaction, the countdown back
 * to the shop and its "Stay" control are on the first screen, and pages that took no money say
 * when they ended without "locked at checkout". Screenshots land in test/artifacts/.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call } from '../helpers/service.js';
import { SIZES, launchBrowser, screenshot } from '../web/browser.js';
import { belowFold, brokenWords, layoutProblems, lineCount } from '../web/layout.js';
import { axeViolations } from '../web/a11y.js';
import { createPayment, paymentRecord, setup, until, type Ctx } from '../settlement/helpers.js';
import { Payments } from '../../src/payments/payments.js';

const SHOP = 'https://shop.example';
const EXPLORER = 'https://explorer.example';
const TIME = /\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC/;

describe('checkout pages as people see them (issue 27, Chromium)', () => {
  let ctx: Ctx;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ctx = await setup({ CHAIN_EXPLORER_URL: EXPLORER });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.svc.stop({ removeData: true });
  });
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });

  async function open(size: (typeof SIZES)[number]): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, baseURL: ctx.svc.url });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.svc.url });
    contexts.push(context);
    await context.route(`${SHOP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Shop</title>' }));
    return context.newPage();
  }

  async function fits(page: Page, shot: string) {
    await screenshot(page, `checkout-27-${shot}`);
    expect(await layoutProblems(page)).toEqual([]);
    expect(await brokenWords(page, 'body')).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
  }

  let seq = 0;
  async function paid(body: Record<string, unknown> = {}) {
    const pay = await createPayment(ctx, { amount: 5000, currency: 'KES', reference: `order-7731-${++seq}`, description: 'Two paperbacks', redirect_url: `${SHOP}/back`, ...body });
    expect((await call(`${ctx.svc.api}/dev/test-wallet-pay/${pay.id}`, { method: 'POST' })).status).toBe(200);
    return pay;
  }

  async function refund(id: string, body: Record<string, unknown>) {
    const res = await call(`${ctx.svc.api}/v1/payments/${id}/refunds`, { method: 'POST', key: ctx.merchant.key, body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return until(async () => {
      const r = await call(`${ctx.svc.api}/v1/refunds/${res.body.id}`, { key: ctx.merchant.key });
      return r.body.status === 'succeeded' && r.body;
    }, 'refund succeeded');
  }

  for (const size of SIZES) {
    it(`${size.name}: pending shows both QR codes open, the address on one line with Copy, and the order reference`, async () => {
      const pay = await createPayment(ctx, { amount: 12.5, currency: 'USD', reference: `order-1001-${size.name}`, redirect_url: `${SHOP}/back` });
      const page = await open(size);
      await page.goto(`/pay/${pay.id}`);
      expect(await page.locator('details').count()).toBe(0);
      expect(await page.locator('#qr svg').isVisible()).toBe(true);
      expect(await page.locator('#deposit-qr svg').isVisible()).toBe(true);
      await expect(page.locator('#reference').innerText()).resolves.toBe(`order-1001-${size.name}`);
      expect(await lineCount(page, '#deposit-address')).toBe(1);
      const address = (await page.locator('#deposit-address').innerText()).trim();
      expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      await page.getByRole('button', { name: 'Copy the deposit address' }).click();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(address);
      await page.locator('#copy-status', { hasText: 'Copied' }).waitFor({ state: 'attached' });
      await fits(page, `${size.name}-pending`);
    });

    it(`${size.name}: just paid: "Returning to the shop" and Stay are on the first screen; the receipt names the merchant once, links and copies the transaction, prints`, async () => {
      const pay = await paid();
      const record = await paymentRecord(ctx, pay.id);
      const page = await open(size);
      // The countdown's way back is answered 204 (a navigation to No Content leaves the page where
      // it is): on a loaded machine the layout and axe checks below outlast its 6 s, and the page
      // had left for the shop before Stay was pressed. The return itself is checkout.finish's.
      // (A paused page clock would stop it too, but the axe check waits on the page's timers.)
      await page.route(`${SHOP}/**`, (route) => route.fulfill({ status: 204 }));
      await page.goto(`/pay/${pay.id}?paid=1`);
      await page.locator('#auto-return-text', { hasText: 'Returning you to Acme Books in' }).waitFor();
      expect(await belowFold(page, '#auto-return')).toBe(false);
      expect(await belowFold(page, '#stay')).toBe(false);
      await fits(page, `${size.name}-just-paid`);
      await page.getByRole('button', { name: 'Stay on this page' }).click();

      // The heading names the merchant; no second line repeats it.
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Paid to Acme Books');
      expect(await page.locator('#merchant-line').count()).toBe(0);
      const top = await page.evaluate(() => Array.from(document.querySelectorAll('.card > *')).slice(0, 6).map((e) => (e as HTMLElement).innerText).join('\n'));
      expect(top.split('Acme Books').length - 1).toBeLessThanOrEqual(2); // heading, and the "Returning you to" line
      await expect(page.locator('#reference').innerText()).resolves.toMatch(/^order-7731-/);
      await expect(page.locator('#tx-link').getAttribute('href')).resolves.toBe(`${EXPLORER}/tx/${record.tx_hash}`);
      expect(await lineCount(page, '#tx-value')).toBeLessThanOrEqual(2);
      // Never a line holding only the last few characters: each half stays whole.
      for (const half of await page.locator('#tx-value span').all()) expect((await half.evaluate((e) => e.getClientRects().length))).toBe(1);
      await page.getByRole('button', { name: 'Copy the transaction' }).click();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(record.tx_hash);
      await expect(page.locator('#paid-at').innerText()).resolves.toMatch(TIME);

      // Print: the receipt alone, without buttons or the way back.
      await page.emulateMedia({ media: 'print' });
      for (const sel of ['#print', '#return', '.copy']) expect(await page.locator(sel).first().isVisible()).toBe(false);
      expect(await page.locator('#receipt').isVisible()).toBe(true);
      await screenshot(page, `checkout-27-${size.name}-receipt-print`);
      await page.emulateMedia({ media: 'screen' });
      await page.getByRole('button', { name: 'Print or save as PDF' }).waitFor();
    });

    it(`${size.name}: a partly refunded receipt and a fully refunded one say what was refunded, when, and by which transaction`, async () => {
      const part = await paid();
      const r1 = await refund(part.id, { amount: 1000, reason: 'one book was damaged' });
      const page = await open(size);
      await page.goto(`/pay/${part.id}`);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Paid to Acme Books');
      await expect(page.locator('#status').innerText()).resolves.toMatch(new RegExp(`^Paid\\. The merchant refunded 1,000\\.00 KES of it, last on ${TIME.source}\\.$`));
      await expect(page.locator('#refunded').innerText()).resolves.toBe('1,000.00 KES');
      await expect(page.locator('#refund-1-amount').innerText()).resolves.toBe('1,000.00 KES');
      await expect(page.locator('#refund-1-at').getAttribute('datetime')).resolves.toBe(r1.succeeded_at ?? r1.created_at);
      await expect(page.locator('#refund-1-at').innerText()).resolves.toMatch(TIME);
      await expect(page.locator('#refund-1-tx-link').getAttribute('href')).resolves.toBe(`${EXPLORER}/tx/${r1.tx_hash}`);
      await expect(page.locator('#refund-1-tx-value').getAttribute('title')).resolves.toBe(r1.tx_hash);
      await fits(page, `${size.name}-partly-refunded`);

      const r2 = await refund(part.id, {});
      await until(async () => (await paymentRecord(ctx, part.id)).status === 'refunded', 'refunded');
      await page.goto(`/pay/${part.id}`);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Refunded by Acme Books');
      await expect(page.locator('#status').innerText()).resolves.toMatch(/^Paid, then refunded in full by the merchant \(5,000\.00 KES\), last on /);
      await expect(page.locator('#refund-2-amount').innerText()).resolves.toBe('4,000.00 KES');
      await expect(page.locator('#refund-2-tx-link').getAttribute('href')).resolves.toBe(`${EXPLORER}/tx/${r2.tx_hash}`);
      await expect(page.locator('#refunded-total').innerText()).resolves.toContain('5,000.00 KES');
      await fits(page, `${size.name}-refunded`);
    });

    it(`${size.name}: expired and canceled pages say when, and claim no rate "locked at checkout"; processing and failed fit`, async () => {
      const page = await open(size);
      const gone = await createPayment(ctx, { redirect_url: `${SHOP}/back`, reference: `order-exp-${size.name}` });
      const at = new Date(Date.now() - 60_000).toISOString();
      await ctx.svc.deps.store.transaction(async (tx) => {
        await tx.table(Payments).update(gone.id, { expiresAt: at });
      });
      await page.goto(`/pay/${gone.id}`);
      const expired = await page.locator('main').innerText();
      expect(expired).not.toContain('locked at checkout');
      await expect(page.locator('#status').innerText()).resolves.toMatch(new RegExp(`^This payment session expired on ${TIME.source}\\. Nothing was charged\\.$`));
      await fits(page, `${size.name}-expired`);

      const canceled = await createPayment(ctx, { redirect_url: `${SHOP}/back` });
      expect((await call(`${ctx.svc.api}/v1/payments/${canceled.id}/cancel`, { method: 'POST', key: ctx.merchant.key })).status).toBe(200);
      await page.goto(`/pay/${canceled.id}`);
      expect(await page.locator('main').innerText()).not.toContain('locked at checkout');
      await expect(page.locator('#status').innerText()).resolves.toMatch(new RegExp(`^The merchant canceled this payment on ${TIME.source}\\. Nothing was charged\\.$`));
      await fits(page, `${size.name}-canceled`);

      // Being confirmed, and failed: nothing cut or overflowing either.
      const processing = await createPayment(ctx, { redirect_url: `${SHOP}/back` });
      await ctx.svc.deps.payments.transition(processing.id, 'pending', 'processing', { payer: '0x000000000000000000000000000000000000dEaD' });
      await page.goto(`/pay/${processing.id}`);
      await fits(page, `${size.name}-processing`);
      await ctx.svc.deps.payments.transition(processing.id, 'processing', 'failed', { failureReason: 'reverted' });
      await page.goto(`/pay/${processing.id}`);
      expect(await page.locator('main').innerText()).not.toContain('locked at checkout');
      await fits(page, `${size.name}-failed`);
    });
  }
});
