import { beforeAll, describe, expect } from 'vitest';
import { call, createMerchant, type Merchant, type TestService } from '../helpers/service.js';
import { merchantServiceTest } from '../helpers/service-fixtures.js';
import { storedTables, storedText } from '../helpers/stored.js';
import { PingResponse } from '../../src/api/payments.router.js';
import { KeyCreatedResponse, KeyListResponse } from '../../src/api/keys.router.js';

const it = merchantServiceTest('Keys Shop');
let s: TestService;
let m: Merchant;

it.beforeAll(({ svc, merchant }) => {
  s = svc;
  m = merchant;
});

const newKey = async (label: string, auth: { key?: string; cookie?: string } = { cookie: m.cookie }) =>
  call(`${s.api}/keys`, { ...auth, body: { label } });

function expectAuthError(r: Awaited<ReturnType<typeof call>>) {
  expect(r.status).toBe(401);
  expect(r.body).toEqual({ error: { type: 'authentication_error', message: expect.any(String) } });
  expect(r.body.error.message.length).toBeGreaterThan(0);
}

describe('authentication (interface 5)', () => {
  const ping = (headers: Record<string, string>) => call(`${s.api}/v1/ping`, { headers });

  it('no key -> 401 authentication_error', async () => {
    expectAuthError(await ping({}));
    expectAuthError(await call(`${s.api}/v1/payments`, { body: { amount: 1, currency: 'USD', redirect_url: 'https://x.example' } }));
  });

  it('malformed Authorization header or key -> 401', async () => {
    expectAuthError(await ping({ authorization: 'Basic dXNlcjpwYXNz' }));
    expectAuthError(await ping({ authorization: 'Bearer' }));
    expectAuthError(await ping({ authorization: 'Bearer sk_live_short' }));
    expectAuthError(await ping({ authorization: `Bearer pk_live_${'a'.repeat(40)}` }));
    expectAuthError(await ping({ authorization: `Bearer ${m.key} extra` }));
  });

  it('unknown well-formed key -> 401, and the message never echoes the secret', async () => {
    const fake = `sk_live_${'Z'.repeat(40)}`;
    const r = await ping({ authorization: `Bearer ${fake}` });
    expectAuthError(r);
    expect(JSON.stringify(r.body)).not.toContain(fake);
  });

  it('revoked key -> 401 on the very next request', async () => {
    const created = await newKey('to revoke');
    const secret = created.body.key.secret;
    expect((await ping({ authorization: `Bearer ${secret}` })).status).toBe(200);
    const del = await call(`${s.api}/keys/${created.body.key.id}`, { method: 'DELETE', cookie: m.cookie });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true, id: created.body.key.id, revoked: true });
    expectAuthError(await ping({ authorization: `Bearer ${secret}` }));
    // Revoking twice: the key is gone for good.
    expect((await call(`${s.api}/keys/${created.body.key.id}`, { method: 'DELETE', cookie: m.cookie })).status).toBe(404);
  });

  it('a key can revoke itself; it stops working at once', async () => {
    const created = await newKey('self');
    const secret = created.body.key.secret;
    const del = await call(`${s.api}/keys/${created.body.key.id}`, { method: 'DELETE', key: secret });
    expect(del.status).toBe(200);
    expectAuthError(await call(`${s.api}/keys`, { key: secret }));
  });

  it('the bearer scheme is case-insensitive', async () => {
    expect((await ping({ authorization: `bearer ${m.key}` })).status).toBe(200);
  });
});

describe('GET /api/v1/ping (interface 4.3)', () => {
  it('reports the account the key is scoped to', async () => {
    const r = await call(`${s.api}/v1/ping`, { key: m.key });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, account: m.accountId, live: true });
    PingResponse.strict().parse(r.body);
  });

  it('a session cookie is not a key: developer endpoints need the bearer secret', async () => {
    expectAuthError(await call(`${s.api}/v1/ping`, { cookie: m.cookie }));
  });
});

describe('API keys (interface 2.3, 4.4, 4.5)', () => {
  it('creates a key: 201, sk_live_ + >= 32 base62, shown once with its masked prefix', async () => {
    const r = await newKey('server 1');
    expect(r.status).toBe(201);
    KeyCreatedResponse.strict().parse(r.body);
    const { secret, prefix, id, label } = r.body.key;
    expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    expect(label).toBe('server 1');
    expect(id).toMatch(/^key_/);
    expect(prefix).toBe(`sk_live_…${secret.slice(-4)}`);
  });

  it('the list never includes a secret, only id, label, prefix, createdAt and the mode (newest first)', async () => {
    const a = await newKey('list a');
    const b = await newKey('list b');
    const r = await call(`${s.api}/keys`, { cookie: m.cookie });
    expect(r.status).toBe(200);
    KeyListResponse.parse(r.body);
    for (const k of r.body.keys) expect(Object.keys(k).sort()).toEqual(['createdAt', 'id', 'label', 'livemode', 'mode', 'prefix']);
    const text = JSON.stringify(r.body);
    expect(text).not.toContain(a.body.key.secret);
    expect(text).not.toContain(b.body.key.secret);
    expect(text).not.toContain('secret');
    const ids = r.body.keys.map((k: { id: string }) => k.id);
    expect(ids.indexOf(b.body.key.id)).toBeLessThan(ids.indexOf(a.body.key.id));
  });

  it('stores only a hash: the secret is nowhere in the stored files', async () => {
    const r = await newKey('hashed');
    const secret: string = r.body.key.secret;
    const db = await storedText(s.dataDir);
    expect(db).not.toContain(secret);
    expect(db).not.toContain(secret.slice('sk_live_'.length));
    const stored = (await storedTables<{ id: string; hash: string }>(s.dataDir)).tables.api_keys!.find((k) => k.id === r.body.key.id)!;
    expect(stored.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toHaveProperty('secret');
  });

  it('accepts the session cookie and the bearer key alike', async () => {
    const viaKey = await newKey('via bearer', { key: m.key });
    expect(viaKey.status).toBe(201);
    const listed = await call(`${s.api}/keys`, { key: viaKey.body.key.secret });
    expect(listed.status).toBe(200);
    expect(listed.body.keys.some((k: { id: string }) => k.id === viaKey.body.key.id)).toBe(true);
  });

  it('label: 1 and 60 characters ok; empty, blank and 61 rejected naming label', async () => {
    expect((await newKey('x')).status).toBe(201);
    expect((await newKey('x'.repeat(60))).status).toBe(201);
    for (const bad of ['', '   ', 'x'.repeat(61)]) {
      const r = await newKey(bad);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'label' });
    }
    const missing = await call(`${s.api}/keys`, { cookie: m.cookie, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('label');
  });

  it('an unknown field is refused, naming it, and no key is made (a typo of mode made a live key; h17tour)', async () => {
    const before = (await call(`${s.api}/keys`, { cookie: m.cookie })).body.keys.length;
    for (const body of [{ label: 'sandbox', Mode: 'test' }, { label: 'sandbox', livemode: false }]) {
      const r = await call(`${s.api}/keys`, { cookie: m.cookie, body });
      expect(r.status).toBe(400);
      const param = Object.keys(body)[1];
      expect(r.body).toEqual({ error: { type: 'invalid_request_error', message: `Received unknown parameter: ${param}.`, param } });
    }
    expect((await call(`${s.api}/keys`, { cookie: m.cookie })).body.keys.length).toBe(before);
    const test = await call(`${s.api}/keys`, { cookie: m.cookie, body: { label: 'sandbox', mode: 'test' } });
    expect(test.status).toBe(201);
    expect(test.body.key.secret).toMatch(/^sk_test_/);
  });

  it('keys endpoints need a session or a key', async () => {
    expectAuthError(await call(`${s.api}/keys`));
    expectAuthError(await call(`${s.api}/keys`, { body: { label: 'x' } }));
    expectAuthError(await call(`${s.api}/keys/key_x`, { method: 'DELETE' }));
  });
});

describe('cross-account isolation', () => {
  let a: Merchant;
  let b: Merchant;
  let paymentOfA: string;
  let keyOfA: { id: string; secret: string };

  beforeAll(async () => {
    a = await createMerchant(s.api, 'Shop A');
    b = await createMerchant(s.api, 'Shop B');
    const p = await call(`${s.api}/v1/payments`, { key: a.key, body: { amount: 10, currency: 'USD', redirect_url: 'https://a.example', reference: 'A-secret' } });
    paymentOfA = p.body.id;
    keyOfA = (await newKey('A key', { cookie: a.cookie })).body.key;
  });

  it("B's key cannot read A's payment (404, not 403)", async () => {
    const r = await call(`${s.api}/v1/payments/${paymentOfA}`, { key: b.key });
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe('invalid_request_error');
  });

  it("B's list never includes A's payments, even by A's reference or cursor", async () => {
    const list = await call(`${s.api}/v1/payments?limit=100`, { key: b.key });
    expect(list.body.data.map((p: { id: string }) => p.id)).not.toContain(paymentOfA);
    expect((await call(`${s.api}/v1/payments?reference=A-secret`, { key: b.key })).body.data).toEqual([]);
    const cursor = await call(`${s.api}/v1/payments?starting_after=${paymentOfA}`, { key: b.key });
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.param).toBe('starting_after');
  });

  it("B cannot see or revoke A's keys (404), and A's key keeps working", async () => {
    const bList = await call(`${s.api}/keys`, { key: b.key });
    expect(bList.body.keys.map((k: { id: string }) => k.id)).not.toContain(keyOfA.id);
    const byKey = await call(`${s.api}/keys/${keyOfA.id}`, { method: 'DELETE', key: b.key });
    expect(byKey.status).toBe(404);
    const byCookie = await call(`${s.api}/keys/${keyOfA.id}`, { method: 'DELETE', cookie: b.cookie });
    expect(byCookie.status).toBe(404);
    expect((await call(`${s.api}/v1/ping`, { key: keyOfA.secret })).body.account).toBe(a.accountId);
  });

  it("a key's ping reports its own account", async () => {
    expect((await call(`${s.api}/v1/ping`, { key: b.key })).body.account).toBe(b.accountId);
  });
});
