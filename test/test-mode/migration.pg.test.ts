/**
 * Issue 24: migration 0015 on PostgreSQL. A database at 0014 holding rows written before test
 * mode (no `livemode`) is migrated: every key, payment, refund, event (its stored body too),
 * delivery, endpoint and agent action becomes live; the payments' reference key now includes the
 * mode; the lowdb backfill is recorded as done so it never runs on top.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore } from '../../src/store/index.js';
import { loadMigrations, migrate } from '../../src/store/pg/migrate.js';
import { backfillLivemode } from '../../src/core/livemode-backfill.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';

let db: TestDatabase | undefined;
afterAll(async () => {
  await db?.drop();
});

describe('migration 0015 (PostgreSQL)', () => {
  it('marks older rows live, rewrites event bodies, re-keys payment references by mode', async () => {
    db = await createDatabase();
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      const all = await loadMigrations();
      await migrate(pool, all.filter((m) => m.version < 15));
      const body = '{"id":"evt_old1","type":"payment.settled","created":1,"data":{"id":"pay_old1"}}';
      const rows: Array<[string, string, Record<string, unknown>]> = [
        ['api_keys', 'key_old1', { accountId: 'acct_1', label: 'old', hash: 'h1', last4: 'abcd', createdAt: '2026-01-01T00:00:00.000Z' }],
        ['payments', 'pay_old1', { accountId: 'acct_1', reference: 'r1', status: 'settled' }],
        ['refunds', 're_old1', { accountId: 'acct_1', paymentId: 'pay_old1', status: 'succeeded' }],
        ['webhook_events', 'evt_old1', { accountId: 'acct_1', paymentId: 'pay_old1', type: 'payment.settled', createdAt: '2026-01-01T00:00:00.000Z', body }],
        ['webhook_deliveries', 'whd_old1', { accountId: 'acct_1', paymentId: 'pay_old1', eventId: 'evt_old1', status: 'delivered', attempts: [] }],
        ['webhook_endpoints', 'acct_1', { url: 'https://x.example/h', updatedAt: '2026-01-01T00:00:00.000Z' }],
        ['pending_actions', 'act_old1', { accountId: 'acct_1', status: 'done', channel: 'api' }],
      ];
      for (const [table, id, doc] of rows) await pool.query(`INSERT INTO "${table}" (id, doc) VALUES ($1, $2)`, [id, { id, ...doc }]);
      const applied = await migrate(pool);
      expect(applied).toContain(15);
      for (const [table, id] of rows) {
        const { rows: got } = await pool.query(`SELECT doc FROM "${table}" WHERE id = $1`, [id]);
        expect(got[0].doc.livemode, table).toBe(true);
      }
      const ev = (await pool.query(`SELECT doc FROM webhook_events WHERE id = 'evt_old1'`)).rows[0].doc;
      expect(ev.body).toBe('{"id":"evt_old1","type":"payment.settled","created":1,"data":{"id":"pay_old1"},"livemode":true}');
      // The same reference in test mode is another payment; in live mode it is refused.
      await pool.query(`INSERT INTO payments (id, doc) VALUES ('pay_t1', '{"id":"pay_t1","accountId":"acct_1","reference":"r1","livemode":false}')`);
      await expect(pool.query(`INSERT INTO payments (id, doc) VALUES ('pay_l2', '{"id":"pay_l2","accountId":"acct_1","reference":"r1","livemode":true}')`)).rejects.toThrow(/duplicate key/);
      // The store opens on it (every index its TableDefs ask for exists) and the lowdb backfill is done already.
      const store = await PgStore.open(db.url);
      try {
        expect(await backfillLivemode(store)).toBe(0);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
    }
  });
});
