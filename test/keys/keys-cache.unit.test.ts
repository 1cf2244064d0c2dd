import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LowdbStore, type Store } from '../../src/store/index.js';
import { KeysService } from '../../src/keys/keys.js';
import { tempDir } from '../helpers/service.js';

/**
 * The store as PostgreSQL behaves: a channel's notifications arrive some time after the
 * publishing transaction commits (over the listening connection), not during it. Here they
 * wait until `deliver()` is called.
 */
function delayedChannels(inner: LowdbStore) {
  const held: Array<() => void> = [];
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'subscribe') {
        return (channel: string, fn: (payload: string | undefined) => void) =>
          target.subscribe(channel, (payload) => held.push(() => fn(payload)));
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as Store;
  return { store, deliver: () => held.splice(0).forEach((f) => f()) };
}

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

  const instance = async (store: Store) => {
    const keys = new KeysService(store);
    await keys.start();
    services.push(keys);
    return keys;
  };

  it('the instance that revokes refuses the key on its very next lookup, before its own notification returns', async () => {
    const { store } = delayedChannels(inner);
    const keys = await instance(store);
    const { id, secret } = await keys.create('acct_1', { label: 'self' });
    expect((await keys.verify(secret))?.id).toBe(id); // now cached
    expect(await keys.revoke('acct_1', id)).toEqual({ ok: true, id });
    expect(await keys.verify(secret)).toBeUndefined();
  });

  it('another instance drops its cached key when the revocation notice reaches it', async () => {
    const { store, deliver } = delayedChannels(inner);
    const a = await instance(store);
    const b = await instance(store);
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

  it('a key of one account cannot be revoked with another account', async () => {
    const keys = await instance(inner);
    const { id, secret } = await keys.create('acct_1', { label: 'mine' });
    expect((await keys.revoke('acct_2', id)).ok).toBe(false);
    expect((await keys.verify(secret))?.id).toBe(id);
  });
});
