/**
 * Issue 27, "the floating Assistant button covers card content on a phone": on every signed-in
 * page that carries the Assistant (home, dashboard, a payment, Developers, a confirm-action page,
 * not-found), at 390x844 and 1280x800, scrolled to the very end, the Assistant's box intersects no
 * card, text or control; and it still works there: it opens inside the screen, sends a message to
 * the real agent and shows the answer. Each page is also held to the layout rules (nothing wider
 * than its parent, no text cut, no word broken across lines) and writes every time one way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { fund, newAccount } from '../helpers/money.js';
import { SIZES, launchBrowser, newPage, realErrors, screenshot, signUpThroughUi } from './browser.js';
import { brokenWords, layoutProblems } from './layout.js';

const TIME = /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC$/;

/** What a person reads or presses; containers (main, sections without a card) are left out. */
const CONTENT = '.card, a, button, input, select, textarea, label, summary, td, th, p, li, dt, dd, h1, h2, h3, h4, pre, code, img, svg, table';

/** Every visible piece of content (outside the Assistant) the Assistant's closed button overlaps. */
async function covered(page: Page): Promise<string[]> {
  return page.evaluate((sel) => {
    const chat = document.getElementById('chat')!;
    const t = document.getElementById('chat-toggle')!.getBoundingClientRect();
    const hits: string[] = [];
    for (const el of Array.from(document.querySelectorAll(sel))) {
      if (chat.contains(el)) continue;
      const s = getComputedStyle(el);
      if (s.display === 'none' || s.visibility === 'hidden') continue;
      const r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) continue; // visually hidden text
      if (r.right <= t.left || r.left >= t.right || r.bottom <= t.top || r.top >= t.bottom) continue;
      hits.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} "${((el as HTMLElement).innerText ?? '').trim().slice(0, 30)}" ${Math.round(r.top)}-${Math.round(r.bottom)} vs ${Math.round(t.top)}-${Math.round(t.bottom)}`);
    }
    return hits;
  }, CONTENT);
}

describe('the Assistant covers nothing and works on every page (Chromium)', () => {
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    service = await startTestService({ AGENT_RATE_LIMIT: '1000/min', RECONCILE_INTERVAL: '1h' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop({ removeData: true });
  });

  for (const size of SIZES) {
    it(`${size.name}: scrolled to the end, the Assistant covers no content; it opens and sends`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, size);
      await signUpThroughUi(page, `Cover ${size.name}`);
      const me = (await (await page.request.get('/api/me')).json()) as { account: { id: string } };
      const origin = { origin: service.url };

      // A payment with a refund (the longest payment page) and a held transfer (a confirm-action page).
      const key = ((await (await page.request.post('/api/keys', { data: { label: 'cover' }, headers: origin })).json()) as { key: { secret: string } }).key.secret;
      const created = await call(`${service.api}/v1/payments`, {
        key,
        body: { amount: 25, currency: 'USD', redirect_url: 'https://shop.example/done', reference: `cover-${size.name}`, description: 'Haircut' },
      });
      expect(created.status).toBe(201);
      const payment = created.body.id as string;
      expect((await page.request.post(`/api/dev/test-wallet-pay/${payment}`, { headers: origin })).status()).toBe(200);
      expect((await page.request.post(`/api/app/payments/${payment}/refunds`, { data: { amount: 5 }, headers: origin })).status()).toBeLessThan(300);
      const friend = await newAccount(service, { name: 'Friend', country: 'NG' });
      await service.deps.accounts.update(friend.id, { telegramUsername: `cover_friend_${size.name}` });
      await fund(service, (await service.deps.accounts.get(me.account.id))!, '50');
      const held = await page.request.post('/api/chat', { data: { message: `send 5 USD to @cover_friend_${size.name}` }, headers: origin });
      const action = ((await held.json()) as { pending_action?: { id: string } }).pending_action?.id;
      expect(action, await held.text()).toMatch(/^act_/);

      const pages = [
        ['home', '/'],
        ['dashboard', '/app'],
        ['payment', `/app/payments/${payment}`],
        ['developers', '/app/developers'],
        ['action', `/app/actions/${action}`],
        ['not-found', '/app/nothing-here'],
      ] as const;
      for (const [name, url] of pages) {
        await page.goto(url);
        await page.locator('#chat-toggle').waitFor();
        await page.waitForLoadState('networkidle');
        await screenshot(page, `page-27-${size.name}-${name}`);
        expect({ page: name, problems: await layoutProblems(page, 'main') }).toEqual({ page: name, problems: [] });
        expect({ page: name, broken: await brokenWords(page, 'main') }).toEqual({ page: name, broken: [] });
        // One time format everywhere: "28 Nov 2026, 09:41 UTC", never raw ISO.
        for (const t of await page.locator('main time').allInnerTexts()) expect(t.trim(), name).toMatch(TIME);
        expect(await page.locator('main').innerText(), name).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
        if (name === 'action') {
          // The confirm page: a readable expiry, and who asked (the signed-in chat, no key).
          await expect(page.locator('#expires').innerText()).resolves.toMatch(/^Expires on \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC;/);
          await expect(page.locator('#asked-by').innerText()).resolves.toMatch(/ asked on \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC to do this:$/);
        }
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await screenshot(page, `assistant-27-${size.name}-${name}-end`, { fullPage: false });
        expect({ page: name, covered: await covered(page) }).toEqual({ page: name, covered: [] });

        // It still works here: opens inside the screen, sends, shows the agent's answer.
        const toggle = page.getByRole('button', { name: 'Assistant', exact: true });
        if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
        const panel = page.locator('#chat-panel');
        await panel.waitFor();
        const box = (await panel.boundingBox())!;
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.y + box.height).toBeLessThanOrEqual(size.height + 1);
        expect(box.x + box.width).toBeLessThanOrEqual(size.width + 1);
        const replies = page.locator('#chat-log li.msg-assistant, #chat-log li.msg-error');
        const before = await replies.count();
        await page.getByLabel('Message').fill('what can you do?');
        await page.getByRole('button', { name: 'Send' }).click();
        await replies.nth(before).waitFor();
        expect(await replies.nth(before).getAttribute('class')).toContain('msg-assistant');
        await screenshot(page, `assistant-27-${size.name}-${name}-open`, { fullPage: false });
        await page.locator('#chat-close').click();
        await panel.waitFor({ state: 'hidden' });
      }
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    }, 240_000); // many pages and real settles: slow on a shared machine
  }
});
