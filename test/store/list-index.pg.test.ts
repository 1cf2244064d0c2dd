import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';

/**
 * A merchant's list in one mode must not walk the rows of the other mode: with 30,000 live
 * payments and 3 test-mode ones, the test-mode list is one range scan of the
 * (accountId, livemode, seq) index (migration 0017), checked on the very statement the store
 * sends, with the planner's statistics up to date.
 */
let db: TestDatabase | undefined;
afterEach(async () => {
  await db?.drop();
  db = undefined;
});

describe('PostgreSQL store: a list in one mode at scale', () => {
  it('uses the (accountId, livemode) index and returns the newest rows of that mode', async () => {
    db = await createDatabase('listidx');
    const store = await PgStore.open(db.url, { poolMax: 2 });
    try {
      const doc = (i: number, live: boolean) => `jsonb_build_object('id', 'pay_' || ${i}, 'accountId', 'acct_a', 'livemode', ${live}, 'status', 'settled', 'reference', 'r' || ${i})`;
      await store.pool.query(`INSERT INTO payments (id, doc) SELECT 'pay_' || g, ${doc(NaN, true).replace(/NaN/g, 'g')} FROM generate_series(1, 30000) g`);
      await store.pool.query(`INSERT INTO payments (id, doc) SELECT 'pay_t' || g, ${doc(NaN, false).replace(/NaN/g, "'t' || g")} FROM generate_series(1, 3) g`);
      // Another merchant's rows come after, so an insertion-order walk would meet them first.
      await store.pool.query(`INSERT INTO payments (id, doc) SELECT 'pay_b' || g, jsonb_build_object('id', 'pay_b' || g, 'accountId', 'acct_b', 'livemode', true) FROM generate_series(1, 2000) g`);
      await store.pool.query('ANALYZE payments');

      const sent: { text: string; values: unknown[] }[] = [];
      const query = store.pool.query.bind(store.pool);
      store.pool.query = ((text: string, values: unknown[]) => {
        sent.push({ text, values });
        return query(text, values);
      }) as typeof store.pool.query;
      const rows = await store.table(Payments).findMany({ accountId: 'acct_a', livemode: false } as Partial<Payment>, { order: 'desc', limit: 21 });
      store.pool.query = query;

      expect(rows.map((r) => r.id)).toEqual(['pay_t3', 'pay_t2', 'pay_t1']);
      expect(sent).toHaveLength(1);
      const plan = await store.pool.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sent[0]!.text}`, sent[0]!.values);
      const text = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
      expect(text).toContain('"Index Name":"payments__i__accountId__livemode"');
      expect(text).not.toContain('"Index Name":"payments__seq"');
    } finally {
      await store.close();
    }
  });
});
