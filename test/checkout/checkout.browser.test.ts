/**
 * The hosted checkout page in real headless Chromium, paying on the service's real anvil.
 * A test EIP-1193 provider (window.ethereum) is injected; its eth_signTypedData_v4 calls back
 * into the test, where viem signs with a funded key, as a browser wallet would.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../web/browser.js';
import type { PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Payments } from '../../src/payments/payments.js';
import { call } from '../helpers/service.js';
import { createPayment, customer, merchantWallet, paymentRecord, setup, stored, usdc, type Ctx } from '../settlement/helpers.js';

const SHOP = 'https://shop.example';

type WalletMode = 'ok' | 'reject-sign' | 'reject-connect' | 'wrong-key';

describe('checkout page /pay/:id (Chromium)', () => {
  let ctx: Ctx;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ctx = await setup();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.svc.stop({ removeData: true });
  });

  beforeEach(async () => {
    // A phone-sized screen for every test.
    context = await browser.newContext({ viewport: { width: 375, height: 760 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    // The merchant's site: a stand-in page for the redirect target.
    await context.route(`${SHOP}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Shop</title><h1>Thanks for your order</h1>' }),
    );
    page = await context.newPage();
    watch(page);
  });
  afterEach(async () => {
    await context?.close();
    // No script errors and nothing blocked by the CSP (script-src 'self', no inline scripts).
    expect(problems).toEqual([]);
    problems.length = 0;
  });

  const problems: string[] = [];
  function watch(p: Page) {
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    p.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
    });
  }

  /** Injects window.ethereum backed by `account`; records the requests the page made. */
  async function injectWallet(account: PrivateKeyAccount, mode: WalletMode = 'ok') {
    const requests: Array<{ method: string; params?: unknown }> = [];
    const impostor = privateKeyToAccount(generatePrivateKey());
    await page.exposeFunction('__walletRequest', async (method: string, params: unknown) => {
      requests.push({ method, params });
      if (method === 'eth_signTypedData_v4') {
        const [from, json] = params as [string, string];
        if (from.toLowerCase() !== account.address.toLowerCase()) throw new Error('unknown account');
        const typedData = JSON.parse(json);
        return (mode === 'wrong-key' ? impostor : account).signTypedData(typedData);
      }
      return null;
    });
    await page.addInitScript(
      ({ address, chainIdHex, mode }) => {
        const reject = (message: string) => Object.assign(new Error(message), { code: 4001 });
        (window as any).ethereum = {
          isTestWallet: true,
          async request({ method, params }: { method: string; params?: unknown[] }) {
            // Every request goes to the test once (it records them, and signs).
            const forward = (window as any).__walletRequest as (m: string, p: unknown) => Promise<unknown>;
            if (method === 'eth_signTypedData_v4') {
              if (mode === 'reject-sign') throw reject('User denied message signature.');
              return forward(method, params);
            }
            await forward(method, params ?? null);
            switch (method) {
              case 'eth_requestAccounts':
                if (mode === 'reject-connect') throw reject('User rejected the request.');
                return [address];
              case 'eth_accounts':
                return [address];
              case 'eth_chainId':
                return chainIdHex;
              default:
                throw Object.assign(new Error(`unsupported method ${method}`), { code: 4200 });
            }
          },
        };
      },
      { address: account.address, chainIdHex: `0x${ctx.svc.deps.chain.chainId.toString(16)}`, mode },
    );
    return { requests };
  }

  const open = async (id: string) => {
    const res = await page.goto(`${ctx.svc.url}/pay/${id}`);
    expect(res?.status()).toBe(200);
  };
  const shot = (name: string) => screenshot(page, `checkout-${name}`);
  const noHorizontalScroll = async () =>
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
  const errorText = () => page.locator('#error').innerText();

  async function expectStillPending(id: string, payer?: PrivateKeyAccount, balance?: bigint) {
    expect((await stored(ctx, id)).status).toBe('pending');
    if (payer && balance !== undefined) expect(await ctx.svc.deps.chain.balanceOf(payer.address)).toBe(balance);
  }

  it('shows the payment and pays with a browser wallet, landing on the redirect URL', async () => {
    const pay = await createPayment(ctx, {
      amount: 5000,
      currency: 'KES',
      description: 'Two paperbacks and a bookmark',
      redirect_url: `${SHOP}/thanks?order=77`,
    });
    const due = BigInt((await paymentRecord(ctx, pay.id)).stablecoin_amount_base_units);
    const payer = await customer(ctx, due, 0n);
    const wallet = await injectWallet(payer);
    const to = await merchantWallet(ctx);
    const before = await ctx.svc.deps.chain.balanceOf(to);

    await open(pay.id);
    await expect(page.title()).resolves.toBe('Pay Acme Books');
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Pay Acme Books');
    await expect(page.locator('#description').innerText()).resolves.toBe('Two paperbacks and a bookmark');
    await expect(page.locator('#amount').innerText()).resolves.toBe('5,000.00 KES');
    await expect(page.locator('#stablecoin-amount').innerText()).resolves.toBe('≈ 38.68 USDC');
    await expect(page.locator('#stablecoin-exact').innerText()).resolves.toBe('Exact amount: 38.68472 USDC');
    const status = page.locator('#status');
    await expect(status.getAttribute('role')).resolves.toBe('status');
    await expect(status.getAttribute('aria-live')).resolves.toBe('polite');
    await expect(status.innerText()).resolves.toBe('Awaiting payment');
    // A live countdown (about an hour left), ticking.
    const countdown = page.locator('#countdown');
    const first = await countdown.innerText();
    expect(first).toMatch(/^(1:00:00|59:\d\d)$/);
    await expect.poll(() => countdown.innerText(), { timeout: 5_000 }).not.toBe(first);
    await noHorizontalScroll();
    await shot('pending');

    await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
    await page.waitForURL(`${SHOP}/thanks?**`, { timeout: 30_000 });
    const landed = new URL(page.url());
    expect(landed.searchParams.get('order')).toBe('77');
    expect(landed.searchParams.get('payment_id')).toBe(pay.id);
    expect(landed.searchParams.get('status')).toBe('settled');
    await expect(page.locator('h1').innerText()).resolves.toBe('Thanks for your order');

    const record = await paymentRecord(ctx, pay.id);
    expect(record).toMatchObject({ status: 'settled', payer: payer.address });
    expect(record.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await ctx.svc.deps.chain.balanceOf(to)).toBe(before + due);
    expect(await ctx.svc.deps.chain.nativeBalance(payer.address)).toBe(0n);
    const methods = wallet.requests.map((r) => r.method);
    expect(methods).toContain('eth_requestAccounts');
    expect(methods).toContain('eth_signTypedData_v4');
    const signed = JSON.parse((wallet.requests.find((r) => r.method === 'eth_signTypedData_v4')!.params as [string, string])[1]);
    expect(signed).toMatchObject({ primaryType: 'TransferWithAuthorization', message: { from: payer.address, to, value: due.toString() } });

    // Coming back to the page later shows the settled state, no pay button, and the way back.
    await open(pay.id);
    await expect(page.locator('#status').innerText()).resolves.toBe('Paid. Thank you!');
    expect(await page.getByRole('button', { name: /Pay with/ }).count()).toBe(0);
    const back = page.getByRole('link', { name: 'Return to Acme Books' });
    const href = new URL((await back.getAttribute('href'))!);
    expect(href.searchParams.get('status')).toBe('settled');
    expect(href.searchParams.get('payment_id')).toBe(pay.id);
    await noHorizontalScroll();
    await shot('settled');
  });

  it('pays with the dev test wallet', async () => {
    const pay = await createPayment(ctx, { amount: 9.99, redirect_url: `${SHOP}/done` });
    const to = await merchantWallet(ctx);
    const before = await ctx.svc.deps.chain.balanceOf(to);
    await open(pay.id);
    await expect(page.locator('#test-hint').innerText()).resolves.toMatch(/Development only/);
    await page.getByRole('button', { name: 'Pay with a test wallet' }).click();
    await page.waitForURL(`${SHOP}/done?**`, { timeout: 30_000 });
    const landed = new URL(page.url());
    expect(landed.searchParams.get('payment_id')).toBe(pay.id);
    expect(landed.searchParams.get('status')).toBe('settled');
    expect((await paymentRecord(ctx, pay.id)).status).toBe('settled');
    expect(await ctx.svc.deps.chain.balanceOf(to)).toBe(before + usdc('9.99'));
  });

  it('expired: shows the state without a pay button; a live countdown expires the page too', async () => {
    const pay = await createPayment(ctx, { redirect_url: `${SHOP}/back` });
    await ctx.svc.deps.store.transaction(async (tx) => {
      await tx.table(Payments).update(pay.id, { expiresAt: new Date(Date.now() - 60_000).toISOString() });
    });
    await open(pay.id);
    await expect(page.locator('#status').innerText()).resolves.toMatch(/^This payment session expired on \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC\. Nothing was charged\.$/);
    expect(await page.getByRole('button').count()).toBe(0);
    expect(await page.locator('#countdown').count()).toBe(0);
    const back = new URL((await page.getByRole('link', { name: 'Return to Acme Books' }).getAttribute('href'))!);
    expect(back.searchParams.get('status')).toBe('expired');
    await noHorizontalScroll();
    await shot('expired');

    // A session running out while the page is open.
    const soon = await createPayment(ctx);
    await ctx.svc.deps.store.transaction(async (tx) => {
      await tx.table(Payments).update(soon.id, { expiresAt: new Date(Date.now() + 3_000).toISOString() });
    });
    await open(soon.id);
    await expect(page.getByRole('button', { name: 'Pay with browser wallet' }).isVisible()).resolves.toBe(true);
    await page.locator('#status').filter({ hasText: 'expired' }).waitFor({ timeout: 10_000 });
    await expect(page.getByRole('button', { name: 'Pay with browser wallet' }).isVisible()).resolves.toBe(false);
  });

  it('failed: shows the state without a pay button', async () => {
    const pay = await createPayment(ctx);
    await ctx.svc.deps.payments.transition(pay.id, 'pending', 'processing', { payer: privateKeyToAccount(generatePrivateKey()).address });
    await ctx.svc.deps.payments.transition(pay.id, 'processing', 'failed', { failureReason: 'test' });
    await open(pay.id);
    await expect(page.locator('#status').innerText()).resolves.toBe('This payment failed. Nothing was charged.');
    expect(await page.getByRole('button').count()).toBe(0);
  });

  describe('clear errors, payment still pending', () => {
    it('no wallet installed', async () => {
      const pay = await createPayment(ctx);
      await open(pay.id);
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page.locator('#error').waitFor({ state: 'visible' });
      expect(await errorText()).toMatch(/No browser wallet found/);
      // Focus moves to the message so screen readers and keyboards land on it.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('error');
      await expect(page.locator('#error').getAttribute('role')).resolves.toBe('alert');
      await expectStillPending(pay.id);
      await noHorizontalScroll();
      await shot('error-no-wallet');
    });

    it('user rejected the connection, then the signature', async () => {
      const pay = await createPayment(ctx);
      const payer = await customer(ctx, usdc('12.5'));
      await injectWallet(payer, 'reject-connect');
      await open(pay.id);
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page.locator('#error').waitFor({ state: 'visible' });
      expect(await errorText()).toMatch(/declined the wallet connection/);

      await context.close();
      context = await browser.newContext({ viewport: { width: 375, height: 760 } });
      page = await context.newPage();
      watch(page);
      await injectWallet(payer, 'reject-sign');
      await open(pay.id);
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page.locator('#error').waitFor({ state: 'visible' });
      expect(await errorText()).toMatch(/rejected the signature request/);
      // The button is usable again for another try.
      await expect(page.getByRole('button', { name: 'Pay with browser wallet' }).isEnabled()).resolves.toBe(true);
      await expectStillPending(pay.id, payer, usdc('12.5'));
    });

    it('bad signature', async () => {
      const pay = await createPayment(ctx);
      const payer = await customer(ctx, usdc('12.5'));
      await injectWallet(payer, 'wrong-key');
      await open(pay.id);
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page.locator('#error').waitFor({ state: 'visible' });
      expect(await errorText()).toMatch(/signature does not match your wallet/);
      await expectStillPending(pay.id, payer, usdc('12.5'));
    });

    it('insufficient balance', async () => {
      const pay = await createPayment(ctx);
      const payer = await customer(ctx, usdc('1'));
      await injectWallet(payer);
      await open(pay.id);
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page.locator('#error').waitFor({ state: 'visible' });
      expect(await errorText()).toMatch(/does not hold enough USDC/);
      await expectStillPending(pay.id, payer, usdc('1'));
      await shot('error-insufficient-balance');
    });

    it('already paid (in another tab)', async () => {
      const pay = await createPayment(ctx);
      const payer = await customer(ctx, usdc('12.5'));
      await injectWallet(payer);
      await open(pay.id);
      const paid = await call(`${ctx.svc.api}/dev/test-wallet-pay/${pay.id}`, { method: 'POST' });
      expect(paid.status).toBe(200);
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page.locator('#error').waitFor({ state: 'visible' });
      expect(await errorText()).toMatch(/already been paid/);
      expect(await ctx.svc.deps.chain.balanceOf(payer.address)).toBe(usdc('12.5'));
    });

    it('expired while the customer was away', async () => {
      const pay = await createPayment(ctx);
      const payer = await customer(ctx, usdc('12.5'));
      await injectWallet(payer);
      await open(pay.id);
      await ctx.svc.deps.store.transaction(async (tx) => {
        await tx.table(Payments).update(pay.id, { expiresAt: new Date(Date.now() - 1_000).toISOString() });
      });
      // The page's own clock still says there is time; the server says no.
      await page.evaluate(() => {
        const root = document.getElementById('main')!;
        root.dataset.expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      });
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page.locator('#error').waitFor({ state: 'visible' });
      expect(await errorText()).toMatch(/expired/);
      await expect(page.getByRole('button', { name: 'Pay with browser wallet' }).isVisible()).resolves.toBe(false);
      expect(await ctx.svc.deps.chain.balanceOf(payer.address)).toBe(usdc('12.5'));
    });
  });

  it('unknown payment: a 404 page', async () => {
    const res = await page.goto(`${ctx.svc.url}/pay/pay_doesnotexist000000000`);
    expect(res?.status()).toBe(404);
    await expect(page.locator('h1').innerText()).resolves.toBe('Payment not found');
  });

  it('keyboard: the pay buttons are reachable with Tab and have accessible names', async () => {
    const pay = await createPayment(ctx);
    await open(pay.id);
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      names.push(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText ?? ''));
    }
    expect(names).toContain('Pay with browser wallet');
    expect(names).toContain('Pay with a test wallet');
  });
});
