/**
 * `npm run mcp` when the HTTP service cannot answer a tool call (docs/mcp.md, "Errors"): a key
 * revoked while the assistant runs (the service's 401) is an `unauthorized` tool error, a service
 * that answers 503 or cannot be reached is `service_unavailable`, each with its fixed text, never
 * the transport's raw words as a JSON-RPC -32603. Driven by the real @modelcontextprotocol/sdk
 * Client over StdioClientTransport, the proxy launched as an assistant launches it, talking to a
 * real service through a forwarding HTTP hop the test can turn into a failing one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TRANSPORT_ERROR_TEXT } from '../../src/mcp/transport-errors.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const UPSTREAM_SECRET = 'upstream pool exhausted at /srv/internal/gateway.ts:12';
let svc: TestService;
let alice: Merchant;
/** The hop between the proxy and the service: `forward`, `503` (a gateway's error page) or `refuse` (connection dropped). */
let mode: 'forward' | '503' | 'refuse' = 'forward';
let hop: http.Server;
let hopUrl: string;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  alice = await createMerchant(svc.api, 'Alice');
  const target = new URL(svc.url);
  hop = http.createServer((req, res) => {
    if (mode === '503') {
      res.writeHead(503, { 'content-type': 'text/plain' }).end(UPSTREAM_SECRET);
      return;
    }
    if (mode === 'refuse') {
      req.socket.destroy();
      return;
    }
    const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => hop.listen(0, '127.0.0.1', () => r()));
  hopUrl = `http://127.0.0.1:${(hop.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => hop?.close(r));
  await svc?.stop({ removeData: true });
});

async function stdioClient(key: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: 'npm',
    args: ['run', '--silent', '--prefix', ROOT, 'mcp'],
    env: { PATH: process.env.PATH ?? '', STABLEPAY_API_KEY: key, STABLEPAY_URL: hopUrl },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = new Client({ name: 'stdio-assistant', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

function expectToolError(res: CallToolResult, code: string): void {
  expect(res.isError).toBe(true);
  expect(res.structuredContent).toEqual({ ok: false, error: code, reply: TRANSPORT_ERROR_TEXT[code as keyof typeof TRANSPORT_ERROR_TEXT] });
  expect(res.content).toEqual([{ type: 'text', text: TRANSPORT_ERROR_TEXT[code as keyof typeof TRANSPORT_ERROR_TEXT] }]);
  const raw = JSON.stringify(res);
  expect(raw).not.toMatch(/HTTP 40|HTTP 50|Streamable HTTP|authentication_error|fetch failed/);
  expect(raw).not.toContain('/srv/internal');
}

describe('npm run mcp: transport errors are documented tool errors', () => {
  it('a key revoked while the assistant runs: `unauthorized` with a fixed text, and it stays so', { timeout: 120_000 }, async () => {
    const created = await call(`${svc.api}/keys`, { cookie: alice.cookie, body: { label: 'assistant' } });
    expect(created.status).toBe(201);
    const { client } = await stdioClient(created.body.key.secret);
    const ok = (await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
    expect(ok.isError).toBeFalsy();

    const revoked = await call(`${svc.api}/keys/${created.body.key.id}`, { method: 'DELETE', cookie: alice.cookie });
    expect(revoked.status).toBe(200);
    expectToolError((await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult, 'unauthorized');
    expectToolError((await client.callTool({ name: 'list_activity', arguments: {} })) as CallToolResult, 'unauthorized');
    await client.close();
  });

  it('the service answering 503, then unreachable: `service_unavailable`; once it is back, calls work again', { timeout: 120_000 }, async () => {
    const { client, stderr } = await stdioClient(alice.key);
    try {
      mode = '503';
      expectToolError((await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult, 'service_unavailable');
      mode = 'refuse';
      expectToolError((await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult, 'service_unavailable');
      // The cause is in the proxy's own log (the assistant's stderr), not in what the model reads.
      expect(stderr()).toContain('service_unavailable');
      mode = 'forward';
      const back = (await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
      expect(back.isError).toBeFalsy();
    } finally {
      mode = 'forward';
      await client.close();
    }
  });
});
