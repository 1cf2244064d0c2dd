import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PgStore } from '../../src/store/index.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';

/**
 * The driver's "client.query() while already executing" deprecation came from the LISTEN
 * session: subscribers starting together (the caches at boot) sent their LISTENs at once on the
 * one client (src/store/pg/listen-notify.ts). They now go one after another.
 */
let db: TestDatabase | undefined;
let store: PgStore | undefined;
afterEach(async () => {
  await store?.close();
  await db?.drop();
});

describe('PostgreSQL store channels', () => {
  it('subscribers starting together never queue a query on a busy client, and each gets its notices', async () => {
    db = await createDatabase('h7pg_listen');
    store = await PgStore.open(db.url, { poolMax: 2 });
    const original = pg.Client.prototype.query;
    const queued: string[] = [];
    (pg.Client.prototype as any).query = function (this: any, ...args: any[]) {
      const text: string = typeof args[0] === 'string' ? args[0] : (args[0]?.text ?? '?');
      if (this._getActiveQuery?.() || this._queryQueue?.length > 0) queued.push(text);
      return (original as any).apply(this, args);
    };
    const got: string[] = [];
    try {
      await Promise.all(['ch_a', 'ch_b', 'ch_c', 'ch_d'].map((ch) => store!.subscribe(ch, (p) => got.push(`${ch}:${p}`))));
    } finally {
      pg.Client.prototype.query = original;
    }
    expect(queued).toEqual([]);
    await store.transaction(async (tx) => {
      for (const ch of ['ch_a', 'ch_b', 'ch_c', 'ch_d']) await tx.publish(ch, 'x');
    });
    for (let i = 0; i < 100 && got.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    expect(got.sort()).toEqual(['ch_a:x', 'ch_b:x', 'ch_c:x', 'ch_d:x']);
  });
});
