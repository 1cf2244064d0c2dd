/**
 * Issue 27, Developers screen at 1280x800 and 390x844: endpoints are added (with event types),
 * edited and deleted on the screen, "Send test event" reaches a real loopback receiver and shows
 * its answer, event-type chips and every other part fit their boxes (no text cut, nothing wider
 * than its parent), and the x402 table has labels, human times, rounded gas and whole hashes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Received, type Receiver } from '../webhooks/helpers.js';
import { SIZES, launchBrowser, newPage, realErrors, screenshot, signUpThroughUi } from './browser.js';
import { layoutProblems } from './layout.js';
import { axeViolations } from './a11y.js';
import { nativeText } from '../../src/web/pages/developers.js';

describe('Developers screen: endpoints and layout (Chromium)', () => {
  let service: TestService;
  let browser: Browser;
  let receiver: Receiver;
  const received: Received[] = [];

  beforeAll(async () => {
    receiver = await startReceiver((r) => {
      received.push(r);
      return 204;
    });
    service = await startTestService();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop({ removeData: true });
    await receiver?.close();
  });

  it('gas figures are rounded to 8 decimals, never 18', () => {
    expect(nativeText('43210987654321')).toBe('0.00004321');
    expect(nativeText('1234567890123456789012')).toBe('1,234.56789012');
    expect(nativeText('1')).toBe('< 0.00000001');
    expect(nativeText('0')).toBe('0');
  });

  for (const size of SIZES) {
    it(`${size.name}: add, edit, test and delete an endpoint; chips and cards fit`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, size);
      await signUpThroughUi(page, `Endpoints ${size.name}`);
      await page.goto('/app/developers');
      await page.locator('#endpoints-status', { hasText: 'No endpoints yet.' }).waitFor();

      // Add, with two event types: the first endpoint also creates the signing secret (shown once).
      await page.getByLabel('Receiver URL').fill(`${receiver.url}/erp`);
      await page.getByLabel('Description').fill('ERP');
      await page.getByLabel('payment.canceled').check();
      await page.getByLabel('refund.succeeded').check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.locator('#endpoints-status', { hasText: `Added ${receiver.url}/erp.` }).waitFor();
      await page.locator('#webhook-secret-value', { hasText: 'whsec_' }).waitFor();
      const row = page.locator('#endpoints-body tr').first();
      await expect(row.locator('.chips li').allInnerTexts()).resolves.toEqual(['payment.canceled', 'refund.succeeded']);

      // Send a test event: the receiver gets it; the screen shows the answer.
      const before = received.length;
      await row.getByRole('button', { name: /^Send test event/ }).click();
      await page.locator('#endpoints-status', { hasText: /Test event payment\.canceled delivered to .*: HTTP 204 in \d+ ms\./ }).waitFor();
      expect(received.length).toBe(before + 1);
      expect(received.at(-1)!.headers['stablepay-test-event']).toBe('1');
      await screenshot(page, `developers-27-${size.name}-endpoints`);
      expect(await layoutProblems(page, 'main')).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);

      // Edit: another URL, all event types.
      await row.getByRole('button', { name: /^Edit/ }).click();
      await page.getByLabel('Receiver URL').fill(`${receiver.url}/erp2`);
      await page.getByLabel('payment.canceled').uncheck();
      await page.getByLabel('refund.succeeded').uncheck();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#endpoints-status', { hasText: `Saved ${receiver.url}/erp2.` }).waitFor();
      await expect(page.locator('#endpoints-body tr td[data-label="Events"]').first().innerText()).resolves.toBe('all');
      const key = await page.request.post('/api/keys', { data: { label: 'check' } }).then((r) => r.json());
      const listed = await call(`${service.api}/webhook-endpoints`, { key: key.key.secret });
      expect(listed.body.data).toMatchObject([{ url: `${receiver.url}/erp2`, enabled_events: null, description: 'ERP' }]);

      // Delete, after a second confirmation in place.
      await page.locator('#endpoints-body tr').first().getByRole('button', { name: /^Delete/ }).click();
      await page.getByRole('button', { name: `Delete ${receiver.url}/erp2` }).click();
      await page.locator('#endpoints-status', { hasText: 'No endpoints yet.' }).waitFor();
      expect((await call(`${service.api}/webhook-endpoints`, { key: key.key.secret })).body.data).toEqual([]);
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    });
  }
});
