import { describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService } from '../helpers/service.js';
import { storedTables } from '../helpers/stored.js';

describe('persistence across a restart on the same DATA_DIR', () => {
  it('keeps accounts, sessions, keys (and revocations), payments, dedupe and idempotency', async () => {
    const first = await startTestService();
    const dataDir = first.dataDir;
    const m = await createMerchant(first.api, 'Durable Shop');
    const body = { amount: 42.5, currency: 'GHS', redirect_url: 'https://durable.example/done', reference: 'durable-1', metadata: { n: 1 } };
    const created = await call(`${first.api}/v1/payments`, { key: m.key, body, headers: { 'Idempotency-Key': 'restart-key' } });
    expect(created.status).toBe(201);
    const revoked = await call(`${first.api}/keys`, { cookie: m.cookie, body: { label: 'to revoke' } });
    await call(`${first.api}/keys/${revoked.body.key.id}`, { method: 'DELETE', cookie: m.cookie });
    await first.stop();

    // What the first run acknowledged is on disk as plain JSON.
    const db = await storedTables<{ id: string }>(dataDir);
    expect(db.tables.payments!.map((p) => p.id)).toContain(created.body.id);

    const second = await startTestService({}, { dataDir });
    try {
      const read = await call(`${second.api}/v1/payments/${created.body.id}`, { key: m.key });
      expect(read.status).toBe(200);
      // Same record; only the host part of checkout_url and x402_url follows the new port.
      expect({ ...read.body, checkout_url: undefined, x402_url: undefined }).toEqual({ ...created.body, checkout_url: undefined, x402_url: undefined });
      expect(read.body.x402_url).toMatch(new RegExp(`/${created.body.id}/x402$`));
      expect(read.body.checkout_url).toMatch(new RegExp(`/pay/${created.body.id}$`));
      expect((await call(`${second.api}/checkout/${created.body.id}`)).body.payment.currency).toBe('GHS');
      // The session cookie and the key still work; the revoked key stays revoked.
      expect((await call(`${second.api}/me`, { cookie: m.cookie })).status).toBe(200);
      expect((await call(`${second.api}/v1/ping`, { key: m.key })).body.account).toBe(m.accountId);
      expect((await call(`${second.api}/v1/ping`, { key: revoked.body.key.secret })).status).toBe(401);
      // Reference dedupe and the idempotency record survived too.
      const dedupe = await call(`${second.api}/v1/payments`, { key: m.key, body });
      expect(dedupe.status).toBe(200);
      expect(dedupe.body.id).toBe(created.body.id);
      const replay = await call(`${second.api}/v1/payments`, { key: m.key, body, headers: { 'Idempotency-Key': 'restart-key' } });
      expect(replay.status).toBe(201);
      expect(replay.body.id).toBe(created.body.id);
      const conflict = await call(`${second.api}/v1/payments`, { key: m.key, body: { ...body, amount: 43 } });
      expect(conflict.status).toBe(409);
      // New writes after the restart append to the same store.
      const more = await call(`${second.api}/v1/payments`, { key: m.key, body: { ...body, reference: 'durable-2' } });
      expect(more.status).toBe(201);
      const list = await call(`${second.api}/v1/payments`, { key: m.key });
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([more.body.id, created.body.id]);
    } finally {
      await second.stop({ removeData: true });
    }
  });
});
