import { createHash } from 'node:crypto';
import type { Row, TableDef } from '../types.js';

/**
 * How a TableDef maps onto PostgreSQL. Each table holds the row as `jsonb` (`doc`), its id as
 * the primary key and an identity column `seq` for insertion order (the store's `order` and
 * `after` cursor). Fields named in `indexes` get a btree on `(doc->'field', seq)`, so an equality
 * filter with newest-first paging is one index range scan (a group of fields: `(doc->'a', doc->'b', seq)`). Unique groups become partial unique
 * indexes that leave out rows missing a field or holding null (the Store contract exempts them).
 * The migration files are written from these functions (`npm run db:migration`) and the store
 * checks at first use that every index a TableDef asks for exists.
 */

export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** The jsonb expression for one top-level field; queries must spell it exactly like this to use its index. */
export function fieldExpr(field: string): string {
  return `(doc -> ${literal(field)})`;
}

/** The clause that says a field is present and not null (the predicate of the partial unique indexes). */
export function presentExpr(field: string): string {
  return `${fieldExpr(field)} <> 'null'::jsonb`;
}

/** PostgreSQL cuts identifiers at 63 bytes: long names keep a readable head and a hash. */
function indexName(table: string, kind: 'u' | 'i' | 'r', fields: readonly string[]): string {
  const name = `${table}__${kind}__${fields.join('__')}`;
  if (Buffer.byteLength(name) <= 63) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  return `${name.slice(0, 50)}_${hash}`;
}

export interface IndexSpec {
  name: string;
  unique: boolean;
  fields: readonly string[];
  /** A `ranges` pair: equality on the first field, then the second field and id in order (findRange). */
  range?: boolean;
}

/** Every index a table needs beyond its primary key and the seq index, in DDL order. */
export function indexSpecs(def: TableDef<Row>): IndexSpec[] {
  const out: IndexSpec[] = [];
  for (const fields of def.unique ?? []) out.push({ name: indexName(def.name, 'u', fields), unique: true, fields });
  for (const f of def.indexes ?? []) {
    const fields = typeof f === 'string' ? [f] : f;
    out.push({ name: indexName(def.name, 'i', fields), unique: false, fields });
  }
  for (const pair of def.ranges ?? []) out.push({ name: indexName(def.name, 'r', pair), unique: false, fields: pair, range: true });
  return out;
}

export function indexDdl(table: string, spec: IndexSpec): string {
  if (spec.unique) {
    const cols = spec.fields.map(fieldExpr).join(', ');
    const where = spec.fields.map(presentExpr).join(' AND ');
    return `CREATE UNIQUE INDEX ${ident(spec.name)} ON ${ident(table)} (${cols}) WHERE ${where};`;
  }
  if (spec.range) {
    // Partial: only rows that have the range field (findRange leaves the others out), so a
    // million pending payments without a settle attempt cost nothing in the attempts index.
    const [eq, f] = spec.fields as [string, string];
    return `CREATE INDEX ${ident(spec.name)} ON ${ident(table)} (${fieldExpr(eq)}, ${fieldExpr(f)}, id) WHERE ${presentExpr(f)};`;
  }
  return `CREATE INDEX ${ident(spec.name)} ON ${ident(table)} (${spec.fields.map(fieldExpr).join(', ')}, seq);`;
}

export function tableDdl(def: TableDef<Row>): string {
  const t = ident(def.name);
  return [
    `CREATE TABLE ${t} (`,
    `  id text PRIMARY KEY,`,
    `  seq bigint GENERATED ALWAYS AS IDENTITY,`,
    `  doc jsonb NOT NULL`,
    `);`,
    `CREATE UNIQUE INDEX ${ident(`${def.name}__seq`)} ON ${t} (seq);`,
    ...indexSpecs(def).map((s) => indexDdl(def.name, s)),
  ].join('\n');
}
