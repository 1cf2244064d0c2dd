/**
 * The agent's tools over MCP, proven with the official SDK's own Client over Streamable HTTP:
 * the tool list (schemas equal to the agent's zod schemas), a read-only call, a transfer that
 * only creates a pending action, its confirmation by the signed-in account holder on our page
 * in headless Chromium (settles once), a cancelled one that moves nothing, and another
 * account that can neither see nor confirm it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Browser, BrowserContext } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolInputs } from '../../src/agent/tool-inputs.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, fund, walletOf } from '../helpers/money.js';
import { launchBrowser } from '../web/browser.js';
import { PendingActions } from '../../src/pending-actions/pending-actions.js';

let svc: TestService;
let browser: Browser;
let alice: Merchant;
let bob: Merchant;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  browser = await launchBrowser();
  alice = await createMerchant(svc.api, 'Alice');
  bob = await createMerchant(svc.api, 'Bob');
  await fund(svc, (await svc.deps.accounts.get(alice.accountId))!, '100');
});

afterAll(async () => {
  await browser?.close();
  await svc?.stop({ removeData: true });
});

async function mcpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

/** A browser signed in as `m` (the session cookie from sign-up). */
async function signedIn(m: Merchant): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: svc.url });
  const [name, value] = m.cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: svc.url }]);
  return context;
}

async function wallets() {
  const a = (await svc.deps.accounts.get(alice.accountId))!;
  const b = (await svc.deps.accounts.get(bob.accountId))!;
  return { alice: await balance(svc, walletOf(svc, a)), bob: await balance(svc, walletOf(svc, b)) };
}

const path = (url: string) => new URL(url).pathname;

describe('MCP server over the agent tools', () => {
  it('lists every agent tool with the agent’s own input schema', async () => {
    const client = await mcpClient(alice.key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(ToolInputs).sort());
    for (const t of tools) {
      const { $schema: _drop, ...ours } = z.toJSONSchema(ToolInputs[t.name as keyof typeof ToolInputs], { io: 'input' }) as Record<string, unknown>;
      expect(t.inputSchema).toEqual({ ...ours, type: 'object' });
      expect(t.description?.length).toBeGreaterThan(10);
    }
    await client.close();
  });

  it('refuses a call without a valid key', async () => {
    const res = await fetch(`${svc.api}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    await expect(mcpClient('sk_live_not_a_key')).rejects.toThrow();
  });

  it('read-only tools (a quote, the balance) answer at once and move nothing', async () => {
    const before = await wallets();
    const client = await mcpClient(alice.key);
    const quote = await client.callTool({ name: 'quote_transfer', arguments: { amount: '5', currency: 'USD', recipient: bob.email } });
    expect(quote.isError, JSON.stringify(quote.structuredContent)).toBeFalsy();
    expect((quote.structuredContent as any).action).toBe('quote');
    expect((quote.structuredContent as any).pending_confirmation).toBeUndefined();
    const res = await client.callTool({ name: 'get_balance', arguments: {} });
    expect(res.isError).toBeFalsy();
    expect((res.structuredContent as any).action).toBe('balance');
    expect(await wallets()).toEqual(before);
    await client.close();
  });

  it('a transfer waits for the account holder: confirmed on our page it settles once; a second confirm moves nothing', async () => {
    const client = await mcpClient(alice.key);
    const before = await wallets();
    const res = await client.callTool({ name: 'send_transfer', arguments: { recipient: bob.email, amount: '5', currency: 'USD' } });
    expect(res.isError).toBeFalsy();
    const pending = (res.structuredContent as any).pending_confirmation as { id: string; confirm_url: string; description: string };
    expect(pending.id).toMatch(/^act_/);
    expect(pending.confirm_url).toBe(`${svc.deps.config.PUBLIC_URL}/app/actions/${pending.id}`);
    expect((res.content as any)[0].text).toContain(pending.confirm_url);
    expect(await wallets()).toEqual(before); // nothing moved from the MCP call alone

    // Another account can neither see nor confirm it.
    const bobs = await signedIn(bob);
    const bobPage = await bobs.newPage();
    expect((await bobPage.goto(path(pending.confirm_url)))!.status()).toBe(404);
    const forged = await bobPage.request.post(`${path(pending.confirm_url)}/confirm`, { headers: { origin: svc.url } });
    expect(forged.status()).toBe(404);
    expect(await wallets()).toEqual(before);
    await bobs.close();

    // The account holder confirms on the page.
    const alices = await signedIn(alice);
    const page = await alices.newPage();
    await page.goto(path(pending.confirm_url));
    await page.locator('#description', { hasText: pending.description }).waitFor();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('pending');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#outcome').waitFor();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('done');
    const after = await wallets();
    expect(after.alice).toBeLessThan(before.alice);
    expect(after.bob - before.bob).toBe(5_000_000n);

    // A second confirm (a reload of the form post) moves nothing.
    const again = await page.request.post(`${path(pending.confirm_url)}/confirm`, { headers: { origin: svc.url } });
    expect(again.status()).toBe(200);
    expect(await again.text()).toContain('Already done');
    expect(await wallets()).toEqual(after);
    await alices.close();
    await client.close();
  });

  it('a cancelled transfer moves nothing and cannot be confirmed afterwards', async () => {
    const client = await mcpClient(alice.key);
    const before = await wallets();
    const res = await client.callTool({ name: 'send_transfer', arguments: { recipient: bob.email, amount: '7', currency: 'USD' } });
    const pending = (res.structuredContent as any).pending_confirmation as { id: string; confirm_url: string };
    const alices = await signedIn(alice);
    const page = await alices.newPage();
    await page.goto(path(pending.confirm_url));
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#outcome').waitFor();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('cancelled');
    const late = await page.request.post(`${path(pending.confirm_url)}/confirm`, { headers: { origin: svc.url } });
    expect(late.status()).toBe(422);
    expect(await wallets()).toEqual(before);
    // A form post from another origin is refused.
    const res2 = await client.callTool({ name: 'send_transfer', arguments: { recipient: bob.email, amount: '1', currency: 'USD' } });
    const p2 = (res2.structuredContent as any).pending_confirmation as { confirm_url: string };
    const cross = await page.request.post(`${path(p2.confirm_url)}/confirm`, { headers: { origin: 'https://evil.example' } });
    expect(cross.status()).toBe(403);
    expect(await wallets()).toEqual(before);
    await alices.close();
    await client.close();
  });
  it('the other read tools (payment link, markets, activity) answer at once over MCP and move nothing', async () => {
    const before = await wallets();
    const client = await mcpClient(alice.key);
    const link = await client.callTool({ name: 'create_payment_link', arguments: { amount: '4', currency: 'USD', description: 'MCP link' } });
    expect(link.isError, JSON.stringify(link.structuredContent)).toBeFalsy();
    expect((link.structuredContent as any).action).toBe('payment');
    const closes = new Date(Date.now() + 86_400_000).toISOString();
    const market = await client.callTool({ name: 'create_market', arguments: { question: 'Will the MCP test pass today?', closes_at: closes } });
    expect(market.isError, JSON.stringify(market.structuredContent)).toBeFalsy();
    const markets = await client.callTool({ name: 'list_markets', arguments: {} });
    expect(markets.isError).toBeFalsy();
    expect(JSON.stringify(markets.structuredContent)).toContain('Will the MCP test pass today?');
    const activity = await client.callTool({ name: 'list_activity', arguments: { limit: 5 } });
    expect(activity.isError).toBeFalsy();
    expect((activity.structuredContent as any).action).toBe('activity');
    for (const r of [link, market, markets, activity]) expect((r.structuredContent as any).pending_confirmation).toBeUndefined();
    expect(await wallets()).toEqual(before);
    await client.close();
  });

  it('a bill and a stake wait for the account holder too; nothing moves from the MCP call', async () => {
    const before = await wallets();
    const client = await mcpClient(alice.key);
    const bill = await client.callTool({ name: 'pay_bill', arguments: { biller: 'IKEDC', account_number: '12345678901', amount: '1000', currency: 'NGN' } });
    expect(bill.isError, JSON.stringify(bill.structuredContent)).toBeFalsy();
    const closes = new Date(Date.now() + 86_400_000).toISOString();
    const created = await client.callTool({ name: 'create_market', arguments: { question: 'Will the stake wait for a person?', closes_at: closes } });
    const marketId = (created.structuredContent as any).market.id as string;
    expect(marketId).toMatch(/^mkt_/);
    const stake = await client.callTool({ name: 'stake_market', arguments: { market: marketId, outcome: 'Yes', amount: '2', currency: 'USD' } });
    expect(stake.isError, JSON.stringify(stake.structuredContent)).toBeFalsy();
    for (const r of [bill, stake]) {
      const pending = (r.structuredContent as any).pending_confirmation as { id: string; confirm_url: string };
      expect(pending.id).toMatch(/^act_/);
      expect(pending.confirm_url).toBe(`${svc.deps.config.PUBLIC_URL}/app/actions/${pending.id}`);
      expect((await svc.deps.agent.pendingAction(alice.accountId, pending.id))?.status).toBe('pending');
    }
    expect(await wallets()).toEqual(before);
    await client.close();
  });

  it('no API key confirms an MCP action, neither another account\'s nor the holder\'s own: only the person on the page', async () => {
    const client = await mcpClient(alice.key);
    const before = await wallets();
    const res = await client.callTool({ name: 'send_transfer', arguments: { recipient: bob.email, amount: '3', currency: 'USD' } });
    const pending = (res.structuredContent as any).pending_confirmation as { id: string; confirm_url: string };
    for (const key of [bob.key, alice.key]) {
      const r = await call(`${svc.api}/agent/settle`, { key, body: { confirm_action: pending.id } });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ ok: false, reason: 'not_found' });
    }
    // Bob's own assistant sees nothing of it either.
    const bobs = await mcpClient(bob.key);
    const seen = await bobs.callTool({ name: 'list_activity', arguments: {} });
    expect(JSON.stringify(seen)).not.toContain(pending.id);
    expect(await wallets()).toEqual(before);
    expect((await svc.deps.agent.pendingAction(alice.accountId, pending.id))?.status).toBe('pending');
    await bobs.close();
    await client.close();
  });

  it('an expired pending action moves nothing: the page says so and Confirm does nothing', async () => {
    const client = await mcpClient(alice.key);
    const before = await wallets();
    const res = await client.callTool({ name: 'send_transfer', arguments: { recipient: bob.email, amount: '6', currency: 'USD' } });
    const pending = (res.structuredContent as any).pending_confirmation as { id: string; confirm_url: string };
    const alices = await signedIn(alice);
    const page = await alices.newPage();
    await page.goto(path(pending.confirm_url));
    expect(await page.locator('#status').getAttribute('data-status')).toBe('pending');
    // Its ten minutes pass while the page is open (as the clock would have it).
    await svc.deps.store.write(PendingActions, (t) => t.update(pending.id, { expiresAt: new Date(Date.now() - 1000).toISOString() }));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#outcome').waitFor();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('expired');
    expect(await wallets()).toEqual(before);
    await page.reload();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('expired');
    expect(await page.getByRole('button', { name: 'Confirm' }).count()).toBe(0);
    expect(await wallets()).toEqual(before);
    await alices.close();
    await client.close();
  });
});
