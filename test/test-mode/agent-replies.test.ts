/**
 * h16tour: the agent's replies to a test key say they are test money, on every door a test key
 * reaches it (POST /api/agent/settle acting at once, a held action and its confirm_action, a firm
 * quote's quote_id, MCP over HTTP with the SDK's client), in the reply's language; a live key's
 * replies are unchanged. Real HTTP, real service on the embedded anvil.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { fund, newAccount } from '../helpers/money.js';

const NOTE = 'Test mode: test money only, no real money moved.';
let svc: TestService;
let m: Merchant;
let testKey: string;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h', AGENT_RATE_LIMIT: '1000/min' });
  m = await createMerchant(svc.api, 'Sandbox Shop');
  const amina = await newAccount(svc, { name: 'Amina', country: 'NG' });
  await svc.deps.accounts.update(amina.id, { telegramUsername: 'amina_sandbox' });
  await fund(svc, (await svc.deps.accounts.get(m.accountId))!, '50');
  testKey = (await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'sandbox', mode: 'test' } })).body.key.secret;
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

const settle = (key: string, body: Record<string, unknown>) => call(`${svc.api}/agent/settle`, { key, body });

describe("the agent's replies to a test key say test money", () => {
  it('a transfer acted at once: the test key is told, the live key is not', async () => {
    const t = await settle(testKey, { message: 'send 1 USD to @amina_sandbox' });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    expect(t.body.action).toBe('transfer');
    expect(t.body.reply.endsWith(NOTE), t.body.reply).toBe(true);
    const l = await settle(m.key, { message: 'send 1 USD to @amina_sandbox' });
    expect(l.status, JSON.stringify(l.body)).toBe(200);
    expect(l.body.reply).not.toContain('Test mode');
  });

  it("in the message's language; a refusal and a plain answer say it too", async () => {
    const fr = await settle(testKey, { message: 'envoie 1 USD à @amina_sandbox' });
    expect(fr.status, JSON.stringify(fr.body)).toBe(200);
    expect(fr.body.reply).toContain("Mode test : argent de test uniquement, aucun argent réel n'a bougé.");
    const broke = await settle(testKey, { message: 'send 5000 USD to @amina_sandbox' });
    expect(broke.body.reply.endsWith(NOTE), broke.body.reply).toBe(true);
    const info = await settle(testKey, { message: 'what is my balance?' });
    expect(info.body.reply.endsWith(NOTE), info.body.reply).toBe(true);
  });

  it('a held action (confirm:false) and its confirm_action; a firm quote run by quote_id', async () => {
    const held = await settle(testKey, { message: 'send 1 USD to @amina_sandbox', confirm: false });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    // Once, inside the held description a person confirms (merge16: h16probe's mark on the description), before the confirm line.
    expect(held.body.reply.split(NOTE).length, held.body.reply).toBe(2);
    const done = await settle(testKey, { confirm_action: held.body.pending.id });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.reply.endsWith(NOTE), done.body.reply).toBe(true);
    const again = await settle(testKey, { confirm_action: held.body.pending.id });
    expect(again.body.reply.endsWith(NOTE), again.body.reply).toBe(true);

    const quote = await call(`${svc.api}/quotes`, { key: testKey, body: { amount: '1', currency: 'USD', recipient: '@amina_sandbox' } });
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    const byQuote = await settle(testKey, { quote_id: quote.body.id });
    expect(byQuote.status, JSON.stringify(byQuote.body)).toBe(200);
    expect(byQuote.body.reply.endsWith(NOTE), byQuote.body.reply).toBe(true);
  });

  it('MCP over HTTP (the SDK client) with a test key; the live key unchanged', async () => {
    const replyOf = async (key: string) => {
      const client = new Client({ name: 'sandbox-assistant', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
      const res = await client.callTool({ name: 'get_balance', arguments: {} });
      await client.close();
      return (res.content as Array<{ text: string }>)[0]!.text;
    };
    expect((await replyOf(testKey)).endsWith(NOTE)).toBe(true);
    expect(await replyOf(m.key)).not.toContain('Test mode');
  });

  it('the chat widget while the app shows test data acts in test mode and says so; in the live view it is live and says nothing', async () => {
    const chat = (body: Record<string, unknown>, path = '/chat', testView = true) =>
      call(`${svc.api}${path}`, { cookie: testView ? `${m.cookie}; sp_mode=test` : m.cookie, body });
    const held = await chat({ message: 'send 1 USD to @amina_sandbox' });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    // Once, inside the held description a person confirms (merge16: h16probe's mark on the description), before the confirm line.
    expect(held.body.reply.split(NOTE).length, held.body.reply).toBe(2);
    const actionId = held.body.pending_action.id as string;
    // A test-mode action: the test key sees it, the live key does not.
    expect((await call(`${svc.api}/agent/actions/${actionId}`, { key: testKey })).status).toBe(200);
    expect((await call(`${svc.api}/agent/actions/${actionId}`, { key: m.key })).status).toBe(404);
    const confirmed = await chat({ action_id: actionId }, '/chat/confirm');
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.reply.endsWith(NOTE), confirmed.body.reply).toBe(true);
    const transferId = confirmed.body.transfer?.id as string | undefined;
    expect(transferId).toBeDefined();
    const fr = await chat({ message: 'envoie 1 USD à @amina_sandbox' });
    expect(fr.body.reply).toContain("Mode test : argent de test uniquement, aucun argent réel n'a bougé.");
    // A payment link made there is a test payment.
    const link = await chat({ message: 'create a payment link for 3 USD for a mug' });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expect(link.body.reply.endsWith(NOTE), link.body.reply).toBe(true);
    const pay = link.body.payment.id as string;
    expect((await call(`${svc.api}/v1/payments/${pay}`, { key: testKey })).body.livemode).toBe(false);
    expect((await call(`${svc.api}/v1/payments/${pay}`, { key: m.key })).status).toBe(404);
    // The live view: live, no note.
    const live = await chat({ message: 'send 1 USD to @amina_sandbox' }, '/chat', false);
    expect(live.body.reply).not.toContain('Test mode');
    expect((await call(`${svc.api}/agent/actions/${live.body.pending_action.id}`, { key: m.key })).status).toBe(200);
  });
});
