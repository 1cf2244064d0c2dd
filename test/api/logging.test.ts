import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { createLogger } from '../../src/lib/logger.js';

let s: TestService;
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
const logText = () => lines.join('\n');

beforeAll(async () => {
  s = await startTestService({}, { logger: createLogger('trace', sink) });
});
afterAll(() => s.stop({ removeData: true }));

describe('logging', () => {
  it('never writes secrets, cookies or passwords after signup, key creation and authenticated calls', async () => {
    const password = 'my very secret passphrase';
    const signup = await call(`${s.api}/auth/signup`, { body: { email: `log${Date.now()}@example.com`, password, name: 'Log Shop' } });
    expect(signup.status).toBe(201);
    const cookie = signup.headers.get('set-cookie')!.split(';')[0]!;
    const token = cookie.split('=')[1]!;
    const key = await call(`${s.api}/keys`, { cookie, body: { label: 'logged?' } });
    const secret: string = key.body.key.secret;
    await call(`${s.api}/v1/ping`, { key: secret });
    await call(`${s.api}/v1/payments`, { key: secret, body: { amount: 1, currency: 'USD', redirect_url: 'https://x.example' } });
    await call(`${s.api}/keys`, { cookie });
    await call(`${s.api}/v1/ping`, { key: `sk_live_${'Q'.repeat(40)}` });
    await call(`${s.api}/auth/login`, { body: { email: 'nobody@example.com', password } });
    await call(`${s.api}/auth/logout`, { method: 'POST', cookie });

    const text = logText();
    expect(lines.length).toBeGreaterThan(5);
    expect(text).not.toMatch(/sk_live_[0-9A-Za-z]{8,}/);
    expect(text).not.toContain(secret.slice(8));
    expect(text).not.toContain(token);
    expect(text).not.toContain(password);
    expect(text).not.toMatch(/scrypt\$/);
    // The demo password went to stdout (printed), never to the log.
    const demoPassword = /password:\s+(\S+)/.exec(s.printed.join('\n'))![1]!;
    expect(text).not.toContain(demoPassword);
  });

  it('logs each request (pino-http) with its request id, method, path and status', async () => {
    const r = await call(`${s.api}/checkout/pay_logged?x=1`);
    const id = r.headers.get('x-request-id');
    const entry = lines.map((l) => JSON.parse(l)).find((e) => e.req?.id === id);
    expect(entry).toBeDefined();
    expect(entry.req).toMatchObject({ method: 'GET', url: '/api/checkout/pay_logged' });
    expect(entry.res.statusCode).toBe(404);
    // Query strings and headers are not logged.
    expect(JSON.stringify(entry)).not.toContain('x=1');
    expect(entry.req.headers).toBeUndefined();
  });

  it('redacts secret-bearing fields wherever a module logs them', () => {
    const before = lines.length;
    s.deps.logger.info(
      {
        req: { headers: { authorization: 'Bearer sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', cookie: 'sp_session=abc123' } },
        res: { headers: { 'set-cookie': 'sp_session=abc123' } },
        key: { secret: 'sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' },
        account: { password: 'hunter22', passwordHash: 'scrypt$x' },
        relayer: { privateKey: '0xdeadbeef', mnemonic: 'test test test' },
        secret: 'whsec_CCCCCCCC',
      },
      'redaction probe',
    );
    const text = lines.slice(before).join('\n');
    expect(text).toContain('redaction probe');
    for (const leak of ['sk_live_AAAA', 'abc123', 'sk_live_BBBB', 'hunter22', 'scrypt$x', '0xdeadbeef', 'test test test', 'whsec_CCCC']) {
      expect(text).not.toContain(leak);
    }
    expect(text).toContain('[redacted]');
  });
});
