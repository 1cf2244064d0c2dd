import type pg from 'pg';
import type { Row, TableDef, Tx, WriteTable } from '../types.js';
import { PgTable, type Run, type Touch } from './pg-table.js';
import { sqlState } from './retry-rules.js';
import type { TableSql } from './table-sql.js';
import type { DeferredWrites } from './deferred-writes.js';

/** One transaction body's view of an open PostgreSQL transaction (PgStore.attempt, commit-groups.ts). */
export interface TxView {
  tx: Tx;
  /** Its afterCommit callbacks, in registration order: called only once the real COMMIT succeeded. */
  committed: Array<() => void>;
  /**
   * The first database error of its statements: PostgreSQL answers COMMIT of a failed transaction
   * with a rollback, not an error, so the failure is remembered here. A unique violation caught at
   * a savepoint (update) leaves the transaction usable and is not one.
   */
  failure(): unknown;
  /** Later statements through this view throw (the body's part is over). */
  finish(): void;
}

/**
 * `deferred` holds the transaction's `updateLater` writes (shared by the views of one commit
 * group's members): each statement of the view carries the held ones, and so does the COMMIT.
 * `touch` is told the rows of each statement before it is issued (commit-groups.ts).
 */
export function txView(direct: Run, tableSql: <T extends Row>(def: TableDef<T>) => TableSql<T>, deferred: DeferredWrites, touch?: Touch): TxView {
  const run = deferred.runner(direct);
  let open = true;
  let failed: unknown;
  const committed: Array<() => void> = [];
  const tables = new Map<string, PgTable<Row>>();
  const tx: Tx = {
    afterCommit: (cb) => {
      committed.push(cb);
    },
    publish: async (channel, payload) => {
      if (!open) throw new Error('transaction already finished');
      // Delivered to every listening session when this transaction commits.
      try {
        await run('SELECT pg_notify($1, $2)', [channel, payload]);
      } catch (e) {
        failed ??= e;
        throw e;
      }
    },
    table: <T extends Row>(def: TableDef<T>): WriteTable<T> => {
      let t = tables.get(def.name) as PgTable<T> | undefined;
      if (!t) {
        const live = async <Q extends pg.QueryResultRow>(text: string, values: unknown[], name?: string) => {
          if (!open) throw new Error(`transaction on ${def.name} already finished`);
          try {
            return await run<Q>(text, values, name);
          } catch (e) {
            if (!(sqlState(e) === '23505' && text.startsWith('UPDATE'))) failed ??= e;
            throw e;
          }
        };
        const later = (text: string, values: unknown[], name?: string) => {
          if (!open) throw new Error(`transaction on ${def.name} already finished`);
          deferred.add(text, values, name);
        };
        t = new PgTable<T>(tableSql(def), live, true, later, undefined, touch);
        tables.set(def.name, t as unknown as PgTable<Row>);
      }
      return t;
    },
  };
  return {
    tx,
    committed,
    failure: () => failed,
    finish: () => {
      open = false;
    },
  };
}
