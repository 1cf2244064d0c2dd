/**
 * The create and the checkout read are answered in front of express for their common case
 * (`HttpRoutes.front`, issue 23): express is not entered for them, their answers carry the same
 * headers and body as express's route gives, and every other case (a missing payment, a refused
 * create, no key, another Content-Type) is still express's own answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';

let s: TestService;
let m: Merchant;
let viaExpress: http.Server;
let expressApi: string;
let entered = 0;

beforeAll(async () => {
  s = await startTestService({ RECONCILE_INTERVAL: '1h', EXPIRY_SWEEP_INTERVAL: '1h', WEBHOOK_RESCAN_INTERVAL: '1h', DEPOSIT_WATCH_INTERVAL: '1h' });
  m = await createMerchant(s.api, 'Front Shop');
  // Counts every request express itself handles (the service's listener calls `app(req, res)`).
  const app = s.app as unknown as { handle: (...a: unknown[]) => unknown };
  const handle = app.handle.bind(app);
  app.handle = (...a: unknown[]) => {
    // The conformance check of `call` reads the OpenAPI document once per origin: not counted.
    if ((a[0] as { url?: string }).url !== '/api/openapi.json') entered++;
    return handle(...a);
  };
  // The same app served by express alone (no front routes): what the routes answered before.
  viaExpress = http.createServer(s.app);
  await new Promise<void>((r) => viaExpress.listen(0, '127.0.0.1', r));
  expressApi = `http://127.0.0.1:${(viaExpress.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await new Promise((r) => viaExpress?.close(r));
  await s?.stop({ removeData: true });
});

/** Headers as a client compares them: the per-answer ones (date, request id, length, ETag) left out. */
function stable(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    if (!['date', 'x-request-id', 'content-length', 'etag', 'keep-alive', 'connection'].includes(k)) out[k] = v;
  });
  return out;
}

let n = 0;
const body = () => ({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/ok', reference: `front-${Date.now()}-${++n}`, description: 'd', metadata: { o: '1' } });

describe('front routes', () => {
  it('a create is answered without entering express, with the headers and body express gives', async () => {
    entered = 0;
    const front = await call(`${s.api}/v1/payments`, { key: m.key, body: body() });
    expect(front.status).toBe(201);
    expect(entered).toBe(0);
    expect(front.headers.get('x-request-id')).toMatch(/^req_/);
    const before = entered;
    const slow = await call(`${expressApi}/v1/payments`, { key: m.key, body: body() });
    expect(entered).toBe(before + 1);
    expect(slow.status).toBe(201);
    expect(stable(front.headers)).toEqual(stable(slow.headers));
    expect(Object.keys(front.body).sort()).toEqual(Object.keys(slow.body).sort());
    expect(front.headers.get('content-length')).toBe(String(Buffer.byteLength(JSON.stringify(front.body))));
    // A caller's request id is echoed, as by express.
    const echoed = await call(`${s.api}/v1/payments`, { key: m.key, body: body(), headers: { 'x-request-id': 'mine-1' } });
    expect(echoed.headers.get('x-request-id')).toBe('mine-1');
    expect(entered).toBe(before + 1);
  });

  it('the checkout read and its 304 are answered without entering express, as express answers them', async () => {
    const created = await call(`${s.api}/v1/payments`, { key: m.key, body: body() });
    entered = 0;
    const front = await call(`${s.api}/checkout/${created.body.id}`);
    expect(front.status).toBe(200);
    const etag = front.headers.get('etag')!;
    const notModified = await fetch(`${s.api}/checkout/${created.body.id}`, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(entered).toBe(0);
    const slow = await call(`${expressApi}/checkout/${created.body.id}`);
    expect(entered).toBe(1);
    expect(slow.headers.get('etag')).toBe(etag);
    expect(stable(front.headers)).toEqual(stable(slow.headers));
    expect(front.body).toEqual(slow.body);
  });

  it('every other case is express own answer, in its route family shape', async () => {
    entered = 0;
    const missing = await call(`${s.api}/checkout/pay_doesnotexist`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ ok: false, error: 'No such payment: pay_doesnotexist' });
    expect(entered).toBe(1);

    const refused = await call(`${s.api}/v1/payments`, { key: m.key, body: { ...body(), amount: -1 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.type).toBe('invalid_request_error');
    expect(entered).toBe(2);

    const noKey = await call(`${s.api}/v1/payments`, { body: body() });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.type).toBe('authentication_error');
    expect(noKey.headers.get('x-request-id')).toMatch(/^req_/);
    expect(entered).toBe(3);

    const malformed = await call(`${s.api}/v1/payments`, { key: m.key, body: '{"amount":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toBe('Malformed JSON in request body.');
    expect(entered).toBe(4);

    const text = await call(`${s.api}/v1/payments`, { key: m.key, body: 'amount=1', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    expect(text.body.error.message).toBe('Content-Type must be application/json.');
    expect(entered).toBe(5);

    // The same refusals straight from express: the same answers.
    const slowRefused = await call(`${expressApi}/v1/payments`, { key: m.key, body: { ...body(), amount: -1 } });
    expect({ ...slowRefused.body, error: { ...slowRefused.body.error } }).toEqual(refused.body);
    expect(stable(slowRefused.headers)).toEqual(stable(refused.headers));
  });
});
