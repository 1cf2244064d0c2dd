import type { Row } from '../types.js';
import { decode, type Run } from './pg-table.js';
import type { TableSql } from './table-sql.js';

/**
 * Reads by id outside any transaction (`store.table(T).get`), grouped as `insert-batcher.ts`
 * groups inserts: alone, a read is its one prepared `SELECT doc … WHERE id = $1`; reads of the
 * same table that arrive while earlier ones are on their way wait and then go together as ONE
 * statement, `… WHERE id = ANY($1)`: one socket write, one pool checkout and one server round
 * trip for the lot (a checkout settle reads its payment twice and the merchant's account once
 * outside its transactions; 100 settles at once made 300 such statements). Each read is still
 * sent after it was asked, so it sees every commit that ended before it was asked.
 *
 * One statement on its way at a time (issue 23, twelfth round; two before, as for inserts): in a
 * settle burst the door's reads come one request at a time, each answered before the third
 * arrived, so with two in flight 81 of 100 went alone (a pool checkout, a round trip and a
 * backend wake-up each); with one, a read asked while another is on its way waits at most that
 * one round trip and goes with the others asked meanwhile (39 alone and 6 groups in one such
 * burst; docs/performance.md "Twelfth round (h12pg)").
 */
const MAX_IN_FLIGHT = 1;

interface Pending<T> {
  id: string;
  resolve: (v: T | undefined) => void;
  reject: (e: unknown) => void;
}

export class GetBatcher<T extends Row> {
  private queue: Pending<T>[] = [];
  private inFlight = 0;
  private readonly oneSql: string;
  private readonly manySql: string;

  constructor(
    private readonly sql: TableSql<T>,
    private readonly run: Run,
  ) {
    this.oneSql = `SELECT doc FROM ${sql.t} WHERE id = $1`;
    this.manySql = `SELECT id, doc FROM ${sql.t} WHERE id = ANY($1::text[])`;
  }

  get(id: string): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      this.inFlight++;
      void this.send(batch)
        .catch((e: unknown) => batch.forEach((p) => p.reject(e)))
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }

  private async send(batch: Pending<T>[]): Promise<void> {
    if (batch.length === 1) {
      const p = batch[0]!;
      const r = await this.run<{ doc: T }>(this.oneSql, [p.id], this.sql.prepared(this.oneSql));
      return p.resolve(r.rows[0] ? decode<T>(r.rows[0].doc) : undefined);
    }
    const ids = [...new Set(batch.map((p) => p.id))];
    const r = await this.run<{ id: string; doc: T }>(this.manySql, [ids], this.sql.prepared(this.manySql));
    const byId = new Map(r.rows.map((row) => [row.id, decode<T>(row.doc)]));
    for (const p of batch) p.resolve(byId.get(p.id));
  }
}
