/**
 * Issue 25 point 7 / issue 22 step 1: the hosted checkout page of a manual-capture session tells
 * the payer plainly what is held, captured and returned. An agent authorizes with the unmodified
 * @x402/evm AuthCaptureEvmScheme client (as test/x402/auth-capture.test.ts does), the merchant
 * captures part and voids the rest, or voids it all; real Chromium reads the page at each step,
 * and the public JSON carries the same amounts from the same view.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PrivateKeyAccount } from 'viem';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { x402Client, wrapFetchWithPayment } from '@x402/fetch';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { newPayer } from '../x402/helpers.js';
import { launchBrowser, screenshot } from '../web/browser.js';
import { axeViolations } from '../web/a11y.js';

let svc: TestService;
let merchant: Merchant;
let browser: Browser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h', AUTH_CAPTURE_HOLD: '1h' });
  merchant = await createMerchant(svc.api, 'Held Goods');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop({ removeData: true });
});
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
  expect(problems.splice(0)).toEqual([]);
});

const local = (url: string) => svc.url + new URL(url).pathname;

function agentFetch(signer: PrivateKeyAccount): typeof fetch {
  const network = `eip155:${svc.deps.chain.chainId}` as const;
  const client = x402Client.fromConfig({
    schemes: [{ network, client: new AuthCaptureEvmScheme(signer as never) }],
    spendControls: { allowedAssets: [{ network, asset: svc.deps.chain.tokenAddress, maxAmountPerPayment: '100000000' }] },
  });
  return wrapFetchWithPayment(fetch, client);
}

/** A manual-capture session of `amount` USD, authorized by an agent over x402. */
async function authorized(amount: number): Promise<string> {
  const res = await call(`${svc.api}/v1/payments`, {
    key: merchant.key,
    body: { amount, currency: 'USD', redirect_url: 'https://shop.example/done', capture_method: 'manual' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const payer = newPayer();
  expect((await svc.deps.chain.faucet(payer.address, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
  const paid = await agentFetch(payer)(local(res.body.x402_url));
  expect(paid.status, await paid.clone().text()).toBe(200);
  return res.body.id as string;
}

async function open(id: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: svc.url });
  contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
  });
  await page.goto(`/pay/${id}`);
  return page;
}

const status = (page: Page) => page.locator('#status').innerText();

describe('checkout page of a manual-capture session (Chromium)', () => {
  it('authorized: held, not yet charged; captured in part: what was charged and what came back', async () => {
    const id = await authorized(2);
    const json = (await call(`${svc.api}/checkout/${id}`)).body.payment;
    expect(json).toMatchObject({ status: 'authorized', captureMethod: 'manual', amountCapturable: '2', amountCaptured: '0', amountVoided: '0' });

    let page = await open(id);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Authorized for Held Goods');
    await expect(status(page)).resolves.toMatch(/^Authorized — 2\.00 USDC held, not yet charged\. Held Goods charges it or releases it by .+ UTC; if not, it returns to you then\.$/);
    await expect(page.locator('#capture-held').innerText()).resolves.toBe('2.00 USDC');
    expect(await page.getByRole('button', { name: /^Pay / }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'checkout-authorized');

    const cap = await call(`${svc.api}/v1/payments/${id}/capture`, { key: merchant.key, body: { amount: 0.75 } });
    expect(cap.status, JSON.stringify(cap.body)).toBe(200);
    // Captured in part: the rest is still held.
    page = await open(id);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Paid to Held Goods');
    await expect(status(page)).resolves.toBe('Captured 0.75 USDC; 1.25 USDC still held, not yet charged.');

    const v = await call(`${svc.api}/v1/payments/${id}/void`, { key: merchant.key, body: {} });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    page = await open(id);
    await expect(status(page)).resolves.toBe('Captured 0.75 USDC; 1.25 USDC returned to you.');
    await expect(page.locator('#capture-captured').innerText()).resolves.toBe('0.75 USDC');
    await expect(page.locator('#capture-returned').innerText()).resolves.toBe('1.25 USDC');
    expect(await page.locator('#capture-held').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'checkout-captured');
    // The public JSON, from the same view, on the next poll.
    expect((await call(`${svc.api}/checkout/${id}`)).body.payment).toMatchObject({ status: 'captured', amountCapturable: '0', amountCaptured: '0.75', amountVoided: '1.25' });
  });

  it('voided: the whole hold returned, nothing charged', async () => {
    const id = await authorized(1.5);
    expect((await call(`${svc.api}/v1/payments/${id}/void`, { key: merchant.key, body: {} })).status).toBe(200);
    const page = await open(id);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Authorization released');
    await expect(page.title()).resolves.toBe('Authorization released · Held Goods');
    await expect(status(page)).resolves.toBe('Released — 1.50 USDC returned to you. Nothing was charged.');
    expect(await axeViolations(page)).toEqual([]);
  });
});
