import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import Stripe from 'stripe';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, waitFor, type Receiver } from '../webhooks/helpers.js';
import { launchBrowser, newPage, signUpThroughUi } from './browser.js';

const stripe = new Stripe('sk_test_unused_for_signature_checks');

/**
 * Issue 15, item 4: `standardwebhooks`, `svix` and `stripe` verify a real delivery with the
 * `whsec_` secret exactly as the Developers screen shows it (read from the page, not the API),
 * the first one and, during the rotation overlap, the one the rotation dialog showed.
 */
describe('Developers screen: the signing secret as shown verifies deliveries (Chromium)', () => {
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,50ms' });
    browser = await launchBrowser();
    ({ context, page } = await newPage(browser, service.url));
    await signUpThroughUi(page);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await service?.stop({ removeData: true });
    await receiver?.close();
  });

  it('the first secret and the rotated one, copied from the screen, verify with every library', async () => {
    await page.goto('/app/developers');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.locator('#webhook-status', { hasText: 'Webhook endpoint saved.' }).waitFor();
    const value = page.locator('#webhook-secret-value');
    const rotate = page.getByRole('button', { name: /(Rotate|Create) signing secret/ });
    if ((await rotate.textContent())?.startsWith('Create')) await rotate.click();
    await value.filter({ hasText: /^whsec_/ }).waitFor();
    const first = (await value.textContent())!;

    await rotate.click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await value.filter({ hasText: /^whsec_/ }).filter({ hasNotText: first }).waitFor();
    const second = (await value.textContent())!;
    expect(second).not.toBe(first);

    const key = ((await (await page.request.post('/api/keys', { data: { label: 'server' } })).json()) as { key: { secret: string } }).key.secret;
    const pay = await call(`${service.api}/v1/payments`, { key, body: { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/done' } });
    expect((await call(`${service.api}/v1/payments/${pay.body.id}/cancel`, { method: 'POST', key })).status).toBe(200);
    const r = await waitFor(() => receiver.received.find((x) => x.json?.data?.id === pay.body.id), 10_000, 'delivery');
    const headers = r.headers as Record<string, string>;
    expect(headers['webhook-id']).toBe(r.json.id);
    for (const secret of [first, second]) {
      expect(new StandardWebhook(secret).verify(r.body, headers)).toEqual(r.json);
      expect(new SvixWebhook(secret).verify(r.body, headers)).toEqual(r.json);
      expect(stripe.webhooks.constructEvent(r.body, headers['service-signature']!, secret).id).toBe(r.json.id);
    }
  });
});
