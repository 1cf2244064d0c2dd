import pg from 'pg';
import { afterAll } from 'vitest';
import { PgStore, type Row, type TableDef } from '../../src/store/index.js';
import { tableDdl } from '../../src/store/pg/schema.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { Holds, Items, Others, Versioned, storeContract } from './store.contract.js';

/** The contract's own tables, created the way a migration would create them. */
async function createContractTables(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (const def of [Items, Others, Holds, Versioned]) await c.query(tableDdl(def as unknown as TableDef<Row>));
  } finally {
    await c.end();
  }
}

// One database for the file; each test starts from empty tables.
let db: TestDatabase | undefined;
afterAll(async () => {
  await db?.drop();
});

storeContract('PostgreSQL', () => ({
  async open() {
    if (!db) {
      db = await createDatabase();
      await createContractTables(db.url);
    } else {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      await c.query(`TRUNCATE ${[Items, Others, Holds, Versioned].map((d) => `"${d.name}"`).join(', ')} RESTART IDENTITY`);
      await c.end();
    }
    return PgStore.open(db.url);
  },
  reopen: () => PgStore.open(db!.url),
  cleanup: async () => undefined,
}));
