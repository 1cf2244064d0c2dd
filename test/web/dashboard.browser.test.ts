/**
 * Issue 15 item 5: the app is somewhere to run a shop from. Real Chromium at 1280x800 and
 * 390x844 (and a cramped 760 px table) against a real service on its embedded anvil: status
 * chips that never break, filters, CSV export, period totals and chart, the payment page, and
 * axe-core (WCAG 2.1 A/AA, contrast included) on every page.
 */
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { SIZES, launchBrowser, newPage, realErrors, screenshot, scrollWidth, signUpThroughUi } from './browser.js';
import { axeViolations } from './a11y.js';

describe('dashboard and payment pages (Chromium)', () => {
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

  /** A merchant signed up through the UI with payments: two settled on the chain, one pending. */
  async function shopWithPayments(page: Page) {
    await signUpThroughUi(page, 'Corner Bakery');
    const created = await page.request.post('/api/keys', { data: { label: 'server' } });
    const key = ((await created.json()) as { key: { secret: string } }).key.secret;
    const make = async (body: Record<string, unknown>) => {
      const r = await call(`${service.api}/v1/payments`, { key, body: { redirect_url: 'https://shop.example/done', ...body } });
      expect(r.status).toBe(201);
      return r.body.id as string;
    };
    const ids = {
      cake: await make({ amount: 20, currency: 'USD', reference: 'order-cake', description: 'A birthday cake with a very long inscription that goes on', metadata: { table: '7', vip: true } }),
      bread: await make({ amount: 2.5, currency: 'USD', reference: 'order-bread-with-a-long-reference-1234567890', description: 'Sourdough loaf' }),
      pie: await make({ amount: 5000, currency: 'KES', reference: 'pie-1', description: 'Apple pie' }),
    };
    for (const id of [ids.cake, ids.bread]) {
      const paid = await call(`${service.api}/dev/test-wallet-pay/${id}`, { method: 'POST' });
      expect(paid.status).toBe(200);
    }
    return { key, ids };
  }

  /** Every status chip renders on one line: one box, no wrapping, nothing cut off. */
  async function chipsOnOneLine(page: Page) {
    const chips = await page.locator('#payments-body .badge').evaluateAll((els) =>
      els.map((e) => ({ text: e.textContent, boxes: e.getClientRects().length, height: e.getBoundingClientRect().height, fits: e.scrollWidth <= e.clientWidth + 1 })),
    );
    expect(chips.length).toBeGreaterThan(0);
    for (const c of chips) {
      expect(c.boxes, c.text ?? '').toBe(1);
      expect(c.height, c.text ?? '').toBeLessThan(32);
      expect(c.fits, c.text ?? '').toBe(true);
    }
  }

  for (const size of SIZES) {
    it(`${size.name}: lists, filters, searches, exports and totals payments; chips stay whole`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, { width: size.width, height: size.height });
      const { ids } = await shopWithPayments(page);
      await page.goto('/app');
      await page.locator('#payments-body tr').nth(2).waitFor();
      expect(await page.locator('#payments-body tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-payment-id')))).toEqual([ids.pie, ids.bread, ids.cake]);
      await chipsOnOneLine(page);
      if (size.name === 'phone') {
        // As cards, the "·" between a payment's two links stays beside them, not under the label.
        const place = await page.locator('#payments-body tr').first().locator('td.links-cell').evaluate((td) => {
          const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
          let dot: Node | null = null;
          while (walker.nextNode()) if (walker.currentNode.textContent?.includes('·')) dot = walker.currentNode;
          const range = document.createRange();
          range.selectNodeContents(dot!);
          return { dot: range.getBoundingClientRect().left, links: td.querySelector('a')!.getBoundingClientRect().left };
        });
        expect(place.dot).toBeGreaterThan(place.links);
      }

      // Totals for the last 30 days: 22.50 USDC settled, nothing refunded, and a bar for today.
      await page.locator('#total-settled', { hasText: '22.50 USDC' }).waitFor();
      await expect(page.locator('#total-refunded').innerText()).resolves.toBe('0.00 USDC');
      await expect(page.locator('#total-net').innerText()).resolves.toBe('22.50 USDC');
      await expect(page.locator('#total-count').innerText()).resolves.toBe('2 payments');
      const today = new Date().toISOString().slice(0, 10);
      await expect(page.locator(`#chart rect[data-day="${today}"]`).count()).resolves.toBe(1);
      await expect(page.locator('#chart svg').getAttribute('role')).resolves.toBe('img');
      expect(await scrollWidth(page)).toBeLessThanOrEqual(size.width);
      await screenshot(page, `dashboard-${size.name}`);
      expect(await axeViolations(page)).toEqual([]);

      // Filter by status (a plain GET form: the URL holds the filter).
      await page.getByLabel('Status').selectOption('settled');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL('**/app?**status=settled**');
      await page.locator('#payments-status', { hasText: 'Showing 2 of 2 payments matching the filters' }).waitFor();
      expect(await page.locator('#payments-body tr').count()).toBe(2);
      await expect(page.getByLabel('Status').inputValue()).resolves.toBe('settled');

      // CSV export of exactly this filter, downloaded the way a person does.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /Export CSV/ }).click()]);
      expect(download.suggestedFilename()).toMatch(/^payments-\d{4}-\d{2}-\d{2}\.csv$/);
      // Read through the connection: the run's Chromium is shared (test/web/chromium-server.ts), so
      // the file is on its side and `path()` is not available.
      const csv = await text(await download.createReadStream());
      const lines = csv.trimEnd().split('\r\n');
      expect(lines).toHaveLength(3);
      expect(csv).toContain(ids.cake);
      expect(csv).toContain(ids.bread);
      expect(csv).not.toContain(ids.pie);

      // Search by reference, then by id.
      await page.goto('/app');
      await page.getByLabel('Search').fill('order-cake');
      await page.getByLabel('Search').press('Enter');
      await page.waitForURL('**q=order-cake**');
      await page.locator('#payments-status', { hasText: 'Showing 1 of 1 payment matching the filters' }).waitFor();
      expect(await page.locator('#payments-body tr').first().getAttribute('data-payment-id')).toBe(ids.cake);
      await page.goto(`/app?q=${ids.pie}`);
      await page.locator('#payments-status', { hasText: 'Showing 1 of 1' }).waitFor();
      expect(await page.locator('#payments-body tr').first().getAttribute('data-payment-id')).toBe(ids.pie);

      // A date range with nothing in it; the totals follow the period.
      await page.goto('/app');
      await page.getByLabel('From (UTC)').fill('2025-01-01');
      await page.getByLabel('To (UTC)').fill('2025-01-31');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('No payments match these filters.').waitFor();
      await page.locator('#totals-period', { hasText: '2025-01-01 to 2025-01-31 (UTC)' }).waitFor();
      await expect(page.locator('#total-settled').innerText()).resolves.toBe('0.00 USDC');
      expect(await page.getByRole('link', { name: /Export CSV/ }).getAttribute('href')).toBe('/api/app/dashboard/payments.csv?from=2025-01-01&to=2025-01-31');
      await page.getByRole('link', { name: 'Clear' }).click();
      await page.waitForURL((u) => u.pathname === '/app' && u.search === '');
      await page.locator('#payments-body tr').nth(2).waitFor();
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    });
  }

  it('status chips stay whole in a cramped table (760 px, long text)', async () => {
    const { context, page } = await newPage(browser, service.url, { width: 760, height: 800 });
    await shopWithPayments(page);
    await page.goto('/app');
    await page.locator('#payments-body tr').nth(2).waitFor();
    await chipsOnOneLine(page);
    await screenshot(page, 'dashboard-760');
    await context.close();
  });

  it('keyboard: the filters and each payment’s links are reachable with Tab, in order, with names', async () => {
    const { context, page } = await newPage(browser, service.url);
    await shopWithPayments(page);
    await page.goto('/app');
    await page.locator('#payments-body tr').nth(2).waitFor();
    const seen: string[] = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      seen.push(
        await page.evaluate(() => {
          const a = document.activeElement as HTMLElement | null;
          if (!a) return '';
          const label = a.id ? document.querySelector(`label[for="${a.id}"]`)?.textContent : undefined;
          return (label ?? a.innerText ?? '').trim().replace(/\s+/g, ' ');
        }),
      );
    }
    const order = ['Search', 'Status', 'From (UTC)', 'To (UTC)', 'Apply filters', 'Clear', 'Export CSV'];
    const at = order.map((n) => seen.findIndex((s) => s.startsWith(n)));
    expect(at.every((i) => i >= 0), JSON.stringify(seen)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(seen.some((s) => s.startsWith('Details'))).toBe(true);
    await context.close();
  });

  for (const size of SIZES) {
    it(`${size.name}: the payment page shows amounts, details, metadata, timeline, events and deliveries`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, { width: size.width, height: size.height });
      const { ids } = await shopWithPayments(page);
      await page.goto('/app');
      await page.locator(`#payments-body tr[data-payment-id="${ids.cake}"]`).getByRole('link', { name: /^Details/ }).click();
      await page.waitForURL(`**/app/payments/${ids.cake}`);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toMatch(/^20\.00 USD\s+settled$/);
      await expect(page.locator('#d-amount').innerText()).resolves.toBe('20.00 USD');
      await expect(page.locator('#d-stablecoin').innerText()).resolves.toBe('20.00 USDC');
      await expect(page.locator('#d-rate').innerText()).resolves.toContain('1 USDC = 1 USD');
      await expect(page.locator('#d-reference').innerText()).resolves.toBe('order-cake');
      await expect(page.locator('#d-network').innerText()).resolves.toBe('Local test network');
      await expect(page.locator('#d-tx').innerText()).resolves.toMatch(/^0x[0-9a-f]{64}$/);
      await expect(page.locator('#d-payer').innerText()).resolves.toMatch(/^0x[0-9a-fA-F]{40}$/);
      await expect(page.locator('#metadata').innerText()).resolves.toMatch(/table\s+7[\s\S]*vip\s+true/);
      const timeline = await page.locator('#timeline li').allInnerTexts();
      expect(timeline.some((t) => t.includes('Payment created'))).toBe(true);
      expect(timeline.some((t) => t.includes('Settled on-chain'))).toBe(true);
      expect(timeline.some((t) => t.includes('Event payment.settled'))).toBe(true);
      await expect(page.locator('#events').innerText()).resolves.toContain('payment.settled');
      await page.getByRole('button', { name: 'Refund…' }).waitFor();
      await expect(page.getByLabel('Amount to refund (USD)').inputValue()).resolves.toBe('20');
      expect(await scrollWidth(page)).toBeLessThanOrEqual(size.width);
      await screenshot(page, `payment-settled-${size.name}`);
      expect(await axeViolations(page)).toEqual([]);

      // Refund: checked in the page before anything is sent; the dialog focuses the safe choice.
      await page.getByLabel('Amount to refund (USD)').fill('25');
      await page.getByRole('button', { name: 'Refund…' }).click();
      await page.locator('#refund-amount-error', { hasText: 'At most 20 can be refunded.' }).waitFor();
      expect(await page.getByLabel('Amount to refund (USD)').getAttribute('aria-invalid')).toBe('true');
      await page.getByLabel('Amount to refund (USD)').fill('5');
      await page.getByRole('button', { name: 'Refund…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Refund part of this payment?' });
      await dialog.waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('confirm-cancel');
      await expect(page.locator('#confirm-text').innerText()).resolves.toContain('5 USD will be sent back');
      await screenshot(page, `payment-refund-dialog-${size.name}`, { fullPage: false });
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('refund-open');

      // A pending payment offers Cancel; another account's payment is a 404 page.
      await page.goto(`/app/payments/${ids.pie}`);
      await page.getByRole('button', { name: 'Cancel payment…' }).waitFor();
      expect(await page.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
      await expect(page.locator('#d-amount').innerText()).resolves.toBe('5,000.00 KES');
      await screenshot(page, `payment-pending-${size.name}`);
      expect(await axeViolations(page)).toEqual([]);
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();

      const stranger = await newPage(browser, service.url, { width: size.width, height: size.height });
      await signUpThroughUi(stranger.page, 'Someone Else');
      const res = await stranger.page.goto(`/app/payments/${ids.cake}`);
      expect(res?.status()).toBe(404);
      await stranger.page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
      await stranger.context.close();
    });
  }

  for (const size of SIZES) {
    it(`${size.name}: Cancel on the payment page asks first, then closes the session (the checkout says so)`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, { width: size.width, height: size.height });
      const { ids } = await shopWithPayments(page);
      await page.goto(`/app/payments/${ids.pie}`);
      // Keeping the payment sends nothing.
      await page.getByRole('button', { name: 'Cancel payment…' }).click();
      await page.getByRole('dialog', { name: 'Cancel this payment?' }).waitFor();
      await page.getByRole('button', { name: 'Keep the payment' }).click();
      expect((await service.deps.payments.get(ids.pie))!.status).toBe('pending');

      await page.getByRole('button', { name: 'Cancel payment…' }).click();
      await page.getByRole('dialog', { name: 'Cancel this payment?' }).getByRole('button', { name: 'Cancel payment' }).click();
      await page.locator('.payment-head .badge', { hasText: 'canceled' }).waitFor();
      expect((await service.deps.payments.get(ids.pie))!.status).toBe('canceled');
      expect(await page.getByRole('button', { name: 'Cancel payment…' }).count()).toBe(0);
      expect((await page.locator('#timeline li').allInnerTexts()).some((t) => t.includes('Canceled'))).toBe(true);
      await expect(page.locator('#events').innerText()).resolves.toContain('payment.canceled');
      await screenshot(page, `payment-canceled-${size.name}`);
      expect(await axeViolations(page)).toEqual([]);

      await page.getByRole('link', { name: 'Open the checkout page' }).click();
      await page.getByRole('heading', { level: 1, name: 'Payment canceled' }).waitFor();
      expect(await page.getByRole('button', { name: /Pay with/ }).count()).toBe(0);
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    });
  }

  for (const size of SIZES) {
    it(`${size.name}: Refund with an amount, confirmed, pays the payer back on-chain; the rest refunds in full`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, { width: size.width, height: size.height });
      const { ids } = await shopWithPayments(page);
      const payer = (await service.deps.payments.get(ids.cake))!.payer as `0x${string}`;
      const before = await service.deps.chain.balanceOf(payer);
      await page.goto(`/app/payments/${ids.cake}`);

      // Part of it: 5 of 20 USD.
      await page.getByLabel('Amount to refund (USD)').fill('5');
      await page.getByLabel('Reason (optional)').fill('One candle was missing');
      await page.getByRole('button', { name: 'Refund…' }).click();
      const partial = page.getByRole('dialog', { name: 'Refund part of this payment?' });
      await partial.getByRole('button', { name: 'Refund 5 USD' }).click();
      await page.locator('#refunds-table tbody tr').first().waitFor({ timeout: 30_000 });
      await page.locator('#refunds-table .badge', { hasText: 'succeeded' }).first().waitFor({ timeout: 30_000 });
      expect(await service.deps.chain.balanceOf(payer)).toBe(before + 5_000_000n);
      await expect(page.locator('#d-refunded').innerText()).resolves.toContain('5.00 USD');
      await expect(page.locator('.payment-head .badge').innerText()).resolves.toBe('settled');
      expect((await page.locator('#timeline li').allInnerTexts()).some((t) => t.includes('Refund succeeded') && t.includes('One candle was missing'))).toBe(true);
      await expect(page.getByLabel('Amount to refund (USD)').inputValue()).resolves.toBe('15');
      await screenshot(page, `payment-partly-refunded-${size.name}`);
      expect(await axeViolations(page)).toEqual([]);

      // The rest, in full.
      await page.getByRole('button', { name: 'Refund…' }).click();
      await page.getByRole('dialog', { name: 'Refund the whole payment?' }).getByRole('button', { name: 'Refund 15 USD' }).click();
      await page.locator('.payment-head .badge', { hasText: 'refunded' }).waitFor({ timeout: 30_000 });
      expect(await service.deps.chain.balanceOf(payer)).toBe(before + 20_000_000n);
      expect(await page.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
      await expect(page.locator('#no-actions').innerText()).resolves.toBe('This payment has been fully refunded.');
      expect(await page.locator('#refunds-table tbody tr').count()).toBe(2);
      await expect(page.locator('#events').innerText()).resolves.toContain('payment.refunded');

      // The dashboard's totals and list follow.
      await page.goto('/app');
      await page.locator('#total-refunded', { hasText: '20.00 USDC' }).waitFor();
      await expect(page.locator('#total-net').innerText()).resolves.toBe('2.50 USDC');
      // The daily chart shows the refunds next to what settled that day.
      const today = new Date().toISOString().slice(0, 10);
      const refundedBar = page.locator(`#chart rect[data-day="${today}"][data-kind="refunded"]`);
      expect(await refundedBar.count()).toBe(1);
      await expect(refundedBar.locator('title').textContent()).resolves.toMatch(/22\.50 USDC settled, 20\.00 USDC refunded$/);
      expect(await page.locator(`#chart rect[data-day="${today}"][data-kind="settled"]`).count()).toBe(1);
      await screenshot(page, `dashboard-refunded-${size.name}`);
      expect(await axeViolations(page)).toEqual([]);
      await page.goto('/app?status=refunded');
      await page.locator('#payments-status', { hasText: 'Showing 1 of 1' }).waitFor();
      expect(await page.locator('#payments-body tr').first().getAttribute('data-payment-id')).toBe(ids.cake);
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    });
  }

  it('the other app pages pass axe at both sizes, fit the width, and are kept as screenshots', async () => {
    for (const size of SIZES) {
      const { context, page } = await newPage(browser, service.url, { width: size.width, height: size.height });
      const pages = [
        { path: '/', shot: 'home' },
        { path: '/app/signup', shot: 'signup' },
        { path: '/app/login', shot: 'login' },
        { path: '/app/no-such-page', shot: 'not-found', status: 404 },
      ];
      for (const p of pages) {
        const res = await page.goto(p.path);
        expect(res?.status(), p.path).toBe(p.status ?? 200);
        await page.getByRole('heading', { level: 1 }).waitFor();
        expect(await axeViolations(page), `${p.path} ${size.name}`).toEqual([]);
        expect(await scrollWidth(page), p.path).toBeLessThanOrEqual(size.width);
        await screenshot(page, `app-${p.shot}-${size.name}`);
      }
      await signUpThroughUi(page, 'Axe Shop');
      for (const p of [{ path: '/', shot: 'home-signed-in' }, { path: '/app/developers', shot: 'developers' }]) {
        await page.goto(p.path);
        await page.getByRole('heading', { level: 1 }).waitFor();
        if (p.path === '/app/developers') await page.locator('#keys-status').waitFor();
        // Signed in, the landing page leads straight to the dashboard.
        else expect(await page.getByRole('link', { name: 'Open your dashboard' }).getAttribute('href')).toBe('/app');
        expect(await axeViolations(page), `${p.path} ${size.name}`).toEqual([]);
        expect(await scrollWidth(page), p.path).toBeLessThanOrEqual(size.width);
        await screenshot(page, `app-${p.shot}-${size.name}`);
      }
      await context.close();
    }
  });
});
