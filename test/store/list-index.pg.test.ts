import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { planText, withSent } from '../helpers/pg-sent.js';

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

      const { result: rows, sent } = await withSent(store, () =>
        store.table(Payments).findMany({ accountId: 'acct_a', livemode: false } as Partial<Payment>, { order: 'desc', limit: 21 }),
      );

      expect(rows.map((r) => r.id)).toEqual(['pay_t3', 'pay_t2', 'pay_t1']);
      expect(sent).toHaveLength(1);
      const text = await planText(store, sent[0]!);
      expect(text).toContain('"Index Name":"payments__i__accountId__livemode"');
      expect(text).not.toContain('"Index Name":"payments__seq"');
    } finally {
      await store.close();
    }
  });

  it('a list by stored status (anyOf) is one range of the (accountId, livemode, status) index per status, never the history', async () => {
    db = await createDatabase('liststatus');
    const store = await PgStore.open(db.url, { poolMax: 2 });
    try {
      // 30,000 settled, every 1,000th expired and every 1,500th pending (50 rows in all), then
      // another merchant's rows (below).
      await store.pool.query(
        `INSERT INTO payments (id, doc) SELECT 'pay_' || g, jsonb_build_object('id', 'pay_' || g, 'accountId', 'acct_a', 'livemode', true,
           'status', CASE WHEN g % 1000 = 0 THEN 'expired' WHEN g % 1500 = 0 THEN 'pending' ELSE 'settled' END) FROM generate_series(1, 30000) g`,
      );
      // Another merchant's 20,000 expired and pending rows: the status index alone would walk them.
      await store.pool.query(
        `INSERT INTO payments (id, doc) SELECT 'pay_b' || g, jsonb_build_object('id', 'pay_b' || g, 'accountId', 'acct_b', 'livemode', true,
           'status', CASE WHEN g % 2 = 0 THEN 'expired' ELSE 'pending' END) FROM generate_series(1, 20000) g`,
      );
      await store.pool.query('ANALYZE payments');
      const anyOf = { field: 'status', values: ['expired', 'pending'] };
      const { result: [rows, next], sent } = await withSent(store, async () => {
        const first = await store.table(Payments).findMany({ accountId: 'acct_a', livemode: true } as Partial<Payment>, { order: 'desc', limit: 11, anyOf });
        return [first, await store.table(Payments).findMany({ accountId: 'acct_a', livemode: true } as Partial<Payment>, { order: 'desc', limit: 11, anyOf, after: first[10]!.id })];
      });

      const expected = Array.from({ length: 30000 }, (_, i) => 30000 - i).filter((g) => g % 1000 === 0 || g % 1500 === 0).map((g) => `pay_${g}`);
      expect(rows.map((r) => r.id)).toEqual(expected.slice(0, 11));
      expect(next.map((r) => r.id)).toEqual(expected.slice(11, 22));
      expect(sent).toHaveLength(2);
      for (const s of sent) {
        const text = await planText(store, s, true);
        expect(text, text).toContain('"Index Name":"payments__i__accountId__livemode__status"');
        expect(text).not.toContain('Seq Scan');
        expect(text).not.toContain('"Index Name":"payments__seq"');
        // Nothing read and thrown away: a walk from the cursor filtering row by row removed 8,500.
        const removed = [...text.matchAll(/"Rows Removed by Filter":(\d+)/g)].reduce((a, m) => a + Number(m[1]), 0);
        expect(removed).toBeLessThanOrEqual(11);
        // Rows the scans of the payments table handed up: about a page per status, not 30,000.
        const scanned = [...text.matchAll(/"Relation Name":"payments"[^}]*?"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
        expect(scanned.length).toBeGreaterThan(0);
        for (const n of scanned) expect(n).toBeLessThanOrEqual(11);
      }
    } finally {
      await store.close();
    }
  });
});
