import { afterEach, describe, expect, it } from 'vitest';
import { PgStore } from '../../src/store/index.js';
import { CacheChannel } from '../../src/store/cache-channel.js';
import { WriteWatch } from '../../src/lib/write-watch.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';

/**
 * A cache channel's pings (every licenseMs / 4: half a second by default) record nothing of
 * anyone's action, so the agent's store-error boundary (src/lib/write-watch.ts) must not count
 * them. It did: on a loaded CI machine a confirm whose quote read failed before any write
 * answered 202 "outcome unknown" (and left the action `done`) instead of 503 "retry shortly".
 */
let db: TestDatabase | undefined;
let store: PgStore | undefined;
let channel: CacheChannel | undefined;
afterEach(async () => {
  await channel?.stop();
  await store?.close();
  await db?.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cache channel pings and the write watch', () => {
  it('a channel pinging meanwhile is not a write begun; a transaction is', async () => {
    db = await createDatabase('cc_watch');
    store = await PgStore.open(db.url, { poolMax: 3 });
    let pings = 0;
    // A 40 ms license pings every 10 ms: a 300 ms piece of work sees some thirty.
    channel = new CacheChannel(store, 'cc_watch', () => undefined, { licenseMs: 40 });
    const real = store.transaction.bind(store);
    store.transaction = ((fn: never, opts?: never) => (pings++, real(fn, opts))) as typeof store.transaction;
    await channel.start();

    const quiet = new WriteWatch();
    const before = pings;
    await quiet.run(() => sleep(300));
    expect(pings - before).toBeGreaterThan(5);
    expect(quiet.wrote).toBe(false);

    const writing = new WriteWatch();
    await writing.run(() => store!.transaction(async () => undefined));
    expect(writing.wrote).toBe(true);
  });
});
