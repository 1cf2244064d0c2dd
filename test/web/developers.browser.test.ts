import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { launchBrowser, newPage, realErrors, screenshot, signUpThroughUi } from './browser.js';

const ONCE = 'This key will only be shown once. Store it securely; if lost, revoke it and create a new one.';

describe('Developers screen (Chromium)', () => {
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let consoleErrors: string[];
  let accountId: string;

  beforeAll(async () => {
    service = await startTestService();
    browser = await launchBrowser();
    ({ context, page, consoleErrors } = await newPage(browser, service.url));
    await signUpThroughUi(page);
    accountId = ((await (await page.request.get('/api/me')).json()) as { account: { id: string } }).account.id;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Developers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await service?.stop({ removeData: true });
  });

  it('validates the key label on the client and shows the server’s message', async () => {
    await page.getByText('No active keys yet. Create one above.').waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#key-label-error', { hasText: 'Enter a label for the key (1-60 characters).' }).waitFor();
    expect(await page.getByLabel('Key label').getAttribute('aria-invalid')).toBe('true');

    // A label the client accepts but the server refuses: the server's message is shown.
    await page.route('**/api/keys', (route) =>
      route.request().method() === 'POST' ? route.continue({ postData: JSON.stringify({ label: 'x'.repeat(61) }) }) : route.continue(),
    );
    await page.getByLabel('Key label').fill('Fine label');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#key-label-error', { hasText: 'must be 1-60 characters' }).waitFor();
    await page.unroute('**/api/keys');
    expect(await page.locator('#new-key').isHidden()).toBe(true);
  });

  let secret = '';

  it('creates a key and shows its secret once, with a copy button and the warning', async () => {
    await page.getByLabel('Key label').fill('Production <server>');
    await page.getByRole('button', { name: 'Create key' }).click();
    const box = page.getByRole('region', { name: 'Your new secret key' });
    await box.waitFor();
    secret = (await page.locator('#new-key-value').textContent()) ?? '';
    expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    expect(await box.textContent()).toContain(ONCE);
    await page.locator('#keys-body tr', { hasText: 'Production <server>' }).waitFor();
    expect(await page.locator('#keys-body tr').first().textContent()).toContain(`sk_live_…${secret.slice(-4)}`);
    await screenshot(page, 'developers-key-shown');

    const copy = box.getByRole('button', { name: 'Copy' });
    await copy.click();
    await page.locator('#new-key-copy-status', { hasText: /Copied to clipboard|Selected/ }).waitFor();
    if ((await page.locator('#new-key-copy-status').textContent())?.startsWith('Copied')) {
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    }

    // The secret works against the developer API.
    const ping = await call(`${service.api}/v1/ping`, { key: secret });
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({ ok: true, account: accountId, live: true });

    // Dismissed, it is gone from the page; reloaded, it never comes back.
    await box.getByRole('button', { name: 'I have stored it' }).click();
    await box.waitFor({ state: 'hidden' });
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.locator('#keys-body tr', { hasText: 'Production <server>' }).waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  it('shows how to test a key with curl', async () => {
    const snippet = await page.locator('#ping-snippet').textContent();
    expect(snippet).toContain('/api/v1/ping');
    expect(snippet).toContain('Authorization: Bearer sk_live_');
  });

  it('revokes a key through a confirmation dialog; the key then gets 401', async () => {
    const row = page.locator('#keys-body tr', { hasText: 'Production <server>' });
    await row.getByRole('button', { name: /Revoke/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this API key?' });
    await dialog.waitFor();
    // Cancel leaves the key alone.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await call(`${service.api}/v1/ping`, { key: secret })).status).toBe(200);

    await row.getByRole('button', { name: /Revoke/ }).click();
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(`sk_live_…${secret.slice(-4)}`);
    await screenshot(page, 'developers-revoke-dialog', { fullPage: false });
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.waitFor({ state: 'detached' });
    await page.locator('#keys-status', { hasText: 'revoked' }).waitFor();

    const ping = await call(`${service.api}/v1/ping`, { key: secret });
    expect(ping.status).toBe(401);
    expect(ping.body.error.type).toBe('authentication_error');
  });

  it('rotates the webhook signing secret through the screen, showing each new secret once', async () => {

    await page.reload();
    await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/stablepay');
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.locator('#webhook-status', { hasText: 'Webhook endpoint saved.' }).waitFor();

    const box = page.getByRole('region', { name: 'Your new signing secret' });
    const value = page.locator('#webhook-secret-value');
    const rotate = page.getByRole('button', { name: /(Rotate|Create) signing secret/ });
    // Saving the first endpoint may already create (and show) the first secret.
    if ((await rotate.textContent())?.startsWith('Create')) {
      await rotate.click();
      await value.filter({ hasText: /^whsec_/ }).waitFor();
    }
    const rotateThroughDialog = async (previous: string) => {
      await rotate.click();
      const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Rotate secret' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await value.filter({ hasText: /^whsec_/ }).filter({ hasNotText: previous || '\u0000' }).waitFor();
      await box.waitFor();
      return (await value.textContent()) ?? '';
    };
    const first = await rotateThroughDialog((await value.textContent()) ?? '');
    expect(await box.textContent()).toContain('only be shown once');
    const second = await rotateThroughDialog(first);
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    await page.locator('#webhook-secret-info', { hasText: 'previous secret keeps working' }).waitFor();

    await page.reload();
    expect(await page.getByLabel('Endpoint URL').inputValue()).toBe('https://hooks.example.com/stablepay');
    expect(await page.content()).not.toContain(second);
  });

  it('renders the delivery log as text and redelivers through the API', async () => {
    // The log's contents come from the dispatcher; this checks the screen against the
    // documented shape, including hostile text from a receiver.
    const delivery = {
      id: 'whd_abcdefghijklmnop',
      object: 'webhook_delivery',
      event_id: 'evt_abcdefghijklmnop',
      event_type: 'payment.settled',
      payment_id: 'pay_abcdefghijklmnop',
      url: 'https://hooks.example.com/stablepay',
      status: 'dead',
      created_at: '2026-01-02T03:04:05.000Z',
      attempts: [{ at: '2026-01-02T03:04:05.000Z', trigger: 'schedule', succeeded: false, status_code: 500, latency_ms: 42, error: '<img src=x onerror=alert(1)>' }],
    };
    let redelivered = '';
    await page.route('**/api/webhook-deliveries?*', (route) =>
      route.fulfill({ json: { ok: true, object: 'list', data: [delivery], has_more: false } }),
    );
    await page.route('**/api/webhook-deliveries/*/redeliver', (route) => {
      redelivered = new URL(route.request().url()).pathname;
      return route.fulfill({
        json: { ok: true, delivery: { ...delivery, status: 'delivered', attempts: [...delivery.attempts, { ...delivery.attempts[0], status_code: 200, error: null }] } },
      });
    });
    await page.reload();
    const row = page.locator('#deliveries-body tr', { hasText: 'payment.settled' });
    await row.waitFor();
    expect(await row.textContent()).toContain('dead');
    expect(await row.textContent()).toContain('pay_abcdefghijklmnop');
    await row.getByText('1 attempt').click();
    await row.getByText('<img src=x onerror=alert(1)>').waitFor();
    expect(await page.locator('#deliveries-body img').count()).toBe(0);

    await row.getByRole('button', { name: /Redeliver/ }).click();
    await page.locator('#deliveries-status', { hasText: 'Redelivered: delivered (HTTP 200).' }).waitFor();
    expect(redelivered).toBe('/api/webhook-deliveries/whd_abcdefghijklmnop/redeliver');
    await page.unrouteAll();
    expect(realErrors(consoleErrors)).toEqual([]);
  });
});
