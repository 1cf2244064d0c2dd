import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { storedTables, storedText } from '../helpers/stored.js';
import { AccountResponse } from '../../src/api/auth.router.js';

let s: TestService;

beforeAll(async () => {
  s = await startTestService();
});
afterAll(() => s.stop({ removeData: true }));

let n = 0;
const email = () => `sess${Date.now()}${++n}@example.com`;
const PASSWORD = 'correct horse battery';

async function signup(body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const r = await call(`${s.api}/auth/signup`, { body: { email: email(), password: PASSWORD, name: 'Sess Shop', ...body }, headers });
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { ...r, setCookie, cookie: setCookie.split(';')[0]! };
}

describe('signup, login, logout, me', () => {
  it('signup creates the account and a session cookie: httpOnly, SameSite=Lax, not Secure on http', async () => {
    const r = await signup();
    expect(r.status).toBe(201);
    AccountResponse.strict().parse(r.body);
    expect(r.body.account).not.toHaveProperty('passwordHash');
    expect(r.setCookie).toMatch(/^sp_session=[\w-]{20,};/);
    expect(r.setCookie).toMatch(/HttpOnly/i);
    expect(r.setCookie).toMatch(/SameSite=Lax/i);
    expect(r.setCookie).not.toMatch(/Secure/i);
    const me = await call(`${s.api}/me`, { cookie: r.cookie });
    expect(me.status).toBe(200);
    expect(me.body.account.id).toBe(r.body.account.id);
    expect(me.body.account.email).toBe(r.body.account.email);
  });

  it('stores a scrypt hash, never the password', async () => {
    const r = await signup();
    const db = await storedText(s.dataDir);
    expect(db).not.toContain(PASSWORD);
    const stored = (await storedTables<{ id: string; passwordHash: string }>(s.dataDir)).tables.accounts!.find((a) => a.id === r.body.account.id)!;
    expect(stored.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    // The session token is stored hashed too.
    expect(db).not.toContain(r.cookie.split('=')[1]!);
  });

  it('login with the right password gives a new session; wrong password or unknown email is 401', async () => {
    const e = email();
    await call(`${s.api}/auth/signup`, { body: { email: e, password: PASSWORD, name: 'Login Shop' } });
    const ok = await call(`${s.api}/auth/login`, { body: { email: e.toUpperCase(), password: PASSWORD } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toMatch(/^sp_session=/);
    const wrong = await call(`${s.api}/auth/login`, { body: { email: e, password: 'wrong password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.type).toBe('authentication_error');
    const unknown = await call(`${s.api}/auth/login`, { body: { email: email(), password: PASSWORD } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toBe(wrong.body.error.message);
  });

  it('logout ends the session: the same cookie is refused afterwards', async () => {
    const r = await signup();
    const out = await call(`${s.api}/auth/logout`, { method: 'POST', cookie: r.cookie });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/sp_session=;/);
    const me = await call(`${s.api}/me`, { cookie: r.cookie });
    expect(me.status).toBe(401);
    expect(me.body.error.type).toBe('authentication_error');
  });

  it('GET /api/me refuses no credentials and a forged session (a key works too: readme-promises.test.ts)', async () => {
    expect((await call(`${s.api}/me`)).status).toBe(401);
    expect((await call(`${s.api}/me`, { cookie: 'sp_session=forged' })).status).toBe(401);
  });

  it('validates signup: email, password length, duplicate email (409)', async () => {
    const bad = await signup({ email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('email');
    const short = await signup({ password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.param).toBe('password');
    const e = email();
    expect((await signup({ email: e })).status).toBe(201);
    const dup = await signup({ email: e.toUpperCase() });
    expect(dup.status).toBe(409);
    expect(dup.body.error.param).toBe('email');
  });
});

describe('CSRF: cookie-authenticated state changes must come from our origin', () => {
  it('a foreign Origin is refused with 403 permission_error; our own origin is fine', async () => {
    const r = await signup();
    const foreign = await call(`${s.api}/keys`, { cookie: r.cookie, body: { label: 'x' }, headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.type).toBe('permission_error');
    const own = await call(`${s.api}/keys`, { cookie: r.cookie, body: { label: 'x' }, headers: { origin: s.url } });
    expect(own.status).toBe(201);
    const publicOrigin = new URL(s.deps.config.PUBLIC_URL).origin;
    expect((await call(`${s.api}/keys`, { cookie: r.cookie, body: { label: 'y' }, headers: { origin: publicOrigin } })).status).toBe(201);
  });

  it('applies to revocation, logout, signup and login too; a bearer key is not subject to it', async () => {
    const r = await signup();
    const key = (await call(`${s.api}/keys`, { cookie: r.cookie, body: { label: 'k' } })).body.key;
    const evil = { origin: 'https://evil.example' };
    expect((await call(`${s.api}/keys/${key.id}`, { method: 'DELETE', cookie: r.cookie, headers: evil })).status).toBe(403);
    expect((await call(`${s.api}/auth/logout`, { method: 'POST', cookie: r.cookie, headers: evil })).status).toBe(403);
    expect((await signup({}, evil)).status).toBe(403);
    expect((await call(`${s.api}/auth/login`, { body: { email: 'a@example.com', password: 'x' }, headers: evil })).status).toBe(403);
    // The session survived the refused logout.
    expect((await call(`${s.api}/me`, { cookie: r.cookie })).status).toBe(200);
    // A server with a bearer key sends whatever Origin it likes.
    expect((await call(`${s.api}/keys`, { key: key.secret, body: { label: 'srv' }, headers: evil })).status).toBe(201);
  });

  it('a cross-site fetch without Origin (Sec-Fetch-Site: cross-site) is refused too', async () => {
    const r = await signup();
    const res = await call(`${s.api}/keys`, { cookie: r.cookie, body: { label: 'x' }, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(403);
  });

  it('reads with a cookie from anywhere are allowed (no state change)', async () => {
    const r = await signup();
    expect((await call(`${s.api}/keys`, { cookie: r.cookie, headers: { origin: 'https://evil.example' } })).status).toBe(200);
  });
});

describe('Secure cookie when PUBLIC_URL is https', () => {
  it('sets Secure on the session cookie', async () => {
    const https = await startTestService({ PUBLIC_URL: 'https://pay.example.com' });
    try {
      const r = await call(`${https.api}/auth/signup`, { body: { email: email(), password: PASSWORD, name: 'TLS Shop' } });
      expect(r.status).toBe(201);
      expect(r.headers.get('set-cookie')).toMatch(/;\s*Secure/i);
      expect(r.headers.get('set-cookie')).toMatch(/HttpOnly/i);
      // HSTS only makes sense over https.
      expect(r.headers.get('strict-transport-security')).toMatch(/max-age=/);
      const created = await call(`${https.api}/keys`, { cookie: r.headers.get('set-cookie')!.split(';')[0]!, body: { label: 'k' } });
      const pay = await call(`${https.api}/v1/payments`, { key: created.body.key.secret, body: { amount: 1, currency: 'USD', redirect_url: 'https://x.example' } });
      expect(pay.body.checkout_url).toBe(`https://pay.example.com/pay/${pay.body.id}`);
    } finally {
      await https.stop({ removeData: true });
    }
  });
});

describe('demo merchant (first start)', () => {
  it('is printed once, to stdout (not the log), and can sign in', async () => {
    const text = s.printed.join('\n');
    expect(text).toContain('demo@example.com');
    const password = /password:\s+(\S+)/.exec(text)?.[1];
    expect(password).toBeDefined();
    const login = await call(`${s.api}/auth/login`, { body: { email: 'demo@example.com', password } });
    expect(login.status).toBe(200);
    expect(login.body.account.name).toBe('Demo Merchant');
  });

  it('is not created or printed again on a restart with the same data', async () => {
    const first = await startTestService();
    const dataDir = first.dataDir;
    expect(first.printed.join('\n')).toContain('demo@example.com');
    await first.stop();
    const second = await startTestService({}, { dataDir });
    try {
      expect(second.printed.join('\n')).not.toContain('demo@example.com');
    } finally {
      await second.stop({ removeData: true });
    }
  });

  it('is not created in production', async () => {
    const prod = await startTestService({ NODE_ENV: 'production' });
    try {
      expect(prod.printed.join('\n')).not.toContain('demo@example.com');
      const login = await call(`${prod.api}/auth/login`, { body: { email: 'demo@example.com', password: 'anything' } });
      expect(login.status).toBe(401);
    } finally {
      await prod.stop({ removeData: true });
    }
  });
});
