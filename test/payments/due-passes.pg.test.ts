import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PgStore } from '../../src/store/index.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { duePassTests, seed } from './due-passes.js';

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const d of dbs) await d.drop();
});

async function fresh(): Promise<PgStore> {
  const db = await createDatabase(undefined, { prefix: 'multi_due_' });
  dbs.push(db);
  return PgStore.open(db.url);
}

describe('background passes on PostgreSQL read only due rows', () => {
  duePassTests(fresh);

  it('the sweep query is an index range scan on the range index, not a scan of the pending rows', async () => {
    const store = await fresh();
    try {
      await seed(store);
      const c = await store.pool.connect();
      try {
        await c.query('ANALYZE payments');
        const plan = await c.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT doc FROM payments WHERE (doc -> 'status') = '"pending"'::jsonb AND (doc -> 'expiresAt') <> 'null'::jsonb
             AND (doc -> 'expiresAt') <= $1::jsonb ORDER BY (doc -> 'expiresAt'), id LIMIT 500`,
          [JSON.stringify(new Date().toISOString())],
        );
        const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(text).toMatch(/Index Scan using "?payments__r__status__expiresAt"?/);
        expect(text).not.toMatch(/Seq Scan|Sort/);
      } finally {
        c.release();
      }
    } finally {
      await store.close();
    }
  });
});
