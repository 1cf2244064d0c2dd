import type { Row, TableDef } from '../types.js';
import type { Migration } from './migrate.js';
import { indexSpecs, tableDdl, indexDdl } from './schema.js';

/** Tables and index names that the migration files leave created (read from their SQL text, in order: a later DROP INDEX removes one). */
export function createdByMigrations(migrations: Migration[]): { tables: Set<string>; indexes: Set<string> } {
  const tables = new Set<string>();
  const indexes = new Set<string>();
  for (const m of migrations) {
    for (const t of m.sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"((?:[^"]|"")+)"/g)) tables.add(t[1]!.replace(/""/g, '"'));
    for (const i of m.sql.matchAll(/(CREATE (?:UNIQUE )?|DROP )INDEX (?:IF (?:NOT )?EXISTS )?"((?:[^"]|"")+)"/g)) {
      const name = i[2]!.replace(/""/g, '"');
      if (i[1] === 'DROP ') indexes.delete(name);
      else indexes.add(name);
    }
  }
  return { tables, indexes };
}

/** The DDL that the table definitions need beyond what the migrations create ('' when none). */
export function missingDdl(defs: TableDef<Row>[], migrations: Migration[]): string {
  const { tables, indexes } = createdByMigrations(migrations);
  const out: string[] = [];
  for (const def of [...defs].sort((a, b) => a.name.localeCompare(b.name))) {
    if (!tables.has(def.name)) {
      out.push(tableDdl(def));
      continue;
    }
    for (const spec of indexSpecs(def)) if (!indexes.has(spec.name)) out.push(indexDdl(def.name, spec));
  }
  return out.join('\n\n');
}
