import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.js';
import { launchBrowser, newPage, realErrors, signUpThroughUi, type UiUser } from './browser.js';
import { axeViolations } from './a11y.js';

describe('Developers screen: spend policies (Chromium)', () => {
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let consoleErrors: string[];
  let user: UiUser;

  beforeAll(async () => {
    service = await startTestService();
    browser = await launchBrowser();
    ({ context, page, consoleErrors } = await newPage(browser, service.url));
    user = await signUpThroughUi(page);
    await page.goto('/app/developers');
    await page.getByRole('heading', { level: 2, name: 'Spend policies' }).waitFor();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await service?.stop({ removeData: true });
  });

  it('saves the account policy with the password, refuses a wrong one, and lists the change', async () => {
    await page.getByLabel('Per transaction').fill('50');
    await page.getByLabel('Last 24 hours').fill('200');
    await page.getByLabel('Never these recipients').fill('@mallory');
    await page.getByLabel('Create payment links').uncheck();
    await page.getByLabel('Your password').fill('wrong password');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.locator('#pol-password-error', { hasText: 'That password is not right' }).waitFor();

    await page.getByLabel('Your password').fill(user.password);
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.locator('#policy-status', { hasText: 'Saved.' }).waitFor();
    await page.locator('#policy-history li', { hasText: 'Account policy updated' }).waitFor();

    const saved = (await (await page.request.get('/api/policies')).json()) as { policy: { policy: unknown } };
    expect(saved.policy.policy).toEqual({
      usd: { per_transaction: '50', daily: '200' },
      block_recipients: ['@mallory'],
      allowed_actions: ['transfer', 'bill', 'market_stake'],
    });
    // Reloaded, the form shows what is stored.
    await page.reload();
    await expect.poll(() => page.getByLabel('Per transaction').inputValue()).toBe('50');
    expect(await page.getByLabel('Create payment links').isChecked()).toBe(false);
    expect((await axeViolations(page)).filter((v) => v.id !== 'color-contrast')).toEqual([]);
    expect(realErrors(consoleErrors)).toEqual([]);
  });

  it("edits one API key's policy (narrower than the account's) and lists that change too", async () => {
    const made = await page.request.post('/api/keys', { data: { label: 'shop' }, headers: { origin: service.url } });
    expect(made.status()).toBe(201);
    const key = ((await made.json()) as { key: { id: string } }).key;
    await page.reload();
    await page.getByRole('option', { name: /Key "shop" \(sk_live_/ }).waitFor({ state: 'attached' });
    await page.getByLabel('Applies to').selectOption(key.id);
    // The key has no policy yet: the form empties (the account's 50 is not the key's).
    await expect.poll(() => page.getByLabel('Per transaction').inputValue()).toBe('');
    await page.getByLabel('Per transaction').fill('5');
    await page.getByLabel('Only these recipients').fill('@amina');
    await page.getByLabel('Your password').fill(user.password);
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.locator('#policy-status', { hasText: 'Saved.' }).waitFor();
    await page.locator('#policy-history li', { hasText: `Key ${key.id} policy updated` }).waitFor();

    const saved = (await (await page.request.get(`/api/keys/${key.id}/policy`)).json()) as { policy: { scope: string; policy: unknown } };
    expect(saved.policy).toMatchObject({ scope: 'key', policy: { usd: { per_transaction: '5' }, allow_recipients: ['@amina'] } });
    // The account's policy is untouched, and the form shows it again when switched back.
    await page.getByLabel('Applies to').selectOption('account');
    await expect.poll(() => page.getByLabel('Per transaction').inputValue()).toBe('50');
    expect(realErrors(consoleErrors)).toEqual([]);
  });
});
