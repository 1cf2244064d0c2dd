/**
 * h16probe: a test key's agent says, on every door that takes a key, that it moves test money only.
 * Before, `POST /api/agent/settle` with an `sk_test_` key answered "Sent 100.00 KES to @amina …
 * Settled on-chain" and "Paid 500.00 KES to KPLC Prepaid … Token: …" exactly as a live key does, the
 * held description a person confirms (the API's preview, MCP's confirmation page) said nothing of
 * the mode, and MCP's tool results neither. Real HTTP, the local engine, the embedded chain, the
 * MCP SDK's own client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { fund } from '../helpers/money.js';
import { testModeNote } from '../../src/agent/test-mode-note.js';

/** h16tour's note, which merge16 kept (h16probe had its own prefix for the same): after the reply's words. */
const TEST_MODE_MARK = testModeNote('en');

let svc: TestService;
let sender: Merchant;
let testKey: string;

beforeAll(async () => {
  svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min', RECONCILE_INTERVAL: '1h' });
  const amina = await createMerchant(svc.api, 'Amina');
  sender = await createMerchant(svc.api, 'Wanjiru');
  await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
  await svc.deps.accounts.update(amina.accountId, { country: 'NG', localCurrency: 'NGN', telegramUsername: 'amina' });
  await fund(svc, (await svc.deps.accounts.get(sender.accountId))!, '50');
  const made = await call(`${svc.api}/keys`, { cookie: sender.cookie, body: { label: 'sandbox', mode: 'test' } });
  testKey = made.body.key.secret;
  expect(testKey).toMatch(/^sk_test_/);
});
afterAll(() => svc?.stop({ removeData: true }));

const settle = (key: string, body: unknown) => call(`${svc.api}/agent/settle`, { key, body });

describe("a test key's agent says it moves no real money", () => {
  it('POST /api/agent/settle: a transfer, a bill and a balance through a test key say so; a live key never', async () => {
    for (const message of ['send 100 KES to @amina', 'pay KPLC prepaid meter 12345678901 500 KES', 'what is my balance']) {
      const r = await settle(testKey, { message });
      expect(r.status).toBe(200);
      expect(r.body.reply).toContain(TEST_MODE_MARK);
    }
    const live = await settle(sender.key, { message: 'what is my balance' });
    expect(live.status).toBe(200);
    expect(live.body.reply).not.toContain(TEST_MODE_MARK);
  });

  it('a preview: the held description says so (what a person confirms) and so does the confirm', async () => {
    const p = await settle(testKey, { message: 'send 100 KES to @amina', confirm: false });
    expect(p.body.pending.description).toContain(TEST_MODE_MARK);
    expect(p.body.reply.split(TEST_MODE_MARK).length).toBe(2); // once, not twice
    const c = await settle(testKey, { confirm_action: p.body.pending.id });
    expect(c.status).toBe(200);
    expect(c.body.reply).toContain(TEST_MODE_MARK);
    const livePreview = await settle(sender.key, { message: 'send 100 KES to @amina', confirm: false });
    expect(livePreview.body.pending.description).not.toContain(TEST_MODE_MARK);
  });

  it('MCP: a test key\'s held transfer and its read tools say so', async () => {
    const client = new Client({ name: 'sandbox-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${testKey}` } } }));
    try {
      const held = await client.callTool({ name: 'send_transfer', arguments: { recipient: '@amina', amount: '100', currency: 'KES' } });
      const text = (held.content as Array<{ text: string }>)[0]!.text;
      expect(text).toContain(TEST_MODE_MARK);
      const balance = await client.callTool({ name: 'get_balance', arguments: {} });
      expect((balance.content as Array<{ text: string }>)[0]!.text).toContain(TEST_MODE_MARK);
    } finally {
      await client.close();
    }
  });
});
