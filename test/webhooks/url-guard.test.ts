import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { checkWebhookUrl, guardedLookup, isBlockedAddress } from '../../src/webhooks/url-guard.js';
import { postWebhook } from '../../src/webhooks/sender.js';
import { startReceiver } from './helpers.js';

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '100.127.255.255', '0.0.0.0', '224.0.0.1', '239.255.255.250', '255.255.255.255',
    '::', '::1', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1',
    '64:ff9b::10.0.0.1', '2002:7f00:1::1', '2001:db8::1', 'not-an-ip',
  ])('blocks %s', (ip) => expect(isBlockedAddress(ip)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '100.128.0.1', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2a00:1450:4001:82b::200e'])(
    'allows %s',
    (ip) => expect(isBlockedAddress(ip)).toBe(false),
  );
});

describe('checkWebhookUrl', () => {
  const prod = { production: true, param: 'webhook_url' };
  it('allows anything http(s) outside production, for local receivers', async () => {
    expect((await checkWebhookUrl('http://127.0.0.1:4000/hooks', { production: false, param: 'url' })).ok).toBe(true);
  });
  it('refuses names resolving to a private address, and any private answer among several', async () => {
    const r = await checkWebhookUrl('https://rebind.example/hooks', { ...prod, resolve: async () => ['93.184.216.34', '10.1.2.3'] });
    expect(r).toMatchObject({ ok: false, param: 'webhook_url' });
    const ok = await checkWebhookUrl('https://public.example/hooks', { ...prod, resolve: async () => ['93.184.216.34'] });
    expect(ok.ok).toBe(true);
    const nx = await checkWebhookUrl('https://nx.example/hooks', { ...prod, resolve: async () => Promise.reject(new Error('ENOTFOUND')) });
    expect(nx.ok).toBe(false);
  });
  it('normalises numeric IPv4 host forms before checking', async () => {
    expect((await checkWebhookUrl('https://2130706433/hooks', prod)).ok).toBe(false); // 127.0.0.1
    expect((await checkWebhookUrl('https://0x7f.1/hooks', prod)).ok).toBe(false);
  });
});

describe('delivery-time guard (DNS rebinding)', () => {
  it('refuses at connect time a host name that resolves to loopback, sending nothing', async () => {
    const r = await startReceiver();
    try {
      const res = await postWebhook(`http://localhost:${r.port}/hooks`, '{}', { headers: {}, guard: true });
      expect(res.ok).toBe(false);
      expect(res.error).toMatch(/non-public address/);
      const literal = await postWebhook(`http://127.0.0.1:${r.port}/hooks`, '{}', { headers: {}, guard: true });
      expect(literal.error).toMatch(/not a public address/);
      expect(r.received).toHaveLength(0);
      // The same request without the guard (development) goes through.
      expect((await postWebhook(r.url, '{}', { headers: {}, guard: false })).ok).toBe(true);
    } finally {
      await r.close();
    }
  });

  it('guardedLookup rejects a resolver answer that turned private', async () => {
    const lookup = guardedLookup(((_h: string, _o: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) =>
      cb(null, [{ address: '169.254.169.254', family: 4 }])) as never);
    const err = await new Promise<Error | null>((resolve) => lookup('metadata.example', { all: false }, (e) => resolve(e)));
    expect(err?.message).toMatch(/169\.254\.169\.254/);
  });
});

describe('sender limits', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = 'x'.repeat(16 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 4 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', pump);
          }
          res.end();
        };
        pump();
      } else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 2_000);
      else res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('does not follow redirects', async () => {
    const r = await postWebhook(`${base}/redirect`, '{}', { headers: {}, guard: false });
    expect(r).toMatchObject({ ok: false, statusCode: 302 });
    expect(r.error).toMatch(/redirect .* not followed/);
  });
  it('reads at most 64 kB of a response and logs its first 1 kB', async () => {
    const r = await postWebhook(`${base}/big`, '{}', { headers: {}, guard: false });
    expect(r).toMatchObject({ ok: true, statusCode: 200 });
    expect(r.responseBody).toHaveLength(1024);
  });
  it('times out', async () => {
    const r = await postWebhook(`${base}/slow`, '{}', { headers: {}, guard: false, timeoutMs: 100 });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/timed out/);
  });
});

describe('production mode refuses unsafe webhook URLs', () => {
  let svc: TestService;
  let m: Merchant;
  beforeAll(async () => {
    svc = await startTestService({ NODE_ENV: 'production' });
    m = await createMerchant(svc.api);
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
  });

  const refused = [
    'http://93.184.216.34/hooks',
    'https://127.0.0.1/hooks',
    'https://10.0.0.1/hooks',
    'https://[::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hooks',
    'https://localhost/hooks',
  ];

  it.each(refused)('on payment creation: %s', async (url) => {
    const res = await call(`${svc.api}/v1/payments`, {
      key: m.key,
      body: { amount: 10, currency: 'USD', redirect_url: 'https://shop.example/done', webhook_url: url },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'webhook_url' });
    expect(res.body.error.message).toMatch(/webhook_url/);
  });

  it.each(refused)('on the default endpoint: %s', async (url) => {
    const res = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'url' });
  });

  it('accepts a public https URL', async () => {
    const res = await call(`${svc.api}/v1/payments`, {
      key: m.key,
      body: { amount: 10, currency: 'USD', redirect_url: 'https://shop.example/done', webhook_url: 'https://93.184.216.34/hooks' },
    });
    expect(res.status).toBe(201);
    const put = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: m.key, body: { url: 'https://93.184.216.34/hooks' } });
    expect(put.status).toBe(200);
  });
});
