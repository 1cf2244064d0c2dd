import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore, defineTable, knownTables } from '../../src/store/index.js';
import { loadMigrations } from '../../src/store/pg/migrate.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';

/** What only the PostgreSQL store has: migrations under an advisory lock and real constraints. */
let db: TestDatabase | undefined;
afterEach(async () => {
  await db?.drop();
  db = undefined;
});

async function sql<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

describe('PostgreSQL store: migrations', () => {
  it('five instances starting at once on an empty database migrate it exactly once', async () => {
    db = await createDatabase();
    const stores = await Promise.all(Array.from({ length: 5 }, () => PgStore.open(db!.url, { poolMax: 2 })));
    await Promise.all(stores.map((s) => s.close()));
    const versions = (await loadMigrations()).map((m) => m.version);
    const rows = await sql<{ version: number }>(db.url, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(versions);
  });

  it('creates a table with every unique and plain index each TableDef of the service declares', async () => {
    db = await createDatabase();
    await (await PgStore.open(db.url)).close();
    const indexes = new Set(
      (await sql<{ indexname: string }>(db.url, `SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`)).map((r) => r.indexname),
    );
    const defs = knownTables().filter((d) => !d.name.startsWith('contract_'));
    expect(defs.length).toBeGreaterThan(10);
    for (const d of defs) {
      expect(indexes).toContain(`${d.name}_pkey`);
      for (const fields of d.unique ?? []) expect(indexes).toContain(`${d.name}__u__${fields.join('__')}`);
    }
  });

  it("the unique constraints are the database's own: a raw duplicate insert is refused by PostgreSQL", async () => {
    db = await createDatabase();
    await (await PgStore.open(db.url)).close();
    await sql(db.url, `INSERT INTO api_keys (id, doc) VALUES ('k1', '{"id":"k1","hash":"h","accountId":"a"}')`);
    await expect(sql(db.url, `INSERT INTO api_keys (id, doc) VALUES ('k2', '{"id":"k2","hash":"h","accountId":"b"}')`)).rejects.toMatchObject({
      code: '23505',
    });
    await sql(db.url, `INSERT INTO payments (id, doc) VALUES ('p1', '{"id":"p1","accountId":"a","livemode":true,"reference":"R"}')`);
    await expect(sql(db.url, `INSERT INTO payments (id, doc) VALUES ('p2', '{"id":"p2","accountId":"a","livemode":true,"reference":"R"}')`)).rejects.toMatchObject({
      code: '23505',
    });
  });

  it('a table without a migration is refused with a message saying how to add one', async () => {
    db = await createDatabase();
    const store = await PgStore.open(db.url);
    const Unmigrated = defineTable<{ id: string }>({ name: 'not_migrated_anywhere' });
    expect(() => store.table(Unmigrated)).toThrow(/no table "not_migrated_anywhere".*npm run db:migration/);
    await store.close();
  });

  it('a bad DATABASE_URL fails the open with the driver’s reason', async () => {
    await expect(PgStore.open('postgres://postgres@127.0.0.1:1/none')).rejects.toThrow(/ECONNREFUSED|connect/);
  });
});
