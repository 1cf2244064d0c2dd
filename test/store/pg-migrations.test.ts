import { describe, expect, it } from 'vitest';
import '../../src/service.js';
import { knownTables } from '../../src/store/index.js';
import { loadMigrations } from '../../src/store/pg/migrate.js';
import { missingDdl } from '../../src/store/pg/coverage.js';

describe('PostgreSQL migrations cover the code', () => {
  it('every table and index a TableDef declares is created by a numbered migration (else: npm run db:migration)', async () => {
    const migrations = await loadMigrations();
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    expect(missingDdl(knownTables(), migrations)).toBe('');
  });
});
