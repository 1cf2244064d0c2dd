/**
 * Issue 23 point 4 / issue 22 step 1: the public checkout read reuses its answer per process, and
 * still shows a change made by another instance on the very next poll. Two service processes on
 * one PostgreSQL database and one anvil: instance A answers reads (its cache warm, 304 for the
 * ETag it gave), instance B settles one session and cancels another; A's next read says
 * `settled` / `canceled`, with or without the old ETag.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { cluster, startSharedChain, type Cluster, type Instance, type SharedChain } from '../helpers/cluster.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { call, createMerchant } from '../helpers/service.js';

describe('checkout read across two instances', () => {
  let db: TestDatabase | undefined;
  let chain: SharedChain | undefined;
  let nodes: Cluster | undefined;
  afterAll(async () => {
    await nodes?.stopAll();
    await chain?.stop();
    await db?.drop();
  });

  it('a settle or a cancel on instance B shows on instance A at the next poll', { timeout: 180_000 }, async () => {
    db = await createDatabase(undefined, { prefix: 'h22view_fresh_' });
    chain = await startSharedChain();
    nodes = cluster({ databaseUrl: db.url, chain, env: { RECONCILE_INTERVAL: '1h' } });
    const [a, b] = (await Promise.all([nodes.start('a', 1), nodes.start('b', 2)])) as [Instance, Instance];
    const shop = await createMerchant(a.api, 'Two Doors');
    const payer = privateKeyToAccount(generatePrivateKey());
    await chain.mint(payer.address, parseUnits('100', 6));
    const create = async () => (await call(`${a.api}/v1/payments`, { key: shop.key, body: { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/ok' } })).body as { id: string };
    const readA = (id: string, etag?: string) => fetch(`${a.api}/checkout/${id}`, { headers: etag ? { 'if-none-match': etag } : {} });

    /** Reads twice on A (the second from its cache: the same ETag, 304 when sent back). */
    const warm = async (id: string) => {
      const first = await readA(id);
      expect(first.status).toBe(200);
      expect((await first.json()).payment.status).toBe('pending');
      const etag = first.headers.get('etag')!;
      expect((await readA(id, etag)).status).toBe(304);
      return etag;
    };

    // Settled through B.
    const paid = await create();
    const etag = await warm(paid.id);
    const auth = await call(`${b.api}/checkout/${paid.id}/authorization`, { body: { from: payer.address } });
    expect(auth.status, JSON.stringify(auth.body)).toBe(200);
    const signature = await payer.signTypedData(auth.body.typedData);
    const settled = await call(`${b.api}/checkout/${paid.id}/settle`, { body: { authorization: auth.body.typedData.message, signature } });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body.payment.status).toBe('settled');
    const after = await readA(paid.id, etag);
    expect(after.status).toBe(200);
    const body = await after.json();
    expect(body.payment.status).toBe('settled');
    expect(body.payment.depositAddress).toBeUndefined();
    expect(after.headers.get('etag')).not.toBe(etag);

    // Canceled through B.
    const called = await create();
    const etag2 = await warm(called.id);
    expect((await call(`${b.api}/v1/payments/${called.id}/cancel`, { method: 'POST', key: shop.key })).status).toBe(200);
    expect((await (await readA(called.id, etag2)).json()).payment.status).toBe('canceled');
    expect((await (await readA(called.id)).json()).payment.status).toBe('canceled');
  });
});
