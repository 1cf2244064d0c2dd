/**
 * `npm run mcp`: the stdio server as an assistant launches it, driven by the SDK's own Client
 * over StdioClientTransport. The key comes from the environment; a client that supports
 * URL-mode elicitation is sent to the confirmation page of a pending transfer.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ToolInputs } from '../../src/agent/tool-inputs.js';
import { createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, fund, walletOf } from '../helpers/money.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
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

function stdioClient(env: Record<string, string>) {
  // Launched exactly as the README's client configuration does: `npm run --silent --prefix <repo> mcp`.
  const transport = new StdioClientTransport({
    command: 'npm',
    args: ['run', '--silent', '--prefix', ROOT, 'mcp'],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-assistant', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  return { client, transport };
}

describe('npm run mcp (stdio)', () => {
  it('serves the tools with the key from the environment and sends the person to the confirmation page', async () => {
    const { client, transport } = stdioClient({ STABLEPAY_API_KEY: alice.key, STABLEPAY_URL: svc.url });
    const elicited: Array<{ mode?: string; url?: string; elicitationId?: string }> = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      elicited.push(req.params as never);
      return { action: 'accept' };
    });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(ToolInputs).sort());
    for (const t of tools) {
      const { $schema: _drop, ...ours } = z.toJSONSchema(ToolInputs[t.name as keyof typeof ToolInputs], { io: 'input' }) as Record<string, unknown>;
      expect(t.inputSchema).toEqual({ ...ours, type: 'object' });
    }

    const a = (await svc.deps.accounts.get(alice.accountId))!;
    const before = await balance(svc, walletOf(svc, a));
    const res = await client.callTool({ name: 'send_transfer', arguments: { recipient: bob.email, amount: '2', currency: 'USD' } });
    const pending = (res.structuredContent as any).pending_confirmation as { id: string; confirm_url: string };
    expect(pending.id).toMatch(/^act_/);
    for (let i = 0; i < 100 && elicited.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(elicited).toEqual([expect.objectContaining({ mode: 'url', url: pending.confirm_url, elicitationId: pending.id })]);
    expect(await balance(svc, walletOf(svc, a))).toBe(before);
    expect((await svc.deps.agent.pendingAction(alice.accountId, pending.id))?.status).toBe('pending');
    await client.close();
  });

  it('refuses to start without a secret key', async () => {
    const { client, transport } = stdioClient({ STABLEPAY_URL: svc.url });
    await expect(client.connect(transport)).rejects.toThrow();
  });
});
