import pg from 'pg';
import {
  StoreConflictError,
  type ReadTable,
  type Row,
  type Store,
  type TableDef,
  type Tx,
  type WriteTable,
  type TransactionOptions,
  type InsertOrGet,
  type Subscription,
} from '../types.js';
import { PgNotifier } from './listen-notify.js';
import { migrate } from './migrate.js';
import { indexSpecs } from './schema.js';
import { TableSql } from './table-sql.js';
import { PgTable, decode, type Run } from './pg-table.js';
import { txView } from './pg-tx.js';
import { CommitGroups } from './commit-groups.js';
import { noteWrite } from '../../lib/write-watch.js';
import { DeferredWrites } from './deferred-writes.js';
import { preparedSession } from './sql-prepared.js';
import { GetBatcher } from './get-batcher.js';
import { InsertBatcher } from './insert-batcher.js';
import { KEY_TAKEN_ATTEMPTS, MAX_ATTEMPTS, RETRYABLE, RETRY_LOCK, sqlState } from './retry-rules.js';

export interface PgStoreOptions {
  /** Pool size per instance (each open transaction holds one connection). */
  poolMax?: number;
  /** Longest wait for a free connection (default 10 s): past it the caller gets an error the doors answer with 503, never a hang. */
  poolTimeoutMs?: number;
  /** Run the migrations at open (default true). */
  migrate?: boolean;
  /** For tests: called with the attempt number whenever a transaction is retried. */
  onRetry?: (attempt: number, code: string) => void;
  /** For tests: called with the size of each group of `shareCommit` transactions that committed together. */
  onGroup?: (members: number) => void;
}

type Client = pg.PoolClient | pg.Pool;

/**
 * The Store on PostgreSQL (DATABASE_URL). Every transaction runs at SERIALIZABLE, so the
 * domain's read-check-write code (balance checks, reference dedupe, compare-and-set) keeps
 * the guarantee it has on lowdb, where transactions run one at a time: the outcome is that of
 * some serial order. A transaction PostgreSQL aborts for a serialization failure or deadlock
 * is run again from the start (transaction bodies do no outside I/O, so this is safe), up to
 * MAX_ATTEMPTS times. Unique groups are real unique indexes; a duplicate insert is found with
 * ON CONFLICT DO NOTHING, which leaves the transaction usable, and answered with the same
 * StoreConflictError (naming the row that holds the key) as lowdb gives.
 */
export class PgStore implements Store {
  private readonly sql = new Map<string, TableSql<Row>>();
  private readonly readers = new Map<string, ReadTable<Row>>();
  private readonly batchers = new Map<string, InsertBatcher<Row>>();
  private closed = false;
  /** `shareCommit` transactions that arrive together share one BEGIN … COMMIT (commit-groups.ts). */
  private readonly groups: CommitGroups;

  private constructor(
    readonly pool: pg.Pool,
    /** Index names per table, as the database has them (read once at open). */
    private readonly catalog: Map<string, Set<string>>,
    private readonly opts: PgStoreOptions,
    private readonly notifier: PgNotifier,
  ) {
    this.groups = new CommitGroups({
      connect: () => this.pool.connect(),
      view: (client, deferred, touch) => txView(this.runner(client), (def) => this.tableSql(def), deferred, touch),
      alone: (fn) => this.transaction(fn),
      onGroup: opts.onGroup,
    });
  }

  static async open(databaseUrl: string, opts: PgStoreOptions = {}): Promise<PgStore> {
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: opts.poolMax ?? 10,
      connectionTimeoutMillis: opts.poolTimeoutMs ?? 10_000,
      // Operators count each instance's sessions in pg_stat_activity by it (docs/store.md).
      application_name: 'stablepay',
    });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    // Nor may a checked-out one (the pool drops its own listener while a client is lent): a
    // session ended between two statements of a transaction fails that transaction's next
    // statement, which rolls back or retries it and discards the client.
    pool.on('connect', (client) => client.on('error', () => undefined));
    try {
      if (opts.migrate !== false) await migrate(pool);
      pool.options.max = Math.min(pool.options.max ?? 10, await connectionBudget(pool));
      const r = await pool.query<{ tablename: string; indexname: string }>(
        `SELECT tablename, indexname FROM pg_indexes WHERE schemaname = current_schema()`,
      );
      const catalog = new Map<string, Set<string>>();
      for (const row of r.rows) {
        let s = catalog.get(row.tablename);
        if (!s) catalog.set(row.tablename, (s = new Set()));
        s.add(row.indexname);
      }
      return new PgStore(pool, catalog, opts, new PgNotifier(databaseUrl));
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
  }

  /** The SQL for a table, after checking once that a migration created it with every index it declares. */
  private tableSql<T extends Row>(def: TableDef<T>): TableSql<T> {
    let s = this.sql.get(def.name);
    if (!s) {
      const have = this.catalog.get(def.name);
      if (!have) {
        throw new Error(`PostgreSQL store: no table "${def.name}"; add a migration (npm run db:migration) under src/store/pg/migrations`);
      }
      for (const spec of indexSpecs(def as unknown as TableDef<Row>)) {
        if (!have.has(spec.name)) {
          throw new Error(`PostgreSQL store: table "${def.name}" lacks index ${spec.name}; add a migration (npm run db:migration)`);
        }
      }
      s = new TableSql<Row>(def as unknown as TableDef<Row>);
      this.sql.set(def.name, s);
    }
    return s as unknown as TableSql<T>;
  }

  // Unnamed statements: PostgreSQL plans each with its actual values. A named (prepared)
  // statement soon gets a generic plan, which for `status = $1 ORDER BY seq` walks the seq
  // index through every row instead of using the status index.
  private runner(client: Client): Run {
    return <R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string) =>
      name ? client.query<R>({ name, text, values }) : client.query<R>(text, values);
  }

  table<T extends Row>(def: TableDef<T>): ReadTable<T> {
    let handle = this.readers.get(def.name) as ReadTable<T> | undefined;
    if (!handle) {
      const sql = this.tableSql(def);
      const gets = new GetBatcher<T>(sql, this.runner(this.pool));
      handle = new PgTable<T>(sql, this.runner(this.pool), false, undefined, (id) => gets.get(id));
      this.readers.set(def.name, handle as unknown as ReadTable<Row>);
    }
    return handle;
  }

  async transaction<R>(fn: (tx: Tx) => Promise<R>, opts: TransactionOptions = {}): Promise<R> {
    // A write may be beginning (the agent's store-error boundary, lib/write-watch.ts).
    if (opts?.recordsNoAction !== true) noteWrite();
    if (opts.shareCommit && !opts.guardedByUniqueKeys) {
      if (this.closed) throw new Error('store is closed');
      return this.groups.run(fn);
    }
    // Guarded by unique keys (TransactionOptions): READ COMMITTED, so concurrent creates of one
    // merchant do not abort each other over shared index pages (each such abort cost a retry
    // behind RETRY_LOCK); a key taken meanwhile shows as a StoreConflictError from the insert's
    // ON CONFLICT, and the body runs again, reading the winner.
    const isolation = opts.guardedByUniqueKeys ? 'READ COMMITTED' : 'SERIALIZABLE';
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new Error('store is closed');
      const client = await this.pool.connect();
      let outcome: { ok: true; value: R } | { ok: false; error: unknown };
      let broken = false;
      // Callbacks of this attempt only: a retried body registers its own again.
      const committed: Array<() => void> = [];
      try {
        outcome = { ok: true, value: await this.attempt(client, fn, committed, attempt > 1, isolation) };
      } catch (e) {
        outcome = { ok: false, error: e };
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      client.release(broken);
      if (outcome.ok) {
        for (const cb of committed) cb();
        return outcome.value;
      }
      const keyTaken = opts.guardedByUniqueKeys === true && outcome.error instanceof StoreConflictError;
      const code = keyTaken ? '23505' : sqlState(outcome.error);
      if (!code || !(RETRYABLE.has(code) || keyTaken) || attempt >= (keyTaken ? KEY_TAKEN_ATTEMPTS : MAX_ATTEMPTS)) throw outcome.error;
      this.opts.onRetry?.(attempt, code);
      // Spread the retries so the same transactions do not collide again in step.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
    }
  }

  /** One try of a transaction on `client`: BEGIN, the body, COMMIT; throws on any failure. */
  private async attempt<R>(
    client: pg.PoolClient,
    fn: (tx: Tx) => Promise<R>,
    committed: Array<() => void>,
    retry: boolean,
    isolation: 'SERIALIZABLE' | 'READ COMMITTED',
  ): Promise<R> {
    const deferred = new DeferredWrites('tick', preparedSession(client));
    const view = txView(this.runner(client), (def) => this.tableSql(def), deferred);
    try {
      // A retried transaction queues behind the other retried ones (across instances), so a
      // burst of conflicting transactions drains instead of colliding again and again.
      if (retry) {
        await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
        await client.query('SELECT pg_advisory_xact_lock($1)', [RETRY_LOCK]);
      } else {
        // No round trip of its own: it goes with the body's first statement (or the COMMIT).
        deferred.begin(`BEGIN ISOLATION LEVEL ${isolation}`);
      }
      let result: R;
      try {
        result = await fn(view.tx);
      } catch (e) {
        // A retryable database failure that the body turned into another error is still retried.
        const failed = view.failure();
        throw failed !== undefined && RETRYABLE.has(sqlState(failed) ?? '') ? failed : e;
      }
      if (view.failure() !== undefined) throw view.failure();
      view.finish();
      // With the writes still held (updateLater): one round trip. If one fails, the COMMIT does
      // not run and the caller's ROLLBACK ends the transaction.
      await deferred.commit((text) => client.query(text));
      committed.push(...view.committed);
      return result;
    } finally {
      view.finish();
    }
  }

  write<T extends Row, R>(def: TableDef<T>, fn: (table: WriteTable<T>) => Promise<R>): Promise<R> {
    return this.transaction((tx) => fn(tx.table(def)));
  }

  // Leases and counters are single statements (INSERT ... ON CONFLICT DO UPDATE), atomic on
  // their own, on the database's clock so that instances with skewed clocks agree.
  async lease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const r = await this.pool.query(
      `INSERT INTO store_leases (name, owner, expires_at) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE store_leases.owner = EXCLUDED.owner OR store_leases.expires_at <= clock_timestamp()
       RETURNING owner`,
      [name, owner, Math.max(1, Math.round(ttlMs))],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async leaseOwner(name: string): Promise<string | undefined> {
    const r = await this.pool.query<{ owner: string }>(
      'SELECT owner FROM store_leases WHERE name = $1 AND expires_at > clock_timestamp()',
      [name],
    );
    return r.rows[0]?.owner;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.pool.query('DELETE FROM store_leases WHERE name = $1 AND owner = $2', [name, owner]);
  }

  async countHit(key: string, windowMs: number): Promise<{ hits: number; resetAt: Date }> {
    const r = await this.pool.query<{ hits: number; reset_at: Date }>(
      `INSERT INTO store_counters (key, hits, reset_at) VALUES ($1, 1, clock_timestamp() + $2 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN store_counters.reset_at <= clock_timestamp() THEN 1 ELSE store_counters.hits + 1 END,
         reset_at = CASE WHEN store_counters.reset_at <= clock_timestamp() THEN EXCLUDED.reset_at ELSE store_counters.reset_at END
       RETURNING hits, reset_at`,
      [key, Math.max(1, Math.round(windowMs))],
    );
    const row = r.rows[0]!;
    return { hits: row.hits, resetAt: row.reset_at };
  }

  async getWithClock<T extends Row>(def: TableDef<T>, id: string): Promise<{ row: T | undefined; now: number }> {
    // No row holds a NUL in its id (text refuses it); the clock is still read.
    const r = await this.pool.query<{ doc: T | null; now: number }>(
      `SELECT (SELECT doc FROM ${this.tableSql(def).t} WHERE id = $1) AS doc, (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now`,
      [id.replaceAll('\u0000', '')],
    );
    const row = r.rows[0]!;
    return { row: row.doc === null || id.includes('\u0000') ? undefined : decode<T>(row.doc), now: Number(row.now) };
  }

  /** One autocommit statement per row, or per batch of rows arriving together (insert-batcher.ts). */
  insertOrGet<T extends Row>(def: TableDef<T>, row: T): Promise<InsertOrGet<T>> {
    noteWrite();
    let b = this.batchers.get(def.name) as InsertBatcher<T> | undefined;
    if (!b) {
      b = new InsertBatcher<T>(this.tableSql(def), this.runner(this.pool), this.opts.onRetry);
      this.batchers.set(def.name, b as unknown as InsertBatcher<Row>);
    }
    return b.insertOrGet(row);
  }

  subscribe(channel: string, fn: (payload: string | undefined) => void): Promise<Subscription> {
    return this.notifier.subscribe(channel, fn);
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.notifier.close();
    await this.pool.end();
  }
}

/**
 * The most connections one instance's pool may usefully open: the slots PostgreSQL lets this
 * role into this database (max_connections less the superuser reserve, or the role's or the
 * database's CONNECTION LIMIT when lower), less one for the LISTEN session. A pool larger than
 * that only ever meets "too many clients" (docs/store.md, "Connections").
 */
async function connectionBudget(pool: pg.Pool): Promise<number> {
  const r = await pool.query<{ slots: number }>(
    `SELECT LEAST(
       current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int,
       COALESCE((SELECT NULLIF(rolconnlimit, -1) FROM pg_roles WHERE rolname = current_user), 2147483647),
       COALESCE((SELECT NULLIF(datconnlimit, -1) FROM pg_database WHERE datname = current_database()), 2147483647)
     ) AS slots`,
  );
  return Math.max(1, (r.rows[0]?.slots ?? 2) - 1);
}
