import { describe, expect, it, vi } from 'vitest';
import type { Row, TableDef } from '../../src/store/types.js';

// The tables the service defines, and only those: the registry behind knownTables() is module
// state, and without isolation (docs/testing.md) a file run earlier in the same worker may have
// added its own test tables to it (lowdb-store's `items`, the crash test's `rows`), which no
// migration creates. A fresh copy of the modules has the service's tables alone.
vi.resetModules();
await import('../../src/service.js');
const { knownTables } = await import('../../src/store/index.js');
const { loadMigrations } = await import('../../src/store/pg/migrate.js');
const { missingDdl } = await import('../../src/store/pg/coverage.js');

describe('PostgreSQL migrations cover the code', () => {
  it('every table and index a TableDef declares is created by a numbered migration (else: npm run db:migration)', async () => {
    const migrations = await loadMigrations();
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    expect(missingDdl(knownTables(), migrations)).toBe('');
  });
});

describe('PostgreSQL migrations: an index a later migration drops', () => {
  it('counts as missing again (0019 drops payments__i__accountId)', async () => {
    const migrations = await loadMigrations();
    const def = { name: 'payments', indexes: ['accountId'] } as unknown as TableDef<Row>;
    const upTo = (v: number) => migrations.filter((m) => m.version <= v);
    expect(missingDdl([def], upTo(18))).toBe('');
    expect(missingDdl([def], upTo(19))).toContain('CREATE INDEX "payments__i__accountId" ON "payments"');
  });
});
