import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { parseUnits } from 'viem';
import { startTestService, type TestService } from '../helpers/service.js';
import { launchBrowser, newPage, realErrors, signUpThroughUi } from './browser.js';

/**
 * Leftover 4 of the sixteenth round: a held action cancelled by typing "cancel" (or replaced by a typed
 * correction, "make it 3") kept live Confirm and Cancel buttons in the widget. They moved nothing, but
 * they should not be offered: the box now shows the action closed. Real agent, real Chromium.
 */
describe('chat widget: typed answers close the earlier box (Chromium)', () => {
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

  async function ask(page: Page, text: string): Promise<void> {
    const before = await page.locator('#chat-log li.msg-assistant, #chat-log li.msg-error').count();
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#chat-log li.msg-assistant, #chat-log li.msg-error').nth(before).waitFor();
  }

  it('"cancel" typed under a held transfer disables its buttons; "make it 3" replaces it and only the new box confirms', async () => {
    const { context, page, consoleErrors } = await newPage(browser, service.url);
    const ui = await signUpThroughUi(page, 'Typed Answers Shop');
    const { deps } = service;
    const sender = (await deps.accounts.findBy({ email: ui.email }))!;
    await deps.accounts.update(sender.id, { localCurrency: 'USD' });
    expect((await deps.chain.faucet(deps.chain.custodialAddress(sender.walletIndex), parseUnits('20', 6), { nativeAmount: 0n })).ok).toBe(true);
    const made = await deps.accounts.create({ name: 'Kofi', country: 'US', telegramUsername: 'kofi_typed' });
    if (!made.ok) throw new Error(made.message);
    const to = deps.chain.custodialAddress(made.account.walletIndex);
    const toBefore = await deps.chain.balanceOf(to);

    await page.getByRole('button', { name: 'Assistant', exact: true }).click();
    await ask(page, 'send 5 USD to @kofi_typed');
    const first = page.locator('#chat-log .pending').nth(0);
    await first.waitFor();
    expect(await first.getByRole('button', { name: 'Confirm' }).isEnabled()).toBe(true);

    await ask(page, 'cancel');
    await page.locator('#chat-log li.msg-assistant', { hasText: 'Cancelled. Nothing was done' }).waitFor();
    await first.getByText('Cancelled.', { exact: true }).waitFor();
    expect(await first.getByRole('button', { name: 'Confirm' }).isDisabled()).toBe(true);
    expect(await first.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true);

    await ask(page, 'send 5 USD to @kofi_typed');
    const second = page.locator('#chat-log .pending').nth(1);
    await second.waitFor();
    await ask(page, 'make it 3');
    const third = page.locator('#chat-log .pending').nth(2);
    await third.waitFor();
    expect(await third.locator('.pending-desc').textContent()).toContain('Send 3.00 USD to @kofi_typed');
    await second.getByText('Replaced by the corrected request below', { exact: false }).waitFor();
    expect(await second.getByRole('button', { name: 'Confirm' }).isDisabled()).toBe(true);
    expect(await third.getByRole('button', { name: 'Confirm' }).isEnabled()).toBe(true);

    // Closed boxes stay closed after a reload; the corrected one confirms and moves exactly 3.
    await page.reload();
    await page.locator('#chat-log .pending').nth(2).waitFor();
    expect(await page.locator('#chat-log .pending').nth(0).getByRole('button', { name: 'Confirm' }).isDisabled()).toBe(true);
    expect(await page.locator('#chat-log .pending').nth(1).getByRole('button', { name: 'Confirm' }).isDisabled()).toBe(true);
    await page.locator('#chat-log .pending').nth(2).getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#chat-log li.msg-assistant', { hasText: 'Settled on-chain' }).waitFor();
    expect(await deps.chain.balanceOf(to)).toBe(toBefore + parseUnits('3', 6));
    expect(realErrors(consoleErrors)).toEqual([]);
    await context.close();
  });
});
