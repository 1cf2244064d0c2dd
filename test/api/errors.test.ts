import { describe, expect, vi } from 'vitest';
import { call, type Merchant, type TestService } from '../helpers/service.js';
import { merchantServiceTest } from '../helpers/service-fixtures.js';
import { DeveloperErrorBody } from '../../src/http/errors.js';

const it = merchantServiceTest('Errors Shop');
let s: TestService;
let m: Merchant;

it.beforeAll(({ svc, merchant }) => {
  s = svc;
  m = merchant;
});

const valid = { amount: 10, currency: 'USD', redirect_url: 'https://shop.example/done' };

/** Raw fetch: full control over the body and headers. */
async function raw(path: string, init: RequestInit = {}) {
  const res = await fetch(`${s.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

/** Never HTML, never a stack trace, never express's default pages. */
function expectNoInternals(text: string) {
  expect(text).not.toMatch(/<html|<pre>|Cannot (GET|POST)/i);
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+/);
  expect(text).not.toMatch(/node_modules|\/work\/|src\//);
}

function expectDeveloperError(r: { status: number; headers: Headers; text: string; json: () => any }, status: number, type: string) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expectNoInternals(r.text);
  const body = r.json();
  DeveloperErrorBody.strict().parse(body);
  expect(body.error.type).toBe(type);
  return body.error as { type: string; message: string; param?: string };
}

describe('the create, answered ahead of the other routers (docs/performance.md, issue 23 fourth round)', () => {
  const post = (body: string, headers: Record<string, string>) => raw('/api/v1/payments', { method: 'POST', body, headers });

  it('checks the body before the key, as the API chain does: 400 for a non-JSON or malformed body, then 401', async () => {
    expect((await post('amount=10', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(400);
    expect((await post('{"amount": 10,', { 'content-type': 'application/json' })).status).toBe(400);
    expectDeveloperError(await post(JSON.stringify(valid), { 'content-type': 'application/json' }), 401, 'authentication_error');
    expectDeveloperError(await post(JSON.stringify(valid), { 'content-type': 'application/json', authorization: 'Bearer sk_live_nope' }), 401, 'authentication_error');
  });

  it("answers with the API's headers: JSON with its length, the security headers and the request id", async () => {
    const r = await post(JSON.stringify({ ...valid, reference: `hdr-${Date.now()}` }), { 'content-type': 'application/json', authorization: `Bearer ${m.key}`, 'x-request-id': 'req-create-1' });
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
    expect(r.headers.get('x-request-id')).toBe('req-create-1');
    expect(r.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.json()).toMatchObject({ object: 'payment', status: 'pending', amount: 10, currency: 'USD' });
  });
});

describe('request body errors', () => {
  const post = (body: string, headers: Record<string, string>) =>
    raw('/api/v1/payments', { method: 'POST', body, headers: { authorization: `Bearer ${m.key}`, ...headers } });

  it('malformed JSON -> 400 invalid_request_error', async () => {
    const e = expectDeveloperError(await post('{"amount": 10,', { 'content-type': 'application/json' }), 400, 'invalid_request_error');
    expect(e.message).toMatch(/Malformed JSON/);
  });

  it('well-formed JSON that is not an object (null, 5, "x") -> 400 saying so, not "malformed" (h16tour)', async () => {
    for (const body of ['null', '5', '"x"', 'true']) {
      const e = expectDeveloperError(await post(body, { 'content-type': 'application/json' }), 400, 'invalid_request_error');
      expect(e.message, body).toBe('The request body must be a JSON object.');
    }
  });

  it('wrong content type -> 400 invalid_request_error', async () => {
    const e = expectDeveloperError(await post('amount=10&currency=USD', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'invalid_request_error');
    expect(e.message).toMatch(/Content-Type must be application\/json/);
    expectDeveloperError(await post(JSON.stringify(valid), { 'content-type': 'text/plain' }), 400, 'invalid_request_error');
  });

  it('a body over 100 kB -> 413, one just under is parsed', async () => {
    const big = JSON.stringify({ ...valid, description: 'x'.repeat(101 * 1024) });
    const e = expectDeveloperError(await post(big, { 'content-type': 'application/json' }), 413, 'invalid_request_error');
    expect(e.message).toMatch(/100 kB/);
    // ~99 kB: parsed, then refused by validation (description max 300), not by size.
    const under = JSON.stringify({ ...valid, description: 'x'.repeat(99 * 1024) });
    const v = expectDeveloperError(await post(under, { 'content-type': 'application/json' }), 400, 'invalid_request_error');
    expect(v.param).toBe('description');
  });

  it('a body that is not an object, or no body at all -> 400', async () => {
    expect(expectDeveloperError(await post('[1,2]', { 'content-type': 'application/json' }), 400, 'invalid_request_error').message).toMatch(/JSON object/);
    // An empty body reads as an empty object: the first required field is named.
    expect(expectDeveloperError(await post('', { 'content-type': 'application/json' }), 400, 'invalid_request_error').param).toBe('amount');
    expectDeveloperError(await post('"text"', { 'content-type': 'application/json' }), 400, 'invalid_request_error');
  });

  it('validation errors name the bad field in `param`', async () => {
    const e = expectDeveloperError(await post(JSON.stringify({ ...valid, amount: 'ten' }), { 'content-type': 'application/json' }), 400, 'invalid_request_error');
    expect(e.param).toBe('amount');
    const nested = expectDeveloperError(
      await post(JSON.stringify({ ...valid, metadata: { ok: 1, bad: { deep: true } } }), { 'content-type': 'application/json' }),
      400,
      'invalid_request_error',
    );
    expect(nested.param).toBe('metadata.bad');
  });

  it('an unsupported charset -> 400, not a crash', async () => {
    expectDeveloperError(await post(JSON.stringify(valid), { 'content-type': 'application/json; charset=latin1' }), 400, 'invalid_request_error');
  });
});

describe('unknown routes and bad URLs', () => {
  it('unknown API routes -> 404 JSON in the developer shape', async () => {
    expectDeveloperError(await raw('/api/nope'), 404, 'invalid_request_error');
    expectDeveloperError(await raw('/api/v2/payments'), 404, 'invalid_request_error');
    expectDeveloperError(await raw('/api/v1/payments', { method: 'PATCH', headers: { authorization: `Bearer ${m.key}` } }), 404, 'invalid_request_error');
    expectDeveloperError(await raw('/nope'), 404, 'invalid_request_error');
  });

  it('unknown checkout ids answer in the checkout shape', async () => {
    const r = await raw('/api/checkout/unknown');
    expect(r.status).toBe(404);
    expect(r.json()).toEqual({ ok: false, error: 'No such payment: unknown' });
  });

  it.each(['/pay/unknown', '/app/unknown', '/pay/%E0%A4%A', '/app/%E0%A4%A', '/%E0%A4%A', '/api/%E0%A4%A', '/api/checkout/%E0%A4%A', '/api/v1/payments/%E0%A4%A', '/api/keys/%ZZ'])(
    '%s is JSON or a proper page, never express HTML or a stack',
    async (path) => {
      const r = await raw(path, { headers: { authorization: `Bearer ${m.key}` } });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      const type = r.headers.get('content-type') ?? '';
      if (type.startsWith('application/json')) {
        expectNoInternals(r.text);
        expect(() => r.json()).not.toThrow();
      } else {
        // A page of our own: a full document, no default error markup.
        expect(type).toMatch(/^text\/html/);
        expect(r.text).toMatch(/^<!doctype html>/i);
        expect(r.text).not.toMatch(/<pre>|Cannot GET|URIError|at .+:\d+:\d+/);
      }
    },
  );
});

describe('unexpected failures', () => {
  it('a thrown error -> 500 api_error with no internals (developer shape)', async () => {
    const original = s.deps.payments.getForAccount;
    s.deps.payments.getForAccount = async () => {
      throw new Error('boom: /work/secret/path.ts');
    };
    try {
      const r = await raw('/api/v1/payments/pay_whatever', { headers: { authorization: `Bearer ${m.key}` } });
      const e = expectDeveloperError(r, 500, 'api_error');
      expect(r.text).not.toContain('boom');
      expect(e.message).toMatch(/internal error/i);
      expect(e.param).toBeUndefined();
    } finally {
      s.deps.payments.getForAccount = original;
    }
  });

  it('a thrown error on the checkout read -> 500 in the checkout shape', async () => {
    const original = s.deps.payments.get;
    s.deps.payments.get = async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'x')");
    };
    try {
      const r = await raw('/api/checkout/pay_whatever');
      expect(r.status).toBe(500);
      expectNoInternals(r.text);
      expect(r.json()).toEqual({ ok: false, error: expect.stringMatching(/internal error/i) });
      expect(r.text).not.toContain('Cannot read');
    } finally {
      s.deps.payments.get = original;
    }
  });
});

describe('every response', () => {
  it('carries an X-Request-Id (a sane one given by the caller is kept)', async () => {
    for (const path of ['/healthz', '/api/v1/ping', '/api/nope', '/api/checkout/x', '/app']) {
      const r = await raw(path);
      expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
    }
    const given = await raw('/healthz', { headers: { 'x-request-id': 'lb-1234.abc' } });
    expect(given.headers.get('x-request-id')).toBe('lb-1234.abc');
    const hostile = await raw('/healthz', { headers: { 'x-request-id': 'a b<script>' } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('has helmet headers on API responses and pages, and no X-Powered-By', async () => {
    for (const path of ['/api/v1/ping', '/api/checkout/x', '/app', '/healthz']) {
      const r = await raw(path);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
      expect(r.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
      expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('x-powered-by')).toBeNull();
      // Plain http: no HSTS.
      expect(r.headers.get('strict-transport-security')).toBeNull();
    }
  });
});

describe('health', () => {
  it('GET /healthz and GET /readyz answer ok', async () => {
    const live = await raw('/healthz');
    expect(live.status).toBe(200);
    expect(live.json()).toEqual({ ok: true, ready: true });
    const ready = await raw('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json()).toMatchObject({ ok: true, details: { store: true, chain: true, relayer: { low_gas: false } } });
  });

  it('GET /metrics does not exist without METRICS_TOKEN (404, the documented shape)', async () => {
    const r = await raw('/metrics', { headers: { authorization: 'Bearer anything-at-all-here' } });
    expectDeveloperError(r, 404, 'invalid_request_error');
  });

  it('GET /readyz answers 503 when a probe fails', async () => {
    // The chain stops answering: the readiness probe of the core says so.
    const ping = vi.spyOn(s.deps.chain, 'ping').mockResolvedValue(false);
    try {
      const r = await raw('/readyz');
      expect(r.status).toBe(503);
      expect(r.json()).toMatchObject({ ok: false, details: { chain: false } });
    } finally {
      ping.mockRestore();
    }
  });
});

describe('the API is JSON end to end', () => {
  it('the call helper agrees with raw fetch on a success', async () => {
    const r = await call(`${s.api}/v1/payments`, { key: m.key, body: valid });
    expect(r.status).toBe(201);
  });
});
