import { createHash } from 'node:crypto';
import type { Row, TableDef, Where } from '../types.js';
import { definedEntries } from '../row-values.js';
import { fieldExpr, ident, presentExpr } from './schema.js';

/** SQL for one table; built once per TableDef. */
export class TableSql<T extends Row> {
  readonly t: string;
  readonly uniqueFields: Set<string>;

  constructor(readonly def: TableDef<T>) {
    this.t = ident(def.name);
    this.uniqueFields = new Set((def.unique ?? []).flat());
  }

  private readonly names = new Map<string, string>();

  /**
   * A name for a prepared statement whose plan does not depend on its values (a lookup by id or
   * by a whole unique key): parsed and planned once per connection instead of per call.
   */
  prepared(text: string): string {
    let n = this.names.get(text);
    if (!n) this.names.set(text, (n = `sp_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
    return n;
  }

  /**
   * One statement: insert `row` unless its id or a unique key is taken; if taken, the holder's
   * doc (visible to this statement's snapshot). `doc` NULL means inserted; no row means the key
   * is held by a row this snapshot cannot see yet (a concurrent commit).
   */
  insertOrGet(row: Row, doc: string): { text: string; params: unknown[] } {
    const params: unknown[] = [row.id, doc];
    const holders = ['id = $1'];
    for (const fields of this.def.unique ?? []) {
      const values = fields.map((f) => (row as Record<string, unknown>)[f]);
      if (values.some((v) => v === undefined || v === null)) continue;
      holders.push(this.where(Object.fromEntries(fields.map((f, i) => [f, values[i]])) as Where<T>, params).join(' AND '));
    }
    // One branch per key, each an index lookup (an OR of them got a sequential scan as the
    // generic plan of the prepared statement); none runs when the insert went through.
    const lookups = holders.map((h) => `SELECT doc FROM ${this.t} WHERE NOT EXISTS (SELECT 1 FROM ins) AND ${h}`);
    const text =
      `WITH ins AS (INSERT INTO ${this.t} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT DO NOTHING RETURNING 1) ` +
      `SELECT NULL::jsonb AS doc FROM ins UNION ALL (${lookups.join(' UNION ALL ')} LIMIT 1)`;
    return { text, params };
  }

  /** Whether `where` pins at most one row: the id, or every field of a unique group (non-null). */
  singleRow(where: Where<T> | undefined): boolean {
    const w = (where ?? {}) as Record<string, unknown>;
    if (typeof w.id === 'string') return true;
    return (this.def.unique ?? []).some((fields) => fields.every((f) => w[f] !== undefined && w[f] !== null));
  }

  /** WHERE clauses for an equality filter; values travel as jsonb parameters. */
  where(where: Where<T> | undefined, params: unknown[]): string[] {
    const clauses: string[] = [];
    for (const [f, v] of definedEntries(where ?? {})) {
      if (f === 'id' && typeof v === 'string') {
        params.push(v);
        clauses.push(`id = $${params.length}`);
        continue;
      }
      params.push(JSON.stringify(v));
      // The row version (TableDef.version) of a row written before the table had one counts as 0,
      // as the store's bump counts it (row-values.ts, filterField).
      const expr = f === this.def.version ? `COALESCE(${fieldExpr(f)}, '0'::jsonb)` : fieldExpr(f);
      clauses.push(`${expr} = $${params.length}::jsonb`);
      // Spelled like the partial unique index's predicate, so the planner can use that index.
      if (v !== null && this.uniqueFields.has(f)) clauses.push(presentExpr(f));
    }
    return clauses;
  }
}
