/**
 * The checkout settle (`POST /api/checkout/:id/settle`) is answered in front of express for its
 * common case (`HttpRoutes.front`, issue 23 sixth round): a settle does not enter express, and
 * its answers (the settled one, every refusal of a bad body, an unknown payment) carry the same
 * status, headers and body as the express route gives on the same app.
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/service.js';
import { authorize, createPayment, customer, settle, setup, usdc, type Ctx } from '../settlement/helpers.js';

let ctx: Ctx;
let viaExpress: http.Server;
let expressApi: string;
let entered = 0;

beforeAll(async () => {
  ctx = await setup({ EXPIRY_SWEEP_INTERVAL: '1h', WEBHOOK_RESCAN_INTERVAL: '1h', DEPOSIT_WATCH_INTERVAL: '1h' });
  // Counts every request express itself handles (the service's listener calls `app(req, res)`).
  const app = ctx.svc.app as unknown as { handle: (...a: unknown[]) => unknown };
  const handle = app.handle.bind(app);
  app.handle = (...a: unknown[]) => {
    // The conformance check of `call` reads the OpenAPI document once per origin: not counted.
    if ((a[0] as { url?: string }).url !== '/api/openapi.json') entered++;
    return handle(...a);
  };
  // The same app served by express alone (no front routes): what the route answered before.
  viaExpress = http.createServer(ctx.svc.app);
  await new Promise<void>((r) => viaExpress.listen(0, '127.0.0.1', r));
  expressApi = `http://127.0.0.1:${(viaExpress.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await new Promise((r) => viaExpress?.close(r));
  await ctx?.svc.stop({ removeData: true });
});

/** A POST of exactly these bytes (a Buffer for a compressed or invalid-UTF-8 body). */
async function post(url: string, body: string | Buffer, headers: Record<string, string>) {
  if (typeof body === 'string') return call(url, { body, headers });
  const res = await fetch(url, { method: 'POST', body: new Uint8Array(body), headers });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

/** Headers as a client compares them: the per-answer ones left out. */
function stable(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    if (!['date', 'x-request-id', 'content-length', 'keep-alive', 'connection'].includes(k)) out[k] = v;
  });
  return out;
}

describe('settle in front of express', () => {
  it('a settle is answered without entering express, as the express route answers it', async () => {
    const payer = await customer(ctx, usdc('100'));
    const [a, b] = [await createPayment(ctx), await createPayment(ctx)];
    const [signedA, signedB] = [await authorize(ctx, a.id, payer), await authorize(ctx, b.id, payer)];
    entered = 0;
    const front = await settle(ctx, a.id, signedA);
    expect(front.status, JSON.stringify(front.body)).toBe(200);
    expect(entered).toBe(0);
    expect(front.body).toMatchObject({ ok: true, payment: { id: a.id, status: 'settled' }, redirect: expect.stringContaining('https://shop.example/thanks') });
    expect(front.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(front.headers.get('cache-control')).toBe('no-store');
    expect(front.headers.get('x-request-id')).toMatch(/^req_/);
    expect(front.headers.get('content-length')).toBe(String(Buffer.byteLength(JSON.stringify(front.body))));

    const slow = await call(`${expressApi}/checkout/${b.id}/settle`, { body: { authorization: signedB.authorization, signature: signedB.signature } });
    expect(slow.status, JSON.stringify(slow.body)).toBe(200);
    expect(entered).toBe(1);
    expect(stable(front.headers)).toEqual(stable(slow.headers));
    expect(Object.keys(front.body).sort()).toEqual(Object.keys(slow.body).sort());
    expect(Object.keys(front.body.payment).sort()).toEqual(Object.keys(slow.body.payment).sort());

    // The same body again (a page retrying): the same outcome both ways, without express in front.
    const again = await settle(ctx, a.id, signedA);
    const againSlow = await call(`${expressApi}/checkout/${a.id}/settle`, { body: { authorization: signedA.authorization, signature: signedA.signature } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(front.body);
    expect(againSlow.body).toEqual(front.body);
    expect(stable(again.headers)).toEqual(stable(againSlow.headers));
    expect(entered).toBe(2);
  });

  it('bad bodies and an unknown payment get the route answers, in the checkout shape', async () => {
    const payer = await customer(ctx);
    const p = await createPayment(ctx);
    const signed = await authorize(ctx, p.id, payer);
    const good = { authorization: signed.authorization, signature: signed.signature };
    const cases: Array<{ name: string; id?: string; body: string | Buffer; type?: string; headers?: Record<string, string>; viaExpress?: boolean }> = [
      { name: 'empty object', body: '{}' },
      { name: 'no signature', body: JSON.stringify({ authorization: good.authorization }) },
      { name: 'short signature', body: JSON.stringify({ ...good, signature: '0x1234' }) },
      { name: 'bad from', body: JSON.stringify({ ...good, authorization: { ...good.authorization, from: '0x12' } }) },
      { name: 'value too large', body: JSON.stringify({ ...good, authorization: { ...good.authorization, value: '9'.repeat(78) } }) },
      { name: 'negative value', body: JSON.stringify({ ...good, authorization: { ...good.authorization, value: '-1' } }) },
      { name: 'nonce not 32 bytes', body: JSON.stringify({ ...good, authorization: { ...good.authorization, nonce: '0xabc' } }) },
      { name: 'an array', body: '[]' },
      { name: 'a number', body: '12', viaExpress: true },
      { name: 'null', body: 'null', viaExpress: true },
      { name: 'malformed JSON', body: '{"authorization":', viaExpress: true },
      { name: 'not JSON', body: 'a=1', type: 'text/plain', viaExpress: true },
      { name: 'unknown payment', id: 'pay_doesnotexist', body: JSON.stringify(good) },
      // The body read as express's JSON parser reads it: a BOM, JSON's whitespace, an empty body, the UTF-8 charset.
      { name: 'BOM before a bad body', body: `\uFEFF${JSON.stringify({ ...good, signature: '0x12' })}` },
      { name: 'whitespace before a bad body', body: ` \n\t${JSON.stringify({ authorization: {} })}` },
      { name: 'empty body', body: '' },
      { name: 'a string', body: ' "x"', viaExpress: true },
      { name: 'charset utf-8', body: '{}', type: 'application/json; charset=UTF-8' },
      { name: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) },
      // Left to express: another charset, a compressed body, one over the limit.
      { name: 'charset latin1', body: '{}', type: 'application/json; charset=latin1', viaExpress: true },
      { name: 'gzip', body: gzipSync('{}'), headers: { 'content-encoding': 'gzip' }, viaExpress: true },
      // (Sent as bytes: its 413 is not in the route's OpenAPI description, which `call` checks.)
      { name: 'over 100 kB', body: Buffer.from(JSON.stringify({ ...good, pad: 'x'.repeat(110_000) })), viaExpress: true },
    ];
    for (const c of cases) {
      const headers = { 'content-type': c.type ?? 'application/json', ...c.headers };
      const path = `/checkout/${c.id ?? p.id}/settle`;
      entered = 0;
      const front = await post(`${ctx.svc.api}${path}`, c.body, headers);
      expect(entered, c.name).toBe(c.viaExpress ? 1 : 0);
      const slow = await post(`${expressApi}${path}`, c.body, headers);
      expect(front.status, c.name).toBeGreaterThanOrEqual(400);
      expect({ status: front.status, body: front.body }, c.name).toEqual({ status: slow.status, body: slow.body });
      expect(stable(front.headers), c.name).toEqual(stable(slow.headers));
      expect(front.body.ok, c.name).toBe(false);
      expect(typeof front.body.error, c.name).toBe('string');
    }
    // Nothing was settled by any of them.
    expect((await ctx.svc.deps.payments.get(p.id))?.status).toBe('pending');
  });
});
