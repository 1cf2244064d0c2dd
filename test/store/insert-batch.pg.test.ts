import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';

/**
 * Store.insertOrGet on PostgreSQL groups the inserts that arrive together into one statement
 * (src/store/pg/insert-batcher.ts), and each caller still gets its own answer: inserted, or the
 * row holding its id or unique key (an earlier row, or another row of the same batch).
 */
let db: TestDatabase | undefined;
afterEach(async () => {
  await db?.drop();
  db = undefined;
});

const row = (id: string, reference: string): Payment => ({ id, accountId: 'acct_a', livemode: true, reference, status: 'pending' }) as unknown as Payment;

describe('PostgreSQL store: inserts that arrive together', () => {
  it('go as few statements, and every caller gets its own row or the holder', async () => {
    db = await createDatabase('insbatch');
    const store = await PgStore.open(db.url, { poolMax: 4 });
    try {
      expect((await store.insertOrGet(Payments, row('pay_old', 'ref-old'))).inserted).toBe(true);
      const sent: string[] = [];
      const query = store.pool.query.bind(store.pool);
      store.pool.query = ((config: string | { text: string }, values?: unknown[]) => {
        sent.push(typeof config === 'string' ? config : config.text);
        return query(config as never, values as never);
      }) as typeof store.pool.query;
      const rows = [
        ...Array.from({ length: 40 }, (_, i) => row(`pay_${i}`, `ref-${i}`)),
        row('pay_dup_ref', 'ref-7'), // the reference of a row in the same burst
        row('pay_dup_old', 'ref-old'), // the reference of a row stored before
        row('pay_3', 'ref-other'), // the id of a row in the same burst
      ];
      const answers = await Promise.all(rows.map((r) => store.insertOrGet(Payments, r)));
      store.pool.query = query;

      // Rows that collide with nothing are inserted; the pairs that collide arrived together
      // (concurrent callers), so either may win, but exactly one does and the other gets it.
      const clean = [...Array(40).keys()].filter((i) => i !== 3 && i !== 7);
      for (const i of clean) expect([i, answers[i]]).toEqual([i, { inserted: true, row: rows[i] }]);
      expect(answers[41]).toMatchObject({ inserted: false, existing: { id: 'pay_old', reference: 'ref-old' } });
      for (const [a, b] of [[3, 42], [7, 40]] as const) {
        const [win, lose] = answers[a]!.inserted ? [a, b] : [b, a];
        expect(answers[win]).toEqual({ inserted: true, row: rows[win] });
        expect(answers[lose]).toEqual({ inserted: false, existing: rows[win] });
      }
      // 43 inserts: the first alone, the rest in one or two batches, then the three refused
      // rows each on their own to read their holder.
      expect(sent.length).toBeLessThanOrEqual(8);
      expect(sent.some((t) => t.includes('unnest('))).toBe(true);
      const stored = await store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments');
      expect(stored.rows[0]!.n).toBe(41); // pay_old, 38 clean rows, one of each colliding pair
      // Within a batch, insertion order is arrival order.
      const order = (await store.table(Payments).findMany({ accountId: 'acct_a', livemode: true } as Partial<Payment>)).map((p) => p.id);
      expect(order.indexOf('pay_38')).toBe(order.indexOf('pay_39') - 1);
    } finally {
      await store.close();
    }
  });
});
