import { afterAll } from 'vitest';
import { PgStore } from '../../src/store/index.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { guardContract } from './guard.contract.js';
import '../../src/policies/tables.js';
import '../../src/pending-actions/pending-actions.js';

// A database per test; the 50-turn test runs them on two instances (two stores) at once.
const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const d of dbs) await d.drop();
});

const open = async () => {
  const db = await createDatabase();
  dbs.push(db);
  const store = await PgStore.open(db.url);
  return { store, second: () => PgStore.open(db.url), close: () => store.close() };
};
guardContract('PostgreSQL, two instances', open);
// send_transfer writing its reservation in its own transactions (SpendSlot), two instances too.
guardContract('PostgreSQL, two instances', open, true);
