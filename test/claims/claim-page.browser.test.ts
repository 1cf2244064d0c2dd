import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.js';
import { newAccount, fund } from '../helpers/money.js';
import { launchBrowser, newPage, realErrors, screenshot } from '../web/browser.js';

/**
 * The claim page on a phone (390×844) in real Chromium: it says what the money is, from whom
 * and what to do, in the sender's language (French here), fits the screen, and the sign-up
 * form on it creates the account and claims the money.
 */
describe('claim page on a phone', () => {
  let svc: TestService;
  let browser: Browser;

  beforeAll(async () => {
    svc = await startTestService();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop({ removeData: true });
  });

  it('explains the money in the sender’s language and claims it through its sign-up form', async () => {
    const sender = await newAccount(svc, { name: 'Awa Diop', email: `awa${Date.now()}@example.com`, country: 'SN', localCurrency: 'XOF' });
    await fund(svc, sender, '50');
    const email = `fatou${Date.now()}@example.com`;
    const made = await svc.deps.claims.create(sender.id, { contact: email, amount: '5000', note: 'Pour le marché' });
    if (!made.ok) throw new Error(made.message);

    const { context, page, consoleErrors } = await newPage(browser, svc.url, { width: 390, height: 844 });
    await page.goto(`/claim/${made.token}`);
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    expect(await page.textContent('#from')).toContain('Awa Diop vous a envoyé');
    expect(await page.textContent('#what')).toContain('dollar numérique');
    expect(await page.textContent('#how')).toContain('f•••@example.com');
    expect(await page.textContent('#note')).toContain('Pour le marché');
    // Fits a phone: nothing wider than the screen, the main button is a comfortable target.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const box = await page.locator('#signup-claim').boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(44);
    await screenshot(page, 'claim-phone');

    await page.fill('input[name=name]', 'Fatou');
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', 'correct horse battery');
    await page.click('#signup-claim');
    await page.waitForSelector('#outcome');
    expect(await page.textContent('#outcome')).toContain('sont dans votre portefeuille');
    expect(await page.textContent('#state')).toContain('a été reçu');
    expect((await svc.deps.claims.get(made.claim.id))!.status).toBe('claimed');
    expect(realErrors(consoleErrors)).toEqual([]);
    await context.close();
  });

  it('a test key’s claim says it is test money, above everything, in the sender’s language (h15tour); a live one does not', async () => {
    const sender = await newAccount(svc, { name: 'Awa Diop', email: `awa-test${Date.now()}@example.com`, country: 'SN', localCurrency: 'XOF' });
    await fund(svc, sender, '50');
    const test = await svc.deps.claims.create(sender.id, { contact: `t${Date.now()}@example.com`, amount: '1000', livemode: false });
    const live = await svc.deps.claims.create(sender.id, { contact: `l${Date.now()}@example.com`, amount: '1000' });
    if (!test.ok || !live.ok) throw new Error('claims not made');
    const { context, page, consoleErrors } = await newPage(browser, svc.url, { width: 390, height: 844 });
    await page.goto(`/claim/${test.token}`);
    expect(await page.textContent('#test-mode')).toBe('Mode test : c’est de l’argent de test, envoyé avec une clé de test. Ce n’est pas de l’argent réel.');
    const [notice, title] = await Promise.all([page.locator('#test-mode').boundingBox(), page.locator('#claim-title').boundingBox()]);
    expect(notice!.y).toBeLessThan(title!.y);
    await screenshot(page, 'claim-phone-test-mode');
    await page.goto(`/claim/${live.token}`);
    expect(await page.locator('#test-mode').count()).toBe(0);
    expect(realErrors(consoleErrors)).toEqual([]);
    await context.close();
  });
});
