import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LowdbStore, type Store } from '../../src/store/index.js';
import { ApiKeys, KeysService } from '../../src/keys/keys.js';
import { tempDir } from '../helpers/service.js';
import { delayedChannels } from '../helpers/delayed-channels.js';

const turns = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KeysService: the cache of verified keys and revocation', () => {
  let inner: LowdbStore;
  let services: KeysService[];
  beforeEach(async () => {
    inner = await LowdbStore.open(await tempDir('sp-keys-'));
    services = [];
  });
  afterEach(async () => {
    for (const s of services) await s.stop();
    await inner.close();
  });

  const instance = async (store: Store, licenseMs?: number) => {
    const keys = new KeysService(store, { licenseMs });
    await keys.start();
    services.push(keys);
    return keys;
  };

  it('the instance that revokes refuses the key on its very next lookup, before its own notification returns', async () => {
    const { store } = delayedChannels(inner);
    const keys = await instance(store, 300);
    const { id, secret } = await keys.create('acct_1', { label: 'self' });
    expect((await keys.verify(secret))?.id).toBe(id); // now cached
    expect(await keys.revoke('acct_1', id)).toEqual({ ok: true, id });
    expect(await keys.verify(secret)).toBeUndefined();
  });

  it('another instance drops its cached key when the revocation notice reaches it', async () => {
    const { store, deliver } = delayedChannels(inner);
    const a = await instance(store, 300);
    const b = await instance(store, 300);
    const { id, secret } = await a.create('acct_1', { label: 'shared' });
    expect((await a.verify(secret))?.id).toBe(id);
    let answered = false;
    const revoking = b.revoke('acct_1', id).then((r) => ((answered = true), r));
    await new Promise((r) => setTimeout(r, 100));
    // The revoke answers only once its own notice is back, i.e. on the wire to every instance.
    expect(answered).toBe(false);
    deliver();
    expect(await revoking).toEqual({ ok: true, id });
    expect(await a.verify(secret)).toBeUndefined();
    expect(await b.verify(secret)).toBeUndefined();
  });

  /** Two processes with prompt channels, a key made on the first. */
  const twoProcesses = async (licenseMs: number) => {
    const { make } = delayedChannels(inner);
    const [pa, pb] = [make(), make()];
    pa.conn.held = pb.conn.held = false;
    const a = await instance(pa.store, licenseMs);
    const b = await instance(pb.store, licenseMs);
    return { pb, a, b, ...(await a.create('acct_1', { label: 'shared' })) };
  };

  it('a revoke answers only once the other instance, whose channel lags, has dropped the key', async () => {
    const { pb, a, b, id, secret } = await twoProcesses(1_000);
    // Past the start, when a cannot yet know every peer: both serve from their caches.
    await turns(1_200);
    expect((await b.verify(secret))?.id).toBe(id);
    await inner.transaction(async (tx) => tx.table(ApiKeys).update(id, { label: 'renamed behind the cache' }));
    expect((await b.verify(secret))?.label).toBe('shared'); // served from b's cache
    // b's process is starved: what PostgreSQL sent it is not handled yet.
    pb.conn.held = true;
    let answered = false;
    const revoking = a.revoke('acct_1', id).then((r) => ((answered = true), r));
    await turns(100);
    expect(answered).toBe(false);
    pb.conn.deliver(); // b handles the notice and acks
    expect(await revoking).toEqual({ ok: true, id });
    expect(await b.verify(secret)).toBeUndefined();
    expect(await a.verify(secret)).toBeUndefined();
  });

  it('an instance that never handles the notice stops serving cached keys before the revoke answers', async () => {
    const { pb, a, b, id, secret } = await twoProcesses(200);
    await turns(50);
    expect((await b.verify(secret))?.id).toBe(id);
    pb.conn.held = true; // and never delivered
    expect(await a.revoke('acct_1', id)).toEqual({ ok: true, id });
    expect(await b.verify(secret)).toBeUndefined();
  });

  it('a key of one account cannot be revoked with another account', async () => {
    const keys = await instance(inner);
    const { id, secret } = await keys.create('acct_1', { label: 'mine' });
    expect((await keys.revoke('acct_2', id)).ok).toBe(false);
    expect((await keys.verify(secret))?.id).toBe(id);
  });
});
