import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PgStore } from '../../src/store/index.js';
import { Accounts } from '../../src/accounts/accounts.js';
import { PG_ADMIN_URL, createDatabase, type TestDatabase } from '../helpers/pg.js';

/**
 * A session the server ends (a failover, an operator's pg_terminate_backend, an idle timeout)
 * while the service holds it inside a transaction, between two statements. The driver emits the
 * loss on the checked-out client, which the pool leaves without a listener: unhandled, that
 * error ends the process. It must instead fail (or retry) that transaction only.
 */
let db: TestDatabase | undefined;
let store: PgStore | undefined;
afterEach(async () => {
  await store?.close();
  await db?.drop();
});

async function terminateSessionsOf(database: string): Promise<number> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    const r = await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
    return r.rowCount ?? 0;
  } finally {
    await c.end();
  }
}

describe('PostgreSQL store: a session ended by the server mid-transaction', () => {
  it('does not end the process; the transaction answers and the next one runs on a fresh session', async () => {
    db = await createDatabase();
    store = await PgStore.open(db.url, { poolMax: 2 });
    const uncaught: unknown[] = [];
    const record = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', record);
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      let runs = 0;
      const outcome = store
        .transaction(async (tx) => {
          runs++;
          await tx.table(Accounts).get('acct_none');
          entered();
          await gate;
          return tx.table(Accounts).get('acct_none');
        })
        .then(
          () => 'answered',
          () => 'failed',
        );
      await inside;
      expect(await terminateSessionsOf(db.name)).toBeGreaterThan(0);
      // The driver reads the server's goodbye on the idle session: give it time to arrive.
      await new Promise((r) => setTimeout(r, 300));
      release();
      expect(['answered', 'failed']).toContain(await outcome);
      expect(runs).toBeGreaterThanOrEqual(1);
      expect(await store.transaction((tx) => tx.table(Accounts).get('acct_none'))).toBeUndefined();
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', record);
    }
  });
});
