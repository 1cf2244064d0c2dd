/**
 * Issue 15 item 6, the phone-wallet path: the page shows an EIP-681 QR code and link for a plain
 * token transfer to the session's own deposit address (real Chromium at desktop and phone sizes,
 * a real service on its embedded anvil). A part payment shows what arrived; the rest settles it
 * and the page turns into the receipt by itself.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createWalletClient, getAddress, http as viemHttp, parseEther, type Address, type PrivateKeyAccount } from 'viem';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { SIZES, launchBrowser, decodeQr, screenshot } from '../web/browser.js';
import { axeViolations } from '../web/a11y.js';
import { createPayment, customer, merchantWallet, paymentRecord, setup, usdc, type Ctx } from '../settlement/helpers.js';

describe('checkout page: pay from a phone wallet by EIP-681 transfer (Chromium)', () => {
  let ctx: Ctx;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    ctx = await setup({ DEPOSIT_WATCH_INTERVAL: '1h' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.svc.stop({ removeData: true });
  });
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
    expect(problems.splice(0)).toEqual([]);
  });

  async function open(size: (typeof SIZES)[number]): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, baseURL: ctx.svc.url });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
    });
    return page;
  }

  async function phoneTransfer(from: PrivateKeyAccount, to: Address, value: bigint): Promise<void> {
    const chain = ctx.svc.deps.chain;
    const wallet = createWalletClient({ account: from, chain: chain.publicClient.chain, transport: viemHttp(chain.rpcUrl) });
    const hash = await wallet.writeContract({ address: chain.tokenAddress, abi: stablecoinAbi, functionName: 'transfer', args: [to, value] });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
  }

  for (const size of SIZES) {
    it(`${size.name}: QR code and link carry the EIP-681 transfer; a part shows as received; the rest settles the page`, async () => {
      const { chain } = ctx.svc.deps;
      const pay = await createPayment(ctx, { amount: 12.5, currency: 'USD' });
      const page = await open(size);
      await page.goto(`/pay/${pay.id}`);
      // The gas-free signed path stays the first choice; the transfer sits in the phone-wallet section.
      await expect(page.locator('#actions .btn').first().innerText()).resolves.toBe('Pay with browser wallet');
      await page.locator('#deposit-qr svg').waitFor();

      const deposit = getAddress((await page.locator('#deposit-address').innerText()).trim());
      const want = `ethereum:${chain.tokenAddress}@${chain.chainId}/transfer?address=${deposit}&uint256=12500000`;
      expect(await decodeQr(page, '#deposit-qr svg')).toBe(want);
      expect(await page.locator('#deposit-link').getAttribute('href')).toBe(want);
      await expect(page.locator('#deposit').innerText()).resolves.toContain('network fee');
      await expect(page.locator('#deposit').innerText()).resolves.toContain('12.50 USDC');
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `checkout-deposit-${size.name}-pending`);

      // 5 of 12.50 arrives: the page (polling) shows it and asks for the rest.
      const payer = await customer(ctx, usdc('12.5'), parseEther('0.01'));
      await phoneTransfer(payer, deposit, usdc('5'));
      await ctx.svc.deps.settlement.deposits.pass();
      await page.locator('#deposit-received').waitFor({ timeout: 20_000 });
      await expect(page.locator('#deposit-received').innerText()).resolves.toContain('Received so far: 5.00 USDC');
      expect(await decodeQr(page, '#deposit-qr svg')).toBe(`ethereum:${chain.tokenAddress}@${chain.chainId}/transfer?address=${deposit}&uint256=7500000`);

      // The rest: settled; the page turns into the receipt without a click.
      const merchant = await merchantWallet(ctx);
      const before = await chain.balanceOf(merchant);
      await phoneTransfer(payer, deposit, usdc('7.5'));
      await ctx.svc.deps.settlement.deposits.pass();
      await page.getByRole('heading', { level: 1, name: 'Paid to Acme Books' }).waitFor({ timeout: 20_000 });
      const record = await paymentRecord(ctx, pay.id);
      expect(record).toMatchObject({ status: 'settled', payer: payer.address });
      expect(await chain.balanceOf(merchant)).toBe(before + usdc('12.5'));
      // The receipt names the sweep transaction and the customer who sent the money.
      expect(await page.locator('#tx code').getAttribute('title')).toBe(record.tx_hash);
      expect((await page.locator('#payer').innerText()).replace(/\s/g, '')).toMatch(new RegExp(`^${payer.address.slice(0, 8)}`, 'i'));
      await screenshot(page, `checkout-deposit-${size.name}-paid`);
      // Two chain transfers, two deposit passes and the page's 5 s polls: 60-100 s on a loaded 2-core machine.
    }, 180_000);
  }
});
