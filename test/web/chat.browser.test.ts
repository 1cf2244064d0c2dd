import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { formatUnits, parseUnits } from 'viem';
import { PendingActions } from '../../src/agent/pending-tool-call.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { launchBrowser, newPage, realErrors, screenshot, signUpThroughUi } from './browser.js';

describe('chat widget (Chromium)', () => {
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

  async function signedInPage(): Promise<{ context: BrowserContext; page: Page; consoleErrors: string[] }> {
    const opened = await newPage(browser, service.url);
    await signUpThroughUi(opened.page);
    return opened;
  }

  const assistant = (page: Page) => page.getByRole('button', { name: 'Assistant', exact: true });
  const lastReply = (page: Page) => page.locator('#chat-log li.msg-assistant, #chat-log li.msg-error').last();

  async function ask(page: Page, text: string): Promise<void> {
    const before = await page.locator('#chat-log li.msg-assistant, #chat-log li.msg-error').count();
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#chat-log li.msg-assistant, #chat-log li.msg-error').nth(before).waitFor();
  }

  it('answers a help message from the real agent', async () => {
    const { context, page, consoleErrors } = await signedInPage();
    await assistant(page).click();
    await ask(page, 'what can you do?');
    const reply = lastReply(page);
    expect(await reply.getAttribute('class')).toContain('msg-assistant');
    expect(((await reply.textContent()) ?? '').length).toBeGreaterThan(20);
    await screenshot(page, 'chat-open', { fullPage: false });
    expect(realErrors(consoleErrors)).toEqual([]);
    await context.close();
  });

  it('opens and closes accessibly and keeps the conversation across pages', async () => {
    const { context, page, consoleErrors } = await signedInPage();
    // Widget behaviour only: the agent's answer is stubbed to the documented shape.
    await page.route('**/api/chat', (route) =>
      route.fulfill({ json: { ok: true, action: 'info', reply: 'I can create payment links, pay bills and send money. See https://example.com/help.' } }),
    );
    expect(await assistant(page).getAttribute('aria-expanded')).toBe('false');
    await assistant(page).click();
    expect(await assistant(page).getAttribute('aria-expanded')).toBe('true');
    // Focus goes to the message box.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('chat-input');
    await ask(page, 'what can you do?');
    await lastReply(page).getByRole('link', { name: 'https://example.com/help' }).waitFor();
    await screenshot(page, 'chat-widget-stubbed', { fullPage: false });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Developers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
    await page.locator('#chat-log li.msg-user', { hasText: 'what can you do?' }).waitFor();
    await page.locator('#chat-log li.msg-assistant', { hasText: 'I can create payment links' }).waitFor();
    expect(await assistant(page).getAttribute('aria-expanded')).toBe('true');

    // Escape closes the panel and returns focus to the button.
    await page.getByLabel('Message').press('Escape');
    await page.locator('#chat-panel').waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('chat-toggle');

    // Logging out clears the conversation.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/app/login?signed_out=1');
    expect(await page.evaluate(() => sessionStorage.getItem('sp.chat.v1'))).toBeNull();
    await page.unrouteAll();
    expect(realErrors(consoleErrors)).toEqual([]);
    await context.close();
  });

  it('creates a payment link from a message and shows the checkout link', async () => {
    const { context, page } = await signedInPage();
    await assistant(page).click();
    await ask(page, 'create a payment link for 2500 NGN for a haircut');
    const reply = lastReply(page);
    expect(await reply.getAttribute('class')).toContain('msg-assistant');
    const link = reply.getByRole('link').first();
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toMatch(/\/pay\/pay_[0-9A-Za-z]+$/);

    // The link is a real checkout for this merchant.
    const id = href.split('/').pop()!;
    const view = (await (await page.request.get(`/api/checkout/${id}`)).json()) as { payment: { amount: number; currency: string } };
    expect(view.payment).toMatchObject({ amount: 2500, currency: 'NGN' });
    await context.close();
  });

  it('shows a pending action with Confirm and Cancel; one click disables both and shows the result', async () => {
    // The server side of confirmation is the agent's; here the widget is held to the contract.
    const { context, page } = await signedInPage();
    const sent: Array<{ url: string; body: unknown }> = [];
    let n = 0;
    await page.route('**/api/chat**', async (route) => {
      const req = route.request();
      sent.push({ url: new URL(req.url()).pathname, body: req.postDataJSON() });
      const path = new URL(req.url()).pathname;
      if (path === '/api/chat') {
        n++;
        return route.fulfill({
          json: {
            ok: true,
            action: 'transfer',
            reply: `Send 5,000 NGN to <b>@tunde</b> (#${n})\nConfirm to go ahead, or cancel.`,
            pending_action: { id: `act_abcdefghijklmno${n}`, expires_at: new Date(Date.now() + 600_000).toISOString(), description: `Send 5,000 NGN to <b>@tunde</b> (#${n})`, status: 'pending' },
          },
        });
      }
      if (path === '/api/chat/confirm') return route.fulfill({ json: { ok: true, action: 'transfer', reply: 'Sent 5,000 NGN to @tunde. Tx 0xabc.' } });
      return route.fulfill({ json: { ok: true, action: 'none', reply: 'Cancelled. Nothing was done.' } });
    });
    await assistant(page).click();

    await ask(page, 'send 5000 naira to @tunde');
    const first = page.locator('#chat-log .pending').last();
    // Description is text, never markup.
    await first.getByText('Send 5,000 NGN to <b>@tunde</b> (#1)').waitFor();
    expect(await page.locator('#chat-log b').count()).toBe(0);
    await first.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#chat-log li.msg-assistant', { hasText: 'Sent 5,000 NGN to @tunde.' }).waitFor();
    const settled = page.locator('#chat-log .pending').first();
    expect(await settled.getByRole('button', { name: 'Confirm' }).isDisabled()).toBe(true);
    expect(await settled.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true);
    expect(sent.find((s) => s.url === '/api/chat/confirm')?.body).toEqual({ action_id: 'act_abcdefghijklmno1' });

    await ask(page, 'send 5000 naira to @tunde');
    const second = page.locator('#chat-log .pending').last();
    await second.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#chat-log li.msg-assistant', { hasText: 'Cancelled. Nothing was done.' }).waitFor();
    expect(await second.getByRole('button', { name: 'Confirm' }).isDisabled()).toBe(true);
    expect(sent.find((s) => s.url === '/api/chat/cancel')?.body).toEqual({ action_id: 'act_abcdefghijklmno2' });
    expect(sent.filter((s) => s.url !== '/api/chat')).toHaveLength(2);

    // After navigating, the decided actions stay decided.
    await page.reload();
    await page.locator('#chat-log .pending').nth(1).waitFor();
    for (const b of await page.locator('#chat-log .pending button').all()) expect(await b.isDisabled()).toBe(true);
    await page.unrouteAll();
    await context.close();
  });

  it('shows errors and rate limits in the thread', async () => {
    const { context, page } = await signedInPage();
    await page.route('**/api/chat', (route) =>
      route.fulfill({ status: 429, headers: { 'Retry-After': '30' }, json: { ok: false, reply: 'Too many requests.' } }),
    );
    await assistant(page).click();
    await ask(page, 'hello');
    await page.locator('#chat-log li.msg-error', { hasText: 'Too many requests. Try again in 30 seconds.' }).waitFor();
    await page.unrouteAll();

    await page.route('**/api/chat', (route) => route.fulfill({ status: 400, json: { ok: false, reply: 'message must be 1-500 characters.' } }));
    await ask(page, 'hello again');
    await page.locator('#chat-log li.msg-error', { hasText: 'message must be 1-500 characters.' }).waitFor();
    await page.unrouteAll();
    await context.close();
  });

  it('a chat-widget transfer confirmed and settled: exact description, Confirm, settled on-chain, balances move', async () => {
    // The sender signs up through the page; the recipient is another account with a Telegram @username.
    const opened = await newPage(browser, service.url);
    const { context, page, consoleErrors } = opened;
    const ui = await signUpThroughUi(page, 'Wanjiru’s Kiosk');
    const { deps } = service;
    const sender = (await deps.accounts.findBy({ email: ui.email }))!;
    await deps.accounts.update(sender.id, { country: 'KE', localCurrency: 'KES' });
    const made = await deps.accounts.create({ name: 'Tunde', country: 'NG', telegramUsername: 'tunde_widget' });
    if (!made.ok) throw new Error(made.message);
    const recipient = made.account;
    const from = deps.chain.custodialAddress(sender.walletIndex);
    const to = deps.chain.custodialAddress(recipient.walletIndex);
    const funded = await deps.chain.faucet(from, parseUnits('25', 6), { nativeAmount: 0n });
    expect(funded.ok).toBe(true);
    const [fromBefore, toBefore] = [await deps.chain.balanceOf(from), await deps.chain.balanceOf(to)];

    await assistant(page).click();
    await ask(page, 'send 500 KES to @tunde_widget');
    const box = page.locator('#chat-log .pending').last();
    await box.waitFor();
    // The box shows exactly the stored pending action, and nothing has moved yet.
    const [action] = (await deps.store.table(PendingActions).findMany({ accountId: sender.id })).filter((a) => a.status === 'pending');
    expect(action).toMatchObject({ channel: 'chat', call: { name: 'send_transfer' } });
    expect(await box.locator('.pending-desc').textContent()).toBe(action!.description);
    expect(action!.description).toMatch(
      // Issue 26: the figures are a firm quote, held for QUOTE_TTL.
      new RegExp(`^${escapeRe('Send 500.00 KES to @tunde_widget (Tunde): they receive 5,978.72 NGN. 3.868472 USDC moves on-chain at 1 KES = 11.95744681 NGN (129.25 KES/USDC) plus a 0.019342 USDC fee (total 3.887814 USDC).')} This rate is held until \\d\\d:\\d\\d:\\d\\d UTC \\(quote qt_\\w+\\)\\.$`),
    );
    const confirm = box.getByRole('button', { name: 'Confirm' });
    expect(await confirm.isEnabled()).toBe(true);
    expect(await box.getByRole('button', { name: 'Cancel' }).isEnabled()).toBe(true);
    expect(await deps.chain.balanceOf(to)).toBe(toBefore);

    await confirm.click();
    const settledReply = page.locator('#chat-log li.msg-assistant', { hasText: 'Settled on-chain' });
    await settledReply.waitFor();
    await box.getByText('Confirmed.').waitFor();
    expect(await confirm.isDisabled()).toBe(true);

    // The thread names the transaction that settled it.
    const [transfer] = await deps.transfers!.history(sender.id, { limit: 1 });
    expect(transfer).toMatchObject({ status: 'settled', recipientAccountId: recipient.id, sourceCurrency: 'KES', recipientCurrency: 'NGN', feeStatus: 'settled' });
    expect(transfer!.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const replyText = (await settledReply.textContent()) ?? '';
    expect(replyText).toContain('Sent 500.00 KES to @tunde_widget, who receives 5,978.72 NGN.');
    expect(replyText).toContain(`Settled on-chain (tx ${transfer!.txHash!.slice(0, 10)}…${transfer!.txHash!.slice(-6)})`);

    // On-chain: the recipient got exactly the stablecoin amount; the sender paid it plus the fee.
    const amount = parseUnits('3.868472', 6);
    const fee = parseUnits('0.019342', 6);
    expect(BigInt(transfer!.stablecoinAmount)).toBe(amount);
    expect(BigInt(transfer!.fee)).toBe(fee);
    expect(await deps.chain.balanceOf(to)).toBe(toBefore + amount);
    expect(await deps.chain.balanceOf(from)).toBe(fromBefore - amount - fee);

    // The dashboard, reloaded, shows the wallet after the transfer; the thread stays open with the result.
    await page.reload();
    await page.locator('#wallet-balance', { hasText: `${formatUnits(fromBefore - amount - fee, 6)} USDC` }).waitFor();
    await page.locator('#chat-log li.msg-assistant', { hasText: 'Settled on-chain' }).waitFor();
    await screenshot(page, 'chat-transfer-settled', { fullPage: false });
    expect(realErrors(consoleErrors)).toEqual([]);
    await context.close();
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
