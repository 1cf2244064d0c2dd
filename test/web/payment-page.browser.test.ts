/**
 * Issue 15 item 5, the payment page with a webhook endpoint and a block explorer configured:
 * events with their deliveries and each attempt (a real loopback receiver that fails once, then
 * accepts), payer and transactions linked to the explorer, and a refund made with the keyboard
 * alone that pays the payer back on the embedded chain. Real Chromium at 1280x800 and 390x844.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { deliveries, startReceiver, waitFor, type Receiver } from '../webhooks/helpers.js';
import { SIZES, launchBrowser, newPage, realErrors, screenshot, scrollWidth, signUpThroughUi } from './browser.js';
import { axeViolations } from './a11y.js';
import { formatUsdc } from '../../src/lib/money.js';

const EXPLORER = 'https://explorer.example';
describe('payment page: deliveries, explorer links, keyboard (Chromium)', () => {
  let service: TestService;
  let browser: Browser;
  let receiver: Receiver;

  beforeAll(async () => {
    // Every event's first delivery attempt gets a 500, the retry a 200.
    const seen = new Map<string, number>();
    receiver = await startReceiver((r) => {
      const id = String(r.headers['webhook-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return seen.get(id) === 1 ? 500 : 200;
    });
    service = await startTestService({ RECONCILE_INTERVAL: '1h', CHAIN_EXPLORER_URL: EXPLORER, WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop({ removeData: true });
    await receiver?.close();
  });

  /** A merchant (signed up in the page) with an endpoint and one payment settled on the chain. */
  async function settledPayment(page: Page, shop: string) {
    await signUpThroughUi(page, shop);
    const key = ((await (await page.request.post('/api/keys', { data: { label: 'server' } })).json()) as { key: { secret: string } }).key.secret;
    expect((await call(`${service.api}/webhook-endpoint`, { method: 'PUT', key, body: { url: receiver.url } })).status).toBe(200);
    const created = await call(`${service.api}/v1/payments`, {
      key,
      body: { amount: 1000, currency: 'KES', reference: `ord-${shop}`, redirect_url: 'https://shop.example/done', metadata: { basket: 'b-17' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await call(`${service.api}/dev/test-wallet-pay/${id}`, { method: 'POST' })).status).toBe(200);
    await waitFor(async () => (await deliveries(service.api, { key })).some((d) => d.payment_id === id && d.status === 'delivered'), 15_000, 'payment.settled delivered');
    return { key, id };
  }

  for (const size of SIZES) {
    it(`${size.name}: events list each delivery and attempt; payer and transaction link to the explorer`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, { width: size.width, height: size.height });
      const { id } = await settledPayment(page, `Tea Shop ${size.name}`);
      const p = (await service.deps.payments.get(id))!;
      await page.goto(`/app/payments/${id}`);

      // Both currencies, the payer and the transaction, linked to the configured explorer.
      await expect(page.locator('#d-amount').innerText()).resolves.toBe('1,000.00 KES');
      await expect(page.locator('#d-stablecoin').innerText()).resolves.toBe(formatUsdc(BigInt(p.stablecoinAmount)));
      expect(await page.locator('#d-tx a').getAttribute('href')).toBe(`${EXPLORER}/tx/${p.txHash}`);
      expect(await page.locator('#d-payer a').getAttribute('href')).toBe(`${EXPLORER}/address/${p.payer}`);
      expect(await page.locator('#timeline li.tl-settled a').getAttribute('href')).toBe(`${EXPLORER}/tx/${p.txHash}`);
      await expect(page.locator('#metadata').innerText()).resolves.toMatch(/basket\s+b-17/);

      // The event, its delivery to the endpoint, and both attempts: HTTP 500, then HTTP 200.
      const event = page.locator('#events li.event', { hasText: 'payment.settled' });
      await expect(event.locator('.deliveries > li').first().innerText()).resolves.toContain(receiver.url);
      await expect(event.locator('.deliveries .badge').first().innerText()).resolves.toBe('delivered');
      const attempts = await event.locator('.attempts li').allInnerTexts();
      expect(attempts).toHaveLength(2);
      expect(attempts[0]).toMatch(/failed, HTTP 500 \(\d+ ms\)$/);
      expect(attempts[1]).toMatch(/delivered, HTTP 200/);
      // ...and in the timeline, after the event they carry.
      const timeline = (await page.locator('#timeline li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
      const at = (text: string) => timeline.findIndex((t) => t.includes(text));
      expect(at(`Webhook attempt failed payment.settled to ${receiver.url}: HTTP 500`), JSON.stringify(timeline)).toBeGreaterThan(at('Event payment.settled'));
      expect(at(`Webhook delivered payment.settled to ${receiver.url}: HTTP 200`)).toBeGreaterThan(at('Webhook attempt failed'));
      expect(await scrollWidth(page)).toBeLessThanOrEqual(size.width);
      await screenshot(page, `payment-deliveries-${size.name}`);
      expect(await axeViolations(page)).toEqual([]);
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    });
  }

  for (const size of SIZES) {
    it(`${size.name}: a partial refund made with the keyboard alone pays the payer back on-chain`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, { width: size.width, height: size.height });
      const { id } = await settledPayment(page, `Key Shop ${size.name}`);
      const payer = (await service.deps.payments.get(id))!.payer as `0x${string}`;
      const before = await service.deps.chain.balanceOf(payer);
      await page.goto(`/app/payments/${id}`);

      // Tab from the top of the page to the amount field; every stop on the way has a name.
      const names: string[] = [];
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        const at = await page.evaluate(() => {
          const a = document.activeElement as HTMLElement;
          const label = a.id ? document.querySelector(`label[for="${a.id}"]`)?.textContent : undefined;
          return { id: a.id, name: (label ?? a.getAttribute('aria-label') ?? a.innerText ?? '').trim() };
        });
        names.push(at.name);
        if (at.id === 'refund-amount') break;
      }
      expect(names.at(-1)).toBe('Amount to refund (KES)');
      expect(names.every((n) => n.length > 0), JSON.stringify(names)).toBe(true);
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type('250');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Wrong colour');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('refund-open');
      await page.keyboard.press('Enter');
      await page.getByRole('dialog', { name: 'Refund part of this payment?' }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('confirm-cancel');
      expect(await axeViolations(page)).toEqual([]);
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Refund 250 KES');
      await page.keyboard.press('Enter');

      await page.locator('#refunds-table .badge', { hasText: 'succeeded' }).first().waitFor({ timeout: 30_000 });
      const p = (await service.deps.payments.get(id))!;
      const [refund] = await service.deps.refunds.ofPayment(p.accountId, id);
      expect(refund).toMatchObject({ status: 'succeeded', amount: '250', reason: 'Wrong colour' });
      expect(await service.deps.chain.balanceOf(payer)).toBe(before + BigInt(refund!.stablecoinAmount));
      await expect(page.locator('#d-refunded').innerText()).resolves.toContain('250.00 KES');
      expect(await page.locator('#refunds-table a').first().getAttribute('href')).toBe(`${EXPLORER}/tx/${refund!.txHash}`);
      await expect(page.getByLabel('Amount to refund (KES)').inputValue()).resolves.toBe('750');

      // The refund's own event reaches the endpoint too, and the page lists that delivery.
      await waitFor(
        async () => (await deliveries(service.api, { cookie: await cookieOf(page) })).filter((d) => d.payment_id === id && d.status === 'delivered').length >= 2,
        15_000,
        'refund.succeeded delivered',
      );
      await page.reload();
      const refundEvent = page.locator('#events li.event', { hasText: 'refund.succeeded' });
      await expect(refundEvent.locator('.deliveries .badge').first().innerText()).resolves.toBe('delivered');
      await screenshot(page, `payment-keyboard-refund-${size.name}`);
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    });
  }
});

async function cookieOf(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  return cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}
