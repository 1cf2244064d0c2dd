import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';
import { launchBrowser, newPage, screenshot, signUpThroughUi } from './browser.js';

/** Issue 15, item 4: a 410 Gone disables the endpoint and the Developers screen says so. */
describe('Developers screen: a disabled endpoint (Chromium)', () => {
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let gone: Receiver;

  beforeAll(async () => {
    gone = await startReceiver(() => 410);
    service = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,50ms' });
    browser = await launchBrowser();
    ({ context, page } = await newPage(browser, service.url));
    await signUpThroughUi(page);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await service?.stop({ removeData: true });
    await gone?.close();
  });

  it('shows the 410 and how to enable it again', async () => {
    const key = ((await (await page.request.post('/api/keys', { data: { label: 'server' } })).json()) as { key: { secret: string } }).key.secret;
    expect((await call(`${service.api}/webhook-endpoint`, { method: 'PUT', key, body: { url: gone.url } })).status).toBe(200);
    const pay = await call(`${service.api}/v1/payments`, { key, body: { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/done' } });
    expect((await call(`${service.api}/v1/payments/${pay.body.id}/cancel`, { method: 'POST', key })).status).toBe(200);
    for (let i = 0; i < 200; i++) {
      if ((await call(`${service.api}/webhook-endpoint`, { key })).body.status === 'disabled') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await page.goto('/app/developers');
    const status = page.locator('#webhook-status', { hasText: 'This endpoint is disabled' });
    await status.waitFor();
    expect(await status.textContent()).toMatch(/410 Gone.*Save it again to enable it\./);
    await screenshot(page, 'developers-endpoint-disabled');
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.locator('#webhook-status', { hasText: 'Webhook endpoint saved.' }).waitFor();
    expect((await call(`${service.api}/webhook-endpoint`, { key })).body.status).toBe('enabled');
  });

  it('lists every endpoint with its event types; an added one a 410 disabled says so and is enabled from the screen', async () => {
    const key = ((await (await page.request.post('/api/keys', { data: { label: 'server 2' } })).json()) as { key: { secret: string } }).key.secret;
    const added = await call(`${service.api}/webhook-endpoints`, { key, body: { url: `${gone.url}/erp`, enabled_events: ['payment.canceled'], description: 'ERP' } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const id = added.body.endpoint.id;
    const pay = await call(`${service.api}/v1/payments`, { key, body: { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/done' } });
    expect((await call(`${service.api}/v1/payments/${pay.body.id}/cancel`, { method: 'POST', key })).status).toBe(200);
    for (let i = 0; i < 200; i++) {
      if ((await call(`${service.api}/webhook-endpoints/${id}`, { key })).body.endpoint.status === 'disabled') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await page.goto('/app/developers');
    const row = page.locator(`#endpoints-body tr[data-endpoint-id="${id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('payment.canceled');
    expect(await row.textContent()).toContain('ERP');
    expect(await row.getByRole('cell', { name: /disabled/ }).textContent()).toMatch(/disabled.*410 Gone/);
    // The default endpoint is listed too.
    expect(await page.locator('#endpoints-body tr[data-endpoint-id="default"]').textContent()).toContain('default');
    await screenshot(page, 'developers-endpoints-list-disabled');
    await row.getByRole('button', { name: /Enable/ }).click();
    await page.locator('#endpoints-status', { hasText: 'Enabled' }).waitFor();
    expect(await row.textContent()).toContain('enabled');
    expect((await call(`${service.api}/webhook-endpoints/${id}`, { key })).body.endpoint.status).toBe('enabled');
  });
});
