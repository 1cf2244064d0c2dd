import { afterAll, describe } from 'vitest';
import pg from 'pg';
import { PgStore } from '../../src/store/index.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { listByStatusTests } from './list-by-status.js';

const dbs: TestDatabase[] = [];
const original = pg.Client.prototype.query;
let sent = 0;
afterAll(async () => {
  pg.Client.prototype.query = original;
  for (const d of dbs) await d.drop();
});

describe('GET /v1/payments?status= on PostgreSQL pages in the store', () => {
  // Statements counted at the driver (every Client.query of the store's pool).
  (pg.Client.prototype as any).query = function (this: pg.Client, ...args: any[]) {
    sent++;
    return (original as any).apply(this, args);
  };
  listByStatusTests(
    async () => {
      const db = await createDatabase(undefined, { prefix: 'list_status_' });
      dbs.push(db);
      return PgStore.open(db.url);
    },
    { reset: () => (sent = 0), count: () => sent },
  );
});
