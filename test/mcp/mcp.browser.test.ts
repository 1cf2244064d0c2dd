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
import { createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, fund, walletOf } from '../helpers/money.js';
import { launchBrowser } from '../web/browser.js';

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
});
