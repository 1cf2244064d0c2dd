/**
 * h16probe: an MCP client that sends the same money-moving tool call again (its answer was lost, it
 * timed out) gets the pending action it already holds, not a second one with a second confirmation
 * page the person could confirm too (before: two `act_` ids, two pages, two transfers if both were
 * confirmed). Real HTTP, the MCP SDK's own client, the local service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { fund } from '../helpers/money.js';

let svc: TestService;
let alice: Merchant;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  alice = await createMerchant(svc.api, 'Alice');
  const bob = await createMerchant(svc.api, 'Bob');
  await svc.deps.accounts.update(bob.accountId, { telegramUsername: 'bob_pays' });
  await fund(svc, (await svc.deps.accounts.get(alice.accountId))!, '20');
});
afterAll(() => svc?.stop({ removeData: true }));

async function withClient<T>(key: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'retrying-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}
const pendingId = (r: Awaited<ReturnType<Client['callTool']>>) => (r.structuredContent as { pending_confirmation: { id: string } }).pending_confirmation.id;

describe('MCP: a retried money-moving call', () => {
  it('answers the same pending action while it waits; another amount, or after it is settled, is a new one', async () => {
    const args = { recipient: '@bob_pays', amount: '2', currency: 'USD' };
    const [first, retry, other] = await withClient(alice.key, async (c) => [
      pendingId(await c.callTool({ name: 'send_transfer', arguments: args })),
      // A new session, as a client reconnecting after a timeout.
      pendingId(await withClient(alice.key, (c2) => c2.callTool({ name: 'send_transfer', arguments: { ...args } }))),
      pendingId(await c.callTool({ name: 'send_transfer', arguments: { ...args, amount: '3' } })),
    ]);
    expect(retry).toBe(first);
    expect(other).not.toBe(first);
    const waiting = (await svc.deps.agentActions.list(alice.accountId, true, { limit: 50 })).filter((a) => a.status === 'pending');
    expect(waiting.map((a) => a.id).sort()).toEqual([first, other].sort());

    await svc.deps.agent.cancel(alice.accountId, first);
    const after = await withClient(alice.key, async (c) => pendingId(await c.callTool({ name: 'send_transfer', arguments: args })));
    expect(after).not.toBe(first);
  });
});
