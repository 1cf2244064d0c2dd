/**
 * Issue 23 point 4: the public checkout read reuses its serialised answer and answers
 * If-None-Match with 304, and still shows a change on the very next poll: settled after a
 * settle, a new status after expiry, with or without the ETag of the previous answer.
 * (Runs on lowdb, where the answer is reused, and again on PostgreSQL in the pg project's
 * core suite run is not needed: there every read builds a fresh answer.)
 */
import { describe, expect } from 'vitest';
import { call, type Merchant, type TestService } from '../helpers/service.js';
import { merchantServiceTest } from '../helpers/service-fixtures.js';

const it = merchantServiceTest('Fresh Shop');
let s: TestService;
let m: Merchant;
it.beforeAll(({ svc, merchant }) => {
  s = svc;
  m = merchant;
});

const read = (id: string, etag?: string) => fetch(`${s.api}/checkout/${id}`, { headers: etag ? { 'if-none-match': etag } : {} });

describe('GET /api/checkout/:id freshness', () => {
  it('304 while unchanged; settled on the next poll after a settle, whatever the poller sends', async () => {
    const p = (await call(`${s.api}/v1/payments`, { key: m.key, body: { amount: 7, currency: 'USD', redirect_url: 'https://shop.example/ok' } })).body;
    const first = await read(p.id);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    const firstBody = await first.json();
    expect(firstBody.payment.status).toBe('pending');
    // Unchanged: the same ETag, and 304 with no body for a poller that sends it.
    const again = await read(p.id);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.json()).toEqual(firstBody);
    const notModified = await read(p.id, etag);
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');

    const paid = await call(`${s.api}/dev/test-wallet-pay/${p.id}`, { body: {} });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    // The very next poll, with the old ETag: 200 and settled.
    const after = await read(p.id, etag);
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect((await after.json()).payment.status).toBe('settled');
    // And without one.
    expect((await (await read(p.id)).json()).payment.status).toBe('settled');
  });

  it('a pending payment past its expiry reads expired on the next poll, though its row did not change', async () => {
    const p = (await call(`${s.api}/v1/payments`, { key: m.key, body: { amount: 7, currency: 'USD', redirect_url: 'https://shop.example/ok', expires_in_minutes: 1 } })).body;
    const first = await read(p.id);
    const etag = first.headers.get('etag')!;
    expect((await first.json()).payment.status).toBe('pending');
    const realNow = Date.now;
    Date.now = () => realNow() + 2 * 60_000;
    try {
      const after = await read(p.id, etag);
      expect(after.status).toBe(200);
      expect((await after.json()).payment.status).toBe('expired');
    } finally {
      Date.now = realNow;
    }
  });
});
