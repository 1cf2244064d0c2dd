import type { InsertOrGet, Row } from '../types.js';
import { decode, insertOrGetWith, type Run } from './pg-table.js';
import { KEY_TAKEN_ATTEMPTS, RetryTransaction } from './retry-rules.js';
import type { TableSql } from './table-sql.js';

/**
 * Group commit for `Store.insertOrGet` on PostgreSQL (payment create without an
 * Idempotency-Key). Alone, an insert is the one CTE statement of `insertOrGetWith`. Inserts of
 * the same table that arrive while earlier ones are on their way wait and then go together as
 * ONE statement, `INSERT ... SELECT FROM unnest(ids, docs) ON CONFLICT DO NOTHING RETURNING id`:
 * one socket write, one commit and one WAL flush for the lot instead of one each (the profile of
 * the store bench showed the service's socket writes to PostgreSQL as its largest single cost,
 * docs/performance.md). Each row is still atomic on its own and answered the same way: a row the
 * batch did not insert (its id or a unique key taken, also by another row of the same batch)
 * goes through `insertOrGetWith`, which returns the holder. Rows get `seq` in arrival order.
 */
const MAX_IN_FLIGHT = 2;

interface Pending<T extends Row> {
  row: T;
  doc: string;
  resolve: (v: InsertOrGet<T>) => void;
  reject: (e: unknown) => void;
}

export class InsertBatcher<T extends Row> {
  private queue: Pending<T>[] = [];
  private inFlight = 0;
  private readonly batchSql: string;

  constructor(
    private readonly sql: TableSql<T>,
    private readonly run: Run,
    private readonly onRetry?: (attempt: number, code: string) => void,
  ) {
    this.batchSql =
      `INSERT INTO ${sql.t} (id, doc) SELECT v.id, v.doc FROM unnest($1::text[], $2::jsonb[]) AS v(id, doc) ` +
      `ON CONFLICT DO NOTHING RETURNING id`;
  }

  insertOrGet(row: T): Promise<InsertOrGet<T>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, doc: JSON.stringify(row), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      // One id once per batch: RETURNING id could not tell two rows with the same id apart.
      const batch: Pending<T>[] = [];
      const ids = new Set<string>();
      const rest: Pending<T>[] = [];
      for (const p of this.queue) {
        if (ids.has(p.row.id)) rest.push(p);
        else (ids.add(p.row.id), batch.push(p));
      }
      this.queue = rest;
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async send(batch: Pending<T>[]): Promise<void> {
    if (batch.length === 1) return this.alone(batch[0]!);
    let inserted: Set<string>;
    try {
      const r = await this.run<{ id: string }>(this.batchSql, [batch.map((p) => p.row.id), batch.map((p) => p.doc)], this.sql.prepared(this.batchSql));
      inserted = new Set(r.rows.map((x) => x.id));
    } catch {
      // Nothing was inserted (one statement): each row on its own says what is wrong with it.
      inserted = new Set();
    }
    for (const p of batch) {
      // Inserted: the row is what was sent (parsed back from the same JSON, not read back).
      if (inserted.has(p.row.id)) p.resolve({ inserted: true, row: decode<T>(JSON.parse(p.doc)) });
      else void this.alone(p);
    }
  }

  /** The single-statement insert-or-get; a key held by a commit it could not see yet is tried again. */
  private async alone(p: Pending<T>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return p.resolve(await insertOrGetWith(this.sql, this.run, p.row));
      } catch (e) {
        if (!(e instanceof RetryTransaction) || attempt >= KEY_TAKEN_ATTEMPTS) return p.reject(e);
        this.onRetry?.(attempt, '23505');
      }
    }
  }
}
