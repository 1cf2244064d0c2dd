import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { launchBrowser, newPage, realErrors, screenshot, scrollWidth, signUpThroughUi } from './browser.js';

describe('web app pages (Chromium)', () => {
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

  it('sends visitors without a session to the login page, and back after logging in', async () => {
    const { context, page } = await newPage(browser, service.url);
    const user = await signUpThroughUi(page);
    await context.clearCookies();

    await page.goto('/app/developers');
    expect(new URL(page.url()).pathname).toBe('/app/login');
    await page.goto('/app');
    expect(new URL(page.url()).pathname).toBe('/app/login');

    await page.goto('/app/developers');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/app/developers');
    await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
    await context.close();
  });

  it('signs up, shows the dashboard with account, wallet and payments newest first, and logs out', async () => {
    const { context, page, consoleErrors } = await newPage(browser, service.url);
    await page.goto('/app/signup');
    await screenshot(page, 'signup');
    const user = await signUpThroughUi(page, 'Ada <b>Haircuts</b>');

    // The name is text, never markup.
    await page.locator('#account-name', { hasText: 'Ada <b>Haircuts</b>' }).waitFor();
    await page.locator('#account-email', { hasText: user.email }).waitFor();
    expect(await page.locator('#account-name b').count()).toBe(0);
    await page.getByText('No payments yet.').waitFor();

    // Payments created by the merchant's server show up in the list, newest first, with links.
    const created = await page.request.post('/api/keys', { data: { label: 'server' } });
    const secret = ((await created.json()) as { key: { secret: string } }).key.secret;
    const ids: string[] = [];
    for (const [amount, reference] of [[12.5, 'order-1'], [40, 'order-2']] as const) {
      const r = await call(`${service.api}/v1/payments`, {
        key: secret,
        body: { amount, currency: 'USD', redirect_url: 'https://shop.example/done', reference, description: `Order ${reference}` },
      });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    await page.reload();
    const rows = page.locator('#payments-body tr');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-payment-id')).toBe(ids[1]);
    expect(await rows.nth(0).textContent()).toContain('order-2');
    expect(await rows.nth(0).textContent()).toContain('pending');
    expect(await rows.nth(1).textContent()).toContain('order-1');
    expect(await rows.nth(0).getByRole('link', { name: /Checkout page/ }).getAttribute('href')).toMatch(new RegExp(`/pay/${ids[1]}$`));

    // The wallet is shown when /api/me reports one (the chain module provides it).
    const me = (await (await page.request.get('/api/me')).json()) as { account: { wallet?: { address: string } } };
    if (me.account.wallet) await page.locator('#wallet-address', { hasText: me.account.wallet.address }).waitFor();
    else expect(await page.locator('#wallet-address').textContent()).toBe('—');
    await screenshot(page, 'dashboard');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/app/login?signed_out=1');
    await page.getByText('You have been logged out.').waitFor();
    await screenshot(page, 'login');
    await page.goto('/app');
    expect(new URL(page.url()).pathname).toBe('/app/login');
    expect(realErrors(consoleErrors)).toEqual([]);
    await context.close();
  });

  it('shows form errors next to the fields and in an alert region', async () => {
    const { context, page } = await newPage(browser, service.url);
    await page.goto('/app/signup');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#name-error', { hasText: 'Enter your business name.' }).waitFor();
    expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('alert').filter({ hasText: 'Please fix the highlighted fields.' }).waitFor();
    // Focus goes to the first field to fix.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('name');

    await page.getByLabel('Business name').fill('Shop');
    await page.getByLabel('Email').fill('shop@example.com');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#password-error', { hasText: 'Use at least 8 characters.' }).waitFor();

    await page.goto('/app/login');
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Incorrect email or password.' }).waitFor();
    await context.close();
  });

  it('answers unknown /app paths with an HTML 404 page', async () => {
    const { context, page } = await newPage(browser, service.url);
    const res = await page.goto('/app/no-such-page');
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Go to the dashboard' }).waitFor();
    await context.close();
  });

  it('has no horizontal scrolling at 375px on every page', async () => {
    const { context, page, consoleErrors } = await newPage(browser, service.url, { width: 375, height: 740 });
    for (const path of ['/app/signup', '/app/login', '/app/nope']) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(await scrollWidth(page), path).toBeLessThanOrEqual(375);
    }
    await signUpThroughUi(page, 'A merchant with a rather long business name that goes on and on');
    const created = await page.request.post('/api/keys', { data: { label: 'server' } });
    const secret = ((await created.json()) as { key: { secret: string } }).key.secret;
    await call(`${service.api}/v1/payments`, {
      key: secret,
      body: { amount: 2500, currency: 'NGN', redirect_url: 'https://shop.example/done', reference: 'a-very-long-reference-without-any-spaces-1234567890', description: 'Haircut' },
    });
    for (const path of ['/app', '/app/developers', '/app/nope']) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (path === '/app') await page.locator('#payments-body tr').first().waitFor();
      if (path === '/app/developers') await page.locator('#keys-body tr').first().waitFor();
      expect(await scrollWidth(page), path).toBeLessThanOrEqual(375);
      if (path === '/app/developers') await screenshot(page, 'developers-375');
    }
    await page.goto('/app');
    await page.locator('#payments-body tr').first().waitFor();
    await screenshot(page, 'dashboard-375');
    await page.getByRole('button', { name: 'Assistant', exact: true }).click();
    await page.getByLabel('Message').waitFor();
    expect(await scrollWidth(page), 'chat open').toBeLessThanOrEqual(375);
    await screenshot(page, 'chat-375', { fullPage: false });
    expect(realErrors(consoleErrors)).toEqual([]);
    await context.close();
  });
});
