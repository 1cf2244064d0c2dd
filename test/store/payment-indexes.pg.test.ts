import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore, StoreConflictError } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { WebhookEvents, type WebhookEvent } from '../../src/webhooks/outbox.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { planText, withSent } from '../helpers/pg-sent.js';

/**
 * Every payment update changes `doc`, so none is a HOT update: each inserts an entry into every
 * index of `payments`, three times per settle (issue 23, eleventh round). Migration 0019 drops
 * the indexes no query uses; the reference dedupe per account and mode must stay enforced.
 */
let db: TestDatabase | undefined;
afterEach(async () => {
  await db?.drop();
  db = undefined;
});

async function indexNames(store: PgStore, table: string): Promise<string[]> {
  const r = await store.pool.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 ORDER BY indexname', [table]);
  return r.rows.map((x) => x.indexname);
}

/** A store on a new database (dropped after the test), closed after `fn`. */
async function onStore(tag: string, fn: (store: PgStore) => Promise<void>): Promise<void> {
  db = await createDatabase(tag);
  const store = await PgStore.open(db.url, { poolMax: 2 });
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

describe('PostgreSQL store: the indexes of payments and webhook events', () => {
  it('holds only the indexes a query uses (no (accountId, seq) beside (accountId, livemode, seq))', () =>
    onStore('payidx', async (store) => {
      expect(await indexNames(store, 'payments')).toEqual([
        'payments__i__accountId__livemode',
        'payments__i__accountId__livemode__status',
        'payments__i__status',
        'payments__r__status__attemptedBy',
        'payments__r__status__expiresAt',
        'payments__r__status__updatedAt',
        'payments__seq',
        'payments__u__accountId__livemode__reference',
        'payments_pkey',
      ]);
      expect(await indexNames(store, 'webhook_events')).toEqual([
        'webhook_events__i__accountId__livemode',
        'webhook_events__i__paymentId',
        'webhook_events__seq',
        'webhook_events_pkey',
      ]);
    }));

  it('still refuses a second payment with the reference of one in the same account and mode', () =>
    onStore('payref', async (store) => {
      const insert = (p: Payment) => store.write(Payments, (t) => t.insert(p));
      const row = (id: string, accountId: string, livemode: boolean) => ({ id, accountId, livemode, reference: 'order-1', status: 'pending' }) as unknown as Payment;
      await insert(row('pay_1', 'acct_a', true));
      await expect(insert(row('pay_2', 'acct_a', true))).rejects.toBeInstanceOf(StoreConflictError);
      // The same reference in the other mode or another account is another key.
      await insert(row('pay_3', 'acct_a', false));
      await insert(row('pay_4', 'acct_b', true));
      await expect(insert(row('pay_5', 'acct_a', false))).rejects.toBeInstanceOf(StoreConflictError);
      // Enforced by the server, not only by the store's statement: a raw duplicate fails too.
      await expect(
        store.pool.query(`INSERT INTO payments (id, doc) VALUES ('pay_6', '{"id":"pay_6","accountId":"acct_b","livemode":true,"reference":"order-1"}')`),
      ).rejects.toMatchObject({ code: '23505', constraint: 'payments__u__accountId__livemode__reference' });
      expect((await store.table(Payments).findMany({ accountId: 'acct_a', livemode: true } as Partial<Payment>)).map((p) => p.id)).toEqual(['pay_1']);
    }));

  it("a merchant's events list in one mode is a range of the (accountId, livemode) index", () =>
    onStore('evidx', async (store) => {
      const doc = (id: string, acct: string, live: string) => `jsonb_build_object('id', ${id}, 'accountId', ${acct}, 'livemode', ${live}, 'paymentId', 'pay_' || g, 'type', 'payment.settled')`;
      await store.pool.query(`INSERT INTO webhook_events (id, doc) SELECT 'evt_' || g, ${doc("'evt_' || g", "'acct_a'", 'true')} FROM generate_series(1, 20000) g`);
      await store.pool.query(`INSERT INTO webhook_events (id, doc) SELECT 'evt_t' || g, ${doc("'evt_t' || g", "'acct_a'", 'false')} FROM generate_series(1, 3) g`);
      await store.pool.query(`INSERT INTO webhook_events (id, doc) SELECT 'evt_b' || g, ${doc("'evt_b' || g", "'acct_b'", 'true')} FROM generate_series(1, 2000) g`);
      await store.pool.query('ANALYZE webhook_events');
      const { result: rows, sent } = await withSent(store, () =>
        store.table(WebhookEvents).findMany({ accountId: 'acct_a', livemode: false } as Partial<WebhookEvent>, { order: 'desc', limit: 11 }),
      );
      expect(rows.map((r) => r.id)).toEqual(['evt_t3', 'evt_t2', 'evt_t1']);
      expect(sent).toHaveLength(1);
      expect(await planText(store, sent[0]!)).toContain('"Index Name":"webhook_events__i__accountId__livemode"');
    }));
});
