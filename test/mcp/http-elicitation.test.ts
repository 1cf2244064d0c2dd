/**
 * MCP over Streamable HTTP for a client that supports URL-mode elicitation, with the SDK's own
 * Client: its `initialize` gets a session bound to the key's account, and a money-moving call
 * sends `elicitation/create` (mode url, the confirmation page, the pending id) while nothing
 * moves. Another key cannot use the session; a client without elicitation stays stateless.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, fund, walletOf } from '../helpers/money.js';

let svc: TestService;
let alice: Merchant;
let bob: Merchant;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  alice = await createMerchant(svc.api, 'Alice');
  bob = await createMerchant(svc.api, 'Bob');
  await fund(svc, (await svc.deps.accounts.get(alice.accountId))!, '20');
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

const aliceWallet = async () => balance(svc, walletOf(svc, (await svc.deps.accounts.get(alice.accountId))!));

function transport(key: string) {
  return new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
}

const rpc = (key: string, sessionId: string, body: unknown, method = 'POST') =>
  fetch(`${svc.api}/mcp`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'mcp-session-id': sessionId,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });

describe('MCP over HTTP with URL-mode elicitation', () => {
  it('sends the person to the confirmation page through elicitation; nothing moves; the session is the key holder’s alone', async () => {
    const t = transport(alice.key);
    const client = new Client({ name: 'remote-assistant', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    const elicited: Array<{ mode?: string; url?: string; elicitationId?: string; message?: string }> = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      elicited.push(req.params as never);
      return { action: 'accept' };
    });
    await client.connect(t);
    const sessionId = t.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    const before = await aliceWallet();
    const res = await client.callTool({ name: 'send_transfer', arguments: { recipient: bob.email, amount: '2', currency: 'USD' } });
    const pending = (res.structuredContent as any).pending_confirmation as { id: string; confirm_url: string };
    expect(pending.id).toMatch(/^act_/);
    // The request came on the call's own stream, before its result.
    expect(elicited).toEqual([expect.objectContaining({ mode: 'url', url: pending.confirm_url, elicitationId: pending.id })]);
    expect(await aliceWallet()).toBe(before);
    expect((await svc.deps.agent.pendingAction(alice.accountId, pending.id))?.status).toBe('pending');

    // Bob's key cannot use Alice's session: not for a call, not for its stream, not to end it.
    const list = { jsonrpc: '2.0', id: 9, method: 'tools/list' };
    expect((await rpc(bob.key, sessionId!, list)).status).toBe(404);
    expect((await rpc(bob.key, sessionId!, undefined, 'GET')).status).toBe(404);
    expect((await rpc(bob.key, sessionId!, undefined, 'DELETE')).status).toBe(404);
    // Nor can the same account's other keys: a test key would act live in it, a narrow key as the unrestricted one (h16tour).
    const made = await fetch(`${svc.api}/keys`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: alice.cookie }, body: JSON.stringify({ label: 'sandbox', mode: 'test' }) });
    const aliceTest = ((await made.json()) as { key: { secret: string } }).key.secret;
    const made2 = await fetch(`${svc.api}/keys`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: alice.cookie }, body: JSON.stringify({ label: 'second live' }) });
    const aliceLive2 = ((await made2.json()) as { key: { secret: string } }).key.secret;
    for (const other of [aliceTest, aliceLive2]) {
      const call = await rpc(other, sessionId!, { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'get_balance', arguments: {} } });
      expect(call.status).toBe(404);
      expect((await rpc(other, sessionId!, undefined, 'DELETE')).status).toBe(404);
    }
    const stillOpen = await client.listTools();
    expect(stillOpen.tools.length).toBeGreaterThan(5);

    // Ended by its client, the session is gone.
    await t.terminateSession();
    expect((await rpc(alice.key, sessionId!, list)).status).toBe(404);
    await client.close();
  });

  it('a client without elicitation stays stateless and reads the link from the result', async () => {
    const t = transport(alice.key);
    const client = new Client({ name: 'plain-assistant', version: '1.0.0' });
    await client.connect(t);
    expect(t.sessionId).toBeUndefined();
    const before = await aliceWallet();
    const res = await client.callTool({ name: 'send_transfer', arguments: { recipient: bob.email, amount: '1', currency: 'USD' } });
    const pending = (res.structuredContent as any).pending_confirmation as { id: string; confirm_url: string };
    expect((res.content as any)[0].text).toContain(pending.confirm_url);
    expect((res.content as any)[0].text).toContain(pending.id);
    expect(await aliceWallet()).toBe(before);
    await client.close();
  });
});
