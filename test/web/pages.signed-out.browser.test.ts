/**
 * Issue 27's proof for the pages a visitor meets before signing in, per page and state at 1280x800
 * and 390x844 (real Chromium, a real service): the landing page, sign-up and log-in (empty and
 * with their errors shown), the not-found page, and the claim page (open, then claimed). Nothing
 * is wider than its parent, no text is cut, no word is broken across lines; screenshots of each
 * land in test/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.js';
import { fund, newAccount } from '../helpers/money.js';
import { SIZES, launchBrowser, newPage, realErrors, screenshot } from './browser.js';
import { brokenWords, layoutProblems } from './layout.js';

describe('signed-out pages fit at both sizes (Chromium)', () => {
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

  async function fits(page: Page, shot: string): Promise<void> {
    await screenshot(page, shot);
    expect({ shot, problems: await layoutProblems(page, 'main') }).toEqual({ shot, problems: [] });
    expect({ shot, broken: await brokenWords(page, 'main') }).toEqual({ shot, broken: [] });
  }

  for (const size of SIZES) {
    it(`${size.name}: landing, sign-up, log-in (with errors), not-found and the claim page (open, claimed)`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, size);
      await page.goto('/');
      await fits(page, `out-27-${size.name}-home`);

      await page.goto('/app/signup');
      await fits(page, `out-27-${size.name}-signup`);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.locator('[role=alert]:not(:empty), .field-error:not([hidden])').first().waitFor();
      await fits(page, `out-27-${size.name}-signup-errors`);

      await page.goto('/app/login');
      await fits(page, `out-27-${size.name}-login`);
      await page.getByLabel('Email').fill('nobody@example.com');
      await page.getByLabel('Password').fill('wrong password here');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.locator('[role=alert]:not(:empty), .field-error:not([hidden])').first().waitFor();
      await fits(page, `out-27-${size.name}-login-error`);

      await page.goto('/app/nothing-here');
      await fits(page, `out-27-${size.name}-not-found`);

      // A claim link as its recipient opens it, then claims it by signing up on the page.
      const sender = await newAccount(service, { name: 'Awa Diop', email: `awa${size.name}${Date.now()}@example.com`, country: 'NG' });
      await fund(service, sender, '50');
      const email = `fatou${size.name}${Date.now()}@example.com`;
      const made = await service.deps.claims.create(sender.id, { contact: email, amount: '5000', note: 'For the market' });
      if (!made.ok) throw new Error(made.message);
      await page.goto(`/claim/${made.token}`);
      await page.locator('#signup-claim').waitFor();
      await fits(page, `out-27-${size.name}-claim-open`);
      await page.fill('input[name=name]', 'Fatou');
      await page.fill('input[name=email]', email);
      await page.fill('input[name=password]', 'correct horse battery');
      await page.click('#signup-claim');
      await page.locator('#outcome').waitFor();
      await fits(page, `out-27-${size.name}-claim-claimed`);
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    }, 180_000); // many pages and real settles: slow on a shared machine
  }
});
