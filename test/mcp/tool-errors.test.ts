/**
 * An MCP tool call that fails inside the service (anything but a store that cannot serve now)
 * reaches the client as a documented tool error (docs/mcp.md, "Errors"): `isError` with
 * `error: "internal_error"`, a fixed text and the request id, never the SDK's JSON-RPC -32603
 * carrying the internal error's own message or stack. Driven by the real
 * @modelcontextprotocol/sdk Client over Streamable HTTP, stateless and in a session.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';

const SECRET = 'relation "pending_actions" violates check constraint at /srv/app/src/agent/internal.ts:42';

let svc: TestService;
let alice: Merchant;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  alice = await createMerchant(svc.api, 'Alice');
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function connect(requestId: string, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'assistant', version: '1.0.0' }, { capabilities });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${alice.key}`, 'X-Request-Id': requestId } },
    }),
  );
  return client;
}

function failNextCall(): void {
  const err = new Error(SECRET);
  vi.spyOn(svc.deps.agent, 'callTool').mockRejectedValueOnce(err);
}

function expectSafe(res: CallToolResult, requestId?: string): void {
  expect(res.isError).toBe(true);
  const raw = JSON.stringify(res);
  expect(raw).not.toContain('pending_actions');
  expect(raw).not.toContain('/srv/app');
  expect(raw).not.toMatch(/\bat .+:\d+:\d+/);
  expect(res.structuredContent).toMatchObject({ ok: false, error: 'internal_error' });
  if (requestId) expect(res.structuredContent).toMatchObject({ request_id: requestId });
  const text = (res.content as Array<{ type: string; text: string }>)[0]!.text;
  expect(text).toMatch(/went wrong on our side/);
}

describe('MCP tool errors', () => {
  it('an internal error is a safe internal_error tool result with the request id (stateless client), and the next call works', async () => {
    const client = await connect('req-mcp-internal-1');
    failNextCall();
    const res = (await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
    expectSafe(res, 'req-mcp-internal-1');
    // The connection is fine: the next call is answered normally.
    const next = (await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
    expect(next.isError).toBeFalsy();
    await client.close();
  });

  it('the same in a session (a client that declares URL-mode elicitation)', async () => {
    const client = await connect('req-mcp-internal-2', { elicitation: { url: {} } });
    failNextCall();
    const res = (await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
    expectSafe(res);
    await client.close();
  });
});
